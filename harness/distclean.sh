#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make distclean: remove out/ entirely, unless out/tree holds work that is not
# exported to series/ (FORCE=1 removes it anyway).
. "$(dirname "$0")/lib.sh"
. "$H/series-lib.sh"

if [ -d "$TREE/.git" ] && [ -z "${FORCE:-}" ]; then
	work=$(unexported)
	[ -z "$work" ] || die "$E_USAGE" "out/tree holds work that is not in series/:
$work
  export it with 'make export', or remove everything with 'make distclean FORCE=1'"
fi
rm -rf "$OUT"
echo "removed $OUT"
