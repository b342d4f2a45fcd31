#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: the acceptance test on a Debian 13 user space. Debian's
# own programs (python3.13, xz, gzip, sort, bash, sqlite3: built without
# frame pointers and without SFrame, as trixie ships them) run in the
# Debian 13 root staged by harness/debian-tools.sh (/debian/root, with
# Debian's perf 7.3), each under perf record -e cpu-clock with
# --call-graph fp, fp,defer, dwarf (its default 8 KiB copy) and five
# times dwarf with a larger copy (the reference), and once under pairrec
# (guest/pairrec.c: one event both ways, fp,defer and a stack copy of the
# reference's size), on the same input with address-space randomization
# off. debian13-compare.py compares the user
# chains of these separate runs, per sampled leaf: fp,defer's against the
# complete chains (reaching _start) of the best reference run, and the
# next best one's the same way, as the noise floor of comparing separate
# runs (perf's libdw unwinding stopped early in whole runs at a time
# while the programs were started through a shell: see below). A
# control program built with frame pointers (the benchmark's compute)
# shows the comparison where frame pointers suffice.
#
# Per program, TAP results:
#   - every run recorded at least 20 samples of the program;
#   - the reference reached _start in at least half of its samples;
#   - every caller frame of fp,defer follows a call instruction in its
#     object (no impossible frames; independent of dwarf);
#   - fp,defer's share of chains identical to the reference's is at least
#     99%, or no lower than the floor's by more than three standard errors
#     of the difference (at least 5 points);
#   - its share of samples with a caller that no dwarf run found is no
#     higher than the floor's (whose callers are checked against the other
#     dwarf runs) by more than three standard errors (at least 3 points);
# and sample by sample, from one event both ways (pairrec: the samples
# carry the deferred request and a stack copy, dwarf with the reference's
# size; perf script unwinds each file), over the samples whose dwarf chain
# reaches _start (at least 20):
#   - at least 99% of fp,defer chains are identical to their own sample's
#     dwarf chain;
#   - no fp,defer chain has a frame its own sample's dwarf chain has not.
#
# Usage: debian13-test.sh CONTROL PROGRAM...
#   PROGRAM: python3 xz gzip sort bash sqlite3 control
# Each program's figures are also one "# RESULT" line (make bench's table).
# DEBIAN13_FREQ: perf record -F frequency (default 500); DEBIAN13_VERBOSE:
# also where chains end, the frames dwarf never found, and differing chains.
control=${1:?usage: debian13-test.sh CONTROL PROGRAM...}
shift
R=/debian/root
W=$R/tmp/accept
freq=${DEBIAN13_FREQ:-500}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
diag() { [ -f "$1" ] && tail -n "${2:-20}" "$1" | sed 's/^/# /'; }
# check DESCRIPTION COMMAND...: one result, by COMMAND's status.
check() { d_=$1; shift; if "$@"; then ok "$d_"; else nok "$d_"; fi; }
# at_least A B: whether the number A is at least B. calc EXPR: its value.
at_least() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
calc() { awk "BEGIN { printf \"%.1f\", $1 }"; }
# get KEY: the value of KEY in the program's RESULT line.
get() { echo "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
recorded_ok() {
	at_least "$(get n_fp)" 20 && at_least "$(get n_defer)" 20 && at_least "$(get n_dwarf)" 20
}
# At least 99%, or at least identical_min with a floor of at least 20
# samples; over at least 20 samples.
identical_ok() {
	at_least "$(get comparable)" 20 &&
	{ at_least "$idt" 99 ||
	  { at_least "$(get floor_comparable)" 20 && at_least "$idt" "$(get identical_min)"; }; }
}
inroot() {
	env -i PATH=/usr/bin:/bin HOME=/tmp LC_ALL=C DEBUGINFOD_URLS= PERF_PAGER=cat \
		DEBIAN13_VERBOSE="${DEBIAN13_VERBOSE:-}" \
		chroot "$R" "$@"
}

echo "TAP version 13"
echo "1..$(($# * 7))"
if ! { mount -t proc proc "$R/proc" && mount -t sysfs sysfs "$R/sys" &&
	mount -o bind /dev "$R/dev" && mount -t tmpfs tmpfs "$R/tmp"; }; then
	echo "Bail out! cannot mount the pseudo file systems in $R"
	exit 1
fi
mkdir -p "$W" "$R/opt/unwind"
cp "$control" "$R/opt/unwind/control"
cp /usr/libexec/pairrec "$R/opt/unwind/pairrec"
cp /usr/libexec/debian13-compare.py "$W/compare.py"
echo 0 > /proc/sys/kernel/randomize_va_space
sed 's/^/# /' /debian/versions
echo "# eh_frame_probe=$(cat /sys/module/kernel/parameters/eh_frame_probe 2>/dev/null || echo none)"

# The inputs, the same for every run: a text of the standard library's
# modules (1 MiB), and 60000 lines of pseudo-random words.
inroot /usr/bin/python3 -c '
import os
out = open("/tmp/accept/text", "wb")
n = 0
for d, subs, files in sorted(os.walk("/usr/lib/python3.13")):
    subs.sort()
    for f in sorted(files):
        if f.endswith(".py") and n < 1 << 20:
            b = open(os.path.join(d, f), "rb").read()
            out.write(b)
            n += len(b)
x = 12345
with open("/tmp/accept/lines", "w") as f:
    for i in range(60000):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        f.write("%08x %d word%d\n" % (x, i % 97, x % 1013))
'
cat > "$W/walk.py" <<'EOF'
# Recurse through the standard library's directories, reading each module
# and folding its bytes in pure Python, recursively by halves.
import os
import sys


def fold(b, lo, hi):
    if hi - lo <= 2048:
        s = 0
        for x in b[lo:hi:3]:
            s = (s * 31 + x) & 0xffffffff
        return s
    mid = (lo + hi) // 2
    return fold(b, lo, mid) ^ fold(b, mid, hi)


def walk(d, budget):
    total = 0
    for name in sorted(os.listdir(d)):
        p = os.path.join(d, name)
        if budget[0] <= 0:
            break
        if os.path.isdir(p):
            total ^= walk(p, budget)
        elif name.endswith('.py'):
            with open(p, 'rb') as f:
                b = f.read()
            budget[0] -= len(b)
            total ^= fold(b, 0, len(b))
    return total


print(walk('/usr/lib/python3.13', [int(sys.argv[1])]))
EOF

for prog in "$@"; do
	# ref: the reference's stack copy, the size at which dwarf's chains
	# reach _start best (bash: its default; 64 KiB loses bash's main).
	ref=65528
	case $prog in
	python3) exe=/usr/bin/python3.13 comm=python3 cmd="/usr/bin/python3 /tmp/accept/walk.py 1000000" ;;
	xz) exe=/usr/bin/xz comm=xz cmd="/usr/bin/xz -9 -T1 --memlimit-compress=64MiB -c /tmp/accept/text" ;;
	gzip) exe=/usr/bin/gzip comm=gzip cmd="/usr/bin/gzip -9 -c /tmp/accept/text" ;;
	sort) exe=/usr/bin/sort comm=sort cmd="/usr/bin/sort --parallel=1 -k3,3 -k1,1 /tmp/accept/lines" ;;
	bash) exe=/usr/bin/bash comm=bash ref=8192 cmd="/usr/bin/bash -c 'i=0; s=0; while [ \$i -lt 10000 ]; do s=\$(( (s * 31 + i) % 65521 )); i=\$((i + 1)); done; echo \$s'" ;;
	sqlite3) exe=/usr/bin/sqlite3 comm=sqlite3 cmd="/usr/bin/sqlite3 :memory: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 150000) SELECT count(*), sum(x * x % 7) FROM c;'" ;;
	control) exe=/opt/unwind/control comm=control cmd="/opt/unwind/control 150 40 200000" ;;
	*) echo "Bail out! unknown program $prog"; exit 1 ;;
	esac
	d=$W/$prog
	mkdir -p "$d"
	# The program is exec'd by perf itself, not through a shell: a shell
	# sampled before it execs the program leaves Debian's perf (7.3)
	# unwinding the program's samples with the shell's modules where
	# their addresses overlap (libdw's cached address space is not
	# dropped at exec), which cut whole runs of dwarf chains short.
	eval "set -- $cmd"
	recorded=1
	for m in fp defer dwarf dwarfL dwarfL2 dwarfL3 dwarfL4 dwarfL5; do
		case $m in
		defer) cg=fp,defer ;;
		dwarfL*) cg=dwarf,$ref ;;
		*) cg=$m ;;
		esac
		t0=$(date +%s)
		if inroot /usr/bin/perf record -q -B -o "/tmp/accept/$prog/$m.data" -e cpu-clock -F "$freq" \
			--call-graph "$cg" -- "$@" > "$d/$m.out" 2> "$d/$m.err" &&
		   inroot /usr/bin/perf script -i "/tmp/accept/$prog/$m.data" -F comm,tid,ip,dsoff \
			> "$d/$m.script" 2>> "$d/$m.err" &&
		   inroot /usr/bin/perf report -D -i "/tmp/accept/$prog/$m.data" > "$d/$m.dump" 2>> "$d/$m.err"; then
			echo "# $prog: --call-graph $cg: $(grep -c "^$comm " "$d/$m.script") samples in $(($(date +%s) - t0)) s"
			# Only the scripts are compared; the data can be large.
			rm -f "$d/$m.data"
		else
			recorded=""
			echo "# $prog: --call-graph $cg failed:"
			diag "$d/$m.err"
		fi
	done
	# One event both ways: the same samples' fp,defer chains and their
	# stack copies (dwarf,REF), for the sample-by-sample comparison.
	t0=$(date +%s)
	if inroot /opt/unwind/pairrec -F "$freq" -s "$ref" -o "/tmp/accept/$prog/pair" \
		-- "$@" > "$d/pair.out" 2> "$d/pair.err" &&
	   inroot /usr/bin/perf script -i - -F comm,tid,time,ip,sym,dso,dsoff < "$d/pair.defer" \
		> "$d/pair-defer.script" 2>> "$d/pair.err" &&
	   inroot /usr/bin/perf script -i - -F comm,tid,time,ip,sym,dso,dsoff < "$d/pair.dwarf" \
		> "$d/pair-dwarf.script" 2>> "$d/pair.err"; then
		echo "# $prog: one event both ways: $(grep -c "^$comm " "$d/pair-defer.script") samples in $(($(date +%s) - t0)) s ($(grep '^pairrec: [0-9]' "$d/pair.err"))"
		rm -f "$d/pair.defer" "$d/pair.dwarf"
	else
		recorded=""
		echo "# $prog: one event both ways failed:"
		diag "$d/pair.err"
	fi
	res=""
	if [ -n "$recorded" ]; then
		inroot /usr/bin/python3 /tmp/accept/compare.py "$prog" "$exe" "$comm" "/tmp/accept/$prog" "$ref" \
			> "$d/result" 2> "$d/compare.err"
		grep '^#' "$d/result"
		res=$(grep '^RESULT ' "$d/result")
		[ -n "$res" ] || diag "$d/compare.err"
	fi
	if [ -z "$res" ]; then
		nok "$prog: perf record and perf script in every mode"
		for t in "dwarf reaches _start" "fp,defer's callers follow calls" \
			 "fp,defer identical to dwarf" "fp,defer's extra frames" \
			 "sample by sample: fp,defer identical to dwarf" \
			 "sample by sample: fp,defer's extra frames"; do
			nok "$prog: $t # not compared"
		done
		continue
	fi
	echo "# $res"
	check "$prog: perf record and perf script in every mode" recorded_ok
	check "$prog: dwarf reaches _start ($(get dwarf_complete_pct)%)" \
		at_least "$(get dwarf_complete_pct)" 50
	check "$prog: fp,defer's callers follow calls ($(get nocall) do not)" [ "$(get nocall)" = 0 ]
	idt=$(get identical_pct)
	flt=$(get floor_identical_pct)
	check "$prog: fp,defer identical to dwarf ($idt%, floor $flt%, at least $(get identical_min)%)" identical_ok
	xr=$(calc "100 * $(get extra_samples) / ($(get comparable) + 0.0001)")
	fr=$(calc "100 * $(get floor_extra_samples) / ($(get floor_comparable) + 0.0001)")
	check "$prog: fp,defer's extra frames ($xr% of samples, floor $fr%, at most $(get extra_max)%)" \
		at_least "$(get extra_max)" "$xr"
	pn=$(get pair_comparable)
	check "$prog: sample by sample: fp,defer identical to dwarf ($(get pair_identical_pct)% of $pn, at least 99%)" \
		eval 'at_least "$pn" 20 && at_least "$(get pair_identical_pct)" 99'
	check "$prog: sample by sample: fp,defer's extra frames (in $(get pair_extra_samples) of $pn samples)" \
		eval 'at_least "$pn" 20 && [ "$(get pair_extra_samples)" = 0 ]'
done
umount "$R/tmp" "$R/dev" "$R/sys" "$R/proc" 2>/dev/null
[ "$failed" -eq 0 ]
