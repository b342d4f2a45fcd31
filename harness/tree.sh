#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make tree: out/tree is a git repository whose first commit is the pristine
# base (tag "base") and whose branch "series" is series/*.patch applied with
# git am. Incremental: when series/ did not change nothing is touched; when it
# did, the patches are applied in a scratch worktree (out/am) and out/tree
# checks the result out, which rewrites only the files whose content changed.
#
# It never throws work away: while out/tree holds commits or changes that are
# not in series/, it stops and says which. Export them with `make export`, or
# discard them with `make tree FORCE=1`.
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

[ $# -eq 0 ] || die "$E_USAGE" "usage: tree.sh (no arguments; FORCE=1 discards unexported work in out/tree)"
ver=$(base_version)
want=$(series_hash)

# make_base: a fresh out/tree holding the pristine base as its first commit.
make_base() {
	local log=$LOGS/tree-base.log
	info "making $TREE: the base as the first commit (once per base version)"
	rm -rf "$TREE" "$AM"
	cp -a "$BASE_DIR" "$TREE"
	{
		hgit -C "$TREE" init -q -b series &&
		hgit -C "$TREE" add -A -f &&
		GIT_AUTHOR_DATE="$SERIES_DATE" GIT_COMMITTER_DATE="$SERIES_DATE" \
			hgit -C "$TREE" commit -q -m "Linux $ver (Debian $BASE_PKG)" &&
		hgit -C "$TREE" tag base
	} > "$log" 2>&1 || die "$E_APPLY" "cannot make the git repository $TREE" "$log"
	state_set "$ver" "" "$(hgit -C "$TREE" rev-parse base)"
}

if [ ! -d "$TREE/.git" ] || [ "$(state_get base)" != "$ver" ] ||
   ! hgit -C "$TREE" rev-parse -q --verify base > /dev/null; then
	if [ -d "$TREE/.git" ] && [ -n "$(unexported)" ] && [ -z "${FORCE:-}" ]; then
		die "$E_APPLY" "out/tree is for another base, but holds work that is not exported:
$(unexported)
  export it with 'make export' first, or discard it with 'make tree FORCE=1'"
	fi
	make_base
	printf '/build-*/\n/build-*.kconfig/\n' >> "$TREE/.git/info/exclude"
	hgit -C "$TREE" checkout -q -B series base
	info "applying $(series_patches | wc -l) patches with git am"
	am_apply "$TREE"
	hgit -C "$TREE" checkout -q -B series
	state_set "$ver" "$want" "$(hgit -C "$TREE" rev-parse HEAD)" am
	info "out/tree: base + $(hgit -C "$TREE" rev-list --count base..HEAD) commits"
	exit 0
fi

# The kernel build folders live in the trees (see build_dir in lib.sh): not
# work of anyone's.
grep -qxF '/build-*/' "$TREE/.git/info/exclude" 2> /dev/null ||
	printf '/build-*/\n/build-*.kconfig/\n' >> "$TREE/.git/info/exclude"

work=$(unexported)
if [ "$(state_get series)" = "$want" ] && [ -z "$work" ]; then
	info "out/tree is up to date with series/ ($(hgit -C "$TREE" rev-list --count base..HEAD) commits)"
	exit 0
fi
if [ -n "$work" ]; then
	if [ -z "${FORCE:-}" ]; then
		die "$E_APPLY" "out/tree holds work that is not in series/:
$work
  export it with 'make export' (then commit series/), or discard it with
  'make tree FORCE=1' (its commits stay reachable in out/tree's reflog)"
	fi
	warn "FORCE=1: discarding what out/tree holds that series/ does not:"
	printf '%s\n' "$work" >&2
fi

# series/ changed: apply it in the scratch worktree, then move out/tree there.
if [ ! -e "$AM/.git" ]; then
	hgit -C "$TREE" worktree prune
	hgit -C "$TREE" worktree add -q --detach "$AM" base > "$LOGS/tree-am.log" 2>&1 ||
		die "$E_APPLY" "cannot add the scratch worktree $AM" "$LOGS/tree-am.log"
fi
am_apply "$AM"
new=$(hgit -C "$AM" rev-parse HEAD)
old=$(hgit -C "$TREE" rev-parse HEAD)
hgit -C "$TREE" reset -q --hard
hgit -C "$TREE" clean -qfd
hgit -C "$TREE" checkout -q -f -B series "$new"
state_set "$ver" "$want" "$new" am
info "out/tree: base + $(hgit -C "$TREE" rev-list --count base..HEAD) commits;" \
	"$(hgit -C "$TREE" diff --name-only "$old" "$new" | wc -l) files changed"
