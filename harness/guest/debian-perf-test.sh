#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: Debian's own perf (mainline 7.3, from trixie-backports, with
# its own libraries; see harness/debian-tools.sh) as a user runs it against
# the series' kernel:
#   - perf record --call-graph fp,defer keeps deferral on (no fallback) and
#     the data holds one deferred record per system call;
#   - perf script stitches every kernel-mode sample of UNWIND_CHAIN's known
#     chain to its user part, address by address;
#   - perf report shows the chain;
#   - perf script --no-merge-callchains shows one record per cookie, and
#     the samples with their cookie;
#   - a read loop (READLOOP LOOPS BYTES, 4 MiB reads) sampled by cpu-clock:
#     no sample is left unstitched (a user part of the program's own frames
#     on every sample). Mainline perf only looks forward for a sample's
#     record, so a sample taken after its entry's walk must not carry a
#     cookie;
#   - with READLOOP_NOFP, the same read loop built without frame pointers
#     (and without SFrame): every sample in read() still continues into its
#     whole chain, which only the program's .eh_frame gives.
# Usage: debian-perf-test.sh UNWIND_CHAIN READLOOP [READLOOP_NOFP]
usage="usage: debian-perf-test.sh UNWIND_CHAIN READLOOP [READLOOP_NOFP]"
chain_prog=${1:?$usage}
readloop=${2:?$usage}
readloop_nofp=${3:-}
perf=perf-debian
tmp=$(mktemp -d /tmp/debian-perf.XXXXXX) || exit 1
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; return 1; fi; }
diag() { [ -f "$1" ] && head -n "${2:-20}" "$1" | sed 's/^/# /'; }
# No debuginfod: the guest has no network.
export DEBUGINFOD_URLS=
export HOME=$tmp

echo "TAP version 13"
echo "1..$([ -n "$readloop_nofp" ] && echo 10 || echo 8)"
sed 's/^/# /' /debian/versions
echo "# $($perf version 2>&1)"

# calls: the number of getppid() calls of UNWIND_CHAIN, each its own entry.
calls=20
rec() {
	$perf record -q -o "$tmp/chain.data" -e syscalls:sys_enter_getppid \
		--call-graph fp,defer -- "$chain_prog" $calls > "$tmp/chain" 2> "$tmp/rec.err"
}
check "perf record -e syscalls:sys_enter_getppid --call-graph fp,defer" rec ||
	diag "$tmp/rec.err"

# No fallback: the event was opened with defer_callchain, and the kernel
# wrote a deferred record for each system call.
$perf evlist -v -i "$tmp/chain.data" > "$tmp/evlist" 2>&1
$perf report -D -i "$tmp/chain.data" > "$tmp/dump" 2>&1
records=$(grep -c 'PERF_RECORD_CALLCHAIN_DEFERRED' "$tmp/dump")
samples=$(grep -c 'PERF_RECORD_SAMPLE(' "$tmp/dump")
echo "# $samples samples, $records deferred records; evlist: $(grep -o 'defer_callchain: [0-9]*' "$tmp/evlist")"
nofallback() {
	grep -q 'defer_callchain: 1' "$tmp/evlist" &&
	[ "$samples" -eq $calls ] && [ "$records" -eq $calls ]
}
check "no fallback: defer_callchain set, one deferred record per system call" nofallback ||
	{ diag "$tmp/evlist"; grep -m 5 -A 8 'PERF_RECORD_CALLCHAIN_DEFERRED' "$tmp/dump" | sed 's/^/# /'; }

# perf script: each sample's chain, one line "USER ADDRESSES..." after its
# kernel part; the chain the program printed, in hex as perf prints it.
want=$(for a in $(cat "$tmp/chain"); do printf '%x ' "0x$a"; done)
echo "# chain: $want"
$perf script -i "$tmp/chain.data" -F comm,tid,ip,sym > "$tmp/script" 2> "$tmp/script.err"
awk '
	function flush() { if (have) print u; u = ""; have = 0 }
	/^[^ \t]/ { flush(); have = 1; next }
	/^[ \t]+[0-9a-f]+ / {
		a = $1
		# User addresses are below the kernel half.
		if (length(a) < 16 || a !~ /^ffff/) u = u a " "
	}
	END { flush() }
' "$tmp/script" > "$tmp/user"
stitched=$(grep -c "^$want" "$tmp/user")
echo "# perf script: $stitched of $(wc -l < "$tmp/user") samples continue into the chain"
check "perf script: every sample stitched to the chain, frame by frame" \
	[ "$stitched" -eq $calls ] || { diag "$tmp/user" 5; diag "$tmp/script" 30; diag "$tmp/script.err"; }

