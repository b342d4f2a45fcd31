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
while IFS=: read -r coll prog; do
	[ -n "$prog" ] || continue
	echo "$coll.$prog ${tmo:-120} ./$coll/$prog" >> "$runlist"
done < "$OUT/kselftest/kselftest-list.txt"

initrd=$OUT/initramfs-$name.cpio.gz
"$TOP/harness/initramfs.sh" "$initrd" "$runlist"
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
