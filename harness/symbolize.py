#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Copy stdin to stdout, turning each 0x-address inside BINARY's text into
function+offset (from `nm -n`), and each cookie=0x... into its CPU and counter
halves. The demo binary is static and not position independent, so the
addresses it printed are the addresses in the file.

  symbolize.py BINARY < text
"""

import bisect
import re
import subprocess
import sys


def symbols(binary):
    out = subprocess.run(["nm", "-n", "--defined-only", binary], check=True,
                         capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def main():
    syms = symbols(sys.argv[1])
    addrs = [a for a, _ in syms]

    def name(m):
        addr = int(m.group(0), 16)
        i = bisect.bisect_right(addrs, addr) - 1
        if i < 0 or i + 1 >= len(syms) or addr >= syms[i + 1][0] and \
                syms[i + 1][0] != syms[i][0]:
            return m.group(0)
        return "%s+0x%x" % (syms[i][1], addr - syms[i][0])

    for line in sys.stdin:
        words = line.split()
        if len(words) > 5 and words[0].isdigit() and words[2].startswith("0x"):
            # A records line: pid tracer cookie ctx nr ips...
            cookie = int(words[2], 16)
            print("  pid %s  tracer %s  cookie %s (cpu %d, counter %d)  "
                  "requested from %s  %s frames" % (
                      words[0], words[1], words[2], (cookie & 0xffffffff) - 1,
                      cookie >> 32, words[3], words[4]))
            for i, w in enumerate(words[5:]):
                print("      #%-2d %-18s %s" % (i, w,
                                               re.sub(r"0x[0-9a-f]+", name, w)))
            continue
        print(re.sub(r"\b0x[0-9a-f]{6,}\b", name, line.rstrip("\n")))

if __name__ == "__main__":
    main()
