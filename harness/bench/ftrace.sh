#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The ftrace bench guest's program, run by /init. Two figures:
#
# bytes: the ring buffer's bytes per traced system call, for the same
# workload (unwind_chain making CALLS getppid() calls, each firing the EVENTS
# below) with no user stacks, with userstacktrace (an in-event walk per event)
# and with userstacktrace_delay (a cookie per event, one deferred walk per
# system call), interleaved, REPS times. Each run prints
#   FTRACE-BYTES MODE REP CALLS BYTES ENTRIES OVERRUN
# frames: one system call made with its frame records in pages not present
# (unwind_chain 1 FILE), with each option in turn; prints
#   FTRACE-FRAMES WANT IN_EVENT DEFERRED
# A failed step prints FTRACE-FAIL and the script exits 1.
B=$(dirname "$0")
# shellcheck source=/dev/null
. "$B/params"	# REPS CALLS EVENTS
t=/sys/kernel/tracing
prog=$B/unwind_chain
fail() { echo "FTRACE-FAIL $*"; exit 1; }

[ -d $t/events ] || mount -t tracefs nodev $t || fail "no tracefs"
[ -e $t/options/userstacktrace_delay ] || fail "no options/userstacktrace_delay"
echo 16384 > $t/buffer_size_kb || fail "buffer_size_kb"

# sum FIELD: FIELD of every CPU's stats, added up.
sum() {
	cat $t/per_cpu/cpu*/stats | awk -v f="$1:" '$1 == f { s += $2 } END { print s + 0 }'
}

# run MODE REP
run() {
	echo 0 > $t/tracing_on
	echo 0 > $t/options/userstacktrace
	echo 0 > $t/options/userstacktrace_delay
	echo > $t/trace
	case $1 in
	none) ;;
	userstacktrace|userstacktrace_delay) echo 1 > "$t/options/$1" ;;
	*) fail "mode $1" ;;
	esac
	for e in $EVENTS; do
		echo 1 > "$t/events/$e/enable" || fail "event $e"
	done
	echo 1 > $t/tracing_on
	"$prog" "$CALLS" > /dev/null || fail "$prog $CALLS"
	echo 0 > $t/tracing_on
	for e in $EVENTS; do
		echo 0 > "$t/events/$e/enable"
	done
	echo "FTRACE-BYTES $1 $2 $CALLS $(sum bytes) $(sum entries) $(sum overrun)"
}

rep=1
while [ $rep -le "$REPS" ]; do
	for mode in none userstacktrace userstacktrace_delay; do
		run $mode $rep
	done
	rep=$((rep + 1))
done

# Frames recovered from frame records in pages not present: one system call
# with each option set in turn (with both set, only the deferred path runs).
# frames OPTION: the number of addresses the program printed, and the number
# in its stack in the trace.
frames() {
	echo 0 > $t/options/userstacktrace
	echo 0 > $t/options/userstacktrace_delay
	echo > $t/trace
	echo 1 > "$t/options/$1"
	echo 1 > $t/events/syscalls/sys_enter_getppid/enable
	echo 1 > $t/tracing_on
	want=$("$prog" 1 "/tmp/frames.$1") || fail "$prog 1 /tmp/frames.$1"
	echo 0 > $t/tracing_on
	echo 0 > $t/events/syscalls/sys_enter_getppid/enable
	echo 0 > "$t/options/$1"
	printf '%s ' "$(echo "$want" | wc -w)"
	awk '
		function flush() { if (st == 2) print n; st = 0 }
		/^ *unwind_chain-[0-9]+ .*<user stack (trace|unwind)>$/ { flush(); st = 1; n = 0 }
		/<user stack trace>$/ { st = 2; next }
		/<user stack unwind>$/ { next }
		st == 1 && /^cookie=/ { st = 2; next }
		st == 2 && /^ => / { n++; next }
		{ flush() }
		END { flush() }
	' $t/trace
}
ev=$(frames userstacktrace)
de=$(frames userstacktrace_delay)
echo "FTRACE-FRAMES ${de%% *} ${ev#* } ${de#* }"
