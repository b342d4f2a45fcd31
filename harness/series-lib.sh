# SPDX-License-Identifier: GPL-2.0
# Applying one commit of series/ to a tree. Used both to make the tested tree
# (apply.sh) and to export the series (series.sh), so what is tested is what is
# exported. Sourced after lib.sh.

# commit_files COMMIT: the linux/ files the commit introduces, one per line.
commit_files() {
	[ -f "$1/files" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1/files"
}

# diff_targets DIFF: the files a unified diff changes (paths after b/).
diff_targets() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"
}

# apply_commit COMMIT DEST: copy the commit's linux/ files into DEST and apply its
# diff there. Files the diff changes that DEST lacks are first copied from the base.
apply_commit() {
	local c=$1 dest=$2 name f out
	name=$(basename "$c")
	while IFS= read -r f; do
		[ -f "$TOP/linux/$f" ] ||
			die "$E_APPLY" "$name/files lists $f, but linux/$f does not exist"
		[ -e "$BASE_DIR/$f" ] &&
			die "$E_APPLY" "$name introduces $f, which the base already has (use patch.diff)"
		mkdir -p "$dest/$(dirname "$f")"
		cp "$TOP/linux/$f" "$dest/$f"
	done < <(commit_files "$c")

	[ -s "$c/patch.diff" ] || return 0
	while IFS= read -r f; do
		[ -f "$BASE_DIR/$f" ] ||
			die "$E_APPLY" "$name/patch.diff changes $f, which is not a base file"
		if [ ! -e "$dest/$f" ]; then
			mkdir -p "$dest/$(dirname "$f")"
			cp "$BASE_DIR/$f" "$dest/$f"
		fi
	done < <(diff_targets "$c/patch.diff")
	if ! out=$(patch -d "$dest" -p1 --fuzz=0 --batch --no-backup-if-mismatch \
		-i "$c/patch.diff" 2>&1); then
		printf '%s\n' "$out" >&2
		die "$E_APPLY" "$name/patch.diff does not apply (file and hunk above)"
	fi
}

# check_ownership: every file under linux/ is introduced by exactly one commit.
check_ownership() {
	local listed dup orphan
	listed=$(for c in $(series_commits); do commit_files "$c"; done | sort)
	dup=$(printf '%s\n' "$listed" | uniq -d)
	[ -z "$dup" ] || die "$E_APPLY" "introduced by more than one commit: $dup"
	orphan=$(comm -23 <(cd "$TOP/linux" && find . -type f | sed 's|^\./||' | sort) \
		<(printf '%s\n' "$listed" | sed '/^$/d'))
	[ -z "$orphan" ] || die "$E_APPLY" "in linux/ but in no commit's files: $orphan"
}
