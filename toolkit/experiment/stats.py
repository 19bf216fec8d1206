"""Intervals and a test for small counts: an experiment sends a handful of requests per variant, so the
rates come with Wilson score intervals, a difference with Newcombe's hybrid score interval, and the
question "could chance alone give this split?" with Fisher's exact test. Pure Python (``math.comb``),
no SciPy.
"""

from __future__ import annotations

import math

from toolkit.errors import InputError

__all__ = ["Z95", "fisher_exact", "newcombe", "wilson"]

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054

_NAN = (math.nan, math.nan)


def _check(k: int, n: int, where: str) -> None:
    for name, v in (("k", k), ("n", n)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputError(f"{where}: {name} = {v!r} is not a whole number")
    if n < 0 or not 0 <= k <= n:
        raise InputError(f"{where}: {k} of {n} is not a count (needs 0 <= k <= n)")


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials: never outside 0..1 and not empty at 0 or n,
    where the plain normal interval fails on small samples. ``(nan, nan)`` for n = 0."""
    _check(k, n, "wilson")
    if n == 0:
        return _NAN
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # at k = 0 or k = n the bound is 0 or 1 exactly; rounding would leave a speck
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """The interval for p1 - p2 by Newcombe's hybrid score method (1998, method 10): each rate's Wilson
    interval, combined. ``(nan, nan)`` when either side has no trials."""
    _check(k1, n1, "newcombe")
    _check(k2, n2, "newcombe")
    if n1 == 0 or n2 == 0:
        return _NAN
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided Fisher exact p for k1 of n1 against k2 of n2: the probability, with the margins fixed, of
    every table no more likely than the one observed (relative tolerance 1e-7, as R's ``fisher.test``).
    Computed on whole numbers, so it is exact. ``nan`` when either side has no trials."""
    _check(k1, n1, "fisher_exact")
    _check(k2, n2, "fisher_exact")
    if n1 == 0 or n2 == 0:
        return math.nan
    total = k1 + k2
    lo, hi = max(0, total - n2), min(n1, total)
    weights = {x: math.comb(n1, x) * math.comb(n2, total - x) for x in range(lo, hi + 1)}
    observed = weights[k1]
    # w <= observed * (1 + 1e-7), in integers
    extreme = sum(w for w in weights.values() if w * 10_000_000 <= observed * 10_000_001)
    return min(1.0, extreme / math.comb(n1 + n2, total))
