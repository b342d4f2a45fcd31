#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what a user stack costs. Builds the guest kernel and a static perf
# (incrementally) and boots two guests:
#
# perf: two frame-pointer workloads (harness/bench/), each timed unprofiled and
# under `perf record --call-graph fp | fp,defer | dwarf`, interleaved, REPS
# times; each perf.data is counted. Table: out/bench/table.txt (raw lines:
# out/bench/raw.txt).
#
# core (BENCH_CORE_SMP vCPUs, one host thread each): the test module's
# "bench" commands, driven by
# harness/bench/core.c: what a request costs against perf's in-interrupt walk,
# the walk per frame with frame pointers and with SFrame (each section
# version), the SFrame walk against the number of functions the section
# describes, and the cookie's first request with 1, 2, 4 vCPUs at once against
# a global atomic counter. Tables: out/bench/core.txt (raw lines:
# out/bench/core-raw.txt).
#
# debian13: the acceptance test of harness/guest/debian13-test.sh on every
# Debian 13 program it knows (python3, xz, gzip, sort, bash, sqlite3, and
# the frame-pointer control), in two guests: the series' default and
# booted with eh_frame_probe=0 (.eh_frame off). Table: out/bench/debian13.txt
# (raw: the two runs' results.log under out/runs/bench-debian13-*).
#
# Usage: bench.sh    (settings from the environment, defaults in brackets:
#   BENCH_TABLES ["perf core debian13"] which guests to run
#   BENCH_REPS [10]  BENCH_PERIOD [250000] cpu-clock ns per sample (4 kHz)
#   BENCH_DWARF_SIZE [8192] bytes of user stack per sample with dwarf
#   BENCH_SYSCALL ["100 67108864"] LOOPS BYTES
#   BENCH_COMPUTE ["500 80 1000000"] LOOPS DEPTH WORK
#   BENCH_NOFP ["200 80 1000000"] LOOPS DEPTH WORK of compute built without
#     frame pointers (and with SFrame, -Wa,--gsframe)
#   BENCH_CORE_ROUNDS [5]  BENCH_CORE_ITERS [200] commands per run
#   BENCH_CORE_REPEAT [32] repeated requests, or walks, per command
#   BENCH_CORE_WALK_ITERS [20] walk commands per run and depth
#   BENCH_CORE_DEPTHS ["4 60 496"] recursion depths: 8, 64, 500 frames
#   BENCH_CORE_SECTIONS ["exe cold nocache v2 v2pcrel v3 ehf ehfcold
#     ehfnocache"] SFrame sections walked at each depth: the executable's
#     (found at the first walk), the same forgotten before each walk (cold:
#     the first walk through a new object, probe and check included), the
#     same with the walker's rule cache off (nocache), it converted, and
#     the program built without SFrame walked with its .eh_frame (ehf; and
#     forgotten before each walk: ehfcold; the cache off: ehfnocache)
#   BENCH_CORE_FDES ["10 100 1000 10000 100000"] functions added to the
#     SFrame program for the lookup-cost rows (the rule cache off)
#   BENCH_CORE_FDE_DEPTH [60] recursion depth of those rows (64 frames)
#   BENCH_CORE_CPUS ["1 2 4"] processes requesting at once
#   BENCH_CORE_SMP [4] vCPUs of the core guest
#   BENCH_TIMEOUT [2400] seconds for all of one guest's runs)
. "$(dirname "$0")/lib.sh"

B=$OUT/bench
usage="usage: bench.sh (no arguments; BENCH_* settings: see its header)"
[ $# -eq 0 ] || die "$E_USAGE" "$usage"
tables=${BENCH_TABLES:-perf core debian13}
reps=${BENCH_REPS:-10}
period=${BENCH_PERIOD:-250000}
dwarf=${BENCH_DWARF_SIZE:-8192}
syscall_args=${BENCH_SYSCALL:-100 67108864}
compute_args=${BENCH_COMPUTE:-500 80 1000000}
nofp_args=${BENCH_NOFP:-200 80 1000000}
tmo=${BENCH_TIMEOUT:-2400}
c_rounds=${BENCH_CORE_ROUNDS:-5}
c_iters=${BENCH_CORE_ITERS:-200}
c_repeat=${BENCH_CORE_REPEAT:-32}
c_walk_iters=${BENCH_CORE_WALK_ITERS:-20}
c_depths=${BENCH_CORE_DEPTHS:-4 60 496}
c_cpus=${BENCH_CORE_CPUS:-1 2 4}
c_sections=${BENCH_CORE_SECTIONS-exe cold nocache v2 v2pcrel v3 ehf ehfcold ehfnocache}
c_fdes=${BENCH_CORE_FDES-10 100 1000 10000 100000}
c_fde_depth=${BENCH_CORE_FDE_DEPTH:-60}
c_smp=${BENCH_CORE_SMP:-4}

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
for t in $tables; do
	case $t in
	perf | core | debian13) ;;
	*) die "$E_USAGE" "BENCH_TABLES: '$t' is not perf, core or debian13; $usage" ;;
	esac
