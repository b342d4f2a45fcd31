#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench-ftrace: what a user stack costs the ftrace ring buffer with
# userstacktrace (an in-event walk per event) and userstacktrace_delay (a
# cookie per event, one deferred walk per system call), and how many frames
# each recovers when the frame records lie in pages that are not present.
# Builds the guest kernel and the selftests (incrementally), boots one guest
# that runs harness/bench/ftrace.sh, and prints the table, kept in
# out/bench/ftrace.txt (raw lines: out/bench/ftrace-raw.txt).
#
# Usage: bench-ftrace.sh    (settings from the environment, defaults in brackets:
#   BENCH_REPS [5]  BENCH_CALLS [2000] getppid() calls per run
#   BENCH_EVENTS ["raw_syscalls/sys_enter raw_syscalls/sys_exit
#                  syscalls/sys_enter_getppid syscalls/sys_exit_getppid"])
. "$(dirname "$0")/lib.sh"

B=$OUT/bench
usage="usage: bench-ftrace.sh (no arguments; BENCH_* settings: see its header)"
[ $# -eq 0 ] || die "$E_USAGE" "$usage"
reps=${BENCH_REPS:-5}
calls=${BENCH_CALLS:-2000}
events=${BENCH_EVENTS:-raw_syscalls/sys_enter raw_syscalls/sys_exit syscalls/sys_enter_getppid syscalls/sys_exit_getppid}
for x in "BENCH_REPS $reps" "BENCH_CALLS $calls"; do
	set -- $x
	[[ $2 =~ ^[1-9][0-9]*$ ]] || die "$E_USAGE" "$1: '$2' is not a positive integer; $usage"
done
for e in $events; do
	[[ $e =~ ^[a-z0-9_]+/[a-z0-9_]+$ ]] ||
		die "$E_USAGE" "BENCH_EVENTS: '$e' is not SYSTEM/EVENT; $usage"
done

t_start=$(date +%s)
prepare_guest_and_perf
phase selftests
"$H/selftests.sh" guest
prog=$OUT/kselftest/ftrace/unwind_chain
[ -x "$prog" ] || die "$E_BUILD" "no $prog after selftests.sh"

mkdir -p "$B"
dir=$(run_dir bench-ftrace)
rm -rf "$dir"
mkdir -p "$dir"
printf 'REPS=%s\nCALLS=%s\nEVENTS="%s"\n' "$reps" "$calls" "$events" > "$dir/params"
echo "bench.ftrace 1200 sh /bench/ftrace.sh" > "$dir/runlist"
"$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$dir/runlist" \
	"$H/bench/ftrace.sh:bench/ftrace.sh" "$dir/params:bench/params" \
	"$prog:bench/unwind_chain"
rm -rf "$dir/root"

phase boot
BOOT_TIMEOUT=${BOOT_TIMEOUT:-1500} "$H/boot.sh" guest "$dir/initramfs.cpio.gz" "$dir"
phase_end

res=$dir/results.log
rc=0
python3 "$H/report.py" parse --name bench-ftrace --console "$dir/console.log" \
	--results /dev/null > "$B/ftrace-report.log" || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne "$E_NO_TESTS" ]; then
	cat "$B/ftrace-report.log" >&2
	die "$rc" "the bench guest failed" "$dir/console.log"
fi
grep -E '^FTRACE-' "$res" > "$B/ftrace-raw.txt" || true
if grep -q '^FTRACE-FAIL' "$B/ftrace-raw.txt" || ! grep -q '^UNWIND-TAP-END bench.ftrace rc=0' "$res"; then
	grep -A5 '^FTRACE-FAIL' "$res" >&2 || true
	die "$E_TEST_FAILURE" "the ftrace bench failed or did not finish" "$res"
fi
rc=0
python3 "$H/bench/ftrace_table.py" "$B/ftrace-raw.txt" "$reps" "$events" > "$B/ftrace.txt" || rc=$?
cat "$B/ftrace.txt"
[ $rc -eq 0 ] || die "$E_TEST_FAILURE" "the figures are incomplete or wrong (raw: $B/ftrace-raw.txt)"
info "table: $B/ftrace.txt; raw: $B/ftrace-raw.txt ($(( $(date +%s) - t_start ))s)"
