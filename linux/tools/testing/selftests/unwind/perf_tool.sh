#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Deferred user callchains through the perf tool: "perf record --call-graph
# fp,defer" on perf_workload (main -> w_outer -> w_middle -> w_inner, which
# burns kernel time in read(2)), then perf script and perf report stitch
# each sample's kernel part to the deferred user stack, show the raw
# records on request, show every recorded sample exactly once, and take
# the same samples as plain fp does.
#
# Needs perf in PATH; a missing perf is a failure, not a skip.

cd "$(dirname "$0")" || exit 1
workload=$PWD/perf_workload
# read(2) calls of 256 KiB: a quarter of a second on a TCG guest.
loops=${PERF_WORKLOAD_LOOPS:-1000}
# cpu-clock period in ns: 0.5 ms, some 500 samples per run.
period=500000
chain="w_inner w_middle w_outer main"
ntests=13

tmp=$(mktemp -d /tmp/perf_tool.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

num=0
failed=0

pass() {
	num=$((num + 1))
	echo "ok $num $1"
}

fail() {
	num=$((num + 1))
	failed=$((failed + 1))
	echo "not ok $num $1"
}

# Show a file as TAP diagnostics: its first 20 lines.
diag() {
	[ -f "$1" ] && head -n 20 "$1" | sed 's/^/# /'
}

# Blocks of perf script output, one line each with the symbols of its
# frames: " w_inner w_middle ... " (offsets and DSOs dropped). Frames are
# the lines that start with a tab. $2 picks the workload's samples
# ("samples") or the deferred callchain records perf script prints in
# their place ("records").
script_chains() {
	awk -v want="$2" '
	function flush() {
		if (on)
			print s " "
		on = 0
		s = ""
	}
	/^[ \t]*$/ { flush(); next }
	/^[^\t]/ {
		flush()
		rec = /PERF_RECORD_/
		if (want == "records")
			on = /PERF_RECORD_CALLCHAIN_DEFERRED/ && /cookie: 0x[0-9a-f]+/
		else
			on = $1 == "perf_workload" && !rec
		next
	}
	on { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); s = s " " sym }
	END { flush() }' "$1"
}

# The symbols of perf report's call graphs, in order, on one line.
report_symbols() {
	awk '
	{
		line = $0
		gsub(/\|/, " ", line)
		sub(/^[ \t]*(---|--[0-9.]+%--)/, "", line)
		sub(/^[ \t]+/, "", line)
		if (line ~ /^[A-Za-z_][A-Za-z0-9_.]*$/)
			s = s " " line
	}
	END { print s " " }' "$1"
}

# record NAME MODE [EVENT PERIOD]: perf record the workload with
# --call-graph MODE, sampling EVENT (cpu-clock) every PERIOD ($period)
# events, into NAME.data (messages in NAME.rec), then perf script it into
# NAME.script.
record() {
	perf record -N -e "${3:-cpu-clock}" -c "${4:-$period}" --call-graph "$2" \
		-o "$tmp/$1.data" -- "$workload" "$loops" > "$tmp/$1.rec" 2>&1 &&
	perf script -i "$tmp/$1.data" > "$tmp/$1.script" 2> "$tmp/$1.err"
}

