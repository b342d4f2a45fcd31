#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a configured variant: bzImage, and the UAPI headers the tests use.
# Usage: build.sh VARIANT
. "$(dirname "$0")/lib.sh"

v=${1:?usage: build.sh VARIANT}
arch=$(variant_arch "$v")
b=$(build_dir "$v")
log=$LOGS/build-$v.log
[ -f "$b/.config" ] || die "$E_BUILD" "$v: not configured (run config.sh $v)"

info "$v: building bzImage (-j$JOBS, log: $log)"
with_build_lock make -C "$TREE" O="$b" ARCH="$arch" -j"$JOBS" W=1 bzImage \
	> "$log" 2>&1 || die "$E_BUILD" "$v: kernel build failed" "$log"
# New warnings in the series' own files fail the build (W=1 clean).
if grep -E '^[^ ]*(kernel/unwind/|unwind_user|unwind_deferred|test_unwind_deferred)[^ ]*: warning:' "$log" >&2; then
	die "$E_BUILD" "$v: compiler warnings in the series' files" "$log"
fi
with_build_lock make -C "$TREE" O="$b" ARCH="$arch" INSTALL_HDR_PATH="$b/usr" \
	headers_install >> "$log" 2>&1 || die "$E_BUILD" "$v: headers_install failed" "$log"
info "$v: $(cat "$b/include/config/kernel.release") ($(du -h "$b/arch/x86/boot/bzImage" | cut -f1))"
