#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest: perf's own test suite ("perf test"), the tests whose
# description matches a PATTERN, as KTAP for the harness. Each perf test is
# one result; the "ok - ..." / "not ok - ..." lines a shell test prints become
# its subtests. perf finds its shell tests in ./tests/shell of the folder it
# runs in: DIR, where the harness put tools/perf/tests/shell.
# Usage: perf-test.sh DIR PATTERN...

dir=${1:?usage: perf-test.sh DIR PATTERN...}
shift
cd "$dir" || exit 1
out=$(mktemp /tmp/perf-test.XXXXXX) || exit 1
trap 'rm -f "$out" "$out.tap" "$out.rc" "$out.pat"' EXIT
# Each PATTERN must select a test: one that selects none is a result of
# its own, failed (a description perf no longer has).
: > "$out.pat"
for p in "$@"; do printf '%s\n' "$p" >> "$out.pat"; done
# perf's log, as diagnostics, as it comes (a run killed by its timeout
# still shows how far it got).
{ perf test -vv "$@" 2>&1; echo $? > "$out.rc"; } | tee "$out" | sed 's/^/# /'
rc=$(cat "$out.rc" 2>/dev/null || echo 1)
awk -v rc="$rc" '
FILENAME == ARGV[1] { pat[++npat] = tolower($0); next }
/^(ok|not ok) - / {
	line = $0
	sub(/ - /, " " (nsub + 1) " ", line)
	sub_line[++nsub] = line
	next
}
/^ *[0-9]+(\.[0-9]+)?: .*: (Ok|FAILED!|Skip.*)$/ {
	line = $0
	sub(/^ *[0-9]+(\.[0-9]+)?: /, "", line)
	verdict = line
	sub(/^.*: /, "", verdict)
	desc = substr(line, 1, length(line) - length(verdict) - 2)
	sub(/ +$/, "", desc)
	for (i = 1; i <= npat; i++)
		if (index(tolower(desc), pat[i]))
			hit[i] = 1
	n++
	subs[n] = ""
	if (nsub) {
		subs[n] = sprintf("    # Subtest: %s\n    1..%d\n", desc, nsub)
		for (i = 1; i <= nsub; i++)
			subs[n] = subs[n] sprintf("    %s\n", sub_line[i])
		nsub = 0
	}
	if (verdict == "Ok")
		res[n] = sprintf("ok %d %s", n, desc)
	else if (verdict ~ /^Skip/)
		res[n] = sprintf("ok %d %s # SKIP %s", n, desc, verdict)
	else
		res[n] = sprintf("not ok %d %s", n, desc)
}
END {
	for (i = 1; i <= npat; i++)
		if (!hit[i])
			res[++n] = sprintf("not ok %d no perf test matches \"%s\"", n, pat[i])
	print "TAP version 13"
	print "1.." (n ? n : 1)
	for (i = 1; i <= n; i++)
		printf "%s%s\n", subs[i], res[i]
	if (!n)
		print "not ok 1 perf test ran no test (exit status " rc ")"
}' "$out.pat" "$out" > "$out.tap"
cat "$out.tap"
! grep -q '^not ok' "$out.tap"
