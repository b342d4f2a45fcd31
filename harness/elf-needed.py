#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shared libraries a program of an unpacked Debian root needs.

ldd runs the program's loader, which a root of another architecture (arm64
packages unpacked on an x86_64 host) cannot: this follows DT_NEEDED instead,
with the host's readelf, which reads every architecture's ELF. Each library
is looked up in the root's multiarch and plain library folders, as the
loader's default path does; the loader itself (PT_INTERP) is included.

Usage: elf-needed.py ROOT PROGRAM...   (PROGRAM: a path inside ROOT)
Prints one path inside ROOT per line, each once; exits 1 naming any library
that is not in the root.
"""
import os
import re
import subprocess
import sys


def dynamic(path):
    """(interpreter or None, [DT_NEEDED names]) of the ELF file at path."""
    out = subprocess.run(['readelf', '-W', '-l', '-d', path], check=True,
                         capture_output=True, text=True).stdout
    interp = re.search(r'\[Requesting program interpreter: ([^\]]+)\]', out)
    needed = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out)
    return (interp.group(1) if interp else None), needed


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: elf-needed.py ROOT PROGRAM...')
    root = sys.argv[1]
    dirs = ['/usr/lib/aarch64-linux-gnu', '/lib/aarch64-linux-gnu',
            '/usr/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu',
            '/usr/lib', '/lib']
    seen, order, missing = set(), [], []
    todo = list(sys.argv[2:])
    while todo:
        prog = todo.pop(0)
        interp, needed = dynamic(root + prog)
        if interp:
            # A root unpacked with dpkg-deb has no /lib -> usr/lib link.
            path = next((p for p in (interp, '/usr' + interp)
                         if os.path.exists(root + p)), None)
            if path is None:
                missing.append(f'{interp} (the loader of {prog})')
            elif os.path.basename(path) not in seen:
                seen.add(os.path.basename(path))
                order.append(path)
        for name in needed:
            if name in seen:
                continue
            found = next((d + '/' + name for d in dirs
                          if os.path.exists(root + d + '/' + name)), None)
            if found is None:
                missing.append(f'{name} (needed by {prog})')
                continue
            seen.add(name)
            order.append(found)
            todo.append(found)
    if missing:
        sys.exit('elf-needed.py: not in ' + root + ': ' + ', '.join(missing))
    print('\n'.join(order))


if __name__ == '__main__':
    main()
