#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: the SFrame parser's libFuzzer target, sframe_fuzz of
# tools/testing/sframe in out/tree (kernel/unwind/sframe.c built with clang,
# ASan and UBSan, its answers checked against a model of the format; see
# sframe_fuzz.c). Builds it from clean, writes the seeds (this host's gcc
# -Wa,--gsframe output in every SFrame version, sframe_seeds.c) to
# out/fuzz/seeds, runs every input of fuzz-regress/ once, then fuzzes (from
# the corpus, the seeds and fuzz-regress/) in one
# process on one core: FUZZ_RUNS inputs (default 10000000), or FUZZ_TIME
# seconds (both set: whichever comes first). The corpus grows in
# out/fuzz/corpus from run to run (minimised after each clean run); an input
# that crashes, leaks or times out is written to out/fuzz/crashes and fails
# the run. Ends with the executions, libFuzzer's coverage figures (cov:
# edges, ft: features, of the parser and the target), the corpus size and
# the findings. The build and every run go to logs/fuzz.log.
#
# With --target eh_frame, the same for the .eh_frame reader's target,
# eh_frame_fuzz of tools/testing/eh_frame (kernel/unwind/eh_frame.c; see
# eh_frame_fuzz.c), seeded with the headers and segments of this host's
# vDSO, sort and true (eh_frame_dump --seed), its corpus in
# out/fuzz-eh_frame and its log logs/fuzz-eh_frame.log.
#
# Usage: fuzz.sh [--smoke] [--target sframe|eh_frame] [--json OUT]
#   --smoke	make check's run: fuzz-regress/, then FUZZ_TIME (default 45)
#		seconds; FUZZ_RUNS only if it is set
#   --target T	the parser to fuzz (default sframe)
#   --json OUT	the results: T.fuzz.regress, and T.fuzz.smoke (--smoke) or
#		T.fuzz.run
. "$(dirname "$0")/lib.sh"

usage="usage: fuzz.sh [--smoke] [--target sframe|eh_frame] [--json OUT] (FUZZ_RUNS=n or FUZZ_TIME=s in the environment)"
smoke=""
json=""
target=sframe
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1; shift ;;
	--target)
		case ${2:-} in
		sframe | eh_frame) target=$2 ;;
		*) die "$E_USAGE" "--target takes sframe or eh_frame, not '${2:-}'; $usage" ;;
		esac
		shift 2
		;;
	--json)
		[ -n "${2:-}" ] || die "$E_USAGE" "--json needs a file; $usage"
		json=$2
		shift 2
		;;
	*) die "$E_USAGE" "unknown argument '$1'; $usage" ;;
	esac
done

# A count the run can take: digits, not 0, not past what bash computes with.
for var in FUZZ_RUNS FUZZ_TIME; do
	val=${!var:-}
	[ -z "$val" ] || [[ $val =~ ^[1-9][0-9]{0,11}$ ]] ||
		die "$E_USAGE" "$var must be a whole number from 1 to 999999999999, not '$val'"
done
runs=${FUZZ_RUNS:-}
secs=${FUZZ_TIME:-}
if [ -n "$smoke" ]; then
	secs=${secs:-45}
elif [ -z "$runs" ] && [ -z "$secs" ]; then
	runs=10000000
fi
test_name=$target.fuzz.run
[ -z "$smoke" ] || test_name=$target.fuzz.smoke

name=${target}_fuzz
if [ "$target" = sframe ]; then
	dir=$TREE/tools/testing/sframe
	log=$LOGS/fuzz.log
	fuzz=$OUT/fuzz
	seed_need="the seeds need gcc with binutils 2.40 or later"
	rname=fuzz
else
	dir=$TREE/tools/testing/eh_frame
	log=$LOGS/fuzz-eh_frame.log
	fuzz=$OUT/fuzz-eh_frame
	seed_need="the seeds come from this host's vDSO, sort and true"
	rname=fuzz-eh_frame
fi
corpus=$fuzz/corpus
seeds=$fuzz/seeds
crashes=$fuzz/crashes

