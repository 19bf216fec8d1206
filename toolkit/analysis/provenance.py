"""Who did what to each field that matters: the six questions every investigation of this kind must
answer, each answered from evidence (file, entry or line, JSON or YAML path), or said to be unknown,
with the capture that would settle it. Nothing is guessed.

Every ``answer`` and ``evidence`` cell is a ``Message`` (its English text, as a ``str``), so the report can
write it in Chinese; upstream texts (DSH's refusals, config source quotes), values and places stay verbatim
as its parameters.

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
from toolkit.errors import InputError
from toolkit.knowledge import dsh_images
from toolkit.knowledge.dsh_runtime import ERROR_PREFIX
from toolkit.knowledge.messages import MESSAGES, Joined, Message, counted
from toolkit.knowledge.messages.surface import option
from toolkit.layers import LAYERS
from toolkit.layers.attribution import attribute_capture, closest
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
        "answer": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "actor": fixed(*ACTORS),
        "layer": fixed(*LAYERS),
        "settled": "boolean",
        # a toolkit Message (Joined): "; "-separated places (file, entry or line, JSON or YAML path; verbatim)
        # and hints (Messages); an English str, rendered in zh-CN by the report
        "evidence": object,
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


def _row(field, question, answer: Message, actor, layer, settled, evidence) -> dict:
    """One row; ``evidence`` is joined as ``"; ".join(e for e in evidence if e)`` was, as a ``Joined``."""
    return {
        "field": field,
        "question": question,
        "answer": answer,
        "actor": actor,
        "layer": layer,
        "settled": settled,
        "evidence": Joined("; ", evidence),
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
    # 1 who defined it: pi-ai writes (or omits) the key from the route's resolved supportsStrictMode, if
    # the sender is pi-ai; a client the evidence does not identify is said to be unidentified
    if t is not None:
        where = f"{_where(first, t['exchange_id'])} $.tools[{t['position']}].strict"
        state = str(t["strict_state"])
        assert first is not None  # t comes from it
        unidentified = _unidentified(ev, first, str(t["exchange_id"]), state, model_row is not None)
        if unidentified is not None:
            answer, hint = unidentified
            rows.append(_row(f, QUESTIONS[0], answer, None, "serialization", False, [where, hint]))
        elif model_row is not None:
            assert ev.settings is not None  # a model row comes from the settings
            yaml = Message(
                "provenance.where.route_line",
                file=ev.settings.source,
                path=f"llm-pi-ai.providers.{model_row['route']}.compat",
                line=_route_line(ev, model_row),
            )
            action = (
                Message("provenance.action.omitted_key")
                if state == "absent"
                else Message("provenance.action.wrote_strict", state=state)
            )
            answer = Message(
                "provenance.answer.strict_defined",
                action=action,
                value=model_row["supports_strict_mode"],
                source=model_row["strict_mode_source"],
            )
            rows.append(_row(f, QUESTIONS[0], answer, "pi-ai", "serialization", True, [where, yaml]))
        else:
            rows.append(
                _row(
                    f,
                    QUESTIONS[0],
                    Message("provenance.answer.strict_sent_no_settings", state=state),
                    "pi-ai",
                    "serialization",
                    False,
                    [where, Message("provenance.hint.pass_settings", option=option("settings"))],
                )
            )
    else:
        rows.append(
            _row(
                f,
                QUESTIONS[0],
                Message("provenance.answer.strict_not_on_wire"),
                None,
                "serialization",
                False,
                [Message("provenance.hint.capture_pi_ai_gateway")],
            )
        )
    # 2 who changed the schema
    rows.append(_changed_row(ev, tool, f))
    # 3 who interpreted strict
    rows.append(_interpreted_row(ev, tool, f))
    return rows


def _unidentified(
    ev: _Evidence, cap: Capture, exchange_id: str, state: str, in_settings: bool
) -> tuple[Message, Message] | None:
    """(answer, hint) when the evidence does not establish that pi-ai sent the tools of
    ``exchange_id``, else None. pi-ai is established when a pi-ai profile reproduces them
    (``toolkit.layers.attribution``) and nothing else does, or when the settings route the request's model
    or a DSH session log holds the same calls (DSH sends through pi-ai); a profile that only comes
    closest is named as the closest, never as the sender."""
    try:
        found = attribute_capture(cap, exchange_id)
    except InputError:  # no tools to attribute: the row says what the wire shows
        return None
    matches = found[found["match"].fillna(False).astype(bool)]
    if matches.empty:
        best = found.iloc[0] if len(found) else None
        if best is None:
            return Message("provenance.answer.sender_no_profile", state=state), Message("provenance.hint.sender")
        nearest = closest(best, "provenance.closest")
        return Message("provenance.answer.sender_unidentified", state=state, closest=nearest), Message(
            "provenance.hint.sender"
        )
    adapters_matched = set(matches["adapter"].astype(str))
    if "pi-ai" not in adapters_matched:
        return Message("provenance.answer.sender_other", state=state, verdict=found.attrs["verdict"]), Message(
            "provenance.hint.sender"
        )
    if adapters_matched == {"pi-ai"} or in_settings or _same_calls(cap, exchange_id, ev.sessions):
        return None
    return Message("provenance.answer.sender_tied", state=state, verdict=found.attrs["verdict"]), Message(
        "provenance.hint.sender_tied", option=option("settings")
    )


def _same_calls(cap: Capture, exchange_id: str, sessions: list[Capture]) -> bool:
    """Whether a DSH session log holds a call the exchange's response made: the two recorded one run."""
    ids = set(cap.calls.loc[cap.calls["exchange_id"] == exchange_id, "call_id"].dropna().astype(str))
    ids = ids or set(cap.calls["call_id"].dropna().astype(str))
    return any(ids & set(s.calls["call_id"].dropna().astype(str)) for s in sessions)


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
        what = _listed([_kind(k) for k in sorted(set(d["kind"]))])
        evidence = [
            Joined(" ", [_link_where(a, b, r.links), f"{r.path}: {r.before} → {r.after}"])
            for r in d.drop_duplicates("path").head(4).itertuples()
        ]
        links = [link for r in d.itertuples() for link in r.links]
        actor, named, sign = _hop_actor(a, b, links)
        answer = (
            Message("provenance.answer.changed_named", named=named, a=_src(a), b=_src(b), what=what)
            if named
            else Message("provenance.answer.changed_hop", a=_src(a), b=_src(b), what=what)
        )
        return _row(f, QUESTIONS[1], answer, actor, "serialization", True, [*evidence, sign])
    if changes:
        return _row(
            f,
            QUESTIONS[1],
            Message("provenance.answer.changed_nobody"),
            None,
            "serialization",
            True,
            [Message("provenance.where.hops_agree", a=_src(ev.hops[i]), b=_src(ev.hops[i + 1])) for i, _ in changes],
        )
    return _row(
        f,
        QUESTIONS[1],
        Message("provenance.answer.changed_unknown"),
        None,
        "serialization",
        False,
        [
            Message("provenance.where.only", src=_src(ev.hops[0]))
            if ev.hops
            else Message("provenance.where.no_http_capture"),
            Message("provenance.hint.capture_behind_hop"),
        ],
    )


