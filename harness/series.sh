#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Export the series: commit it on a scratch git repository whose first commit is
# the pristine base, format-patch it with the cover letter, and checkpatch
# --strict every patch. Any checkpatch error, warning or check fails.
# Usage: series.sh [--checkpatch-only] [--json OUT]
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/series-lib.sh"

json=""
while [ $# -gt 0 ]; do
	case $1 in
	--checkpatch-only) shift ;;	# same work; the flag names the caller's intent
	--json) json=${2:?--json needs a file}; shift 2 ;;
	*) die "$E_USAGE" "series.sh: unknown argument '$1'" ;;
	esac
done

repo=$OUT/series-git
dest=$OUT/series
log=$LOGS/series.log
ver=$(cat "$OUT/base/.unpacked" 2>/dev/null) || die "$E_BASE" "no base (run: make base)"
export GIT_AUTHOR_NAME="Unwind Team" GIT_AUTHOR_EMAIL=unwind@example.org
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE="2026-11-30T00:00:00Z" GIT_COMMITTER_DATE="2026-11-30T00:00:00Z"
g() { git -C "$repo" -c core.autocrlf=false -c commit.gpgsign=false "$@"; }

if [ "$(cat "$repo/.git/base-version" 2>/dev/null)" != "$ver" ]; then
	info "making the scratch repository (once per base)"
	rm -rf "$repo"
	cp -a "$BASE_DIR" "$repo"
	{ g init -q -b pristine && g add -A -f && g commit -q -m "Linux $ver (Debian $BASE_PKG)" &&
	  g tag base; } >> "$log" 2>&1 || die "$E_SERIES" "cannot make $repo" "$log"
	echo "$ver" > "$repo/.git/base-version"
fi
g checkout -q -B series base
g clean -qfdx

check_ownership
n=0
for c in $(series_commits); do
	[ -s "$c/message" ] || die "$E_SERIES" "$(basename "$c") has no message"
	apply_commit "$c" "$repo"
	g add -A -f
	g commit -q --allow-empty -F "$c/message" ||
		die "$E_SERIES" "cannot commit $(basename "$c")"
	n=$((n + 1))
done

rm -rf "$dest"
g format-patch -q --cover-letter -o "$dest" base..series > /dev/null
cover=$(ls "$dest"/0000-*.patch)
if [ -s "$TOP/series/cover-letter" ]; then
	python3 - "$cover" "$TOP/series/cover-letter" <<'PY'
import sys
patch, src = sys.argv[1], sys.argv[2]
subject, _, body = open(src).read().partition("\n")
text = open(patch).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", body.strip("\n"))
open(patch, "w").write(text)
PY
fi
grep -q '\*\*\* .* HERE \*\*\*' "$cover" && warn "the cover letter has placeholders (series/cover-letter missing)"
info "exported $n patches to $dest"

# checkpatch every patch (not the cover letter). Its "does MAINTAINERS need
# updating?" heuristic fires on every patch that adds a file; instead of it, each
# added file must be covered by an F: pattern of MAINTAINERS at that commit.
tests=()
bad=0
i=0
for c in $(g rev-list --reverse base..series); do
	i=$((i + 1))
	p=$(ls "$dest"/"$(printf '%04d' $i)"-*.patch)
	# A commit may keep a finding on purpose: series/NNNN-*/checkpatch-ignore
	# holds "TYPE reason" lines, printed here so they stay visible.
	ign=FILE_PATH_CHANGES
	cdir=$(series_commits | sed -n "${i}p")
	if [ -f "$cdir/checkpatch-ignore" ]; then
		while read -r type why; do
			case $type in ''|'#'*) continue ;; esac
			ign="$ign,$type"
			info "$(basename "$cdir"): checkpatch $type kept: $why"
		done < "$cdir/checkpatch-ignore"
	fi
	res=$( (cd "$repo" && perl scripts/checkpatch.pl --strict --show-types \
		--color=never --ignore "$ign" "$p") 2>&1 || true)
	total=$(printf '%s\n' "$res" | grep -E '^total: ' || echo "total: checkpatch failed")
	uncovered=$(g show "$c:MAINTAINERS" | python3 "$TOP/harness/maintainers.py" \
		$(g diff --diff-filter=A --name-only "$c^" "$c") 2>&1 || true)
	if printf '%s\n' "$total" | grep -qE '^total: 0 errors, 0 warnings, (0 checks, )?' &&
	   [ -z "$uncovered" ]; then
		tests+=(--test "checkpatch.$(basename "$p" .patch)=pass")
	else
		bad=$((bad + 1))
		tests+=(--test "checkpatch.$(basename "$p" .patch)=fail")
		printf '%s\n' "---- $(basename "$p"): $total" >&2
		printf '%s\n' "$res" | grep -E '^(ERROR|WARNING|CHECK):' -A3 | head -60 >&2
		[ -z "$uncovered" ] || printf '%s\n' "$uncovered" >&2
	fi
done
info "checkpatch --strict: $((n - bad)) of $n patches clean"
cls=0
[ $bad -eq 0 ] || cls=$E_SERIES
if [ -n "$json" ]; then
	python3 "$TOP/harness/report.py" record --name checkpatch --json "$json" \
		--class "$cls" "${tests[@]}"
fi
exit $cls
