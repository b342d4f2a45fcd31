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
