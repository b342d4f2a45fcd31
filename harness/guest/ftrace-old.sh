#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest of the base kernel without the series: tracefs works, and
# the trace option userstacktrace_delay does not exist (it comes only with
# CONFIG_UNWIND_USER); userstacktrace, its in-event counterpart, does.
t=/sys/kernel/tracing
echo "TAP version 13"
echo "1..2"
if [ -e $t/options/userstacktrace ]; then
	echo "ok 1 options/userstacktrace exists"
else
	echo "not ok 1 options/userstacktrace exists"
fi
if [ -e $t/options/userstacktrace_delay ] || grep -qw userstacktrace_delay $t/trace_options; then
	echo "not ok 2 no userstacktrace_delay option without the series"
else
	echo "ok 2 no userstacktrace_delay option without the series"
fi
