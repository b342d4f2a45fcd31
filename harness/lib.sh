# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the harness scripts: paths, phase timing, failure classes,
# the variant table and the build environment. Sourced, never run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
H=$TOP/harness
OUT=${OUT:-$TOP/out}
BASE_PKG=linux-source-6.12
# The tested base. If apt no longer offers it, deps.sh takes the newest 6.12 and says so.
BASE_PIN=6.12.117-1~deb12u1
BASE_DIR=$OUT/base/linux-source-6.12
# Debian's perf and trace-cmd the guests run, as our users have them
# (debian-tools.sh for amd64, arm64-debs.sh for arm64). If the archive no
# longer offers one, the newest of the same upstream release is taken and
# the difference said.
DEBIAN_PERF_PIN=7.3.4-1~bpo13+1		# linux-perf, trixie-backports
DEBIAN_TRACE_CMD_PIN=3.4-2		# trace-cmd, sid

# pick_version PIN UPSTREAM WHAT: of the versions on stdin (one a line, as
# apt-cache madison's second column gives them), PIN if it is there, else the
# newest UPSTREAM.* with a warning naming WHAT; fails if there is neither.
pick_version() {
	local pin=$1 up=$2 what=$3 offered ver
	offered=$(cat)
	if grep -qxF "$pin" <<< "$offered"; then
		echo "$pin"
		return 0
	fi
	ver=$(grep -E "^$up([.-]|$)" <<< "$offered" | sort -V | tail -n 1 || true)
	[ -n "$ver" ] || die "$E_DEPENDENCIES" "no $what $up is offered (pinned: $pin)"
	warn "# $what $pin is no longer offered; testing $ver instead."
	echo "$ver"
}
TREE=$OUT/tree
RUNS=$OUT/runs
LOGS=$OUT/logs
# One lock for the whole machine, whatever the clone: kernel builds on two
# cores do not run side by side.
BUILD_LOCK=${BUILD_LOCK:-/tmp/unwind-build.lock}
JOBS=${JOBS:-$(nproc)}

mkdir -p "$OUT" "$LOGS"

