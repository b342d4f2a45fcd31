#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make distro: the series on Debian's own config of the base's version
# (linux-config-6.12), booted in QEMU, with the whole selftest suite, the
# test module and the KUnit suites loaded as modules. config.sh starts from
# Debian's config with every module turned off and adds configs/distro.config
# and the selftests' fragment; CONFIG_UNWIND_USER must then be =y from the
# arch's select alone. Not part of make check: the build takes long on two
# cores (see README). Ends with "N passed, N failed".
#
# Then the build-only variants linked (make check compiles their objects
# only), the series' objects with Debian's arm64 config, W=1 and sparse
# (make check does this for amd64), the whole of perf's and perf_events'
# own tests, base kernel against series (make check runs a subset of
# them), and make build-coverage's builds (User Mode Linux, fixed-seed
# randconfigs).
#
# Usage: distro.sh [VARIANT...]   (default: every variant whose runs is distro)
#   NO_PERF_WHOLE=1      leave out the whole perf comparison
#   NO_BUILD_COVERAGE=1  leave out the UML and randconfig builds
. "$(dirname "$0")/lib.sh"

case ${1:-} in -h|--help) sed -n '2,18p' "$0"; exit 0 ;; esac
vs=("$@")
[ ${#vs[@]} -gt 0 ] || mapfile -t vs < <(variants distro)
for v in "${vs[@]}"; do
	[ "$(variant "$v" runs)" = distro ] || die "$E_USAGE" "distro.sh: $v is not a distro variant"
done
"$H/tree.sh" || exit $?
rm -f "$LOGS/phases.tsv"
t_start=$(date +%s)
results=()

# The series' test modules, stripped, flat, in the build's order, and
# signed with the build's own key as modules_install would (Debian's
# config signs modules; an unsigned one taints the kernel when it loads).
collect_modules() {
	local b=$1 m=$1/modules p hash
	rm -rf "$m"
	mkdir -p "$m"
	: > "$m/modules.order"
	hash=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "$b/.config")
	while read -r p; do
		p=${p%.o}.ko
		strip --strip-debug -o "$m/$(basename "$p")" "$b/$p" || return 1
		if grep -qx 'CONFIG_MODULE_SIG=y' "$b/.config"; then
			"$b/scripts/sign-file" "$hash" "$b/certs/signing_key.pem" \
				"$b/certs/signing_key.x509" "$m/$(basename "$p")" || return 1
		fi
		basename "$p" >> "$m/modules.order"
	done < "$b/modules.order"
}

one() {
	local v=$1 b
	b=$(build_dir "$v")
	phase "config-$v"
	"$H/config.sh" "$v" || { record "$v" "$?" "config.$v=fail"; return 1; }
	# The walker must come from the arch's select, not from a fragment.
	if grep -q '^CONFIG_UNWIND_USER=' "$b/.config.want" ||
	   ! grep -qx 'CONFIG_UNWIND_USER=y' "$b/.config" ||
	   ! grep -qx 'CONFIG_HAVE_UNWIND_USER_FP=y' "$b/.config"; then
		record "$v" "$E_CONFIG" "distro.$v.unwind_user_selected=fail"
		warn "$v: CONFIG_UNWIND_USER=y does not come from the arch's select"
		return 1
	fi
	record "$v.config" 0 "distro.$v.unwind_user_selected=pass"
	info "$v: CONFIG_UNWIND_USER=y from the arch's select; $(grep -c '=y$' "$b/.config") options =y, $(grep -c '=m$' "$b/.config") =m"
	phase "build-$v"
	"$H/build.sh" "$v" || { record "$v" "$?" "build.$v=fail"; return 1; }
	with_build_lock make -C "$TREE" O="$b" ARCH=x86_64 -j"$JOBS" modules \
		>> "$LOGS/build-$(basename "$b").log" 2>&1 && collect_modules "$b" ||
		{ record "$v" "$E_BUILD" "build.$v.modules=fail"; return 1; }
	info "$v: modules $(tr '\n' ' ' < "$b/modules/modules.order")"
	phase "selftests-$v"
	"$H/selftests.sh" "$v" || { record "$v" "$?" "selftests.$v=fail"; return 1; }
	# The perf tests in the guest drive the static perf from the tree.
	phase "perf-$v"
	"$H/perf.sh" > /dev/null || { record "$v" "$?" "build.perf=fail"; return 1; }
	phase "boot-$v"
	"$H/guest-run.sh" "$v" "$v" || true
	if [ -f "$(run_dir "$v")/result.json" ]; then
		results+=("$(run_dir "$v")/result.json")
	else
		record "$v" "$E_BOOT" "boot.$v=fail"
	fi
	return 0
}

# The whole of perf's "perf test" and of the perf_events selftests, on the
# base kernel (old) and on the series' kernel of the same config (guest),
# with the series' perf on both (make check runs a subset): every case that
# passes on the base passes with the series, and harness/perf-regress.known
# says why each case that passes on neither cannot pass in these guests.
perf_whole() {
	local v c
	for v in old guest; do
		phase "build-$v"
		"$H/config.sh" "$v" && "$H/build.sh" "$v" ||
			{ record perf-whole "$E_BUILD" "build.$v=fail"; return 1; }
	done
	phase selftests-guest
	"$H/selftests.sh" guest || { record perf-whole "$E_BUILD" "selftests.guest=fail"; return 1; }
	for v in old guest; do
		phase "boot-perf-whole-$v"
		PERF_REGRESS=all BOOT_TIMEOUT=3000 "$H/guest-run.sh" "$v" "perf-whole-$v" \
			--only 'perf[._][re]*' > /dev/null || true
	done
	for c in perf-whole:perf.regress. perf-events-whole:perf_events.; do
		compare_base "${c%%:*}" "${c#*:}" perf-whole-old perf-whole-guest \
			"$H/perf-regress.known"
	done
}

# Builds that broke mainline's version of this code (make build-coverage):
# User Mode Linux and fixed-seed x86_64 randconfigs, compile-only.
build_coverage() {
	local json
	json=$(run_dir build-coverage)/result.json
	phase build-coverage
	rm -f "$json"
	mkdir -p "$(dirname "$json")"
	"$H/build-coverage.sh" --json "$json" || true
	if [ -f "$json" ]; then
		results+=("$json")
	else
		record build-coverage "$E_BUILD" "build.coverage=fail"
	fi
}

# The build-only variants (CONFIG_UNWIND_USER=n), linked: make check
# compiles only the series' objects there.
build_only() {
	local v rc
	for v in $(variants build); do
		phase "build-$v"
		rc=0
		{ "$H/config.sh" "$v" && "$H/build.sh" "$v"; } || rc=$?
		record "$v" "$rc" "build.$v=$([ $rc -eq 0 ] && echo pass || echo fail)"
	done
}

# The series' objects with Debian's arm64 config (distro-objs.sh).
distro_objs_arm64() {
	local n=distro-objs-arm64 rc=0
	phase "$n"
	"$H/distro-objs.sh" --arch arm64 --json "$(run_dir "$n")/result.json" || rc=$?
	if [ -f "$(run_dir "$n")/result.json" ]; then
		results+=("$(run_dir "$n")/result.json")
	else
		record "$n" "$rc" "distro.objs-arm64=fail"
	fi
}

for v in "${vs[@]}"; do
	one "$v" || true
done
build_only
distro_objs_arm64
[ -n "${NO_PERF_WHOLE:-}" ] || perf_whole || true
[ -n "${NO_BUILD_COVERAGE:-}" ] || build_coverage
phase_end
printf '\nPhase times (s):\n'
awk -F'\t' '{ printf "  %-24s %5d\n", $1, $2 }' "$LOGS/phases.tsv"
printf '  %-24s %5d\n\nResults (runs in %s, logs in %s):\n' total \
	$(( $(date +%s) - t_start )) "$RUNS" "$LOGS"
python3 "$H/report.py" summary "${results[@]}"
