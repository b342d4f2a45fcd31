#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the arm64 checks take from Debian's arm64 packages, fetched with
# apt-get through a configuration of its own (the machine's sources and
# architectures are left alone) into out/arm64/:
#   busybox  Debian's busybox-static for arm64, for the guest's initramfs;
#   config   Debian's arm64 kernel config of the base's version
#            (linux-config-6.12, as for amd64), for distro-objs.sh.
# Fetched once (again when the mirror changes); prints the path asked for.
#
# Usage: arm64-debs.sh busybox|config
#   DEB_MIRROR=URL  the archive (default: deb.debian.org; the security
#                   updates come from debian-security beside it)
. "$(dirname "$0")/lib.sh"

usage="usage: arm64-debs.sh busybox|config"
[ $# -eq 1 ] || die "$E_USAGE" "$usage"
d=$OUT/arm64
case $1 in
busybox) want=$d/busybox ;;
config) want=$d/config.arm64_none_arm64.xz ;;
*) die "$E_USAGE" "$usage" ;;
esac
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
stamp="$mirror $suite"
if [ -s "$want" ] && [ "$(cat "$d/stamp" 2> /dev/null)" = "$stamp" ]; then
	echo "$want"
	exit 0
fi
rm -rf "$d"
mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" "$d/deb"
log=$LOGS/arm64-debs.log
{
	echo "deb [arch=arm64] $mirror $suite main"
	echo "deb [arch=arm64] ${mirror%/debian}/debian-security $suite-security main"
} > "$d/apt/sources.list"
opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
      -o Dir::Etc::SourceList="$d/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o Dir::State::Lists="$d/apt/lists" -o Dir::Cache="$d/apt/cache"
      -o Dir::State::Status=/dev/null -o Debug::NoLocking=1)
{
	apt-get "${opts[@]}" update &&
	(cd "$d/deb" && apt-get "${opts[@]}" download busybox-static linux-config-6.12)
} > "$log" 2>&1 || die "$E_DEPENDENCIES" "cannot fetch arm64 packages from $mirror" "$log"
for deb in "$d"/deb/*.deb; do
	dpkg-deb -x "$deb" "$d/deb/x" >> "$log" 2>&1 ||
		die "$E_DEPENDENCIES" "cannot unpack $deb" "$log"
done
file -L "$d/deb/x/bin/busybox" | grep -q 'ARM aarch64.*statically linked' ||
	die "$E_DEPENDENCIES" "busybox-static for arm64 is not a static arm64 program" "$log"
cp "$d/deb/x/bin/busybox" "$d/busybox"
cp "$d/deb/x/usr/src/linux-config-6.12/config.arm64_none_arm64.xz" "$d/" ||
	die "$E_DEPENDENCIES" "linux-config-6.12 for arm64 has no config.arm64_none_arm64.xz" "$log"
ls "$d"/deb/*.deb | sed 's|.*/||' > "$d/versions"
rm -rf "$d/apt" "$d/deb"
echo "$stamp" > "$d/stamp"
echo "$want"
