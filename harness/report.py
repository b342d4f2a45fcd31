#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a guest run into results: parse kselftest TAP and KUnit KTAP, look for
kernel reports on the console, classify the run, and summarise many runs.

  report.py parse --name NAME --console LOG --results LOG --json OUT
  report.py record --name NAME --json OUT [--class N] [--test NAME=STATUS...]
  report.py compare --name NAME --json OUT --prefix P BASE_JSON NEW_JSON
  report.py summary JSON...

Exit status is the failure class of harness/classes (boot, kernel-report,
test-failure, no-tests for a guest run).
"""

import argparse
import fnmatch
import json
import os
import re
import sys


def read_classes(path=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   "classes")):
    """The failure classes of harness/classes: {status: name}."""
    names = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                code, name = line.split("\t")[:2]
                names[int(code)] = name
    return names


CLASS_NAMES = read_classes()
_BY_NAME = {name: code for code, name in CLASS_NAMES.items()}
E_OK = _BY_NAME["ok"]
E_BOOT = _BY_NAME["boot"]
E_KERNEL = _BY_NAME["kernel-report"]
E_TEST = _BY_NAME["test-failure"]
E_NOTESTS = _BY_NAME["no-tests"]

END_MARKER = "UNWIND-HARNESS-END"

# Console lines that mean the kernel reported a problem. Each is a failure even
# when every test passed.
KERNEL_REPORTS = [
    ("panic", re.compile(r"Kernel panic - not syncing")),
    ("oops", re.compile(r"\bOops\b|general protection fault|"
                        r"BUG: unable to handle")),
    ("BUG", re.compile(r"\bBUG:|kernel BUG at")),
    ("WARNING", re.compile(r"\bWARNING:")),
    ("lockdep", re.compile(r"possible (recursive|circular) locking|"
                           r"inconsistent lock state|DEBUG_LOCKS_WARN_ON|"
                           r"suspicious RCU usage")),
    ("KASAN", re.compile(r"\bKASAN\b")),
    ("UBSAN", re.compile(r"\bUBSAN\b")),
    ("RCU stall", re.compile(r"rcu: INFO: .*detected stall|RCU stall")),
    ("hung task", re.compile(r"INFO: task .* blocked for more than|"
                             r"soft lockup|hard LOCKUP")),
    # SLUB's own reports (slab_bug(), slab_fix(), slab_err()) and its
    # diagnostics of a bad free, which may come without a WARNING line.
    ("slab", re.compile(r"^BUG \S+ \(.*\): |^FIX \S+: |"
                        r"\bobject pointer:? 0x|Wrong slab cache|"
                        r"\bSLUB: .*(corrupt|Invalid)|\bslab_out_of_memory\b|"
                        r"^INFO: (Slab|Object|Allocated|Freed) ")),
    ("kmemleak", re.compile(r"kmemleak: \d+ new suspected memory leaks|"
                            r"^\s*unreferenced object 0x|"
                            r"kmemleak: Kernel memory leak detector disabled|"
                            r"UNWIND-KMEMLEAK-FAILED")),
]
# Boot-time lines that mention the words above without reporting anything.
BENIGN = [
    re.compile(r"KASAN.*(initialized|enabled)|kasan: KernelAddressSanitizer"),
    re.compile(r"Lock dependency validator|lockdep: "),
    re.compile(r"UBSAN: .*enabled"),
    re.compile(r"^\s*(not )?ok \d+"),
    re.compile(r"\*\*\*.*\*\*\*"),
]

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
RESULT = re.compile(r"^(?P<ind>\s*)(?P<st>not ok|ok)\s+(?P<num>\d+)\s*(?:-\s*)?"
                    r"(?P<name>[^#]*?)\s*(?:#\s*(?P<dir>\w+)\b\s*(?P<why>.*))?$")
PLAN = re.compile(r"^(?P<ind>\s*)1\.\.(?P<n>\d+)")
SUBTEST = re.compile(r"^\s*#\s*Subtest:\s*(?P<name>.+?)\s*$")


# A failed test's diagnostic lines kept, and the failed tests whose lines
# the summary prints.
LOG_LINES = 12
MAX_FAILURE_LOGS = 10


def strip_ts(line):
    return TIMESTAMP.sub("", line.rstrip("\r\n"))


def kernel_reports(lines):
    """Return the console lines that report a kernel problem, with their kind."""
    found = []
    for line in lines:
        text = strip_ts(line)
        if any(b.search(text) for b in BENIGN):
            continue
        for kind, rx in KERNEL_REPORTS:
            if rx.search(text):
                found.append({"kind": kind, "line": text.strip()})
                break
    return found


def parse_tap(lines, prefix=""):
    """Parse (K)TAP into leaf results.

    A result line with deeper result lines just before it is a parent (a suite);
    its children are named parent.child. A failed parent whose children all
    passed is a failure of its own (e.g. a suite init error). A plan that
    promises more results than arrived adds a failure. A failed test keeps
    the last LOG_LINES diagnostic ("#") lines before its result as "log".
    """
    results = []            # dicts: depth, status, name, detail, leaf, log
    plans = {}              # depth -> planned count, for the open block
    counts = {}             # depth -> results seen in the open block
    missing = []
    notes = []              # diagnostic lines since the last result
    for raw in lines:
        line = strip_ts(raw)
        m = PLAN.match(line)
        if m:
            d = len(m.group("ind"))
            plans[d] = int(m.group("n"))
            counts[d] = 0
            continue
        m = RESULT.match(line)
        if not m:
            if line.lstrip().startswith("#"):
                notes = (notes + [line.strip()])[-LOG_LINES:]
            continue
        d = len(m.group("ind"))
        counts[d] = counts.get(d, 0) + 1
        # Deeper blocks end here: check their plans.
        for dd in sorted(k for k in plans if k > d):
            if counts.get(dd, 0) < plans[dd]:
                missing.append("%d of %d planned results missing" %
                               (plans[dd] - counts.get(dd, 0), plans[dd]))
            del plans[dd]
            counts.pop(dd, None)
        status = "pass" if m.group("st") == "ok" else "fail"
        directive = (m.group("dir") or "").upper()
        if directive == "SKIP":
            status = "skip"
        elif directive == "TODO" and status == "fail":
            status = "xfail"
        name = m.group("name").strip() or "test %s" % m.group("num")
        children = []
        for r in reversed(results):
            if r["depth"] <= d:
                break
            children.append(r)
        entry = {"depth": d, "status": status, "name": name,
                 "detail": (m.group("why") or "").strip(), "leaf": not children,
                 "log": notes if status == "fail" else []}
        notes = []
        for c in children:
            c["name"] = name + "." + c["name"]
        results.append(entry)
        if children and status == "fail" and all(
                c["status"] != "fail" for c in children if c["leaf"]):
            entry["leaf"] = True
            entry["detail"] = entry["detail"] or "suite failed"
    for d in sorted(plans):
        if counts.get(d, 0) < plans[d]:
            missing.append("%d of %d planned results missing" %
                           (plans[d] - counts.get(d, 0), plans[d]))
    tests = [{"name": prefix + r["name"], "status": r["status"],
              "detail": r["detail"], "log": r["log"]}
             for r in results if r["leaf"]]
    for msg in missing:
        tests.append({"name": prefix + "plan", "status": "fail",
                      "detail": msg})
    return tests


def print_failure_logs(runs, out=None):
    """The diagnostic lines of the first failed tests, for the end of a log
    that may be read only in part (CI's)."""
    out = out or sys.stdout
    shown = 0
    for res in runs:
        for t in res["tests"]:
            if t["status"] != "fail" or not t.get("log"):
                continue
            if shown == MAX_FAILURE_LOGS:
                print("  (more in the runs' results.log)", file=out)
                return
            if not shown:
                print("Failed tests, with their last diagnostic lines:",
                      file=out)
            print("  %s: %s" % (res["run"], t["name"]), file=out)
            for line in t["log"]:
                print("    %s" % line, file=out)
            shown += 1


def split_blocks(lines):
    """Split the results port into (name, rc, lines) per program run.

    rc is None when the block never ended (the guest died inside it).
    """
    blocks, cur = [], None
    for raw in lines:
        line = raw.rstrip("\r\n")
        if line.startswith("UNWIND-TAP-BEGIN "):
            if cur:
                blocks.append(cur)
            cur = [line.split(None, 1)[1].strip(), None, []]
        elif line.startswith("UNWIND-TAP-END ") and cur:
            m = re.search(r"rc=(\d+)", line)
            cur[1] = int(m.group(1)) if m else None
            blocks.append(cur)
            cur = None
        elif cur:
            cur[2].append(line)
    if cur:
        blocks.append(cur)
    return blocks


def kunit_lines(console):
    """The KTAP part of the console: from 'KTAP version' to the end of its plan."""
    out, on = [], False
    for raw in console:
        line = strip_ts(raw)
        if re.match(r"^KTAP version \d+", line):
            on = True
        if on and (RESULT.match(line) or PLAN.match(line) or
                   SUBTEST.match(line) or line.lstrip().startswith("KTAP")):
            out.append(line)
    return out


def parse_run(name, console, results):
    """Classify one guest run. Returns the result dict."""
    tests = [dict(t, name="kunit." + t["name"]) for t in
             parse_tap(kunit_lines(console))]
    for prog, rc, body in split_blocks(results):
        got = parse_tap(body, prog + ".")
        if rc is None:
            got.append({"name": prog, "status": "fail",
                        "detail": "did not finish (guest died or hung)"})
        elif rc != 0 and not any(t["status"] == "fail" for t in got):
            got.append({"name": prog, "status": "fail",
                        "detail": "exit status %d" % rc})
        elif not got:
            got.append({"name": prog, "status": "fail",
                        "detail": "printed no TAP results"})
        tests += got
    reports = kernel_reports(console)
    ended = any(END_MARKER in line for line in results) or \
        any(END_MARKER in strip_ts(line) for line in console)
    nfail = sum(t["status"] == "fail" for t in tests)
    if reports:
        cls, msg = E_KERNEL, "kernel report on the console: %s" % \
            reports[0]["line"]
    elif not ended:
        cls, msg = E_BOOT, "no end marker: the guest did not boot, hung " \
            "or died"
    elif nfail:
        cls, msg = E_TEST, "%d tests failed" % nfail
    elif not tests:
        cls, msg = E_NOTESTS, "no tests ran"
    else:
        cls, msg = E_OK, "ok"
    return {"run": name, "class": cls, "class_name": CLASS_NAMES[cls],
            "message": msg, "tests": tests, "reports": reports}


def counts(tests):
    c = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0}
    for t in tests:
        c[t["status"]] += 1
    return c


