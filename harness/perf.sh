#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a static perf from the applied tree, for the guest's initramfs.
# Usage: perf.sh [--arch arm64]
#                   (PERF_TREE=DIR builds another tree's tools/perf,
#                   PERF_BUILD=DIR into another output folder)
#
# The binary must symbolize ELF files (libelf) and accept --call-graph dwarf
# (libdw DWARF unwinding), all linked statically; python, perl, slang, BPF
# skeletons, libtraceevent and the dlfilters (which cannot link statically)
# are left out. O= is kept between runs, so rebuilds are incremental.
#
# --arch arm64: for the arm64 guest, with clang and return addresses
# signed (pac-ret, as Debian builds arm64 code), against the arm64 C
# library of libc6-dev-arm64-cross and Debian's arm64 static libelf
# (arm64-debs.sh perf-dev), into out/build/perf-arm64. Linked by GNU ld
# for arm64, which writes the PT_GNU_SFRAME of perf's SFrame workload
# (lld does not). It symbolizes ELF files; DWARF unwinding is left out
# (with no pkg-config for arm64, perf's static link of libdw takes it for
# one older than 0.177 and asks for the separate libebl elfutils 0.188 no
# longer has), and no test on arm64 uses it.
. "$(dirname "$0")/lib.sh"

arch=x86_64
case "${1:-}:${2:-}:$#" in
::0) ;;
--arch:arm64:2) arch=arm64 ;;
*) die "$E_USAGE" "usage: perf.sh [--arch arm64]" ;;
esac
src=${PERF_TREE:-$TREE}/tools/perf
if [ $arch = arm64 ]; then
	b=${PERF_BUILD:-$(build_dir perf-arm64)}
	log=${PERF_LOG:-$LOGS/perf-arm64.log}
else
	b=${PERF_BUILD:-$(build_dir perf)}
	log=${PERF_LOG:-$LOGS/perf.log}
fi
[ -f "$src/Makefile.perf" ] || die "$E_BUILD" "no perf sources in $src (run: make tree)"

flags=(
	LDFLAGS=-static
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JVMTI=1 NO_SLANG=1 NO_GTK2=1
	NO_LIBTRACEEVENT=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_LIBCAP=1
	NO_LIBNUMA=1 NO_LIBUNWIND=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1
	NO_LIBPFM4=1 NO_CAPSTONE=1 NO_LIBLLVM=1 NO_SHELLCHECK=1
	NO_JEVENTS=1
)
need=(libelf libdw-dwarf-unwind)
if [ $arch = arm64 ]; then
	sr=$("$H/arm64-debs.sh" perf-dev) || exit
	flags[0]="LDFLAGS=-static -fuse-ld=bfd -L$sr/usr/lib/aarch64-linux-gnu"
	flags+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- AR=llvm-ar
		CC="clang --target=aarch64-linux-gnu" CXX="clang++ --target=aarch64-linux-gnu"
		EXTRA_CFLAGS="-mbranch-protection=pac-ret -I$sr/usr/include -I$sr/usr/include/aarch64-linux-gnu")
	need=(libelf)
fi

mkdir -p "$b"
t0=$(date +%s)
info "building static perf for $arch (-j$JOBS, log: $log)"
# Under the build lock: two builds into one O= folder break each other.
if ! with_build_lock make -C "$src" O="$b" -j"$JOBS" "${flags[@]}" perf > "$log" 2>&1; then
	# With -j the first error scrolls away behind the other jobs' output.
	grep -m 5 -A 4 -E '(error:|undefined reference|\*\*\*)' "$log" >&2 || true
	die "$E_BUILD" "perf build failed" "$log"
fi

perf=$b/perf
file "$perf" | grep -q 'statically linked' ||
	die "$E_BUILD" "$perf is not statically linked" "$log"
# DWARF unwinding is needed by the benchmark; without libdw perf rejects
# --call-graph dwarf, so check the feature made it in. An arm64 perf cannot
# run here: its build's feature dump says the same.
if [ $arch = arm64 ]; then
	file "$perf" | grep -q 'ARM aarch64' || die "$E_BUILD" "$perf is not an arm64 program" "$log"
	sed -n 's/^feature-\([^=]*\)=1$/\1: [ on  ]/p' "$b/FEATURE-DUMP" > "$log.features"
else
	"$perf" version --build-options > "$log.features" 2>&1 || true
fi
for f in "${need[@]}"; do
	grep -Eq "^ *$f: \[ on  \]" "$log.features" ||
		die "$E_BUILD" "static perf lacks $f (see deps.sh)" "$log.features"
done
info "perf: $perf ($(du -h "$perf" | cut -f1), built in $(( $(date +%s) - t0 ))s)"
echo "$perf"
