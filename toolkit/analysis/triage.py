"""Error triage: an error message → the layer it belongs to, what it means and the fix.

The rules live in package data (``toolkit/knowledge/triage_rules.yaml``), ordered specific before
general; the first rule that matches wins and a message no rule matches stays ``unknown`` (the
layer is never guessed). Rules whose text already lives in ``toolkit.knowledge`` name it with
``template:`` instead of restating it, and the regex is built from the formatter itself.

``classify`` triages one message; ``errors`` lists every error in a ``Capture`` with its triage.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

import yaml

from toolkit.capture.frames import CAT, declare, fixed
from toolkit.errors import InputError
from toolkit.knowledge import openai_strict
from toolkit.knowledge.dsh_runtime import ERROR_PREFIX
from toolkit.knowledge.dsh_tools import SCHEMAS as DSH_SCHEMAS
from toolkit.wire.records import STRICT_STATES

# the layer an error belongs to (not toolkit.layers.LAYERS, the four layers of the verdict)
ERROR_LAYERS = ("config-capability", "serialization-protocol", "runtime-policy", "transport-gateway")
UNKNOWN = "unknown"
FIELDS = ("message", "error_code", "status")
KINDS = ("http", "stream", "tool-result", "tool-output", "problem")  # tool-output: an error sent back to the model
RULES_RESOURCE = "triage_rules.yaml"

_REQUIRED = ("id", "layer", "explain", "fix", "source")
_OPTIONAL = ("match", "template", "args", "until", "fields", "examples", "counterexamples")
EXAMPLE_KEYS = ("examples", "counterexamples")  # real texts a rule must catch, and near misses it must not
_KNOWLEDGE = "toolkit.knowledge"

# problems-frame kinds that are errors of the traffic itself, not of reading the file
ERROR_PROBLEM_KINDS = ("stream-cut", "sse-frame", "flow-error", "gateway-failure", "retried")
#: the terminal states of an exchange that count as an error
ERROR_TERMINALS = ("http-error", "failed", "cut")
#: Values of a filled optional field that say nothing: what a model sends for a field it had to fill
#: (the tool reached it as strict) and had nothing for (``""``, JSON ``null``, the text ``"null"``).
EMPTY_FILLS = ("", None, "null")

ERRORS = declare(
    "triage.errors",
    {
        "source": CAT,
        "exchange_id": "string",
        "location": "string",
        "call_id": "string",
        "kind": fixed(*KINDS),
        "status": "Int64",
        "error_code": "string",
        "message": "string",
        "layer": fixed(*ERROR_LAYERS, UNKNOWN),
        "rule_id": "string",
        "explanation": "string",
        "fix": "string",
        # from the error back to its cause, where the capture holds both (``_causes``)
        "cause": "string",  # one line: what caused it
        "cause_tool": "string",
        "cause_path": "string",  # JSON path in the tool's parameters schema: "$", "$.properties.justification"
        "cause_calls": object,  # tuple of the call ids whose filled optional fields caused it
        "cause_strict_state": fixed(*STRICT_STATES),  # the strict state the tool went out with
        "cause_location": "string",  # where the cause is: "capture.har entry 1, function_call call_0001"
    },
)


class RuleError(InputError):
    """A triage rule that cannot be used: names the rule and what is wrong with it."""


@dataclass(frozen=True)
class Rule:
    id: str
    layer: str
    pattern: re.Pattern
    fields: tuple[str, ...]
    explain: str
    fix: str
    source: str
    origin: str = "packaged"  # "packaged", or where a user rule came from
    examples: tuple = ()  # each a message, or classify()'s keyword arguments as a mapping
    counterexamples: tuple = ()

    def matches(self, values: Mapping[str, str | None]) -> bool:
        return any(values.get(f) is not None and self.pattern.search(values[f]) for f in self.fields)


@dataclass(frozen=True)
class Classification:
    """What ``classify`` says about one message. ``message`` is the text as given (prefix kept)."""

    rule_id: str
    layer: str
    explanation: str
    fix: str | None
    message: str | None
    source: str | None


# ---- loading and validating rules ---------------------------------------------------------------


def load_rules(extra=None) -> list[Rule]:
    """The packaged rules, with ``extra`` (a YAML file path or a list of rule dicts) tried first.

    A user rule with the id of a packaged rule replaces it; other user rules are added in front.
    Every rule is validated; a bad one raises ``RuleError`` naming it and the problem.
    """
    packaged = _packaged_rules()
    if extra is None:
        return list(packaged)
    user = _compile_all(_read_extra(extra), origin=_origin(extra))
    overridden = {r.id for r in user}
    return user + [r for r in packaged if r.id not in overridden]


@lru_cache(maxsize=1)
def _packaged_rules() -> tuple[Rule, ...]:
    text = resources.files(_KNOWLEDGE).joinpath(RULES_RESOURCE).read_text(encoding="utf-8")
    return tuple(_compile_all(_parse_yaml(text, RULES_RESOURCE), origin=RULES_RESOURCE))


def _origin(extra) -> str:
    return str(extra) if isinstance(extra, (str, PathLike)) else "user rules"


def _read_extra(extra) -> list:
    if isinstance(extra, (str, PathLike)):
        path = Path(extra)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RuleError(f"{path}: cannot read rules file: {exc.strerror or exc}") from None
        return _parse_yaml(text, str(path))
    if isinstance(extra, Mapping):
        extra = [extra]
    if not isinstance(extra, Iterable):
        raise RuleError(f"extra rules must be a YAML file path or a list of rule dicts, not {type(extra).__name__}")
    return list(extra)


def _parse_yaml(text: str, where: str) -> list:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise RuleError(f"{where}{at}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None
    if isinstance(data, Mapping) and "rules" in data:
        data = data["rules"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise RuleError(f"{where}: expected a list of rules, found a YAML {type(data).__name__}")
    return data


def _compile_all(raw: list, *, origin: str) -> list[Rule]:
    rules, seen = [], set()
    for index, item in enumerate(raw, 1):
        rule = _compile(item, index, origin)
        if rule.id in seen:
            raise RuleError(f"{origin}: rule {index} ({rule.id!r}): duplicate id {rule.id!r}")
        seen.add(rule.id)
        rules.append(rule)
    return rules


def _compile(item: Any, index: int, origin: str) -> Rule:
    name = f"rule {index}"
    if not isinstance(item, Mapping):
        raise RuleError(f"{origin}: {name}: a rule must be a mapping, not a {type(item).__name__}")
    if isinstance(item.get("id"), str) and item["id"]:
        name = f"rule {index} ({item['id']!r})"

    def bad(what: str) -> RuleError:
        return RuleError(f"{origin}: {name}: {what}")

    missing = [k for k in _REQUIRED if k not in item]
    if missing:
        raise bad(f"missing key {', '.join(repr(k) for k in missing)}")
    unknown = sorted(set(item) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise bad(f"unknown key {', '.join(repr(k) for k in unknown)}; allowed: {', '.join(_REQUIRED + _OPTIONAL)}")
    for key in _REQUIRED:
        if not isinstance(item[key], str) or not item[key].strip():
            raise bad(f"{key!r} must be a non-empty string")
    if item["layer"] not in ERROR_LAYERS:
        raise bad(f"unknown layer {item['layer']!r}; choose one of {', '.join(ERROR_LAYERS)}")
    if ("match" in item) == ("template" in item):
        raise bad("needs exactly one of 'match' (a regex) or 'template' (a message in toolkit.knowledge)")
    if "match" in item and ("args" in item or "until" in item):
        raise bad("'args' and 'until' go with 'template', not 'match'")

    fields = item.get("fields", "message")
    fields = (fields,) if isinstance(fields, str) else fields
    if not isinstance(fields, (list, tuple)) or not fields or not all(isinstance(f, str) for f in fields):
        raise bad(f"'fields' must be one of {', '.join(FIELDS)} or a list of them")
    wrong = [f for f in fields if f not in FIELDS]
    if wrong:
        raise bad(f"unknown field {wrong[0]!r} in 'fields'; choose from {', '.join(FIELDS)}")

    if "match" in item:
        regex = item["match"]
        if not isinstance(regex, str) or not regex:
            raise bad("'match' must be a non-empty regex string")
    else:
        regex = _template_regex(item, bad)
    try:
        pattern = re.compile(regex)
    except re.error as exc:
        raise bad(f"bad regex at position {exc.pos}: {exc.msg} (in {regex!r})") from None
    examples = {key: _examples(item.get(key), key, bad) for key in EXAMPLE_KEYS}
    return Rule(
        item["id"],
        item["layer"],
        pattern,
        tuple(fields),
        item["explain"].strip(),
        item["fix"].strip(),
        item["source"].strip(),
        origin,
        examples["examples"],
        examples["counterexamples"],
    )


def _examples(value: Any, key: str, bad) -> tuple:
    """A rule's ``examples`` or ``counterexamples``: a list of messages or of classify() keyword mappings."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise bad(f"{key!r} must be a list of messages or of mappings with {', '.join(FIELDS)}")
    for example in value:
        if isinstance(example, Mapping):
            wrong = sorted(set(example) - set(FIELDS))
            if wrong or not example:
                raise bad(f"an entry of {key!r} may only have the keys {', '.join(FIELDS)}, not {wrong or 'none'}")
        elif not isinstance(example, str):
            raise bad(f"an entry of {key!r} must be a message string or a mapping, not {type(example).__name__}")
    return tuple(dict(e) if isinstance(e, Mapping) else e for e in value)


