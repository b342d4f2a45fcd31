#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest of the "old" kernel, the base kernel without the series
# (no CONFIG_UNWIND_USER, no deferred callchains). "perf record --call-graph
# fp,defer" must notice that the kernel refuses the new attribute bits, say
# so, fall back to plain frame pointers and record the same full callchains.
# The workload is perf's own "perf test -w readchain". KTAP on stdout.

chain="readchain_leaf readchain_middle readchain_outer readchain"
tmp=$(mktemp -d /tmp/perf-fallback.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
# The in-tree KTAP helpers, installed with the selftests.
. /tests/kselftest/ktap_helpers.sh

diag() { [ -f "$1" ] && head -n 20 "$1" | sed 's/^/# /'; }

ktap_print_header
ktap_set_plan 5

if ! command -v perf > /dev/null; then
	ktap_exit_fail_msg "perf is not in PATH"
fi

# The kernel must really lack the feature, or this test proves nothing.
if grep -q unwind_deferred_request /proc/kallsyms 2>/dev/null; then
	ktap_exit_fail_msg "this kernel has deferred unwinding; the fallback test needs one without"
fi

if perf record -e cpu-clock -c 500000 --call-graph fp,defer -o "$tmp/p.data" \
	-- perf test -w readchain 300 > "$tmp/record.out" 2>&1; then
	ktap_test_pass "fallback.record"
else
	diag "$tmp/record.out"
	ktap_test_fail "fallback.record"
fi

# The tool says that it fell back, and what to.
if grep -qi 'defer' "$tmp/record.out" && grep -qi 'fall' "$tmp/record.out"; then
	ktap_test_pass "fallback.warns"
else
	diag "$tmp/record.out"
	ktap_test_fail "fallback.warns"
fi

# The recorded attributes no longer ask for deferral.
perf evlist -v -i "$tmp/p.data" > "$tmp/evlist" 2>&1
if grep -q 'sample_type:.*CALLCHAIN' "$tmp/evlist" &&
   ! grep -q 'defer_callchain: 1' "$tmp/evlist" &&
   ! grep -q 'defer_output: 1' "$tmp/evlist"; then
	ktap_test_pass "fallback.no_defer_bits"
else
	diag "$tmp/evlist"
	ktap_test_fail "fallback.no_defer_bits"
fi

# Full user callchains, innermost first: readchain_leaf ... readchain.
perf script -i "$tmp/p.data" -F comm,tid,ip,sym > "$tmp/script" 2> "$tmp/script.err"
awk -v chain="$chain" '
	function check() {
		if (!n) return
		samples++
		k = 1; m = split(chain, want, " ")
		for (i = 1; i <= n && k <= m; i++)
			if (sym[i] == want[k]) k++
		if (k > m) good++
		n = 0
	}
	/^[^ \t]/ { check(); next }
	NF >= 2 { sym[++n] = $2 }
	END { check(); printf "%d %d\n", samples, good; exit !(samples >= 20 && good * 2 >= samples) }
' "$tmp/script" > "$tmp/count"
rc=$?
echo "# samples, samples with the whole chain: $(cat "$tmp/count")"
if [ $rc -eq 0 ]; then
	ktap_test_pass "fallback.chain"
else
	diag "$tmp/script.err"
	diag "$tmp/script"
	ktap_test_fail "fallback.chain"
fi

# No deferred markers or records in the data.
perf report -D -i "$tmp/p.data" > "$tmp/dump" 2>&1
if grep -q 'PERF_RECORD_SAMPLE' "$tmp/dump" &&
   ! grep -q 'CALLCHAIN_DEFERRED' "$tmp/dump"; then
	ktap_test_pass "fallback.no_deferred_records"
else
	grep -m 5 'CALLCHAIN_DEFERRED' "$tmp/dump" | sed 's/^/# /'
	ktap_test_fail "fallback.no_deferred_records"
fi

ktap_finished
