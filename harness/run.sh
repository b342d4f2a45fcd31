#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make run: build the patched kernel, boot it in QEMU and show deferred unwinds
# of a demo program, symbolized on the host from the demo binary.
. "$(dirname "$0")/lib.sh"

H=$TOP/harness
phase deps;	"$H/deps.sh"
phase base;	"$H/base.sh"
phase apply;	"$H/apply.sh"
phase config;	"$H/config.sh" guest
phase build;	"$H/build.sh" guest

phase demo-build
demo=$OUT/demo/demo
mkdir -p "$OUT/demo"
gcc -static -no-pie -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
	-Wall -o "$demo" "$H/demo/demo.c" 2> "$LOGS/demo-build.log" ||
	die "$E_BUILD" "demo build failed" "$LOGS/demo-build.log"
echo "demo 120 /demo/demo" > "$OUT/runlist-demo"
rm -rf "$OUT/kselftest"	# the demo guest carries only the demo
"$H/initramfs.sh" "$OUT/initramfs-demo.cpio.gz" "$OUT/runlist-demo" "$demo:demo/demo"

phase boot
"$H/boot.sh" guest "$OUT/initramfs-demo.cpio.gz" demo
phase_end

res=$LOGS/demo-results.log
python3 "$H/report.py" parse --name demo --console "$LOGS/demo-console.log" \
	--results /dev/null > /dev/null || {
	rc=$?
	[ $rc -eq "$E_NOTESTS" ] || die "$rc" "the demo guest failed" "$LOGS/demo-console.log"
}
grep -q '^UNWIND-TAP-END demo rc=0' "$res" || die "$E_TEST" "the demo did not finish" "$res"
cat <<MSG

================================================================================
 Deferred user-space unwinding on $(sed -n 's/^UNWIND-GUEST-START //p' "$res")
 A program asked for its own user stack from task, IRQ and NMI context; the
 stack was walked once, on the way back to user space, and every tracer that
 asked got it with the same cookie. Addresses symbolized from $demo.
================================================================================
MSG
sed -n '/^UNWIND-TAP-BEGIN demo/,/^UNWIND-TAP-END/p' "$res" | sed '1d;$d' |
	python3 "$H/symbolize.py" "$demo"
