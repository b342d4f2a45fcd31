#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the harness's own parser and console classifier, on recorded logs
(harness/tests/logs). Run by `make check`; --json writes the results in the
harness's result format so they count in the summary.
"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import report  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import core_table  # noqa: E402
import stats  # noqa: E402


def log(name):
    with open(os.path.join(HERE, "logs", name)) as f:
        return f.readlines()


def run(console, results):
    return report.parse_run("t", log(console), log(results))


def by_status(res, status):
    return sorted(t["name"] for t in res["tests"] if t["status"] == status)


class CleanRun(unittest.TestCase):
    def test_clean_run_passes(self):
        res = run("clean-console.log", "clean-results.log")
        self.assertEqual(res["class"], report.E_OK, res["message"])
        self.assertEqual(by_status(res, "fail"), [])
        self.assertEqual(len(by_status(res, "pass")), 5 + 3)

    def test_nested_ktap_names_and_leaves(self):
        res = run("clean-console.log", "empty-results.log")
        self.assertEqual(by_status(res, "pass"), [
            "kunit.unwind_deferred.cookie_cpu_half",
            "kunit.unwind_deferred.cookie_never_zero",
            "kunit.unwind_deferred.tracer_bits.tracer_bits 1",
            "kunit.unwind_deferred.tracer_bits.tracer_bits 62",
            "kunit.unwind_user.frame_step_rejects_cycle",
        ])

    def test_timestamps_are_stripped(self):
        lines = ["[    1.%06d] %s" % (i, l)
                 for i, l in enumerate(log("clean-console.log"))]
        res = report.parse_run("t", lines, log("clean-results.log"))
        self.assertEqual(res["class"], report.E_OK, res["message"])
        self.assertEqual(len(by_status(res, "pass")), 8)

    def test_selftest_names_carry_the_program(self):
        res = run("clean-console.log", "clean-results.log")
        self.assertIn("unwind.unwind_deferred.global.migrate",
                      by_status(res, "pass"))


class Failures(unittest.TestCase):
    def test_failed_selftest(self):
        res = run("clean-console.log", "failed-results.log")
        self.assertEqual(res["class"], report.E_TEST)
        self.assertEqual(by_status(res, "fail"),
                         ["unwind.unwind_deferred.global.cookie_same"])

    def test_failed_kunit_case(self):
        res = run("kunit-fail-console.log", "clean-results.log")
        self.assertEqual(res["class"], report.E_TEST)
        self.assertEqual(by_status(res, "fail"),
                         ["kunit.unwind_deferred.cookie_cpu_half"])

    def test_failed_suite_with_passing_cases(self):
        res = run("kunit-suite-fail-console.log", "clean-results.log")
        self.assertEqual(res["class"], report.E_TEST)
        self.assertEqual(by_status(res, "fail"), ["kunit.unwind_user"])

    def test_missing_planned_results(self):
        res = run("kunit-short-console.log", "clean-results.log")
        self.assertEqual(res["class"], report.E_TEST)
        self.assertEqual(by_status(res, "fail"), ["kunit.plan"])

    def test_skip_is_not_a_pass(self):
        res = run("clean-console.log", "skipped-results.log")
        self.assertEqual(by_status(res, "skip"),
                         ["unwind.unwind_deferred.global.migrate"])
        self.assertNotIn("unwind.unwind_deferred.global.migrate",
                         by_status(res, "pass"))

    def test_nonzero_exit_with_all_ok_fails(self):
        res = run("clean-console.log", "exit-results.log")
        self.assertEqual(res["class"], report.E_TEST)
        self.assertEqual(by_status(res, "fail"), ["unwind.unwind_deferred"])

    def test_killed_program_fails_missing_results(self):
        res = run("clean-console.log", "timeout-results.log")
        self.assertEqual(res["class"], report.E_TEST)
        self.assertIn("unwind.unwind_deferred.plan", by_status(res, "fail"))

    def test_no_tests_is_a_failure(self):
        res = report.parse_run("t", log("nomarker-console.log")[:20] +
                               ["UNWIND-HARNESS-END\n"],
                               log("empty-results.log"))
        self.assertEqual(res["class"], report.E_NOTESTS)


