#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The parsers' host-side tests: tools/testing/sframe of out/tree builds
# kernel/unwind/sframe.c in user space (ASan and UBSan, a checked
# user-access shim) with its unit tests, and runs them, and compares its
# answers with objdump --sframe's decoding of programs built here for
# x86_64 and AArch64 (sframe_oracle.py, when the tree has it); tools/testing/
# eh_frame does the same for kernel/unwind/eh_frame.c, and compares its
# answers with readelf's decoding of this machine's libc, libm,
# libstdc++, bash, sort, python3 and vDSO and of a program linked here with
# GNU ld's IBT PLT (eh_frame_oracle.py). Each TAP
# result becomes the test sframe.host.NAME, sframe.NAME (oracle_PROGRAM),
# eh_frame.host.NAME or eh_frame.NAME (oracle_FILE; a skip is a failure);
# the builds and the runs go to logs/sframe-host.log. A tree without
# tools/testing/sframe (an older series) has nothing to run: that is said,
# and nothing recorded; one without tools/testing/eh_frame runs the SFrame
# tests only.
#
# With --debian13, only the oracle runs, on the Debian 13 programs and
# libraries debian-tools.sh staged (perf 7.3, trace-cmd 3.4 and every
# library they load: glibc 2.41, libstdc++, libpython3.13, liblzma, ...)
# and the acceptance test's programs (python3.13, xz, gzip, sort, bash,
# sqlite3 and theirs), as the tests eh_frame.debian13.oracle_FILE; and on
# the same perf and trace-cmd for arm64 with their libraries, as
# arm64-debs.sh stages them (fetched here if not yet), as
# eh_frame.debian13.oracle_aarch64_FILE.
# Usage: sframe-host.sh [--debian13] [--json OUT]
. "$(dirname "$0")/lib.sh"

debian13=""
if [ "${1:-}" = --debian13 ]; then
	debian13=1
	shift
fi
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
	python3 "$H/report.py" record --name "sframe-host${debian13:+-debian13}" --json "$json" --class "$cls" "${args[@]}"
}

t0=$(date +%s)
# From clean: the binaries must be the tree's parsers, built with these flags.
if [ -n "$debian13" ]; then
	: # the oracle's build below
elif ! { make -C "$dir" clean && make -C "$dir"; } > "$log" 2>&1; then
	record "$E_BUILD" "sframe.host.build=fail"
	die "$E_BUILD" "tools/testing/sframe does not build" "$log"
fi
ehdir=$TREE/tools/testing/eh_frame
[ -f "$ehdir/Makefile" ] || ehdir=""
[ -n "$ehdir" ] || [ -z "$debian13" ] ||
	die "$E_NO_TESTS" "no tools/testing/eh_frame in $TREE: no oracle to run"
[ -z "$debian13" ] || : > "$log"
if [ -n "$ehdir" ] && ! { make -C "$ehdir" clean && make -C "$ehdir"; } >> "$log" 2>&1; then
	record "$E_BUILD" "eh_frame.host.build=fail"
	die "$E_BUILD" "tools/testing/eh_frame does not build" "$log"
fi

# TAP: "ok N name", "not ok N name", "... # SKIP why", and the plan "1..N".
result_re='^(not ok|ok)[[:space:]]+[0-9]+[[:space:]]+(-[[:space:]]+)?([^#]*[^#[:space:]])[[:space:]]*(#[[:space:]]*([A-Za-z]*).*)?$'
tests=()
npass=0
failed=()
problems=()