# Failure classes: E_<NAME> for each line of harness/classes ("test-failure"
# becomes E_TEST_FAILURE), and class_name STATUS for messages.
while IFS=$'\t' read -r _code _name _; do
	case $_code in ''|'#'*) continue ;; esac
	_var=${_name//-/_}
	printf -v "E_${_var^^}" '%s' "$_code"
done < "$H/classes"
unset _code _name _var

class_name() {
	awk -F'\t' -v c="$1" '$1 == c { print $2; found = 1 } END { if (!found) print "exit " c }' \
		"$H/classes"
}

_t0=$(date +%s)
_phase=""
_phase_t=0

ts() { date +%H:%M:%S; }

# phase NAME: start a timed phase; the previous one (if any) is closed.
phase() {
	phase_end
	_phase=$1
	_phase_t=$(date +%s)
	printf '[%s] ==> %s\n' "$(ts)" "$_phase"
}

phase_end() {
	[ -n "$_phase" ] || return 0
	local dt=$(( $(date +%s) - _phase_t ))
	printf '[%s] <== %s (%ds)\n' "$(ts)" "$_phase" "$dt"
	printf '%s\t%s\n' "$_phase" "$dt" >> "$LOGS/phases.tsv"
	_phase=""
}

info() { printf '[%s]     %s\n' "$(ts)" "$*"; }
warn() { printf '[%s] !!! %s\n' "$(ts)" "$*" >&2; }

# show_tail LOG [N]: the last N (40) lines of LOG and its path, on stderr.
show_tail() {
	[ -f "$1" ] || return 0
	printf -- '----- last lines of %s -----\n' "$1" >&2
	tail -n "${2:-40}" "$1" >&2
	printf -- '----- full log: %s -----\n' "$1" >&2
}

# die CLASS MESSAGE [LOG]: print the message, the tail of LOG and its path, exit CLASS.
die() {
	printf '[%s] FAILED (%s): %s\n' "$(ts)" "$(class_name "$1")" "$2" >&2
	[ -z "${3:-}" ] || show_tail "$3"
	exit "$1"
}

# with_build_lock CMD...: only one kernel or perf build runs at a time on this
# machine (BUILD_LOCK).
with_build_lock() {
	flock "$BUILD_LOCK" "$@"
}

# variant NAME FIELD: a field of harness/variants (see its header); an unknown
# NAME is a usage error that lists the known ones.
VARIANT_FIELDS="name arch configs source qemu cpu mem boot_tmo slow tcg runs"
variant() {
	local v=$1 field=$2 col=0 i=0 f val
	for f in $VARIANT_FIELDS; do
		i=$((i + 1))
		[ "$f" = "$field" ] && col=$i
	done
	[ $col -gt 0 ] || die "$E_USAGE" "variant: no field '$field' ($VARIANT_FIELDS)"
	val=$(awk -v v="$v" -v c="$col" '!/^#/ && $1 == v { print $c; exit }' "$H/variants")
	[ -n "$val" ] || die "$E_USAGE" "unknown kernel variant '$v' (known: $(variants | tr '\n' ' '))"
	echo "$val"
}

# variants [RUNS]: the variant names, in table order; only those whose runs
# field is RUNS if given.
variants() {
	awk -v r="${1:-}" '!/^#/ && NF && (r == "" || $NF == r) { print $1 }' "$H/variants"
}

# variant_src NAME: the source tree a variant builds: out/tree, or for the
# pristine base out/base-tree, a worktree of out/tree at the tag base.
BASE_TREE=$OUT/base-tree
variant_src() {
	case $(variant "$1" source) in
	series) echo "$TREE" ;;
	base) echo "$BASE_TREE" ;;
	*) die "$E_USAGE" "variant $1: unknown source '$(variant "$1" source)'" ;;
	esac
}

# build_dir NAME: a kernel variant builds in build-NAME inside its source
# tree, so that kbuild names every path relative to the build folder (srctree
# is ".."): the compiler sees the same command line in every clone, and
# ccache serves one clone's objects to another. Other builds (perf) are in
# out/build/NAME.
build_dir() {
	if awk -v v="$1" '!/^#/ && $1 == v { f = 1 } END { exit !f }' "$H/variants"; then
		echo "$(variant_src "$1")/build-$1"
	else
		echo "$OUT/build/$1"
	fi
}

# ensure_base_tree: out/base-tree, the base as a worktree of out/tree.
ensure_base_tree() {
	[ -d "$TREE/.git" ] || die "$E_BASE_TREE" "no out/tree (run: make tree)"
	[ "$(hgit -C "$BASE_TREE" rev-parse HEAD 2> /dev/null)" = "$(hgit -C "$TREE" rev-parse base)" ] &&
		return 0
	rm -rf "$BASE_TREE"
	hgit -C "$TREE" worktree prune
	hgit -C "$TREE" worktree add -q --detach "$BASE_TREE" base > "$LOGS/base-tree.log" 2>&1 ||
		die "$E_BASE_TREE" "cannot add the worktree $BASE_TREE" "$LOGS/base-tree.log"
}
run_dir() { echo "$RUNS/$1"; }
# kselftest_dir VARIANT: where the selftests for the variant are installed:
# out/kselftest, or for a cross variant out/kselftest-VARIANT.
kselftest_dir() {
	if [ "$(variant "$1" runs)" = cross ]; then
		echo "$OUT/kselftest-$1"
	else
		echo "$OUT/kselftest"
	fi
}

