#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ftrace bench's table, from the guest's FTRACE-* lines.

Usage: ftrace_table.py RAW REPS EVENTS

Bytes per system call are the ring buffer's bytes (every CPU's stats: events,
their headers and page padding) over the calls of a run; the stack cost of a
mode is its bytes less those of the run without user stacks in the same
round. Exits 1 when a run is missing, lost events (overrun) or the figures
are impossible.
"""

import statistics
import sys

MODES = ("none", "userstacktrace", "userstacktrace_delay")


def spread(xs):
    return "%.1f (%.1f-%.1f)" % (statistics.median(xs), min(xs), max(xs))


def main(raw, reps, events):
    runs = {}
    frames = None
    errors = []
    with open(raw) as f:
        for line in f:
            w = line.split()
            if w[0] == "FTRACE-BYTES" and len(w) == 7:
                mode, rep = w[1], int(w[2])
                calls, nbytes, entries, overrun = map(int, w[3:])
                if overrun:
                    errors.append("%s rep %d: %d events overwritten" % (mode, rep, overrun))
                runs[(mode, rep)] = (nbytes / calls, entries / calls)
            elif w[0] == "FTRACE-FRAMES":
                frames = [int(x) for x in w[1:]]
    for m in MODES:
        for r in range(1, reps + 1):
            if (m, r) not in runs:
                errors.append("no run of %s, rep %d" % (m, r))
    if frames is None or len(frames) != 3:
        errors.append("no frames line (want: WANT IN_EVENT DEFERRED)")
    if errors:
        for e in errors:
            print("error: " + e)
        return 1
    nev = len(events.split())
    print("ftrace ring buffer per traced system call: getppid(), %d events each "
          "(%s), %d runs per mode, interleaved; median (min-max)" %
          (nev, " ".join(events.split()), reps))
    print("  %-22s %-24s %-20s %s" % ("mode", "bytes/syscall", "entries/syscall",
                                     "stack bytes/syscall"))
    cost = {}
    for m in MODES:
        b = [runs[(m, r)][0] for r in range(1, reps + 1)]
        e = [runs[(m, r)][1] for r in range(1, reps + 1)]
        cost[m] = [runs[(m, r)][0] - runs[("none", r)][0] for r in range(1, reps + 1)]
        print("  %-22s %-24s %-20s %s" % (m, spread(b), spread(e),
                                         "-" if m == "none" else spread(cost[m])))
    ratio = [d / u for d, u in zip(cost["userstacktrace_delay"], cost["userstacktrace"])
             if u > 0]
    if len(ratio) != reps or min(cost["userstacktrace_delay"]) <= 0:
        print("error: a stack mode wrote no more than the run without stacks")
        return 1
    print("  userstacktrace_delay / userstacktrace, stack bytes: %.2f (%.2f-%.2f)" %
          (statistics.median(ratio), min(ratio), max(ratio)))
    want, in_event, deferred = frames
    print("frames recovered, frame records in pages not present (unwind_chain 1 FILE):")
    print("  userstacktrace %d of %d, userstacktrace_delay %d of %d" %
          (in_event, want, deferred, want))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