def _template_regex(item: Mapping, bad) -> str:
    """The regex for a message written once in ``toolkit.knowledge``: a constant matches exactly; a
    formatter is called with one placeholder per parameter, each becoming a named group."""
    ref = item["template"]
    if not isinstance(ref, str) or ref.count(".") != 1:
        raise bad(f"'template' must be module.NAME inside toolkit.knowledge, not {ref!r}")
    module_name, attr = ref.split(".")
    try:
        module = importlib.import_module(f"{_KNOWLEDGE}.{module_name}")
        target = getattr(module, attr)
    except (ImportError, AttributeError):
        raise bad(f"template {ref!r} does not name anything in toolkit.knowledge") from None
    args = item.get("args") or {}
    if not isinstance(args, Mapping):
        raise bad("'args' must map parameter names to fixed values")
    if isinstance(target, str):
        if args:
            raise bad(f"template {ref!r} is a constant and takes no 'args'")
        rendered = target
    elif callable(target):
        params = list(inspect.signature(target).parameters)
        extra = sorted(set(args) - set(params))
        if extra:
            raise bad(f"template {ref!r} has no parameter {extra[0]!r} (it takes {', '.join(params)})")
        values = {p: args.get(p, f"\x00{p}\x00") for p in params}
        try:
            rendered = target(**values)
        except Exception as exc:  # a knowledge formatter that cannot take placeholders
            raise bad(f"template {ref!r} cannot be rendered with placeholders: {exc}") from None
    else:
        raise bad(f"template {ref!r} is neither a message string nor a formatter")
    until = item.get("until")
    if until is not None:
        if not isinstance(until, str) or until not in rendered:
            raise bad(f"'until' {until!r} does not occur in template {ref!r}")
        rendered = rendered[: rendered.index(until) + len(until)]
    pieces = re.split(r"\x00(\w+)\x00", rendered)
    out, seen = ["^"], set()
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            out.append(re.escape(piece))
        elif piece in seen:
            out.append(f"(?P={piece})")
        else:
            seen.add(piece)
            # a quoted value cannot run past its closing quote into the next part of the message
            quoted = pieces[i - 1].endswith('"') and i + 1 < len(pieces) and pieces[i + 1].startswith('"')
            out.append(f'(?P<{piece}>[^"]+)' if quoted else f"(?P<{piece}>.+?)")
    out.append("" if until is not None else "$")
    return "".join(out)


