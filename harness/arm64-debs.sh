#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the arm64 checks take from Debian's arm64 packages, fetched with
# apt-get through a configuration of its own (the machine's sources and
# architectures are left alone) into out/arm64/:
#   busybox  Debian's busybox-static for arm64, for the guest's initramfs;
#   config   Debian's arm64 kernel config of the base's version
#            (linux-config-6.12, as for amd64), for distro-objs.sh;
#   perf-dev the arm64 static libraries and headers perf.sh --arch arm64
#            links the series' perf with (libelf-dev and what its static
#            library needs, of this host's suite, as deps.sh installs them
#            for amd64), unpacked in out/arm64/perf-dev/;
#   tools    Debian's perf (linux-perf 7.3, trixie-backports) and newest
#            trace-cmd (sid) for arm64, as users have them (the pins of
#            harness/lib.sh, as debian-tools.sh stages them for amd64): each
#            with every package it depends on, unpacked (an arm64 root cannot
#            run here), the program staged with its loader and the libraries
#            its DT_NEEDED entries name (harness/elf-needed.py) under
#            out/arm64/tools/, which guest-run.sh packs: /debian/perf,
#            /debian/trace-cmd and the wrappers /usr/bin/perf-debian and
#            /usr/bin/trace-cmd-debian.
# Fetched once (again when the mirror or a pin changes); prints the path asked
# for.
#
# Usage: arm64-debs.sh busybox|config|perf-dev|tools
#   DEB_MIRROR=URL  the archive (default: deb.debian.org; the security
#                   updates come from debian-security beside it)
. "$(dirname "$0")/lib.sh"

usage="usage: arm64-debs.sh busybox|config|perf-dev|tools"
[ $# -eq 1 ] || die "$E_USAGE" "$usage"
d=$OUT/arm64
case $1 in
busybox) want=$d/busybox ;;
config) want=$d/config.arm64_none_arm64.xz ;;
tools) want=$d/tools ;;
perf-dev) want=$d/perf-dev ;;
*) die "$E_USAGE" "$usage" ;;
esac
mirror=${DEB_MIRROR:-http://deb.debian.org/debian}
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

# apt_conf DIR SOURCE...: an apt configuration of its own in DIR (arm64, the
# given sources lines, no packages installed); sets the array opts.
apt_conf() {
	local a=$1
	shift
	rm -rf "$a"
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	printf '%s\n' "$@" > "$a/sources.list"
	: > "$a/status"
	opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64
	      -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
	      -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
	      -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache"
	      -o Dir::State::Status="$a/status" -o Debug::NoLocking=1
	      -o Acquire::Check-Valid-Until=false)
}

