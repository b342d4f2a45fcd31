# SPDX-License-Identifier: GPL-2.0
"""Compare the user chains of one program under perf --call-graph fp,
fp,defer and dwarf (Debian's perf 7.3, separate runs of the same input).

Runs in the guest, under Debian 13's own python3.13 (python3-minimal's
standard library only), in the Debian 13 root of debian13-test.sh.

Usage: debian13-compare.py NAME EXE COMM DIR REFSIZE

DIR holds, per run M, M.script (perf script -F comm,tid,ip,dsoff) and
M.dump (perf report -D): fp, defer (fp,defer) and dwarf (perf's default
8 KiB stack copy) for the frames and bytes per sample; dwarfL and dwarfL2
to dwarfL5, five runs of dwarf,REFSIZE, give the reference and the noise
floor of comparing separate runs. EXE is the program's path, COMM its comm.

A sample's user chain is its frames below the kernel half, each named by
object and offset (perf's dsoff), so the runs compare without addresses.
The reference's chain is complete when its outermost frame is the
program's _start (the return address of its call, within 64 bytes of
e_entry). A candidate sample (fp,defer, or a complete one of the floor
run) is
comparable when the reference has a complete chain with the same leaf; it
is
  identical  when its chain is one of those chains,
  a prefix   when it is the start of one of them (a short chain),
  different  otherwise; its callers that occur in no chain of any
             dwarf run (for the floor: of any other dwarf run) are
             "extra": frames dwarf never found.
pair-defer.script and pair-dwarf.script are one event both ways (pairrec:
the same samples' fp,defer chains and their stack copies, dwarf,REFSIZE;
perf script -F comm,tid,time,ip,sym,dso,dsoff): each sample's fp,defer
chain against the dwarf chain of its own stack copy, where that one is
complete (sample by sample: identical, a prefix, or different; a different
chain with a frame its dwarf chain has not is counted as extra).
Of the dwarfL runs, the one with the most complete chains is the
reference, the one with the next most the floor. Independent of dwarf,
every caller frame of fp,defer must be a return address: the end of a
call instruction in its object.
The bounds a test holds fp,defer to: identical_min, the floor's identical
share less three standard errors of the difference (pooled; at least 5
points), and extra_max, the floor's share of samples with extra frames
plus three standard errors (at least 3 points): what two separate runs
of a couple of hundred samples can differ by.
Prints one line per figure ("# ...") and one "RESULT NAME key=value ...".
"""
import math
import os
import sys


def entry_offset(exe):
    """The file offset of the ELF entry point of exe."""
    with open(exe, 'rb') as f:
        data = f.read(65536)

    def u(off, n):
        return int.from_bytes(data[off:off + n], 'little')
    entry, phoff, phentsize, phnum = u(24, 8), u(32, 8), u(54, 2), u(56, 2)
    for i in range(phnum):
        p = phoff + i * phentsize
        if u(p, 4) != 1:    # PT_LOAD
            continue
        off, vaddr, filesz = u(p + 8, 8), u(p + 16, 8), u(p + 32, 8)
        if vaddr <= entry < vaddr + filesz:
            return entry - vaddr + off
    sys.exit('%s: e_entry in no PT_LOAD' % exe)


def chains(path, comm, adjust=0, keyed=False):
    """The user chains, leaf first, of comm's samples in a perf script;
    adjust is added to every frame but the leaf. keyed: a dict of them
    by the sample's tid and time (perf script -F comm,tid,time,...)."""
    out = []
    keys = []
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            if not line.strip():
                continue
            if not line[0].isspace():
                if cur is not None:
                    out.append(tuple(cur))
                w = line.split()
                cur = [] if w[0] == comm else None
                if cur is not None:
                    keys.append(' '.join(w[1:3]))
                continue
            if cur is None:
                continue
            w = line.split(None, 1)
            if len(w) < 2 or len(w[0]) == 16 and w[0].startswith('ffff'):
                continue
            # "(object+0xoff)"; an address perf maps to no object: its value.
            # (perf script -F ...,sym,dso,dsoff: "[sym] (object+0xoff)")
            d = w[1].strip()
            if not d.startswith('(') and ' (' in d:
                d = '(' + d.rpartition(' (')[2]
            if d.startswith('(') and '+0x' in d:
                obj, off = d[1:-1].rsplit('+0x', 1)
            else:
                obj, off = '', w[0]
            # perf names the vDSO by a temporary file of its own, a new
            # one in each perf script
            if os.path.basename(obj).startswith('perf-vdso.so-'):
                obj = '[vdso]'
            off = int(off, 16) + (adjust if cur else 0)
            cur.append('%s+%#x' % (obj, off))
    if cur is not None:
        out.append(tuple(cur))
    return dict(zip(keys, out)) if keyed else out


