#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the core bench guest's lines into the request, walk and cookie tables.

  core_table.py RESULTS-LOG OUTDIR

Reads what harness/bench/core.sh printed, writes OUTDIR/core-raw.txt (those
lines), OUTDIR/core.json and OUTDIR/core.txt, and prints the tables. Exits 1,
saying why, when a run failed or is missing lines, or when a result shows the
measurement did not measure what it names (a first request that was not the
first, a repeated one that was, a walk of the wrong length, an SFrame walk
whose program perf's frame-pointer walk could follow, a section of the wrong
version, a process on the wrong CPU).
"""

import json
import math
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

REQ_DEPTH = 12          # core.sh's req runs
PERF_FRAMES = 16        # core.c's walk limit for req
COOKIE_STEPS = 16       # the module's cookie steps per command
TARGETS = {"first": 1 / 3, "next": 1 / 10}
FDES_FLAT = 2           # target: the lookup cost over the FDE range, at most
# What each converted section must be: (version, PC-relative starts flag).
SECTION_VERSION = {"v2": (2, 0), "v2pcrel": (2, 4), "v3": (3, 4)}
SFC_F_PCREL = 4
# Each cold section: the warm one it is compared with.
COLD = {"cold": "exe", "ehfcold": "ehf"}
# Each section walked with the rule cache off: the cached one it is
# compared with.
NOCACHE = {"nocache": "exe", "ehfnocache": "ehf"}


def frames_of(depth):
    """Frames core.c's stack holds at DEPTH: ip, leaf, the recursion, main,
    _start."""
    return depth + 4


def parse(lines):
    """(params, runs, fails, sections): runs maps each CORE-RUN's words
    (program first) to one list of result rows per instance; sections maps
    them to the CORE-SFRAME lines' words, one list per instance."""
    params, runs, fails, sections, cur = {}, {}, [], {}, None
    for line in lines:
        w = line.split()
        if not w:
            continue
        if w[0] == "CORE-PARAMS":
            s = shlex.split(line.split(None, 1)[1])
            params = dict(zip(s[::2], s[1::2]))
        elif w[0] == "CORE-RUN":
            cur = tuple(w[1:])
            runs.setdefault(cur, []).append([])
            sections.setdefault(cur, []).append([])
        elif w[0] == "CORE-FAIL":
            fails.append(line)
        elif w[0] == "CORE-SFRAME" and cur is not None:
            sections[cur][-1].append(w[1:])
        elif w[:1] == ["bench"] and cur is not None:
            runs[cur][-1].append(w[1:])
    return params, runs, fails, sections


def check_count(problems, key, got, want):
    if got != want:
        problems.append("%s: %d result lines, want %d" % (" ".join(key), got, want))


def section_of(problems, key, insts, want):
    """The one CORE-SFRAME line each instance of @key printed, checked
    against @want (exe, or a converted version); its words, or None."""
    got = None
    for inst in insts:
        if len(inst) != 1 or len(inst[0]) != 5 or inst[0][0] != want:
            problems.append("%s: section lines %s, want one for %s" % (" ".join(key), inst, want))
            return None
        sec, version, flags, fdes, size = inst[0][0], *(int(x) for x in inst[0][1:])
        if want in SECTION_VERSION and (version, flags & SFC_F_PCREL) != SECTION_VERSION[want]:
            problems.append("%s: section version %d flags %#x, want %s"
                            % (" ".join(key), version, flags, want))
            return None
        got = {"section": sec, "version": version, "flags": flags, "fdes": fdes,
               "bytes": size}
    return got


