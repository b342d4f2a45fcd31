# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the harness scripts: paths, phase timing, failure classes.
# Sourced, never run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${OUT:-$TOP/out}
BASE_PKG=linux-source-6.12
# The tested base. If apt no longer offers it, base.sh takes the newest 6.12 and says so.
BASE_PIN=6.12.117-1~deb12u1
BASE_DIR=$OUT/base/linux-source-6.12
TREE=$OUT/tree
LOGS=$OUT/logs
BUILD_LOCK=$OUT/.build.lock
JOBS=${JOBS:-$(nproc)}

# Failure classes: each has its own exit status (see README "Exit status").
E_USAGE=2
E_DEPS=10
E_BASE=11
E_APPLY=12
E_CONFIG=13
E_BUILD=14
E_BOOT=15
E_KERNEL=16
E_TEST=17
E_NOTESTS=18
E_SERIES=19

mkdir -p "$OUT" "$LOGS"

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

# die CLASS MESSAGE [LOG]: print the message, the tail of LOG and its path, exit CLASS.
die() {
	local code=$1 msg=$2 log=${3:-}
	printf '[%s] FAILED (%s): %s\n' "$(ts)" "$(class_name "$code")" "$msg" >&2
	if [ -n "$log" ] && [ -f "$log" ]; then
		printf -- '----- last lines of %s -----\n' "$log" >&2
		tail -n 40 "$log" >&2
		printf -- '----- full log: %s -----\n' "$log" >&2
	fi
	exit "$code"
}

class_name() {
	case $1 in
	"$E_USAGE") echo usage ;;
	"$E_DEPS") echo dependencies ;;
	"$E_BASE") echo base-tree ;;
	"$E_APPLY") echo apply ;;
	"$E_CONFIG") echo config ;;
	"$E_BUILD") echo build ;;
	"$E_BOOT") echo boot ;;
	"$E_KERNEL") echo kernel-report ;;
	"$E_TEST") echo test-failure ;;
	"$E_NOTESTS") echo no-tests ;;
	"$E_SERIES") echo series ;;
	*) echo "exit $1" ;;
	esac
}

# run_logged LOG CMD...: run CMD with its output in LOG; on failure return its status.
run_logged() {
	local log=$1
	shift
	"$@" > "$log" 2>&1
}

# with_build_lock CMD...: only one kernel build runs at a time on this machine.
with_build_lock() {
	flock "$BUILD_LOCK" "$@"
}

# The series commits, in order (folder paths).
series_commits() {
	find "$TOP/series" -mindepth 1 -maxdepth 1 -type d -name '[0-9][0-9][0-9][0-9]-*' | sort
}

# Kernel build variants: ARCH, config fragments and source tree for each.
# guest/debug: the series on x86_64 (debug adds lockdep, KASAN, UBSAN);
# nounwind: the series on i386, which has no CONFIG_UNWIND_USER;
# old: the base kernel without the series, as tools see an older kernel.
VARIANTS="guest, debug, nounwind, old"
variant_arch() {
	case $1 in
	guest|debug|old) echo x86_64 ;;
	nounwind) echo i386 ;;
	*) die "$E_USAGE" "unknown kernel variant '$1' ($VARIANTS)" ;;
	esac
}

variant_fragments() {
	case $1 in
	guest) echo "guest x86_64 unwind" ;;
	debug) echo "guest x86_64 unwind debug" ;;
	nounwind) echo "guest i386" ;;
	old) echo "guest x86_64" ;;
	*) die "$E_USAGE" "unknown kernel variant '$1' ($VARIANTS)" ;;
	esac
}

variant_src() {
	case $1 in
	old) echo "$BASE_DIR" ;;
	*) variant_arch "$1" > /dev/null && echo "$TREE" ;;
	esac
}

build_dir() { echo "$OUT/build/$1"; }

# Everything up to a bootable guest kernel and the static perf tool, as
# phases; sets PERF to the path of perf (for make run and make bench).
prepare_guest_and_perf() {
	local h=$TOP/harness

	phase deps;	"$h/deps.sh"
	phase base;	"$h/base.sh"
	phase apply;	"$h/apply.sh"
	phase config;	"$h/config.sh" guest
	phase build;	"$h/build.sh" guest
	phase perf;	"$h/perf.sh" > /dev/null
	PERF=$(build_dir perf)/perf
	[ -x "$PERF" ] || die "$E_BUILD" "no perf at $PERF after perf.sh"
}