class KernelReports(unittest.TestCase):
    def test_warning_fails_passing_run(self):
        res = run("warning-console.log", "clean-results.log")
        self.assertEqual(by_status(res, "fail"), [])
        self.assertEqual(res["class"], report.E_KERNEL)
        self.assertIn("WARNING", res["message"])

    def test_panic_is_a_kernel_report(self):
        res = run("panic-console.log", "truncated-results.log")
        self.assertEqual(res["class"], report.E_KERNEL)
        kinds = {r["kind"] for r in res["reports"]}
        self.assertTrue({"panic", "oops", "BUG"} <= kinds, kinds)

    def test_truncated_log_is_a_boot_failure(self):
        res = run("nomarker-console.log", "truncated-results.log")
        self.assertEqual(res["class"], report.E_BOOT)
        self.assertIn("unwind.unwind_deferred", by_status(res, "fail"))

    def test_clean_boot_has_no_reports(self):
        self.assertEqual(report.kernel_reports(log("clean-console.log")), [])

    def test_report_kinds(self):
        cases = {
            "BUG: KASAN: slab-use-after-free in unwind_deferred_task_work":
                "BUG",
            "UBSAN: array-index-out-of-bounds in kernel/unwind/user.c:50":
                "UBSAN",
            "WARNING: possible circular locking dependency detected":
                "WARNING",
            "rcu: INFO: rcu_preempt self-detected stall on CPU": "RCU stall",
            "INFO: task demo:80 blocked for more than 120 seconds.":
                "hung task",
            "BUG: sleeping function called from invalid context at x.c:1":
                "BUG",
            "kmemleak: 2 new suspected memory leaks (see "
            "/sys/kernel/debug/kmemleak)": "kmemleak",
            "unreferenced object 0xffff888003a1c000 (size 4096):": "kmemleak",
            "UNWIND-KMEMLEAK-FAILED: the scan did not run": "kmemleak",
            "object pointer: 0x000000004a7c1f2e": "slab",
            "BUG kmalloc-64 (Tainted: G        W ): Object already free":
                "slab",
            "FIX kmalloc-64: Object at 0xffff888003a1c000 not freed": "slab",
            "INFO: Slab 0xffffea00000e8700 objects=32 used=31": "slab",
            "kmem_cache_free: Wrong slab cache. kmalloc-64 but object is "
            "from kmalloc-128": "slab",
        }
        for line, kind in cases.items():
            got = report.kernel_reports([line])
            self.assertEqual([r["kind"] for r in got], [kind], line)

    def test_kmemleak_banners_are_not_reports(self):
        for line in ["kmemleak: Kernel memory leak detector initialized (mem pool"
                     " available: 15677)", "UNWIND-KMEMLEAK-SCANNED 0 reports"]:
            self.assertEqual(report.kernel_reports([line]), [], line)

    def test_boot_banners_are_not_reports(self):
        for line in ["kasan: KernelAddressSanitizer initialized (generic)",
                     "Lock dependency validator: Copyright (c) 2006 Red Hat",
                     "ok 3 kasan_test_name"]:
            self.assertEqual(report.kernel_reports([line]), [], line)