# ---- classifying --------------------------------------------------------------------------------


def classify(message: str | None, *, rules: list[Rule] | None = None, error_code=None, status=None) -> Classification:
    """Triage one error: the first rule that matches gives the layer, explanation and fix.

    A leading ``Error: `` (DSH's tool-result prefix) is ignored for matching but kept in
    ``Classification.message``. Nothing matches → layer and rule_id ``unknown``.
    """
    rules = load_rules() if rules is None else rules
    text = None if _missing(message) else str(message)
    body = text.removeprefix(ERROR_PREFIX) if text else text
    code = None if _missing(error_code) else str(error_code)
    values = {"message": body, "error_code": code, "status": None if _missing(status) else _status_text(status)}
    for rule in rules:
        if rule.matches(values):
            return Classification(rule.id, rule.layer, rule.explain, rule.fix, text, rule.source)
    return Classification(
        UNKNOWN, UNKNOWN, "no triage rule matches this error; the layer is not guessed", None, text, None
    )


def _status_text(status) -> str:
    try:
        return str(int(status))
    except (TypeError, ValueError):
        return str(status).strip()


def _missing(value) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN
    except TypeError:  # pandas.NA
        return True


# ---- every error in a capture -------------------------------------------------------------------

#: a retried step's problem text: the error of the attempt that was retried
RETRIED = re.compile(r"^an attempt finished '[^']*' \((?P<code>[^:()]+): (?P<message>.*)\) and the step was retried$")