# perf report: the call graph (callee first) has the chain's functions.
reported() {
	$perf report -i "$tmp/chain.data" --stdio --no-children --no-inline > "$tmp/report" 2> "$tmp/report.err" &&
	tr -s ' \t\n|-' ' ' < "$tmp/report" | grep -q 'chain_leaf chain_middle chain_outer main'
}
check "perf report: the chain chain_leaf, chain_middle, chain_outer, main" reported ||
	{ diag "$tmp/report" 40; diag "$tmp/report.err"; }

# Without merging: one record per cookie, and the samples keep their cookie.
$perf script -i "$tmp/chain.data" --no-merge-callchains > "$tmp/raw" 2> "$tmp/raw.err"
raw_records=$(grep -c 'DEFERRED CALLCHAIN' "$tmp/raw")
raw_cookies=$(grep -o 'DEFERRED CALLCHAIN \[cookie: [0-9a-fx]*' "$tmp/raw" | sort -u | wc -l)
echo "# --no-merge-callchains: $raw_records records, $raw_cookies cookies"
one_per_cookie() { [ "$raw_records" -eq $calls ] && [ "$raw_cookies" -eq $calls ]; }
check "perf script --no-merge-callchains: one record per cookie" one_per_cookie ||
	{ diag "$tmp/raw" 40; diag "$tmp/raw.err"; }

# A read loop sampled by cpu-clock: every sample of the program has a user
# part of the program's own frames.
# loop PROG NAME: record PROG's read loop into $tmp/NAME.data, and write one
# line per sample of the program to $tmp/NAME.samples: "S" if its user part
# has a frame of the program, else "U"; its kernel part's functions (the
# addresses in the kernel half); its user part's. Sets total, bad (samples
# left unstitched), inread (samples in read()) and chained (those whose
# user part is the program's whole chain).
loop() {
	$perf record -q -o "$tmp/$2.data" -e cpu-clock -F 4000 --call-graph fp,defer \
		-- "$1" 300 4194304 > /dev/null 2> "$tmp/$2.err" &&
	$perf script -i "$tmp/$2.data" --no-inline -F comm,tid,ip,sym,dso > "$tmp/$2.script" 2>> "$tmp/$2.err" ||
		return 1
	awk -v prog="$(basename "$1")" '
		function flush() {
			if (have && mine)
				printf "%s|%s|%s\n", (stitched ? "S" : "U"), k, u
			have = 0
		}
		/^[^ \t]/ { flush(); have = 1; mine = ($1 == prog); stitched = 0; k = u = ""; next }
		/^[ \t]+[0-9a-f]+ / {
			s = $2; sub(/\+0x[0-9a-f]+$/, "", s)
			if (length($1) == 16 && $1 ~ /^ffff/) k = k " " s; else u = u " " s
			if ($0 ~ "/" prog "\\)$") stitched = 1
		}
		END { flush() }
	' "$tmp/$2.script" > "$tmp/$2.samples"
	total=$(wc -l < "$tmp/$2.samples")
	bad=$(grep -c '^U' "$tmp/$2.samples")
	# Samples in read(): the kernel part, then the workload's whole chain.
	inread=$(grep -cE '^[SU]\|.* (ksys_read|__x64_sys_read|__arm64_sys_read)[ |]' "$tmp/$2.samples")
	chained=$(grep -cE '^S\|.* (ksys_read|__x64_sys_read|__arm64_sys_read)[ |].*\| fill copy_chunk load_file read_all main( |$)' "$tmp/$2.samples")
	echo "# $2: $bad of $total samples without a user part in $(basename "$1");" \
		"$chained of $inread samples in read() continue into fill ... main"
}
# not_chained NAME: a few samples in read() of NAME that lost their chain.
not_chained() {
	grep -E '_sys_read[ |]' "$tmp/$1.samples" | grep -v '| fill copy_chunk load_file read_all main' |
		head -n 5 | sed 's/^/# /'
}
none_unstitched() { [ "$total" -ge 100 ] && [ "$bad" -eq 0 ]; }
in_read() { [ "$inread" -ge 50 ] && [ "$chained" -eq "$inread" ]; }

check "perf record -e cpu-clock --call-graph fp,defer of a read loop" loop "$readloop" loop ||
	diag "$tmp/loop.err"
check "read loop: no sample left unstitched" none_unstitched ||
	grep -m 5 '^U' "$tmp/loop.samples" | sed 's/^/# /'
check "read loop: every sample in read() continues into its chain, frame by frame" in_read ||
	not_chained loop

if [ -n "$readloop_nofp" ]; then
	check "perf record -e cpu-clock --call-graph fp,defer of the read loop without frame pointers" \
		loop "$readloop_nofp" nofp || diag "$tmp/nofp.err"
	check "read loop without frame pointers: every sample in read() continues into its chain, by .eh_frame" \
		in_read || not_chained nofp
fi

rm -rf "$tmp"
[ $failed -eq 0 ]
