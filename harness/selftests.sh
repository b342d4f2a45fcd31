#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the series' selftests from the patched tree (static, against the guest
# kernel's UAPI headers) and install them for the initramfs. For a cross
# variant (arm64) only the unwind programs that apply there, with clang for
# its architecture, into out/kselftest-VARIANT, and ftrace's suite.
# Usage: selftests.sh VARIANT
. "$(dirname "$0")/lib.sh"

v=${1:-guest}
b=$(build_dir "$v")
dest=$(kselftest_dir "$v")
log=$LOGS/selftests.log
cross=()
targets="unwind perf_events"
if [ "$(variant "$v" runs)" = cross ]; then
	log=$LOGS/selftests-$v.log
	case $(variant "$v" arch) in
	arm64) cross=(CC="clang --target=aarch64-linux-gnu -fuse-ld=lld" ARCH=arm64) ;;
	*) die "$E_USAGE" "selftests.sh: no cross compiler for $(variant "$v" arch)" ;;
	esac
	targets=unwind
fi
[ -d "$b/usr/include" ] || die "$E_BUILD" "no UAPI headers in $b/usr (build $v first)"
[ -d "$TREE/tools/testing/selftests/unwind" ] || {
	warn "the series has no tools/testing/selftests/unwind yet"
	rm -rf "$dest"; mkdir -p "$dest"; : > "$dest/kselftest-list.txt"; exit 0
}
rm -rf "$dest"
# ftrace's own suite comes along for the series' test cases in it
# (guest-run.sh runs those, not the whole suite); perf_events' selftests,
# which nobody here wrote, run on the base kernel and on the series'
# (make check compares them).
[ -f "$TREE/tools/testing/selftests/ftrace/unwind_chain.c" ] && targets="$targets ftrace"
make -C "$TREE/tools/testing/selftests" TARGETS="$targets" "${cross[@]}" \
	O="$OUT/selftests-build${cross:+-$v}" \
	KHDR_INCLUDES="-isystem $b/usr/include" INSTALL_PATH="$dest" install \
	> "$log" 2>&1 || die "$E_BUILD" "selftests build failed" "$log"
# The selftests' top-level install goes on past a target that failed to
# build and still exits 0: any failed make step, or a target not installed,
# fails here.
if grep -q '^make\[[0-9]*\]: \*\*\*' "$log"; then
	die "$E_BUILD" "selftests build failed" "$log"
fi
for t in $targets; do
	[ -d "$dest/$t" ] || die "$E_BUILD" "selftests: $t not installed" "$log"
done
n=$(grep -c . "$dest/kselftest-list.txt" || true)
info "selftests: $n programs installed in $dest"