if [ ! -f "$dir/$name.c" ]; then
	warn "no ${dir#"$TREE"/}/$name.c in $TREE (an older series): nothing to fuzz"
	exit 0
fi

# record CLASS TEST=STATUS...: the result, if --json was given, with the
# message $msg if set.
msg=""
record() {
	local cls=$1 t args=()
	shift
	[ -n "$json" ] || return 0
	for t in "$@"; do args+=(--test "$t"); done
	[ -z "$msg" ] || args+=(--message "$msg")
	python3 "$H/report.py" record --name "$rname" --json "$json" --class "$cls" "${args[@]}"
}

# finding_in LINE: the first line of the finding after LINE of the log.
finding_in() {
	tail -n "+$1" "$log" |
		grep -m 1 -E 'FINDING:|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|runtime error:' |
		sed "s/^$name: //" || true
}

clang=${CLANG:-clang}
if ! command -v "$clang" > /dev/null; then
	record "$E_DEPENDENCIES" "$target.fuzz.build=fail"
	die "$E_DEPENDENCIES" "no $clang (make deps: clang, libclang-rt-dev)"
fi
: > "$log"
# Say so plainly when clang lacks libFuzzer (or the sanitizers' runtimes).
if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
	"$clang" -fsanitize=fuzzer,address,undefined -x c - -o /dev/null >> "$log" 2>&1; then
	record "$E_DEPENDENCIES" "$target.fuzz.build=fail"
	die "$E_DEPENDENCIES" "$clang cannot link a libFuzzer target (make deps: libclang-rt-dev)" "$log"
fi

# A UBSan report with its stack, and the first one ends the input.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

t0=$(date +%s)
mkdir -p "$corpus" "$crashes"
rm -rf "$seeds"
# From clean (-B): the binary must be the tree's parser, built with these
# flags. The host tests of make sframe-host are left alone.
printf -- '----- make fuzz seeds -----\n' >> "$log"
if ! make -B -C "$dir" fuzz seeds SEEDS="$seeds" >> "$log" 2>&1; then
	record "$E_BUILD" "$target.fuzz.build=fail"
	die "$E_BUILD" "$name or its seeds do not build ($seed_need)" "$log"
fi
bin=$dir/$name

