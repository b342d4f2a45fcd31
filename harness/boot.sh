#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built variant with an initramfs under QEMU (TCG), console and results
# captured into the run's folder, the whole run wrapped in a timeout.
#
# Usage: boot.sh VARIANT INITRAMFS RUNDIR
#   RUNDIR gets console.log (kernel console, ttyS0), results.log (test output,
#   ttyS1) and qemu.log. BOOT_TIMEOUT (seconds), BOOT_APPEND (kernel command
#   line), BOOT_SMP (vCPUs, 2 by default) and BOOT_TCG (single or multi) override
#   the variant's defaults.
#
# TCG threading is the variant's tcg field. With one host thread per vCPU
# (multi), QEMU 7.2 has let a vCPU execute the int3 of a kernel text patch
# (text_poke_bp(), as static keys and ftrace use it) after the patch had
# completed, an "Oops: int3" of the base kernel that no test can avoid; so
# guest and old run all vCPUs in one thread (single). The debug guest stays
# multi: single made it too slow for its timeout. make bench's core guest,
# which measures CPUs requesting at once, asks for multi.
. "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "$E_USAGE" "usage: boot.sh VARIANT INITRAMFS RUNDIR"
v=$1 initrd=$2 dir=$3
kernel=$(build_dir "$v")/$(kernel_image "$v")
[ -f "$kernel" ] || die "$E_BOOT" "$v: no kernel at $kernel (run: make build VARIANT=$v)"
[ -f "$initrd" ] || die "$E_USAGE" "boot.sh: no initramfs $initrd"
tmo=${BOOT_TIMEOUT:-$(variant "$v" boot_tmo)}
[[ $tmo =~ ^[1-9][0-9]*$ ]] || die "$E_USAGE" "BOOT_TIMEOUT must be a number of seconds, not '$tmo'"
smp=${BOOT_SMP:-2}
[[ $smp =~ ^[1-8]$ ]] || die "$E_USAGE" "BOOT_SMP must be a number of vCPUs from 1 to 8 (CONFIG_NR_CPUS), not '$smp'"
tcg=${BOOT_TCG:-$(variant "$v" tcg)}
[ "$tcg" = single ] || [ "$tcg" = multi ] || die "$E_USAGE" "BOOT_TCG must be single or multi, not '$tcg'"
mkdir -p "$dir"
rm -f "$dir/console.log" "$dir/results.log" "$dir/qemu.log"

info "$(basename "$dir"): booting $v (timeout ${tmo}s; console: $dir/console.log)"
rc=0
qemu_machine "$v" "$dir/results.log"
timeout -k 10 "$tmo" "$(variant "$v" qemu)" "${QEMU_MACHINE[@]}" -nodefaults -no-reboot -display none \
	-accel "tcg,thread=$tcg" -cpu "$(variant "$v" cpu)" -smp "$smp" -m "$(variant "$v" mem)" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=$CONSOLE $KERNEL_ARGS panic=-1 oops=panic loglevel=7 ${BOOT_APPEND:-}" \
	-serial "file:$dir/console.log" "${QEMU_RESULTS[@]}" > "$dir/qemu.log" 2>&1 || rc=$?
[ $rc -eq 124 ] && warn "$(basename "$dir"): QEMU killed after ${tmo}s"
[ $rc -ne 0 ] && [ $rc -ne 124 ] && warn "$(basename "$dir"): QEMU exited with $rc (see $dir/qemu.log)"
exit 0
