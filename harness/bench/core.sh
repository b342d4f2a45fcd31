#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The core bench guest's program, run by /init: ROUNDS rounds, each running
# every measurement of the core tables once (interleaved, so drifts in host
# speed hit all of them alike). The kernel's test module does the timing
# ("bench" commands, see lib/test_unwind_deferred.c); harness/bench/core.c
# drives it and copies its result lines, after one line naming the run:
#   CORE-RUN req CTX DEPTH ITERS REPEAT | walk DEPTH ITERS REPEAT |
#            cookie NCPU DEPTH ITERS
# A failed run prints CORE-FAIL and the script exits 1.
# Settings come from core-params beside this script (written by bench.sh, or
# by guest-run.sh for make check's smoke run).
# shellcheck disable=SC2154 # ROUNDS ITERS REPEAT DEPTHS WALK_ITERS CPUS
B=$(dirname "$0")
# shellcheck source=/dev/null
. "$B/core-params"
fail=0

run() {
	echo "CORE-RUN $*"
	if ! "$B/core" "$@" > /tmp/core.out 2> /tmp/core.err; then
		echo "CORE-FAIL $*"
		cat /tmp/core.err
		fail=1
	fi
	cat /tmp/core.out
}

d=/sys/kernel/debug
[ -e $d/unwind_deferred_test ] || mount -t debugfs none $d
echo "CORE-PARAMS rounds $ROUNDS iters $ITERS repeat $REPEAT walk_iters $WALK_ITERS" \
	"depths '$DEPTHS' ncpus '$CPUS' cpus $(nproc)"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	echo "CORE-ROUND $round"
	for ctx in task nmi; do
		run req "$ctx" 12 "$ITERS" "$REPEAT"
	done
	for depth in $DEPTHS; do
		run walk "$depth" "$WALK_ITERS" "$REPEAT"
	done
	for n in $CPUS; do
		run cookie "$n" 1 "$ITERS"
	done
	round=$((round + 1))
done
exit $fail