def pair_compare(d, comm, complete):
    """One event both ways: each sample's fp,defer chain against the
    dwarf chain of its own stack copy, where that one is complete.
    Returns the samples of each script and of both, the comparable ones,
    identical, prefix, different, samples with a frame their dwarf chain
    has not, and up to three (fp,defer, dwarf) chains that differ."""
    dfr = chains(os.path.join(d, 'pair-defer.script'), comm, 0, True)
    dwf = chains(os.path.join(d, 'pair-dwarf.script'), comm, 1, True)
    both = [k for k in dfr if k in dwf]
    n = ident = pre = diff = extra = 0
    shown = []
    for k in both:
        c, r = dfr[k], dwf[k]
        if not complete(r):
            continue
        n += 1
        if c == r:
            ident += 1
            continue
        if r[:len(c)] == c:
            pre += 1
        else:
            diff += 1
            extra += any(f not in r for f in c)
        if len(shown) < 3:
            shown.append((c, r))
    return len(dfr), len(dwf), len(both), n, ident, pre, diff, extra, shown


def record_bytes(path):
    """Bytes of sample and deferred-callchain records, and samples."""
    total = samples = 0
    with open(path, errors='replace') as f:
        for line in f:
            if 'PERF_RECORD_SAMPLE(' not in line and \
               'PERF_RECORD_CALLCHAIN_DEFERRED' not in line:
                continue
            w = line.split()
            if len(w) < 3 or not w[2].startswith('[0x'):
                continue
            total += int(w[2][1:-2], 16)
            samples += 'PERF_RECORD_SAMPLE(' in line
    return total, samples


_files = {}


def after_call(frame):
    """Whether a caller frame "OBJ+0xOFF" follows a call instruction in
    OBJ: e8 rel32, or ff /2 (an indirect call) ending at OFF."""
    obj, _, off = frame.rpartition('+0x')
    if not obj:
        return False
    if obj not in _files:
        try:
            with open(obj, 'rb') as f:
                _files[obj] = f.read()
        except OSError:
            _files[obj] = b''
    b, o = _files[obj], int(off, 16)
    if o < 7 or o > len(b):
        return False
    if b[o - 5] == 0xe8:
        return True
    for k in range(2, 8):
        if b[o - k] != 0xff:
            continue
        m = b[o - k + 1]
        if (m >> 3) & 7 != 2:
            continue
        mod, rm = m >> 6, m & 7
        n = 2
        if mod != 3 and rm == 4:
            n += 1
            if mod == 0 and b[o - k + 2] & 7 == 5:
                n += 4
        if mod == 0 and rm == 5:
            n += 4
        n += {1: 1, 2: 4}.get(mod, 0)
        if n == k:
            return True
    return False


