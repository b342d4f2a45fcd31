#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test T=GLOB: build what a variant needs (VARIANT, default guest) and run
# only the tests that match GLOB: selftest programs by name (unwind.perf_deferred,
# unwind.*), KUnit suites by kunit.SUITE (kunit.unwind_user, kunit.*). Ends with
# "N passed, N failed" like make check. The run is in out/runs/test-VARIANT/.
# VARIANT=old runs what make check runs there (perf.fallback, ftrace.old,
# ftrace.regress).
# Usage: test.sh VARIANT GLOB
. "$(dirname "$0")/lib.sh"

[ $# -eq 2 ] && [ -n "$2" ] || die "$E_USAGE" "usage: make test T=GLOB [VARIANT=guest] (e.g. T='unwind.*' or T=kunit.unwind_user)"
v=$1 glob=$2
# The selftests are built against a test variant's UAPI headers, as in make
# check; a fallback variant (old) runs them too, on the base kernel.
case $(variant "$v" runs) in
tests|cross) st=$v ;;
fallback) st=$(variants tests | head -n 1) ;;
*) die "$E_USAGE" "variant $v is built, never booted" ;;
esac
rm -f "$LOGS/phases.tsv"
for step in deps base tree; do phase "$step"; "$H/$step.sh"; done
phase "config-$v";	"$H/config.sh" "$v"
phase "build-$v";	"$H/build.sh" "$v"
# perf is built for x86_64, and for the arm64 guest.
case $(variant "$v" runs):$(variant "$v" arch) in
cross:arm64) phase perf-build; "$H/perf.sh" --arch arm64 > /dev/null ;;
cross:*) ;;
*) phase perf-build; "$H/perf.sh" > /dev/null ;;
esac
phase selftests-build;	"$H/selftests.sh" "$st"
phase "boot-$v"
name=test-$v
rc=0
"$H/guest-run.sh" "$v" "$name" --only "$glob" || rc=$?
phase_end
skip=()
[ -n "${ALLOW_SKIP:-}" ] && skip=(--allow-skip)
[ -f "$(run_dir "$name")/result.json" ] || exit "$rc"
python3 "$H/report.py" summary "${skip[@]}" "$(run_dir "$name")/result.json"