# run_tap PREFIX DIR COMMAND...: run COMMAND in DIR, its TAP results as
# tests PREFIX.NAME; a run that crashes, prints sanitizer output, gives
# fewer results than its plan or exits non-zero without a failed result
# is a problem (PREFIX.run fails).
run_tap() {
	local prefix=$1 where=$2 start rc=0 plan="" line name directive n=0 nfail=0 bad=()
	shift 2
	printf -- '----- %s -----\n' "$*" >> "$log"
	start=$(($(wc -l < "$log") + 1))
	(cd "$where" && timeout 600 "$@") >> "$log" 2>&1 || rc=$?
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
		elif [[ $line =~ $result_re ]]; then
			name=${BASH_REMATCH[3]#global.}
			directive=${BASH_REMATCH[5]^^}
			n=$((n + 1))
			if [ "${BASH_REMATCH[1]}" = ok ] && [ "$directive" != SKIP ]; then
				tests+=("$prefix.$name=pass")
				npass=$((npass + 1))
			else
				tests+=("$prefix.$name=fail")
				failed+=("$prefix.$name${directive:+ ($directive)}")
				nfail=$((nfail + 1))
			fi
		fi
	done < <(tail -n "+$start" "$log")

	if [ -z "$plan" ]; then
		bad+=("no TAP plan")
	elif [ "$n" -ne "$plan" ]; then
		bad+=("$n of $plan results")
	fi
	if tail -n "+$start" "$log" | grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:'; then
		bad+=("sanitizer output")
	fi
	[ $rc -eq 0 ] || [ "$nfail" -gt 0 ] || bad+=("exit status $rc")
	if [ ${#bad[@]} -gt 0 ]; then
		tests+=("$prefix.run=fail")
		problems+=("${bad[@]/#/$prefix: }")
	fi
}

if [ -n "$debian13" ]; then
	# Each staged program and library once, by name (perf and trace-cmd
	# load the same libc); ELF files only, not python3.13's extension
	# modules.
	mapfile -t files < <(find "$OUT/debian-tools/guest/debian" -type f \
		\( -path '*/lib/*' -o -path '*/bin/*' \) ! -path '*/python3.13/*' 2> /dev/null |
		while read -r f; do
			[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" != '177ELF' ] || echo "$f"
		done | awk -F/ '!seen[$NF]++' | sort)
	[ ${#files[@]} -gt 0 ] ||
		die "$E_NO_TESTS" "nothing staged in $OUT/debian-tools/guest/debian (run harness/debian-tools.sh)"
	if ! a64=$("$H/arm64-debs.sh" tools 2>> "$log"); then
		record "$E_DEPENDENCIES" "eh_frame.debian13.arm64_tools=fail"
		die "$E_DEPENDENCIES" "Debian's arm64 perf and trace-cmd could not be fetched" "$log"
	fi
	mapfile -t a64files < <(find "$a64/debian" -type f \( -path '*/lib/*' -o -path '*/bin/*' \) |
		while read -r f; do
			[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" != '177ELF' ] || echo "$f"
		done | awk -F/ '!seen[$NF]++' | sort)
	[ ${#a64files[@]} -gt 0 ] || die "$E_NO_TESTS" "nothing staged in $a64/debian"
	files+=("${a64files[@]}")
	run_tap eh_frame.debian13 "$ehdir" python3 eh_frame_oracle.py ./eh_frame_dump "${files[@]}"
	grep -E '^# [^ :]+: [0-9]+ FDEs, [0-9]+ rows; ' "$log" | sed 's/^# /    readelf vs reader: /' || true
else
	run_tap sframe.host "$dir" ./sframe_test
	if [ -f "$dir/sframe_oracle.py" ]; then
		run_tap sframe "$dir" python3 sframe_oracle.py ./sframe_dump
		grep -E '^# [^ :]+: abi [0-9]+, ' "$log" | sed 's/^# /    objdump vs parser: /' || true
	fi
fi
if [ -n "$ehdir" ] && [ -z "$debian13" ]; then
	run_tap eh_frame.host "$ehdir" ./eh_frame_test
	run_tap eh_frame "$ehdir" python3 eh_frame_oracle.py ./eh_frame_dump
	# A program linked with GNU ld's IBT PLT (stubs that start with
	# endbr64), whose CFA expression names another byte of the stub than
	# the plain PLT's: eh_frame.oracle_ibtplt.
	if printf 'int puts(const char *s);\nint main(void) { return puts("") < 0; }\n' |
	   gcc -x c -O2 -fcf-protection -Wl,-z,ibtplt -o "$OUT/ibtplt" - >> "$log" 2>&1; then
		run_tap eh_frame "$ehdir" python3 eh_frame_oracle.py ./eh_frame_dump "$OUT/ibtplt"
	else
		tests+=("eh_frame.oracle_ibtplt=fail")
		failed+=("eh_frame.oracle_ibtplt (gcc -Wl,-z,ibtplt failed)")
	fi
	# The oracle's figures, one line per file.
	grep -E '^# [^ :]+: [0-9]+ FDEs, [0-9]+ rows; ' "$log" | sed 's/^# /    readelf vs reader: /' || true
fi

if [ ${#tests[@]} -eq 0 ]; then
	record "$E_NO_TESTS" "sframe.host.run=fail"
	die "$E_NO_TESTS" "the host tests ran no test" "$log"
fi
dt=$(($(date +%s) - t0))
record 0 "${tests[@]}"
extra=""
for p in "${problems[@]}"; do extra+=", $p"; done
info "parser host tests: $npass passed, ${#failed[@]} failed$extra (${dt}s, log: $log)"
if [ ${#failed[@]} -gt 0 ] || [ ${#problems[@]} -gt 0 ]; then
	[ ${#failed[@]} -eq 0 ] || warn "failed: ${failed[*]}"
	show_tail "$log"
	exit "$E_TEST_FAILURE"
fi
