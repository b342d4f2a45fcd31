#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Pack an initramfs: static busybox (BUSYBOX, else the host's), the guest
# /init, a run list and the files given. Everything it packs comes from its
# arguments.
#
# Usage: initramfs.sh OUTPUT ROOT RUNLIST [DIR/:GUESTDIR | FILE:GUESTPATH]...
#   ROOT     scratch folder for the image's contents (emptied first)
#   RUNLIST  lines "NAME TIMEOUT COMMAND..." for the guest's /init
#   a source ending in "/" is a folder whose contents are copied to GUESTDIR
. "$(dirname "$0")/lib.sh"

usage="usage: initramfs.sh OUTPUT ROOT RUNLIST [SRC:GUESTPATH]..."
[ $# -ge 3 ] || die "$E_USAGE" "$usage"
out=$1 root=$2 runlist=$3
shift 3
[ -f "$runlist" ] || die "$E_USAGE" "initramfs.sh: no run list $runlist"
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,tests,usr/bin,usr/sbin}
# BUSYBOX: another architecture's busybox (harness/arm64-debs.sh).
cp "${BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
file -L "$root/bin/busybox" | grep -q 'statically linked' ||
	die "$E_BUILD" "${BUSYBOX:-/bin/busybox} is not static (install busybox-static)"
cp "$H/guest/init" "$root/init"
cp "$runlist" "$root/etc/unwind-run"
for spec in "$@"; do
	src=${spec%%:*} dst=${spec#*:}
	[ "$src" != "$spec" ] || die "$E_USAGE" "initramfs.sh: '$spec' is not SRC:GUESTPATH"
	[ -e "$src" ] || die "$E_BUILD" "initramfs.sh: $src does not exist"
	if [ "${src%/}" != "$src" ]; then
		mkdir -p "$root/$dst"
		cp -a "$src." "$root/$dst/"
	else
		mkdir -p "$root/$(dirname "$dst")"
		cp -a "$src" "$root/$dst"
	fi
done
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
info "initramfs: $out ($(du -h "$out" | cut -f1))"
