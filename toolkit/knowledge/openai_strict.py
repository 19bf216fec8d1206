"""OpenAI's strict function-calling rules (Structured Outputs' schema subset), with the exact 400 texts.

``check`` says, before anything is sent, what OpenAI answers a ``strict: true`` tool (or a tool it
normalises to strict): every violation, in the order the evidence says OpenAI checks, each with the
400 text as reported, OpenAI's ``context=(...)`` and a JSON path. The rules, texts, limits and their
sources are listed in ``docs/upstream.md`` ("openai-strict"); where a text was never reported the
violation says so (``exact`` false) instead of inventing one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LIMITS",
    "RULES",
    "SUPPORTED_FORMATS",
    "UNSUPPORTED_KEYWORDS",
    "Rule",
    "Violation",
    "check",
    "context_of",
]

DOCS = "https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas"
FIELD = "shared reference field-failures"

#: ``format`` values the structured-outputs guide lists as supported (DOCS, "Supported properties").
SUPPORTED_FORMATS = ("date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid")
#: Keywords the guide lists as not supported, plus ``uniqueItems`` (reported refused: "'uniqueItems' is not
#: permitted", a Codex output-schema qualification gate in a public repository).
UNSUPPORTED_KEYWORDS = ("allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else", "uniqueItems")
#: Size limits of the guide (DOCS, "Objects have limitations on nesting depth and size"); older revisions
#: said 100 properties and 5 levels (community.openai.com/t/918388, ellmer #671 "6 levels … limit of 5").
LIMITS = {
    "nesting_levels": 10,
    "total_properties": 5000,
    "total_enum_values": 1000,
    "total_string_chars": 120_000,  # property names, definition names, enum values and const values
    "large_enum_values": 250,  # a string enum with more values than this …
    "large_enum_chars": 15_000,  # … may have at most this many characters in all its values
}


@dataclass(frozen=True)
class Rule:
    id: str
    template: str  # the 400 text after "Invalid schema for function 'NAME': "; {context}, {key}, ... filled in
    source: str  # where the rule is stated (documentation or reference section)
    report: str  # where the exact text was reported
    exact: bool  # False: no report gives this text; the template is the documented rule, worded by us
    #: Each dated version of the text, oldest first: (period label, template), the label "until YYYY-MM" or
    #: "since YYYY-MM" (the month of the last or first report of that wording). Empty: one wording is known,
    #: ``template``. Otherwise ``template`` is the newest wording (the last entry).
    dated: tuple[tuple[str, str], ...] = ()
    #: False: OpenAI refuses this even when the tool is not strict (the schema check every tool gets).
    strict_only: bool = True

    def text_for(self, date: str | None) -> tuple[str | None, str]:
        """(period label, template) of the wording OpenAI used on ``date`` (``YYYY-MM-DD``; None: today's).

        A date between two periods (no report in that gap) gets the older wording, the last one seen before it.
        """
        if not self.dated:
            return None, self.template
        if date is None:
            return self.dated[-1]
        month = date[:7]
        for label, template in self.dated:
            kind, bound = label.split(" ", 1)
            if (kind == "until" and month <= bound) or (kind == "since" and month >= bound):
                return label, template
        earlier = [d for d in self.dated if d[0].split(" ", 1)[1] < month]
        return earlier[-1] if earlier else self.dated[0]


_ROOT_OLD = "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level."
_ROOT_NEW = "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'const'/'not' at the top level."

_R = [
    Rule(
        "parameters-type",
        "{value} is not of type 'object'.",
        "the function's parameters must be a JSON object (a JSON Schema); refused even without strict",
        "https://github.com/maltekuhr/laravel-gpt/issues/8 (2024-03-13, `[] is not of type 'object'.`; the place of "
        "`[] is not of type 'object', 'boolean'.` in FoundationAgents/OpenManus #1162 is not known)",
        True,
        strict_only=False,
    ),
    Rule(
        "root-type",
        "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{got}\"'.",
        f"{DOCS}; {FIELD} F26; refused even without strict (a root anyOf/oneOf without type gets this first)",
        "https://github.com/openai/openai-node/issues/1092 (2024-09-21), https://github.com/vercel/ai/issues/7005 "
        "(2025-07-02), https://github.com/openai/openai-node/issues/1597 (2025-07-24, 'type: \"string\"'): Python's "
        "str of the root type, 'None' when it has none. 'type: null' is DeepSeek's copy of the text "
        "(farion1231/cc-switch #4783, 2026-06-29), not an OpenAI wording",
        True,
        strict_only=False,
    ),
    Rule(
        "root-combinator",
        _ROOT_NEW,
        f"{DOCS} (root must be an object, not anyOf); {FIELD} F25; refused even without strict",
        "https://github.com/openai/codex/issues/26993, https://github.com/microsoft/vscode/issues/307515 (2026-04-02); "
        "with 'const': https://github.com/farion1231/cc-switch/issues/6918 (2026-08-28)",
        True,
        dated=(("until 2026-04", _ROOT_OLD), ("since 2026-08", _ROOT_NEW)),
        strict_only=False,
    ),
    Rule(
        "ref-siblings",
        "context={context}, $ref cannot have keywords {names}.",
        f"{DOCS} ($ref to $defs supported; a $ref carries nothing beside it)",
        "https://github.com/camel-ai/camel/issues/3001 (2025-08-10, `$ref cannot have keywords {'description'}.`); "
        'the context form without "In" quoted from a response_format 400 in a public repository '
        "(`context=('properties', 'mode'), $ref cannot have keywords {'description'}.`)",
        True,
    ),
    Rule(
        "unsupported-keyword",
        "In context={context}, '{key}' is not permitted.",
        f"{DOCS} (unsupported keywords: allOf, not, dependentRequired, dependentSchemas, if, then, else; oneOf is "
        "not in the supported list)",
        "https://github.com/livekit/agents/issues/5302 (2026-04-01, `In context=(), 'oneOf' is not permitted.` for a "
        "oneOf in $defs); https://github.com/openai/openai-agents-python/pull/1884 (2025-10-11); uniqueItems in a "
        "Codex output-schema gate",
        True,
    ),
    Rule(
        "type-missing",
        "In context={context}, schema must have a 'type' key.",
        f"{DOCS} (supported types); public reports of the 400",
        "public repository texts quoting the 400 (`In context=('properties', 'ok'), schema must have a 'type' key.`)",
        True,
    ),
    Rule(
        "format",
        "In context={context}, '{value}' is not a valid format.",
        f"{DOCS} (supported formats)",
        "https://github.com/can1357/oh-my-pi/issues/206, https://github.com/cyanheads/git-mcp-server/issues/47 "
        "(2026-05-06)",
        True,
    ),
    Rule(
        "pattern-regex",
        "'{value}' is not a 'regex'.",
        f"{FIELD} F28",
        "https://github.com/raine/claude-code-proxy/issues/142 (checked here with Python's re, not OpenAI's engine)",
        True,
    ),
    Rule(
        "array-items",
        "In context={context}, array schema missing items.",
        "an array schema must say what its items are; refused even without strict",
        "https://github.com/sigoden/aichat/pull/1049 (2024-12-11), https://github.com/mark3labs/mcphost/issues/35, "
        "https://github.com/modelscope/ms-agent/pull/610, https://github.com/gumloop/guMCP/pull/136",
        True,
        strict_only=False,
    ),
    Rule(
        "object-missing-properties",
        "In context={context}, object schema missing properties.",
        f"{FIELD} F29",
        "https://github.com/spring-projects/spring-ai/issues/4776",
        True,
    ),
    Rule(
        "additional-properties",
        "In context={context}, 'additionalProperties' is required to be supplied and to be false.",
        f"{DOCS} (additionalProperties: false must always be set in objects); {FIELD} F17",
        "https://github.com/letta-ai/letta/issues/3137, https://github.com/openai/codex/issues/7758; a strict tool "
        "without parameters: https://github.com/inngest/agent-kit/pull/66 (2025-02-13)",
        True,
    ),
    Rule(
        "required-type",
        "{value} is not of type 'array'.",
        f"{FIELD} F26; refused even without strict",
        "https://github.com/yomorun/yomo/pull/860 (2024-07-17, `None is not of type 'array'.`), "
        "https://github.com/router-for-me/CLIProxyAPI/issues/3310 (Python's repr: None, not null; "
        '`null is not of type "array"` in farion1231/cc-switch #7019 is another rendering)',
        True,
        strict_only=False,
    ),
    Rule(
        "required-missing",
        "In context={context}, 'required' is required to be supplied and to be an array including every key in "
        "properties. Missing '{key}'.",
        f"{DOCS} (all fields must be required); {FIELD} F16",
        "https://github.com/langchain-ai/langmem/issues/113, https://github.com/openai/codex/issues/531",
        True,
    ),
    Rule(
        "required-extra",
        "In context={context}, 'required' is required to be supplied and to be an array including every key in "
        "properties. Extra required key '{key}' supplied.",
        f"{FIELD} F19",
        "https://github.com/pnthn-ai/polar_llama/pull/86 (2026-07-14, the text after the context: \"'required' is "
        "required to be supplied and to be an array including every key in properties. Extra required key 'thinking' "
        'supplied."), https://github.com/Gitlawb/openclaude/issues/737',
        True,
    ),
    Rule(
        "nesting-depth",
        "{got} levels of nesting exceeds limit of {limit}.",
        f"{DOCS} (up to 10 levels of nesting)",
        "https://github.com/tidyverse/ellmer/issues/671 (response_format, limit 5 then); a public test file of "
        "measured texts (`14 levels of nesting exceeds limit of 10.`)",
        True,
    ),
    Rule(
        "total-properties",
        "{got} parameters exceeds limit of {limit}.",
        f"{DOCS} (up to 5000 object properties total)",
        "a public test file of measured texts (`6000 parameters exceeds limit of 5000.`)",
        True,
    ),
    Rule(
        "total-enum-values",
        "the schema has {got} enum values in all; the limit is {limit}.",
        f"{DOCS} (up to 1000 enum values across all enum properties)",
        "no report of the 400 text",
        False,
    ),
    Rule(
        "large-enum-chars",
        "In context={context}, an enum of {n} string values has {got} characters; the limit is {limit}.",
        f"{DOCS} (a string enum of more than 250 values: at most 15,000 characters)",
        "no report of the 400 text",
        False,
    ),
    Rule(
        "total-string-chars",
        "the schema's names, enum and const values have {got} characters in all; the limit is {limit}.",
        f"{DOCS} (total string length of names, definition names, enum and const values: 120,000)",
        "no report of the 400 text",
        False,
    ),
]
#: OpenAI's strict rules, in the order ``check`` applies them (root first, then each node depth-first in
#: property order, then the size limits). Within an object, the order of ``object-missing-properties``,
#: ``additional-properties`` and ``required-*`` is inferred from reports (``docs/upstream.md``).
RULES: dict[str, Rule] = {r.id: r for r in _R}


@dataclass(frozen=True)
class Violation:
    rule: str  # RULES id
    path: str  # JSON path in the parameters schema: "$", "$.properties.fields"
    context: str  # OpenAI's rendering of the same place: "()", "('properties', 'fields')"
    message: str  # the 400 text (``exact``) or the documented rule worded by us
    source: str  # where the rule and its text come from
    exact: bool = True
    period: str | None = None  # the period of OpenAI's wording this text is ("since 2025-07"); None: one wording

    def __str__(self) -> str:
        return self.message


def context_of(keys: tuple[str | int, ...]) -> str:
    """OpenAI's ``context=`` form: Python's repr of the key tuple (``()``, ``('properties', 'url')``)."""
    return repr(tuple(keys))


def _path(keys: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in keys)


def _types(node: dict[str, Any]) -> list[Any]:
    t = node.get("type")
    return t if isinstance(t, list) else [t] if t is not None else []


#: How the 400 names what it refuses, by where the schema was sent (``check``'s ``surface``).
SURFACES = {"function": "function", "response_format": "response_format"}
#: Root keywords the root-combinator text names (``const`` since the 2026-08 wording).
ROOT_COMBINATORS = ("oneOf", "anyOf", "allOf", "enum", "const", "not")
#: Keywords OpenAI refuses at any node below the root: the guide's list, ``oneOf`` and ``uniqueItems``.
REFUSED_KEYWORDS = ("oneOf", *UNSUPPORTED_KEYWORDS)
#: What OpenAI reads when a function has no ``parameters`` at all (inngest/agent-kit #66: a strict tool
#: without parameters is asked for ``additionalProperties`` at ``()``).
NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


class _Walk:
    def __init__(self, name: str, surface: str, strict: bool, date: str | None):
        self.prefix = f"Invalid schema for {SURFACES[surface]} '{name}': "
        self.strict = strict
        self.date = date
        self.out: list[Violation] = []

    def add(
        self, rule_id: str, keys: tuple[str | int, ...], ctx_keys: tuple[str | int, ...] | None = None, **values: Any
    ) -> None:
        rule = RULES[rule_id]
        if not self.strict and rule.strict_only:
            return
        ctx = context_of(keys if ctx_keys is None else ctx_keys)
        period, template = rule.text_for(self.date)
        text = template.format(context=ctx, **values)
        source = f"{rule.source}; reported: {rule.report}"
        self.out.append(Violation(rule_id, _path(keys), ctx, self.prefix + text, source, rule.exact, period))

    def node(self, node: Any, keys: tuple[str | int, ...], ctx: tuple[str | int, ...]) -> None:
        """Check one schema node; ``keys`` is its place from the root, ``ctx`` the place OpenAI names (a
        ``$defs`` entry is checked as a root of its own: livekit/agents #5302 got ``context=()`` there)."""
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            siblings = [k for k in node if k != "$ref"]
            if siblings:
                names = "{" + ", ".join(repr(k) for k in siblings) + "}"
                self.add("ref-siblings", keys, ctx, names=names)
            return
        for kw in node:
            if kw in REFUSED_KEYWORDS:
                self.add("unsupported-keyword", keys, ctx, key=kw)
        if "type" not in node and "anyOf" not in node and "oneOf" not in node:
            self.add("type-missing", keys, ctx)
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt not in SUPPORTED_FORMATS:
            self.add("format", keys, ctx, value=fmt)
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            try:
                re.compile(pattern)
            except re.error:
                self.add("pattern-regex", keys, ctx, value=pattern)
        types = _types(node)
        if "array" in types and "items" not in node:
            self.add("array-items", keys, ctx)
        props = node.get("properties")
        if "object" in types:
            if "properties" not in node:
                self.add("object-missing-properties", keys, ctx)
            if node.get("additionalProperties", None) is not False:
                self.add("additional-properties", keys, ctx)
            self.required(node, keys, ctx, props if isinstance(props, dict) else {})
        if isinstance(props, dict):
            for name, sub in props.items():
                self.node(sub, (*keys, "properties", name), (*ctx, "properties", name))
        items = node.get("items")
        if isinstance(items, dict):
            self.node(items, (*keys, "items"), (*ctx, "items"))
        for kw in ("anyOf", "oneOf"):
            if isinstance(node.get(kw), list):
                for i, sub in enumerate(node[kw]):
                    self.node(sub, (*keys, kw, i), (*ctx, kw, i))
        for kw in ("$defs", "definitions"):
            if isinstance(node.get(kw), dict):
                for name, sub in node[kw].items():
                    self.node(sub, (*keys, kw, name), ())

    def required(
        self, node: dict[str, Any], keys: tuple[str | int, ...], ctx: tuple[str | int, ...], props: dict[str, Any]
    ) -> None:
        required = node.get("required", [])
        if not isinstance(required, list):
            # jsonschema's text, in Python's words (None, not null); no context=
            rule = RULES["required-type"]
            if self.strict or not rule.strict_only:
                text = rule.template.format(value=repr(required))
                source = f"{rule.source}; reported: {rule.report}"
                self.out.append(Violation("required-type", _path(keys), context_of(ctx), self.prefix + text, source))
            return
        missing = [p for p in props if p not in required]
        if missing:
            self.add("required-missing", keys, ctx, key=missing[0])
        extra = [r for r in required if isinstance(r, str) and r not in props]
        if extra:
            self.add("required-extra", keys, ctx, key=extra[0])


def _measure(node: Any, keys: tuple[str | int, ...], level: int, acc: dict[str, Any]) -> None:
    """Nesting levels (property and items edges below the root), properties, enum values, string sizes."""
    if not isinstance(node, dict):
        return
    acc["levels"] = max(acc["levels"], level)
    props = node.get("properties")
    if isinstance(props, dict):
        acc["properties"] += len(props)
        acc["chars"] += sum(len(p) for p in props)
        for name, sub in props.items():
            _measure(sub, (*keys, "properties", name), level + 1, acc)
    enum = node.get("enum")
    if isinstance(enum, list):
        acc["enums"] += len(enum)
        strings = [v for v in enum if isinstance(v, str)]
        acc["chars"] += sum(len(v) for v in strings)
        if len(strings) > LIMITS["large_enum_values"]:
            n = sum(len(v) for v in strings)
            if n > LIMITS["large_enum_chars"]:
                acc["large"].append((keys, len(strings), n))
    if isinstance(node.get("const"), str):
        acc["chars"] += len(node["const"])
    if isinstance(node.get("items"), dict):
        _measure(node["items"], (*keys, "items"), level + 1, acc)
    for kw in ("anyOf", "oneOf"):
        if isinstance(node.get(kw), list):
            for i, sub in enumerate(node[kw]):
                _measure(sub, (*keys, kw, i), level, acc)
    for kw in ("$defs", "definitions"):
        if isinstance(node.get(kw), dict):
            acc["chars"] += sum(len(k) for k in node[kw])
            for name, sub in node[kw].items():
                _measure(sub, (*keys, kw, name), level, acc)


def check(
    schema: Any, *, name: str, surface: str = "function", strict: bool = True, date: str | None = None
) -> list[Violation]:
    """Every violation of OpenAI's rules by the function ``name``'s ``parameters`` (``surface``
    "response_format": a structured-output schema), in check order: the first is the 400 OpenAI answers.
    Empty: OpenAI accepts the schema as it stands.

    ``strict`` False keeps only what OpenAI refuses without strict (``Rule.strict_only`` false). ``date``
    (``YYYY-MM-DD``) picks the wording OpenAI used then where its text changed (``Rule.dated``; each
    violation names its ``period``); None: today's wording. ``schema`` None is a function sent without
    ``parameters``, which OpenAI reads as ``NO_PARAMETERS``."""
    walk = _Walk(name, surface, strict, date)
    if schema is None:
        schema = NO_PARAMETERS
    if not isinstance(schema, dict):
        walk.add("parameters-type", (), value=repr(schema))
        return walk.out
    if schema.get("type") != "object":
        got = schema.get("type")
        walk.add("root-type", (), got=str(got))
        return walk.out
    if any(k in schema for k in ROOT_COMBINATORS):
        walk.add("root-combinator", ())
    walk.node(schema, (), ())
    acc: dict[str, Any] = {"levels": 0, "properties": 0, "enums": 0, "chars": 0, "large": []}
    _measure(schema, (), 0, acc)
    if acc["levels"] > LIMITS["nesting_levels"]:
        walk.add("nesting-depth", (), got=acc["levels"], limit=LIMITS["nesting_levels"])
    if acc["properties"] > LIMITS["total_properties"]:
        walk.add("total-properties", (), got=acc["properties"], limit=LIMITS["total_properties"])
    if acc["enums"] > LIMITS["total_enum_values"]:
        walk.add("total-enum-values", (), got=acc["enums"], limit=LIMITS["total_enum_values"])
    for keys, n, chars in acc["large"]:
        walk.add("large-enum-chars", keys, n=n, got=chars, limit=LIMITS["large_enum_chars"])
    if acc["chars"] > LIMITS["total_string_chars"]:
        walk.add("total-string-chars", (), got=acc["chars"], limit=LIMITS["total_string_chars"])
    return walk.out
