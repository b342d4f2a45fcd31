#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print each FILE not covered by an F: pattern of the MAINTAINERS text on stdin
(the series' own entry, the one whose F: lines name kernel/unwind/).

  maintainers.py FILE... < MAINTAINERS
"""

import fnmatch
import sys


def entries(text):
    """The F:/X: patterns of each MAINTAINERS section, as (F list, X list)."""
    sec = None
    for line in text.splitlines() + [""]:
        if not line.strip():
            if sec:
                yield sec
            sec = None
        elif len(line) > 2 and line[1] == ":" and line[0] in "FX":
            sec = sec or ([], [])
            sec[0 if line[0] == "F" else 1].append(line[2:].strip())


def match(pattern, path):
    if pattern.endswith("/"):
        return path.startswith(pattern)
    return fnmatch.fnmatchcase(path, pattern) or \
        path.startswith(pattern.rstrip("/") + "/")


def main():
    ours = [e for e in entries(sys.stdin.read())
            if any(p.startswith("kernel/unwind") for p in e[0])]
    if not ours:
        print("MAINTAINERS: no entry covers kernel/unwind/")
        return 1
    files, excl = ours[0]
    for path in sys.argv[1:]:
        if not any(match(p, path) for p in files) or \
                any(match(p, path) for p in excl):
            print("MAINTAINERS: %s is not covered by the series' entry" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
