# SPDX-License-Identifier: GPL-2.0
"""Order statistics for the bench tables: a median with its 95% interval.

ratio_ci() gives a ratio of two medians with a percentile bootstrap interval
(fixed seed, so a table reproduces from its raw lines).

The median's interval is distribution-free: the ranks j and n+1-j of the sorted
sample, j the largest rank with P(Binomial(n, 1/2) < j) <= 2.5%. That needs
n >= 6; below, there is no 95% interval and ci() returns None.
"""

import math
import random
import statistics


def ci_ranks(n):
    """1-based ranks (lo, hi) of the 95% interval of the median of n values."""
    if n < 6:
        return None
    if n > 1000:
        half = 1.959964 * math.sqrt(n) / 2
        j = max(1, int(math.floor(n / 2 - half)))
        return j, n + 1 - j
    total, tail, j = 2 ** n, 0, 0
    while True:
        tail += math.comb(n, j)  # P(X <= j) * 2^n
        if tail * 40 > total:    # more than 2.5%
            break
        j += 1
    return (j, n + 1 - j) if j >= 1 else None


def median_ci(xs):
    """(median, lo, hi); lo and hi are None when n is too small."""
    s = sorted(xs)
    m = statistics.median(s)
    r = ci_ranks(len(s))
    if r is None:
        return m, None, None
    return m, s[r[0] - 1], s[r[1] - 1]


def fmt(mci, f="%.0f"):
    """'M [LO-HI]', or 'M [n<6]' without an interval."""
    m, lo, hi = mci
    if lo is None:
        return (f % m) + " [n<6]"
    return "%s [%s-%s]" % (f % m, f % lo, f % hi)


def rank(items):
    """items: [(label, (m, lo, hi))]. Returns 'a < b ~ c': sorted by median;
    '<' where the intervals do not overlap, '~' where they do."""
    items = sorted(items, key=lambda it: it[1][0])
    out = items[0][0]
    for (_, a), (label, b) in zip(items, items[1:]):
        sep = "~"
        if a[2] is not None and b[1] is not None and a[2] < b[1]:
            sep = "<"
        out += " %s %s" % (sep, label)
    return out


def ratio_ci(num, den, rounds=2000):
    """(median(num) / median(den), lo, hi): a 95% percentile bootstrap
    interval over resamples of both; None bounds with fewer than 6 values."""
    m = statistics.median(num) / max(statistics.median(den), 1e-9)
    if len(num) < 6 or len(den) < 6:
        return m, None, None
    rng = random.Random(12345)
    rs = sorted(statistics.median(rng.choices(num, k=len(num))) /
                max(statistics.median(rng.choices(den, k=len(den))), 1e-9)
                for _ in range(rounds))
    return m, rs[int(0.025 * rounds)], rs[int(0.975 * rounds) - 1]