# Are the counts $1 and $2 positive and at most $3 apart?
close_to() {
	d=$(($1 - $2))
	[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && [ "${d#-}" -le "$3" ]
}

echo "TAP version 13"
echo "1..$ntests"

if ! command -v perf > /dev/null 2>&1; then
	fail "perf in PATH"
	while [ $num -lt $ntests ]; do
		fail "needs perf"
	done
	exit 1
fi
echo "# perf: $(command -v perf)"
pass "perf in PATH"

# Record with deferred user callchains; no fallback to plain fp.
if record defer fp,defer && ! grep -q "does not support" "$tmp/defer.rec"; then
	pass "perf record --call-graph fp,defer and perf script"
else
	fail "perf record --call-graph fp,defer and perf script"
	diag "$tmp/defer.rec"
	diag "$tmp/defer.err"
fi

# The event asks for deferred callchains and gets the records.
perf evlist -v -i "$tmp/defer.data" > "$tmp/evlist" 2>&1
if grep -q "defer_callchain: 1" "$tmp/evlist" && grep -q "defer_output: 1" "$tmp/evlist"; then
	pass "perf evlist -v: defer_callchain and defer_output set"
else
	fail "perf evlist -v: defer_callchain and defer_output set"
	diag "$tmp/evlist"
fi

# Most samples carry the whole chain, callee first.
script_chains "$tmp/defer.script" samples > "$tmp/defer.chains"
total=$(wc -l < "$tmp/defer.chains")
full=$(grep -c " $chain " "$tmp/defer.chains")
echo "# perf script: $full of $total samples end in $chain"
if [ "$total" -gt 0 ] && [ $((full * 2)) -gt "$total" ]; then
	pass "perf script: most samples end in the workload's chain"
else
	fail "perf script: most samples end in the workload's chain"
	diag "$tmp/defer.script"
fi

# Kernel samples: the kernel part, then the deferred user part.
stitched=$(grep -c "entry_SYSCALL_64[a-z_]* $chain " "$tmp/defer.chains")
echo "# perf script: $stitched kernel samples continue into $chain"
if [ "$stitched" -gt 0 ]; then
	pass "perf script: kernel samples continue into the deferred user part"
else
	fail "perf script: kernel samples continue into the deferred user part"
	grep -m 5 entry_SYSCALL "$tmp/defer.chains" | sed 's/^/# /'
fi

# No sample lost its user part: also those taken on the way out of the
# kernel after their record was written get the task's last record.
nouser=$(awk '
	function flush() {
		if (on && !user)
			n++
		on = 0
	}
	/^[ \t]*$/ { flush(); next }
	/^[^\t]/ { flush(); on = $1 == "perf_workload" && !/PERF_RECORD_/; user = 0; next }
	on && $NF != "([kernel.kallsyms])" { user = 1 }
	END { flush(); print n + 0 }' "$tmp/defer.script")
echo "# perf script: $nouser of $total samples without a user part"
if [ "$total" -gt 0 ] && [ "$nouser" -eq 0 ]; then
	pass "perf script: every sample has its user part"
else
	fail "perf script: every sample has its user part"
	grep -m 3 -B 12 'task_work_run\|irqentry_exit' "$tmp/defer.script" | sed 's/^/# /'
fi

# perf report's call graph (callee first) has the chain too.
if perf report -i "$tmp/defer.data" --stdio --no-children > "$tmp/report" 2> "$tmp/report.err" &&
	report_symbols "$tmp/report" | grep -q " $chain "; then
	pass "perf report --no-children: the workload's chain"
else
	fail "perf report --no-children: the workload's chain"
	diag "$tmp/report"
	diag "$tmp/report.err"
fi

# Without merging: the records, with cookie and frames, and samples that
# end in the kernel.
perf script -i "$tmp/defer.data" --no-merge-callchains > "$tmp/raw.script" 2>&1
script_chains "$tmp/raw.script" records > "$tmp/raw.records"
script_chains "$tmp/raw.script" samples > "$tmp/raw.chains"
raw_records=$(grep -c " $chain " "$tmp/raw.records")
raw_stitched=$(grep -c "entry_SYSCALL_64[a-z_]* w_" "$tmp/raw.chains")
echo "# perf script --no-merge-callchains: $raw_records records with $chain"
echo "# perf script --no-merge-callchains: $raw_stitched merged kernel samples"
if [ "$raw_records" -gt 0 ] && [ "$raw_stitched" -eq 0 ]; then
	pass "perf script --no-merge-callchains: records shown, samples not merged"
else
	fail "perf script --no-merge-callchains: records shown, samples not merged"
	diag "$tmp/raw.script"
fi

# The raw dump has the records.
perf report -D -i "$tmp/defer.data" > "$tmp/dump" 2>&1
records=$(grep -c "PERF_RECORD_CALLCHAIN_DEFERRED" "$tmp/dump")
echo "# perf report -D: $records PERF_RECORD_CALLCHAIN_DEFERRED records"
if [ "$records" -gt 0 ]; then
	pass "perf report -D: PERF_RECORD_CALLCHAIN_DEFERRED records"
else
	fail "perf report -D: PERF_RECORD_CALLCHAIN_DEFERRED records"
fi

# Merging holds samples back until their record comes: perf script must
# still show each recorded sample exactly once.
dumped=$(grep -c "PERF_RECORD_SAMPLE(" "$tmp/dump")
echo "# perf script: $total samples, perf report -D: $dumped"
if [ "$dumped" -gt 0 ] && [ "$total" -eq "$dumped" ]; then
	pass "perf script: every recorded sample shown once"
else
	fail "perf script: every recorded sample shown once"
fi

# Plain fp, the user stack walked in each sample, as before.
if record plain fp; then
	script_chains "$tmp/plain.script" samples > "$tmp/fp.chains"
	fp_total=$(wc -l < "$tmp/fp.chains")
	fp_full=$(grep -c " $chain " "$tmp/fp.chains")
else
	fp_total=0
	fp_full=0
	diag "$tmp/plain.rec"
	diag "$tmp/plain.err"
fi
echo "# perf record --call-graph fp: $fp_full of $fp_total samples end in $chain"
if [ "$fp_total" -gt 0 ] && [ $((fp_full * 2)) -gt "$fp_total" ]; then
	pass "perf record --call-graph fp: most samples end in the workload's chain"
else
	fail "perf record --call-graph fp: most samples end in the workload's chain"
fi

# The same samples with or without deferral. cpu-clock cannot show it:
# the deferred walks and their records are CPU time of the workload too
# (on the debug kernel under TCG, a third of a millisecond each, so the
# fp,defer run takes up to twice the samples), and periods whose timer
# fires late while the host runs something else are skipped. Page faults
# are counted, not timed: sampling every one, both runs must take the
# same samples, give or take the few pages that address space layout
# randomization moves (measured: 89 to 91 of them). The first read(2)
# faults in the workload's 256 KiB buffer inside one kernel entry, so
# those samples (63 measured) share one cookie and one record, and must
# all end in the chain as they do with fp.
if record fdefer fp,defer minor-faults 1 && record fplain fp minor-faults 1; then
	script_chains "$tmp/fdefer.script" samples > "$tmp/fdefer.chains"
	script_chains "$tmp/fplain.script" samples > "$tmp/fplain.chains"
else
	diag "$tmp/fdefer.rec"
	diag "$tmp/fplain.rec"
	: > "$tmp/fdefer.chains"
	: > "$tmp/fplain.chains"
fi
fd_total=$(wc -l < "$tmp/fdefer.chains")
fp_total=$(wc -l < "$tmp/fplain.chains")
fd_full=$(grep -c " $chain " "$tmp/fdefer.chains")
fp_full=$(grep -c " $chain " "$tmp/fplain.chains")
echo "# minor-faults: $fd_total samples with fp,defer, $fp_total with fp"
if close_to "$fd_total" "$fp_total" 4; then
	pass "minor-faults: as many samples with fp,defer as with fp"
else
	fail "minor-faults: as many samples with fp,defer as with fp"
fi
echo "# minor-faults: $fd_full samples end in $chain with fp,defer, $fp_full with fp"
if close_to "$fd_full" "$fp_full" 1; then
	pass "minor-faults: as many samples end in the chain with fp,defer as with fp"
else
	fail "minor-faults: as many samples end in the chain with fp,defer as with fp"
	grep " w_" "$tmp/fdefer.chains" | grep -v " $chain " | head -n 5 | sed 's/^/# /'
fi

[ $failed -eq 0 ]
