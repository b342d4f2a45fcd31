#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series' own objects, built with Debian's config of the base's version
# (package linux-config-6.12; for arm64 the arm64 package's, fetched by
# arm64-debs.sh): olddefconfig on the series' tree, the test module and the
# KUnit suites as modules, CONFIG_UNWIND_USER=y checked to come from the
# architecture's select (nothing here sets it); make prepare, then every
# object of a .c file the series adds or changes that the config builds
# (another architecture's files left out), and the entry code, with W=1,
# and sparse (C=2) on the files the series adds. A warning or a sparse
# report in any of them fails. arm64 is built with clang (LLVM=1).
#
# Usage: distro-objs.sh [--arch arm64] [--json OUT]
. "$(dirname "$0")/lib.sh"

arch=x86_64
if [ "${1:-}" = --arch ]; then
	arch=${2:?--arch needs x86_64 or arm64}
	shift 2
fi
json_arg distro-objs.sh "$@"
name=distro-objs
case $arch in
x86_64)
	cfg=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
	[ -f "$cfg" ] || die "$E_DEPENDENCIES" "no $cfg (make deps: linux-config-6.12)"
	kargs=(ARCH=x86_64)
	srcarch=x86
	entry=kernel/entry/common.o
	b=$TREE/build-debian
	want_opts=(CONFIG_UNWIND_USER_SFRAME=y CONFIG_SFRAME_KUNIT_TEST=m)
	;;
arm64)
	cfg=$("$H/arm64-debs.sh" config) || exit
	kargs=(ARCH=arm64 LLVM=1)
	srcarch=arm64
	entry=arch/arm64/kernel/entry-common.o
	b=$TREE/build-debian-arm64
	want_opts=()
	name=distro-objs-arm64
	;;
*) die "$E_USAGE" "usage: distro-objs.sh [--arch arm64] [--json OUT]" ;;
esac
# record_result STATUS: the one result of this step, for make check.
record_result() {
	[ -z "$json" ] || python3 "$H/report.py" record --name "$name" --json "$json" \
		--test "${name/distro-objs/distro.objs}=$1"
}
command -v sparse > /dev/null || die "$E_DEPENDENCIES" "no sparse (make deps)"
[ -d "$TREE/.git" ] || die "$E_BASE_TREE" "no out/tree (run: make tree)"

log=$LOGS/$name.log
mkdir -p "$b"
: > "$log"
# Debian's config, with what a build outside Debian's packaging needs
# (no Debian signing keys) and the series' test code as modules.
k=$b.kconfig
rm -rf "$k"
mkdir -p "$k"
xzcat "$cfg" > "$k/.config"
"$TREE/scripts/config" --file "$k/.config" \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
	--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
	-m KUNIT -m UNWIND_USER_KUNIT_TEST -m UNWIND_DEFERRED_KUNIT_TEST -m SFRAME_KUNIT_TEST \
	-m TEST_UNWIND_DEFERRED >> "$log" 2>&1
make -C "$TREE" O="$k" "${kargs[@]}" olddefconfig >> "$log" 2>&1 ||
	die "$E_CONFIG" "debian ($arch): olddefconfig failed" "$log"
bad=()
for want in CONFIG_UNWIND_USER=y CONFIG_HAVE_UNWIND_USER_FP=y CONFIG_TEST_UNWIND_DEFERRED=m \
	    CONFIG_UNWIND_USER_KUNIT_TEST=m CONFIG_UNWIND_DEFERRED_KUNIT_TEST=m "${want_opts[@]}"; do
	grep -qx "$want" "$k/.config" || bad+=("$want")
done
[ ${#bad[@]} -eq 0 ] || { record_result fail; die "$E_CONFIG" "debian ($arch): not in .config: ${bad[*]}"; }
# Only a changed config touches the build folder.
cmp -s "$k/.config" "$b/.config" || cp "$k/.config" "$b/.config"
info "debian ($arch): $(basename "$cfg" .xz), UNWIND_USER=y from the arch's select"

mapfile -t changed < <(series_c_files "$b" "$srcarch")
mapfile -t added < <(series_c_files "$b" "$srcarch" --diff-filter=A)
objs=("$entry")
for f in "${changed[@]}"; do objs+=("${f%.c}.o"); done
# The vDSO images (64-bit, 32-bit and x32 in Debian's config), when the
# series changes how they are built.
if [ "$srcarch" = x86 ] && [ -n "$(hgit -C "$TREE" diff --name-only base HEAD -- arch/x86/entry/vdso)" ]; then
	objs+=(arch/x86/entry/vdso/)
fi
new=()
for f in "${added[@]}"; do new+=("${f%.c}.o"); done

phase_t=$(date +%s)
with_build_lock make -C "$TREE" O="$b" "${kargs[@]}" -j"$JOBS" prepare >> "$log" 2>&1 ||
	{ record_result fail; die "$E_BUILD" "debian ($arch): make prepare failed" "$log"; }
w1=$LOGS/$name-w1.log
with_build_lock make -C "$TREE" O="$b" "${kargs[@]}" -j"$JOBS" W=1 "${objs[@]}" > "$w1" 2>&1 ||
	{ record_result fail; die "$E_BUILD" "debian ($arch): W=1 build of the series' objects failed" "$w1"; }
sp=$LOGS/$name-sparse.log
with_build_lock make -C "$TREE" O="$b" "${kargs[@]}" -j"$JOBS" C=2 "${new[@]}" > "$sp" 2>&1 ||
	{ record_result fail; die "$E_BUILD" "debian ($arch): sparse build failed" "$sp"; }
status=pass
# Host tools rebuilt for W=1 (scripts/: genksyms' bison conflicts) are not
# the series' code.
if grep -E 'warning:|error:' "$w1" | grep -v -e '^\.\./scripts/' -e '^scripts/' >&2; then
	status=fail
	warn "debian ($arch): W=1 warnings in the series' objects (log: $w1)"
fi
# sparse reports name the file: any report about a file of the series. (On
# arm64, make prepare rebuilds the base's vDSO under C=2 too, whose reports
# are not the series'.)
if hgit -C "$TREE" diff --name-only base HEAD |
	awk 'NR == FNR { mine[$0] = 1; next }
	     /(warning|error):/ { f = $0; sub(/:.*/, "", f); sub(/^(\.\.\/)+/, "", f); if (f in mine) { print; n++ } }
	     END { exit !n }' - "$sp" >&2; then
	status=fail
	warn "debian ($arch): sparse reports in the series' new files (log: $sp)"
fi
record_result $status
[ $status = pass ] || exit "$E_BUILD"
info "debian ($arch): ${#objs[@]} objects W=1 clean, sparse clean on ${#new[@]} new files ($(( $(date +%s) - phase_t ))s)"
