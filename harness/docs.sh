#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series' documentation builds: Sphinx (make htmldocs) on
# Documentation/trace/ of out/tree, which holds every file the series adds
# or changes there; any warning about one of those files fails.
# Usage: docs.sh [--json OUT]
. "$(dirname "$0")/lib.sh"

json_arg docs.sh "$@"
command -v sphinx-build > /dev/null || die "$E_DEPENDENCIES" "no sphinx-build (make deps)"
mapfile -t docs < <(hgit -C "$TREE" diff --name-only base HEAD -- Documentation)
b=$OUT/docs-build
log=$LOGS/docs.log
rc=0
make -C "$TREE" O="$b" SPHINXDIRS=trace htmldocs > "$log" 2>&1 || rc=$?
bad=()
for d in "${docs[@]}"; do
	case $d in
	Documentation/trace/*) grep -E "/$d(:[0-9]+)?: (WARNING|ERROR|CRITICAL)" "$log" >&2 && bad+=("$d") ;;
	*) bad+=("$d (outside Documentation/trace: not built here)") ;;
	esac
done
status=pass
if [ $rc -ne 0 ] || [ ${#bad[@]} -gt 0 ] || [ ${#docs[@]} -eq 0 ]; then
	status=fail
	warn "htmldocs (exit $rc): ${bad[*]:-no documentation in the series} (log: $log)"
else
	info "htmldocs: ${docs[*]} build without warnings"
fi
[ -z "$json" ] || python3 "$H/report.py" record --name docs --json "$json" \
	--test "docs.htmldocs=$status"
[ $status = pass ] || exit "$E_BUILD"
