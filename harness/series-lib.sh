# SPDX-License-Identifier: GPL-2.0
# The series as a patch stack: series/NNNN-*.patch (git format-patch output),
# series/series (their order, in quilt's format), series/cover-letter and
# series/checkpatch-ignore. Helpers shared by tree.sh, export.sh, roundtrip.sh,
# series.sh and checkpatch.sh. Sourced after lib.sh.

SERIES=$TOP/series
# The scratch worktree of out/tree where patches are applied with git am
# before out/tree itself moves (so out/tree's unchanged files keep their
# timestamps), and where the round trip runs.
AM=$OUT/am
# What out/tree was last made from or exported to: the base version, a hash of
# series/ and the commit that matched it.
STATE=$TREE/.git/unwind-state

# series_patches: the patch files in series order, one path per line. The
# order file must name exactly the patches present.
series_patches() {
	local listed present
	[ -f "$SERIES/series" ] || die "$E_APPLY" "series/series (the order file) is missing"
	listed=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES/series")
	present=$(cd "$SERIES" && ls -1 -- *.patch 2>/dev/null | sort || true)
	if [ "$(printf '%s\n' "$listed" | sort)" != "$present" ]; then
		die "$E_APPLY" "series/series does not list exactly the patches in series/:
$(diff <(printf '%s\n' "$listed" | sort) <(printf '%s\n' "$present") | sed -n 's/^</    listed, missing:/p; s/^>/    present, not listed:/p')"
	fi
	printf '%s\n' "$listed" | sed "s|^|$SERIES/|"
}

# series_hash: identifies the content of the patch stack.
series_hash() {
	cat "$SERIES/series" $(series_patches) | sha256sum | cut -d' ' -f1
}

base_version() {
	cat "$OUT/base/.unpacked" 2>/dev/null || die "$E_BASE_TREE" "no base (run: make base)"
}

# state_get FIELD / state_set BASE HASH COMMIT [MADE]: the record in $STATE.
# MADE is "am" where COMMIT is what git am made of series/ (tree.sh), empty
# where series/ was exported from COMMIT (export.sh).
state_get() {
	[ -f "$STATE" ] || return 0
	sed -n "s/^$1=//p" "$STATE"
}

state_set() {
	printf 'base=%s\nseries=%s\ncommit=%s\nmade=%s\n' "$1" "$2" "$3" "${4:-}" > "$STATE.tmp"
	mv "$STATE.tmp" "$STATE"
}

# unexported: describe what out/tree holds that series/ does not, if anything.
unexported() {
	local rec head changes
	rec=$(state_get commit)
	head=$(hgit -C "$TREE" rev-parse -q --verify HEAD || true)
	changes=$(hgit -C "$TREE" status --porcelain --untracked-files=normal | head -n 20)
	if [ -n "$changes" ]; then
		printf '  uncommitted changes in out/tree:\n%s\n' "$(printf '%s\n' "$changes" | sed 's/^/    /')"
	fi
	if [ -n "$rec" ] && [ "$head" != "$rec" ]; then
		if hgit -C "$TREE" merge-base --is-ancestor "$rec" "$head" 2> /dev/null; then
			printf '  commits not exported:\n%s\n' \
				"$(hgit -C "$TREE" log --oneline "$rec..$head" | sed 's/^/    /')"
		else
			printf '  HEAD (%s) is not the last exported or applied commit (%s):\n%s\n' \
				"$(hgit -C "$TREE" rev-parse --short HEAD)" "$(hgit -C "$TREE" rev-parse --short "$rec")" \
				"$(hgit -C "$TREE" log --oneline base..HEAD | sed 's/^/    /')"
		fi
	fi
}

# am_apply REPO: apply series/ with git am on a clean checkout of base in REPO
# (out/tree itself, or the scratch worktree). Dies naming the patch that fails.
am_apply() {
	local repo=$1 log=$LOGS/git-am.log p
	hgit -C "$repo" am --abort > /dev/null 2>&1 || true
	hgit -C "$repo" checkout -q -f --detach base
	hgit -C "$repo" clean -qfdx
	: > "$log"
	for p in $(series_patches); do
		if ! hgit -C "$repo" am -q --committer-date-is-author-date "$p" >> "$log" 2>&1; then
			hgit -C "$repo" am --abort > /dev/null 2>&1 || true
			# git am's hints (--continue, --skip) do not apply here: it was aborted.
			grep -E '^(error|fatal|Patch failed|warning)' "$log" > "$log.err" || cp "$log" "$log.err"
			die "$E_APPLY" "series/$(basename "$p") does not apply with git am on $(hgit -C "$repo" rev-parse --short HEAD)" "$log.err"
		fi
	done
}

# export_patches REPO DEST [REV]: git format-patch base..REV (HEAD) of REPO into DEST
# (emptied first) with everything that varies from run to run or machine to
# machine fixed: no signature, no commit ids, full blob ids, the team's author
# line and date, the harness's diff settings. Writes DEST/series too.
export_patches() {
	local repo=$1 dest=$2 rev=${3:-HEAD} p
	[ -z "$(git -C "$repo" rev-list --merges "base..$rev")" ] ||
		die "$E_SERIES" "base..$rev of $repo has merge commits; the series must be linear"
	rm -rf "$dest"
	mkdir -p "$dest"
	hgit -C "$repo" format-patch -q --no-signature --zero-commit --full-index \
		--keep-subject --no-thread --stat=72 --no-color --diff-algorithm=myers \
		--no-renames -o "$dest" "base..$rev" > /dev/null ||
		die "$E_SERIES" "git format-patch failed in $repo"
	for p in "$dest"/*.patch; do
		[ -e "$p" ] || continue
		# The first header lines: the author and date are the team's.
		sed -i -e "1,/^\$/{s/^From: .*/From: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>/;s/^Date: .*/Date: $SERIES_DATE/}" "$p"
	done
	(cd "$dest" && ls -1 -- *.patch 2>/dev/null || true) > "$dest/series"
}