def print_run(res, out=sys.stdout):
    for t in res["tests"]:
        flag = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP",
                "xfail": "XFAIL"}[t["status"]]
        extra = "  (%s)" % t["detail"] if t["detail"] and \
            t["status"] != "pass" else ""
        print("  %-5s %s: %s%s" % (flag, res["run"], t["name"], extra),
              file=out)
    for r in res["reports"][:10]:
        print("  KERNEL %s: %s: %s" % (res["run"], r["kind"], r["line"]),
              file=out)


def cmd_parse(args):
    def read(path):
        try:
            with open(path, errors="replace") as f:
                return f.readlines()
        except FileNotFoundError:
            return []
    res = parse_run(args.name, read(args.console), read(args.results))
    print_run(res)
    c = counts(res["tests"])
    print("  %s: %s (%d passed, %d failed, %d skipped)" %
          (res["run"], res["message"], c["pass"], c["fail"], c["skip"]))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return res["class"]


def cmd_record(args):
    """A result that did not come from a guest (a build, checkpatch, ...)."""
    tests = []
    for spec in args.test:
        tname, _, status = spec.rpartition("=")
        if status not in ("pass", "fail", "skip"):
            raise SystemExit("bad --test %r: want NAME=pass|fail|skip" % spec)
        tests.append({"name": tname, "status": status, "detail": ""})
    cls = args.cls
    if cls == E_OK and any(t["status"] == "fail" for t in tests):
        cls = E_TEST
    res = {"run": args.name, "class": cls,
           "class_name": CLASS_NAMES.get(cls, "exit %d" % cls),
           "message": args.message or CLASS_NAMES.get(cls, ""),
           "tests": tests, "reports": []}
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(res, f, indent=1)
    return 0


