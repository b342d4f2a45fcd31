#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make run: build the patched kernel and a static perf, boot the kernel in QEMU
# and profile a demo program there as a perf user would, with
# `perf record --call-graph fp,defer`; print what perf report and perf script
# show.
. "$(dirname "$0")/lib.sh"

H=$TOP/harness
prepare_guest_and_perf
perf=$PERF

phase demo-build
demo=$OUT/demo/demo
mkdir -p "$OUT/demo"
gcc -static -nostdlib -ffreestanding -fno-stack-protector -no-pie -O2 -g \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall \
	-o "$demo" "$H/demo/demo.c" 2> "$LOGS/demo-build.log" ||
	die "$E_BUILD" "demo build failed" "$LOGS/demo-build.log"
runlist=$OUT/runlist-demo
initrd=$OUT/initramfs-demo.cpio.gz
echo "demo 300 sh /demo/guest.sh" > "$runlist"
# A private OUT for the packing: the image gets no selftests, and a concurrent
# make check keeps its own initramfs-root.
pack=$OUT/demo/pack
OUT=$pack "$H/initramfs.sh" "$initrd" "$runlist" \
	"$perf:usr/bin/perf" "$demo:demo/demo" "$H/demo/guest.sh:demo/guest.sh"

phase boot
"$H/boot.sh" guest "$initrd" demo
phase_end

res=$LOGS/demo-results.log
rc=0
python3 "$H/report.py" parse --name demo --console "$LOGS/demo-console.log" \
	--results /dev/null > "$OUT/demo/report.log" || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne "$E_NOTESTS" ]; then
	cat "$OUT/demo/report.log" >&2
	die "$rc" "the demo guest failed" "$LOGS/demo-console.log"
fi
grep -q '^UNWIND-TAP-END demo rc=0' "$res" || die "$E_TEST" "the demo failed" "$res"
cat <<MSG

================================================================================
 perf with deferred user callchains, in a guest running $(sed -n 's/^UNWIND-GUEST-START //p' "$res")
 A sample taken in the kernel records only its kernel frames and a cookie.
 The user stack is walked once per stay in the kernel, on the way back to user
 space, and written as one PERF_RECORD_CALLCHAIN_DEFERRED with that cookie;
 perf report and perf script stitch it back onto every sample with the cookie.
================================================================================
MSG
sed -n '/^UNWIND-TAP-BEGIN demo/,/^UNWIND-TAP-END/p' "$res" | sed '1d;$d' | tr -d '\r' | cat -s
