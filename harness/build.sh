#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a configured variant: its boot image (bzImage, arm64's Image), and
# the UAPI headers the tests use.
# With W1=1 (make check) the series' own objects must also build W=1 clean.
#
# Usage: build.sh VARIANT [--src DIR] [--build DIR]
#   --src, --build  another source tree and build folder (make bisect)
. "$(dirname "$0")/lib.sh"

usage="usage: build.sh VARIANT [--src DIR] [--build DIR]"
v=${1:-}
[ -n "$v" ] || die "$E_USAGE" "$usage"
shift
read -ra kargs <<< "$(kbuild_args "$v")"
image=$(kernel_image "$v")
src=$(variant_src "$v")
b=$(build_dir "$v")
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=${2:?--src needs a folder}; shift 2 ;;
	--build) b=${2:?--build needs a folder}; shift 2 ;;
	*) die "$E_USAGE" "$usage" ;;
	esac
done
log=$LOGS/build-$(basename "$b").log
[ -f "$b/.config" ] || die "$E_BUILD" "$v: not configured (run: config.sh $v)"

# OBJS_ONLY=1 (make check's build-only variant): make prepare and the
# objects of the series' files that this config builds, no image and no
# link (make distro builds the whole kernel).
if [ -n "${OBJS_ONLY:-}" ]; then
	case $(variant "$v" arch) in arm64) srcarch=arm64 ;; *) srcarch=x86 ;; esac
	mapfile -t files < <(series_c_files "$b" "$srcarch")
	objs=()
	for f in "${files[@]}"; do objs+=("${f%.c}.o"); done
	[ ${#objs[@]} -gt 0 ] || die "$E_BUILD" "$v: the series changes no file this config builds"
	info "$v: building the series' ${#objs[@]} objects (-j$JOBS, log: $log)"
	{
		with_build_lock make -C "$src" O="$b" "${kargs[@]}" -j"$JOBS" prepare &&
		with_build_lock make -C "$src" O="$b" "${kargs[@]}" -j"$JOBS" "${objs[@]}"
	} > "$log" 2>&1 || die "$E_BUILD" "$v: build of the series' objects failed" "$log"
	info "$v: ${objs[*]} built"
	exit 0
fi

info "$v: building ${image##*/} (-j$JOBS, log: $log)"
with_build_lock make -C "$src" O="$b" "${kargs[@]}" -j"$JOBS" "${image##*/}" \
	> "$log" 2>&1 || die "$E_BUILD" "$v: kernel build failed" "$log"

# The series' own objects, W=1: a recompile of those files only.
objs=()
[ -d "$src/kernel/unwind" ] && objs+=(kernel/unwind/)
[ -f "$src/lib/test_unwind_deferred.c" ] && objs+=(lib/test_unwind_deferred.o)
# ftrace's objects, once the series has changed them (userstacktrace_delay).
grep -qs USERSTACKTRACE_DELAY "$src/kernel/trace/trace.h" &&
	objs+=(kernel/trace/trace.o kernel/trace/trace_output.o kernel/trace/trace_export.o)
if [ -n "${W1:-}" ] && [ ${#objs[@]} -gt 0 ] && grep -q '^CONFIG_UNWIND_USER=y' "$b/.config"; then
	with_build_lock make -C "$src" O="$b" "${kargs[@]}" -j"$JOBS" W=1 "${objs[@]}" \
		> "$log.w1" 2>&1 || die "$E_BUILD" "$v: W=1 build of ${objs[*]} failed" "$log.w1"
	if grep -E 'warning:' "$log.w1" >&2; then
		die "$E_BUILD" "$v: W=1 warnings in the series' files" "$log.w1"
	fi
	info "$v: ${objs[*]} W=1 clean"
fi
with_build_lock make -C "$src" O="$b" "${kargs[@]}" INSTALL_HDR_PATH="$b/usr" \
	headers_install >> "$log" 2>&1 || die "$E_BUILD" "$v: headers_install failed" "$log"
info "$v: $(cat "$b/include/config/kernel.release") ($(du -h "$b/$image" | cut -f1))"
