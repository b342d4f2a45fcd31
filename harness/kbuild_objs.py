#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which of the given objects a kernel config builds, from kbuild's own lists.

  kbuild_objs.py SRCTREE CONFIG OBJ...

Prints "build OBJ" or "skip OBJ (why)" per object. An object is built when
its directory's Makefile (or Kbuild) lists it in obj-y, or in obj-$(CONFIG_X)
with X set to y or m (directly, or as a part of a composite object that is),
and every directory above it is listed the same way in its parent, up to a
top-level directory (or, for arch/ARCH/, arch/ARCH/Kbuild). Conditional
blocks on one config symbol (ifdef, ifndef, ifeq/ifneq ($(CONFIG_X),y))
are evaluated; any other condition counts as true, so an object inside it
counts as listed, which a compiler error then shows.
"""

import os
import re
import sys

LINE = re.compile(r"^\s*([A-Za-z0-9_]+)-(y|m|\$\((CONFIG_[A-Za-z0-9_]+)\))\s*[:+]?=\s*(.*)$")


def read_config(path):
    cfg = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$", line.strip())
            if m:
                cfg[m.group(1)] = m.group(2)
    return cfg


COND = re.compile(r"^\s*(ifdef|ifndef)\s+(CONFIG_[A-Za-z0-9_]+)\s*$")
COND_EQ = re.compile(r"^\s*(ifeq|ifneq)\s*\(\s*\$\((CONFIG_[A-Za-z0-9_]+)\)\s*,\s*([ym]?)\s*\)\s*$")


def condition(line, cfg):
    """True/False for a conditional on one config symbol, None if not one;
    'other' for any other if-line."""
    m = COND.match(line)
    if m:
        on = cfg.get(m.group(2)) in ("y", "m")
        return on if m.group(1) == "ifdef" else not on
    m = COND_EQ.match(line)
    if m:
        same = cfg.get(m.group(2), "") == m.group(3)
        return same if m.group(1) == "ifeq" else not same
    if re.match(r"^\s*if(n?eq|n?def)\b", line):
        return "other"
    return None


def makefile_lines(srctree, d, cfg):
    """Logical lines (continuations joined) of DIR's Kbuild, else Makefile,
    outside conditional blocks that the config turns off."""
    for name in ("Kbuild", "Makefile"):
        p = os.path.join(srctree, d, name)
        if not os.path.exists(p):
            continue
        with open(p) as f:
            text = f.read().replace("\\\n", " ")
        out, stack = [], []
        for line in text.splitlines():
            c = condition(line, cfg)
            if c is not None:
                stack.append(True if c == "other" else c)
            elif re.match(r"^\s*else\b", line) and stack:
                stack[-1] = not stack[-1]
            elif re.match(r"^\s*endif\b", line) and stack:
                stack.pop()
            elif all(stack):
                out.append(line)
        return out
    return []


def listed(srctree, d, item, cfg, seen=()):
    """Is ITEM (name.o or subdir/) listed and enabled in DIR's Makefile?
    Returns (True, '') or (False, why)."""
    why = "not listed in %s/Makefile for this config" % d
    for line in makefile_lines(srctree, d, cfg):
        m = LINE.match(line)
        if not m or item not in m.group(4).split():
            continue
        target, cond, sym = m.group(1), m.group(2), m.group(3)
        if sym and cfg.get(sym) not in ("y", "m"):
            why = "%s is not set" % sym
            continue
        if target in ("obj", "lib", "core", "drivers", "libs"):
            return True, ""
        # A part of a composite object: that object must be built.
        comp = target + ".o"
        if comp != item and comp not in seen:
            ok, w = listed(srctree, d, comp, cfg, seen + (item,))
            if ok:
                return True, ""
            why = w
    return False, why


def built(srctree, obj, cfg):
    d, name = os.path.split(obj)
    ok, why = listed(srctree, d, name, cfg)
    if not ok:
        return False, why
    # The directories above, up to the top level.
    while "/" in d:
        parent, sub = os.path.split(d)
        if parent == "arch":
            break
        ok, why = listed(srctree, parent, sub + "/", cfg)
        if not ok and re.fullmatch(r"arch/[^/]+", parent):
            # arch/ARCH/Kbuild lists its subdirectories.
            return ok, why
        if not ok:
            return ok, why
        d = parent
    return True, ""


def main():
    if len(sys.argv) < 4:
        print("usage: kbuild_objs.py SRCTREE CONFIG OBJ...", file=sys.stderr)
        return 2
    srctree, cfg = sys.argv[1], read_config(sys.argv[2])
    for obj in sys.argv[3:]:
        ok, why = built(srctree, obj, cfg)
        print("build %s" % obj if ok else "skip %s (%s)" % (obj, why))
    return 0


if __name__ == "__main__":
    sys.exit(main())