def read_known(path):
    """Read a known list: "GLOB | reason" lines, # comments.

    Returns [(glob, reason)]; a line without a reason is an error.
    """
    known = []
    with open(path) as f:
        for num, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            glob, sep, reason = line.partition(" | ")
            if not sep or not glob.strip() or not reason.strip():
                raise ValueError("%s:%d: not 'GLOB | reason'" % (path, num))
            known.append((glob.strip(), reason.strip()))
    return known


def compare_runs(base, new, prefix, known=()):
    """Compare the tests named PREFIX... of two runs, case by case.

    Returns (rows, problems, hits): rows are (case, base status, new status),
    each problem is a sentence, and hits maps a KNOWN glob to the cases it
    excused. A case that passes on the base must pass on the new run. A case
    that does not pass on the base is a problem unless a KNOWN glob names it
    (a case this config cannot pass, base or series, with the reason); without
    KNOWN every case must pass on the base (a fixed list of cases). A KNOWN
    reason that starts with "flaky:" excuses its cases either way (a timing
    test that the emulator can fail on either kernel); it is printed.
    """
    def cases(res):
        return {t["name"][len(prefix):]: t["status"] for t in res["tests"]
                if t["name"].startswith(prefix)}
    b, n = cases(base), cases(new)
    rows = [(c, b.get(c, "-"), n.get(c, "-")) for c in sorted(set(b) | set(n))]
    problems = []
    hits = {}
    if not rows:
        problems.append("no %s* results in either run" % prefix)
    for c, bs, ns in rows:
        glob, reason = next(((g, r) for g, r in known if fnmatch.fnmatchcase(c, g)),
                            (None, ""))
        if glob is not None and reason.startswith("flaky:") and \
           not (bs == "pass" and ns == "pass"):
            hits.setdefault(glob, []).append(c)
        elif bs == "pass" and ns != "pass":
            problems.append("%s: passes on the base, %s with the series" %
                            (c, "missing" if ns == "-" else ns))
        elif bs != "pass":
            if glob is not None:
                hits.setdefault(glob, []).append(c)
            else:
                problems.append("%s: %s on the base%s" %
                                (c, "missing" if bs == "-" else bs,
                                 " and not in the known list" if known else ""))
    return rows, problems, hits


