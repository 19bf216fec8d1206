"""What each request sent, from ``inputs`` and ``input_prefixes``: the rows stored once put back per request.

A request's input is its prefix's whole input (``input_prefixes.prefix_of``, resolved the same way)
followed by its own rows of ``inputs``. ``expand`` resolves every request at once, in time linear in
the rows it returns plus the requests: chains of prefixes are followed by pointer jumping and one
gather, never by copying a conversation's history once per request. It works on the frames of a
``Capture`` and on those read back from an ingest dataset (``dataset.read_frame``), whatever their
row order, as long as every request a prefix points at is among them.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from toolkit.capture import frames
from toolkit.errors import InputError

__all__ = ["PrefixError", "expand"]


class PrefixError(InputError):
    """``input_prefixes`` that do not fit ``inputs``: a prefix whose rows are missing, a loop, a request twice."""


def expand(
    inputs: pd.DataFrame,
    input_prefixes: pd.DataFrame,
    exchange_ids: Iterable[str],
    *,
    part_ids: Iterable[str] | None = None,
) -> pd.DataFrame:
    """One row per part each request of ``exchange_ids`` sent (frame ``inputs_sent``): the requests in
    the order given (each once), each one's parts in the order sent. ``part_ids`` keeps only those parts
    (the rows are filtered before they are copied, so a narrow ask stays small).

    Raises ``PrefixError`` when a prefix does not hold the parts its row says (a request's rows
    missing, as when only some of a dataset's sources are read) or prefixes loop.
    """
    ids = pd.unique(pd.Series(list(exchange_ids), dtype=object))
    own_x = inputs["exchange_id"].to_numpy(dtype=object)
    pre_x = input_prefixes["exchange_id"].to_numpy(dtype=object)
    pre_of = input_prefixes["prefix_of"].to_numpy(dtype=object)
    codes, names = pd.factorize(np.concatenate([ids, pre_x, pre_of, own_x]))
    n = len(names)
    at = np.cumsum([0, len(ids), len(pre_x), len(pre_of)])
    id_c, x_c, of_c, own_c = codes[: at[1]], codes[at[1] : at[2]], codes[at[2] : at[3]], codes[at[3] :]

    parent = np.full(n, -1, dtype=np.int64)
    if len(np.unique(x_c)) != len(x_c):
        dup = pd.Series(pre_x)[pd.Series(pre_x).duplicated()].iloc[0]
        raise PrefixError(f"input_prefixes: request {dup!r} has more than one row")
    parent[x_c] = of_c
    _check(parent, np.bincount(own_c, minlength=n), x_c, of_c, input_prefixes["parts"], names)

    keep = np.ones(len(own_c), dtype=bool)
    if part_ids is not None:
        keep = inputs["part_id"].isin(list(part_ids)).to_numpy(dtype=bool)
    rows = np.flatnonzero(keep)[np.argsort(own_c[keep], kind="stable")]  # each request's own rows together
    own_len = np.bincount(own_c[keep], minlength=n)
    own_start = np.cumsum(own_len) - own_len

    # nearest request, itself or up its prefixes, with rows of its own (a retry has none): segments of
    # the output are then never empty, so following them costs no more than the rows they give
    nearest = _fixed_point(np.where(own_len > 0, np.arange(n), parent))
    up = np.where(parent >= 0, nearest[np.maximum(parent, 0)], -1)
    pos, anc, depth = [], [], []
    p, a, d = np.arange(len(ids)), nearest[id_c], 0
    while len(a):
        live = a >= 0
        p, a = p[live], a[live]
        pos.append(p)
        anc.append(a)
        depth.append(np.full(len(a), d))
        p, a, d = p, up[a], d + 1
    seg_pos, seg_anc, seg_depth = (np.concatenate(x) if x else np.zeros(0, dtype=np.int64) for x in (pos, anc, depth))
    order = np.lexsort((-seg_depth, seg_pos))  # per request, the oldest prefix first
    seg_pos, seg_anc = seg_pos[order], seg_anc[order]
    lens = own_len[seg_anc]
    total = int(lens.sum())
    offsets = np.cumsum(lens) - lens
    take = rows[np.repeat(own_start[seg_anc] - offsets, lens) + np.arange(total)]

    sent = frames.INPUTS_SENT
    id_arr = pd.array(ids, dtype=sent.columns["exchange_id"])
    data = {"exchange_id": id_arr.take(np.repeat(seg_pos, lens))}
    for col in ("item_index", "part_index", "part_id"):
        data[col] = pd.array(inputs[col].array.take(take), dtype=sent.columns[col])
    return pd.DataFrame(data, columns=list(sent.columns))


def _fixed_point(step: np.ndarray) -> np.ndarray:
    """``step`` applied until nothing changes (-1: stop), by doubling: log(depth) rounds, not depth."""
    cur = step.copy()
    for _ in range(max(1, len(cur)).bit_length() + 1):
        nxt = np.where(cur >= 0, cur[np.maximum(cur, 0)], -1)
        if np.array_equal(nxt, cur):
            return cur
        cur = nxt
    raise PrefixError("input_prefixes: prefixes loop (a request is its own prefix, directly or through others)")


def _check(parent: np.ndarray, own_len: np.ndarray, x_c, of_c, parts: pd.Series, names) -> None:
    """Every prefix holds the parts its row says: rows of a request, then of its prefix, summed up the
    chain by doubling (a prefix that is missing, or read only in part, shows as a shortfall)."""
    total, jump = own_len.astype(np.int64), parent.copy()
    rounds = 0
    while (live := jump >= 0).any():
        if rounds > max(1, len(jump)).bit_length():  # 2**rounds steps up: longer than any chain
            raise PrefixError("input_prefixes: prefixes loop (a request is its own prefix, directly or through others)")
        total = total + np.where(live, total[np.maximum(jump, 0)], 0)
        jump = np.where(live, jump[np.maximum(jump, 0)], -1)
        rounds += 1
    want = parts.to_numpy(dtype=np.int64, na_value=-1)
    bad = np.flatnonzero(total[of_c] != want)
    if len(bad):
        i = bad[0]
        raise PrefixError(
            f"input_prefixes: request {names[x_c[i]]!r} begins with the {want[i]} parts of {names[of_c[i]]!r}, "
            f"but inputs and input_prefixes give that request {total[of_c[i]]} parts"
        )
