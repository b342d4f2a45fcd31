#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench guest's raw lines into the comparison table.

  table.py RESULTS-LOG OUTDIR

Reads the BENCH lines that harness/bench/guest.sh printed, writes
OUTDIR/raw.txt (those lines), OUTDIR/bench.json (per workload and mode) and
OUTDIR/table.txt, and prints the table. Exits 1, saying why, when a run failed
or is missing, or when the figures show that a mode did not do what it names
(no user frames with fp, no deferred records with fp,defer).
"""

import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

MODES = [("fp", "fp"), ("defer", "fp,defer"), ("dwarf", "dwarf")]
WORKLOADS = {
    "syscall": "syscall: {0} x read(2) of {1} from /dev/zero, 6 frames deep",
    "compute": "compute: {0} x {2} rounds of arithmetic, {1} frames deep",
    "nofp": "nofp: compute built -fomit-frame-pointer -Wa,--gsframe, {0} x {2} rounds, {1} deep",
}
INTS = ("elapsed_ns", "samples", "sample_bytes", "deferred", "deferred_bytes",
        "user_bytes", "user_frames", "no_user", "unmatched", "lost",
        "file_bytes")


def parse(lines):
    """The parameters, the runs {(workload, mode): [fields...]} and failures."""
    params, runs, fails = {}, {}, []
    for line in lines:
        words = line.split()
        if line.startswith("BENCH-PARAMS "):
            rest = line.split(None, 1)[1]
            import shlex
            w = shlex.split(rest)
            params = dict(zip(w[::2], w[1::2]))
        elif line.startswith("BENCH-FAIL "):
            fails.append(line.strip())
        elif words[:1] == ["BENCH"] and len(words) >= 4:
            run = {"rep": int(words[3])}
            for k, v in zip(words[4::2], words[5::2]):
                run[k] = int(v) if k in INTS else float(v)
            runs.setdefault((words[1], words[2]), []).append(run)
    return params, runs, fails


def summarize(runs, reps):
    """Per workload and mode: the figures of the table, and the problems."""
    out, problems = {}, []
    for w in WORKLOADS:
        base = runs.get((w, "none"), [])
        if len(base) < reps:
            problems.append("%s unprofiled: %d of %d runs" % (w, len(base), reps))
            continue
        t0 = statistics.median(r["elapsed_ns"] for r in base)
        by_rep = {r["rep"]: r["elapsed_ns"] for r in base}
        out[w] = {"unprofiled_s": t0 / 1e9}
        for mode, label in MODES:
            rs = runs.get((w, mode), [])
            if len(rs) < reps:
                problems.append("%s %s: %d of %d runs" % (w, label, len(rs), reps))
                continue
            tot = {k: sum(r[k] for r in rs) for k in INTS}
            n = tot["samples"]
            if not n:
                problems.append("%s %s: no samples" % (w, label))
                continue
            out[w][mode] = {
                "samples": statistics.median(r["samples"] for r in rs),
                "bytes_per_sample": (tot["sample_bytes"] + tot["deferred_bytes"]) / n,
                "user_bytes_per_sample": tot["user_bytes"] / n,
                "deferred_per_sample": tot["deferred"] / n,
                "user_frames_per_sample": tot["user_frames"] / n,
                "no_user_stack_pct": 100.0 * (tot["no_user"] + tot["unmatched"]) / n,
                "lost": tot["lost"],
                "slowdown": statistics.median(r["elapsed_ns"] for r in rs) / t0,
                "slowdown_range": (min(r["elapsed_ns"] for r in rs) / t0,
                                   max(r["elapsed_ns"] for r in rs) / t0),
                # Each run over the unprofiled run of the same round.
                "slowdown_ci": stats.median_ci(
                    [r["elapsed_ns"] / by_rep[r["rep"]] for r in rs if r["rep"] in by_rep]),
                "runs": rs,
            }
            if mode != "dwarf" and not tot["user_frames"]:
                problems.append("%s %s: no user frames in any sample" % (w, label))
            if mode == "defer" and not tot["deferred"]:
                problems.append("%s fp,defer: no deferred records (did perf "
                                "fall back to fp?)" % w)
            if mode != "defer" and tot["deferred"]:
                problems.append("%s %s: deferred records without defer" % (w, label))
    return out, problems


ROWS = [
    ("samples (median of runs)", "samples", "%.0f"),
    ("bytes/sample, sample+deferred recs", "bytes_per_sample", "%.0f"),
    ("  of which user stack", "user_bytes_per_sample", "%.0f"),
    ("deferred records/sample", "deferred_per_sample", "%.3f"),
    ("user frames/sample", "user_frames_per_sample", "%.1f"),
    ("samples without user stack", "no_user_stack_pct", "%.1f%%"),
    ("lost samples (all runs)", "lost", "%d"),
    ("slowdown vs unprofiled", "slowdown", "%.2fx"),
    ("  range over runs", "slowdown_range", "%.2f-%.2f"),
    ("  paired: median", "slowdown_ci", None),
    ("  [95% interval]", "slowdown_ci", None),
]


def table(params, summary):
    lines = [
        "perf record -e cpu-clock -c %s --call-graph MODE; dwarf stack dump %s "
        "bytes" % (params.get("period_ns", "?"), params.get("dwarf_size", "?")),
        "%s runs per cell, interleaved; QEMU TCG guest, %s vCPUs" %
        (params.get("reps", "?"), params.get("cpus", "?")),
        "",
        "%-36s %12s %12s %12s" % ("", *(label for _, label in MODES)),
    ]
    for w, title in WORKLOADS.items():
        if w not in summary:
            continue
        args = params.get(w + "_args", "").split()
        if w == "syscall" and len(args) == 2 and args[1].isdigit():
            args[1] = "%g MiB" % (int(args[1]) / 2**20)
        try:
            title = title.format(*args)
        except IndexError:
            pass
        lines.append("%s; unprofiled %.2f s" % (title, summary[w]["unprofiled_s"]))
        for name, key, fmt in ROWS:
            cells = []
            for mode, _ in MODES:
                m = summary[w].get(mode)
                if m is None or (mode == "dwarf" and key == "user_frames_per_sample"):
                    cells.append("-")
                elif fmt is None:
                    med, lo, hi = m[key]
                    if name.strip().startswith("paired"):
                        cells.append("%.2fx" % med)
                    else:
                        cells.append("n<6" if lo is None else "%.2f-%.2f" % (lo, hi))
                else:
                    cells.append(fmt % m[key])
            lines.append("  %-34s %12s %12s %12s" % (name, *cells))
        ranked = [(label, summary[w][mode]["slowdown_ci"]) for mode, label in MODES
                  if mode in summary[w]]
        if ranked:
            lines.append("  %-34s %s" % ("ranked by slowdown", stats.rank(ranked)))
        lines.append("")
    lines += [
        "bytes/sample: bytes of all PERF_RECORD_SAMPLE and _CALLCHAIN_DEFERRED",
        "  records (headers included) / samples, all runs of the cell.",
        "user stack: fp: the callchain from PERF_CONTEXT_USER on; fp,defer: the",
        "  deferred records' ips + the 16 bytes of USER_DEFERRED marker and cookie",
        "  in each sample; dwarf: user regs (abi + regs) + stack dump (size + data",
        "  + dyn_size).",
        "user frames: user addresses per sample (fp,defer: those of the record",
        "  with the sample's cookie); dwarf is not unwound here.",
        "slowdown: median workload time under perf / median unprofiled time; the",
        "  workload times its own loop (perf start-up and write-out excluded);",
        "  range: each run's time / median unprofiled time, lowest and highest.",
        "paired: each run's time / the unprofiled run's of the same round; the",
        "  median and its 95% interval (order statistics; none below 6 rounds).",
        "ranked: '<' where the intervals do not overlap, '~' where they do.",
        "nofp: user frames show what each mode recovers without frame pointers;",
        "  dwarf's are not counted (perf report would unwind them from the dump).",
    ]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 3:
        print("usage: table.py RESULTS-LOG OUTDIR", file=sys.stderr)
        return 2
    with open(sys.argv[1], errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f if l.startswith("BENCH")]
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], "raw.txt"), "w") as f:
        f.write("".join(l + "\n" for l in lines))
    params, runs, fails = parse(lines)
    summary, problems = summarize(runs, int(params.get("reps", 1)))
    text = table(params, summary)
    with open(os.path.join(sys.argv[2], "bench.json"), "w") as f:
        json.dump({"params": params, "summary": summary}, f, indent=1)
    with open(os.path.join(sys.argv[2], "table.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    for p in fails + problems:
        print("bench: " + p, file=sys.stderr)
    return 1 if fails or problems or not params else 0


if __name__ == "__main__":
    sys.exit(main())
