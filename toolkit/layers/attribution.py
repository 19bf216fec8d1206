"""Which client library sent a captured tools array: every modelled adapter, version and option
(``toolkit.knowledge.adapters``) tried on the capture's tools, ranked, with a one-line verdict that
names every exact match and calls ties ties (a profile that differs anywhere is never a match)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from toolkit.capture.frames import declare
from toolkit.errors import InputError
from toolkit.knowledge import adapters
from toolkit.knowledge.messages import Joined, Message
from toolkit.layers.serialization import adapter_refusals, schema_changes
from toolkit.wire.schemas import flat_tool

__all__ = [
    "ATTRIBUTION",
    "NO_MATCH",
    "attribute",
    "attribute_capture",
    "attribution_verdict",
    "capture_tools",
    "closest",
]

#: ``attribute``: one row per adapter × version × api × options that puts the api on the wire, best first.
ATTRIBUTION = declare(
    "serialization.attribution",
    {
        "rank": "Int64",  # 1 = best; equal rows share a rank (ties are ties)
        "adapter": "string",  # the id, ``adapters.PROFILES``
        "name": "string",  # "Vercel AI SDK"
        "version": "string",
        "api": "string",  # the adapter's own api name
        "options": "string",  # as a reader names them: "strict unset"
        "settings": object,  # the options as ``convert_tools(options=…)`` takes them
        "tools": "Int64",  # captured tools compared
        "exact": "Int64",  # of which the adapter reproduces exactly (values and key order)
        "match": "boolean",  # every tool exact: the adapter sends this array
        "differences": object,  # tuple of "tool: path kind" texts (empty when it matches)
    },
)

#: ``attribution_verdict`` when no profile reproduces every tool.
NO_MATCH = "no profile matches"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _definitions(sent: list[dict], definitions: list[dict] | None) -> list[dict]:
    if (
        definitions is None
    ):  # an unknown client's definitions are not in the capture: the tools as sent are the best guess
        return [{k: flat_tool(t).get(k) for k in ("name", "description", "parameters")} for t in sent]
    if len(definitions) != len(sent):
        raise InputError(f"attribute: {len(definitions)} definitions for {len(sent)} captured tools; give one per tool")
    return list(definitions)


def _loosened(tool: dict, loose: bool) -> dict:
    """A tool as a capture's frames can hold it: without description (``loose``)."""
    flat = flat_tool(tool)
    return {k: v for k, v in flat.items() if k != "description"} if loose else flat


def _tool_differences(expected: dict, sent: dict, loose: bool) -> list[str]:
    name = flat_tool(sent).get("name") or sent.get("type")
    if loose:
        e, s = _loosened(expected, True), _loosened(sent, True)
        if e == s and _dumps(e.get("parameters")) == _dumps(s.get("parameters")):
            return []
    elif _dumps(expected) == _dumps(sent):
        return []
    else:
        e, s = flat_tool(expected), flat_tool(sent)
    changes = [f"{name}: {path} {kind}" for path, kind, _, _ in schema_changes(e, s)]
    if not changes and ("function" in expected) != ("function" in sent):
        changes = [f"{name}: $ shape (nested under function or not)"]
    return changes or [f"{name}: $ key order"]


