#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make checkpatch: checkpatch.pl --strict on every patch of series/, and every
# file a patch adds covered by the series' MAINTAINERS entry at that commit
# (instead of checkpatch's FILE_PATH_CHANGES heuristic, which fires on every
# new file). Findings kept on purpose are listed in series/checkpatch-ignore,
# one per line, "NNNN TYPE reason", and printed here so they stay visible.
# Any other error, warning or check fails.
# Usage: checkpatch.sh [--json FILE]
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

json=""
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=${2:?--json needs a file}; shift 2 ;;
	*) die "$E_USAGE" "usage: checkpatch.sh [--json FILE]" ;;
	esac
done
"$H/tree.sh" > /dev/null
ignores=$SERIES/checkpatch-ignore
mapfile -t commits < <(hgit -C "$TREE" rev-list --reverse base..HEAD)
mapfile -t patches < <(series_patches)
[ ${#commits[@]} -eq ${#patches[@]} ] ||
	die "$E_SERIES" "out/tree has ${#commits[@]} commits, series/ ${#patches[@]} patches"

# check I: checkpatch and MAINTAINERS for the I-th patch; prints a verdict line.
check() {
	local i=$1 p=${patches[$1]} c=${commits[$1]} num ign=FILE_PATH_CHANGES res total uncovered
	num=$(basename "$p" | cut -c1-4)
	if [ -f "$ignores" ]; then
		while read -r n type why; do
			[ "$n" = "$num" ] || continue
			ign="$ign,$type"
			info "$(basename "$p"): checkpatch $type kept: $why" >&2
		done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ignores")
	fi
	res=$(cd "$TREE" && perl scripts/checkpatch.pl --strict --show-types --color=never \
		--ignore "$ign" "$p" 2>&1 || true)
	total=$(printf '%s\n' "$res" | grep -E '^total: ' || echo "total: checkpatch failed")
	uncovered=$(hgit -C "$TREE" show "$c:MAINTAINERS" | python3 "$H/maintainers.py" \
		$(hgit -C "$TREE" diff --diff-filter=A --name-only "$c^" "$c") 2>&1 || true)
	if printf '%s\n' "$total" | grep -qE '^total: 0 errors, 0 warnings, (0 checks, )?' &&
	   [ -z "$uncovered" ]; then
		echo "pass $(basename "$p" .patch)"
	else
		echo "fail $(basename "$p" .patch)"
		{
			printf -- '---- %s: %s\n' "$(basename "$p")" "$total"
			printf '%s\n' "$res" | grep -E '^(ERROR|WARNING|CHECK):' -A3 | head -60
			[ -z "$uncovered" ] || printf '%s\n' "$uncovered"
		} >&2
	fi
}

# Unknown patch numbers in the ignore list are mistakes.
if [ -f "$ignores" ]; then
	while read -r n _; do
		ls "$SERIES/$n"-*.patch > /dev/null 2>&1 ||
			die "$E_SERIES" "series/checkpatch-ignore names patch $n, which series/ does not have"
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ignores")
fi

# JOBS patches at a time (checkpatch is single-threaded); the verdicts are
# read back in the series' order.
verdicts=$(mktemp -d)
trap 'rm -rf "$verdicts"' EXIT
for i in "${!patches[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
	check "$i" > "$verdicts/$i" &
done
wait
tests=()
bad=0
for i in "${!patches[@]}"; do
	read -r st name < "$verdicts/$i" || st=fail name=$(basename "${patches[$i]}" .patch)
	tests+=(--test "checkpatch.$name=$st")
	[ "$st" = pass ] || bad=$((bad + 1))
done
info "checkpatch --strict: $(( ${#patches[@]} - bad )) of ${#patches[@]} patches clean"
cls=0
[ $bad -eq 0 ] || cls=$E_SERIES
[ -z "$json" ] || python3 "$H/report.py" record --name checkpatch --json "$json" \
	--class "$cls" "${tests[@]}"
exit $cls