def cmd_compare(args):
    """The same cases on two runs (base, then series): print both columns."""
    runs = []
    for path in (args.base, args.new):
        try:
            with open(path) as f:
                runs.append(json.load(f))
        except (OSError, ValueError) as e:
            runs.append(None)
            print("  cannot read %s: %s" % (path, e))
    known, bad_known = [], None
    if args.known:
        try:
            known = read_known(args.known)
        except (OSError, ValueError) as e:
            bad_known = "cannot read the known list: %s" % e
    if bad_known:
        rows, problems, hits = [], [bad_known], {}
    elif None in runs:
        rows, problems, hits = [], ["a run to compare has no results"], {}
    else:
        rows, problems, hits = compare_runs(runs[0], runs[1], args.prefix, known)
    width = max([len(r[0]) for r in rows] + [4])
    print("  %-*s  %-6s %-6s" % (width, "case", "base", "series"))
    for c, bs, ns in rows:
        print("  %-*s  %-6s %-6s" % (width, c, bs, ns))
    if hits:
        print("  Not passing on both, for these reasons (%s):" % args.known)
        for glob, reason in known:
            if glob in hits:
                print("    %s (%d): %s" % (glob, len(hits[glob]), reason))
    for msg in problems:
        print("  %s" % msg)
    both = sum(1 for _, bs, ns in rows if bs == "pass" and ns == "pass")
    excused = sum(len(v) for v in hits.values())
    status = "fail" if problems else "pass"
    cls = E_TEST if problems else E_OK
    res = {"run": args.name, "class": cls, "class_name": CLASS_NAMES.get(cls, ""),
           "message": "; ".join(problems[:3]) or CLASS_NAMES.get(cls, ""),
           "tests": [{"name": args.prefix + "same_as_base", "status": status,
                      "detail": "; ".join(problems[:3]) or
                      "%d cases pass on both%s" %
                      (both, ", %d do not (known)" % excused if known else "")}],
           "reports": []}
    if not problems and both == 0:
        res["tests"][0].update(status="fail", detail="no case passes on both")
        res.update({"class": E_TEST, "class_name": CLASS_NAMES.get(E_TEST, ""),
                    "message": "no case passes on both"})
        cls = E_TEST
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(res, f, indent=1)
    return cls


