#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make export: write the commits base..HEAD of out/tree back to series/ as
# git format-patch output, one patch per commit, and series/series, their
# order. The same commits give byte-identical files (see export_patches), and
# only files whose content changed are rewritten, so an export of an
# unchanged branch changes no file. series/cover-letter and
# series/checkpatch-ignore are sources, never written.
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

[ $# -eq 0 ] || die "$E_USAGE" "usage: export.sh (no arguments)"
[ -d "$TREE/.git" ] || die "$E_SERIES" "no out/tree to export (run: make tree)"
ver=$(base_version)
changes=$(hgit -C "$TREE" status --porcelain --untracked-files=normal | head -n 20)
[ -z "$changes" ] || die "$E_SERIES" "out/tree has uncommitted changes; commit them (or stash them) first:
$(printf '%s\n' "$changes" | sed 's/^/    /')"
n=$(hgit -C "$TREE" rev-list --count base..HEAD)
[ "$n" -gt 0 ] || die "$E_SERIES" "out/tree has no commits on top of base"

tmp=$OUT/export.tmp
export_patches "$TREE" "$tmp"
mkdir -p "$SERIES"
changed=0
for f in $(cd "$tmp" && ls -1); do
	if ! cmp -s "$tmp/$f" "$SERIES/$f"; then
		cp "$tmp/$f" "$SERIES/$f"
		changed=$((changed + 1))
		info "wrote series/$f"
	fi
done
for f in $(cd "$SERIES" && ls -1 -- *.patch 2>/dev/null || true); do
	if [ ! -e "$tmp/$f" ]; then
		rm -f "$SERIES/$f"
		changed=$((changed + 1))
		info "removed series/$f"
	fi
done
rm -rf "$tmp"
state_set "$ver" "$(series_hash)" "$(hgit -C "$TREE" rev-parse HEAD)"
info "exported $n commits to series/ ($changed files changed)"