class Summary(unittest.TestCase):
    def summarise(self, runs, allow_skip=False):
        import io
        import contextlib
        import tempfile
        paths = []
        with tempfile.TemporaryDirectory() as d:
            for i, r in enumerate(runs):
                p = os.path.join(d, "%d.json" % i)
                with open(p, "w") as f:
                    json.dump(r, f)
                paths.append(p)
            argv = ["summary"] + (["--allow-skip"] if allow_skip else [])
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = report.main(argv + paths)
        return rc, out.getvalue().splitlines()[-1]

    def test_closing_line_and_first_failure_class(self):
        ok = run("clean-console.log", "clean-results.log")
        bad = run("warning-console.log", "failed-results.log")
        rc, last = self.summarise([ok, bad])
        self.assertEqual(rc, report.E_KERNEL)
        self.assertEqual(last, "15 passed, 1 failed")

    def test_failed_tests_diagnostics_before_the_closing_line(self):
        import io
        import contextlib
        bad = run("clean-console.log", "failed-results.log")
        failed = [t for t in bad["tests"] if t["status"] == "fail"]
        self.assertEqual(failed[0]["log"][-2:], [
            "# unwind_deferred.c:120:cookie_same:Expected c1 (0x100000001) "
            "== c2 (0x300000001)",
            "#          FAIL  global.cookie_same"])
        self.assertTrue(all(not t["log"] for t in bad["tests"]
                            if t["status"] == "pass"))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report.print_failure_logs([bad])
        lines = out.getvalue().splitlines()
        self.assertIn("  t: unwind.unwind_deferred.global.cookie_same", lines)
        self.assertIn("    # unwind_deferred.c:120:cookie_same:Expected c1 "
                      "(0x100000001) == c2 (0x300000001)", lines)
        rc, last = self.summarise([bad])
        self.assertEqual(last, "7 passed, 1 failed")

    def test_skips_fail_unless_allowed(self):
        sk = run("clean-console.log", "skipped-results.log")
        rc, last = self.summarise([sk])
        self.assertEqual((rc, last), (report.E_TEST,
                                      "7 passed, 0 failed, 1 skipped"))
        rc, _ = self.summarise([sk], allow_skip=True)
        self.assertEqual(rc, report.E_OK)


class Record(unittest.TestCase):
    def test_record_creates_the_run_folder(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "runs", "series", "result.json")
            rc = report.main(["record", "--name", "series", "--json", path,
                              "--class", "0", "--test", "series.git-am=pass",
                              "--test", "series.roundtrip=fail"])
            self.assertEqual(rc, 0)
            with open(path) as f:
                res = json.load(f)
        self.assertEqual(res["class"], report.E_TEST)
        self.assertEqual(by_status(res, "fail"), ["series.roundtrip"])


