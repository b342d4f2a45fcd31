#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Pack an initramfs: static busybox, the guest /init, the installed selftests and
# a run list. Usage: initramfs.sh OUTPUT RUNLIST [FILE:GUESTPATH...]
. "$(dirname "$0")/lib.sh"

out=${1:?usage: initramfs.sh OUTPUT RUNLIST [FILE:GUESTPATH...]}
runlist=${2:?}
shift 2
root=$OUT/initramfs-root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,tests,usr/bin,usr/sbin}
cp /bin/busybox "$root/bin/busybox"
file -L "$root/bin/busybox" | grep -q 'statically linked' ||
	die "$E_BUILD" "/bin/busybox is not static (install busybox-static)"
cp "$TOP/harness/guest/init" "$root/init"
cp "$runlist" "$root/etc/unwind-run"
[ -d "$OUT/kselftest" ] && cp -a "$OUT/kselftest/." "$root/tests/"
for spec in "$@"; do
	mkdir -p "$root/$(dirname "${spec#*:}")"
	cp -a "${spec%%:*}" "$root/${spec#*:}"
done
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
info "initramfs: $out ($(du -h "$out" | cut -f1))"
