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
from toolkit.knowledge.dsh_runtime import ERROR_PREFIX

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
_ERROR_TERMINALS = ("http-error", "failed", "cut")

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

_RETRIED = re.compile(r"^an attempt finished '[^']*' \((?P<code>[^:()]+): (?P<message>.*)\) and the step was retried$")


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
    failed = ex["terminal"].isin(_ERROR_TERMINALS).fillna(False) | (status >= 400).fillna(False)
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
    outputs = capture.inputs[
        (capture.inputs["item_type"] == "function_call_output")
        & capture.inputs["text"].str.startswith(ERROR_PREFIX, na=False)
    ]
    for r in outputs.itertuples(index=False):
        if _missing(r.call_id) or r.call_id in seen_calls:
            continue
        seen_calls.add(r.call_id)
        source, location = where.get(r.exchange_id, (None, None))
        add(source, r.exchange_id, location, r.call_id, "tool-output", None, None, r.text)

    for p in probs[probs["kind"].isin(ERROR_PROBLEM_KINDS)].itertuples(index=False):
        if not _missing(p.exchange_id) and p.exchange_id in represented:
            continue
        inner = _RETRIED.match(p.message or "") if p.kind == "retried" else None
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

    return ERRORS.from_records(rows)


__all__ = [
    "ERRORS",
    "ERROR_LAYERS",
    "ERROR_PROBLEM_KINDS",
    "EXAMPLE_KEYS",
    "UNKNOWN",
    "Classification",
    "Rule",
    "RuleError",
    "classify",
    "errors",
    "load_rules",
]