# kbuild_args VARIANT: the make arguments of the variant's kernel build. An
# arm64 kernel is built with clang (LLVM=1), which targets arm64 itself:
# Debian's GNU cross compiler for arm64 conflicts with gcc-multilib, which
# the 32-bit x86 selftest needs.
kbuild_args() {
	local a
	a=$(variant "$1" arch)
	case $a in
	arm64) echo "ARCH=arm64 LLVM=1" ;;
	*) echo "ARCH=$a" ;;
	esac
}
# qemu_machine VARIANT RESULTS: set QEMU_MACHINE (QEMU's machine arguments),
# CONSOLE (the kernel's console device), KERNEL_ARGS (what else the kernel's
# command line needs) and QEMU_RESULTS (the arguments that send the guest's
# second channel, which /init writes the test output to, to the file
# RESULTS). QEMU's arm64 virt machine has one UART (ttyAMA0): the results go
# to a virtio console (hvc0) there; x86's to ttyS1. arm64 boots with a GICv3
# and pseudo-NMIs, so that the PMU's overflow interrupt is an NMI.
qemu_machine() {
	case $(variant "$1" arch) in
	arm64)
		QEMU_MACHINE=(-M virt,gic-version=3)
		CONSOLE=ttyAMA0
		KERNEL_ARGS=irqchip.gicv3_pseudo_nmi=1
		QEMU_RESULTS=(-chardev "file,id=results,path=$2" -device virtio-serial-device
			      -device virtconsole,chardev=results)
		;;
	*)
		QEMU_MACHINE=()
		CONSOLE=ttyS0
		KERNEL_ARGS=
		QEMU_RESULTS=(-serial "file:$2")
		;;
	esac
}
# series_c_files BUILD SRCARCH [--diff-filter=A]: the kernel's .c files the
# series changes (or adds) whose objects the config in BUILD builds: another
# architecture's (arch/ but not arch/SRCARCH) are left out, and a file that
# its folder's Makefile adds, or whose folder the parent's Makefile adds,
# under an obj-$(CONFIG_X) line, only with X set.
series_c_files() {
	local b=$1 srcarch=$2 f
	shift 2
	hgit -C "$TREE" diff --name-only "$@" base HEAD -- '*.c' |
		grep -v -e '^tools/' -e '^samples/' -e '^scripts/' |
		while read -r f; do
			case $f in arch/"$srcarch"/*) ;; arch/*) continue ;; esac
			kbuild_built "$b" "${f%/*}" "$(basename "${f%.c}.o")" || continue
			[[ ${f%/*} != */* ]] ||
				kbuild_built "$b" "${f%/*/*}" "$(basename "${f%/*}")/" || continue
			echo "$f"
		done
}
# kbuild_built BUILD DIR NAME: false if DIR/Makefile adds NAME (an object
# or a folder) under obj-$(CONFIG_X) and the config in BUILD has no X.
kbuild_built() {
	local opt
	opt=$(awk -v o="$3" '
		/^obj-\$\(CONFIG_[A-Z0-9_]+\)/ {
			for (i = 2; i <= NF; i++) if ($i == o) {
				sub(/^obj-\$\(/, "", $1); sub(/\).*/, "", $1)
				print $1; exit
			}
		}' "$TREE/$2/Makefile" 2> /dev/null)
	[ -z "$opt" ] || grep -qE "^$opt=[ym]" "$1/.config"
}

# kernel_image VARIANT: the boot image a variant's build makes, relative to
# its build folder.
kernel_image() {
	case $(variant "$1" arch) in
	arm64) echo arch/arm64/boot/Image ;;
	*) echo arch/x86/boot/bzImage ;;
	esac
}

# Kernel and perf builds go through ccache when it is installed. The cache
# lives outside the clone (ccache's default, ~/.cache/ccache), and paths are
# hashed relative to the clone, so a fresh clone in another folder hits the
# entries an earlier clone left.
if [ -d /usr/lib/ccache ] && [ -z "${NO_CCACHE:-}" ]; then
	case ":$PATH:" in
	*:/usr/lib/ccache:*) ;;
	*) PATH=/usr/lib/ccache:$PATH ;;
	esac
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-include_file_mtime,include_file_ctime,time_macros}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-20G}
fi

