#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the installed selftests (and the built-in KUnit suites) in a guest of the
# given variant; classify the run into $OUT/results/RUN-NAME.json.
# Usage: guest-run.sh VARIANT RUN-NAME
. "$(dirname "$0")/lib.sh"

v=${1:?usage: guest-run.sh VARIANT RUN-NAME}
name=${2:?}
mkdir -p "$OUT/results"
runlist=$OUT/runlist-$name
: > "$runlist"
settings=$OUT/kselftest/unwind/settings
tmo=$(sed -n 's/^timeout=//p' "$settings" 2>/dev/null || true)
[ "$v" = debug ] && tmo=$(( ${tmo:-120} * 3 ))
extra=()
if [ "$v" = old ]; then
	# The base kernel has no deferred unwinding: only perf's fallback runs.
	[ -x "$OUT/kselftest/unwind/perf_workload" ] ||
		die "$E_NOTESTS" "no perf_workload in $OUT/kselftest (run selftests.sh first)"
	extra+=("$TOP/harness/guest/perf-fallback.sh:/usr/libexec/perf-fallback.sh")
	echo "perf.fallback ${tmo:-120} sh /usr/libexec/perf-fallback.sh ./unwind/perf_workload" \
		>> "$runlist"
else
	while IFS=: read -r coll prog; do
		[ -n "$prog" ] || continue
		echo "$coll.$prog ${tmo:-120} ./$coll/$prog" >> "$runlist"
	done < "$OUT/kselftest/kselftest-list.txt"
fi

# The static perf tool, for the selftests that drive it (perf_tool.sh).
if [ -x "$OUT/build/perf/perf" ]; then
	extra+=("$OUT/build/perf/perf:/usr/bin/perf")
fi

initrd=$OUT/initramfs-$name.cpio.gz
"$TOP/harness/initramfs.sh" "$initrd" "$runlist" ${extra[@]+"${extra[@]}"}
"$TOP/harness/boot.sh" "$v" "$initrd" "$name"
rc=0
python3 "$TOP/harness/report.py" parse --name "$name" \
	--console "$LOGS/$name-console.log" --results "$LOGS/$name-results.log" \
	--json "$OUT/results/$name.json" || rc=$?
if [ $rc -ne 0 ]; then
	case $rc in
	"$E_TEST") log=$LOGS/$name-results.log ;;
	*) log=$LOGS/$name-console.log ;;
	esac
	printf -- '----- last lines of %s -----\n' "$log" >&2
	tail -n 30 "$log" >&2
	printf -- '----- full log: %s -----\n' "$log" >&2
fi
exit $rc
