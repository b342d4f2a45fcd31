#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make build-coverage: builds that broke mainline's version of this code,
# compile-only, on the series' tree:
#
# um: User Mode Linux (ARCH=um, x86_64 host), defconfig, the whole kernel:
#   nothing there selects UNWIND_USER, and every hook the series adds to
#   generic code (task_struct, fork, exit, exec, perf, ftrace) must build
#   with the stubs.
# rand-SEED: x86_64 randconfigs with fixed seeds (KCONFIG_SEED, so a failure
#   reproduces with the same seed), 64-bit and the test code forced on
#   (configs/randconfig.config), so CONFIG_UNWIND_USER=y comes from the
#   arch's select; make prepare, then every object of a .c file the series
#   adds or changes that the config builds (harness/kbuild_objs.py reads
#   kbuild's lists). An object the random config leaves out is listed, not
#   an error; a compiler error or warning in any built one fails.
#
# Usage: build-coverage.sh [--json OUT]   (BUILD_COVERAGE_SEEDS ["1 2 3"],
#                                          BUILD_COVERAGE ["um rand"])
. "$(dirname "$0")/lib.sh"

json_arg build-coverage.sh "$@"
seeds=${BUILD_COVERAGE_SEEDS:-1 2 3}
parts=${BUILD_COVERAGE:-um rand}
for s in $seeds; do
	[[ $s =~ ^[0-9]+$ ]] || die "$E_USAGE" "BUILD_COVERAGE_SEEDS: '$s' is not a number"
done
for p in $parts; do
	[ "$p" = um ] || [ "$p" = rand ] || die "$E_USAGE" "BUILD_COVERAGE: '$p' is neither um nor rand"
done
[ -d "$TREE/.git" ] || die "$E_BASE_TREE" "no out/tree (run: make tree)"

tests=()
failed=0
# result NAME STATUS: one result for make check's summary.
result() {
	tests+=("--test" "build.$1=$2")
	[ "$2" = pass ] || failed=1
}

# clean NAME LOG: no compiler warning or error in LOG, host tools (scripts/,
# rebuilt for each folder) excepted; else says so with the first ones.
clean() {
	local w
	w=$(grep -E '(warning|error):' "$2" | grep -v -e '^\.\./scripts/' -e '^scripts/' || true)
	[ -z "$w" ] && return 0
	warn "$1: warnings (log: $2):"
	head -20 <<< "$w" >&2
	return 1
}

mapfile -t srcs < <(hgit -C "$TREE" diff --name-only base HEAD -- '*.c' |
	grep -v -e '^tools/' -e '^samples/' -e '^scripts/')

if [[ " $parts " == *" um "* ]]; then
	b=$TREE/build-um
	log=$LOGS/build-um.log
	mkdir -p "$b"
	t0=$(date +%s)
	st=pass
	if ! { make -C "$TREE" O="$b" ARCH=um defconfig > "$log" 2>&1 &&
	       with_build_lock make -C "$TREE" O="$b" ARCH=um -j"$JOBS" >> "$log" 2>&1; }; then
		st=fail
		warn "um: the build failed (log: $log)"
		show_tail "$log" 15
	elif grep -q '^CONFIG_UNWIND_USER=y' "$b/.config"; then
		st=fail
		warn "um: CONFIG_UNWIND_USER=y, but nothing in UML selects it"
	elif ! clean um "$log"; then
		st=fail
	fi
	result um $st
	[ $st = pass ] && info "um: defconfig built, CONFIG_UNWIND_USER unset ($(( $(date +%s) - t0 ))s)"
fi

if [[ " $parts " == *" rand "* ]]; then
	for seed in $seeds; do
		b=$TREE/build-rand-$seed
		log=$LOGS/build-rand-$seed.log
		mkdir -p "$b"
		t0=$(date +%s)
		st=pass
		k=$b.kconfig
		rm -rf "$k"
		mkdir -p "$k"
		if ! KCONFIG_SEED=$seed KCONFIG_ALLCONFIG="$TOP/configs/randconfig.config" \
			make -C "$TREE" O="$k" ARCH=x86_64 randconfig > "$log" 2>&1; then
			result "rand-$seed" fail
			warn "rand-$seed: randconfig failed (log: $log)"
			continue
		fi
		if ! grep -qx 'CONFIG_UNWIND_USER=y' "$k/.config"; then
			result "rand-$seed" fail
			warn "rand-$seed: CONFIG_UNWIND_USER is not y (log: $log)"
			continue
		fi
		cmp -s "$k/.config" "$b/.config" || cp "$k/.config" "$b/.config"
		objs=()
		for f in "${srcs[@]}"; do objs+=("${f%.c}.o"); done
		if ! with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" prepare >> "$log" 2>&1; then
			result "rand-$seed" fail
			warn "rand-$seed: make prepare failed (log: $log)"
			show_tail "$log" 15
			continue
		fi
		# Only what this config builds: a single-object make compiles
		# any object, configured or not.
		build=() left=()
		while read -r what o why; do
			if [ "$what" = build ]; then build+=("$o"); else left+=("$o $why"); fi
		done < <(python3 "$H/kbuild_objs.py" "$TREE" "$b/.config" "${objs[@]}")
		if ! with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" -k "${build[@]}" >> "$log" 2>&1; then
			st=fail
			warn "rand-$seed: the series' objects failed to build (log: $log)"
		fi
		clean "rand-$seed" "$log" || st=fail
		result "rand-$seed" $st
		[ $st = pass ] && info "rand-$seed: ${#build[@]} objects built clean ($(( $(date +%s) - t0 ))s)"
		for o in "${left[@]}"; do info "rand-$seed: not in this config: $o"; done
	done
fi

[ -z "$json" ] || python3 "$H/report.py" record --name build-coverage --json "$json" \
	--class "$([ $failed -eq 0 ] && echo 0 || echo "$E_BUILD")" "${tests[@]}"
[ $failed -eq 0 ] || exit "$E_BUILD"
