"""Who did what to each field that matters: the six questions every investigation of this kind must
answer, each answered from evidence (file, entry or line, JSON or YAML path), or said to be unknown,
with the capture that would settle it. Nothing is guessed.

Questions: who defined the field; who changed the schema; who interpreted ``strict``; who declared the
model's capability; who finally validated the parameters; who owns the real permission state. For a
field a call filled although the schema marks it optional, one more row says who filled it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit.analysis import hops
from toolkit.capture import Capture, load_captures
from toolkit.capture.frames import declare, fixed
from toolkit.knowledge import dsh_images
from toolkit.knowledge.dsh_runtime import ERROR_PREFIX
from toolkit.layers import LAYERS
from toolkit.layers.config import Settings, load_settings

QUESTIONS = (
    "who defined the field",
    "who changed the schema",
    "who interpreted strict",
    "who declared the model's capability",
    "who finally validated the parameters",
    "who owns the real permission state",
    "who filled the value",
)
#: Who an answer names (NA: unknown).
ACTORS = ("pi-ai", "DSH", "DSH session", "proxy", "gateway", "settings", "model", "LiteLLM")
#: Headers that name the hop: (direction, header, the capture it is read in, actor, how the value is shown).
#: LiteLLM's proxy adds ``x-litellm-version`` to every response it returns (litellm 1.110.2
#: ``proxy/common_request_processing.py:2437``) and sends ``user-agent: litellm/<version>`` upstream on its own
#: HTTP client (``llms/custom_httpx/http_handler.py:198``; not on routes it serves through the OpenAI SDK).
HOP_SIGNS = (("response", "x-litellm-version", "a", "LiteLLM"), ("request", "user-agent", "b", "LiteLLM"))
TABLE = declare(
    "provenance.table",
    {
        "field": "string",  # tool.field, or model.input
        "question": fixed(*QUESTIONS),
        "answer": "string",
        "actor": fixed(*ACTORS),
        "layer": fixed(*LAYERS),
        "settled": "boolean",
        "evidence": "string",  # "; "-separated places: file, entry or line, JSON or YAML path
    },
)
COLUMNS = list(TABLE.columns)
ESCALATION = ("sandbox_permissions", "justification")


@dataclass
class _Evidence:
    settings: Settings | None
    hops: list[Capture]  # HTTP captures, client side first
    sessions: list[Capture]


def table(settings=None, captures=(), sessions=()) -> pd.DataFrame:
    """The six questions for each tool's ``strict``, every escalation field, every optional field a call
    filled, and each model's image input. ``captures`` are HTTP captures ordered from the client outward
    (two captures of the same traffic at two hops show what the hop in between changed)."""
    ev = _Evidence(_settings(settings), [_capture(c) for c in captures], [_capture(c) for c in sessions])
    rows: list[dict] = []
    for tool in _tool_names(ev):
        rows += _strict_rows(ev, tool)
        escalation = tuple(f for f in ESCALATION if _advertises(ev, tool, f))
        for fieldname in escalation + _filled_optional(ev, tool):
            if any(r["field"] == f"{tool}.{fieldname}" for r in rows):
                continue
            rows += _field_rows(ev, tool, fieldname)
    for model in _models(ev):
        rows += _image_rows(ev, model)
    return TABLE.from_records(rows)


def _settings(s):
    if s is None or isinstance(s, Settings):
        return s
    return load_settings(s)


def _capture(c) -> Capture:
    return c if isinstance(c, Capture) else load_captures([Path(c)], keep_bodies=True)


def _row(field, question, answer, actor, layer, settled, evidence) -> dict:
    return {
        "field": field,
        "question": question,
        "answer": answer,
        "actor": actor,
        "layer": layer,
        "settled": settled,
        "evidence": "; ".join(e for e in evidence if e),
    }


def _where(cap: Capture | None, exchange_id: str) -> str:
    assert cap is not None  # callers pass the capture the exchange came from
    x = cap.exchanges[cap.exchanges["exchange_id"] == exchange_id].iloc[0]
    return f"{x['source']} {x['location']}"


def _tool_names(ev: _Evidence) -> list[str]:
    names: dict[str, None] = {}
    for cap in ev.hops + ev.sessions:
        names.update(dict.fromkeys(cap.tools["name"].dropna().astype(str)))
    return list(names)


def _advertises(ev: _Evidence, tool: str, fieldname: str) -> bool:
    for cap in ev.hops + ev.sessions:
        t = cap.tools[cap.tools["name"] == tool]
        if any(fieldname in tuple(r) for r in t["optional"]) or any(fieldname in tuple(r) for r in t["required"]):
            return True
    return False


def _first_tool(cap: Capture, tool: str):
    rows = cap.tools[cap.tools["name"] == tool]
    return None if rows.empty else rows.iloc[0]


def _route_and_model(ev: _Evidence, cap: Capture | None):
    """The settings route and model the captured requests went to (by model id)."""
    if ev.settings is None or cap is None or cap.exchanges.empty:
        return None
    model = cap.exchanges["model"].dropna().astype(str)
    if model.empty:
        return None
    hit = ev.settings.models[ev.settings.models["id"] == model.iloc[0]]
    return None if hit.empty else hit.iloc[0]


def _hop_changes(ev: _Evidence, tool: str, kinds: tuple) -> list[tuple[int, pd.DataFrame]]:
    out = []
    for i in range(len(ev.hops) - 1):
        a, b = ev.hops[i], ev.hops[i + 1]
        if a.bodies.empty or b.bodies.empty:
            continue
        d = hops.diff(a, b)
        d = d[(d["tool"] == tool) & d["kind"].isin(kinds)]
        out.append((i, d))
    return out


def _strict_rows(ev: _Evidence, tool: str) -> list[dict]:
    f = f"{tool}.strict"
    rows = []
    first = ev.hops[0] if ev.hops else None
    t = _first_tool(first, tool) if first is not None else None
    model_row = _route_and_model(ev, first)
    # 1 who defined it: pi-ai writes (or omits) the key from the route's resolved supportsStrictMode
    if t is not None:
        where = f"{_where(first, t['exchange_id'])} $.tools[{t['position']}].strict"
        state = str(t["strict_state"])
        if model_row is not None:
            why = (
                f"compat.supportsStrictMode resolved to {model_row['supports_strict_mode']} "
                f"({model_row['strict_mode_source']})"
            )
            assert ev.settings is not None  # a model row comes from the settings
            yaml = f"{ev.settings.source} llm-pi-ai.providers.{model_row['route']}.compat (route line {_route_line(ev, model_row)})"
            answer = f"pi-ai {'omitted the key' if state == 'absent' else f'wrote strict: {state}'} because {why}"
            rows.append(_row(f, QUESTIONS[0], answer, "pi-ai", "serialization", True, [where, yaml]))
        else:
            rows.append(
                _row(
                    f,
                    QUESTIONS[0],
                    f"pi-ai sent strict {state}; without the settings, why is unknown",
                    "pi-ai",
                    "serialization",
                    False,
                    [where, "pass settings= to settle it"],
                )
            )
    else:
        rows.append(
            _row(
                f,
                QUESTIONS[0],
                "unknown: no HTTP capture shows the tool on the wire",
                None,
                "serialization",
                False,
                ["a capture between pi-ai and the gateway would settle it"],
            )
        )
    # 2 who changed the schema
    rows.append(_changed_row(ev, tool, f))
    # 3 who interpreted strict
    rows.append(_interpreted_row(ev, tool, f))
    return rows


def _route_line(ev: _Evidence, model_row) -> str:
    assert ev.settings is not None
    r = ev.settings.routes[ev.settings.routes["route"] == model_row["route"]]
    return str(r.iloc[0]["line"]) if len(r) else "?"


def _changed_row(ev: _Evidence, tool: str, f: str) -> dict:
    kinds = (
        "strict added",
        "strict removed",
        "strict changed",
        "required changed",
        "property dropped",
        "property added",
        "property rewritten",
        "additionalProperties injected",
        "additionalProperties removed",
    )
    changes = _hop_changes(ev, tool, kinds)
    found = [(i, d) for i, d in changes if not d.empty]
    if found:
        i, d = found[0]
        a, b = ev.hops[i], ev.hops[i + 1]
        what = ", ".join(sorted(set(d["kind"])))
        evidence = [
            f"{_link_where(a, b, r.links)} {r.path}: {r.before} → {r.after}"
            for r in d.drop_duplicates("path").head(4).itertuples()
        ]
        links = [link for r in d.itertuples() for link in r.links]
        actor, named, sign = _hop_actor(a, b, links)
        answer = f"the hop between {_src(a)} and {_src(b)}"
        if named:
            answer = f"{named}, the hop between {_src(a)} and {_src(b)}"
        return _row(f, QUESTIONS[1], f"{answer} ({what})", actor, "serialization", True, [*evidence, sign])
    if changes:
        return _row(
            f,
            QUESTIONS[1],
            "nobody between the recorded hops: the schema arrived as pi-ai sent it",
            None,
            "serialization",
            True,
            [f"{_src(ev.hops[i])} and {_src(ev.hops[i + 1])} agree" for i, _ in changes],
        )
    return _row(
        f,
        QUESTIONS[1],
        "unknown beyond the recorder: no capture behind the next hop",
        None,
        "serialization",
        False,
        [
            f"only {_src(ev.hops[0])}" if ev.hops else "no HTTP capture",
            "a capture behind the proxy or gateway (loaded with keep_bodies) would settle it",
        ],
    )


def _hop_actor(a: Capture, b: Capture, links) -> tuple[str, str | None, str | None]:
    """Who the hop between ``a`` and ``b`` is, from what it wrote on the wire (``HOP_SIGNS``): ("LiteLLM",
    "LiteLLM 1.110.2", the header that says so) or ("proxy", None, None) when nothing names it."""
    for direction, name, side, actor in HOP_SIGNS:
        cap = a if side == "a" else b
        ids = {x for x, _ in links} if side == "a" else {x for _, x in links}
        h = cap.headers[
            cap.headers["exchange_id"].isin(ids)
            & (cap.headers["direction"] == direction)
            & (cap.headers["name"] == name)
        ]
        for r in h.itertuples(index=False):
            value = str(r.value)
            version = (
                value if name != "user-agent" else value.split("/", 1)[1] if value.startswith("litellm/") else None
            )
            if version:
                sign = f"{_where(cap, str(r.exchange_id))} {direction} header {name}: {value}"
                return actor, f"{actor} {version}", sign
    return "proxy", None, None


def _responder(cap: Capture, exchange_id: str) -> tuple[str | None, str | None]:
    """The gateway that answered an exchange, when its response headers name it: (\"LiteLLM 1.110.2\", evidence)."""
    h = cap.headers[
        (cap.headers["exchange_id"] == exchange_id)
        & (cap.headers["direction"] == "response")
        & (cap.headers["name"] == "x-litellm-version")
    ]
    if h.empty:
        return None, None
    value = str(h.iloc[0]["value"])
    return f"LiteLLM {value}", f"{_where(cap, exchange_id)} response header x-litellm-version: {value}"


def _link_where(a: Capture, b: Capture, links: tuple) -> str:
    """The requests a change was seen in: every attempt of a retried request, every collapsed one."""
    xa = list(dict.fromkeys(x for x, _ in links))
    xb = list(dict.fromkeys(x for _, x in links))
    where = f"{', '.join(_where(a, x) for x in xa)} → {', '.join(_where(b, x) for x in xb)}"
    if len(xb) > 1:
        where += f" ({len(xb)} upstream attempts)"
    if len(xa) > 1:
        where += f" ({len(xa)} client requests, one upstream request)"
    return where


def _src(cap: Capture) -> str:
    return ", ".join(sorted(set(cap.exchanges["source"].astype(str)))) or "(empty capture)"


def _interpreted_row(ev: _Evidence, tool: str, f: str) -> dict:
    for cap in reversed(ev.hops):  # the hop nearest the model first
        echoed = cap.tools[(cap.tools["name"] == tool) & cap.tools["echoed_strict"].notna()]
        if len(echoed):
            r = echoed.iloc[0]
            sent, read = str(r["strict_state"]), str(r["echoed_strict"])
            verb = (
                "read it as strict"
                if read == "true"
                else "read it as non-strict"
                if read == "false"
                else f"echoed {read}"
            )
            where = f"{_where(cap, r['exchange_id'])} response tools[name={tool}].strict"
            named, sign = _responder(cap, str(r["exchange_id"]))
            if named:
                # the response object came from LiteLLM: the backend behind it is not in this capture
                answer = (
                    f"{named} returned a response object echoing strict {read} (sent strict {sent}); "
                    "the backend behind it is not in this capture"
                )
                return _row(f, QUESTIONS[2], answer, "LiteLLM", "serialization", True, [where, sign])
            answer = f"the backend {verb} (sent strict {sent}, echoed strict {read} in its response object)"
            return _row(f, QUESTIONS[2], answer, "gateway", "serialization", True, [where])
    filled = {c[1].call_id for c in _calls(ev, tool) if c[2]}
    hint = f"; {len(filled)} calls filled every optional field, which a strict reading would force" if filled else ""
    return _row(
        f,
        QUESTIONS[2],
        "unknown: no response echoed the tools" + hint,
        None,
        "serialization",
        False,
        ["a capture of the backend's response object (Responses echoes `tools`) would settle it"],
    )


def _calls(ev: _Evidence, tool: str) -> list[tuple[Capture, Any, bool]]:
    """(capture, call row, filled every optional field) for every call of ``tool``."""
    out = []
    for cap in ev.hops + ev.sessions:
        schemas = dict(zip(cap.tool_schemas["schema_hash"], cap.tool_schemas["schema"]))
        for c in cap.calls[cap.calls["name"] == tool].itertuples(index=False):
            t = cap.tools[(cap.tools["exchange_id"] == c.exchange_id) & (cap.tools["name"] == tool)]
            schema = schemas.get(t.iloc[0]["schema_hash"]) if len(t) else None
            props = (schema or {}).get("properties") or {}
            optional = [p for p in props if p not in ((schema or {}).get("required") or [])]
            args = c.arguments if isinstance(c.arguments, dict) else {}
            out.append((cap, c, bool(optional) and all(p in args for p in optional)))
    return out


def _filled_optional(ev: _Evidence, tool: str) -> tuple[str, ...]:
    names: dict[str, None] = {}
    for cap, c, _ in _calls(ev, tool):
        t = cap.tools[(cap.tools["exchange_id"] == c.exchange_id) & (cap.tools["name"] == tool)]
        optional = t.iloc[0]["optional"] if len(t) else ()
        names.update(dict.fromkeys(p for p in optional if isinstance(c.arguments, dict) and p in c.arguments))
    return tuple(names)


def _defined_row(ev: _Evidence, tool: str, fieldname: str, f: str) -> dict:
    for cap in ev.sessions:
        headers = cap.events[cap.events["type"] == "request/header"]
        for r in headers.itertuples(index=False):
            tools = (r.payload.get("header") or {}).get("tools") if isinstance(r.payload, dict) else None
            for t in tools if isinstance(tools, list) else ():
                if (
                    isinstance(t, dict)
                    and t.get("name") == tool
                    and fieldname in ((t.get("parameters") or {}).get("properties") or {})
                ):
                    required = fieldname in ((t.get("parameters") or {}).get("required") or [])
                    return _row(
                        f,
                        QUESTIONS[0],
                        f"DSH advertised it ({'required' if required else 'optional'})",
                        "DSH",
                        "execution",
                        True,
                        [
                            f"{r.source} {r.location} request/header tools[name={tool}]"
                            f".parameters.properties.{fieldname}"
                        ],
                    )
    for cap in ev.hops:
        t = _first_tool(cap, tool)
        if t is not None and (fieldname in t["optional"] or fieldname in t["required"]):
            return _row(
                f,
                QUESTIONS[0],
                f"the agent's tool schema ({'optional' if fieldname in t['optional'] else 'required'}), "
                "as the request carried it; no DSH session shows DSH's own definition",
                "DSH",
                "execution",
                False,
                [
                    f"{_where(cap, t['exchange_id'])} $.tools[{t['position']}].parameters.properties.{fieldname}",
                    "a DSH session log (request/header) would settle it",
                ],
            )
    return _row(f, QUESTIONS[0], "unknown", None, "execution", False, ["no capture shows the tool's schema"])


def _field_rows(ev: _Evidence, tool: str, fieldname: str) -> list[dict]:
    f = f"{tool}.{fieldname}"
    rows = [_defined_row(ev, tool, fieldname, f)]
    changed = _changed_row(ev, tool, f)
    changed["question"] = QUESTIONS[1]
    rows.append(changed)
    filled = [(cap, c) for cap, c, _ in _calls(ev, tool) if isinstance(c.arguments, dict) and fieldname in c.arguments]
    if filled:
        cap, c = filled[0]
        values: dict[str, set[Any]] = {}  # each value the model sent, with the calls that sent it
        for _, c2 in filled:
            values.setdefault(repr(c2.arguments[fieldname]), set()).add(c2.call_id)
        sent = ", ".join(f"{fieldname}={v} ({len(ids)} call{'s' if len(ids) > 1 else ''})" for v, ids in values.items())
        rows.append(
            _row(
                f,
                QUESTIONS[6],
                f"the model sent {sent}",
                "model",
                "serialization",
                True,
                [f"{_where(cap, c.exchange_id)} call {c.call_id} arguments.{fieldname}"],
            )
        )
    rows.append(_validated_row(ev, tool, f))
    rows.append(_permission_row(ev, f))
    return rows


def _validated_row(ev: _Evidence, tool: str, f: str) -> dict:
    for cap in ev.sessions:
        res = cap.tool_results[cap.tool_results["is_error"].fillna(False).astype(bool)]
        calls = set(cap.calls.loc[cap.calls["name"] == tool, "call_id"])
        res = res[res["call_id"].isin(calls)]
        if len(res):
            texts = list(dict.fromkeys(res["text"]))
            ev_rows = cap.events[cap.events["type"] == "tool/result"]
            where = f"{_src(cap)} {ev_rows.iloc[0]['location']}" if len(ev_rows) else _src(cap)
            return _row(
                f,
                QUESTIONS[4],
                "DSH rejected the calls: " + " / ".join(texts),
                "DSH",
                "execution",
                True,
                [where + " tool/result"],
            )
    for cap in ev.hops:
        parts = cap.input_parts  # in the order first sent: out's first row is the earliest output
        out = parts[
            (parts["item_type"] == "function_call_output") & parts["text"].str.startswith(ERROR_PREFIX, na=False)
        ]
        calls = set(cap.calls.loc[cap.calls["name"] == tool, "call_id"])
        out = out[out["call_id"].isin(calls)]
        if len(out):
            return _row(
                f,
                QUESTIONS[4],
                "the agent rejected the calls: "
                + " / ".join(dict.fromkeys(out["text"]))
                + " (as sent back to the model; no DSH session)",
                "DSH",
                "execution",
                False,
                [
                    f"{_where(cap, out.iloc[0]['first_exchange_id'])} function_call_output {out.iloc[0]['call_id']}",
                    "a DSH session log would settle who validated them",
                ],
            )
    return _row(
        f,
        QUESTIONS[4],
        "unknown: no tool result for these calls",
        None,
        "execution",
        False,
        ["a DSH session log would settle it"],
    )


def _permission_row(ev: _Evidence, f: str) -> dict:
    for cap in ev.sessions:
        evs = cap.events[cap.events["type"].isin(["permission/preset", "sandbox/mode"])]
        if len(evs):
            parts = [f"{r.source} {r.location} {r.type} {r.payload}" for r in evs.itertuples(index=False)]
            mode = next(
                (
                    r.payload.get("mode")
                    for r in evs.itertuples(index=False)
                    if r.type == "sandbox/mode" and isinstance(r.payload, dict)
                ),
                None,
            )
            return _row(
                f,
                QUESTIONS[5],
                f"the DSH session: mode {mode}, set by its permission preset",
                "DSH session",
                "execution",
                True,
                parts,
            )
    if ev.settings is not None and ev.settings.default_preset.get("sandbox_mode"):
        dp = ev.settings.default_preset
        return _row(
            f,
            QUESTIONS[5],
            f"unknown for these calls; the settings start sessions in {dp['sandbox_mode']} ({dp['source']})",
            "settings",
            "execution",
            False,
            [
                f"{ev.settings.source} line {dp.get('line', '?')}",
                "a DSH session log (sandbox/mode events) would settle it",
            ],
        )
    return _row(
        f,
        QUESTIONS[5],
        "unknown: no DSH session and no settings",
        None,
        "execution",
        False,
        ["a DSH session log (sandbox/mode events) would settle it"],
    )


def _models(ev: _Evidence) -> list[str]:
    names: dict[str, None] = {}
    for cap in ev.hops[:1] + ev.sessions:
        names.update(dict.fromkeys(cap.exchanges["model"].dropna().astype(str)))
    return list(names)


def _image_rows(ev: _Evidence, model: str) -> list[dict]:
    f = f"{model}.input"
    rows = []
    m = ev.settings.models[ev.settings.models["id"] == model] if ev.settings is not None else pd.DataFrame()
    if len(m):
        r = m.iloc[0]
        rows.append(
            _row(
                f,
                QUESTIONS[3],
                f"the settings: input {list(r['input'])} from {r['input_source']}",
                "settings",
                "capability",
                True,
                [
                    f"{ev.settings.source if ev.settings else ''} llm-pi-ai.providers.{r['route']}.models (line {r['line']})"
                ],
            )
        )
    else:
        rows.append(
            _row(
                f,
                QUESTIONS[3],
                "unknown: no settings describe this model",
                None,
                "capability",
                False,
                ["the settings.yaml DSH ran with would settle it"],
            )
        )
    for cap in ev.sessions:
        results = cap.tool_results
        refused = results[results["text"].str.contains(dsh_images.MARKER, regex=False, na=False)]
        if len(refused):
            first = refused.iloc[0]
            rows.append(
                _row(
                    f,
                    QUESTIONS[4],
                    f"DSH refused the image before sending: {first['text']}",
                    "DSH",
                    "capability",
                    True,
                    [f"{_where(cap, first['exchange_id'])} tool result of call {first['call_id']}"],
                )
            )
            return rows
    for cap in ev.hops[:1]:
        parts = cap.input_parts
        dropped = cap.inputs_wide([], parts=parts[parts["image_dropped"].fillna(False)])
        sent = cap.inputs_sent(parts=parts[parts["part_type"] == "input_image"])  # image parts, per request
        if len(dropped):
            rows.append(
                _row(
                    f,
                    QUESTIONS[4],
                    "pi-ai replaced the image with its placeholder before sending",
                    "pi-ai",
                    "capability",
                    True,
                    [
                        f"{_where(cap, dropped.iloc[0]['exchange_id'])} input part "
                        f"{dropped.iloc[0]['item_index']}.{dropped.iloc[0]['part_index']}"
                    ],
                )
            )
        elif len(sent):
            rows.append(
                _row(
                    f,
                    QUESTIONS[4],
                    f"images went on the wire ({len(sent)} parts)",
                    "pi-ai",
                    "capability",
                    True,
                    [f"{_where(cap, sent.iloc[0]['exchange_id'])}"],
                )
            )
    return rows


__all__ = ["ACTORS", "COLUMNS", "QUESTIONS", "TABLE", "table"]
