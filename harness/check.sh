#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make run` needs, then every test: the harness's own tests, the
# series' checkpatch, KUnit + selftests (perf included) on the guest and the
# debug kernel, perf's fallback on the base kernel without the series, and a
# build with CONFIG_UNWIND_USER=n. Ends with "N passed, N failed".
. "$(dirname "$0")/lib.sh"

H=$TOP/harness
R=$OUT/results
rm -rf "$R" "$LOGS/phases.tsv" "$OUT/kselftest"
mkdir -p "$R"
t_start=$(date +%s)

# record NAME CLASS TEST=STATUS: a host-side result for the summary.
record() {
	python3 "$H/report.py" record --name "$1" --json "$R/$1.json" \
		--class "$2" --test "$3"
}

# finish: phase times, the per-run table and the closing line; exit with the
# class of the first failure.
finish() {
	local rc=0 skip=()
	phase_end
	printf '\nPhase times (s):\n'
	awk -F'\t' '{ printf "  %-20s %5d\n", $1, $2 }' "$LOGS/phases.tsv"
	printf '  %-20s %5d\n\nResults (logs in %s):\n' total \
		$(( $(date +%s) - t_start )) "$LOGS"
	[ -n "${ALLOW_SKIP:-}" ] && skip=(--allow-skip)
	python3 "$H/report.py" summary "${skip[@]}" "$R"/*.json || rc=$?
	exit $rc
}

for step in deps base apply; do
	phase "$step"
	rc=0; "$H/$step.sh" || rc=$?
	[ $rc -eq 0 ] || { record "$step" "$rc" "$step=fail"; finish; }
done

phase harness-selftest
rc=0
python3 "$H/tests/test_report.py" --json "$R/harness.json" > "$LOGS/harness-tests.log" 2>&1 || rc=$?
tail -n 1 "$LOGS/harness-tests.log"
[ $rc -eq 0 ] || warn "harness self-tests failed (log: $LOGS/harness-tests.log)"
[ -f "$R/harness.json" ] || record harness "$E_TEST" "harness.selftests=fail"

phase checkpatch
"$H/series.sh" --checkpatch-only --json "$R/checkpatch.json" || true

# The static perf tool the selftests drive, built from the series' tree.
phase perf-build
rc=0; "$H/perf.sh" || rc=$?
[ $rc -eq 0 ] || record perf "$rc" "build.perf=fail"

for v in guest debug; do
	phase "config-$v"
	rc=0; "$H/config.sh" "$v" || rc=$?
	[ $rc -eq 0 ] || { record "$v" "$rc" "config.$v=fail"; continue; }
	phase "build-$v"
	w1=""; [ "$v" = guest ] && w1=1
	rc=0; W1=$w1 "$H/build.sh" "$v" || rc=$?
	[ $rc -eq 0 ] || { record "$v" "$rc" "build.$v=fail"; continue; }
	if [ "$v" = guest ]; then
		phase selftests-build
		rc=0; "$H/selftests.sh" guest || rc=$?
		[ $rc -eq 0 ] || { record "$v" "$rc" "selftests.build=fail"; continue; }
	fi
	phase "boot-$v"
	"$H/guest-run.sh" "$v" "$v" || true
done

# The base kernel, as an older kernel: perf record --call-graph fp,defer must
# fall back to fp there. It needs the perf tool and the workload.
phase config-old
rc=0; "$H/config.sh" old || rc=$?
if [ $rc -ne 0 ]; then
	record old "$rc" "config.old=fail"
else
	phase build-old
	rc=0; "$H/build.sh" old || rc=$?
	if [ $rc -ne 0 ]; then
		record old "$rc" "build.old=fail"
	else
		phase boot-old
		"$H/guest-run.sh" old old || true
	fi
fi

phase nounwind-build
rc=0
"$H/config.sh" nounwind && "$H/build.sh" nounwind || rc=$?
if [ $rc -eq 0 ]; then st=pass; else st=fail; fi
record nounwind "$rc" "build.CONFIG_UNWIND_USER=n=$st"
finish
