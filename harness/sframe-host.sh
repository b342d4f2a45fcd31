#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The SFrame parser's host-side tests: tools/testing/sframe of out/tree
# builds kernel/unwind/sframe.c in user space (ASan and UBSan, a checked
# user-access shim) with its unit tests, and runs them. Each TAP result
# becomes the test sframe.host.NAME (a skip is a failure); the build and
# the run go to logs/sframe-host.log. A tree without tools/testing/sframe
# (an older series) has nothing to run: that is said, and nothing recorded.
# Usage: sframe-host.sh [--json OUT]
. "$(dirname "$0")/lib.sh"

json_arg sframe-host.sh "$@"
dir=$TREE/tools/testing/sframe
log=$LOGS/sframe-host.log

if [ ! -f "$dir/Makefile" ]; then
	warn "no tools/testing/sframe in $TREE (an older series): no host-side parser tests"
	exit 0
fi
command -v "${CC:-gcc}" > /dev/null || die "$E_DEPENDENCIES" "no ${CC:-gcc} (make deps)"

# record CLASS TEST=STATUS...: the result, if --json was given.
record() {
	local cls=$1 t args=()
	shift
	[ -n "$json" ] || return 0
	for t in "$@"; do args+=(--test "$t"); done
	python3 "$H/report.py" record --name sframe-host --json "$json" --class "$cls" "${args[@]}"
}

t0=$(date +%s)
# From clean: the binary must be the tree's parser, built with these flags.
if ! { make -C "$dir" clean && make -C "$dir"; } > "$log" 2>&1; then
	record "$E_BUILD" "sframe.host.build=fail"
	die "$E_BUILD" "tools/testing/sframe does not build" "$log"
fi

printf -- '----- ./sframe_test -----\n' >> "$log"
start=$(($(wc -l < "$log") + 1))
rc=0
(cd "$dir" && timeout 300 ./sframe_test) >> "$log" 2>&1 || rc=$?

# TAP: "ok N name", "not ok N name", "... # SKIP why", and the plan "1..N".
result_re='^(not ok|ok)[[:space:]]+[0-9]+[[:space:]]+(-[[:space:]]+)?([^#]*[^#[:space:]])[[:space:]]*(#[[:space:]]*([A-Za-z]*).*)?$'
plan=""
tests=()
npass=0
failed=()
while IFS= read -r line; do
	line=${line%$'\r'}
	if [[ $line =~ ^1\.\.([0-9]+) ]]; then
		plan=${BASH_REMATCH[1]}
	elif [[ $line =~ $result_re ]]; then
		name=${BASH_REMATCH[3]#global.}
		directive=${BASH_REMATCH[5]^^}
		if [ "${BASH_REMATCH[1]}" = ok ] && [ "$directive" != SKIP ]; then
			tests+=("sframe.host.$name=pass")
			npass=$((npass + 1))
		else
			tests+=("sframe.host.$name=fail")
			failed+=("$name${directive:+ ($directive)}")
		fi
	fi
done < <(tail -n "+$start" "$log")

if [ ${#tests[@]} -eq 0 ]; then
	record "$E_NO_TESTS" "sframe.host.run=fail"
	die "$E_NO_TESTS" "sframe_test ran no test (exit $rc)" "$log"
fi

# The run itself: a crash before the end, sanitizer output, a bad exit.
problems=()
if [ -z "$plan" ]; then
	problems+=("no TAP plan")
elif [ "${#tests[@]}" -ne "$plan" ]; then
	problems+=("${#tests[@]} of $plan results")
fi
if tail -n "+$start" "$log" | grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:'; then
	problems+=("sanitizer output")
fi
[ $rc -eq 0 ] || [ ${#failed[@]} -gt 0 ] || problems+=("exit status $rc")
[ ${#problems[@]} -eq 0 ] || tests+=("sframe.host.run=fail")
dt=$(($(date +%s) - t0))
record 0 "${tests[@]}"
extra=""
for p in "${problems[@]}"; do extra+=", $p"; done
info "sframe host tests: $npass passed, ${#failed[@]} failed$extra (${dt}s, log: $log)"
if [ ${#failed[@]} -gt 0 ] || [ ${#problems[@]} -gt 0 ]; then
	[ ${#failed[@]} -eq 0 ] || warn "failed: ${failed[*]}"
	show_tail "$log"
	exit "$E_TEST_FAILURE"
fi