done
[ -n "$tables" ] || die "$E_USAGE" "BENCH_TABLES is empty; $usage"
number BENCH_CORE_ROUNDS "$c_rounds"
number BENCH_CORE_ITERS "$c_iters"
number BENCH_CORE_REPEAT "$c_repeat"
number BENCH_CORE_WALK_ITERS "$c_walk_iters"
number BENCH_CORE_SMP "$c_smp"
read -ra a <<< "$c_depths"
[ ${#a[@]} -ge 1 ] || die "$E_USAGE" "BENCH_CORE_DEPTHS is empty; $usage"
number BENCH_CORE_DEPTHS "${a[@]}"
for d in "${a[@]}" "$c_fde_depth"; do
	[ "$d" -le 508 ] || die "$E_USAGE" "BENCH_CORE_DEPTHS or _FDE_DEPTH: $d is deeper than the 508 a 512-frame walk holds"
done
number BENCH_CORE_FDE_DEPTH "$c_fde_depth"
for s in $c_sections; do
	case $s in
	exe | cold | nocache | v2 | v2pcrel | v3 | ehf | ehfcold | ehfnocache) ;;
	*) die "$E_USAGE" "BENCH_CORE_SECTIONS: '$s' is not exe, cold, nocache, v2, v2pcrel, v3, ehf, ehfcold or ehfnocache; $usage" ;;
	esac
