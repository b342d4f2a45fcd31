# SPDX-License-Identifier: GPL-2.0
# The front door: every target calls a script in harness/. See README.md.

H := harness
.PHONY: help deps base tree config build selftests run check series bisect bench clean distclean

help:
	@echo 'make run        build the patched kernel and perf, boot in QEMU, show perf with deferred callchains'
	@echo 'make check      build everything and run every test; ends with "N passed, N failed"'
	@echo 'make series     export the series as patches (out/series) and checkpatch them'
	@echo 'make bisect     build the guest kernel (and perf, on tools commits) after each commit'
	@echo 'make bench      perf call-graph costs: fp vs fp,defer vs dwarf in QEMU (out/bench/table.txt)'
	@echo 'make deps       install missing Debian packages (root or sudo)'
	@echo 'make tree       base + series into out/tree (incremental)'
	@echo 'make build      configure and build the guest kernel (V=guest|debug|nounwind|old)'
	@echo 'make selftests  build the selftests against the guest kernel'
	@echo 'make clean      remove builds and logs, keep the unpacked base'
	@echo 'make distclean  remove out/ entirely'

V ?= guest

deps:
	@$(H)/deps.sh
base: deps
	@$(H)/base.sh
tree: base
	@$(H)/apply.sh
config: tree
	@$(H)/config.sh $(V)
build: config
	@$(H)/build.sh $(V)
selftests: build
	@$(H)/selftests.sh $(V)
run:
	@$(H)/run.sh
bench:
	@$(H)/bench.sh
check:
	@$(H)/check.sh
series: tree
	@$(H)/series.sh
bisect: tree
	@$(H)/bisect.sh
clean:
	rm -rf out/build out/logs out/results out/stage out/kselftest out/selftests-build out/initramfs* out/runlist-*
distclean:
	rm -rf out
