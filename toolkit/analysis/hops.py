"""The same traffic seen at two hops (in front of a proxy and behind it): pair the requests, then list
every change the hop made, so a proxy that rewrites tool schemas, renames models or converts protocols
is caught from evidence rather than suspected.

``a`` is the hop nearer the client, ``b`` the one nearer the model. ``diff`` needs both captures loaded
with ``keep_bodies=True``.
"""

from __future__ import annotations

import json

import pandas as pd

from toolkit.capture import Capture
from toolkit.wire.schemas import strict_state

ALIGN_COLUMNS = ["a_exchange", "b_exchange", "a_time", "b_time", "delta_ms", "confidence", "basis"]
DIFF_COLUMNS = ["a_exchange", "b_exchange", "tool", "path", "kind", "before", "after"]
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


def _fingerprint(capture: Capture) -> dict[str, tuple]:
    """exchange id → (the user and tool-output texts, in order; the tool names): what a proxy rarely rewrites."""
    http = capture.exchanges[capture.exchanges["method"].notna()]
    inputs = capture.inputs[capture.inputs["exchange_id"].isin(set(http["exchange_id"]))]
    texts = (
        inputs[inputs["role"].astype(str).ne("system") & inputs["text"].notna()]
        .groupby("exchange_id", sort=False)["text"]
        .agg(lambda s: tuple(t[:200] for t in s))
    )
    names = capture.tools.groupby("exchange_id", sort=False)["name"].agg(lambda s: tuple(sorted(s.astype(str))))
    return {x: (texts.get(x, ()), names.get(x, ())) for x in http["exchange_id"]}


def align(a: Capture, b: Capture, *, window_s: float = 30.0) -> pd.DataFrame:
    """Pair each request seen at hop ``a`` with the same request at hop ``b``.

    ``high``: the same conversation texts and tool names, within ``window_s`` seconds; ``medium``: the same
    texts but other tools (a rewriting hop) or a wider gap; unpaired exchanges are listed with
    ``confidence == "unpaired"`` and the reason.
    """
    fa, fb = _fingerprint(a), _fingerprint(b)
    ta = a.exchanges.set_index("exchange_id")["started_at"]
    tb = b.exchanges.set_index("exchange_id")["started_at"]
    free = list(fb)  # b exchanges in time order, not yet paired
    rows = []
    for xa in sorted(fa, key=lambda x: ta[x]):
        texts_a, names_a = fa[xa]
        best, best_key = None, None
        for xb in free:
            texts_b, names_b = fb[xb]
            if texts_a != texts_b:
                continue
            gap = abs((tb[xb] - ta[xa]).total_seconds()) if pd.notna(tb[xb]) and pd.notna(ta[xa]) else float("inf")
            key = (names_a != names_b, gap)
            if best_key is None or key < best_key:
                best, best_key = xb, key
        if best is None:
            rows.append(
                {
                    "a_exchange": xa,
                    "b_exchange": None,
                    "a_time": ta[xa],
                    "b_time": pd.NaT,
                    "delta_ms": None,
                    "confidence": "unpaired",
                    "basis": "no request at hop b carries the same conversation",
                }
            )
            continue
        free.remove(best)
        other_tools, gap = best_key
        confidence = "high" if not other_tools and gap <= window_s else "medium"
        basis = "same conversation texts" + (", other tool names" if other_tools else ", same tool names")
        basis += f", {gap * 1000:.0f} ms apart" if gap != float("inf") else ", no times"
        rows.append(
            {
                "a_exchange": xa,
                "b_exchange": best,
                "a_time": ta[xa],
                "b_time": tb[best],
                "delta_ms": None if gap == float("inf") else (tb[best] - ta[xa]).total_seconds() * 1000,
                "confidence": confidence,
                "basis": basis,
            }
        )
    for xb in free:
        rows.append(
            {
                "a_exchange": None,
                "b_exchange": xb,
                "a_time": pd.NaT,
                "b_time": tb[xb],
                "delta_ms": None,
                "confidence": "unpaired",
                "basis": "no request at hop a carries the same conversation",
            }
        )
    out = pd.DataFrame(rows, columns=ALIGN_COLUMNS)
    out["confidence"] = out["confidence"].astype(pd.CategoricalDtype(["high", "medium", "unpaired"]))
    return out