def attribute(
    sent_tools: list[dict], definitions: list[dict] | None = None, *, api: str, _loose: bool = False
) -> pd.DataFrame:
    """Which modelled client library, version and options reproduce a captured ``tools`` array: for every
    adapter × version × api × option combination that puts ``api`` on the wire (the wire's name, an
    endpoint path, or an adapter's api name), how many of the tools it reproduces exactly and what
    differs otherwise, best first (``ATTRIBUTION``); ``attribution_verdict`` says it in one line
    (also ``.attrs["verdict"]``).

    ``definitions`` (one per captured tool, in order) are what the client was given; without them each
    tool's own name, description and parameters stand in, since an unknown client's definitions are not
    in the capture (a library that rewrites schemas then shows as a difference, not a match). Codex
    sends its own tools, so its profile is matched by tool name against them. Only profiles whose model
    is in this build are tried (``adapters.available``)."""
    wire = adapters.wire_api(api)
    sent = list(sent_tools)
    defs = _definitions(sent, definitions)
    rows: list[dict] = []
    for profile in adapters.available():
        for own in adapters.adapter_apis(profile.id, wire):
            for version in profile.versions:
                for settings in adapters.combinations(profile.id):
                    diffs = _attempt(profile, version, own, settings, sent, defs, _loose)
                    exact = len(sent) - len({i for i, _ in diffs})
                    rows.append(
                        {
                            "rank": None,
                            "adapter": profile.id,
                            "name": profile.name,
                            "version": version,
                            "api": own,
                            "options": adapters.describe_options(profile.id, settings),
                            "settings": settings,
                            "tools": len(sent),
                            "exact": exact,
                            "match": exact == len(sent) and not diffs,
                            "differences": tuple(d for _, d in diffs),
                        }
                    )
    order = sorted(range(len(rows)), key=lambda i: (-rows[i]["exact"], len(rows[i]["differences"]), i))
    ranked = [rows[i] for i in order]
    for row in ranked:
        key = (row["exact"], len(row["differences"]))
        row["rank"] = 1 + sum(1 for r in ranked if (-r["exact"], len(r["differences"])) < (-key[0], key[1]))
    table = ATTRIBUTION.from_records(ranked)
    table.attrs["verdict"] = attribution_verdict(table)
    return table


def _attempt(
    profile: adapters.Profile,
    version: str,
    api: str,
    settings: dict,
    sent: list[dict],
    defs: list[dict],
    loose: bool,
) -> list[tuple[int, str]]:
    """(tool index, difference) for every way the adapter's output differs from ``sent``."""
    who = f"{profile.id}@{version}"
    if profile.own_tools:
        own = adapters.convert([], adapter=who, api=api, options=settings)  # all of its tools
        out = []
        for i, tool in enumerate(sent):
            name = flat_tool(tool).get("name")
            # by name; a tool without one (``web_search``) by its type
            found = [
                t
                for t in own
                if flat_tool(t).get("name") == name and (name is not None or t.get("type") == tool.get("type"))
            ]
            if not found:
                out.append((i, f"{name if name is not None else tool.get('type')}: $ not a {profile.name} tool"))
                continue
            out += [(i, d) for d in _tool_differences(found[0], tool, loose)]
        return out
    try:
        expected_all = adapters.convert(defs, adapter=who, api=api, options=settings)
    except adapter_refusals() as exc:
        return [(i, f"{flat_tool(t).get('name')}: $ not sent ({exc})") for i, t in enumerate(sent)]
    except Exception as exc:  # a schema the model cannot take: not a match, and said so
        why = f"{type(exc).__name__}: {exc}"
        return [(i, f"{flat_tool(t).get('name')}: $ not modelled for this schema ({why})") for i, t in enumerate(sent)]
    if len(expected_all) != len(sent):
        return [(i, f"{flat_tool(t).get('name')}: $ not sent") for i, t in enumerate(sent)]
    return [
        (i, d) for i, (e, t) in enumerate(zip(expected_all, sent, strict=True)) for d in _tool_differences(e, t, loose)
    ]


def _join(parts: list[str]) -> str:
    """``a, b or c``: the option values verbatim, the ``or`` a Message."""
    return parts[0] if len(parts) == 1 else Message("attribution.or", first=Joined(", ", parts[:-1]), last=parts[-1])


def _phrases(phrases: list[Message]) -> Message:
    """``a; b; or c``, with the Chinese punctuation in Chinese."""
    if len(phrases) == 1:
        return phrases[0]
    if len(phrases) == 2:
        return Message("attribution.or_last", first=phrases[0], last=phrases[1])
    return Message("attribution.then", first=phrases[0], rest=_phrases(phrases[1:]))


def closest(best: Any, key: str = "attribution.closest") -> Message:
    """The profile nearest to tools that no profile reproduces (an ``attribute`` row), said as the closest
    and never as the sender: ``key`` words it for its surface (the verdict line, provenance's answer)."""
    return Message(
        key,
        name=best["name"],
        version=best["version"],
        options=best["options"],
        exact=best["exact"],
        tools=best["tools"],
    )