class Compare(unittest.TestCase):
    P = "ftrace.regress."

    def res(self, **cases):
        return {"run": "r", "class": 0, "tests": [
            {"name": self.P + c, "status": st, "detail": ""}
            for c, st in cases.items()] + [
            {"name": "other.case", "status": "fail", "detail": ""}]}

    def compare(self, base, new, known=None):
        import io
        import contextlib
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            extra = []
            if known is not None:
                extra = ["--known", os.path.join(d, "known")]
                with open(extra[1], "w") as f:
                    f.write(known)
            paths = []
            for i, r in enumerate((base, new)):
                paths.append(os.path.join(d, "%d.json" % i))
                if r is not None:
                    with open(paths[-1], "w") as f:
                        json.dump(r, f)
            out_json = os.path.join(d, "out", "result.json")
            with contextlib.redirect_stdout(io.StringIO()):
                rc = report.main(["compare", "--name", "c", "--json", out_json,
                                  "--prefix", self.P] + extra + paths)
            with open(out_json) as f:
                return rc, json.load(f)["tests"]

    def test_same_results_pass(self):
        r = self.res(a="pass", b="pass")
        rc, tests = self.compare(r, r)
        self.assertEqual(rc, report.E_OK)
        self.assertEqual([(t["name"], t["status"]) for t in tests],
                         [(self.P + "same_as_base", "pass")])

    def test_regression_fails(self):
        rc, tests = self.compare(self.res(a="pass", b="pass"),
                                 self.res(a="pass", b="fail"))
        self.assertEqual(rc, report.E_TEST)
        self.assertIn("b: passes on the base, fail", tests[0]["detail"])

    def test_case_missing_from_the_series_run_fails(self):
        rc, tests = self.compare(self.res(a="pass", b="pass"),
                                 self.res(a="pass"))
        self.assertEqual(rc, report.E_TEST)
        self.assertIn("b: passes on the base, missing", tests[0]["detail"])

    def test_case_failing_or_skipped_on_the_base_fails(self):
        for st in ("fail", "skip"):
            rc, tests = self.compare(self.res(a="pass", b=st),
                                     self.res(a="pass", b="pass"))
            self.assertEqual(rc, report.E_TEST, st)
            self.assertIn("b: %s on the base" % st, tests[0]["detail"])

    def test_known_excuses_only_cases_passing_on_neither(self):
        known = "# why\nb* | no PMU under TCG\n"
        base = self.res(a="pass", b1="fail", b2="skip", c="fail")
        rc, tests = self.compare(base, self.res(a="pass", b1="fail", b2="pass",
                                                c="fail"), known)
        # c is not in the list: still a problem.
        self.assertEqual(rc, report.E_TEST)
        self.assertEqual(tests[0]["detail"], "c: fail on the base and not in the known list")
        base["tests"] = [t for t in base["tests"] if not t["name"].endswith(".c")]
        rc, tests = self.compare(base, self.res(a="pass", b1="fail", b2="pass"), known)
        self.assertEqual(rc, report.E_OK)
        self.assertIn("1 cases pass on both, 2 do not (known)", tests[0]["detail"])

    def test_known_does_not_excuse_a_regression(self):
        rc, tests = self.compare(self.res(a="pass", b="pass"),
                                 self.res(a="pass", b="fail"), "b | slow\n")
        self.assertEqual(rc, report.E_TEST)
        self.assertIn("b: passes on the base, fail", tests[0]["detail"])

    def test_known_flaky_excuses_either_way(self):
        rc, tests = self.compare(self.res(a="pass", b="pass"),
                                 self.res(a="pass", b="fail"),
                                 "b | flaky: times a sleep\n")
        self.assertEqual(rc, report.E_OK)
        self.assertIn("1 cases pass on both, 1 do not (known)", tests[0]["detail"])

    def test_known_line_without_a_reason_fails(self):
        rc, tests = self.compare(self.res(a="pass"), self.res(a="pass"), "a\n")
        self.assertEqual(rc, report.E_TEST)
        self.assertIn("not 'GLOB | reason'", tests[0]["detail"])

    def test_nothing_passing_on_both_fails(self):
        rc, tests = self.compare(self.res(a="fail"), self.res(a="fail"), "a | why\n")
        self.assertEqual(rc, report.E_TEST)
        self.assertEqual(tests[0]["detail"], "no case passes on both")

    def test_no_cases_or_no_run_fails(self):
        rc, _ = self.compare(self.res(), self.res())
        self.assertEqual(rc, report.E_TEST)
        rc, _ = self.compare(self.res(a="pass"), None)
        self.assertEqual(rc, report.E_TEST)


