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
trap 'rm -f "$out" "$out.tap"' EXIT
perf test -vv "$@" > "$out" 2>&1
rc=$?

# perf's log, as diagnostics.
sed 's/^/# /' "$out"
awk -v rc="$rc" '
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
	print "TAP version 13"
	print "1.." (n ? n : 1)
	for (i = 1; i <= n; i++)
		printf "%s%s\n", subs[i], res[i]
	if (!n)
		print "not ok 1 perf test ran no test (exit status " rc ")"
}' "$out" > "$out.tap"
cat "$out.tap"
! grep -q '^not ok' "$out.tap"