# The fixed identity of the series' commits and of the harness's own git
# repositories, so that the same input gives the same commits and patches.
export GIT_AUTHOR_NAME="Unwind Team" GIT_AUTHOR_EMAIL=unwind@example.org
export GIT_COMMITTER_NAME="Unwind Team" GIT_COMMITTER_EMAIL=unwind@example.org
SERIES_DATE="Mon, 30 Nov 2026 00:00:00 +0000"

# hgit ARGS...: git for the harness's own work (making, applying, exporting
# the series), blind to the user's and the system's git configuration, so that
# no setting there changes what the harness writes.
hgit() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -c core.autocrlf=false \
		-c commit.gpgsign=false -c advice.detachedHead=false "$@"
}

# stale_int3 CONSOLE: "stale" if the console's first Oops is an int3 trap
# whose instruction byte (the one before the <..> of its Code: line) is not
# 0xcc: the CPU ran an int3 that memory no longer holds.
stale_int3() {
	awk '/Oops: int3/ { seen = 1; next }
	     seen && /^Code: / {
		for (i = 2; i <= NF; i++)
			if ($i ~ /^</) { print ($(i - 1) != "cc" ? "stale" : "int3"); exit }
		exit
	     }' "$1" 2> /dev/null
}

# json_arg SCRIPT [ARGS...]: the one optional argument of a make check step,
# "--json OUT", where the step writes its result for the summary: sets json
# to OUT, or to "" without it; anything else is a usage error.
json_arg() {
	local script=$1
	shift
	json=""
	case ${1:-} in
	"") ;;
	--json) json=${2:?--json needs a file} ;;
	*) die "$E_USAGE" "usage: $script [--json OUT]" ;;
	esac
}

# Everything up to a bootable guest kernel and the static perf tool, as
# phases; sets PERF to the path of perf (for make run and make bench).
prepare_guest_and_perf() {
	phase deps;	"$H/deps.sh"
	phase base;	"$H/base.sh"
	phase tree;	"$H/tree.sh"
	phase config;	"$H/config.sh" guest
	phase build;	"$H/build.sh" guest
	phase perf;	"$H/perf.sh" > /dev/null
	PERF=$(build_dir perf)/perf
	[ -x "$PERF" ] || die "$E_BUILD" "no perf at $PERF after perf.sh"
}

# record NAME CLASS TEST=STATUS...: a host-side result for the summary,
# appended to the caller's results array (check.sh, distro.sh).
record() {
	local name=$1 cls=$2 t
	shift 2
	mkdir -p "$(run_dir "$name")"
	local args=()
	for t in "$@"; do args+=(--test "$t"); done
	python3 "$H/report.py" record --name "$name" --json "$(run_dir "$name")/result.json" \
		--class "$cls" "${args[@]}"
	results+=("$(run_dir "$name")/result.json")
}

# compare_base NAME PREFIX BASE NEW [KNOWN]: the PREFIX cases of the runs
# BASE (the base kernel) and NEW (the series') side by side (report.py
# compare; KNOWN: the cases that may pass on neither, with why), printed and
# kept in LOGS/NAME.log; its result is appended to the caller's results.
compare_base() {
	local name=$1 prefix=$2 base=$3 new=$4 known=${5:-} args=()
	[ -z "$known" ] || args=(--known "$known")
	rm -f "$(run_dir "$name")/result.json"
	python3 "$H/report.py" compare --name "$name" --prefix "$prefix" "${args[@]}" \
		--json "$(run_dir "$name")/result.json" \
		"$(run_dir "$base")/result.json" "$(run_dir "$new")/result.json" |
		tee "$LOGS/$name.log" || true
	if [ -f "$(run_dir "$name")/result.json" ]; then
		results+=("$(run_dir "$name")/result.json")
	else
		record "$name" "$E_TEST_FAILURE" "${prefix}same_as_base=fail"
	fi
}