# tool NAME SUITE PACKAGE PIN UPSTREAM PROGRAM: PACKAGE at PIN (or the newest
# UPSTREAM.* if the pin is gone) from SUITE with its dependencies (trixie's
# where SUITE has none newer), unpacked; PROGRAM staged as
# tools/debian/NAME/bin/NAME with its loader and libraries in .../lib, and
# the wrapper tools/usr/bin/NAME-debian. Prints "PACKAGE VERSION (SUITE)".
tool() {
	local name=$1 ts=$2 pkg=$3 pin=$4 up=$5 prog=$6 a=$d/tools.apt/$1 x ver l
	local s=$d/tools.new/debian/$name
	apt_conf "$a" "deb [arch=arm64] $mirror trixie main" "deb [arch=arm64] $mirror $ts main"
	apt-get "${opts[@]}" update >> "$log" 2>&1 ||
		die "$E_DEPENDENCIES" "apt-get update (arm64, trixie and $ts) failed" "$log"
	ver=$(apt-cache "${opts[@]}" madison "$pkg" | awk -F' *[|] *' '{ print $2 }' |
		pick_version "$pin" "$up" "arm64 $pkg ($ts)") || exit
	apt-get "${opts[@]}" install -y --download-only --no-install-recommends -t "$ts" \
		"$pkg=$ver" >> "$log" 2>&1 ||
		die "$E_DEPENDENCIES" "apt-get --download-only $pkg=$ver (arm64, $ts) failed" "$log"
	x=$a/root
	mkdir -p "$x"
	for deb in "$a"/cache/archives/*.deb; do
		dpkg-deb -x "$deb" "$x" >> "$log" 2>&1 || die "$E_DEPENDENCIES" "cannot unpack $deb" "$log"
	done
	file -L "$x$prog" | grep -q 'ELF 64-bit.*ARM aarch64' ||
		die "$E_DEPENDENCIES" "$pkg $ver has no arm64 program $prog" "$log"
	mkdir -p "$s/bin" "$s/lib" "$d/tools.new/usr/bin"
	cp -L "$x$prog" "$s/bin/$name"
	python3 "$H/elf-needed.py" "$x" "$prog" > "$a/libs" 2>> "$log" ||
		die "$E_DEPENDENCIES" "the libraries of $prog ($pkg $ver, arm64)" "$log"
	while read -r l; do
		cp -L "$x$l" "$s/lib/"
	done < "$a/libs"
	[ -f "$s/lib/ld-linux-aarch64.so.1" ] || die "$E_DEPENDENCIES" "no loader for $prog" "$log"
	cat > "$d/tools.new/usr/bin/$name-debian" <<-EOF
	#!/bin/sh
	# Debian's $name for arm64, run by its own loader with its own libraries.
	exec /debian/$name/lib/ld-linux-aarch64.so.1 --library-path /debian/$name/lib /debian/$name/bin/$name "\$@"
	EOF
	chmod +x "$d/tools.new/usr/bin/$name-debian"
	echo "$pkg $ver ($ts, arm64, pinned $pin): $prog"
}

log=$LOGS/arm64-debs.log
if [ "$1" = tools ]; then
	log=$LOGS/arm64-tools.log
	stamp="perf=$DEBIAN_PERF_PIN trace-cmd=$DEBIAN_TRACE_CMD_PIN mirror=$mirror layout=1"
	if [ -d "$want" ] && [ "$(cat "$want/debian/stamp" 2> /dev/null)" = "$stamp" ]; then
		echo "$want"
		exit 0
	fi
	: > "$log"
	# The staged tools are replaced only by a complete new set.
	trap 'rm -rf "$d/tools.new" "$d/tools.apt"' EXIT
	rm -rf "$d/tools.new" "$d/tools.apt"
	mkdir -p "$d/tools.new/debian"
	{
		tool perf trixie-backports linux-perf "$DEBIAN_PERF_PIN" 7.3 /usr/bin/perf
		tool trace-cmd sid trace-cmd "$DEBIAN_TRACE_CMD_PIN" 3.4 /usr/bin/trace-cmd
	} > "$d/tools.new/debian/versions"
	echo "$stamp" > "$d/tools.new/debian/stamp"
	rm -rf "$want" "$d/tools.apt"
	mv "$d/tools.new" "$want"
	echo "$want"
	exit 0
fi

if [ "$1" = perf-dev ]; then
	log=$LOGS/arm64-perf-dev.log
	pkgs=(libelf-dev libdw-dev zlib1g-dev liblzma-dev libzstd-dev libbz2-dev)
	stamp="$mirror $suite ${pkgs[*]}"
	if [ -d "$want" ] && [ "$(cat "$want/stamp" 2> /dev/null)" = "$stamp" ]; then
		echo "$want"
		exit 0
	fi
	trap 'rm -rf "$d/perf-dev.new"' EXIT
	rm -rf "$d/perf-dev.new"
	apt_conf "$d/perf-dev.new/apt" "deb [arch=arm64] $mirror $suite main" \
		"deb [arch=arm64] ${mirror%/debian}/debian-security $suite-security main"
	mkdir -p "$d/perf-dev.new/deb"
	{
		apt-get "${opts[@]}" update &&
		(cd "$d/perf-dev.new/deb" && apt-get "${opts[@]}" download "${pkgs[@]}")
	} > "$log" 2>&1 || die "$E_DEPENDENCIES" "cannot fetch ${pkgs[*]} for arm64 from $mirror" "$log"
	for deb in "$d"/perf-dev.new/deb/*.deb; do
		dpkg-deb -x "$deb" "$d/perf-dev.new/root" >> "$log" 2>&1 ||
			die "$E_DEPENDENCIES" "cannot unpack $deb" "$log"
	done
	[ -f "$d/perf-dev.new/root/usr/lib/aarch64-linux-gnu/libelf.a" ] ||
		die "$E_DEPENDENCIES" "libelf-dev for arm64 has no libelf.a" "$log"
	ls "$d"/perf-dev.new/deb/*.deb | sed 's|.*/||' > "$d/perf-dev.new/root/versions"
	echo "$stamp" > "$d/perf-dev.new/root/stamp"
	rm -rf "$want"
	mv "$d/perf-dev.new/root" "$want"
	echo "$want"
	exit 0
fi

stamp="$mirror $suite"
if [ -s "$want" ] && [ "$(cat "$d/stamp" 2> /dev/null)" = "$stamp" ]; then
	echo "$want"
	exit 0
fi
rm -rf "$d/apt" "$d/deb" "$d/busybox" "$d/config.arm64_none_arm64.xz" "$d/stamp"
mkdir -p "$d/apt/lists/partial" "$d/apt/cache/archives/partial" "$d/deb"
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
