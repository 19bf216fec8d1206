"""The same traffic seen at two hops (in front of a proxy and behind it): pair the requests, then list
every change the hop made, so a proxy that rewrites tool schemas, renames models or converts protocols
is caught from evidence rather than suspected.

``a`` is the hop nearer the client, ``b`` the one nearer the model. ``diff`` needs both captures loaded
with ``keep_bodies=True``.

How ``align`` pairs (content first, then time order). Only requests that carry the same conversation
(the user's and the tools' texts, in order) can be the same request. Within each such set, the requests
of both hops are aligned in time order by one optimal (dynamic-programming) sequence alignment, not one
request at a time, so a request the proxy answered itself or a retry does not shift every later pair.
Its moves: a pair; an upstream retry (one more request at ``b`` sent while the ``a`` request was still
open: one-to-many); a collapse (one more request at ``a`` that arrived while the ``b`` request was open:
many-to-one); a request left unpaired. An unpaired request costs more than any pair whose timing fits;
other tool names cost more than any time gap; among the rest the smallest total time gap wins. Timing
"fits" when the ``b`` request started while the ``a`` request was open (from its start to its end, within
``tolerance_s``), after removing the clock offset between the captures (the median gap of the pairs that
have a single candidate on each side).

``confidence`` of each link:

* ``high``: same texts and tool names, timing fits, ``|delta_ms|`` within ``window_s``, and no other
  request with the same conversation competes within ``MARGIN_MS`` (``margin_ms`` is NA or ≥ it);
* ``medium``: paired by content, but other tool names (a rewriting hop), or a competitor within
  ``MARGIN_MS``, or a wider gap, or no times;
* ``low``: the same conversation, but the timing does not fit (kept only because nothing better exists);
* ``unpaired``: no counterpart; ``basis`` says why (the hop answered it itself, or sent it on its own).

``margin_ms`` is how much further (in ms, after the clock offset) the nearest competing request with the
same conversation is than the chosen partner: NA when nothing competes.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolkit.capture import Capture
from toolkit.capture.frames import UTC_TIME, declare, fixed
from toolkit.errors import InputError
from toolkit.knowledge.messages import Joined, Message
from toolkit.layers.serialization import MISSING, schema_changes
from toolkit.wire.schemas import flat_tool

__all__ = [
    "ALIGN",
    "CONFIDENCES",
    "DIFF",
    "HOP_HEADERS",
    "KINDS",
    "MARGIN_MS",
    "RELATIONS",
    "align",
    "diff",
    "request_changes",
]

RELATIONS = ("one-to-one", "upstream retry", "collapsed", "unpaired")
CONFIDENCES = ("high", "medium", "low", "unpaired")
#: A competing request with the same conversation nearer than this makes a pair ``medium``.
MARGIN_MS = 100.0

ALIGN = declare(
    "hops.align",
    {
        "pair_id": "Int64",  # one client request and its attempts (or the client requests one upstream served)
        "a_exchange": "string",
        "b_exchange": "string",
        "a_time": UTC_TIME,
        "b_time": UTC_TIME,
        "delta_ms": "Float64",  # b_time - a_time, as recorded
        "relation": fixed(*RELATIONS),
        "attempt": "Int64",  # 1, 2, … within an upstream retry (by b) or a collapse (by a); 1 for one-to-one
        "confidence": fixed(*CONFIDENCES),
        "margin_ms": "Float64",
        "basis": object,  # a toolkit Message (Joined): English str, rendered in zh-CN by a reader
    },
)

KINDS = (
    "protocol converted",
    "model renamed",
    "key dropped",
    "key added",
    "value changed",
    "tool dropped",
    "tool added",
    "strict added",
    "strict removed",
    "strict changed",
    "required changed",
    "additionalProperties injected",
    "additionalProperties removed",
    "additionalProperties changed",
    "property dropped",
    "property added",
    "property rewritten",
    "key removed",
    "header removed",
    "header added",
    "header changed",
)

DIFF = declare(
    "hops.diff",
    {
        "pair_id": "Int64",
        "a_exchange": "string",  # the first link of the pair that shows the change
        "b_exchange": "string",
        "tool": "string",
        "path": "string",
        "kind": fixed(*KINDS),
        "before": "string",
        "after": "string",
        "attempts": "Int64",  # how many links of the pair (retries, collapsed requests) show this change
        "links": object,  # tuple of (a_exchange, b_exchange) that show it, in time order
    },
)

# headers every hop changes by itself (its own address, length, framing): not the proxy's decisions
HOP_HEADERS = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "transfer-encoding",
        "keep-alive",
        "accept-encoding",
        "x-forwarded-for",
        "x-forwarded-proto",
        "x-forwarded-host",
        "via",
        "te",
        "upgrade",
    }
)

# alignment costs: content first (unpaired > other tool names > any time gap), then time
_UNPAIRED = 1e6
_MISFIT = 1.5e6  # a pair whose timing does not fit: only better than leaving both sides unpaired
_OTHER_TOOLS = 1e3
_EXTRA = 1.0  # one more link in a retry or a collapse
_GAP_CAP = 1e4


@dataclass(frozen=True)
class _Req:
    id: str
    start: float | None  # epoch seconds
    end: float | None
    texts: tuple
    names: tuple
    status: int | None


def _fingerprint(capture: Capture) -> dict[str, tuple]:
    """exchange id → (the user and tool-output texts, in order; the tool names): what a proxy rarely rewrites."""
    http = capture.exchanges[capture.exchanges["method"].notna()]
    parts = capture.input_parts
    said = parts[parts["role"].astype(str).ne("system") & parts["text"].notna()]
    texts = (
        capture.inputs_wide(["text"], exchange_ids=set(http["exchange_id"]), parts=said)
        .groupby("exchange_id", sort=False)["text"]
        .agg(lambda s: tuple(t[:200] for t in s))
    )
    names = capture.tools.groupby("exchange_id", sort=False)["name"].agg(lambda s: tuple(sorted(s.astype(str))))
    return {x: (texts.get(x, ()), names.get(x, ())) for x in http["exchange_id"]}


def _requests(capture: Capture) -> list[_Req]:
    fp = _fingerprint(capture)
    x = capture.exchanges.set_index("exchange_id")
    out = []
    for xid, (texts, names) in fp.items():
        r = x.loc[xid]
        start = r["started_at"].timestamp() if pd.notna(r["started_at"]) else None
        end = start + r["duration_ms"] / 1000 if start is not None and pd.notna(r["duration_ms"]) else None
        status = int(r["status"]) if pd.notna(r["status"]) else None
        out.append(_Req(str(xid), start, end, tuple(texts), tuple(names), status))
    return sorted(out, key=lambda q: (q.start is None, q.start or 0.0, q.id))


class _Timing:
    """When a request at ``b`` can belong to one at ``a``, with ``b``'s clock moved onto ``a``'s."""

    def __init__(self, offset: float, tolerance: float, window: float):
        self.offset, self.tol, self.window = offset, tolerance, window

    def gap(self, a: _Req, b: _Req) -> float | None:
        """b's start after a's, in seconds, after the clock offset."""
        return None if a.start is None or b.start is None else b.start - self.offset - a.start

    def caused(self, a: _Req, b: _Req) -> bool:
        """b was sent while a was open."""
        g = self.gap(a, b)
        if g is None:
            return True
        open_for = (a.end - a.start) if a.end is not None and a.start is not None else self.window
        return -self.tol <= g <= open_for + self.tol

    def joined(self, a: _Req, b: _Req) -> bool:
        """a arrived while b was open (a proxy that collapses a client's retry onto its request)."""
        g = self.gap(a, b)
        if g is None:
            return True
        open_for = (b.end - b.start) if b.end is not None and b.start is not None else self.window
        return -open_for - self.tol <= g <= self.tol


def _pair_cost(t: _Timing, a: _Req, b: _Req) -> float:
    g = t.gap(a, b)
    cost = min(abs(g), _GAP_CAP) if g is not None else 0.0
    if a.names != b.names:
        cost += _OTHER_TOOLS
    return cost + (0.0 if t.caused(a, b) else _MISFIT)


def _align_set(t: _Timing, A: list[_Req], B: list[_Req]) -> tuple[list[tuple[list[int], list[int]]], set, set]:
    """One optimal monotone alignment of the requests of one conversation: (pair groups, unpaired a, unpaired b).

    States (i, j, s): the first i of A and j of B are placed; s says whether the last move left a group
    open to more links: 1 a fresh pair, 2 an upstream retry (more b for A[i-1]), 3 a collapse (more a for B[j-1]).
    """
    best: dict[tuple[int, int, int], tuple[float, Any, str]] = {(0, 0, 0): (0.0, None, "")}
    n, m = len(A), len(B)
    for i in range(n + 1):
        for j in range(m + 1):
            for s in range(4):
                here = best.get((i, j, s))
                if here is None:
                    continue
                cost = here[0]

                def relax(key, c, op, frm=(i, j, s)):
                    if key not in best or c < best[key][0]:
                        best[key] = (c, frm, op)

                if i < n:
                    relax((i + 1, j, 0), cost + _UNPAIRED, "a")
                if j < m:
                    relax((i, j + 1, 0), cost + _UNPAIRED, "b")
                if i < n and j < m:
                    relax((i + 1, j + 1, 1), cost + _pair_cost(t, A[i], B[j]), "pair")
                if s in (1, 2) and j < m and t.caused(A[i - 1], B[j]) and A[i - 1].names == B[j].names:
                    relax((i, j + 1, 2), cost + _EXTRA + abs(t.gap(A[i - 1], B[j]) or 0.0), "retry")
                if s in (1, 3) and i < n and t.joined(A[i], B[j - 1]) and A[i].names == B[j - 1].names:
                    relax((i + 1, j, 3), cost + _EXTRA + abs(t.gap(A[i], B[j - 1]) or 0.0), "collapse")
    key = min(((n, m, s) for s in range(4) if (n, m, s) in best), key=lambda k: best[k][0])
    ops = []
    while best[key][1] is not None:
        ops.append((key, best[key][2]))
        key = best[key][1]
    groups: list[tuple[list[int], list[int]]] = []
    lone_a, lone_b = set(), set()
    for (i, j, _), op in reversed(ops):
        if op == "a":
            lone_a.add(i - 1)
        elif op == "b":
            lone_b.add(j - 1)
        elif op == "pair":
            groups.append(([i - 1], [j - 1]))
        elif op == "retry":
            groups[-1][1].append(j - 1)
        else:
            groups[-1][0].append(i - 1)
    return groups, lone_a, lone_b


def _offset(by_texts: dict[tuple, tuple[list[_Req], list[_Req]]], tolerance: float, window: float) -> float:
    """The clock offset of ``b`` against ``a``: the median gap of the single-candidate pairs, unless that
    leaves one of them outside its request's open time while the smallest gap fits them all. A hop whose
    own latency varies (LiteLLM's first call takes a second, later ones a tenth) has no common gap to
    remove: then the captures are taken to share a clock, less that smallest latency."""
    singles = [
        (A[0], B[0])
        for A, B in by_texts.values()
        if len(A) == 1 and len(B) == 1 and A[0].start is not None and B[0].start is not None
    ]
    gaps = [b.start - a.start for a, b in singles]  # type: ignore[operator]
    if not gaps:
        return 0.0
    median = statistics.median(gaps)

    def fits(offset: float) -> bool:
        return all(_Timing(offset, tolerance, window).caused(a, b) for a, b in singles)

    if not fits(median) and fits(min(gaps)):
        return min(gaps)
    return median


def align(a: Capture, b: Capture, *, window_s: float = 30.0, tolerance_s: float = 0.05) -> pd.DataFrame:
    """Pair the requests seen at hop ``a`` with the same requests at hop ``b``: one row per link (a retried
    request has one row per upstream attempt, collapsed client requests one row each), and one row per
    unpaired request with the reason. See the module docstring for the method and ``confidence``."""
    reqs_a, reqs_b = _requests(a), _requests(b)
    by_texts: dict[tuple, tuple[list[_Req], list[_Req]]] = defaultdict(lambda: ([], []))
    for q in reqs_a:
        by_texts[q.texts][0].append(q)
    for q in reqs_b:
        by_texts[q.texts][1].append(q)
    t = _Timing(_offset(by_texts, tolerance_s, window_s), tolerance_s, window_s)
    found: list[tuple[float, int, dict]] = []
    for A, B in by_texts.values():
        groups, lone_a, lone_b = _align_set(t, A, B)
        for ia, ib in groups:
            links = [(A[i], B[j]) for i in ia for j in ib]
            relation = "one-to-one" if len(links) == 1 else "upstream retry" if len(ib) > 1 else "collapsed"
            others_a = [q for k, q in enumerate(A) if k not in ia]
            others_b = [q for k, q in enumerate(B) if k not in ib]
            rows = [_link(t, qa, qb, relation, n + 1, others_a, others_b, window_s) for n, (qa, qb) in enumerate(links)]
            found.append((links[0][0].start or 0.0, 0, {"rows": rows}))
        for i in sorted(lone_a):
            found.append((A[i].start or 0.0, 1, {"rows": [_lone_a(A[i], B)]}))
        for j in sorted(lone_b):
            found.append(((B[j].start or 0.0) - t.offset, 1, {"rows": [_lone_b(B[j], A)]}))
    records = []
    pair_id = 0
    for _, _, item in sorted(found, key=lambda f: (f[0], f[1])):
        paired = item["rows"][0]["relation"] != "unpaired"
        pair_id += paired
        for r in item["rows"]:
            records.append({"pair_id": pair_id if paired else None, **r})
    return ALIGN.from_records(records)


def _ms(g: float | None) -> float | None:
    return None if g is None else g * 1000


def _link(t: _Timing, a: _Req, b: _Req, relation: str, attempt: int, others_a, others_b, window_s) -> dict:
    g = t.gap(a, b)
    competitors = [abs(x) for x in [t.gap(o, b) for o in others_a] + [t.gap(a, o) for o in others_b] if x is not None]
    margin = (min(competitors) - abs(g)) * 1000 if competitors and g is not None else None
    delta = None if a.start is None or b.start is None else b.start - a.start
    fits = t.caused(a, b) if relation != "collapsed" or attempt == 1 else t.joined(a, b)
    same_tools = a.names == b.names
    if not fits:
        confidence = "low"
    elif same_tools and delta is not None and abs(delta) <= window_s and (margin is None or margin >= MARGIN_MS):
        confidence = "high"
    else:
        confidence = "medium"
    parts: list[Message] = [
        Message("hops.basis.same_texts"),
        Message("hops.basis.same_tools" if same_tools else "hops.basis.other_tools"),
        Message("hops.basis.apart", ms=f"{abs(delta) * 1000:.0f}")
        if delta is not None
        else Message("hops.basis.no_times"),
    ]
    if margin is not None:
        parts.append(Message("hops.basis.next_candidate", ms=f"{margin:.0f}"))
    if relation == "upstream retry":
        status = b.status if b.status is not None else "none"
        parts.append(Message("hops.basis.upstream_attempt", attempt=attempt, status=status))
    elif relation == "collapsed":
        parts.append(Message("hops.basis.collapsed", attempt=attempt))
    if not fits:
        parts.append(Message("hops.basis.not_open"))
    basis = Joined(", ", parts)  # a toolkit sentence: English as before, rendered in zh-CN by a reader
    return {
        "a_exchange": a.id,
        "b_exchange": b.id,
        "a_time": a.start,
        "b_time": b.start,
        "delta_ms": _ms(delta),
        "relation": relation,
        "attempt": attempt,
        "confidence": confidence,
        "margin_ms": margin,
        "basis": basis,
    }


def _lone_a(a: _Req, B: list[_Req]) -> dict:
    why = Message("hops.basis.a_none" if not B else "hops.basis.a_taken")
    fate = (
        Message("hops.basis.answered", status=a.status) if a.status is not None else Message("hops.basis.no_response")
    )
    return _unpaired(a, None, Joined(": ", [why, fate]))


def _lone_b(b: _Req, A: list[_Req]) -> dict:
    why = Message("hops.basis.b_none" if not A else "hops.basis.b_taken")
    return _unpaired(None, b, Joined(": ", [why, Message("hops.basis.own")]))


def _unpaired(a: _Req | None, b: _Req | None, basis: str) -> dict:
    return {
        "a_exchange": a.id if a else None,
        "b_exchange": b.id if b else None,
        "a_time": a.start if a else None,
        "b_time": b.start if b else None,
        "delta_ms": None,
        "relation": "unpaired",
        "attempt": None,
        "confidence": "unpaired",
        "margin_ms": None,
        "basis": basis,
    }


def diff(a: Capture, b: Capture, pairs: pd.DataFrame | None = None, *, responses: bool = False) -> pd.DataFrame:
    """One row per change the hop made to each paired request: the JSON path, the value before and after,
    and the kind (``KINDS``: the tool schema diff of ``serialization.schema_changes``, model renamed, key
    dropped/added, protocol converted, header added/removed/changed). Header values are as redacted as
    everywhere. A change shown by several links of one pair (the attempts of a retried request, client
    requests a proxy collapsed) is one row, with ``attempts`` and the ``links`` that show it.

    Every top-level key is compared, also across a protocol conversion (a key the conversion dropped or
    added is a change; only the conversation, ``model`` and ``tools`` are compared their own way); without
    a conversion the conversation (``input``/``messages``/``instructions``) is compared item by item. With
    ``responses=True`` the response headers the hop changed are listed too (path ``response header:…``):
    a gateway's own headers (LiteLLM's ``x-litellm-*``) show who answered."""
    if a.bodies.empty or b.bodies.empty:
        raise InputError("hops.diff needs the request bodies: load both captures with keep_bodies=True")
    pairs = align(a, b) if pairs is None else pairs
    body_a = dict(zip(a.bodies["exchange_id"], a.bodies["request"], strict=True))
    body_b = dict(zip(b.bodies["exchange_id"], b.bodies["request"], strict=True))
    api_a = a.exchanges.set_index("exchange_id")["api"].astype(str)
    api_b = b.exchanges.set_index("exchange_id")["api"].astype(str)
    linked = pairs[pairs["confidence"] != "unpaired"]
    groups: dict[Any, dict[tuple, list[tuple[str, str]]]] = {}
    for n, p in enumerate(linked.itertuples(index=False)):
        pid = p.pair_id if "pair_id" in linked.columns and pd.notna(p.pair_id) else f"row {n}"
        changes = groups.setdefault(pid, {})
        xa, xb = str(p.a_exchange), str(p.b_exchange)
        ra, rb = body_a.get(xa) or {}, body_b.get(xb) or {}
        for change in _changes(a, b, xa, xb, ra, rb, api_a[xa], api_b[xb], responses):
            changes.setdefault(change, []).append((xa, xb))
    records = []
    for pid, changes in groups.items():
        for (tool, path, kind, before, after), links in changes.items():
            records.append(
                {
                    "pair_id": None if isinstance(pid, str) else int(pid),
                    "a_exchange": links[0][0],
                    "b_exchange": links[0][1],
                    "tool": tool,
                    "path": path,
                    "kind": kind,
                    "before": before,
                    "after": after,
                    "attempts": len(links),
                    "links": tuple(links),
                }
            )
    return DIFF.from_records(records)


#: Where each protocol carries the conversation; across a conversion these are matched by ``align``'s texts.
CONVERSATION = ("input", "instructions", "messages")


def request_changes(a: dict, b: dict, *, api_a: str, api_b: str | None = None) -> list[tuple]:
    """(tool, path, kind, before, after) from request body ``a`` to ``b``, values shown as text: the body
    part of a hop diff (top-level keys, the conversation item by item, the tools' schemas), no headers.
    Pure, so an experiment can show what each variant changed in ``diff``'s own vocabulary."""
    api_b = api_a if api_b is None else api_b
    out: list[tuple] = []

    def add(tool, path, kind, before, after):
        out.append((tool, path, kind, _show(before), _show(after)))

    _body_changes(a, b, api_a, api_b, add)
    return out


def _body_changes(ra: dict, rb: dict, api_a: str, api_b: str, add) -> None:
    converted = api_a != api_b
    if converted:
        add(None, "$", "protocol converted", f"{api_a}: {sorted(ra)}", f"{api_b}: {sorted(rb)}")
    if ra.get("model") != rb.get("model"):
        add(None, "$.model", "model renamed", ra.get("model"), rb.get("model"))
    for key in list(ra) + [k for k in rb if k not in ra]:
        if key in ("model", "tools") or (converted and key in CONVERSATION):
            continue
        if key not in rb:
            add(None, f"$.{key}", "key dropped", ra[key], None)
        elif key not in ra:
            add(None, f"$.{key}", "key added", None, rb[key])
        elif key in CONVERSATION:
            _deep(ra[key], rb[key], f"$.{key}", add)
        elif ra[key] != rb[key]:
            add(None, f"$.{key}", "value changed", ra[key], rb[key])
    _tool_changes(ra.get("tools") or [], rb.get("tools") or [], add)


def _changes(
    a: Capture, b: Capture, xa: str, xb: str, ra: dict, rb: dict, api_a: str, api_b: str, responses: bool = False
) -> list[tuple]:
    """(tool, path, kind, before, after) for one link, values shown as text: the body, then the headers."""
    out = request_changes(ra, rb, api_a=api_a, api_b=api_b)

    def add(tool, path, kind, before, after):
        out.append((tool, path, kind, _show(before), _show(after)))

    _header_changes(a, b, xa, xb, add)
    if responses:
        _header_changes(a, b, xa, xb, add, direction="response")
    return out


def _deep(va, vb, path: str, add) -> None:
    """Item-by-item changes inside the conversation: a key dropped or added, or a value changed."""
    if isinstance(va, dict) and isinstance(vb, dict):
        for key in list(va) + [k for k in vb if k not in va]:
            if key not in vb:
                add(None, f"{path}.{key}", "key dropped", va[key], None)
            elif key not in va:
                add(None, f"{path}.{key}", "key added", None, vb[key])
            else:
                _deep(va[key], vb[key], f"{path}.{key}", add)
    elif isinstance(va, list) and isinstance(vb, list) and len(va) == len(vb):
        for i, (x, y) in enumerate(zip(va, vb, strict=True)):
            _deep(x, y, f"{path}[{i}]", add)
    elif va != vb or type(va) is not type(vb):
        add(None, path, "value changed", va, vb)


def _show(v):
    if v is None or v is MISSING or isinstance(v, str):
        return None if v is MISSING else v
    return json.dumps(v, ensure_ascii=False)


def _flat_tools(tools: list) -> dict[Any, tuple[int, dict]]:
    """name → (position, the tool with a Chat Completions ``function`` wrapper taken off)."""
    out: dict[Any, tuple[int, dict]] = {}  # keyed by the name as sent (None when there is none)
    for i, t in enumerate(tools):
        if not isinstance(t, dict):
            continue
        fn = flat_tool(t) if isinstance(t.get("function"), dict) else t
        out.setdefault(fn.get("name"), (i, fn))
    return out


def _tool_changes(tools_a: list, tools_b: list, add) -> None:
    fa, fb = _flat_tools(tools_a), _flat_tools(tools_b)
    for name, (i, ta) in fa.items():
        if name not in fb:
            add(name, f"$.tools[{i}]", "tool dropped", name, None)
            continue
        for path, kind, before, after in schema_changes(ta, fb[name][1], f"$.tools[{i}]"):
            add(name, path, kind, before, after)
    for name, (i, _) in fb.items():
        if name not in fa:
            add(name, f"$.tools[{i}]", "tool added", None, name)


def _header_changes(a: Capture, b: Capture, xa: str, xb: str, add, direction: str = "request") -> None:
    """Request headers: what the hop sent on (a → b). Response headers: what it answered with, so the
    before side is what reached it (b) and the after side what it returned (a)."""
    ha = a.headers[(a.headers["exchange_id"] == xa) & (a.headers["direction"] == direction)]
    hb = b.headers[(b.headers["exchange_id"] == xb) & (b.headers["direction"] == direction)]
    va = dict(zip(ha["name"], ha["value"], strict=True))
    vb = dict(zip(hb["name"], hb["value"], strict=True))
    prefix = "header:"
    if direction == "response":
        va, vb, prefix = vb, va, "response header:"
    for name in sorted(set(va) | set(vb)):
        if name in HOP_HEADERS:
            continue
        if name not in vb:
            add(None, f"{prefix}{name}", "header removed", va[name], None)
        elif name not in va:
            add(None, f"{prefix}{name}", "header added", None, vb[name])
        elif va[name] != vb[name]:
            add(None, f"{prefix}{name}", "header changed", va[name], vb[name])