def cmd_summary(args):
    total = {"pass": 0, "fail": 0, "skip": 0, "xfail": 0}
    first = E_OK
    runs = []
    for path in args.json:
        with open(path) as f:
            res = json.load(f)
        runs.append(res)
        c = counts(res["tests"])
        for k in total:
            total[k] += c[k]
        print("  %-12s %-13s %3d passed, %3d failed, %3d skipped  %s" %
              (res["run"], res["class_name"], c["pass"], c["fail"],
               c["skip"], "" if res["class"] == E_OK else res["message"]))
        if res["class"] != E_OK and first == E_OK:
            first = res["class"]
    # A skipped test is a missing feature here: the harness enables what the
    # tests need, so a skip fails the run unless ALLOW_SKIP is set.
    if total["skip"] and not args.allow_skip and first == E_OK:
        first = E_TEST
        print("  skipped tests fail the run (set ALLOW_SKIP=1 to allow)")
    if first == E_OK and total["pass"] == 0:
        first = E_NOTESTS
    print_failure_logs(runs)
    if first != E_OK:
        print("FAILED (%s): see the lines above" %
              CLASS_NAMES.get(first, "exit %d" % first))
    line = "%d passed, %d failed" % (total["pass"], total["fail"])
    if total["skip"]:
        line += ", %d skipped" % total["skip"]
    print(line)
    return first


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("parse", help="classify one guest run")
    p.add_argument("--name", required=True)
    p.add_argument("--console", required=True)
    p.add_argument("--results", required=True)
    p.add_argument("--json")
    p.set_defaults(func=cmd_parse)
    r = sub.add_parser("record", help="store a result made on the host")
    r.add_argument("--name", required=True)
    r.add_argument("--json", required=True)
    r.add_argument("--class", dest="cls", type=int, default=E_OK)
    r.add_argument("--message")
    r.add_argument("--test", action="append", default=[])
    r.set_defaults(func=cmd_record)
    c = sub.add_parser("compare", help="the same cases on a base and a new run")
    c.add_argument("--name", required=True)
    c.add_argument("--json", required=True)
    c.add_argument("--prefix", required=True)
    c.add_argument("--known", help="GLOB | reason lines: cases that may fail "
                   "on the base kernel too")
    c.add_argument("base")
    c.add_argument("new")
    c.set_defaults(func=cmd_compare)
    s = sub.add_parser("summary", help="sum up runs, print the closing line")
    s.add_argument("--allow-skip", action="store_true")
    s.add_argument("json", nargs="+")
    s.set_defaults(func=cmd_summary)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