def summarize(params, runs, sections=None):
    problems = []
    sections = sections or {}
    rounds = int(params.get("rounds", 0))
    iters = int(params.get("iters", 0))
    repeat = int(params.get("repeat", 1))
    walk_iters = int(params.get("walk_iters", 0))
    fde_depth = int(params.get("fde_depth", 0))
    out = {"req": {}, "walk": {}, "sframe": {}, "fdes": {}, "cookie": {}}
    fp_frame = {}       # depth: frame-pointer walk ns per frame, each walk
    sf_frame = {}       # (depth, section): SFrame walk ns per frame
    sf_walk = {}        # (depth, section): SFrame ns per walk
    fde_frame = {}      # functions added: SFrame walk ns per frame

    for key, instances in sorted(runs.items()):
        if len(instances) != rounds:
            problems.append("%s: %d runs, want %d" % (" ".join(key), len(instances), rounds))
        rows = [r for inst in instances for r in inst]
        prog, kind = key[0], key[1] if len(key) > 1 else ""
        if kind == "req":
            ctx = key[2]
            for inst in instances:
                check_count(problems, key, len(inst), iters)
            # Per order ("walk" or "req" ran first): each figure's values.
            s = {o: {k: [] for k in ("first", "next", "repeat", "walk", "clock")}
                 for o in ("walk", "req")}
            for r in rows:
                order = r[2]
                ret, bad, first, nxt, rep, walk, frames, clock = (int(x) for x in r[3:11])
                if (order not in s or ret != 0 or bad or
                        frames != min(PERF_FRAMES, frames_of(REQ_DEPTH))):
                    problems.append("req %s: ret %d, %d later requests not 1, %d frames: %s"
                                    % (ctx, ret, bad, frames, " ".join(r)))
                    continue
                # Each region holds one clock read's worth of time (the
                # empty region's); the walk is timed apart from the rest.
                for k, v in (("first", first - clock), ("next", nxt - clock),
                             ("repeat", (rep - clock) / repeat), ("walk", walk - clock),
                             ("clock", clock)):
                    s[order][k].append(max(v, 0))
            if all(s[o]["first"] for o in s):
                # "cold": each one measured first in its handler; "warm":
                # each one measured after the other.
                fig = {
                    "cold": {"first": s["req"]["first"], "next": s["req"]["next"],
                             "repeat": s["req"]["repeat"], "walk": s["walk"]["walk"],
                             "clock": s["req"]["clock"] + s["walk"]["clock"]},
                    "warm": {"first": s["walk"]["first"], "next": s["walk"]["next"],
                             "repeat": s["walk"]["repeat"], "walk": s["req"]["walk"],
                             "clock": s["req"]["clock"] + s["walk"]["clock"]},
                }
                res = {}
                for o, f in fig.items():
                    res[o] = {k: stats.median_ci(v) for k, v in f.items()}
                    for k in ("first", "next", "repeat"):
                        res[o]["r_" + k] = stats.ratio_ci(f[k], f["walk"])
                # The same walk timed after the requests against before:
                # what the first request leaves behind in its handler (from
                # NMI: the self-interrupt it raised, pending until the end).
                res["walk_after"] = stats.ratio_ci(s["req"]["walk"], s["walk"]["walk"])
                out["req"][ctx] = res
        elif kind == "walk" and prog == "core":
            depth = int(key[2])
            for inst in instances:
                check_count(problems, key, len(inst), walk_iters)
            s = {"walk": [], "perf": [], "ratio": []}
            frames = None
            for r in rows:
                n, fr, ns, pfr, pns = (int(x) for x in r[1:6])
                if fr != frames_of(depth) or pfr != fr:
                    problems.append("walk %d: %d frames, perf's %d, want %d"
                                    % (depth, fr, pfr, frames_of(depth)))
                    continue
                frames = fr
                s["walk"].append(ns / n)
                s["perf"].append(pns / n)
                s["ratio"].append(ns / max(pns, 1))
                fp_frame.setdefault(depth, []).append(ns / n / fr)
            if frames:
                out["walk"][depth] = dict({k: stats.median_ci(v) for k, v in s.items()},
                                          frames=frames)
        elif kind == "walk" and (prog in ("core_sframe", "core_ehf") or
                                 prog.startswith("core_fdes")):
            depth = int(key[2])
            want = key[5] if len(key) > 5 else "?"
            for inst in instances:
                check_count(problems, key, len(inst), walk_iters)
            sec = section_of(problems, key, sections.get(key, []), want)
            vals, walk, perf_frames = [], [], set()
            for r in rows:
                n, fr, ns, pfr, pns = (int(x) for x in r[1:6])
                # perf's frame-pointer walk must lose frames here: else the
                # program kept its frame pointers and this is no SFrame row.
                if fr != frames_of(depth) or pfr >= fr:
                    problems.append("%s: %d frames, perf's fp walk %d, want %d and fewer"
                                    % (" ".join(key), fr, pfr, frames_of(depth)))
                    continue
                # A cold command times the one walk after "sframe forget".
                if want in COLD and n != 1:
                    problems.append("%s: %d walks per command, want 1" % (" ".join(key), n))
                    continue
                vals.append(ns / n / fr)
                walk.append(ns / n)
                perf_frames.add(pfr)
            if not vals or not sec:
                continue
            fig = dict(sec, frames=frames_of(depth), walk=stats.median_ci(walk),
                       frame=stats.median_ci(vals), perf_frames=max(perf_frames))
            if (prog == "core_ehf") != want.startswith("ehf"):
                problems.append("%s: section %s of the wrong program" % (" ".join(key), want))
                continue
            if prog in ("core_sframe", "core_ehf"):
                sf_frame[(depth, want)] = vals
                sf_walk[(depth, want)] = walk
                out["sframe"]["%d %s" % (depth, want)] = dict(fig, depth=depth)
            else:
                if depth != fde_depth:
                    problems.append("%s: depth %d, want fde_depth %d" % (" ".join(key), depth,
                                                                          fde_depth))
                added = int(prog[len("core_fdes"):])
                if sec["fdes"] <= added:
                    problems.append("%s: %d FDEs, want more than the %d functions added"
                                    % (" ".join(key), sec["fdes"], added))
                fde_frame[added] = vals
                out["fdes"][added] = dict(fig, added=added)
        elif kind == "cookie":
            ncpu = int(key[2])
            for inst in instances:
                check_count(problems, key, len(inst), ncpu * iters)
                cpus = {int(r[1]) for r in inst}
                if inst and cpus != set(range(ncpu)):
                    problems.append("cookie %d: ran on CPUs %s" % (ncpu, sorted(cpus)))
            s = {"first": [], "percpu": [], "atomic": [], "clock": []}
            for r in rows:
                _, ret, first, pcpu, atom, clock = (int(x) for x in r[1:7])
                if ret != 0:
                    problems.append("cookie %d: first request returned %d" % (ncpu, ret))
                    continue
                s["first"].append(max(first - clock, 0))
                s["percpu"].append(max(pcpu - clock, 0) / COOKIE_STEPS)
                s["atomic"].append(max(atom - clock, 0) / COOKIE_STEPS)
                s["clock"].append(clock)
            if s["first"]:
                out["cookie"][ncpu] = {k: stats.median_ci(v) for k, v in s.items()}
        else:
            problems.append("%s: no such run" % " ".join(key))
    # Each SFrame row against the frame-pointer walk of its depth; each FDE
    # count against the fewest.
    for (depth, sec), vals in sf_frame.items():
        if depth in fp_frame:
            out["sframe"]["%d %s" % (depth, sec)]["vs_fp"] = stats.ratio_ci(vals, fp_frame[depth])
        else:
            problems.append("no frame-pointer walk at depth %d for the SFrame rows" % depth)
    # The first walk through an object against walks through a known one.
    for (depth, sec), vals in sf_walk.items():
        if sec not in COLD:
            continue
        if (depth, COLD[sec]) in sf_walk:
            out["sframe"]["%d %s" % (depth, sec)]["vs_warm"] = stats.ratio_ci(
                vals, sf_walk[(depth, COLD[sec])])
        else:
            problems.append("no %s walk at depth %d for the %s row" % (COLD[sec], depth, sec))
    # The rule cache: each cached section per frame against itself uncached.
    for (depth, sec), vals in sf_frame.items():
        if sec not in NOCACHE:
            continue
        if (depth, NOCACHE[sec]) in sf_frame:
            out["sframe"]["%d %s" % (depth, NOCACHE[sec])]["vs_nocache"] = stats.ratio_ci(
                sf_frame[(depth, NOCACHE[sec])], vals)
        else:
            problems.append("no %s walk at depth %d for the %s row" % (NOCACHE[sec], depth, sec))
    # .eh_frame against SFrame, frame for frame.
    for (depth, sec), vals in sf_frame.items():
        if sec == "ehf" and (depth, "exe") in sf_frame:
            out["sframe"]["%d ehf" % depth]["vs_sframe"] = stats.ratio_ci(
                vals, sf_frame[(depth, "exe")])
    if fde_frame:
        least = min(fde_frame)
        for added, vals in fde_frame.items():
            out["fdes"][added]["vs_least"] = stats.ratio_ci(vals, fde_frame[least])
    for sec in params.get("sections", "").split():
        for depth in params.get("depths", "").split():
            if "%s %s" % (depth, sec) not in out["sframe"]:
                problems.append("no SFrame figures for %s at depth %s" % (sec, depth))
    for added in params.get("fdes", "").split():
        if int(added) not in out["fdes"]:
            problems.append("no lookup figures for %s functions added" % added)
    for ctx in ("task", "nmi"):
        if ctx not in out["req"]:
            problems.append("no request figures from %s" % ctx)
    if not out["walk"]:
        problems.append("no walk figures")
    if not out["cookie"]:
        problems.append("no cookie figures")
    return out, problems