done
read -ra a <<< "$c_fdes"
[ ${#a[@]} -eq 0 ] || number BENCH_CORE_FDES "${a[@]}"
for n in "${a[@]}"; do
	[ "$n" -le 1000000 ] || die "$E_USAGE" "BENCH_CORE_FDES: $n functions is more than the 1000000 this builds"
done
read -ra a <<< "$c_cpus"
[ ${#a[@]} -ge 1 ] || die "$E_USAGE" "BENCH_CORE_CPUS is empty; $usage"
number BENCH_CORE_CPUS "${a[@]}"
for n in "${a[@]}"; do
	[ "$n" -le "$c_smp" ] || die "$E_USAGE" "BENCH_CORE_CPUS: $n processes, but the guest has BENCH_CORE_SMP=$c_smp vCPUs"
done
[ "$c_repeat" -le 1000 ] || die "$E_USAGE" "BENCH_CORE_REPEAT must be at most 1000 (the module's limit)"
[ "$c_smp" -le 8 ] || die "$E_USAGE" "BENCH_CORE_SMP must be at most 8 (CONFIG_NR_CPUS)"
read -ra a <<< "$syscall_args"
[ ${#a[@]} -eq 2 ] || die "$E_USAGE" "BENCH_SYSCALL wants 'LOOPS BYTES'; $usage"
number BENCH_SYSCALL "${a[@]}"
read -ra a <<< "$compute_args"
[ ${#a[@]} -eq 3 ] || die "$E_USAGE" "BENCH_COMPUTE wants 'LOOPS DEPTH WORK'; $usage"
number BENCH_COMPUTE "${a[@]}"
read -ra a <<< "$nofp_args"
[ ${#a[@]} -eq 3 ] || die "$E_USAGE" "BENCH_NOFP wants 'LOOPS DEPTH WORK'; $usage"
number BENCH_NOFP "${a[@]}"
if [ $((dwarf % 8)) -ne 0 ] || [ "$dwarf" -gt 65528 ]; then
	die "$E_USAGE" "BENCH_DWARF_SIZE must be a multiple of 8, at most 65528"
fi

t_start=$(date +%s)
prepare_guest_and_perf
perf=$PERF
bin=$B/bin
phase bench-build
bench_programs "$bin" "$LOGS/bench-build.log" "$c_fdes"

# boot_bench NAME SCRIPT SMP TCG: boot the guest (SMP vCPUs, TCG threading:
# single or multi) with SCRIPT as its only test and the bench files in the
# initramfs; fails unless SCRIPT finished with status 0 and the console is
# clean. Sets res to its results.log.
boot_bench() {
	local name=$1 script=$2 smp=$3 tcg=$4 dir rc=0
	bench_files "$bin"
	dir=$(run_dir "$name")
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "$name $tmo sh /bench/$script" > "$dir/runlist"
	"$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$dir/runlist" \
		"${BENCH_FILES[@]}" "$perf:usr/bin/perf"
	rm -rf "$dir/root"
	phase "boot-$name"
	BOOT_SMP=$smp BOOT_TCG=$tcg BOOT_TIMEOUT=${BOOT_TIMEOUT:-$((tmo + 300))} \
		"$H/boot.sh" guest "$dir/initramfs.cpio.gz" "$dir"
	phase_end
	res=$dir/results.log
	python3 "$H/report.py" parse --name "$name" --console "$dir/console.log" \
		--results /dev/null > "$B/report-$name.log" || rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne "$E_NO_TESTS" ]; then
		cat "$B/report-$name.log" >&2
		die "$rc" "the $name guest failed" "$dir/console.log"
	fi
	if ! grep -q "^UNWIND-TAP-END $name rc=0" "$res"; then
		grep -A5 -e '^BENCH-FAIL' -e '^CORE-FAIL' "$res" >&2 || true
		die "$E_TEST_FAILURE" "a $name run failed or did not finish" "$res"
	fi
}

bench_perf() {
	cat > "$bin/params" <<PARAMS
REPS=$reps
PERIOD=$period
DWARF_SIZE=$dwarf
WORKLOADS="syscall compute nofp"
MODES="none fp defer dwarf"
ARGS_syscall="$syscall_args"
ARGS_compute="$compute_args"
ARGS_nofp="$nofp_args"
PARAMS
	boot_bench bench guest.sh 2 single
	echo
	python3 "$H/bench/table.py" "$res" "$B" ||
		die "$E_TEST_FAILURE" "the perf figures are incomplete or wrong (raw: $B/raw.txt)"
}

bench_core() {
	cat > "$bin/core-params" <<PARAMS
ROUNDS=$c_rounds
ITERS=$c_iters
REPEAT=$c_repeat
WALK_ITERS=$c_walk_iters
DEPTHS="$c_depths"
CPUS="$c_cpus"
SECTIONS="$c_sections"
FDES="$c_fdes"
FDE_DEPTH=$c_fde_depth
PARAMS
	# One host thread per vCPU: table 4 wants CPUs requesting at once.
	boot_bench bench-core core.sh "$c_smp" multi
	echo
	python3 "$H/bench/core_table.py" "$res" "$B" ||
		die "$E_TEST_FAILURE" "the core figures are incomplete or wrong (raw: $B/core-raw.txt)"
}

# The Debian 13 acceptance test, with every program, .eh_frame on and off.
# The run with .eh_frame off fails its checks by design: only its figures
# are taken.
bench_debian13() {
	local onoff append rc
	phase selftests
	"$H/selftests.sh" guest > /dev/null
	for onoff in on off; do
		append=${BOOT_APPEND:-}
		[ "$onoff" = on ] || append="$append eh_frame_probe=0"
		rc=0
		BOOT_APPEND=$append DEBIAN13_PROGRAMS="python3 xz gzip sort bash sqlite3 control" \
			"$H/guest-run.sh" guest "bench-debian13-$onoff" --only 'debian13.*' > "$B/debian13-$onoff.log" 2>&1 || rc=$?
		grep -q '^# RESULT ' "$(run_dir "bench-debian13-$onoff")/results.log" 2> /dev/null ||
			die "$E_TEST_FAILURE" "the Debian 13 run ($onoff) has no figures (exit $rc)" "$B/debian13-$onoff.log"
		[ "$onoff" = off ] || [ $rc -eq 0 ] ||
			warn "debian13: a check failed with .eh_frame on (see $(run_dir bench-debian13-on)/results.log)"
	done
	phase_end
	python3 "$H/bench/debian13_table.py" "$(run_dir bench-debian13-on)/results.log" \
		"$(run_dir bench-debian13-off)/results.log" "$B/debian13.txt" ||
		die "$E_TEST_FAILURE" "the Debian 13 figures are incomplete" "$B/debian13.txt"
}

done_tables=""
for t in $tables; do
	"bench_$t"
	case $t in
	perf) done_tables="$done_tables $B/table.txt (raw: $B/raw.txt)" ;;
	core) done_tables="$done_tables $B/core.txt (raw: $B/core-raw.txt)" ;;
	debian13) done_tables="$done_tables $B/debian13.txt" ;;
	esac
done
info "tables:$done_tables ($(( $(date +%s) - t_start ))s)"