def attribution_verdict(table: pd.DataFrame) -> str:
    """One line for an ``attribute`` table: the matching profiles (all of them when several tie), or
    ``no profile matches`` and the closest; a toolkit ``Message`` (its English text as a ``str``)."""
    if table.empty:
        return Message("attribution.no_adapter")
    hits = table[table["match"].fillna(False).astype(bool)]
    if hits.empty:
        return closest(table.iloc[0])
    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for row in hits.itertuples(index=False):
        groups.setdefault((row.adapter, row.api), {}).setdefault(row.version, []).append(row.options)
    phrases: list[Message] = []
    for (adapter_id, own), by_version in groups.items():
        profile = adapters.PROFILES[adapter_id]
        wire = adapters.WIRE_API[(adapter_id, own)]
        several = len(adapters.adapter_apis(adapter_id, wire)) > 1
        merged: dict[str, list[str]] = {}
        for version, labels in by_version.items():
            merged.setdefault(_options_text(labels), []).append(version)
        for text, versions in merged.items():
            key = "attribution.profile_api" if several else "attribution.profile"
            phrases.append(Message(key, name=profile.name, versions="/".join(versions), api=own, options=text))
    head = Message("attribution.looks_like", profiles=_phrases(phrases))
    return Message("attribution.tied", verdict=head) if len(hits) > 1 else head


def _options_text(labels: list[str]) -> str:
    """``strict unset`` and ``strict false`` -> ``strict unset or false`` (one option); else joined."""
    heads = {label.rsplit(" ", 1)[0] for label in labels}
    if len(heads) == 1 and all(" " in label and "," not in label for label in labels):
        return Message(
            "attribution.option", option=heads.pop(), values=_join([label.rsplit(" ", 1)[1] for label in labels])
        )
    return _join(labels)


def capture_tools(capture: Any, exchange_id: str | None = None) -> tuple[list[dict], str, bool]:
    """The tools one exchange of a capture sent (the first exchange that sent any when ``exchange_id``
    is None), its wire api, and whether they are exact: from ``capture.bodies`` when the capture was
    loaded with ``keep_bodies=True`` (the array as sent), otherwise rebuilt from ``capture.tools`` and
    ``capture.tool_schemas`` (name, strict and parameters; those frames keep no description and no
    key order of the tool object). ``InputError`` when there is no such exchange or it sent no tools."""
    tools = capture.tools
    if tools.empty:
        raise InputError("attribute: the capture sent no tools")
    xid = str(tools["exchange_id"].iloc[0]) if exchange_id is None else exchange_id
    mine = tools[tools["exchange_id"] == xid].sort_values("position")
    if mine.empty:
        raise InputError(f"attribute: exchange {xid!r} sent no tools (or is not in the capture)")
    ex = capture.exchanges[capture.exchanges["exchange_id"] == xid]
    wire = str(ex["api"].iloc[0]) if not ex.empty and not pd.isna(ex["api"].iloc[0]) else "responses"
    bodies = getattr(capture, "bodies", None)
    if bodies is not None and not bodies.empty:
        hit = bodies[bodies["exchange_id"] == xid]
        if (
            not hit.empty
            and isinstance(hit["request"].iloc[0], dict)
            and isinstance(hit["request"].iloc[0].get("tools"), list)
        ):
            return list(hit["request"].iloc[0]["tools"]), wire, True
    schemas = dict(zip(capture.tool_schemas["schema_hash"], capture.tool_schemas["schema"], strict=False))
    out = []
    for row in mine.itertuples(index=False):
        body: dict[str, Any] = {"name": row.name, "parameters": schemas.get(row.schema_hash)}
        if row.strict_state != "absent":
            body["strict"] = {"null": None, "true": True, "false": False}[str(row.strict_state)]
        out.append({"type": "function", "function": body} if wire == "chat" else {"type": "function", **body})
    return out, wire, False


def attribute_capture(
    capture: Any, exchange_id: str | None = None, definitions: list[dict] | None = None
) -> pd.DataFrame:
    """``attribute`` for the tools one exchange of a capture sent (``capture_tools``). Without the
    request bodies the descriptions and the tool objects' key order are not compared, and the verdict
    says so."""
    sent, wire, exact = capture_tools(capture, exchange_id)
    table = attribute(sent, definitions, api=wire, _loose=not exact)
    if not exact:
        table.attrs["verdict"] = Message("attribution.loose", verdict=table.attrs["verdict"])
    return table
