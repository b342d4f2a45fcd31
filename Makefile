# SPDX-License-Identifier: GPL-2.0
# The front door: every target calls a script in harness/. See README.md.

H := harness
VARIANT ?= guest
.PHONY: help deps base tree export series checkpatch roundtrip config build \
	selftests perf run demo check test shell bisect bench bench-ftrace distro-objs distro distro-deb sframe-host fuzz build-coverage clean distclean

help:
	@echo 'The two commands:'
	@echo '  make run        build the patched kernel and perf, boot them in QEMU, show perf'
	@echo '                  with deferred user callchains (the same as make demo)'
	@echo '  make check      build everything and run every test; ends with "N passed, N failed"'
	@echo
	@echo 'The series (series/*.patch, applied in out/tree with git am):'
	@echo '  make tree       out/tree: the base as first commit + series/ applied (incremental)'
	@echo '  make export     write the commits of out/tree back to series/'
	@echo '  make series     the mailable series with its cover letter in out/series'
	@echo '  make checkpatch checkpatch.pl --strict and MAINTAINERS coverage of every patch'
	@echo '  make roundtrip  series/ applies with git am and exports back byte for byte'
	@echo '  make bisect     build the guest kernel (and perf) after every commit'
	@echo
	@echo 'Kernels and guests (VARIANT= one of the names in harness/variants):'
	@echo '  make build      configure and build the VARIANT kernel'
	@echo '  make selftests  build the selftests against the VARIANT kernel'
	@echo '  make perf       build the static perf tool from out/tree'
	@echo '  make test T=GLOB  run only the matching tests in a VARIANT guest'
	@echo '                  (selftest programs unwind.NAME, KUnit suites kunit.NAME,'
	@echo '                  perf'"'"'s shell tests perf.callchain_deferred_NAME)'
	@echo '  make shell      boot the VARIANT kernel with an interactive shell'
	@echo '  make bench      perf call-graph costs: fp vs fp,defer vs dwarf (out/bench/table.txt);'
	@echo '                  request, walk and cookie costs (out/bench/core.txt); Debian 13'
	@echo '                  programs: fp,defer against dwarf (out/bench/debian13.txt)'
	@echo '  make bench-ftrace  ftrace ring-buffer bytes and frames: userstacktrace vs'
	@echo '                  userstacktrace_delay (out/bench/ftrace.txt)'
	@echo '  make distro-objs  the series'"'"' objects with Debian'"'"'s amd64 and arm64 configs, W=1'
	@echo '                  and sparse'
	@echo '  make distro     Debian'"'"'s own configs with the series (amd64, and PREEMPT_RT with lockdep;'
	@echo '                  modules off, the test code as modules), booted with every test, and'
	@echo '                  the whole of perf test and selftests/perf_events, base against series'
	@echo '                  (not in make check; long builds)'
	@echo '  make distro-deb  the distro kernel as Debian packages (bindeb-pkg) in out/deb, installed'
	@echo '                  and removed with dpkg in a fresh Debian chroot (debootstrap)'
	@echo '  make sframe-host  the SFrame parser built in user space (ASan, UBSan), its host tests'
	@echo '  make fuzz       the SFrame parser'"'"'s libFuzzer target (clang): its regression inputs,'
	@echo '                  then FUZZ_RUNS inputs; corpus in out/fuzz/corpus, findings in out/fuzz/crashes'
	@echo '  make build-coverage  UML defconfig, and x86_64 randconfigs (fixed seeds)'
	@echo '                  compiling the series'"'"' objects (not in make check)'
	@echo '  make deps       install missing Debian packages (root or sudo)'
	@echo '  make clean      remove builds, runs and logs; keep the base and out/tree'
	@echo '  make distclean  remove out/ entirely (refuses while out/tree holds unexported work)'
	@echo
	@echo 'Settings (make VAR=value or the environment):'
	@echo '  VARIANT=guest   kernel variant: guest, debug, old, nounwind, arm64, distro, distro-rt'
	@echo '                  (harness/variants)'
	@echo '  T=GLOB          tests for make test'
	@echo '  FORCE=1         make tree / distclean: discard work in out/tree that is not exported'
	@echo '  BOOT_APPEND=..  extra kernel command line for every boot'
	@echo '  BOOT_TIMEOUT=s  seconds before a boot is killed (default per variant)'
	@echo '  ALLOW_SKIP=1    skipped tests do not fail the run'
	@echo '  BISECT_FROM=N   make bisect: start at commit N of the series (default 1)'
	@echo '  JOBS=n          parallel build jobs (default: the number of CPUs)'
	@echo '  NO_CCACHE=1     build without ccache'
	@echo '  BENCH_*         make bench settings (harness/bench.sh)'
	@echo '  FUZZ_RUNS=n     make fuzz: inputs to run (default 10000000)'
	@echo '  FUZZ_TIME=s     make fuzz: seconds to run instead (with FUZZ_RUNS: whichever ends first)'
	@echo '  FUZZ_TARGET=eh_frame  make fuzz: the .eh_frame reader'"'"'s target instead (out/fuzz-eh_frame)'
	@echo '  V=1             verbose kernel builds (kbuild)'

deps:
	@$(H)/deps.sh
base: deps
	@$(H)/base.sh
tree: base
	@$(H)/tree.sh
export:
	@$(H)/export.sh
series: base
	@$(H)/series.sh
checkpatch: base
	@$(H)/checkpatch.sh
roundtrip: tree
	@$(H)/roundtrip.sh
config: tree
	@$(H)/config.sh $(VARIANT)
build: config
	@$(H)/build.sh $(VARIANT)
selftests: build
	@$(H)/selftests.sh $(VARIANT)
perf: tree
	@$(H)/perf.sh > /dev/null
run demo:
	@$(H)/demo.sh
check:
	@$(H)/check.sh
test:
	@$(H)/test.sh $(VARIANT) '$(T)'
shell:
	@$(H)/shell.sh $(VARIANT)
bisect: base
	@$(H)/bisect.sh
bench:
	@$(H)/bench.sh
bench-ftrace:
	@$(H)/bench-ftrace.sh
distro-objs: tree
	@$(H)/distro-objs.sh
	@$(H)/distro-objs.sh --arch arm64
distro: tree
	@$(H)/distro.sh
distro-deb: tree
	@$(H)/distro-deb.sh
sframe-host: tree
	@$(H)/sframe-host.sh
fuzz: tree
	@$(H)/fuzz.sh $(if $(FUZZ_TARGET),--target $(FUZZ_TARGET))
build-coverage: tree
	@$(H)/build-coverage.sh
clean:
	rm -rf out/tree/build-* out/base-tree/build-* out/bisect-tree/build-* out/build \
		out/logs out/runs out/kselftest out/kselftest-* out/selftests-build \
		out/selftests-build-* out/demo out/bench out/roundtrip out/series out/docs-build
distclean:
	@$(H)/distclean.sh
