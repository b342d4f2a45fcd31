#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what a user stack costs perf in each call-graph mode. Builds the
# guest kernel and a static perf (incrementally), two frame-pointer workloads
# (harness/bench/), and boots one guest that times each workload unprofiled and
# under `perf record --call-graph fp | fp,defer | dwarf`, interleaved, REPS times,
# and counts each perf.data. The host turns the counts into a table, printed and
# kept in out/bench/table.txt (raw lines: out/bench/raw.txt).
#
# Usage: bench.sh    (settings from the environment, defaults in brackets:
#   BENCH_REPS [5]  BENCH_PERIOD [250000] cpu-clock ns per sample (4 kHz)
#   BENCH_DWARF_SIZE [8192] bytes of user stack per sample with dwarf
#   BENCH_SYSCALL ["100 67108864"] LOOPS BYTES
#   BENCH_COMPUTE ["500 80 1000000"] LOOPS DEPTH WORK
#   BENCH_TIMEOUT [2400] seconds for all the guest's runs)
. "$(dirname "$0")/lib.sh"

B=$OUT/bench
usage="usage: bench.sh (no arguments; BENCH_* settings: see its header)"
[ $# -eq 0 ] || die "$E_USAGE" "$usage"
reps=${BENCH_REPS:-5}
period=${BENCH_PERIOD:-250000}
dwarf=${BENCH_DWARF_SIZE:-8192}
syscall_args=${BENCH_SYSCALL:-100 67108864}
compute_args=${BENCH_COMPUTE:-500 80 1000000}
tmo=${BENCH_TIMEOUT:-2400}

# number NAME VALUE...: each VALUE must be a positive integer.
number() {
	local name=$1 v
	shift
	for v in "$@"; do
		[[ $v =~ ^[1-9][0-9]*$ ]] || die "$E_USAGE" "$name: '$v' is not a positive integer; $usage"
	done
}
number BENCH_REPS "$reps"
number BENCH_PERIOD "$period"
number BENCH_DWARF_SIZE "$dwarf"
number BENCH_TIMEOUT "$tmo"
read -ra a <<< "$syscall_args"
[ ${#a[@]} -eq 2 ] || die "$E_USAGE" "BENCH_SYSCALL wants 'LOOPS BYTES'; $usage"
number BENCH_SYSCALL "${a[@]}"
read -ra a <<< "$compute_args"
[ ${#a[@]} -eq 3 ] || die "$E_USAGE" "BENCH_COMPUTE wants 'LOOPS DEPTH WORK'; $usage"
number BENCH_COMPUTE "${a[@]}"
if [ $((dwarf % 8)) -ne 0 ] || [ "$dwarf" -gt 65528 ]; then
	die "$E_USAGE" "BENCH_DWARF_SIZE must be a multiple of 8, at most 65528"
fi

t_start=$(date +%s)
prepare_guest_and_perf
perf=$PERF

phase bench-build
bin=$B/bin
mkdir -p "$bin"
log=$LOGS/bench-build.log
: > "$log"
for w in syscall compute; do
	gcc -static -nostdlib -ffreestanding -fno-stack-protector -no-pie -O2 -g \
		-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall \
		-o "$bin/$w" "$H/bench/$w.c" >> "$log" 2>&1 ||
		die "$E_BUILD" "bench workload $w failed to build" "$log"
done
gcc -static -O2 -Wall -o "$bin/perfdata" "$H/bench/perfdata.c" >> "$log" 2>&1 ||
	die "$E_BUILD" "perfdata failed to build" "$log"
cat > "$bin/params" <<PARAMS
REPS=$reps
PERIOD=$period
DWARF_SIZE=$dwarf
WORKLOADS="syscall compute"
MODES="none fp defer dwarf"
ARGS_syscall="$syscall_args"
ARGS_compute="$compute_args"
PARAMS
dir=$(run_dir bench)
rm -rf "$dir"
mkdir -p "$dir"
echo "bench $tmo sh /bench/guest.sh" > "$dir/runlist"
"$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$dir/runlist" \
	"$perf:usr/bin/perf" "$H/bench/guest.sh:bench/guest.sh" "$bin/params:bench/params" \
	"$bin/syscall:bench/syscall" "$bin/compute:bench/compute" "$bin/perfdata:bench/perfdata"
rm -rf "$dir/root"

phase boot
BOOT_TIMEOUT=${BOOT_TIMEOUT:-$((tmo + 300))} "$H/boot.sh" guest "$dir/initramfs.cpio.gz" "$dir"
phase_end

res=$dir/results.log
rc=0
python3 "$H/report.py" parse --name bench --console "$dir/console.log" \
	--results /dev/null > "$B/report.log" || rc=$?
if [ $rc -ne 0 ] && [ $rc -ne "$E_NO_TESTS" ]; then
	cat "$B/report.log" >&2
	die "$rc" "the bench guest failed" "$dir/console.log"
fi
if ! grep -q '^UNWIND-TAP-END bench rc=0' "$res"; then
	grep -A5 '^BENCH-FAIL' "$res" >&2 || true
	die "$E_TEST_FAILURE" "a bench run failed or did not finish" "$res"
fi
echo
rc=0
python3 "$H/bench/table.py" "$res" "$B" || rc=$?
[ $rc -eq 0 ] || die "$E_TEST_FAILURE" "the figures are incomplete or wrong (raw: $B/raw.txt)"
info "table: $B/table.txt; raw: $B/raw.txt, $B/bench.json ($(( $(date +%s) - t_start ))s)"