def _kind(kind: str) -> Message | str:
    """A ``hops.diff`` change kind in words (a kind with no message stays as it is: an identifier)."""
    key = f"hops.kind.{kind}"
    return Message(key) if key in MESSAGES else kind


def _listed(items: list) -> Message | str:
    """``", ".join(items)``, with the separator written in the reader's language."""
    out = items[0] if items else ""
    for item in items[1:]:
        out = Message("provenance.list", first=out, then=item)
    return out


def _hop_actor(a: Capture, b: Capture, links) -> tuple[str, str | None, Message | None]:
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
                sign = _header_line(_where(cap, str(r.exchange_id)), direction, name, value)
                return actor, f"{actor} {version}", sign
    return "proxy", None, None


def _header_line(where: str, direction: str, name: str, value: str) -> Message:
    return Message(
        "provenance.where.header",
        where=where,
        direction=Message(f"provenance.direction.{direction}"),
        name=name,
        value=value,
    )


def _responder(cap: Capture, exchange_id: str) -> tuple[str | None, Message | None]:
    """The gateway that answered an exchange, when its response headers name it: (\"LiteLLM 1.110.2\", evidence)."""
    h = cap.headers[
        (cap.headers["exchange_id"] == exchange_id)
        & (cap.headers["direction"] == "response")
        & (cap.headers["name"] == "x-litellm-version")
    ]
    if h.empty:
        return None, None
    value = str(h.iloc[0]["value"])
    return f"LiteLLM {value}", _header_line(_where(cap, exchange_id), "response", "x-litellm-version", value)


