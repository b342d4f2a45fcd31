#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bisect check: build the guest kernel after each commit of the series,
# from the exported series' git repository (what `make series` produced), and
# the static perf tool after each commit that changes tools/ outside the
# selftests.
. "$(dirname "$0")/lib.sh"

repo=$OUT/series-git
b=$OUT/build/bisect
"$TOP/harness/series.sh" > /dev/null || true	# checkpatch is not this target's job
[ -d "$repo/.git" ] || die "$E_SERIES" "no exported series (make series)"
commits=$(git -C "$repo" rev-list --reverse base..series)
[ -n "$commits" ] || die "$E_SERIES" "the series is empty"
mkdir -p "$b"
i=0
for c in $commits; do
	i=$((i + 1))
	subj=$(git -C "$repo" log -1 --format=%s "$c")
	phase "bisect $i: $subj"
	git -C "$repo" checkout -q "$c"
	log=$LOGS/bisect-$i.log
	{
		make -C "$repo" O="$b" ARCH=x86_64 tinyconfig &&
		"$repo/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" \
			"$TOP/configs/guest.config" "$TOP/configs/x86_64.config" \
			"$TOP/configs/unwind.config" &&
		make -C "$repo" O="$b" ARCH=x86_64 olddefconfig &&
		with_build_lock make -C "$repo" O="$b" ARCH=x86_64 -j"$JOBS" bzImage
	} > "$log" 2>&1 || die "$E_BUILD" "commit $i ($subj) does not build" "$log"
	[ -n "$(git -C "$repo" diff --name-only "$c^" "$c" -- tools ':!tools/testing')" ] ||
		continue
	PERF_TREE=$repo PERF_BUILD=$(build_dir perf-bisect) PERF_LOG=$LOGS/bisect-$i-perf.log \
		"$TOP/harness/perf.sh" > /dev/null ||
		die "$E_BUILD" "commit $i ($subj): perf does not build" "$LOGS/bisect-$i-perf.log"
done
phase_end
git -C "$repo" checkout -q series
info "all $i commits build"
