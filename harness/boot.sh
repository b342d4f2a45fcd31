#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built variant with an initramfs under QEMU (TCG), console and results
# captured to logs, the whole run wrapped in a timeout.
# Usage: boot.sh VARIANT INITRAMFS RUN-NAME
. "$(dirname "$0")/lib.sh"

v=${1:?usage: boot.sh VARIANT INITRAMFS RUN-NAME}
initrd=${2:?}
name=${3:?}
b=$(build_dir "$v")
kernel=$b/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "$E_BOOT" "$v: no kernel at $kernel"
console=$LOGS/$name-console.log
results=$LOGS/$name-results.log
rm -f "$console" "$results"

case $v in
debug) mem=2G; tmo=${BOOT_TIMEOUT:-1200} ;;
*) mem=1G; tmo=${BOOT_TIMEOUT:-600} ;;
esac
cpu=max
[ "$(variant_arch "$v")" = i386 ] && cpu=qemu32

info "$name: booting $v kernel (timeout ${tmo}s; console: $console)"
rc=0
timeout -k 10 "$tmo" qemu-system-x86_64 -nodefaults -no-reboot -display none \
	-accel tcg -cpu "$cpu" -smp 2 -m "$mem" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=7 ${BOOT_APPEND:-}" \
	-serial "file:$console" -serial "file:$results" \
	> "$LOGS/$name-qemu.log" 2>&1 || rc=$?
[ $rc -eq 124 ] && warn "$name: QEMU killed after ${tmo}s"
[ $rc -ne 0 ] && [ $rc -ne 124 ] && warn "$name: QEMU exited with $rc (see $LOGS/$name-qemu.log)"
exit 0
