#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bisect: every commit of the series builds. Each commit of out/tree's
# branch (after make tree) is checked out in a worktree of its own
# (out/bisect-tree) and built with the guest variant's config.sh and build.sh,
# incrementally in one build folder; perf is built after each commit that
# changes tools/ outside the selftests. Options an earlier commit's Kconfig
# cannot set yet are listed, not fatal; the last commit must have them all.
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

usage="usage: bisect.sh (no arguments; BISECT_FROM=N starts at commit N)"
[ $# -eq 0 ] || die "$E_USAGE" "$usage"
from=${BISECT_FROM:-1}
[[ $from =~ ^[1-9][0-9]*$ ]] || die "$E_USAGE" "BISECT_FROM: '$from' is not a commit number; $usage"
"$H/tree.sh"
wt=$OUT/bisect-tree
b=$wt/build-bisect
mapfile -t commits < <(hgit -C "$TREE" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "$E_SERIES" "the series is empty"
[ "$from" -le ${#commits[@]} ] ||
	die "$E_USAGE" "BISECT_FROM=$from: the series has ${#commits[@]} commits"
if [ ! -e "$wt/.git" ]; then
	hgit -C "$TREE" worktree prune
	hgit -C "$TREE" worktree add -q --detach "$wt" base > "$LOGS/bisect-tree.log" 2>&1 ||
		die "$E_BUILD" "cannot add the worktree $wt" "$LOGS/bisect-tree.log"
fi
t0=$(date +%s)
i=0
for c in "${commits[@]}"; do
	i=$((i + 1))
	[ $i -ge "$from" ] || continue
	subj=$(hgit -C "$TREE" log -1 --format=%s "$c")
	phase "bisect $i/${#commits[@]}: $subj"
	hgit -C "$wt" checkout -q -f --detach "$c"
	partial=(--partial)
	[ $i -eq ${#commits[@]} ] && partial=()
	"$H/config.sh" guest --src "$wt" --build "$b" "${partial[@]}" ||
		die "$E_CONFIG" "commit $i ($subj): config failed"
	"$H/build.sh" guest --src "$wt" --build "$b" ||
		die "$E_BUILD" "commit $i ($subj) does not build"
	[ -n "$(hgit -C "$wt" diff --name-only "$c^" "$c" -- tools ':!tools/testing')" ] ||
		continue
	PERF_TREE=$wt PERF_BUILD=$(build_dir perf-bisect) PERF_LOG=$LOGS/bisect-$i-perf.log \
		"$H/perf.sh" > /dev/null ||
		die "$E_BUILD" "commit $i ($subj): perf does not build" "$LOGS/bisect-$i-perf.log"
done
phase_end
info "commits $from to $i of $i build ($(( $(date +%s) - t0 ))s)"