def verdict(mci, target):
    m, lo, hi = mci
    if hi is not None and hi <= target:
        return "met"
    if lo is not None and lo > target:
        return "NOT met"
    return "met (median)" if m <= target else "not met (median)"


def tables(params, out):
    n = "%s rounds x %s commands" % (params.get("rounds", "?"), params.get("iters", "?"))
    L = ["Core benchmarks: ns of local_clock() in a QEMU TCG guest with %s vCPUs,"
         % params.get("cpus", "?"),
         "the test module's \"bench\" commands; each cell: median [95% interval",
         "of the median]. TCG emulates time: only the ratios mean anything.", ""]

    L.append("1. Request cost against perf's in-interrupt walk (%s per context;" % n)
    L.append("   IRQs off; a %d-frame frame-pointer stack). Every other command walks" % PERF_FRAMES)
    L.append("   before the requests: 'cold' compares each measured first in its")
    L.append("   handler (as a sample handler would run it), 'warm' each measured after")
    L.append("   the other. The empty region's clock cost is subtracted from each.")
    cols = [(c, o) for c in ("task", "nmi") for o in ("cold", "warm")]
    W = 20
    L.append("   %-32s" % "" + "".join("%*s" % (W, "%s %s" % ("task" if c == "task" else "NMI", o))
                                     for c, o in cols))
    rows = [("first request of the entry", "first", "%.0f"),
            ("the next request", "next", "%.0f"),
            ("each of %s more in a row" % params.get("repeat", "?"), "repeat", "%.0f"),
            ("perf's walk, %d frames" % PERF_FRAMES, "walk", "%.0f"),
            ("empty region (clock cost)", "clock", "%.0f")]
    for label, k, f in rows:
        cells = [stats.fmt(out["req"][c][o][k], f) if c in out["req"] else "-"
                 for c, o in cols]
        L.append("   %-32s" % label + "".join("%*s" % (W, x) for x in cells))
    for k, label in (("first", "first / walk"), ("next", "next / walk"),
                     ("repeat", "in a row / walk")):
        cells = [stats.fmt(out["req"][c][o]["r_" + k], "%.2f") if c in out["req"] else "-"
                 for c, o in cols]
        t = " (target 1/%d)" % round(1 / TARGETS[k]) if k in TARGETS else ""
        L.append("   %-32s" % (label + t) + "".join("%*s" % (W, x) for x in cells))
        if k in TARGETS:
            v = [verdict(out["req"][c][o]["r_" + k], TARGETS[k]) if c in out["req"] else "-"
                 for c, o in cols]
            L.append("   %-32s" % "" + "".join("%*s" % (W, x) for x in v))
    L.append("   ratios: median over median, [95% bootstrap interval]; 'met': the")
    L.append("   whole interval is under the target.")
    if all(c in out["req"] for c in ("task", "nmi")):
        L.append("   perf's walk timed after the requests against before them, in the")
        L.append("   same handler: task %s, NMI %s."
                 % (stats.fmt(out["req"]["task"]["walk_after"], "%.2f"),
                    stats.fmt(out["req"]["nmi"]["walk_after"], "%.2f")))
        L.append("   From NMI the first request raises a self-interrupt (task_work_add()'s")
        L.append("   TWA_NMI_CURRENT: the NMI may have hit the return to user space after")
        L.append("   its last check of the work flags, and only an interrupt taken in user")
        L.append("   mode makes the task check again). It stays pending, masked, until the")
        L.append("   handler returns, and under TCG whatever runs meanwhile runs slower: the")
        L.append("   walk by the factor above, the first request's own remainder likewise.")
        L.append("   Hardware does not slow down for a pending interrupt.")
    L.append("")

    L.append("2. Walk cost per frame: the deferred walker (unwind_user(), page faults")
    L.append("   allowed) against perf's in-interrupt walk (IRQs off), frame pointers;")
    L.append("   %s rounds x %s commands of %s walks each" %
             (params.get("rounds", "?"), params.get("walk_iters", "?"), params.get("repeat", "?")))
    L.append("   %-8s %24s %10s %24s %10s %22s" % ("frames", "unwind_user ns/walk", "ns/frame",
                                                "perf ns/walk", "ns/frame", "unwind_user/perf"))
    for depth in sorted(out["walk"]):
        w = out["walk"][depth]
        fr = w["frames"]
        L.append("   %-8d %24s %10.1f %24s %10.1f %22s" % (
            fr, stats.fmt(w["walk"]), w["walk"][0] / fr, stats.fmt(w["perf"]),
            w["perf"][0] / fr, stats.fmt(w["ratio"], "%.2f")))
    if out["sframe"]:
        exe = [v["version"] for v in out["sframe"].values() if v["section"] == "exe"]
        L.append("")
        L.append("   The same walks without frame pointers: core built -fomit-frame-pointer")
        L.append("   -Wa,--gsframe, walked with the SFrame section the walker found at its")
        L.append("   first walk ('exe'%s) or that section converted and registered"
                 % (", version %d here" % exe[0] if exe else ""))
        L.append("   in its place; 'cold': the executable forgotten before each walk, one")
        L.append("   walk per command: the first walk through a new object, which probes")
        L.append("   it (mapping lookup, ELF headers) and checks its section whole;")
        L.append("   'nocache' and 'ehfnocache': 'exe' and 'ehf' with the walker's rule")
        L.append("   cache off (sframe_cache=N), every frame a search and a decode;")
        pf = max(v["perf_frames"] for v in out["sframe"].values())
        L.append("   perf's fp walk of the same stacks stops after %d frame%s. Ratio: per"
                 % (pf, "" if pf == 1 else "s"))
        L.append("   frame against the frame-pointer walk of the same depth above.")
        L.append("   %-8s %-9s %7s %6s %24s %10s %20s" % ("frames", "section", "version",
                                                     "FDEs", "unwind_user ns/walk", "ns/frame",
                                                     "SFrame/fp per frame"))
        order = (["exe", "cold", "nocache"] + list(SECTION_VERSION) +
                 ["ehf", "ehfcold", "ehfnocache"])
        for key in sorted(out["sframe"], key=lambda k: (out["sframe"][k]["depth"],
                                                          order.index(out["sframe"][k]["section"]))):
            v = out["sframe"][key]
            ver = "%d%s" % (v["version"], "+pcrel" if v["flags"] & SFC_F_PCREL else "")
            if v["section"].startswith("ehf"):
                ver = "eh"
            L.append("   %-8d %-9s %7s %6d %24s %10.1f %20s" % (
                v["frames"], v["section"], ver, v["fdes"], stats.fmt(v["walk"]),
                v["frame"][0], stats.fmt(v["vs_fp"], "%.2f") if "vs_fp" in v else "-"))
        ehf = sorted((v for v in out["sframe"].values() if "vs_sframe" in v),
                     key=lambda v: v["depth"])
        if ehf:
            L.append("")
            L.append("   'ehf': core built with neither frame pointers nor SFrame, walked with")
            L.append("   its .eh_frame (version 'eh'; FDEs of .eh_frame_hdr's table); per frame")
            L.append("   against the SFrame walk ('exe') of the same depth:")
            for v in ehf:
                L.append("   %-8d .eh_frame / SFrame per frame: %s" % (
                    v["frames"], stats.fmt(v["vs_sframe"], "%.2fx")))
        def block(key, head, row):
            """The rows that have figure KEY, under the lines HEAD."""
            rows = sorted((v for v in out["sframe"].values() if key in v),
                          key=lambda v: (v["section"], v["depth"]))
            if rows:
                L.append("")
                L.extend("   " + h for h in head)
                L.extend(row(v) for v in rows)

        block("vs_nocache",
              ("The rule cache: per frame, cached against uncached (exe / nocache,",
               "ehf / ehfnocache; the same pcs walked over and over, as a profile's",
               "hot stacks are):"),
              lambda v: "   %-8d %-7s %s" % (v["frames"], v["section"],
                                            stats.fmt(v["vs_nocache"], "%.2fx")))

        def cold_row(v):
            warm = out["sframe"]["%d %s" % (v["depth"], COLD[v["section"]])]
            return "   %-8d %-7s %s ns, known %s ns: %s, %.0f ns more" % (
                v["frames"], v["section"], stats.fmt(v["walk"]), stats.fmt(warm["walk"]),
                stats.fmt(v["vs_warm"], "%.2fx"), v["walk"][0] - warm["walk"][0])
        block("vs_warm",
              ("First walk through a new object against a walk through a known one",
               "(cold / exe and ehfcold / ehf, per walk; the difference is the probe",
               "and the check):"),
              cold_row)
    if out["fdes"]:
        L.append("")
        L.append("   SFrame lookup against the number of functions: core_sframe with N")
        L.append("   one-instruction functions added (each with its FDE), %s frames,"
                 % next(iter(out["fdes"].values()))["frames"])
        L.append("   walked with its exec-time section, the rule cache off (so that each")
        L.append("   frame searches and decodes). The FDE search is binary, so the")
        L.append("   cost should grow with log2(FDEs): flat within %dx over the range." % FDES_FLAT)
        L.append("   %-8s %8s %6s %24s %16s %20s" % ("added", "FDEs", "log2", "ns/frame",
                                                 "section bytes", "vs fewest FDEs"))
        for added in sorted(out["fdes"]):
            v = out["fdes"][added]
            L.append("   %-8d %8d %6.1f %24s %16d %20s" % (
                added, v["fdes"], math.log2(v["fdes"]), stats.fmt(v["frame"], "%.1f"),
                v["bytes"], stats.fmt(v["vs_least"], "%.2f")))
        most = out["fdes"][max(out["fdes"])]
        least = out["fdes"][min(out["fdes"])]
        L.append("   %d FDEs against %d: %s, target at most %dx: %s" % (
            most["fdes"], least["fdes"], stats.fmt(most["vs_least"], "%.2f"), FDES_FLAT,
            verdict(most["vs_least"], FDES_FLAT)))
    L.append("")

    L.append("3. perf end to end: see table.txt (make bench's perf table).")
    L.append("")

    L.append("4. Cookie scaling: the first request of each entry context with NCPU")
    L.append("   processes, one per vCPU, requesting at once (%s per process), and" % n)
    L.append("   the cookie step alone: get_cookie()'s per-CPU counter against one")
    L.append("   global atomic64_inc_return(), each per step of %d in a row (clock"
             % COOKIE_STEPS)
    L.append("   cost subtracted)")
    L.append("   %-5s %24s %22s %22s %24s" % ("ncpu", "first request", "per-CPU step",
                                          "global atomic step", "first vs 1 vCPU"))
    base = out["cookie"].get(1)
    for ncpu in sorted(out["cookie"]):
        c = out["cookie"][ncpu]
        rel = "%.2fx" % (c["first"][0] / base["first"][0]) if base and base["first"][0] else "-"
        L.append("   %-5d %24s %22s %22s %24s" % (ncpu, stats.fmt(c["first"]),
                                                 stats.fmt(c["percpu"], "%.1f"),
                                                 stats.fmt(c["atomic"], "%.1f"), rel))
    L.append("   TCG runs each vCPU in a host thread, so a shared line does move")
    L.append("   between host cores; but with more vCPUs than host cores they take")
    L.append("   turns, and emulation costs far more than a cache miss: these rows")
    L.append("   can show that nothing serializes, not what contention costs on metal.")
    return "\n".join(L) + "\n"


