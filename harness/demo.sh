#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo (make run): build the patched kernel and a static perf, boot the
# kernel in QEMU and profile perf's own known-chain workload there
# (`perf test -w readchain`, from the series) as a perf user would, with
# `perf record --call-graph fp,defer`; print what perf report and perf script
# show; then the same deferred walk for a trace event with Debian's
# trace-cmd (option userstacktrace_delay). The run's files are in
# out/runs/demo/.
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "$E_USAGE" "usage: demo.sh (no arguments)"
prepare_guest_and_perf
perf=$PERF

dir=$(run_dir demo)
rm -rf "$dir"
mkdir -p "$dir"
echo "demo 300 sh /demo/guest.sh" > "$dir/runlist"
trace_cmd_files
"$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$dir/runlist" \
	"$perf:usr/bin/perf" "$H/demo/guest.sh:demo/guest.sh" "${TRACE_CMD_FILES[@]}"
rm -rf "$dir/root"

phase boot
"$H/boot.sh" guest "$dir/initramfs.cpio.gz" "$dir"
phase_end

res=$dir/results.log
rc=0
python3 "$H/report.py" parse --name demo --console "$dir/console.log" \
	--results /dev/null > "$dir/report.log" || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne "$E_NO_TESTS" ]; then
	cat "$dir/report.log" >&2
	die "$rc" "the demo guest failed" "$dir/console.log"
fi
grep -q '^UNWIND-TAP-END demo rc=0' "$res" || die "$E_TEST_FAILURE" "the demo failed" "$res"
cat <<MSG

================================================================================
 perf with deferred user callchains, in a guest running $(sed -n 's/^UNWIND-GUEST-START //p' "$res")
 A sample taken in the kernel records only its kernel frames and a cookie.
 The user stack is walked once per stay in the kernel, on the way back to user
 space, and written as one PERF_RECORD_CALLCHAIN_DEFERRED with that cookie;
 perf report and perf script stitch it back onto every sample with the cookie.
 ftrace does the same for trace events (option userstacktrace_delay): each
 event gets a cookie event, the walk writes one user_unwind_stack event.
================================================================================
MSG
sed -n '/^UNWIND-TAP-BEGIN demo/,/^UNWIND-TAP-END/p' "$res" | sed '1d;$d' | tr -d '\r' | cat -s
