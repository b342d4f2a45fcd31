#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The series' own objects, built with Debian's amd64 config of the base's
# version (package linux-config-6.12): olddefconfig on the series' tree, the
# test module and the KUnit suites as modules, CONFIG_UNWIND_USER=y checked
# to come from the architecture's select (nothing here sets it); make
# prepare, then every object of a .c file the series adds or changes, and the
# entry code, with W=1, and sparse (C=2) on the files the series adds. A
# warning or a sparse report in any of them fails.
#
# Usage: distro-objs.sh [--json OUT]
. "$(dirname "$0")/lib.sh"

json_arg distro-objs.sh "$@"
# record_result STATUS: the one result of this step, for make check.
record_result() {
	[ -z "$json" ] || python3 "$H/report.py" record --name distro-objs --json "$json" \
		--test "distro.objs=$1"
}
cfg=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
[ -f "$cfg" ] || die "$E_DEPENDENCIES" "no $cfg (make deps: linux-config-6.12)"
command -v sparse > /dev/null || die "$E_DEPENDENCIES" "no sparse (make deps)"
[ -d "$TREE/.git" ] || die "$E_BASE_TREE" "no out/tree (run: make tree)"

b=$TREE/build-debian
log=$LOGS/distro-objs.log
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
make -C "$TREE" O="$k" ARCH=x86_64 olddefconfig >> "$log" 2>&1 ||
	die "$E_CONFIG" "debian: olddefconfig failed" "$log"
bad=()
for want in CONFIG_UNWIND_USER=y CONFIG_HAVE_UNWIND_USER_FP=y CONFIG_UNWIND_USER_SFRAME=y \
	    CONFIG_TEST_UNWIND_DEFERRED=m \
	    CONFIG_UNWIND_USER_KUNIT_TEST=m CONFIG_UNWIND_DEFERRED_KUNIT_TEST=m \
	    CONFIG_SFRAME_KUNIT_TEST=m; do
	grep -qx "$want" "$k/.config" || bad+=("$want")
done
[ ${#bad[@]} -eq 0 ] || { record_result fail; die "$E_CONFIG" "debian: not in .config: ${bad[*]}"; }
# Only a changed config touches the build folder.
cmp -s "$k/.config" "$b/.config" || cp "$k/.config" "$b/.config"
info "debian: $(basename "$cfg" .xz), UNWIND_USER=y from the arch's select"

mapfile -t changed < <(hgit -C "$TREE" diff --name-only base HEAD -- '*.c' |
	grep -v -e '^tools/' -e '^samples/' -e '^scripts/')
mapfile -t added < <(hgit -C "$TREE" diff --name-only --diff-filter=A base HEAD -- '*.c' |
	grep -v -e '^tools/' -e '^samples/' -e '^scripts/')
objs=(kernel/entry/common.o)
for f in "${changed[@]}"; do objs+=("${f%.c}.o"); done
# The vDSO images (64-bit, 32-bit and x32 in Debian's config), when the
# series changes how they are built.
if [ -n "$(hgit -C "$TREE" diff --name-only base HEAD -- arch/x86/entry/vdso)" ]; then
	objs+=(arch/x86/entry/vdso/)
fi
new=()
for f in "${added[@]}"; do new+=("${f%.c}.o"); done

phase_t=$(date +%s)
with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" prepare >> "$log" 2>&1 ||
	{ record_result fail; die "$E_BUILD" "debian: make prepare failed" "$log"; }
w1=$LOGS/distro-objs-w1.log
with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" W=1 "${objs[@]}" > "$w1" 2>&1 ||
	{ record_result fail; die "$E_BUILD" "debian: W=1 build of the series' objects failed" "$w1"; }
sp=$LOGS/distro-objs-sparse.log
with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" C=2 "${new[@]}" > "$sp" 2>&1 ||
	{ record_result fail; die "$E_BUILD" "debian: sparse build failed" "$sp"; }
status=pass
# Host tools rebuilt for W=1 (scripts/: genksyms' bison conflicts) are not
# the series' code.
if grep -E 'warning:|error:' "$w1" | grep -v -e '^\.\./scripts/' -e '^scripts/' >&2; then
	status=fail
	warn "debian: W=1 warnings in the series' objects (log: $w1)"
fi
# sparse reports name the file: any line about a new file, or a warning.
if grep -E 'warning:|error:' "$sp" >&2; then
	status=fail
	warn "debian: sparse reports in the series' new files (log: $sp)"
fi
record_result $status
[ $status = pass ] || exit "$E_BUILD"
info "debian: ${#objs[@]} objects W=1 clean, sparse clean on ${#new[@]} new files ($(( $(date +%s) - phase_t ))s)"