def median(v):
    v = sorted(v)
    if not v:
        return 0
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def compare(cands, ref, seen):
    """identical, prefix, different, extra frames, samples with extra."""
    ident = pre = diff = extra = extra_samples = 0
    for c in cands:
        full = ref.get(c[0]) if c else None
        if not full:
            continue
        if c in full:
            ident += 1
        elif any(f[:len(c)] == c for f in full):
            pre += 1
        else:
            diff += 1
            e = sum(1 for fr in c[1:] if fr not in seen)
            extra += e
            extra_samples += e > 0
    return ident, pre, diff, extra, extra_samples


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    name, exe, comm, d, refsize = sys.argv[1:]
    start = '%s+0x' % exe
    eoff = entry_offset(exe)

    def complete(c):
        if not c or not c[-1].startswith(start):
            return False
        return 0 <= int(c[-1][len(start):], 16) - eoff < 64

    # perf's libdw unwinding gives a caller's frame as its return address
    # minus 1 (the call instruction, for its symbol and line); the kernel
    # gives return addresses: dwarf's callers get their 1 back.
    refs = ('dwarfL', 'dwarfL2', 'dwarfL3', 'dwarfL4', 'dwarfL5')
    ch = {m: chains(os.path.join(d, m + '.script'), comm, m.startswith('dwarf'))
          for m in ('fp', 'defer', 'dwarf') + refs}
    by = {m: record_bytes(os.path.join(d, m + '.dump'))
          for m in ('fp', 'defer', 'dwarf')}
    # The reference: the dwarf run with the most complete chains; the next
    # one's complete chains are the noise floor (perf's libdw unwinding
    # stopped early in nearly every sample of some runs while the programs
    # were started through a shell: debian13-test.sh).
    full = {m: [c for c in ch[m] if complete(c)] for m in refs}
    rm, fm = sorted(refs, key=lambda m: -len(full[m]))[:2]
    ref = {}
    ncomplete = len(full[rm])
    for c in full[rm]:
        ref.setdefault(c[0], set()).add(c)

    # The frames dwarf found: those of every dwarf run, for fp,defer; those
    # of every run but the floor's, for the floor.
    def frames_of(runs):
        out = set()
        for m in runs:
            for c in ch[m]:
                out.update(c)
        return out
    seen = frames_of(('dwarf',) + refs)
    seen_floor = frames_of([m for m in ('dwarf',) + refs if m != fm])
    res = {}
    for m in ('fp', 'defer', 'dwarf'):
        res['n_' + m] = len(ch[m])
        res['frames_' + m] = median([len(c) for c in ch[m]])
        t, s = by[m]
        res['bytes_' + m] = round(t / s) if s else 0
    res['n_ref'] = len(ch[rm])
    res['dwarf_complete_pct'] = round(pct(ncomplete, len(ch[rm])), 1)
    # The floor: the other run's complete chains (a short reference chain
    # is the reference's limit, not noise).
    cands = {'defer': ch['defer'], 'floor': full[fm]}
    for m, key, known in (('defer', '', seen), ('floor', 'floor_', seen_floor)):
        i, p, df, e, es = compare(cands[m], ref, known)
        n = i + p + df
        res[key + 'comparable'] = n
        res[key + 'identical_pct'] = round(pct(i, n), 1)
        res[key + 'prefix_pct'] = round(pct(p, n), 1)
        res[key + 'differ_pct'] = round(pct(df, n), 1)
        res[key + 'extra'] = e
        res[key + 'extra_samples'] = es
    # The bounds: the floor's share, and three standard errors of the
    # difference of two shares (pooled), at least 5 points for identical
    # chains and 3 for extra frames.
    def bound(a, na, b, nb, least):
        if not na or not nb:
            return 0.0
        q = (a + b) / float(na + nb)
        return max(least, 300.0 * math.sqrt(q * (1 - q) * (1.0 / na + 1.0 / nb)))
    ni, fi = res['comparable'], res['floor_comparable']
    res['identical_min'] = round(res['floor_identical_pct'] - bound(
        ni - round(ni * res['identical_pct'] / 100), ni,
        fi - round(fi * res['floor_identical_pct'] / 100), fi, 5), 1)
    res['extra_max'] = round(pct(res['floor_extra_samples'], fi) + bound(
        res['extra_samples'], ni, res['floor_extra_samples'], fi, 3), 1)
    # Independent of dwarf: every caller frame is a return address.
    for m, key in (('defer', 'nocall'), (rm, 'ref_nocall')):
        res[key] = sum(1 for c in ch[m] for f in c[1:] if not after_call(f))
    # One event both ways.
    nd, nw, nb, n, i, p, df, x, shown = pair_compare(d, comm, complete)
    res['pair_defer'] = nd
    res['pair_dwarf'] = nw
    res['pair_both'] = nb
    res['pair_comparable'] = n
    res['pair_identical_pct'] = round(pct(i, n), 1)
    res['pair_prefix_pct'] = round(pct(p, n), 1)
    res['pair_differ_pct'] = round(pct(df, n), 1)
    res['pair_extra_samples'] = x
    res['bytes_ratio'] = round(res['bytes_dwarf'] / res['bytes_defer'], 1) \
        if res['bytes_defer'] else 0

    print('# %s: samples fp %d, fp,defer %d, dwarf %d; reference dwarf,%s %d '
          '(%.1f%% complete, to _start; %d complete in the floor run)'
          % (name, res['n_fp'], res['n_defer'], res['n_dwarf'], refsize, res['n_ref'],
             res['dwarf_complete_pct'], len(cands['floor'])))
    print('# %s: user frames per sample (median): fp %s, fp,defer %s, dwarf %s'
          % (name, res['frames_fp'], res['frames_defer'], res['frames_dwarf']))
    print('# %s: fp,defer against complete dwarf chains: %d comparable, %.1f%% identical, '
          '%.1f%% a prefix, %.1f%% different, %d extra frames in %d samples'
          % (name, res['comparable'], res['identical_pct'], res['prefix_pct'],
             res['differ_pct'], res['extra'], res['extra_samples']))
    print('# %s: noise floor, the next dwarf run against the reference: %d comparable, '
          '%.1f%% identical, %.1f%% a prefix, %.1f%% different, %d extra frames'
          % (name, res['floor_comparable'], res['floor_identical_pct'],
             res['floor_prefix_pct'], res['floor_differ_pct'], res['floor_extra']))
    print('# %s: caller frames after no call instruction: fp,defer %d, dwarf %d'
          % (name, res['nocall'], res['ref_nocall']))
    print('# %s: bytes per sample: fp %d, fp,defer %d, dwarf %d (dwarf/fp,defer %.1f)'
          % (name, res['bytes_fp'], res['bytes_defer'], res['bytes_dwarf'], res['bytes_ratio']))
    print('# %s: one event both ways: %d samples (%d with a stack copy, %d in both), '
          '%d with a complete dwarf chain: %.1f%% identical, %.1f%% a prefix, '
          '%.1f%% different, %d with a frame dwarf has not'
          % (name, nd, nw, nb, n, res['pair_identical_pct'], res['pair_prefix_pct'],
             res['pair_differ_pct'], x))
    for c, r in shown:
        print('# %s:   fp,defer: %s' % (name, short(c)))
        print('# %s:   dwarf:    %s' % (name, short(r)))
    print('RESULT %s %s' % (name, ' '.join('%s=%s' % kv for kv in res.items())))
    if os.environ.get('DEBIAN13_VERBOSE'):
        explain(name, ch, ref, eoff, seen, refs)