def errors(capture, *, rules: list[Rule] | None = None):
    """One row per error in ``capture``, triaged: failed exchanges (HTTP errors, failed and cut
    streams), DSH tool results with ``is_error``, DSH refusals sent back to the model in a later request
    (``tool-output``, once per call), and error problems not already counted."""
    rules = load_rules() if rules is None else rules
    rows: list[dict] = []
    ex = capture.exchanges
    probs = capture.problems
    cut_text: dict[str, str] = {}
    for p in probs[probs["kind"] == "stream-cut"].itertuples(index=False):
        if not _missing(p.exchange_id):
            cut_text.setdefault(p.exchange_id, p.message)

    def add(
        source, exchange_id, location, call_id, kind, status, code, message, finding_message=None, finding_code=None
    ) -> None:
        f = classify(
            message if finding_message is None else finding_message,
            rules=rules,
            error_code=code if finding_code is None else finding_code,
            status=status,
        )
        rows.append(
            {
                "source": source,
                "exchange_id": exchange_id,
                "location": location,
                "call_id": call_id,
                "kind": kind,
                "status": None if _missing(status) else int(status),
                "error_code": None if _missing(code) else code,
                "message": None if _missing(message) else message,
                "layer": f.layer,
                "rule_id": f.rule_id,
                "explanation": f.explanation,
                "fix": f.fix,
            }
        )

    status = ex["status"].astype("Float64")
    failed = ex["terminal"].isin(ERROR_TERMINALS).fillna(False) | (status >= 400).fillna(False)
    gateway_failures = set(probs.loc[probs["kind"] == "gateway-failure", "exchange_id"].dropna())
    failed |= ex["exchange_id"].isin(gateway_failures)
    represented = set()
    for r in ex[failed].itertuples(index=False):
        represented.add(r.exchange_id)
        http = r.terminal == "http-error" or (not _missing(r.status) and r.status >= 400)
        message = r.error_message
        if _missing(message) and r.terminal == "cut":
            message = cut_text.get(r.exchange_id)
        add(r.source, r.exchange_id, r.location, None, "http" if http else "stream", r.status, r.error_code, message)

    where = {
        r.exchange_id: (r.source, r.location) for r in ex[["exchange_id", "source", "location"]].itertuples(index=False)
    }
    results = capture.tool_results
    for r in results[results["is_error"].fillna(False).astype(bool)].itertuples(index=False):
        source, location = where.get(r.exchange_id, (None, None))
        add(source, r.exchange_id, location, r.call_id, "tool-result", None, r.error_code, r.text)

    # An HTTP capture holds DSH's refusals only as the function_call_output sent back in the next
    # request (and again in every later one): one row per call, at the first request that carried it.
    seen_calls = set(results["call_id"].dropna())
    parts = capture.input_parts  # in the order first sent: a part's first request is first_exchange_id
    outputs = parts[
        (parts["item_type"] == "function_call_output") & parts["text"].str.startswith(ERROR_PREFIX, na=False)
    ]
    for r in outputs.itertuples(index=False):
        if _missing(r.call_id) or r.call_id in seen_calls:
            continue
        seen_calls.add(r.call_id)
        source, location = where.get(r.first_exchange_id, (None, None))
        add(source, r.first_exchange_id, location, r.call_id, "tool-output", None, None, r.text)

    for p in probs[probs["kind"].isin(ERROR_PROBLEM_KINDS)].itertuples(index=False):
        if not _missing(p.exchange_id) and p.exchange_id in represented:
            continue
        inner = RETRIED.match(p.message or "") if p.kind == "retried" else None
        if inner:  # classify what the failed attempt said, keep the toolkit's sentence as the message
            add(
                p.source,
                p.exchange_id,
                p.location,
                None,
                "problem",
                None,
                None,
                p.message,
                finding_message=inner["message"],
                finding_code=inner["code"].strip(),
            )
        else:
            add(p.source, p.exchange_id, p.location, None, "problem", None, None, p.message)

    _causes(rows, capture)
    return ERRORS.from_records(rows)


