#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The bench guest's program, run by /init: REPS rounds, each running every
# workload unprofiled and under perf record in each call-graph mode, one after
# the other (interleaved, so drifts in host speed hit all modes alike). Each run
# prints one line for the host:
#   BENCH WORKLOAD MODE REP elapsed_ns N wall_s S [perfdata's counts]
# A failed run prints BENCH-FAIL and perf's messages, and the script exits 1.
# Settings come from params beside this script (written by bench.sh).
# shellcheck disable=SC2154 # REPS PERIOD DWARF_SIZE WORKLOADS MODES ARGS_*
B=$(dirname "$0")
# shellcheck source=/dev/null
. "$B/params"
export HOME=/tmp
data=/tmp/bench.data
fail=0

uptime_s() { cut -d' ' -f1 /proc/uptime; }

# run WORKLOAD MODE REP
run() {
	w=$1 mode=$2 rep=$3
	eval "args=\$ARGS_$w"
	case $mode in
	none) set -- ;;
	fp) set -- --call-graph fp ;;
	defer) set -- --call-graph fp,defer ;;
	dwarf) set -- --call-graph "dwarf,$DWARF_SIZE" ;;
	esac
	[ "$mode" = none ] ||
		set -- perf record -B -N -e cpu-clock -c "$PERIOD" "$@" -o "$data" --
	rm -f "$data"
	t0=$(uptime_s)
	rc=0
	# shellcheck disable=SC2086 # args are words
	"$@" "$B/$w" $args > /tmp/run.out 2> /tmp/run.err || rc=$?
	t1=$(uptime_s)
	ns=$(sed -n 's/^elapsed_ns //p' /tmp/run.out)
	if [ $rc -ne 0 ] || [ -z "$ns" ]; then
		echo "BENCH-FAIL $w $mode $rep: exit status $rc of: $* $B/$w $args"
		cat /tmp/run.out /tmp/run.err
		fail=1
		return
	fi
	counts=""
	if [ "$mode" != none ] && ! counts=$("$B/perfdata" "$data" 2>&1); then
		echo "BENCH-FAIL $w $mode $rep: perfdata: $counts"
		cat /tmp/run.err
		fail=1
		return
	fi
	echo "BENCH $w $mode $rep elapsed_ns $ns wall_s $(awk "BEGIN { print $t1 - $t0 }") $counts"
	rm -f "$data"
}

echo "BENCH-PARAMS period_ns $PERIOD reps $REPS dwarf_size $DWARF_SIZE" \
	"syscall_args '$ARGS_syscall' compute_args '$ARGS_compute' nofp_args '$ARGS_nofp'" \
	"cpus $(nproc)"
rep=1
while [ "$rep" -le "$REPS" ]; do
	for w in $WORKLOADS; do
		for mode in $MODES; do
			run "$w" "$mode" "$rep"
		done
	done
	rep=$((rep + 1))
done
exit $fail