def main():
    if len(sys.argv) != 3:
        print("usage: core_table.py RESULTS-LOG OUTDIR", file=sys.stderr)
        return 2
    with open(sys.argv[1], errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f
                 if l.startswith("CORE") or l.startswith("bench ")]
    os.makedirs(sys.argv[2], exist_ok=True)
    with open(os.path.join(sys.argv[2], "core-raw.txt"), "w") as f:
        f.write("".join(l + "\n" for l in lines))
    params, runs, fails, sections = parse(lines)
    if not params:
        print("core_table: no CORE-PARAMS line in %s" % sys.argv[1], file=sys.stderr)
        return 1
    out, problems = summarize(params, runs, sections)
    text = tables(params, out) if not problems else ""
    with open(os.path.join(sys.argv[2], "core.json"), "w") as f:
        json.dump({"params": params, "figures": {k: {str(a): b for a, b in v.items()}
                                                 for k, v in out.items()}}, f, indent=1)
    with open(os.path.join(sys.argv[2], "core.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    for p in fails + problems[:20]:
        print("core bench: " + p, file=sys.stderr)
    if len(problems) > 20:
        print("core bench: ... %d more problems" % (len(problems) - 20), file=sys.stderr)
    return 1 if fails or problems else 0


if __name__ == "__main__":
    sys.exit(main())
