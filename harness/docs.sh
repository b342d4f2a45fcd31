#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series' documentation builds: Sphinx (make htmldocs) on the books of
# Documentation/ of out/tree that hold a file the series adds or changes
# (trace/, and admin-guide/ for kernel-parameters.txt); any warning about
# one of those files fails.
# Usage: docs.sh [--json OUT]
. "$(dirname "$0")/lib.sh"

json_arg docs.sh "$@"
command -v sphinx-build > /dev/null || die "$E_DEPENDENCIES" "no sphinx-build (make deps)"
mapfile -t docs < <(hgit -C "$TREE" diff --name-only base HEAD -- Documentation)
mapfile -t books < <(printf '%s\n' "${docs[@]}" | sed -n 's|^Documentation/\([^/]*\)/.*|\1|p' | sort -u)
b=$OUT/docs-build
log=$LOGS/docs.log
rc=0
make -C "$TREE" O="$b" SPHINXDIRS="${books[*]}" htmldocs > "$log" 2>&1 || rc=$?
bad=()
for d in "${docs[@]}"; do
	case $d in
	Documentation/*/*) grep -E "/$d(:[0-9]+)?: (WARNING|ERROR|CRITICAL)" "$log" >&2 && bad+=("$d") ;;
	*) bad+=("$d (not in a book of Documentation/: not built here)") ;;
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
