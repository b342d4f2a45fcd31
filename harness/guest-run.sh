#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# One guest run: write the run list for the variant (the installed selftests,
# or perf's fallback check on a kernel without the series), pack the
# initramfs, boot, and classify the run. Everything of the run is in
# out/runs/NAME/: runlist, initramfs.cpio.gz, console.log, results.log,
# qemu.log and result.json.
#
# Usage: guest-run.sh VARIANT NAME [--only GLOB]
#   --only GLOB  only the selftest programs whose name (e.g. unwind.perf_deferred)
#                matches the shell pattern GLOB, and the KUnit suites it
#                matches (kunit.filter_glob; "kunit." is stripped)
. "$(dirname "$0")/lib.sh"

usage="usage: guest-run.sh VARIANT NAME [--only GLOB]"
[ $# -ge 2 ] || die "$E_USAGE" "$usage"
v=$1 name=$2
shift 2
only=""
while [ $# -gt 0 ]; do
	case $1 in
	--only) only=${2:?--only needs a pattern}; shift 2 ;;
	*) die "$E_USAGE" "$usage" ;;
	esac
done
kst=$(kselftest_dir "$v")
dir=$(run_dir "$name")
rm -rf "$dir"
mkdir -p "$dir"
runlist=$dir/runlist
: > "$runlist"
settings=$kst/unwind/settings
tmo=$(sed -n 's/^timeout=//p' "$settings" 2>/dev/null || true)
tmo=$(( ${tmo:-120} * $(variant "$v" slow) ))
files=()
[ -d "$kst" ] || die "$E_NO_TESTS" "no selftests in $kst (run: make selftests VARIANT=$v)"
files+=("$kst/:tests")
# The selftests are static, but for those that test shared objects
# (unwind_sframe_lib, unwind_eh_frame_lib): their loader and C library come
# along. ldd runs a program's loader, which only the host's architecture
# can: an arm64 program's come from the arm64 C library it was linked with
# (libc6-dev-arm64-cross), found by its DT_NEEDED entries, the loader at
# its PT_INTERP and the libraries where Debian's arm64 loader looks first.
# The objects the tests build are beside the programs ($ORIGIN).
if [ "$(variant "$v" arch)" = arm64 ]; then
	sysroot=/usr/aarch64-linux-gnu/lib
	todo=()
	for f in "$kst"/*/*; do
		[ -f "$f" ] && file -b "$f" | grep -q 'ARM aarch64.*dynamically linked' && todo+=("$f")
	done
	declare -A packed=()
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		while read -r l; do
			b=${l##*/}
			[ -z "${packed[$b]:-}" ] || continue
			[[ $f != "$kst"/* ]] || [ ! -e "$(dirname "$f")/$b" ] || continue
			[ -e "$sysroot/$b" ] ||
				die "$E_DEPENDENCIES" "$f needs $l, which is not in $sysroot (harness/deps.sh installs libc6-dev-arm64-cross)"
			packed[$b]=1
			dst=lib/aarch64-linux-gnu/$b
			[[ $l != /* ]] || dst=${l#/}
			files+=("$(readlink -f "$sysroot/$b"):$dst")
			todo+=("$sysroot/$b")
		done < <(readelf -W -l -d "$f" | sed -n -e 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p' \
			-e 's/.*(NEEDED).*Shared library: \[\(.*\)\]$/\1/p')
	done
else
	for f in "$kst"/*/*; do
		[ -f "$f" ] && [ -x "$f" ] && file -b "$f" | grep -q 'dynamically linked' || continue
		while read -r l; do
			[[ $l == "$kst"/* ]] || files+=("$(readlink -f "$l"):${l#/}")
		done < <(ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3; next } /^\t\// { print $1 }')
	done
fi

# want NAME: is the test program NAME selected (--only)?
want() {
	# shellcheck disable=SC2053 # GLOB is a pattern
	[ -z "$only" ] || [[ $1 == $only ]]
}

# perf's own shell tests, run by "perf test" from /usr/libexec/perf: the
# series' perf and its shell tests, on every kernel.
perf_tests=$TREE/tools/perf/tests/shell

# ftrace's own cases of the base kernel (harness/ftrace-regress.list), on the
# base kernel and on the series' kernel of the same config: make check
# compares the two runs (report.py compare).
regress_list() {
	local c cases=()
	[ -x "$kst/ftrace/ftracetest" ] || die "$E_NO_TESTS" "no ftracetest in $kst (run: make selftests)"
	while read -r c; do
		[ -f "$kst/ftrace/$c" ] || die "$E_USAGE" "harness/ftrace-regress.list: no $c in ftrace's suite"
		cases+=("$c")
	done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$H/ftrace-regress.list")
	! want ftrace.regress ||
		echo "ftrace.regress $((tmo * 5)) cd ftrace && ./ftracetest -K -v ${cases[*]}" >> "$runlist"
}
# perf's own tests ("perf test", the series' static perf) and the
# perf_events selftests, which nobody here wrote, on the base kernel (old)
# and on the series' kernel of the same config (guest): the runs are
# compared (report.py compare). make check runs the fixed subset of
# harness/perf-regress.list, each of which must pass on both; with
# PERF_REGRESS=all (make distro) every perf test and every perf_events
# program runs, and harness/perf-regress.known says why some cannot pass.
perf_regress_list() {
	local kind rest descs=() progs=() mult=5 coll prog
	if [ "${PERF_REGRESS:-list}" = all ]; then
		mult=20
		# perf's shell tests are bash and sh scripts written for GNU
		# tools: the host's bash, dash as /bin/sh (busybox's sh runs its
		# own applets whatever PATH says) and coreutils, grep and sed.
		# busybox fills in only what is not there.
		local t tools=()
		for t in bash mktemp tail head sort cut wc tr uniq tee stat realpath \
			 readlink grep sed; do
			tools+=("$(command -v "$t"):bin/$t")
		done
		host_files "$(command -v dash):bin/sh" "${tools[@]}"
		files+=("${HOST_FILES[@]}")
		while IFS=: read -r coll prog; do
			[ "$coll" = perf_events ] && progs+=("$prog")
		done < "$kst/kselftest-list.txt"
	else
		while read -r kind rest; do
			case $kind:$rest in
			*"'"*) die "$E_USAGE" "harness/perf-regress.list: a quote in '$rest'" ;;
			perf:?*) descs+=("'$rest'") ;;
			perf_events:?*) progs+=("$rest") ;;
			*) die "$E_USAGE" "harness/perf-regress.list: not 'perf: DESCRIPTION' or 'perf_events: PROGRAM [ARGS]': $kind $rest" ;;
			esac
		done < <(sed -e 's/^[[:space:]]*#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$H/perf-regress.list")
		[ ${#descs[@]} -gt 0 ] && [ ${#progs[@]} -gt 0 ] ||
			die "$E_USAGE" "harness/perf-regress.list lists no perf test or no perf_events program"
	fi
	for prog in "${progs[@]}"; do
		[ -x "$kst/perf_events/${prog%% *}" ] ||
			die "$E_NO_TESTS" "no perf_events/${prog%% *} in $kst (run: make selftests)"
		want "perf_events.${prog%% *}" &&
			echo "perf_events.${prog%% *} $tmo ./perf_events/$prog" >> "$runlist"
	done
	if want perf.regress; then
		echo "perf.regress $((tmo * mult)) sh /usr/libexec/perf-test.sh /usr/libexec/perf ${descs[*]}" >> "$runlist"
		perf_files=1
	fi
}
# perf's own shell tests of deferred callchains: one run per test, each
# with its own timeout, selected by the description perf test reads from
# the script's second line.
perf_shell_tests() {
	local t tn desc
	for t in "$perf_tests"/callchain_deferred_*.sh; do
		[ -f "$t" ] || continue
		tn=$(basename "$t" .sh)
		want "perf.$tn" || continue
		# A debug kernel (KASAN, lockdep) checks the kernel's side, which
		# the recording test drives as the others do; the others add perf's
		# own processing in user space, up to eight times slower there
		# (merge: 49 s against 6 s on guest) for no more kernel work. They
		# run on guest.
		[[ ,$(variant "$v" configs), != *,debug,* ]] || [ "$tn" = callchain_deferred_record ] || continue
		desc=$(sed -n '2s/^# //p' "$t")
		case $desc in
		"" | *"'"*) die "$E_USAGE" "$t: no description perf test can select on its second line" ;;
		esac
		perf_files=1
		echo "perf.$tn $tmo sh /usr/libexec/perf-test.sh /usr/libexec/perf '$desc'" >> "$runlist"
	done
}
perf_files=""
case $(variant "$v" runs) in
fallback)
	# The base kernel has no deferred unwinding: only perf's fallback runs,
	# with the series' perf and its readchain workload.
	files+=("$H/guest/perf-fallback.sh:usr/libexec/perf-fallback.sh")
	want perf.fallback && echo "perf.fallback $tmo sh /usr/libexec/perf-fallback.sh" >> "$runlist"
	files+=("$H/guest/ftrace-old.sh:usr/libexec/ftrace-old.sh")
	want ftrace.old && echo "ftrace.old $tmo sh /usr/libexec/ftrace-old.sh" >> "$runlist"
	regress_list
	perf_regress_list
	;;
tests|distro)
	# A kernel with the test code as modules (distro): load them first, in
	# the order the build made them (modules.order), the test module
	# included, which the selftests use.
	mods=$(build_dir "$v")/modules
	if [ -s "$mods/modules.order" ]; then
		mapfile -t kos < <(sed 's|^|/lib/modules-unwind/|' "$mods/modules.order")
		echo "modules $tmo sh /usr/libexec/modules.sh ${kos[*]}" >> "$runlist"
		files+=("$mods/:lib/modules-unwind" "$H/guest/modules.sh:usr/libexec/modules.sh")
	fi
	while IFS=: read -r coll prog; do
		[ -n "$prog" ] || continue
		# ftrace's and perf_events' own tests: as lists, below.
		[ "$coll" != ftrace ] && [ "$coll" != perf_events ] || continue
		want "$coll.$prog" || continue
		echo "$coll.$prog $tmo ./$coll/$prog" >> "$runlist"
	done < "$kst/kselftest-list.txt"
	# The series' ftracetest cases, by ftracetest itself (KTAP output).
	if [ -x "$kst/ftrace/ftracetest" ]; then
		# guest is old's config plus the series' fragments: the pair to compare.
		[ "$v" != guest ] || regress_list
		tcs=$(cd "$kst/ftrace" && ls test.d/*/*userstacktrace-delay*.tc)
		# shellcheck disable=SC2086 # one word per test case
		! want ftrace.userstacktrace_delay ||
			echo "ftrace.userstacktrace_delay $tmo cd ftrace && ./ftracetest -K -v" $tcs >> "$runlist"
		# Debian's trace-cmd, with the loader and libraries it needs.
		if want ftrace.trace_cmd; then
			trace_cmd_files
			files+=("${TRACE_CMD_FILES[@]}" "$H/guest/trace-cmd-test.sh:usr/libexec/trace-cmd-test.sh")
			echo "ftrace.trace_cmd $tmo sh /usr/libexec/trace-cmd-test.sh /tests/ftrace/unwind_chain" >> "$runlist"
		fi
	fi
	# Debian's own perf (7.3, trixie-backports) and newest trace-cmd (sid),
	# as users have them, with their own loader and libraries; on guest.
	if [ "$v" = guest ] && { want debian.perf || want debian.trace_cmd || want debian13.accept; }; then
		if "$H/debian-tools.sh" > "$LOGS/debian-tools.out" 2>&1; then
			files+=("$OUT/debian-tools/guest/:." "$H/guest/debian-perf-test.sh:usr/libexec/debian-perf-test.sh"
				"$H/guest/trace-cmd-test.sh:usr/libexec/trace-cmd-test.sh")
			# The benchmark's read loop: static, frame pointers, symbols;
			# again without frame pointers, with .eh_frame_hdr, built
			# and linked by LLVM (lld starts the text in the file page
			# that ends the read-only segment).
			for nofp in "" -nofp; do
				cc=(gcc -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
				[ -z "$nofp" ] || cc=(clang -fuse-ld=lld -fomit-frame-pointer -momit-leaf-frame-pointer
					-fasynchronous-unwind-tables -Wl,--eh-frame-hdr)
				"${cc[@]}" -static -nostdlib -ffreestanding -fno-stack-protector -no-pie -O2 -g \
					-Wall -I"$TREE/tools/testing/selftests/unwind" \
					-o "$dir/readloop$nofp" "$H/bench/syscall.c" > "$dir/readloop.log" 2>&1 ||
					die "$E_BUILD" "the read loop$nofp failed to build" "$dir/readloop.log"
				files+=("$dir/readloop$nofp:usr/libexec/readloop$nofp")
			done
			! want debian.perf ||
				echo "debian.perf $((tmo * 2)) sh /usr/libexec/debian-perf-test.sh /tests/ftrace/unwind_chain /usr/libexec/readloop /usr/libexec/readloop-nofp" >> "$runlist"
			! want debian.trace_cmd ||
				echo "debian.trace_cmd $tmo env TRACE_CMD=trace-cmd-debian sh /usr/libexec/trace-cmd-test.sh /tests/ftrace/unwind_chain" >> "$runlist"
			# The acceptance test on Debian 13's programs, against Debian's
			# perf --call-graph dwarf; the control: compute, frame pointers.
			if want debian13.accept; then
				# No -g: Debian's perf would look for addr2line, which the
				# root has not.
				gcc -static -nostdlib -ffreestanding -fno-stack-protector -no-pie -O2 \
					-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall \
					-I"$TREE/tools/testing/selftests/unwind" -o "$dir/control" "$H/bench/compute.c" > "$dir/control.log" 2>&1 ||
					die "$E_BUILD" "the control program failed to build" "$dir/control.log"
				# The recorder of one event both ways (fp,defer and a
				# stack copy), for the sample-by-sample comparison.
				gcc -static -O2 -Wall -Wextra -isystem "$(build_dir "$v")/usr/include" \
					-o "$dir/pairrec" "$H/guest/pairrec.c" > "$dir/pairrec.log" 2>&1 ||
					die "$E_BUILD" "the pair recorder failed to build" "$dir/pairrec.log"
				files+=("$dir/pairrec:usr/libexec/pairrec")
				files+=("$dir/control:usr/libexec/control" "$H/guest/debian13-test.sh:usr/libexec/debian13-test.sh"
					"$H/guest/debian13-compare.py:usr/libexec/debian13-compare.py")
				echo "debian13.accept $((tmo * 10)) env DEBIAN13_FREQ=${DEBIAN13_FREQ:-500} DEBIAN13_VERBOSE=${DEBIAN13_VERBOSE:-} sh /usr/libexec/debian13-test.sh /usr/libexec/control ${DEBIAN13_PROGRAMS:-python3 gzip sqlite3 control}" >> "$runlist"
			fi
		else
			# Not a skip: the run fails, saying why.
			cp "$LOGS/debian-tools.out" "$dir/debian-tools.out"
			echo "debian.perf 10 tail -n 5 /usr/libexec/debian-tools.out; echo 'not ok 1 Debian tools could not be made (out/logs/debian-tools.log)'; exit 1" >> "$runlist"
			files+=("$dir/debian-tools.out:usr/libexec/debian-tools.out")
		fi
	fi
	[ "$v" != guest ] && [ "$(variant "$v" runs)" != distro ] || perf_regress_list
	perf_shell_tests
	# The benchmarks, a few iterations each, last: the core driver takes the
	# test module's counting kprobes away while it runs. check.sh feeds their
	# lines to the host's table scripts. perf's on guest only.
	smoke=()
	[ "$v" != guest ] || ! want bench.perf || smoke+=(perf:guest.sh)
	[ "$(variant "$v" runs)" != tests ] || ! want bench.core || smoke+=(core:core.sh)
	if [ ${#smoke[@]} -gt 0 ]; then
		sb=$OUT/bench/smoke-$v
		bench_programs "$sb" "$LOGS/bench-smoke-$v.log" "10 1000"
		cat > "$sb/params" <<-PARAMS
		REPS=1
		PERIOD=250000
		DWARF_SIZE=8192
		WORKLOADS="syscall compute nofp"
		MODES="none fp defer dwarf"
		ARGS_syscall="4 4194304"
		ARGS_compute="4 80 2000000"
		ARGS_nofp="4 80 2000000"
		PARAMS
		cat > "$sb/core-params" <<-PARAMS
		ROUNDS=1
		ITERS=6
		REPEAT=4
		WALK_ITERS=2
		DEPTHS="4 60"
		CPUS="1 2"
		SECTIONS="exe cold nocache v2 v2pcrel v3 ehf ehfcold ehfnocache"
		FDES="10 1000"
		FDE_DEPTH=60
		PARAMS
		bench_files "$sb"
		files+=("${BENCH_FILES[@]}" "$H/guest/bench-smoke.sh:usr/libexec/bench-smoke.sh")
		for s in "${smoke[@]}"; do
			echo "bench.${s%%:*} $tmo sh /usr/libexec/bench-smoke.sh /bench/${s#*:}" >> "$runlist"
		done
	fi
	;;
cross)
	# Another architecture's kernel (arm64): KUnit at boot, and the
	# selftest programs built for that architecture (selftests.sh), and
	# the series' ftracetest cases.
	while IFS=: read -r coll prog; do
		[ -n "$prog" ] || continue
		[ "$coll" != ftrace ] || continue
		want "$coll.$prog" || continue
		echo "$coll.$prog $tmo ./$coll/$prog" >> "$runlist"
	done < "$kst/kselftest-list.txt"
	if [ -x "$kst/ftrace/ftracetest" ] && want ftrace.userstacktrace_delay; then
		tcs=$(cd "$kst/ftrace" && ls test.d/*/*userstacktrace-delay*.tc)
		# shellcheck disable=SC2086 # one word per test case
		echo "ftrace.userstacktrace_delay $tmo cd ftrace && ./ftracetest -K -v" $tcs >> "$runlist"
	fi
	# The same shell tests as on guest, with the series' perf built for
	# arm64 (perf.sh --arch arm64).
	[ "$(variant "$v" arch)" != arm64 ] || perf_shell_tests
	# Debian's own perf (7.3) and trace-cmd (3.4) built for arm64, as users
	# have them (arm64-debs.sh), with the read loop built for arm64: the
	# same scripts as on guest.
	if [ "$(variant "$v" arch)" = arm64 ] && { want debian.perf || want debian.trace_cmd; }; then
		if a64tools=$("$H/arm64-debs.sh" tools 2> "$LOGS/arm64-tools.out"); then
			files+=("$a64tools/:." "$H/guest/debian-perf-test.sh:usr/libexec/debian-perf-test.sh"
				"$H/guest/trace-cmd-test.sh:usr/libexec/trace-cmd-test.sh")
			for nofp in "" -nofp; do
				fp=(-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer)
				[ -z "$nofp" ] || fp=(-fomit-frame-pointer -momit-leaf-frame-pointer -fasynchronous-unwind-tables -Wl,--eh-frame-hdr)
				clang --target=aarch64-linux-gnu -fuse-ld=lld -static -nostdlib -ffreestanding \
					-fno-stack-protector -O2 -g "${fp[@]}" -mbranch-protection=pac-ret \
					-Wall -isystem "$(build_dir "$v")/usr/include" -I"$TREE/tools/testing/selftests/unwind" \
					-o "$dir/readloop$nofp" "$H/bench/syscall.c" > "$dir/readloop.log" 2>&1 ||
					die "$E_BUILD" "the read loop$nofp failed to build for arm64" "$dir/readloop.log"
				files+=("$dir/readloop$nofp:usr/libexec/readloop$nofp")
			done
			! want debian.perf ||
				echo "debian.perf $((tmo * 2)) sh /usr/libexec/debian-perf-test.sh /tests/ftrace/unwind_chain /usr/libexec/readloop /usr/libexec/readloop-nofp" >> "$runlist"
			! want debian.trace_cmd ||
				echo "debian.trace_cmd $tmo env TRACE_CMD=trace-cmd-debian sh /usr/libexec/trace-cmd-test.sh /tests/ftrace/unwind_chain" >> "$runlist"
		else
			# Not a skip: the run fails, saying why.
			cp "$LOGS/arm64-tools.out" "$dir/debian-tools.out"
			echo "debian.perf 10 tail -n 5 /usr/libexec/debian-tools.out; echo 'not ok 1 Debian tools for arm64 could not be made (out/logs/arm64-tools.log)'; exit 1" >> "$runlist"
			files+=("$dir/debian-tools.out:usr/libexec/debian-tools.out")
		fi
	fi
	;;
*)
	die "$E_USAGE" "variant $v is built, never booted"
	;;
esac

[ -z "$perf_files" ] || files+=("$perf_tests/:usr/libexec/perf/tests/shell"
	"$H/guest/perf-test.sh:usr/libexec/perf-test.sh")
# The static perf tool, for the tests that drive it; arm64's is built only
# for its guest, which fails its perf tests without it.
if [ "$(variant "$v" arch)" = arm64 ]; then
	perf=$(build_dir perf-arm64)/perf
	if [ -n "$perf_files" ] && [ ! -x "$perf" ]; then
		echo "no $perf (run: harness/perf.sh --arch arm64)" > "$dir/perf-missing.out"
		files+=("$dir/perf-missing.out:usr/libexec/perf-missing.out")
		sed -i 's|^\(perf\.[^ ]*\) .*|\1 10 cat /usr/libexec/perf-missing.out; echo "not ok 1 no perf for arm64"; exit 1|' "$runlist"
	fi
else
	perf=$(build_dir perf)/perf
fi
[ "$(variant "$v" runs)" = cross ] && [ "$(variant "$v" arch)" != arm64 ] || [ ! -x "$perf" ] ||
	files+=("$perf:usr/bin/perf")
# Another architecture's busybox.
bb=""
if [ "$(variant "$v" arch)" = arm64 ]; then
	bb=$("$H/arm64-debs.sh" busybox) || exit
fi

append=${BOOT_APPEND:-}
if [ -n "$only" ]; then
	append="$append kunit.filter_glob=${only#kunit.}"
	[ -s "$runlist" ] || info "$name: no selftest program matches '$only'"
fi
BUSYBOX=$bb "$H/initramfs.sh" "$dir/initramfs.cpio.gz" "$dir/root" "$runlist" "${files[@]}"
rm -rf "$dir/root"
BOOT_APPEND=$append "$H/boot.sh" "$v" "$dir/initramfs.cpio.gz" "$dir"
# With a thread per vCPU, QEMU 7.2 may run the int3 of a kernel text patch
# that has completed (see harness/boot.sh): the first Oops is an int3 whose
# byte, as its Code: line shows memory, is no longer 0xcc. That failure of
# the emulator, and only that, gets one more boot; the first run's console
# and results are kept as console.int3.log and results.int3.log. Any report
# of the second boot fails the run as usual.
if [ "${BOOT_TCG:-$(variant "$v" tcg)}" = multi ] &&
   [ "$(stale_int3 "$dir/console.log")" = stale ]; then
	warn "$name: QEMU ran the int3 of a finished kernel text patch (an emulator failure, see harness/boot.sh); booting once more (first run: $dir/console.int3.log)"
	mv "$dir/console.log" "$dir/console.int3.log"
	mv "$dir/results.log" "$dir/results.int3.log"
	BOOT_APPEND=$append "$H/boot.sh" "$v" "$dir/initramfs.cpio.gz" "$dir"
fi
rc=0
python3 "$H/report.py" parse --name "$name" --console "$dir/console.log" \
	--results "$dir/results.log" --json "$dir/result.json" || rc=$?
if [ $rc -eq "$E_TEST_FAILURE" ]; then
	show_tail "$dir/results.log" 30
elif [ $rc -ne 0 ]; then
	show_tail "$dir/console.log" 30
fi
exit $rc
