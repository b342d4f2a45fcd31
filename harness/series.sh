#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make series: the series as it is mailed, in out/series: a numbered
# [PATCH nn/NN] per commit of out/tree (which make tree has just made from
# series/) and the cover letter [PATCH 00/NN] from series/cover-letter (first
# line the subject, then a blank line, then the body).
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

[ $# -eq 0 ] || die "$E_USAGE" "usage: series.sh (no arguments)"
"$H/tree.sh"
dest=$OUT/series
rm -rf "$dest"
hgit -C "$TREE" format-patch -q --numbered --cover-letter --no-signature \
	--zero-commit --stat=72 --no-color --diff-algorithm=myers --no-renames \
	-o "$dest" base..HEAD > /dev/null || die "$E_SERIES" "git format-patch failed"
cover=$(ls "$dest"/0000-*.patch)
[ -s "$SERIES/cover-letter" ] || die "$E_SERIES" "series/cover-letter is missing or empty"
python3 - "$cover" "$SERIES/cover-letter" <<'PY'
import sys
patch, src = sys.argv[1], sys.argv[2]
subject, _, body = open(src).read().partition("\n")
text = open(patch).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", body.strip("\n"))
open(patch, "w").write(text)
PY
! grep -q '\*\*\* .* HERE \*\*\*' "$cover" || die "$E_SERIES" "the cover letter still has placeholders"
info "$(ls "$dest" | wc -l) mails in $dest (cover letter: $(basename "$cover"))"
