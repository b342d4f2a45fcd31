#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs in the guest of a kernel that builds the series' test code as modules
# (make distro): insmod each module file, in the order given, as TAP, one
# result per module. Loading a KUnit module runs its suites; their KTAP goes
# to the console, where the harness reads the KUnit results of every run.
# The test module stays loaded: the selftests that run next use it.
# Usage: modules.sh MODULE.ko...

n=0
echo "TAP version 13"
echo "1..$#"
for f in "$@"; do
	n=$((n + 1))
	m=$(basename "$f" .ko | tr - _)
	if out=$(insmod "$f" 2>&1) && grep -q "^$m " /proc/modules; then
		echo "ok $n $m"
	else
		echo "# insmod $f: $out"
		echo "not ok $n $m"
	fi
done
