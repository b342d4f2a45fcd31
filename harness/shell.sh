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
cross=""
[ "$(variant "$v" runs)" != cross ] || cross=1
# perf is built for x86_64, and for the arm64 guest.
if [ -z "$cross" ]; then
	"$H/perf.sh" > /dev/null
elif [ "$(variant "$v" arch)" = arm64 ]; then
	"$H/perf.sh" --arch arm64 > /dev/null
fi
[ "$v" = old ] || "$H/selftests.sh" "$v"
dir=$(run_dir shell)
rm -rf "$dir"
mkdir -p "$dir"
: > "$dir/runlist"
files=()
kst=$(kselftest_dir "$v")
[ -d "$kst" ] && files+=("$kst/:tests")
bb=""
if [ -n "$cross" ]; then
	bb=$("$H/arm64-debs.sh" busybox)
	[ "$(variant "$v" arch)" != arm64 ] || files+=("$(build_dir perf-arm64)/perf:usr/bin/perf")
else
	files+=("$(build_dir perf)/perf:usr/bin/perf")
fi
BUSYBOX=$bb "$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$dir/runlist" "${files[@]}"
rm -rf "$dir/root"
info "booting $v with a shell on the console; leave with 'exit' or Ctrl-A X"
qemu_machine "$v" "$dir/results.log"
exec "$(variant "$v" qemu)" "${QEMU_MACHINE[@]}" -nodefaults -no-reboot -display none \
	-accel tcg -cpu "$(variant "$v" cpu)" -smp 2 -m "$(variant "$v" mem)" \
	-kernel "$(build_dir "$v")/$(kernel_image "$v")" -initrd "$dir/initramfs.cpio.gz" \
	-append "console=$CONSOLE $KERNEL_ARGS panic=-1 loglevel=4 unwind.shell ${BOOT_APPEND:-}" \
	-serial mon:stdio "${QEMU_RESULTS[@]}"
