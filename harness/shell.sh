#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make shell: boot a variant's kernel (VARIANT, default guest) with the
# selftests (/tests) and perf (/usr/bin/perf) in the initramfs and an
# interactive shell on the console. Leave with "exit" (powers off) or Ctrl-A X.
# Usage: shell.sh VARIANT
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || die "$E_USAGE" "usage: shell.sh VARIANT"
v=$1
[ "$(variant "$v" runs)" != build ] || die "$E_USAGE" "variant $v is built, never booted"
[ -t 0 ] && [ -t 1 ] || die "$E_USAGE" "make shell needs a terminal (use make test for a non-interactive run)"
for step in deps base tree; do "$H/$step.sh"; done
"$H/config.sh" "$v"
"$H/build.sh" "$v"
"$H/perf.sh" > /dev/null
[ "$v" = old ] || "$H/selftests.sh" "$v"
dir=$(run_dir shell)
rm -rf "$dir"
mkdir -p "$dir"
: > "$dir/runlist"
files=()
[ -d "$OUT/kselftest" ] && files+=("$OUT/kselftest/:tests")
files+=("$(build_dir perf)/perf:usr/bin/perf")
"$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$dir/runlist" "${files[@]}"
rm -rf "$dir/root"
info "booting $v with a shell on the console; leave with 'exit' or Ctrl-A X"
exec "$(variant "$v" qemu)" -nodefaults -no-reboot -display none \
	-accel tcg -cpu "$(variant "$v" cpu)" -smp 2 -m "$(variant "$v" mem)" \
	-kernel "$(build_dir "$v")/arch/x86/boot/bzImage" -initrd "$dir/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=4 unwind.shell ${BOOT_APPEND:-}" \
	-serial mon:stdio -serial "file:$dir/results.log"