# ---- from the error back to its cause -------------------------------------------------------------

_STRICT_400 = re.compile(r"Invalid schema for function '?(?P<name>[^':]+)'?: ")
_CONTEXT = re.compile(r"In context=(\([^)]*\))")
_MUST_BE = re.compile(r'"(?P<prop>[^"]+)" must be ')
#: Refusals caused by an optional field the model filled: rule id -> the fields that cause it (None: the
#: fields the message names, or, failing that, the optional fields the call filled with "" or null).
FILLED_OPTIONAL_RULES: dict[str, tuple[str, ...] | None] = {
    "dsh-invalid-justification": ("justification", "sandbox_permissions"),
    "dsh-escalation-lone-justification": ("justification",),
    "dsh-escalation-needs-justification": ("sandbox_permissions",),
    "dsh-escalation-same-mode": ("sandbox_permissions",),
    "dsh-escalation-not-wider": ("sandbox_permissions",),
    "dsh-escalation-not-available": ("sandbox_permissions", "justification"),
    "dsh-invalid-timeout": ("timeoutMs",),
    "dsh-run-in-background-disabled": ("run_in_background",),
    "dsh-invalid-arguments-filled-optional": None,
    "pi-ai-validation-filled-placeholder": None,
}
#: Stream and tool-call identity errors (docs/field-failures.md D): the cause is an item without its id.
IDENTITY_RULES = ("responses-output-missing-call-id", "stream-empty-tool-name", "history-tool-result-missing")


def _blank(value) -> bool:
    return _missing(value) or value == ""


