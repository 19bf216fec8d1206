"""Layer 2, serialization: what a client library puts on the wire for a tool, and what each variant forces a model to send.

The models live in ``toolkit.knowledge`` (pi-ai: ``pi_ai_tools``, ``pi_ai_strict``; the other client
libraries behind one registry, ``adapters``), each checked against the real library's output
(``tests/fixtures/<library>``). This module converts a definition as any modelled library would
(``convert_tools(..., adapter=…)``), compares a captured tool with what one would have sent
(``compare``), lays out the strict variants side by side, and validates call arguments against a
schema. Which library sent a captured tools array is ``toolkit.layers.attribution``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolkit.capture.frames import declare, fixed
from toolkit.knowledge import adapters
from toolkit.knowledge.ai_sdk_tools import AiSdkRefusal
from toolkit.knowledge.messages import Message
from toolkit.knowledge.pi_ai import DEFAULT_VERSION
from toolkit.knowledge.pi_ai_strict import StrictSchemaError, allows_null, has_transform, make_strict
from toolkit.knowledge.pi_ai_tools import PiAiRefusal
from toolkit.knowledge.pi_ai_tools import convert_tools as _pi_ai_convert
from toolkit.wire.records import ADDITIONAL_PROPERTIES, STRICT_STATES
from toolkit.wire.schemas import flat_tool, strict_state

__all__ = [
    "COMPARE",
    "DEFAULT_ADAPTER",
    "DIFFERENCE_KINDS",
    "MISSING",
    "READ_AS",
    "SCHEMA_CHANGE_KINDS",
    "VARIANTS",
    "VARIANT_COLUMNS",
    "Comparison",
    "PiAiRefusal",
    "StrictSchemaError",
    "Violation",
    "adapter_refusals",
    "compare",
    "convert_tools",
    "make_strict",
    "schema_changes",
    "strict_state",
    "validate_arguments",
    "variants",
]


# ---- compare ------------------------------------------------------------------------------------

#: Every kind ``schema_changes`` names a change by.
SCHEMA_CHANGE_KINDS = (
    "property added",
    "property dropped",
    "property rewritten",
    "strict added",
    "strict removed",
    "strict changed",
    "required changed",
    "additionalProperties injected",
    "additionalProperties removed",
    "additionalProperties changed",
    "key added",
    "key removed",
    "value changed",
)
#: The kind of ``compare``'s one row when pi-ai would not have sent the tool at all.
NOT_SENT = "not sent by pi-ai"
#: The same for another adapter (``compare(..., adapter=…)``).
NOT_SENT_BY_ADAPTER = "not sent by the adapter"
DIFFERENCE_KINDS = (*SCHEMA_CHANGE_KINDS, NOT_SENT, NOT_SENT_BY_ADAPTER)

#: ``Comparison.differences``: one row per difference, the values as JSON text (missing: no such key).
COMPARE = declare(
    "serialization.compare",
    {"path": "string", "kind": fixed(*DIFFERENCE_KINDS), "expected": "string", "sent": "string"},
)


@dataclass
class Comparison:
    """Which variant of a tool was sent, and every difference from what pi-ai (or ``adapter``) would have sent."""

    strict: str  # the strict state that was sent
    parameters: str  # "as defined", "pi-ai's strict transform", or "rewritten"
    expected_strict: str | None  # what pi-ai would have sent (None: pi-ai would not have sent it)
    differences: pd.DataFrame  # path, kind, expected, sent
    adapter: str = "pi-ai"  # whose output it was compared with (``name version``; pi-ai: "pi-ai")

    @property
    def matches(self) -> bool:
        return self.differences.empty

    def __repr__(self) -> str:
        head = (
            f"sent strict={self.strict} with parameters {self.parameters}; {self.adapter} would send "
            f"strict={self.expected_strict}"
        )
        return head + (
            ": identical"
            if self.matches
            else f"; {len(self.differences)} differences:\n" + self.differences.to_string(index=False)
        )


#: The adapter ``convert_tools`` models when none is named: today's pi-ai.
DEFAULT_ADAPTER = f"pi-ai@{DEFAULT_VERSION}"


def adapter_refusals() -> tuple[type[Exception], ...]:
    """Every adapter's own "refused before sending" error (the Agents SDK's once its model exists)."""
    found: list[type[Exception]] = [PiAiRefusal, AiSdkRefusal]
    try:
        from toolkit.knowledge.agents_sdk_tools import AgentsSdkRefusal  # type: ignore[import-not-found,unused-ignore]

        found.append(AgentsSdkRefusal)
    except ImportError:
        pass
    return tuple(found)


def _resolve(adapter: str | None, api: str, options: dict | None, compat: dict | None, pi_ai: str | None):
    """(profile, version, the adapter's api, options) for the front's arguments; pi-ai's ``compat``
    and ``pi_ai`` are today's spelling of ``options={"compat": …}`` and ``adapter="pi-ai@…"``."""
    if pi_ai is not None and adapter is not None and adapters.profile(adapter).id != "pi-ai":
        raise ValueError(f"pi_ai={pi_ai!r} names a pi-ai version, but the adapter is {adapter!r}")
    name = adapter if adapter is not None else DEFAULT_ADAPTER
    if pi_ai is not None:
        name = f"pi-ai@{pi_ai}"
    profile, version = adapters.parse(name)
    opts = dict(options or {})
    if compat is not None:
        if profile.id != "pi-ai":
            raise ValueError(f"compat is pi-ai's option; {profile.name} takes options={{...}}")
        opts["compat"] = compat
    own = api
    if api not in profile.apis:
        try:
            mapped = adapters.adapter_apis(profile.id, api)
        except ValueError:
            mapped = ()
        if mapped:  # a wire api or endpoint: the adapter's first api that sends it
            own = mapped[0]
    return profile, version, own, opts


def convert_tools(
    tools: list[dict],
    *,
    adapter: str = DEFAULT_ADAPTER,
    api: str,
    options: dict | None = None,
    compat: dict | None = None,
    pi_ai: str | None = None,
) -> list[dict]:
    """The ``tools`` array ``adapter`` (``"id@version"``, or ``"id"`` for its default version; the ids
    are ``adapters.PROFILES``) sends on ``api`` for the neutral definitions ``tools``, called with
    ``options`` (its keyword arguments: pi-ai ``compat``, AI SDK and LiteLLM ``strict``, Agents SDK
    ``strict_json_schema``, Codex ``sandbox`` and ``approval``). ``api`` is the adapter's own name or
    the wire's (``responses``, ``chat``, an endpoint path), which means the adapter's first api that
    sends it (pi-ai: ``openai-responses``, ``openai-completions``).

    ``convert_tools(tools, api=…, compat=…, pi_ai=…)`` is pi-ai's call as before. The adapter's own
    refusal propagates (``PiAiRefusal``, ``AiSdkRefusal``, …); an unknown adapter, version, api or
    option is a ``ValueError`` naming the choices."""
    profile, version, own, opts = _resolve(adapter, api, options, compat, pi_ai)
    if profile.id == "pi-ai":
        unknown = sorted(set(opts) - {"compat"})
        if unknown:
            raise ValueError(f"pi-ai has no option {unknown[0]!r}; choose from compat")
        return _pi_ai_convert(tools, api=own, compat=opts.get("compat"), pi_ai=version)
    return adapters.convert(tools, adapter=f"{profile.id}@{version}", api=own, options=opts)


def compare(
    sent_tool: dict,
    definition: dict,
    *,
    api: str,
    adapter: str | None = None,
    options: dict | None = None,
    compat: dict | None = None,
    pi_ai: str = DEFAULT_VERSION,
) -> Comparison:
    """Compare a captured tool with what pi-ai ``pi_ai`` would have produced from ``definition`` on that
    route (``ValueError`` for a version that is not modelled), or, with ``adapter`` (``"id@version"``),
    with what that adapter would have sent, called with ``options`` (Codex: its own tool of that name)."""
    if adapter is not None:
        return _compare_adapter(sent_tool, definition, api=api, adapter=adapter, options=options, compat=compat)
    sent = flat_tool(sent_tool)
    try:
        expected = flat_tool(convert_tools([definition], api=api, compat=compat, pi_ai=pi_ai)[0])
    except PiAiRefusal as exc:
        diffs = COMPARE.from_rows([("$", NOT_SENT, str(exc), "a tool")])
        return Comparison(strict_state(sent), _parameters_form(sent, definition, pi_ai), None, diffs)
    rows = [_row(*change) for change in schema_changes(expected, sent)]
    diffs = COMPARE.from_records(rows)
    return Comparison(strict_state(sent), _parameters_form(sent, definition, pi_ai), strict_state(expected), diffs)


def _compare_adapter(
    sent_tool: dict, definition: dict, *, api: str, adapter: str, options: dict | None, compat: dict | None
) -> Comparison:
    profile, version, own, opts = _resolve(adapter, api, options, compat, None)
    who = f"{profile.name} {version}"
    sent = flat_tool(sent_tool)
    form = _parameters_form(sent, definition, version) if profile.id == "pi-ai" else _plain_form(sent, definition)
    try:
        tools = [{"name": definition.get("name") or sent.get("name")}] if profile.own_tools else [definition]
        expected = flat_tool(convert_tools(tools, adapter=f"{profile.id}@{version}", api=own, options=opts)[0])
    except ValueError as exc:  # every adapter's refusal is an InputError, a ValueError
        if not isinstance(exc, adapter_refusals()) and not profile.own_tools:
            raise
        diffs = COMPARE.from_rows([("$", NOT_SENT_BY_ADAPTER, str(exc), "a tool")])
        return Comparison(strict_state(sent), form, None, diffs, who)
    rows = [_row(*change) for change in schema_changes(expected, sent)]
    return Comparison(strict_state(sent), form, strict_state(expected), COMPARE.from_records(rows), who)


def _plain_form(sent: dict, definition: dict) -> str:
    return "as defined" if sent.get("parameters") == definition.get("parameters") else "rewritten"


def _parameters_form(sent: dict, definition: dict, pi_ai: str) -> str:
    params = sent.get("parameters")
    if params == definition.get("parameters"):
        return "as defined"
    try:
        if has_transform(pi_ai) and params == make_strict(definition.get("parameters"), pi_ai):
            return "pi-ai's strict transform"
    except StrictSchemaError:
        pass
    return "rewritten"


#: A key one side of a schema change does not have (``None`` would be a JSON ``null``).
MISSING: Any = object()

#: Keys whose change is a decision of its own (named by kind), not a value to descend into.
_DECIDED = ("strict", "required", "additionalProperties")


def schema_changes(before: Any, after: Any, path: str = "$") -> list[tuple[str, str, Any, Any]]:
    """Every change from one tool schema to another, as ``(path, kind, before, after)`` with the raw
    values (``MISSING`` where a side has no such key): the one schema diff, used by ``compare`` (what
    pi-ai would send against what was sent) and by ``hops.diff`` (a request at two hops).

    Under ``properties`` a property is added, dropped or rewritten as a whole; ``strict``, ``required``
    and ``additionalProperties`` are named by kind; other keys are descended into until a value differs."""
    out: list[tuple[str, str, Any, Any]] = []
    _diff(before, after, path, out)
    return out


def _diff(expected: Any, sent: Any, path: str, rows: list[tuple[str, str, Any, Any]]) -> None:
    if isinstance(expected, dict) and isinstance(sent, dict):
        in_properties = path.endswith(".properties")
        for key in list(expected) + [k for k in sent if k not in expected]:
            e, s = expected.get(key, MISSING), sent.get(key, MISSING)
            sub = f"{path}.{key}"
            if in_properties and (e is MISSING or s is MISSING or e != s):
                kind = (
                    "property added" if e is MISSING else "property dropped" if s is MISSING else "property rewritten"
                )
                rows.append((sub, kind, e, s))
            elif e is MISSING or s is MISSING:
                rows.append((sub, _kind(key, e, s), e, s))
            elif e != s:
                if key in _DECIDED:
                    rows.append((sub, _kind(key, e, s), e, s))
                else:
                    _diff(e, s, sub, rows)
        return
    if expected != sent:
        rows.append((path, "value changed", expected, sent))


def _kind(key: str, e: Any, s: Any) -> str:
    if key == "strict":
        return "strict added" if e is MISSING else "strict removed" if s is MISSING else "strict changed"
    if key == "required":
        return "required changed"
    if key == "additionalProperties":
        return (
            "additionalProperties injected"
            if e is MISSING
            else "additionalProperties removed"
            if s is MISSING
            else "additionalProperties changed"
        )
    return "key added" if e is MISSING else "key removed" if s is MISSING else "value changed"


def _row(path: str, kind: str, e: Any, s: Any) -> dict:
    show = lambda v: None if v is MISSING else json.dumps(v, ensure_ascii=False)  # noqa: E731
    return {"path": path, "kind": kind, "expected": show(e), "sent": show(s)}


# ---- variants -----------------------------------------------------------------------------------

#: How a gateway or model reads each variant's ``strict``.
READ_AS = (
    "non-strict",
    "strict by normalisation (OpenAI Responses)",
    "left to the gateway (pass-through: non-strict)",
    "strict",
    "not possible",
)

#: ``variants``: one row per way a tool can reach a model.
VARIANTS = declare(
    "serialization.variants",
    {
        "variant": "string",
        "strict": fixed(*STRICT_STATES),
        "read_as": fixed(*READ_AS),
        "required": object,  # tuple of property names
        "optional": object,
        "nullable": object,
        "additional_properties": fixed(*ADDITIONAL_PROPERTIES),  # missing: pi-ai cannot make it strict
        "must_send": object,  # a toolkit Message: English str, rendered in zh-CN by the widget and report
        "schema": object,  # the parameters the model sees, as a dict (None: not possible)
    },
)
VARIANT_COLUMNS = list(VARIANTS.columns)


def variants(definition: dict, pi_ai: str = DEFAULT_VERSION) -> pd.DataFrame:
    """One row per way the tool can reach a model, with what the model is then forced to send. The
    ``strict: true`` row is pi-ai ``pi_ai``'s: its transform, or (0.82.1, 0.73.1: no transform) the schema
    as defined under ``strict: true``."""
    has_transform(pi_ai)  # ValueError for a version that is not modelled
    params = definition.get("parameters") or {}
    props = list((params.get("properties") or {}).keys())
    required = [r for r in params.get("required") or [] if r in props]
    optional = [p for p in props if p not in required]
    ap = params.get("additionalProperties", "absent")
    ap = {True: "true", False: "false"}.get(ap, ap if ap == "absent" else "schema")
    loose = {"required": tuple(required), "optional": tuple(optional), "nullable": (), "additional_properties": ap}
    leave_out = (
        (
            Message("serialization.must.leave_out", names=", ".join(required), n=len(optional))
            if required
            else Message("serialization.must.leave_out_all", n=len(optional))
        )
        if optional
        else ", ".join(required)
    )
    rows = [
        {
            "variant": "absent, pass-through gateway",
            "strict": "absent",
            "read_as": "non-strict",
            **loose,
            "must_send": leave_out,
            "schema": params,
        },
        {
            "variant": "absent, gateway reads absence as strict",
            "strict": "absent",
            "read_as": "strict by normalisation (OpenAI Responses)",
            "required": tuple(props),
            "optional": (),
            "nullable": tuple(p for p in props if allows_null((params.get("properties") or {})[p])),
            "additional_properties": "false",
            "must_send": Message("serialization.must.invents", fields=", ".join(optional))
            if optional
            else Message("serialization.must.every_field"),
            "schema": {**params, "required": list(props), "additionalProperties": False},
        },
        {
            "variant": "false",
            "strict": "false",
            "read_as": "non-strict",
            **loose,
            "must_send": leave_out,
            "schema": params,
        },
        {
            "variant": "null (Codex)",
            "strict": "null",
            "read_as": "left to the gateway (pass-through: non-strict)",
            **loose,
            "must_send": leave_out,
            "schema": params,
        },
    ]
    if not has_transform(pi_ai):
        rows.append(
            {
                "variant": "true, pi-ai's strict transform",
                "strict": "true",
                "read_as": "strict",
                **loose,
                "must_send": Message("serialization.must.no_transform", version=pi_ai),
                "schema": params,
            }
        )
        return VARIANTS.from_records(rows)
    try:
        strict = make_strict(params, pi_ai)
        sprops = strict.get("properties") or {}
        nullable = tuple(p for p in optional if p in sprops and allows_null(sprops[p]))
        rows.append(
            {
                "variant": "true, pi-ai's strict transform",
                "strict": "true",
                "read_as": "strict",
                "required": tuple(strict.get("required", ())),
                "optional": (),
                "nullable": nullable,
                "additional_properties": "false",
                "must_send": Message("serialization.must.every_field_nullable", fields=", ".join(nullable))
                if nullable
                else Message("serialization.must.every_field"),
                "schema": strict,
            }
        )
    except StrictSchemaError as exc:
        rows.append(
            {
                "variant": "true, pi-ai's strict transform",
                "strict": "true",
                "read_as": "not possible",
                "required": (),
                "optional": (),
                "nullable": (),
                "additional_properties": None,
                "must_send": Message("serialization.must.cannot_strict", error=str(exc), path=exc.path),
                "schema": None,
            }
        )
    return VARIANTS.from_records(rows)


# ---- validate -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Violation:
    path: str  # JSON path of the offending value, "$" for the object itself
    message: str  # jsonschema's message
    keyword: str  # the schema keyword that failed (type, enum, required, additionalProperties, ...)

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def validate_arguments(arguments: dict | str, schema: dict) -> list[Violation]:
    """Violations of ``schema`` (JSON Schema Draft 2020-12) by the call's arguments, in path order."""
    from jsonschema import Draft202012Validator

    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return [Violation("$", f"arguments are not JSON: {exc.msg} at char {exc.pos}", "json")]
    errors = Draft202012Validator(schema).iter_errors(arguments)
    out = []
    for e in errors:
        path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path)
        out.append(Violation(path, e.message, str(e.validator)))
    return sorted(out, key=lambda v: (v.path, v.keyword, v.message))
