#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The acceptance table on a Debian 13 user space, from the "# RESULT"
lines of guest/debian13-test.sh: one guest run with the series' default
(.eh_frame on) and one booted with eh_frame_probe=0.

Usage: debian13_table.py ON_RESULTS OFF_RESULTS OUT
Writes OUT (the table) and prints it; exits 1 if a program lacks a result
in either run.
"""
import sys


def results(path):
    out = {}
    with open(path, errors='replace') as f:
        for line in f:
            w = line.split()
            if len(w) > 3 and w[0] == '#' and w[1] == 'RESULT':
                out[w[2]] = dict(kv.split('=', 1) for kv in w[3:])
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    on, off = results(sys.argv[1]), results(sys.argv[2])
    missing = sorted(set(on) ^ set(off)) or ([] if on else ['(every program)'])
    rows = []
    head = ('program', 'fp', 'defer-noEH', 'fp,defer', 'dwarf', 'ref done%',
            'identical%', 'floor%', 'extra%', 'floor x%', 'no call',
            'B fp', 'B defer', 'B dwarf', 'dwarf/defer', '1:1 n', '1:1 ident%',
            '1:1 extra')
    for p in sorted(on):
        r, o = on[p], off.get(p, {})

        def rate(x, n):
            n = float(r.get(n, 0))
            return '%.1f' % (100.0 * float(r.get(x, 0)) / n) if n else '-'
        rows.append((p, r['frames_fp'], o.get('frames_defer', '-'), r['frames_defer'],
                     r['frames_dwarf'], r['dwarf_complete_pct'], r['identical_pct'],
                     r['floor_identical_pct'], rate('extra_samples', 'comparable'),
                     rate('floor_extra_samples', 'floor_comparable'), r['nocall'],
                     r['bytes_fp'], r['bytes_defer'], r['bytes_dwarf'], r['bytes_ratio'],
                     r.get('pair_comparable', '-'), r.get('pair_identical_pct', '-'),
                     r.get('pair_extra_samples', '-')))
    w = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
    lines = [
        'Debian 13 programs under Debian\'s perf 7.3, perf record -e cpu-clock, separate runs',
        'of the same input (address-space randomization off). User frames per sample',
        '(median): fp; fp,defer booted with eh_frame_probe=0 (defer-noEH) and with the',
        'default; dwarf (8 KiB copies). The reference: the best of five dwarf runs with',
        'larger copies; "ref done%": its chains reaching _start. identical%: fp,defer',
        'chains equal to a complete reference chain of the same leaf; floor%: the next',
        'dwarf run measured the same way (the noise of comparing separate runs). extra%:',
        'samples with a caller no dwarf run found (floor x%: the floor run\'s callers no',
        'other dwarf run found).',
        '"no call": fp,defer caller frames not after a call instruction. B: bytes of',
        'sample and deferred records per sample.',
        '1:1: one event both ways (pairrec), sample by sample: the samples whose dwarf',
        'chain from their own stack copy reaches _start (n), the share of their fp,defer',
        'chains identical to it, and the samples with a frame it has not (extra).',
        '',
        '  '.join(str(h).rjust(w[i]) for i, h in enumerate(head)),
    ]
    lines += ['  '.join(str(x).rjust(w[i]) for i, x in enumerate(r)) for r in rows]
    if missing:
        lines.append('missing in one run: ' + ', '.join(missing))
    text = '\n'.join(lines) + '\n'
    with open(sys.argv[3], 'w') as f:
        f.write(text)
    sys.stdout.write(text)
    sys.exit(1 if missing else 0)


if __name__ == '__main__':
    main()