def _link_where(a: Capture, b: Capture, links: tuple) -> str:
    """The requests a change was seen in: every attempt of a retried request, every collapsed one."""
    xa = list(dict.fromkeys(x for x, _ in links))
    xb = list(dict.fromkeys(x for _, x in links))
    where: str = f"{', '.join(_where(a, x) for x in xa)} → {', '.join(_where(b, x) for x in xb)}"
    if len(xb) > 1:
        where = Message("provenance.where.retried", where=where, n=len(xb))
    if len(xa) > 1:
        where = Message("provenance.where.collapsed", where=where, n=len(xa))
    return where


def _src(cap: Capture) -> str:
    return ", ".join(sorted(set(cap.exchanges["source"].astype(str)))) or Message("provenance.where.empty_capture")


def _interpreted_row(ev: _Evidence, tool: str, f: str) -> dict:
    for cap in reversed(ev.hops):  # the hop nearest the model first
        echoed = cap.tools[(cap.tools["name"] == tool) & cap.tools["echoed_strict"].notna()]
        if len(echoed):
            r = echoed.iloc[0]
            sent, read = str(r["strict_state"]), str(r["echoed_strict"])
            verb = (
                Message("provenance.verb.read_strict")
                if read == "true"
                else Message("provenance.verb.read_non_strict")
                if read == "false"
                else Message("provenance.verb.echoed", read=read)
            )
            where = Message("provenance.where.response_tools", where=_where(cap, r["exchange_id"]), tool=tool)
            named, sign = _responder(cap, str(r["exchange_id"]))
            if named:
                # the response object came from LiteLLM: the backend behind it is not in this capture
                answer = Message("provenance.answer.interpreted_litellm", named=named, read=read, sent=sent)
                return _row(f, QUESTIONS[2], answer, "LiteLLM", "serialization", True, [where, sign])
            answer = Message("provenance.answer.interpreted_backend", verb=verb, sent=sent, read=read)
            return _row(f, QUESTIONS[2], answer, "gateway", "serialization", True, [where])
    filled = {c[1].call_id for c in _calls(ev, tool) if c[2]}
    return _row(
        f,
        QUESTIONS[2],
        Message("provenance.answer.interpreted_unknown_filled", n=len(filled))
        if filled
        else Message("provenance.answer.interpreted_unknown"),
        None,
        "serialization",
        False,
        [Message("provenance.hint.capture_response_object")],
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
                        Message("provenance.answer.dsh_advertised", requirement=_requirement(required)),
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
                Message("provenance.answer.agent_schema", requirement=_requirement(fieldname not in t["optional"])),
                "DSH",
                "execution",
                False,
                [
                    f"{_where(cap, t['exchange_id'])} $.tools[{t['position']}].parameters.properties.{fieldname}",
                    _session_hint(
                        ev, "provenance.hint.session_request_header", "provenance.hint.session_no_header", tool
                    ),
                ],
            )
    return _row(
        f,
        QUESTIONS[0],
        Message("provenance.answer.unknown"),
        None,
        "execution",
        False,
        [Message("provenance.hint.no_schema")],
    )


def _requirement(required: bool) -> Message:
    return Message("provenance.required" if required else "provenance.optional")


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
        sent = _listed(
            [
                Message(
                    counted("provenance.sent.many", len(ids)),
                    field=fieldname,
                    value=v,
                    n=len(ids),
                )
                for v, ids in values.items()
            ]
        )
        rows.append(
            _row(
                f,
                QUESTIONS[6],
                Message("provenance.answer.model_sent", sent=sent),
                "model",
                "serialization",
                True,
                [
                    Message(
                        "provenance.where.call_arguments",
                        where=_where(cap, c.exchange_id),
                        call_id=c.call_id,
                        field=fieldname,
                    )
                ],
            )
        )
    rows.append(_validated_row(ev, tool, f))
    rows.append(_permission_row(ev, f))
    return rows


