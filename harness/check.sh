#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: everything `make demo` needs, then every test: the series' round
# trip and checkpatch, its documentation built with Sphinx, the SFrame
# parser's and the .eh_frame reader's host-side tests (the reader also
# against readelf, on this machine's and Debian 13's binaries) and short
# runs of their fuzzers, the harness's own
# tests, the series' objects built with Debian's amd64 config, KUnit +
# selftests (perf and ftrace included) on each variant that runs tests,
# KUnit, the selftests and perf's tests that apply on arm64 (a cross-built
# guest, with the series' perf built for it), perf's fallback
# on the variant without the series, ftrace's own cases compared between the
# base kernel and the series', the benchmarks' smoke runs through their table
# scripts, the acceptance test on a Debian 13 user space (in the guest
# run), and the series' objects on the build-only variant. Ends with
# "N passed, N failed" and exits with the class of the first failure.
. "$(dirname "$0")/lib.sh"

[ $# -eq 0 ] || die "$E_USAGE" "usage: check.sh (no arguments; see make help)"
rm -rf "$RUNS" "$LOGS/phases.tsv"
mkdir -p "$RUNS"
t_start=$(date +%s)
results=()

# finish: phase times, the per-run table and the closing line; exit with the
# class of the first failure.
finish() {
	local rc=0 skip=()
	phase_end
	printf '\nPhase times (s):\n'
	awk -F'\t' '{ printf "  %-24s %5d\n", $1, $2 }' "$LOGS/phases.tsv"
	printf '  %-24s %5d\n\nResults (runs in %s, logs in %s):\n' total \
		$(( $(date +%s) - t_start )) "$RUNS" "$LOGS"
	[ -n "${ALLOW_SKIP:-}" ] && skip=(--allow-skip)
	python3 "$H/report.py" summary "${skip[@]}" "${results[@]}" || rc=$?
	exit $rc
}

# step NAME SCRIPT ARGS...: a phase whose failure ends the run.
for step in deps base tree; do
	phase "$step"
	rc=0; "$H/$step.sh" || rc=$?
	[ $rc -eq 0 ] || { record "$step" "$rc" "$step=fail"; finish; }
done

phase roundtrip
rc=0; "$H/roundtrip.sh" --json "$(run_dir series)/result.json" || rc=$?
[ -f "$(run_dir series)/result.json" ] && results+=("$(run_dir series)/result.json") ||
	record series "$rc" "series.roundtrip=fail"

phase harness-selftest
mkdir -p "$(run_dir harness)"
rc=0
python3 "$H/tests/test_report.py" --json "$(run_dir harness)/result.json" \
	> "$LOGS/harness-tests.log" 2>&1 || rc=$?
tail -n 1 "$LOGS/harness-tests.log"
[ $rc -eq 0 ] || warn "harness self-tests failed (log: $LOGS/harness-tests.log)"
if [ -f "$(run_dir harness)/result.json" ]; then
	results+=("$(run_dir harness)/result.json")
else
	record harness "$E_TEST_FAILURE" "harness.selftests=fail"
fi

phase checkpatch
mkdir -p "$(run_dir checkpatch)"
rc=0; "$H/checkpatch.sh" --json "$(run_dir checkpatch)/result.json" || rc=$?
if [ -f "$(run_dir checkpatch)/result.json" ]; then
	results+=("$(run_dir checkpatch)/result.json")
else
	record checkpatch "$rc" "checkpatch=fail"
fi

phase docs
rc=0; "$H/docs.sh" --json "$(run_dir docs)/result.json" || rc=$?
if [ -f "$(run_dir docs)/result.json" ]; then
	results+=("$(run_dir docs)/result.json")
else
	record docs "$rc" "docs.htmldocs=fail"
fi

# The SFrame parser built in user space (ASan, UBSan) with its host-side tests.
phase sframe-host
rc=0; "$H/sframe-host.sh" --json "$(run_dir sframe-host)/result.json" || rc=$?
if [ -f "$(run_dir sframe-host)/result.json" ]; then
	results+=("$(run_dir sframe-host)/result.json")
elif [ $rc -ne 0 ]; then
	record sframe-host "$rc" "sframe.host.run=fail"
fi

# The parser's libFuzzer target: its regression inputs and a 45-second run;
# beside it, on the other core, the .eh_frame reader's for 30 seconds (each
# is one process; the reader's output is printed after the parser's).
phase fuzz-smoke
FUZZ_TIME=${FUZZ_TIME:-30} "$H/fuzz.sh" --smoke --target eh_frame \
	--json "$(run_dir fuzz-eh_frame)/result.json" > "$LOGS/fuzz-eh_frame.out" 2>&1 &
ehf_pid=$!
rc=0; "$H/fuzz.sh" --smoke --json "$(run_dir fuzz)/result.json" || rc=$?
if [ -f "$(run_dir fuzz)/result.json" ]; then
	results+=("$(run_dir fuzz)/result.json")
elif [ $rc -ne 0 ]; then
	record fuzz "$rc" "sframe.fuzz.smoke=fail"
fi
rc=0; wait "$ehf_pid" || rc=$?
cat "$LOGS/fuzz-eh_frame.out"
if [ -f "$(run_dir fuzz-eh_frame)/result.json" ]; then
	results+=("$(run_dir fuzz-eh_frame)/result.json")
elif [ $rc -ne 0 ]; then
	record fuzz-eh_frame "$rc" "eh_frame.fuzz.smoke=fail"
fi

# The static perf tool the selftests drive, built from the series' tree.
phase perf-build
rc=0; "$H/perf.sh" > /dev/null || rc=$?
[ $rc -eq 0 ] || record perf "$rc" "build.perf=fail"

# Debian's own perf 7.3 and newest trace-cmd, for the guest (made once).
phase debian-tools
rc=0; "$H/debian-tools.sh" || rc=$?
[ $rc -eq 0 ] || record debian-tools "$rc" "debian.tools=fail"

# The .eh_frame reader against readelf on those Debian 13 binaries.
phase eh-frame-debian13
rc=0; "$H/sframe-host.sh" --debian13 --json "$(run_dir eh-frame-debian13)/result.json" || rc=$?
if [ -f "$(run_dir eh-frame-debian13)/result.json" ]; then
	results+=("$(run_dir eh-frame-debian13)/result.json")
elif [ $rc -ne 0 ]; then
	record eh-frame-debian13 "$rc" "eh_frame.debian13.run=fail"
fi

# The series' objects with Debian's own amd64 config, W=1 and sparse.
# arm64's (distro-objs-arm64) is in make distro: the arm64 guest's kernel
# is built W=1 here, and the minutes went to the series' perf for arm64.
phase distro-objs
rc=0; "$H/distro-objs.sh" --arch x86_64 --json "$(run_dir distro-objs)/result.json" || rc=$?
if [ -f "$(run_dir distro-objs)/result.json" ]; then
	results+=("$(run_dir distro-objs)/result.json")
else
	record distro-objs "$rc" "distro.objs=fail"
fi

# build_variant V [W1]: config and build phases; 0 if the kernel is there
# (waits for V's build when bg_build started it).
build_variant() {
	local v=$1 rc=0
	[ "$bg_v" != "$v" ] || { bg_wait; return; }
	phase "config-$v"
	"$H/config.sh" "$v" || rc=$?
	[ $rc -eq 0 ] || { record "$v" "$rc" "config.$v=fail"; return 1; }
	phase "build-$v"
	W1=${2:-} "$H/build.sh" "$v" || rc=$?
	[ $rc -eq 0 ] || { record "$v" "$rc" "build.$v=fail"; return 1; }
}

# The kernels make check boots, in the order it builds them; a guest run
# rarely keeps both cores busy (most tests are one thread, the guest and old
# variants run all vCPUs in one host thread), so each boot_variant starts
# the next kernel's config and build beside it (bg_build).
kernels=($(variants tests) $(variants cross) $(variants fallback))

# bg_build V: V's config and build at nice 19 in the background, W=1 as
# build_variant would build it (the first test variant, the cross ones).
# Still one kernel build at a time: the next starts after build_variant's
# wait. The background phases go to phases.tsv as "config-V (bg)" and
# "build-V (bg)", their output to LOGS/bg-V.out, printed when waited for.
bg_v="" bg_pid=""
bg_build() {
	local w1=""
	[ "$1" != "${kernels[0]}" ] && [ "$(variant "$1" runs)" != cross ] || w1=1
	bg_v=$1
	rm -f "$LOGS/bg-$1.rc"
	(
		t=$(date +%s) rc=0 step=config
		nice -n 19 "$H/config.sh" "$1" || rc=$?
		printf 'config-%s (bg)\t%d\n' "$1" $(( $(date +%s) - t )) >> "$LOGS/phases.tsv"
		if [ $rc -eq 0 ]; then
			t=$(date +%s) step=build
			W1=$w1 nice -n 19 "$H/build.sh" "$1" || rc=$?
			printf 'build-%s (bg)\t%d\n' "$1" $(( $(date +%s) - t )) >> "$LOGS/phases.tsv"
		fi
		echo "$rc $step" > "$LOGS/bg-$1.rc"
	) > "$LOGS/bg-$1.out" 2>&1 &
	bg_pid=$!
	info "$1: config and build in the background (nice 19, log: $LOGS/bg-$1.out)"
}

# bg_wait: phase "wait-build-V" until bg_build's job ends; its output, and
# its failure recorded as build_variant records it; 0 if the kernel is there.
bg_wait() {
	local v=$bg_v rc=1 step=build
	phase "wait-build-$v"
	wait "$bg_pid" || true
	bg_v="" bg_pid=""
	cat "$LOGS/bg-$v.out"
	read -r rc step < "$LOGS/bg-$v.rc" || rc=$E_BUILD
	[ "$rc" -eq 0 ] || { record "$v" "$rc" "$step.$v=fail"; return 1; }
}

# boot_variant V: the variant's guest run, its result in the summary; the
# next kernel of the list builds beside it.
boot_variant() {
	local i
	for i in "${!kernels[@]}"; do
		[ "${kernels[$i]}" = "$1" ] || continue
		[ -z "${kernels[$((i + 1))]:-}" ] || bg_build "${kernels[$((i + 1))]}"
	done
	phase "boot-$1"
	"$H/guest-run.sh" "$1" "$1" || true
	if [ -f "$(run_dir "$1")/result.json" ]; then
		results+=("$(run_dir "$1")/result.json")
	else
		record "$1" "$E_BOOT" "boot.$1=fail"
	fi
}

selftests_built=""
for v in $(variants tests); do
	w1=""; [ -z "$selftests_built" ] && w1=1
	build_variant "$v" "$w1" || continue
	if [ -z "$selftests_built" ]; then
		# Built once, against the first test variant's UAPI headers.
		phase selftests-build
		rc=0; "$H/selftests.sh" "$v" || rc=$?
		[ $rc -eq 0 ] || { record selftests "$rc" "selftests.build=fail"; finish; }
		selftests_built=$v
	fi
	boot_variant "$v"
done

# The benchmarks' smoke runs on guest: their lines must make it through the
# host's table scripts, which also check that each figure measured what it
# names.
phase bench-smoke
smoke_dir=$(run_dir bench-smoke)
mkdir -p "$smoke_dir"
smoke_tests=()
for t in perf:table.py core:core_table.py; do
	k=${t%%:*}
	awk -v n="UNWIND-TAP-BEGIN bench.$k" '{ sub(/\r$/, "") } $0 == n { on = 1; next }
		/^UNWIND-TAP-END / { on = 0 } on' "$(run_dir guest)/results.log" \
		> "$smoke_dir/$k.log" 2> /dev/null || true
	if python3 "$H/bench/${t#*:}" "$smoke_dir/$k.log" "$smoke_dir/$k" \
		> "$smoke_dir/$k.out" 2>&1; then
		smoke_tests+=("bench.$k.table=pass")
	else
		warn "bench smoke: the $k table failed (see $smoke_dir/$k.out)"
		tail -n 5 "$smoke_dir/$k.out" >&2
		smoke_tests+=("bench.$k.table=fail")
	fi
done
cls=0
[[ "${smoke_tests[*]}" == *=fail* ]] && cls=$E_TEST_FAILURE
record bench-smoke "$cls" "${smoke_tests[@]}"

# Another architecture (arm64, built with clang, booted under TCG): KUnit
# and the selftests that apply there, built for it, and perf's own tests
# with the series' perf built for it (a failed perf build fails them too).
for v in $(variants cross); do
	build_variant "$v" 1 || continue
	phase "selftests-$v"
	rc=0; "$H/selftests.sh" "$v" || rc=$?
	[ $rc -eq 0 ] || { record "selftests-$v" "$rc" "selftests.$v.build=fail"; continue; }
	if [ "$(variant "$v" arch)" = arm64 ]; then
		phase "perf-build-$v"
		rc=0; "$H/perf.sh" --arch arm64 > /dev/null || rc=$?
		[ $rc -eq 0 ] || record "perf-$v" "$rc" "build.perf-$v=fail"
	fi
	boot_variant "$v"
done

# A kernel without the series, as tools see an older kernel: perf record
# --call-graph fp,defer must fall back to fp there.
for v in $(variants fallback); do
	build_variant "$v" && boot_variant "$v"
done
# (A kernel whose boot did not come: its background build is waited for.)
[ -z "$bg_v" ] || bg_wait || true

# The suites nobody here wrote, on the base kernel (old) and on the series'
# kernel of the same config (guest): ftrace's own cases
# (harness/ftrace-regress.list), perf's own "perf test" and the perf_events
# selftests (the subset of harness/perf-regress.list). Both columns are
# printed, and every case passes on both.
for c in ftrace-regress:ftrace.regress. perf-regress:perf.regress. perf-events-regress:perf_events.; do
	phase "${c%%:*}"
	compare_base "${c%%:*}" "${c#*:}" old guest
done

# Variants that are only built (CONFIG_UNWIND_USER=n): the objects of the
# series' files, which must compile with the stubs; make distro links the
# whole kernel (an eight-minute build from a cold cache, traded here for the
# arm64 guest).
for v in $(variants build); do
	phase "config-$v"
	rc=0; "$H/config.sh" "$v" || rc=$?
	[ $rc -eq 0 ] || { record "$v" "$rc" "config.$v=fail"; continue; }
	phase "build-$v"
	OBJS_ONLY=1 "$H/build.sh" "$v" || rc=$?
	record "$v" "$rc" "build.$v.objects=$([ $rc -eq 0 ] && echo pass || echo fail)"
done
finish
