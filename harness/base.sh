#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the base tree once into the cache; the cached copy is never modified.
. "$(dirname "$0")/lib.sh"

tarball=/usr/src/linux-source-6.12.tar.xz
stamp=$OUT/base/.unpacked
ver=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$ver" ] && [ -f "$BASE_DIR/Makefile" ]; then
	info "base $BASE_PKG $ver already unpacked"
	exit 0
fi
[ -f "$tarball" ] || die "$E_BASE_TREE" "$tarball missing (run: make deps)"
[ "$ver" = "$BASE_PIN" ] ||
	warn "base is $BASE_PKG $ver, not the tested $BASE_PIN"

rm -rf "$OUT/base"
mkdir -p "$OUT/base"
info "unpacking $tarball"
tar -C "$OUT/base" -xf "$tarball" || die "$E_BASE_TREE" "cannot unpack $tarball"
[ -f "$BASE_DIR/Makefile" ] || die "$E_BASE_TREE" "$tarball has no linux-source-6.12/"
echo "$ver" > "$stamp"
info "base: $(make -s -C "$BASE_DIR" kernelversion) from $BASE_PKG $ver"