def short(c):
    return ' '.join(os.path.basename(f) for f in c)


def explain(name, ch, ref, eoff, seen, refs):
    """Where the chains end, and the first differing chains."""
    print('# %s: e_entry at file offset %#x' % (name, eoff))
    for m in refs + ('defer',):
        ends = {}
        for c in ch[m]:
            k = os.path.basename(c[-1]) if c else '(none)'
            ends[k] = ends.get(k, 0) + 1
        top = sorted(ends.items(), key=lambda kv: -kv[1])[:6]
        print('# %s: %s chains end at: %s' % (name, m, ', '.join('%s %d' % kv for kv in top)))
    unseen = {}
    for c in ch['defer']:
        for f in c[1:]:
            if f not in seen:
                unseen[f] = unseen.get(f, 0) + 1
    top = sorted(unseen.items(), key=lambda kv: -kv[1])[:12]
    print('# %s: fp,defer frames no reference chain has: %s'
          % (name, ', '.join('%s %d' % (os.path.basename(f), n) for f, n in top)))
    for c in ch['defer']:
        if any(f in unseen for f in c[1:]):
            print('# %s: e.g. %s' % (name, short(c)))
            break
    shown = 0
    for c in ch['defer']:
        full = ref.get(c[0]) if c else None
        if not full or c in full:
            continue
        print('# %s: fp,defer: %s' % (name, short(c)))
        print('# %s:   dwarf: %s' % (name, short(sorted(full)[0])))
        shown += 1
        if shown == 3:
            break


if __name__ == '__main__':
    main()
