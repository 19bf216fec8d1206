"""Layer 2, strict readings: will this tool survive a strict endpoint, and what does each strict transform
in the chain make of it?

OpenAI's rules and 400 texts live in ``toolkit.knowledge.openai_strict``; pi-ai's transform in
``pi_ai_strict``; the Agents SDK's in ``agents_sdk_strict``. The absent-strict reading is the one
``serialization.variants`` computes (not recomputed here).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from toolkit.capture.frames import declare, fixed
from toolkit.errors import InputError
from toolkit.knowledge import dsh_runtime as dsh
from toolkit.knowledge.messages import Message
from toolkit.knowledge.openai_strict import Violation, check
from toolkit.knowledge.pi_ai_strict import StrictSchemaError, has_transform, make_strict
from toolkit.layers.serialization import variants
from toolkit.wire.records import STRICT_STATES

__all__ = [
    "AGENTS_SDK",
    "ALL_KEYS_REQUIRED",
    "VERDICTS",
    "StrictVerdict",
    "all_keys_required",
    "strict_verdict",
    "strict_verdicts",
]

AGENTS_SDK = "agents-sdk"
ALL_KEYS_REQUIRED = "all-keys-required"
_ABSENT_ROW = "absent, gateway reads absence as strict"


@dataclass
class StrictVerdict:
    """What a strict reading does with one tool."""

    tool: str
    accepted: bool  # OpenAI's strict function calling accepts the parameters as they stand
    violations: list[Violation]  # all; the first is the 400 OpenAI answers
    absent_reading: dict[str, Any]  # required, nullable, must_fill, must_send after an absent-strict normalisation
    transforms: dict[str, Any]  # name -> the schema it produces, or its exact refusal text
    transform_verdicts: dict[str, str | None]  # name -> OpenAI's first 400 for the result (None: accepted)
    risky_fills: list[dict[str, Any]] = field(default_factory=list)  # {field, filled, why}

    @property
    def first(self) -> Violation | None:
        return self.violations[0] if self.violations else None

    def __repr__(self) -> str:
        head = f"{self.tool}: " + ("accepted by OpenAI strict" if self.accepted else f"400 {self.first}")
        fills = ", ".join(f"{r['field']}={r['filled']!r}" for r in self.risky_fills)
        return head + (f"; risky fills: {fills}" if fills else "")


def _definition(tool: dict) -> dict:
    if not isinstance(tool, dict):
        raise InputError(f"strict_verdict: a tool must be a dict, got {type(tool).__name__}")
    if isinstance(tool.get("function"), dict):
        tool = tool["function"]
    if not isinstance(tool.get("name"), str):
        raise InputError("strict_verdict: the tool has no name (want {name, description, parameters})")
    params = tool.get("parameters")
    return {**tool, "parameters": params if params is not None else {}}


def all_keys_required(schema: Any) -> Any:
    """The "all keys required" normalisation gateways apply (openclaude's ``normalizeSchemaForOpenAI`` before
    #471, ``src/services/api/openaiShim.ts``): on every object with properties, ``required`` becomes the old
    list followed by every other key, ``additionalProperties`` false; no optional field is made nullable."""
    if isinstance(schema, list):
        return [all_keys_required(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = copy.deepcopy(schema)
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        out["properties"] = {k: all_keys_required(v) for k, v in out["properties"].items()}
        given = out.get("required")
        old: list[Any] = given if isinstance(given, list) else []
        out["required"] = list(dict.fromkeys([*old, *out["properties"]]))
        out["additionalProperties"] = False
    if "items" in out:
        out["items"] = all_keys_required(out["items"])
    for kw in ("anyOf", "oneOf", "allOf"):
        if isinstance(out.get(kw), list):
            out[kw] = [all_keys_required(s) for s in out[kw]]
    return out


def _transforms(params: dict, name: str, pi_ai: str) -> tuple[dict[str, Any], dict[str, str | None]]:
    out: dict[str, Any] = {}
    key = f"pi-ai {pi_ai}"
    if not has_transform(pi_ai):
        out[key] = params  # no makeStrictJsonSchema: strict true sends the schema as defined
    else:
        try:
            out[key] = make_strict(params, pi_ai)
        except StrictSchemaError as exc:
            out[key] = str(exc)
    try:
        from toolkit.knowledge.agents_sdk_strict import AgentsStrictError, ensure_strict
    except ImportError:  # the Agents SDK model is not there: leave that transform out
        pass
    else:
        try:
            out[AGENTS_SDK] = ensure_strict(params)
        except AgentsStrictError as exc:
            out[AGENTS_SDK] = str(exc)
    out[ALL_KEYS_REQUIRED] = all_keys_required(params)
    verdicts: dict[str, str | None] = {}
    for k, v in out.items():
        if isinstance(v, str):
            verdicts[k] = f"refused: {v}"
        else:
            found = check(v, name=name)
            verdicts[k] = found[0].message if found else None
    return out, verdicts


def _absent_reading(definition: dict, pi_ai: str) -> dict[str, Any]:
    rows = variants(definition, pi_ai)
    row = rows[rows["variant"] == _ABSENT_ROW].iloc[0]
    params = definition["parameters"]
    declared = [r for r in params.get("required") or [] if r in (params.get("properties") or {})]
    must_fill = tuple(p for p in row["required"] if p not in declared and p not in row["nullable"])
    return {
        "required": tuple(row["required"]),
        "nullable": tuple(row["nullable"]),
        "must_fill": must_fill,
        "must_send": row["must_send"],
    }


#: DSH's own answers to filled values, by field (``toolkit.knowledge.dsh_runtime``); DSH's text verbatim.
_DSH_FILLS: dict[str, tuple[Any, Message]] = {
    "justification": ("", Message("strict.fill.dsh_empty_justification", dsh_text=repr(dsh.EMPTY_JUSTIFICATION))),
    "timeoutMs": (0, Message("strict.fill.dsh_refuses", dsh_text=repr(dsh.invalid_timeout(0)))),
}
#: DSH's pairing rule: each of the two without the other is refused.
_DSH_PAIRS = (("sandbox_permissions", "justification"),)


def _risky_fills(params: dict, must_fill: tuple[str, ...]) -> list[dict[str, Any]]:
    """``{field, filled, why}`` per forced field; ``why`` is a toolkit ``Message`` (a ``str``), rendered by the report."""
    props = params.get("properties") or {}
    out: list[dict[str, Any]] = []
    for name in must_fill:
        node = props.get(name)
        if not isinstance(node, dict):
            continue
        enum = node.get("enum")
        t = node.get("type")
        if isinstance(enum, list) and enum:
            if all(v in dsh.ESCALATION_TARGETS for v in enum):
                why = Message("strict.fill.escalation", members=", ".join(map(str, enum)))
            else:
                why = Message("strict.fill.first_enum")
            out.append({"field": name, "filled": enum[0], "why": why})
        elif name in _DSH_FILLS:
            filled, why = _DSH_FILLS[name]
            out.append({"field": name, "filled": filled, "why": why})
        elif t == "string":
            out.append({"field": name, "filled": "", "why": Message("strict.fill.empty_string")})
        elif t in ("number", "integer"):
            out.append({"field": name, "filled": 0, "why": Message("strict.fill.zero")})
        elif t == "boolean":
            out.append({"field": name, "filled": False, "why": Message("strict.fill.false")})
    for a, b in _DSH_PAIRS:
        if a in must_fill and b in must_fill:
            out.append(
                {
                    "field": f"{a}+{b}",
                    "filled": "both",
                    "why": Message(
                        "strict.fill.pair",
                        needs=repr(dsh.NEEDS_JUSTIFICATION),
                        lone=repr(dsh.LONE_JUSTIFICATION),
                    ),
                }
            )
    return out


def strict_verdict(tool: dict, *, pi_ai: str = "1.6.0") -> StrictVerdict:
    """The strict verdict for a pi-ai tool definition (``{name, description, parameters}``), a Chat-nested
    or a Responses tool: OpenAI's answer, the absent-strict reading, each transform, the risky fills."""
    definition = _definition(tool)
    name, params = definition["name"], definition["parameters"]
    given = tool["function"] if isinstance(tool.get("function"), dict) else tool
    # no parameters at all: OpenAI reads an empty object (check's None), not the {} the other readings use
    found = check(None if given.get("parameters") is None else params, name=name)
    reading = _absent_reading(definition, pi_ai) if isinstance(params, dict) else {}
    transforms, tverdicts = _transforms(params, name, pi_ai)
    fills = _risky_fills(params, reading.get("must_fill", ())) if isinstance(params, dict) else []
    return StrictVerdict(name, not found, found, reading, transforms, tverdicts, fills)


#: ``strict_verdicts``: one row per distinct (schema, tool name, strict state sent) in a capture.
VERDICTS = declare(
    "strict.verdicts",
    {
        "schema_hash": "string",
        "tool": "string",
        "uses": "Int64",  # how many times the tool went out with this schema and strict state
        "strict_state_sent": fixed(*STRICT_STATES),
        "openai_accepts": "boolean",
        "first_rule": "string",
        "first_path": "string",
        "first_message": "string",  # the 400 OpenAI answers (strict true, or an absent strict on Responses)
        "n_violations": "Int64",
        "must_fill": object,  # tuple: optional fields a strict reading forces the model to invent
        "risky_fills": object,  # list of {field, filled, why}; why: a toolkit Message (English str, rendered by the report)
        "pi_ai_transform": "string",  # "accepted", "refused: <pi-ai's text>" or OpenAI's 400 for the result
        "agents_sdk": "string",  # the same for the Agents SDK transform (missing: not modelled)
        "all_keys_required": "string",
    },
)


def _outcome(v: str | None) -> str:
    return "accepted" if v is None else v


def strict_verdicts(capture: Any, *, pi_ai: str = "1.6.0") -> pd.DataFrame:
    """``strict_verdict`` for every distinct tool schema a capture sent (``capture.tools`` joined with
    ``capture.tool_schemas``)."""
    tools, schemas = capture.tools, capture.tool_schemas
    if tools.empty:
        return VERDICTS.empty()
    by_hash = dict(zip(schemas["schema_hash"], schemas["schema"], strict=False))
    groups = tools.groupby(["schema_hash", "name", "strict_state"], observed=True, sort=False, dropna=False)
    rows = []
    for (h, name, state), group in groups.size().items():
        params = by_hash.get(h)
        v = strict_verdict({"name": name, "parameters": params}, pi_ai=pi_ai)
        first = v.first
        rows.append(
            {
                "schema_hash": h,
                "tool": name,
                "uses": int(group),
                "strict_state_sent": state,
                "openai_accepts": v.accepted,
                "first_rule": first.rule if first else None,
                "first_path": first.path if first else None,
                "first_message": first.message if first else None,
                "n_violations": len(v.violations),
                "must_fill": v.absent_reading.get("must_fill", ()),
                "risky_fills": v.risky_fills,
                "pi_ai_transform": _outcome(v.transform_verdicts[f"pi-ai {pi_ai}"]),
                "agents_sdk": _outcome(v.transform_verdicts[AGENTS_SDK]) if AGENTS_SDK in v.transforms else None,
                "all_keys_required": _outcome(v.transform_verdicts[ALL_KEYS_REQUIRED]),
            }
        )
    return VERDICTS.from_records(rows)
