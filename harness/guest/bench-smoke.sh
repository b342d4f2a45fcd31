#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check's smoke run of one benchmark: run its guest script with the
# tiny settings guest-run.sh packed, let its lines through (check.sh feeds
# them to the host's table script), and report one TAP result on its exit
# status.
#
# Usage: bench-smoke.sh SCRIPT
echo "TAP version 13"
echo "1..1"
rc=0
sh "$1" || rc=$?
if [ $rc -eq 0 ]; then
	echo "ok 1 runs"
else
	echo "not ok 1 runs # $1 exited with status $rc"
fi
