#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a configured variant: bzImage, and the UAPI headers the tests use.
# Usage: build.sh VARIANT
. "$(dirname "$0")/lib.sh"

v=${1:?usage: build.sh VARIANT}
arch=$(variant_arch "$v")
src=$(variant_src "$v")
b=$(build_dir "$v")
log=$LOGS/build-$v.log
[ -f "$b/.config" ] || die "$E_BUILD" "$v: not configured (run config.sh $v)"

info "$v: building bzImage (-j$JOBS, log: $log)"
with_build_lock make -C "$src" O="$b" ARCH="$arch" -j"$JOBS" bzImage \
	> "$log" 2>&1 || die "$E_BUILD" "$v: kernel build failed" "$log"
# With W1=1 (make check), the series' own files must build W=1 clean. It costs
# a recompile of those files and a relink, so plain builds skip it.
objs=()
[ -d "$src/kernel/unwind" ] && objs+=(kernel/unwind/)
[ -f "$src/lib/test_unwind_deferred.c" ] && objs+=(lib/test_unwind_deferred.o)
if [ -n "${W1:-}" ] && [ ${#objs[@]} -gt 0 ] && grep -q '^CONFIG_UNWIND_USER=y' "$b/.config"; then
	with_build_lock make -C "$src" O="$b" ARCH="$arch" -j"$JOBS" W=1 "${objs[@]}" \
		> "$log.w1" 2>&1 || die "$E_BUILD" "$v: W=1 build of ${objs[*]} failed" "$log.w1"
	if grep -E 'warning:' "$log.w1" >&2; then
		die "$E_BUILD" "$v: W=1 warnings in the series' files" "$log.w1"
	fi
	info "$v: ${objs[*]} W=1 clean"
fi
with_build_lock make -C "$src" O="$b" ARCH="$arch" INSTALL_HDR_PATH="$b/usr" \
	headers_install >> "$log" 2>&1 || die "$E_BUILD" "$v: headers_install failed" "$log"
info "$v: $(cat "$b/include/config/kernel.release") ($(du -h "$b/arch/x86/boot/bzImage" | cut -f1))"