class _Evidence:
    """The parts of a capture a cause is looked up in: where each exchange is, what each request sent."""

    def __init__(self, capture):
        ex = capture.exchanges
        self.where = {
            r.exchange_id: (f"{r.source} {r.location}", not _missing(r.method))
            for r in ex[["exchange_id", "source", "location", "method"]].itertuples(index=False)
        }
        self.order = {e: i for i, e in enumerate(ex["exchange_id"])}
        schemas = dict(zip(capture.tool_schemas["schema_hash"], capture.tool_schemas["schema"], strict=False))
        self.sent: dict[tuple[str, str], tuple[Any, str | None]] = {}
        for t in capture.tools[["exchange_id", "name", "schema_hash", "strict_state"]].itertuples(index=False):
            state = None if _missing(t.strict_state) else str(t.strict_state)
            self.sent.setdefault((t.exchange_id, t.name), (schemas.get(t.schema_hash), state))
        self.calls = capture.calls
        self.capture = capture

    def items(self, exchange_id):
        """What one request sent (its input items and parts, in order); none for no request."""
        ids = () if _missing(exchange_id) else (exchange_id,)
        return self.capture.inputs_wide(["item_type", "call_id", "name"], exchange_ids=ids)

    def place(self, exchange_id) -> str:
        return self.where.get(exchange_id, (str(exchange_id), False))[0]

    def call(self, call_id):
        """The call with this id where it went over HTTP (else where a session logged it), earliest first."""
        rows = self.calls[self.calls["call_id"] == call_id]
        if rows.empty:
            return None
        key = [(not self.where.get(e, ("", False))[1], self.order.get(e, 0)) for e in rows["exchange_id"]]
        return rows.iloc[min(range(len(key)), key=key.__getitem__)]


def _causes(rows: list[dict], capture) -> None:
    """Fill the ``cause_*`` columns of each error row whose cause the capture holds."""
    evidence = None
    for row in rows:
        row.update(dict.fromkeys(("cause", "cause_tool", "cause_path", "cause_strict_state", "cause_location")))
        row["cause_calls"] = ()
        message = row["message"] or ""
        if _STRICT_400.search(message) and not _missing(row["exchange_id"]):
            find = _strict_cause
        elif row["rule_id"] in FILLED_OPTIONAL_RULES and not _blank(row["call_id"]):
            find = _filled_cause
        elif row["rule_id"] in IDENTITY_RULES:
            find = _identity_cause
        else:
            continue
        evidence = evidence or _Evidence(capture)
        row.update(find(row, evidence))


def _strict_cause(row: dict, ev: _Evidence) -> dict:
    """A strict-schema 400: the tool it names in that request, and the violation ``openai_strict.check``
    finds in the tool's parameters as sent that gives the same text."""
    message = row["message"]
    match = _STRICT_400.search(message)
    assert match is not None
    name = match["name"]
    schema, state = ev.sent.get((row["exchange_id"], name), (None, None))
    out: dict[str, Any] = {"cause_tool": name, "cause_strict_state": state}
    if state is None:
        out["cause"] = f"the 400 names function {name!r}, which this request did not send"
        return out
    out["cause_location"] = f"{ev.place(row['exchange_id'])} request, tool {name}"
    found = openai_strict.check(schema, name=name)
    prefix = f"Invalid schema for function '{name}': "
    exact = [v for v in found if v.message.removeprefix(prefix) in message]
    context = _CONTEXT.search(message)
    near = [v for v in found if context and v.context == context[1]]
    if exact or near:
        v = (exact or near)[0]
        how = "" if exact else " (same place; OpenAI's wording differs from the modelled text)"
        out["cause"] = f"{name} (sent with strict {state}) breaks OpenAI's strict rule {v.rule} at {v.path}{how}"
        out["cause_path"] = v.path
    else:
        out["cause"] = f"openai_strict.check finds nothing in {name}'s parameters as sent that gives this 400"
    return out


def _filled_cause(row: dict, ev: _Evidence) -> dict:
    """A refusal of a filled optional field: the call that filled it, and the strict state its tool went
    out with in the request that produced the call."""
    call = ev.call(row["call_id"])
    if call is None or not isinstance(call["arguments"], dict):
        return {}
    args, name, exchange = call["arguments"], call["name"], call["exchange_id"]
    schema, state = ev.sent.get((exchange, name), (None, None))
    schema = schema if isinstance(schema, dict) else DSH_SCHEMAS.get(name) or {}
    required = schema.get("required") or []
    optional = [p for p in schema.get("properties") or {} if p not in required]
    fields = FILLED_OPTIONAL_RULES[row["rule_id"]]
    if fields is None:
        named = [m["prop"] for m in _MUST_BE.finditer(row["message"] or "")]
        fields = tuple(named) or tuple(p for p in optional if p in args and args[p] in EMPTY_FILLS)
    filled = [f for f in fields if f in optional and f in args]
    if not filled:
        return {}
    values = ", ".join(f"{f}={args[f]!r}" for f in filled)
    sent = f"strict {state}" if state else "a strict state the capture does not hold"
    return {
        "cause": f"{name} call {row['call_id']} filled the optional {values}; the tool went out with {sent}",
        "cause_tool": name,
        "cause_path": f"$.properties.{filled[0]}",
        "cause_calls": (row["call_id"],),
        "cause_strict_state": state,
        "cause_location": f"{ev.place(exchange)}, function_call {row['call_id']}",
    }