def _session_hint(ev: _Evidence, without: str, given: str, tool: str | None = None) -> Message:
    """What would settle a question: a DSH session log (``without``) when none was given; when one was,
    why it does not (``given``: what it lacks), never the advice to give what was given."""
    if not ev.sessions:
        return Message(without)
    src = ", ".join(_src(cap) for cap in ev.sessions)
    return Message(given, src=src, tool=tool) if tool is not None else Message(given, src=src)


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
                Message("provenance.answer.dsh_rejected", dsh_text=" / ".join(texts)),
                "DSH",
                "execution",
                True,
                [where + " tool/result"],
            )
    for cap in ev.sessions:  # no refusal: DSH ran every call whose result it logged
        calls = set(cap.calls.loc[cap.calls["name"] == tool, "call_id"])
        res = cap.tool_results[cap.tool_results["call_id"].isin(calls)]
        if len(res):
            ev_rows = cap.events[cap.events["type"] == "tool/result"]
            where = f"{_src(cap)} {ev_rows.iloc[0]['location']}" if len(ev_rows) else _src(cap)
            n = res["call_id"].nunique()
            answer = Message(counted("provenance.answer.dsh_ran", n), n=n)
            return _row(f, QUESTIONS[4], answer, "DSH", "execution", True, [where + " tool/result"])
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
                Message("provenance.answer.agent_rejected", dsh_text=" / ".join(dict.fromkeys(out["text"]))),
                "DSH",
                "execution",
                False,
                [
                    f"{_where(cap, out.iloc[0]['first_exchange_id'])} function_call_output {out.iloc[0]['call_id']}",
                    _session_hint(
                        ev, "provenance.hint.session_who_validated", "provenance.hint.session_no_result", tool
                    ),
                ],
            )
    return _row(
        f,
        QUESTIONS[4],
        Message("provenance.answer.no_tool_result"),
        None,
        "execution",
        False,
        [_session_hint(ev, "provenance.hint.session", _no_call_or_result(ev, tool), tool)],
    )


def _no_call_or_result(ev: _Evidence, tool: str) -> str:
    called = any((cap.calls["name"] == tool).any() for cap in ev.sessions)
    return "provenance.hint.session_no_result" if called else "provenance.hint.session_no_call"


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
                Message("provenance.answer.session_mode", mode=mode),
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
            Message("provenance.answer.settings_mode", mode=dp["sandbox_mode"], source=dp["source"]),
            "settings",
            "execution",
            False,
            [
                Message("provenance.where.file_line", file=ev.settings.source, line=dp.get("line", "?")),
                _session_hint(ev, "provenance.hint.session_sandbox_mode", "provenance.hint.session_no_mode"),
            ],
        )
    return _row(
        f,
        QUESTIONS[5],
        Message("provenance.answer.no_session_no_settings" if not ev.sessions else "provenance.answer.no_mode"),
        None,
        "execution",
        False,
        [_session_hint(ev, "provenance.hint.session_sandbox_mode", "provenance.hint.session_no_mode")],
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
                Message("provenance.answer.settings_input", input=str(list(r["input"])), source=r["input_source"]),
                "settings",
                "capability",
                True,
                [
                    Message(
                        "provenance.where.path_line",
                        file=ev.settings.source if ev.settings else "",
                        path=f"llm-pi-ai.providers.{r['route']}.models",
                        line=r["line"],
                    )
                ],
            )
        )
    else:
        rows.append(
            _row(
                f,
                QUESTIONS[3],
                Message("provenance.answer.no_settings_model"),
                None,
                "capability",
                False,
                [Message("provenance.hint.settings_yaml")],
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
                    Message("provenance.answer.dsh_refused_image", dsh_text=first["text"]),
                    "DSH",
                    "capability",
                    True,
                    [
                        Message(
                            "provenance.where.tool_result",
                            where=_where(cap, first["exchange_id"]),
                            call_id=first["call_id"],
                        )
                    ],
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
                    Message("provenance.answer.pi_ai_placeholder"),
                    "pi-ai",
                    "capability",
                    True,
                    [
                        Message(
                            "provenance.where.input_part",
                            where=_where(cap, dropped.iloc[0]["exchange_id"]),
                            item=dropped.iloc[0]["item_index"],
                            part=dropped.iloc[0]["part_index"],
                        )
                    ],
                )
            )
        elif len(sent):
            rows.append(
                _row(
                    f,
                    QUESTIONS[4],
                    Message(counted("provenance.answer.images_sent", len(sent)), n=len(sent)),
                    "pi-ai",
                    "capability",
                    True,
                    [f"{_where(cap, sent.iloc[0]['exchange_id'])}"],
                )
            )
    return rows


__all__ = ["ACTORS", "COLUMNS", "QUESTIONS", "TABLE", "table"]
