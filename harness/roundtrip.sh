#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The round trip: series/*.patch apply with git am on the pristine base (in the
# scratch worktree out/am, never in out/tree), and exporting the result again
# reproduces series/ byte for byte. A patch edited by hand so that it no
# longer applies, or so that it is no longer what its commit exports to,
# fails here. Where out/tree is what git am made of series/ as it is now
# (tree.sh records it: a clean clone's run), that is the applied result,
# exported without applying the patches a second time.
# Usage: roundtrip.sh [--json FILE]
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

json=""
while [ $# -gt 0 ]; do
	case $1 in
	--json) json=${2:?--json needs a file}; shift 2 ;;
	*) die "$E_USAGE" "usage: roundtrip.sh [--json FILE]" ;;
	esac
done

# result APPLY ROUNDTRIP CLASS: record the two tests, exit with CLASS.
result() {
	[ -z "$json" ] || python3 "$H/report.py" record --name series --json "$json" \
		--class "$3" --test "series.git-am=$1" --test "series.roundtrip=$2"
	exit "$3"
}

[ -d "$TREE/.git" ] || die "$E_SERIES" "no out/tree (run: make tree)"
repo=$AM
if [ "$(state_get made)" = am ] && [ "$(state_get series)" = "$(series_hash)" ] &&
   [ "$(state_get commit)" = "$(hgit -C "$TREE" rev-parse HEAD)" ] && [ -z "$(unexported)" ]; then
	repo=$TREE
	info "round trip: out/tree is git am's result of series/ as it is"
else
	if [ ! -e "$AM/.git" ]; then
		hgit -C "$TREE" worktree prune
		hgit -C "$TREE" worktree add -q --detach "$AM" base > "$LOGS/tree-am.log" 2>&1 ||
			die "$E_SERIES" "cannot add the scratch worktree $AM" "$LOGS/tree-am.log"
	fi
	rc=0
	(am_apply "$AM") || rc=$?
	[ $rc -eq 0 ] || result fail fail "$rc"
fi
n=$(hgit -C "$repo" rev-list --count base..HEAD)
tmp=$OUT/roundtrip
export_patches "$repo" "$tmp"
if diff -r -x cover-letter -x checkpatch-ignore "$SERIES" "$tmp" > "$LOGS/roundtrip.diff"; then
	info "round trip: $n patches apply with git am and export to series/ byte for byte"
	result pass pass 0
fi
warn "round trip: the export of the applied patches differs from series/ (diff: $LOGS/roundtrip.diff)"
head -n 30 "$LOGS/roundtrip.diff" >&2
result pass fail "$E_SERIES"