def diff(a: Capture, b: Capture, pairs: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per change the hop made to each paired request: the JSON path, the value before and after,
    and the kind (strict added/removed/changed, required changed, property dropped/added/rewritten,
    additionalProperties injected/removed, model renamed, key dropped/added, protocol converted,
    header added/removed/changed). Header values are as redacted as everywhere."""
    if a.bodies.empty or b.bodies.empty:
        raise ValueError("hops.diff needs the request bodies: load both captures with keep_bodies=True")
    pairs = align(a, b) if pairs is None else pairs
    body_a = dict(zip(a.bodies["exchange_id"], a.bodies["request"]))
    body_b = dict(zip(b.bodies["exchange_id"], b.bodies["request"]))
    api_a = a.exchanges.set_index("exchange_id")["api"].astype(str)
    api_b = b.exchanges.set_index("exchange_id")["api"].astype(str)
    rows: list[dict] = []
    for p in pairs[pairs["confidence"] != "unpaired"].itertuples(index=False):
        xa, xb = p.a_exchange, p.b_exchange
        ra, rb = body_a.get(xa) or {}, body_b.get(xb) or {}
        add = lambda tool, path, kind, before, after, xa=xa, xb=xb: rows.append(  # noqa: E731
            {
                "a_exchange": xa,
                "b_exchange": xb,
                "tool": tool,
                "path": path,
                "kind": kind,
                "before": _show(before),
                "after": _show(after),
            }
        )
        converted = api_a[xa] != api_b[xb]
        if converted:
            add(None, "$", "protocol converted", f"{api_a[xa]}: {sorted(ra)}", f"{api_b[xb]}: {sorted(rb)}")
        if ra.get("model") != rb.get("model"):
            add(None, "$.model", "model renamed", ra.get("model"), rb.get("model"))
        if not converted:
            for key in list(ra) + [k for k in rb if k not in ra]:
                if key in ("model", "tools", "input", "messages"):
                    continue
                if key not in rb:
                    add(None, f"$.{key}", "key dropped", ra[key], None)
                elif key not in ra:
                    add(None, f"$.{key}", "key added", None, rb[key])
                elif ra[key] != rb[key]:
                    add(None, f"$.{key}", "value changed", ra[key], rb[key])
        _tool_changes(ra.get("tools") or [], rb.get("tools") or [], add)
        _header_changes(a, b, xa, xb, add)
    return pd.DataFrame(rows, columns=DIFF_COLUMNS)


def _show(v):
    if v is None or isinstance(v, str):
        return v
    return json.dumps(v, ensure_ascii=False)


def _flat_tools(tools: list) -> dict[str, tuple[int, dict]]:
    out = {}
    for i, t in enumerate(tools):
        if not isinstance(t, dict):
            continue
        fn = t["function"] if isinstance(t.get("function"), dict) else t
        out.setdefault(fn.get("name"), (i, {**fn, "_strict": strict_state(t)}))
    return out


def _tool_changes(tools_a: list, tools_b: list, add) -> None:
    fa, fb = _flat_tools(tools_a), _flat_tools(tools_b)
    for name, (i, ta) in fa.items():
        base = f"$.tools[{i}]"
        if name not in fb:
            add(name, base, "tool dropped", name, None)
            continue
        tb = fb[name][1]
        sa, sb = ta["_strict"], tb["_strict"]
        if sa != sb:
            kind = "strict added" if sa == "absent" else "strict removed" if sb == "absent" else "strict changed"
            add(name, f"{base}.strict", kind, ta.get("strict"), tb.get("strict"))
        pa, pb = ta.get("parameters") or {}, tb.get("parameters") or {}
        if pa.get("required") != pb.get("required"):
            add(name, f"{base}.parameters.required", "required changed", pa.get("required"), pb.get("required"))
        apa, apb = pa.get("additionalProperties", None), pb.get("additionalProperties", None)
        if apa != apb:
            kind = (
                "additionalProperties injected"
                if "additionalProperties" not in pa
                else "additionalProperties removed"
                if "additionalProperties" not in pb
                else "additionalProperties changed"
            )
            add(name, f"{base}.parameters.additionalProperties", kind, apa, apb)
        props_a, props_b = pa.get("properties") or {}, pb.get("properties") or {}
        for prop in list(props_a) + [k for k in props_b if k not in props_a]:
            path = f"{base}.parameters.properties.{prop}"
            if prop not in props_b:
                add(name, path, "property dropped", props_a[prop], None)
            elif prop not in props_a:
                add(name, path, "property added", None, props_b[prop])
            elif props_a[prop] != props_b[prop]:
                add(name, path, "property rewritten", props_a[prop], props_b[prop])
    for name, (i, _) in fb.items():
        if name not in fa:
            add(name, f"$.tools[{i}]", "tool added", None, name)


def _header_changes(a: Capture, b: Capture, xa: str, xb: str, add) -> None:
    ha = a.headers[(a.headers["exchange_id"] == xa) & (a.headers["direction"] == "request")]
    hb = b.headers[(b.headers["exchange_id"] == xb) & (b.headers["direction"] == "request")]
    va = dict(zip(ha["name"], ha["value"]))
    vb = dict(zip(hb["name"], hb["value"]))
    for name in sorted(set(va) | set(vb)):
        if name in HOP_HEADERS:
            continue
        if name not in vb:
            add(None, f"header:{name}", "header removed", va[name], None)
        elif name not in va:
            add(None, f"header:{name}", "header added", None, vb[name])
        elif va[name] != vb[name]:
            add(None, f"header:{name}", "header changed", va[name], vb[name])
