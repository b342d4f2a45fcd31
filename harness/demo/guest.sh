#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo guest's program, run by /init: profile the demo the way a perf user
# would, with deferred user callchains, and show what perf made of it. Each
# command is echoed before its output. Exits 1 if perf fails, recorded no
# deferred callchain, or no sample got its user frames stitched back.
export HOME=/tmp
data=/tmp/demo.data

# show CMD...: echo a command, run it and print its output; fail with it. Output
# goes to a file first: the results port is a tty, and perf would colour it.
show() {
	echo
	echo "\$ $*"
	"$@" > /tmp/out.txt 2>&1 || { cat /tmp/out.txt; exit 1; }
	cat /tmp/out.txt
}

show perf record -e cpu-clock --call-graph fp,defer -o $data -- perf test -w readchain 3000
show perf report -i $data --stdio --no-children --percent-limit 2 -q

echo
echo "\$ perf script -i $data     # the first sample in read(2), stitched"
perf script -i $data > /tmp/script.txt 2>&1 || { cat /tmp/script.txt; exit 1; }
awk -v RS= '/read_zero.*readchain_leaf.*readchain_middle.*readchain_outer/ { print; exit }' < /tmp/script.txt > /tmp/one.txt
cat /tmp/one.txt
[ -s /tmp/one.txt ] || { echo "demo: no sample has kernel and user frames"; exit 1; }

echo
echo "\$ perf script -i $data --no-merge-callchains     # as recorded, and the record that completes it"
perf script -i $data --no-merge-callchains > /tmp/raw.txt 2>&1 ||
	{ cat /tmp/raw.txt; exit 1; }
# The first sample in read(2), then the record its stay in the kernel ended with.
awk -v RS= '
!s && /read_zero/ { print; print ""; s = 1; next }
s && /DEFERRED CALLCHAIN/ {
	if (n)
		printf "  [%d more samples in this read(2), completed by the same record]\n\n", n
	print
	exit
}
s { n++ }' < /tmp/raw.txt
grep -q "DEFERRED CALLCHAIN" /tmp/raw.txt ||
	{ echo "demo: no PERF_RECORD_CALLCHAIN_DEFERRED in $data"; exit 1; }

# ftrace: the same deferred walk for trace events, with Debian's trace-cmd.
# One read(2) of the readchain workload: its event, the cookie event the
# request wrote, and the stack the walk on the way back to user space wrote
# with the same cookie.
echo
echo "\$ trace-cmd record -O userstacktrace_delay -e syscalls:sys_enter_read -o /tmp/trace.dat perf test -w readchain 1"
trace-cmd record -q -O userstacktrace_delay -e syscalls:sys_enter_read -o /tmp/trace.dat \
	perf test -w readchain 1 > /tmp/tc.txt 2>&1 || { cat /tmp/tc.txt; exit 1; }
echo "\$ trace-cmd report -i /tmp/trace.dat     # perf's last read(2): event, cookie, stack"
trace-cmd report -i /tmp/trace.dat > /tmp/report.txt 2>&1 || { cat /tmp/report.txt; exit 1; }
awk '/ perf-[0-9]+ .*(sys_enter_read|user_unwind_cookie):/ { print; next }
	/ perf-[0-9]+ .*user_unwind_stack:/ { print; getline; print }' /tmp/report.txt |
	tail -n 4 | sed 's/  */ /g' > /tmp/last.txt
cat /tmp/last.txt
grep -q user_unwind_stack /tmp/last.txt || { echo "demo: no user_unwind_stack event in the report"; exit 1; }

echo
echo "\$ trace-cmd start -O userstacktrace_delay -e syscalls:sys_enter_read; perf test -w readchain 1; trace-cmd stop"
echo "\$ trace-cmd show     # the kernel's own text for perf's last read(2)"
trace-cmd start -O userstacktrace_delay -e syscalls:sys_enter_read > /tmp/tc.txt 2>&1 &&
	perf test -w readchain 1 >> /tmp/tc.txt 2>&1 && trace-cmd stop >> /tmp/tc.txt 2>&1 ||
	{ cat /tmp/tc.txt; exit 1; }
trace-cmd show > /tmp/show.txt 2>&1 || { cat /tmp/show.txt; exit 1; }
awk '/ perf-[0-9]+ .*sys_read\(/ { n = NR } { l[NR] = $0 }
	END { if (n) for (i = n; i <= NR && i < n + 12; i++) print l[i] }' \
	/tmp/show.txt > /tmp/last.txt
cat /tmp/last.txt
grep -q '<user stack unwind>' /tmp/last.txt || { echo "demo: no <user stack unwind> in the trace"; exit 1; }
trace-cmd reset > /dev/null 2>&1
