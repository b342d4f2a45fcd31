#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Make the patched tree: base + each commit's linux/ files and diff, in series
# order. Only files whose content changed are rewritten, so make's timestamps
# keep incremental builds incremental.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/series-lib.sh"

ver=$(cat "$OUT/base/.unpacked" 2>/dev/null) || die "$E_BASE" "no base (run: make base)"
if [ "$(cat "$TREE/.base-version" 2>/dev/null)" != "$ver" ]; then
	info "copying base into $TREE"
	rm -rf "$TREE"
	cp -a "$BASE_DIR" "$TREE"
	echo "$ver" > "$TREE/.base-version"
	: > "$TREE/.series-files"
fi

check_ownership
stage=$OUT/stage
rm -rf "$stage"
mkdir -p "$stage"
n=0
for c in $(series_commits); do
	apply_commit "$c" "$stage"
	n=$((n + 1))
done

now=$(cd "$stage" && find . -type f | sed 's|^\./||' | sort)
changed=0
for f in $now; do
	if ! cmp -s "$stage/$f" "$TREE/$f"; then
		mkdir -p "$TREE/$(dirname "$f")"
		cp "$stage/$f" "$TREE/$f"
		changed=$((changed + 1))
	fi
done
# Files an earlier run changed that the series no longer does: back to the base.
for f in $(comm -23 "$TREE/.series-files" <(printf '%s\n' "$now")); do
	if [ -f "$BASE_DIR/$f" ]; then
		cp "$BASE_DIR/$f" "$TREE/$f"
	else
		rm -f "$TREE/$f"
	fi
	changed=$((changed + 1))
done
printf '%s\n' "$now" > "$TREE/.series-files"
info "applied $n commits; $changed files updated in $TREE"