def _identity_cause(row: dict, ev: _Evidence) -> dict:
    """A stream-identity error: the streamed call, or the input item, that lacks its id or name."""
    rule, here = row["rule_id"], row["exchange_id"]
    upto = ev.order.get(here, len(ev.order))
    earlier = ev.calls[[ev.order.get(e, 0) <= upto for e in ev.calls["exchange_id"]]]
    if rule == "stream-empty-tool-name":
        named = earlier[earlier["call_id"] == row["call_id"]] if not _missing(row["call_id"]) else earlier
        bad = named[[_blank(n) for n in named["name"]]]
        if bad.empty:
            return {}
        c = bad.iloc[-1]
        return {
            "cause": f"the streamed function_call {c['item_id']} (call {c['call_id']}) arrived without a name",
            "cause_calls": () if _blank(c["call_id"]) else (c["call_id"],),
            "cause_location": f"{ev.place(c['exchange_id'])} response, output item {c['item_id']}",
        }
    items = ev.items(here)
    if rule == "responses-output-missing-call-id":
        bad = earlier[[_blank(c) for c in earlier["call_id"]]]
        outputs = items[
            (items["item_type"] == "function_call_output").to_numpy(bool) & items["call_id"].map(_blank).to_numpy(bool)
        ]
        if bad.empty and outputs.empty:
            return {}
        if bad.empty:
            i = outputs.iloc[0]
            return {
                "cause": f"input[{i['item_index']}] is a function_call_output without a call_id",
                "cause_location": f"{ev.place(here)} request, input[{i['item_index']}]",
            }
        c = bad.iloc[-1]
        sent = f"; its function_call_output went out without one in input[{outputs.iloc[0]['item_index']}]"
        return {
            "cause": f"the streamed function_call {c['item_id']} ({c['name']}) had an empty call_id"
            + (sent if len(outputs) else ""),
            "cause_tool": None if _blank(c["name"]) else c["name"],
            "cause_location": f"{ev.place(c['exchange_id'])} response, output item {c['item_id']}",
        }
    # history-tool-result-missing: the calls of the replayed history with no result after them
    asked = items[items["item_type"] == "function_call"]
    answered = set(items.loc[items["item_type"] == "function_call_output", "call_id"].dropna())
    open_ = asked[[not _blank(c) and c not in answered for c in asked["call_id"]]]
    if open_.empty:
        return {}
    ids = tuple(dict.fromkeys(open_["call_id"]))
    first = open_.iloc[0]
    return {
        "cause": f"the history replays {', '.join(ids)} with no tool result after {'it' if len(ids) == 1 else 'them'}",
        "cause_tool": None if _blank(first["name"]) else first["name"],
        "cause_calls": ids,
        "cause_location": f"{ev.place(here)} request, input[{first['item_index']}]",
    }


__all__ = [
    "EMPTY_FILLS",
    "ERRORS",
    "ERROR_LAYERS",
    "ERROR_PROBLEM_KINDS",
    "ERROR_TERMINALS",
    "EXAMPLE_KEYS",
    "FILLED_OPTIONAL_RULES",
    "IDENTITY_RULES",
    "RETRIED",
    "UNKNOWN",
    "Classification",
    "Rule",
    "RuleError",
    "classify",
    "errors",
    "load_rules",
]
