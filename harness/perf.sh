#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a static perf from the applied tree, for the guest's initramfs.
# Usage: perf.sh    (PERF_TREE=DIR builds another tree's tools/perf,
#                   PERF_BUILD=DIR into another output folder)
#
# The binary must symbolize ELF files (libelf) and accept --call-graph dwarf
# (libdw DWARF unwinding), all linked statically; python, perl, slang, BPF
# skeletons, libtraceevent and the dlfilters (which cannot link statically)
# are left out. O= is kept between runs, so rebuilds are incremental.
. "$(dirname "$0")/lib.sh"

src=${PERF_TREE:-$TREE}/tools/perf
b=${PERF_BUILD:-$(build_dir perf)}
log=${PERF_LOG:-$LOGS/perf.log}
[ -f "$src/Makefile.perf" ] || die "$E_BUILD" "no perf sources in $src (run: make tree)"

flags=(
	LDFLAGS=-static
	NO_LIBPYTHON=1 NO_LIBPERL=1 NO_JVMTI=1 NO_SLANG=1 NO_GTK2=1
	NO_LIBTRACEEVENT=1 NO_LIBBPF=1 BUILD_BPF_SKEL=0 NO_LIBCAP=1
	NO_LIBNUMA=1 NO_LIBUNWIND=1 NO_LIBBABELTRACE=1 NO_LIBCRYPTO=1
	NO_LIBPFM4=1 NO_CAPSTONE=1 NO_LIBLLVM=1 NO_SHELLCHECK=1
	NO_JEVENTS=1
)

mkdir -p "$b"
t0=$(date +%s)
info "building static perf (-j$JOBS, log: $log)"
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
# --call-graph dwarf, so check the feature made it in.
"$perf" version --build-options > "$log.features" 2>&1 || true
for f in libelf libdw-dwarf-unwind; do
	grep -Eq "^ *$f: \[ on  \]" "$log.features" ||
		die "$E_BUILD" "static perf lacks $f (see deps.sh)" "$log.features"
done
info "perf: $perf ($(du -h "$perf" | cut -f1), built in $(( $(date +%s) - t0 ))s)"
echo "$perf"