# The regression inputs: each runs once; a finding names the input.
mapfile -t regress < <(find "$dir/fuzz-regress" -type f 2> /dev/null | sort)
if [ ${#regress[@]} -eq 0 ]; then
	record "$E_NO_TESTS" "$target.fuzz.regress=fail"
	die "$E_NO_TESTS" "no regression inputs in $dir/fuzz-regress"
fi
printf -- '----- %s fuzz-regress/ (%d inputs) -----\n' "$name" "${#regress[@]}" >> "$log"
start=$(($(wc -l < "$log") + 1))
rc=0
(cd "$fuzz" && timeout 300 "$bin" -artifact_prefix="$crashes/" -timeout=20 "${regress[@]}") \
	>> "$log" 2>&1 || rc=$?
ran=$(tail -n "+$start" "$log" | grep -c '^Executed ' || true)
if [ $rc -ne 0 ] || [ "$ran" -ne ${#regress[@]} ]; then
	bad=$(tail -n "+$start" "$log" | sed -n 's/^Running: //p' | tail -n 1)
	what=$(finding_in "$start")
	msg="regression input ${bad:-?}: ${what:-exit $rc}"
	record "$E_TEST_FAILURE" "$target.fuzz.regress=fail"
	die "$E_TEST_FAILURE" "regression input ${bad:-?} fails: ${what:-exit $rc} ($ran of ${#regress[@]} inputs ran; reproduce: $bin $bad)" "$log"
fi
info "$name: ${#regress[@]} regression inputs pass"

# The fuzzing run, in one process (no -jobs, no -fork).
opts=(-artifact_prefix="$crashes/" -timeout=20 -print_final_stats=1)
limit=()
[ -z "$runs" ] || { opts+=(-runs="$runs"); limit+=("$runs inputs"); }
tmo=()
if [ -n "$secs" ]; then
	opts+=(-max_total_time="$secs")
	limit+=("${secs}s")
	tmo=(timeout $((secs + 300)))
fi
# The regression inputs start the run too: they reach the parser's checks
# of overlapping rows and empty functions, which the seeds do not.
printf -- '----- %s %s CORPUS SEEDS REGRESS -----\n' "$name" "${opts[*]}" >> "$log"
start=$(($(wc -l < "$log") + 1))
info "fuzzing: ${limit[*]}; corpus $corpus ($(find "$corpus" -type f | wc -l) inputs)"
f0=$(date +%s)
rc=0
(cd "$fuzz" && "${tmo[@]}" "$bin" "${opts[@]}" "$corpus" "$seeds" "$dir/fuzz-regress") \
	>> "$log" 2>&1 || rc=$?
dt=$(($(date +%s) - f0))

# The figures: libFuzzer's last status line and final statistics.
run_log() { tail -n "+$start" "$log"; }
status=$(run_log | grep -E '^#[0-9]+[[:space:]].*cov: ' | tail -n 1 || true)
execs=$(run_log | sed -n 's/^stat::number_of_executed_units: *//p' | tail -n 1)
[ -n "$execs" ] || execs=$(sed -E -n 's/^#([0-9]+).*/\1/p' <<< "$status")
rate=$(run_log | sed -n 's/^stat::average_exec_per_sec: *//p' | tail -n 1)
cov=$(sed -E -n 's/.* cov: ([0-9]+).*/\1/p' <<< "$status")
ft=$(sed -E -n 's/.* ft: ([0-9]+).*/\1/p' <<< "$status")
mapfile -t found < <(run_log | sed -n 's/.*Test unit written to //p')
what=$(finding_in "$start")
failed=""
[ $rc -eq 0 ] && [ ${#found[@]} -eq 0 ] && [ -n "$status" ] || failed=1

# After a clean run the corpus keeps only the inputs that carry its
# features (libFuzzer's -merge), so that it does not grow without end.
nfiles=$(find "$corpus" -type f | wc -l)
merged=$fuzz/corpus.merge
if [ -z "$failed" ]; then
	rm -rf "$merged"
	mkdir -p "$merged"
	printf -- '----- %s -merge=1 (minimise the corpus) -----\n' "$name" >> "$log"
	if (cd "$fuzz" && timeout 600 "$bin" -merge=1 -timeout=20 "$merged" "$corpus") \
		>> "$log" 2>&1; then
		rm -rf "$corpus"
		mv "$merged" "$corpus"
	else
		rm -rf "$merged"
		warn "the corpus could not be minimised (see $log); it is kept as it was"
	fi
fi
ncorpus=$(find "$corpus" -type f | wc -l)
kib=$(find "$corpus" -type f -printf '%s\n' | awk '{ n += $1 } END { print int(n / 1024) }')

info "fuzz: ${execs:-?} executions in ${dt}s (${rate:-?} exec/s); cov: ${cov:-?} ft: ${ft:-?}"
info "corpus: $ncorpus inputs (${kib} KiB, $nfiles files before minimising) in $corpus;" \
	"crashes found: ${#found[@]}"
if [ -n "$failed" ]; then
	msg="${what:-exit $rc}${found[0]:+; input: ${found[0]}}"
	record "$E_TEST_FAILURE" "$target.fuzz.regress=pass" "$test_name=fail"
	if [ ${#found[@]} -gt 0 ]; then
		die "$E_TEST_FAILURE" "$name: ${what:-a finding}; input: ${found[*]} (reproduce: $bin ${found[0]})" "$log"
	fi
	die "$E_TEST_FAILURE" "$name failed (exit $rc) without writing an input${what:+: $what}" "$log"
fi
record 0 "$target.fuzz.regress=pass" "$test_name=pass"
info "$target fuzz: pass ($(($(date +%s) - t0))s, log: $log)"