# trace_cmd_files: TRACE_CMD_FILES=(SRC:DEST...) for an initramfs: Debian's
# trace-cmd, and the loader and libraries ldd says it needs.
trace_cmd_files() {
	local tc
	tc=$(command -v trace-cmd || true)
	[ -n "$tc" ] || die "$E_DEPENDENCIES" "no trace-cmd (make deps)"
	host_files "$tc:usr/bin/trace-cmd"
	TRACE_CMD_FILES=("${HOST_FILES[@]}")
}

# host_files PROGRAM:GUESTPATH...: the host's dynamically linked programs
# for the initramfs, with the loader and libraries they need, in HOST_FILES.
host_files() {
	local spec l
	HOST_FILES=()
	for spec in "$@"; do
		[ -x "${spec%%:*}" ] || die "$E_DEPENDENCIES" "no ${spec%%:*} on the host"
		HOST_FILES+=("$spec")
		for l in $(ldd "${spec%%:*}" | awk '$2 == "=>" { print $3; next } /^\t\// { print $1 }'); do
			HOST_FILES+=("$(readlink -f "$l"):${l#/}")
		done
	done
}

# bench_programs BIN LOG [FDES]: build the benchmark programs of
# harness/bench/ into BIN (make bench, and the smoke runs of make check): the
# workloads as static frame-pointer programs, nofp as compute without frame
# pointers (with SFrame), the core driver, core_sframe as the core driver
# without frame pointers (with SFrame, and the tree's SFrame converter),
# core_ehf as the core driver with neither (its .eh_frame, linked with
# --eh-frame-hdr, which static links lack by default), for
# each N of FDES core_fdesN as core_sframe with N more functions (each a
# 'ret' with its SFrame entry, from an assembler loop), and perfdata.
# Compiler output goes to LOG.
bench_programs() {
	local bin=$1 log=$2 fdes=${3:-} w n
	local nofp="-fomit-frame-pointer -momit-leaf-frame-pointer -Wa,--gsframe"
	local progs=(syscall compute core "nofp compute $nofp" "core_sframe core $nofp"
		"core_ehf core -fomit-frame-pointer -momit-leaf-frame-pointer -Wl,--eh-frame-hdr")
	mkdir -p "$bin"
	: > "$log"
	rm -f "$bin"/core_fdes*
	for n in $fdes; do
		printf '\t.cfi_sections .sframe\n\t.text\n\t.rept %d\n\t.cfi_startproc\n\tret\n\t.cfi_endproc\n\t.endr\n\t.section .note.GNU-stack,"",@progbits\n' \
			"$n" > "$bin/fill$n.s"
		progs+=("core_fdes$n core $nofp $bin/fill$n.s")
	done
	for w in "${progs[@]}"; do
		# shellcheck disable=SC2086 # NAME SOURCE FLAGS...
		set -- $w
		local name=$1 src=${2:-$1}
		shift $(($# > 1 ? 2 : 1))
		gcc -static -nostdlib -ffreestanding -fno-stack-protector -no-pie -O2 -g \
			-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall \
			-I"$TREE/tools/testing/selftests/unwind" "$@" \
			-o "$bin/$name" "$H/bench/$src.c" >> "$log" 2>&1 ||
			die "$E_BUILD" "bench program $name failed to build" "$log"
	done
	rm -f "$bin"/fill*.s
	gcc -static -O2 -Wall -o "$bin/perfdata" "$H/bench/perfdata.c" >> "$log" 2>&1 ||
		die "$E_BUILD" "perfdata failed to build" "$log"
}

# bench_files BIN: BENCH_FILES=(SRC:DEST...) for an initramfs: the programs
# bench_programs built, the guest scripts, and BIN's params files.
bench_files() {
	local bin=$1 f
	BENCH_FILES=()
	for f in syscall compute nofp core core_sframe core_ehf "$bin"/core_fdes* perfdata params core-params; do
		f=${f##*/}
		[ -f "$bin/$f" ] && BENCH_FILES+=("$bin/$f:bench/$f")
	done
	BENCH_FILES+=("$H/bench/guest.sh:bench/guest.sh" "$H/bench/core.sh:bench/core.sh")
}