class BenchStats(unittest.TestCase):
    """harness/bench/stats.py and the core table's checks."""

    def test_median_interval_ranks(self):
        # P(Bin(n, 1/2) < j) <= 2.5%: the textbook ranks.
        self.assertIsNone(stats.ci_ranks(5))
        self.assertEqual(stats.ci_ranks(6), (1, 6))
        self.assertEqual(stats.ci_ranks(10), (2, 9))
        self.assertEqual(stats.ci_ranks(100), (40, 61))
        m, lo, hi = stats.median_ci(list(range(10, 0, -1)))
        self.assertEqual((m, lo, hi), (5.5, 2, 9))

    def test_rank_needs_disjoint_intervals(self):
        a, b, c = (1.0, 0.9, 1.1), (2.0, 1.8, 2.2), (2.1, 1.9, 2.3)
        self.assertEqual(stats.rank([("c", c), ("a", a), ("b", b)]), "a < b ~ c")
        self.assertEqual(stats.rank([("a", a), ("n", (0.5, None, None))]), "n ~ a")

    SFRAME_GOOD = ["CORE-SFRAME v3 3 5 12 900", "bench walk 4 8 8000 1 100"]

    def _core(self, req_line, sframe=None):
        lines = ["CORE-PARAMS rounds 1 iters 2 repeat 4 walk_iters 1 depths '4' "
                 "ncpus '1' sections 'v3' fdes '10' fde_depth 4 cpus 2",
                 "CORE-RUN core req task 12 2 4",
                 "bench req task walk 0 0 1000 300 1000 3000 16 100", req_line,
                 "CORE-RUN core req nmi 12 2 4",
                 "bench req nmi walk 0 0 1000 300 1000 3000 16 100",
                 "bench req nmi req 0 0 1000 300 1000 3000 16 100",
                 "CORE-RUN core walk 4 1 4", "bench walk 4 8 4000 8 2000",
                 "CORE-RUN core_sframe walk 4 1 4 v3"] + (sframe or self.SFRAME_GOOD) + [
                 "CORE-RUN core_fdes10 walk 4 1 4 exe", "CORE-SFRAME exe 1 3 22 1000",
                 "bench walk 4 8 8800 1 100",
                 "CORE-RUN core cookie 1 1 2", "bench cookie 0 0 900 210 370 50 3 1",
                 "bench cookie 0 0 900 210 370 50 5 2"]
        params, runs, fails, sections = core_table.parse(lines)
        out, problems = core_table.summarize(params, runs, sections)
        return out, problems + fails

    def test_core_table_accepts_good_lines(self):
        out, problems = self._core("bench req task req 0 0 1000 300 1000 3000 16 100")
        self.assertEqual(problems, [])
        self.assertEqual(out["req"]["task"]["cold"]["first"][0], 900)
        self.assertEqual(out["walk"][4]["frames"], 8)
        # 16 steps per command, the empty region's 50 ns off.
        self.assertEqual(out["cookie"][1]["percpu"][0], 10)
        self.assertEqual(out["cookie"][1]["atomic"][0], 20)
        # Per frame: 8000 ns / 4 walks / 8 frames, against 4000 / 4 / 8.
        sf = out["sframe"]["4 v3"]
        self.assertEqual((sf["frame"][0], sf["vs_fp"][0], sf["fdes"]), (250, 2, 12))
        self.assertEqual((out["fdes"][10]["fdes"], out["fdes"][10]["vs_least"][0]), (22, 1))
        self.assertIn("SFrame/fp per frame", core_table.tables(
            {"rounds": "1", "iters": "2", "repeat": "4", "walk_iters": "1"}, out))

    def test_core_table_refuses_what_measured_something_else(self):
        good = "bench req task req 0 0 1000 300 1000 3000 16 100"
        # Not the first request (1), a later one that queued (bad 1), a walk
        # that lost frames, a missing line.
        for bad in ("bench req task req 1 0 1000 300 1000 3000 16 100",
                    "bench req task req 0 1 1000 300 1000 3000 16 100",
                    "bench req task req 0 0 1000 300 1000 3000 9 100",
                    "CORE-FAIL core req task"):
            out, problems = self._core(bad)
            self.assertTrue(problems, bad)
        # An SFrame row that perf's fp walk followed whole (frame pointers
        # kept), one that lost frames, a section of another version, none.
        for bad in (["CORE-SFRAME v3 3 5 12 900", "bench walk 4 8 8000 8 100"],
                    ["CORE-SFRAME v3 3 5 12 900", "bench walk 4 7 8000 1 100"],
                    ["CORE-SFRAME v3 2 4 12 900", "bench walk 4 8 8000 1 100"],
                    ["bench walk 4 8 8000 1 100"]):
            out, problems = self._core(good, bad)
            self.assertTrue(problems, bad)


    def core_walk_lines(self, section, walk):
        """A run of the frame-pointer walk, the exe walk and SECTION's WALK."""
        return ["CORE-PARAMS rounds 1 iters 0 repeat 4 walk_iters 1 depths '4' "
                "ncpus '1' sections 'exe %s' fdes '' fde_depth 4 cpus 2" % section,
                "CORE-RUN core walk 4 1 4", "bench walk 4 8 4000 8 2000",
                "CORE-RUN core_sframe walk 4 1 4 exe", "CORE-SFRAME exe 1 3 12 900",
                "bench walk 4 8 8000 1 100",
                "CORE-RUN core_sframe walk 4 1 4 %s" % section,
                "CORE-SFRAME %s 1 3 12 900" % section, walk]

    def core_walk_summary(self, lines):
        """The figures of LINES, and the problems of their walk rows."""
        params, runs, _, sections = core_table.parse(lines)
        out, problems = core_table.summarize(params, runs, sections)
        # Only the walk rows are under test here.
        return out, [p for p in problems if "req" not in p and "cookie" not in p]

    def test_core_table_nocache_rows(self):
        """A nocache row gives its cached row the cached / uncached ratio."""
        lines = self.core_walk_lines("nocache", "bench walk 4 8 32000 1 100")
        out, problems = self.core_walk_summary(lines)
        self.assertEqual(problems, [])
        # 8000 ns per 4 walks cached against 32000 uncached.
        self.assertEqual(out["sframe"]["4 exe"]["vs_nocache"][0], 0.25)
        text = core_table.tables({"rounds": "1", "walk_iters": "1", "repeat": "4"}, out)
        self.assertIn("cached against uncached", text)
        # Without its cached row, the nocache row is a problem.
        _, problems = self.core_walk_summary(lines[:3] + lines[6:])
        self.assertTrue([p for p in problems if "no exe walk" in p])

    def test_core_table_cold_rows(self):
        """A cold row is one walk per command, compared with the exe row."""
        lines = self.core_walk_lines("cold", "bench walk 1 8 6000 1 100")
        out, problems = self.core_walk_summary(lines)
        self.assertEqual(problems, [])
        # 6000 ns for the cold walk against 8000 / 4 for a known one.
        self.assertEqual(out["sframe"]["4 cold"]["vs_warm"][0], 3)
        text = core_table.tables({"rounds": "1", "walk_iters": "1", "repeat": "4"}, out)
        self.assertIn("First walk through a new object", text)
        # A cold command that timed more than one walk measured warm ones too.
        lines[-1] = "bench walk 4 8 6000 1 100"
        _, problems = self.core_walk_summary(lines)
        self.assertTrue([p for p in problems if "walks per command" in p])


class Collect(unittest.TextTestResult):
    """Remembers every test's outcome for the JSON results."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.outcomes = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.outcomes.append((test.id(), "pass"))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.outcomes.append((test.id(), "fail"))

    def addError(self, test, err):
        super().addError(test, err)
        self.outcomes.append((test.id(), "fail"))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.outcomes.append((test.id(), "skip"))


def main():
    out = None
    if len(sys.argv) == 3 and sys.argv[1] == "--json":
        out = sys.argv[2]
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    runner = unittest.TextTestRunner(verbosity=2, resultclass=Collect)
    res = runner.run(suite)
    if out:
        tests = [{"name": "harness." + name.replace("__main__.", ""),
                  "status": st, "detail": ""} for name, st in res.outcomes]
        cls = report.E_OK if res.wasSuccessful() else report.E_TEST
        with open(out, "w") as f:
            json.dump({"run": "harness", "class": cls,
                       "class_name": report.CLASS_NAMES[cls],
                       "message": "harness self-tests", "tests": tests,
                       "reports": []}, f, indent=1)
    passed = sum(st == "pass" for _, st in res.outcomes)
    print("%d passed, %d failed" % (passed, len(res.outcomes) - passed))
    return 0 if res.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
