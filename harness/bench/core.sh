#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The core bench guest's program, run by /init: ROUNDS rounds, each running
# every measurement of the core tables once (interleaved, so drifts in host
# speed hit all of them alike). The kernel's test module does the timing
# ("bench" commands, see lib/test_unwind_deferred.c); harness/bench/core.c
# drives it and copies its result lines, after one line naming the run:
#   CORE-RUN PROGRAM req CTX DEPTH ITERS REPEAT |
#            PROGRAM walk DEPTH ITERS REPEAT [SECTION] |
#            PROGRAM cookie NCPU DEPTH ITERS
# PROGRAM is core (frame pointers), core_sframe (no frame pointers: the walks
# use the SFrame SECTION, each of SECTIONS at each depth), core_ehf (neither
# frame pointers nor SFrame: the SECTIONS ehf, ehfcold and ehfnocache, its
# .eh_frame) or core_fdesN
# (core_sframe with N more functions: the walks of FDE_DEPTH look up their
# frames among that many more FDEs). The sections nocache and ehfnocache, and
# the core_fdesN walks, run with the walker's rule cache turned off. A failed run prints CORE-FAIL and the
# script exits 1.
# Settings come from core-params beside this script (written by bench.sh, or
# by guest-run.sh for make check's smoke run).
# shellcheck disable=SC2154 # ROUNDS ITERS REPEAT DEPTHS WALK_ITERS CPUS SECTIONS FDES FDE_DEPTH
B=$(dirname "$0")
# shellcheck source=/dev/null
. "$B/core-params"
fail=0

# run PROGRAM ARGS...
run() {
	echo "CORE-RUN $*"
	prog=$1
	shift
	if ! "$B/$prog" "$@" > /tmp/core.out 2> /tmp/core.err; then
		echo "CORE-FAIL $prog $*"
		cat /tmp/core.err
		fail=1
	fi
	cat /tmp/core.out
}

# cache Y|N: turn the walker's rule cache on or off (sframe_cache=).
cache() {
	echo "$1" > /sys/module/kernel/parameters/sframe_cache || {
		echo "CORE-FAIL cache $1"
		fail=1
	}
}

d=/sys/kernel/debug
[ -e $d/unwind_deferred_test ] || mount -t debugfs none $d
echo "CORE-PARAMS rounds $ROUNDS iters $ITERS repeat $REPEAT walk_iters $WALK_ITERS" \
	"depths '$DEPTHS' ncpus '$CPUS' sections '$SECTIONS' fdes '$FDES'" \
	"fde_depth $FDE_DEPTH cpus $(nproc)"
round=1
while [ "$round" -le "$ROUNDS" ]; do
	echo "CORE-ROUND $round"
	for ctx in task nmi; do
		run core req "$ctx" 12 "$ITERS" "$REPEAT"
	done
	for depth in $DEPTHS; do
		run core walk "$depth" "$WALK_ITERS" "$REPEAT"
		for s in $SECTIONS; do
			case $s in
			ehfnocache)
				cache N
				run core_ehf walk "$depth" "$WALK_ITERS" "$REPEAT" "$s"
				cache Y ;;
			nocache)
				cache N
				run core_sframe walk "$depth" "$WALK_ITERS" "$REPEAT" "$s"
				cache Y ;;
			ehf*) run core_ehf walk "$depth" "$WALK_ITERS" "$REPEAT" "$s" ;;
			*) run core_sframe walk "$depth" "$WALK_ITERS" "$REPEAT" "$s" ;;
			esac
		done
	done
	for n in $FDES; do
		# The search and decode, not the cache: it is off.
		cache N
		run "core_fdes$n" walk "$FDE_DEPTH" "$WALK_ITERS" "$REPEAT" nocache
		cache Y
	done
	for n in $CPUS; do
		run core cookie "$n" 1 "$ITERS"
	done
	round=$((round + 1))
done
exit $fail
