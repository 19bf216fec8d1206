"""Error triage: an error message → the layer it belongs to, what it means and the fix.

The rules live in package data (``toolkit/knowledge/triage_rules/``, one YAML file per family of texts, read in
the order of their names), ordered specific before general; the first rule that matches wins and a message no rule matches stays ``unknown`` (the
layer is never guessed). Rules whose text already lives in ``toolkit.knowledge`` name it with
``template:`` instead of restating it, and the regex is built from the formatter itself.

``classify`` triages one message; ``errors`` lists every error in a ``Capture`` with its triage.

Users paste pieces of what they saw (the tail of a tool result, a line cut out of a toast), so a message
no rule's pattern takes whole is also tried as a *fragment*: a contiguous piece of one of the exact texts
``toolkit.knowledge`` writes for DSH and pi-ai (``templates``), with its placeholders filled by anything.
A fragment names the rule that catches the full text it came from, and the ``Classification`` shows that
full text, the knowledge formatter it is written by and, where the knowledge names one, DSH's entry point.
A piece that fits the texts of more than one rule gets them all as candidates; one is never picked.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from os import PathLike
from pathlib import Path
from typing import Any

import yaml

from toolkit.capture.frames import CAT, declare, fixed
from toolkit.errors import InputError
from toolkit.knowledge import dsh_images, openai_strict
from toolkit.knowledge.dsh_runtime import ERROR_PREFIX
from toolkit.knowledge.dsh_tools import SCHEMAS as DSH_SCHEMAS
from toolkit.knowledge.messages import Message
from toolkit.sources import yaml_text
from toolkit.wire import json_text
from toolkit.wire.records import STRICT_STATES

# the layer an error belongs to (not toolkit.layers.LAYERS, the four layers of the verdict)
ERROR_LAYERS = ("config-capability", "serialization-protocol", "runtime-policy", "transport-gateway")
UNKNOWN = "unknown"
FIELDS = ("message", "error_code", "status")
KINDS = ("http", "stream", "tool-result", "tool-output", "problem")  # tool-output: an error sent back to the model
RULES_RESOURCE = "triage_rules"  # a folder of package data: NN-family.yaml, read in name order

_REQUIRED = ("id", "layer", "explain", "fix", "source")
#: Required of every packaged rule (a user's own rule may leave it out): one line on why the text belongs to
#: its layer, so a rule's layer is an argument a reviewer can check, not a label.
_PACKAGED_REQUIRED = ("why",)
_OPTIONAL = (
    "match",
    "template",
    "templates",
    "subject",
    "args",
    "until",
    "fields",
    "examples",
    "counterexamples",
    "why",
    "generic",
)
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
class Template:
    """An exact text written once in ``toolkit.knowledge``, with its placeholders.

    ``pieces`` alternate literal text and placeholder names, starting and ending with literal text (either
    may be ``""``): ``("cannot read \"", "path", "\" as an image: …")``. A name may recur (the same value
    twice). ``ref`` is where it is written (``module.NAME``); ``entry_point`` is DSH's entry point that
    shows it, where the knowledge names one (``dsh_images.ENTRY_POINTS``)."""

    ref: str
    pieces: tuple[str, ...]
    entry_point: str | None = None

    @property
    def text(self) -> str:
        """The text with each placeholder written ``<name>``."""
        return self.fill({})

    def fill(self, values: Mapping[str, str]) -> str:
        """The text with the placeholders ``values`` names filled in and the others written ``<name>``."""
        return "".join(p if i % 2 == 0 else values.get(p, f"<{p}>") for i, p in enumerate(self.pieces))


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
    template: Template | None = None  # the knowledge text a ``template:`` rule is built from
    why: str | None = None  # why the text belongs to ``layer`` (required of packaged rules)
    #: The id of the ``templates:`` entry this rule was generated from (one rule per knowledge text), else None.
    family: str | None = None
    #: A fallback that reads only a status or an HTTP wording, not the cause: it says where the failure was
    #: seen, not what caused it, and coverage counts it apart from the rules that name a cause.
    generic: bool = False

    def matches(self, values: Mapping[str, str | None]) -> bool:
        return any(values.get(f) is not None and self.pattern.search(values[f]) for f in self.fields)


#: How a candidate reading was found: the rule's pattern matched the text itself, or the text is a piece
#: of a known text whose full form the rule catches.
MATCH_KINDS = ("text", "fragment")


@dataclass(frozen=True)
class Candidate:
    """One reading of a message: the rule, and for a fragment the full text it is a piece of.

    ``text`` is that full text with the values the fragment shows filled in and the others written
    ``<name>``; ``template`` and ``entry_point`` say where it is written (``Template.ref``) and which of
    DSH's entry points shows it. For a ``text`` match they are ``None`` and ``text`` is the message."""

    rule_id: str
    layer: str
    matched: str  # one of MATCH_KINDS
    text: str | None
    template: str | None = None
    entry_point: str | None = None


@dataclass(frozen=True)
class Classification:
    """What ``classify`` says about one message. ``message`` is the text as given (prefix kept).

    ``candidates`` are every reading the text allows, in rule order: one for a settled answer, several
    when the text is a piece of known texts of different rules (or the complete text of one rule and a
    piece of another's). Then ``rule_id`` joins their ids with ``|``, ``layer`` is theirs when they agree
    and ``unknown`` when they do not, and ``fix`` and ``source`` are ``None``: each candidate names its
    rule. ``matched`` is ``"text"`` when a rule's pattern matched the message (that rule is the first
    candidate), ``"fragment"`` when only pieces of known texts did, ``None`` for ``unknown``."""

    rule_id: str
    layer: str
    explanation: str
    fix: str | None
    message: str | None
    source: str | None
    matched: str | None = None
    candidates: tuple[Candidate, ...] = ()
    #: The wrappers taken off before a rule matched, outermost first (``peel``): ``("litellm.BadRequestError",
    #: "OpenAIException", "json error.message")``; empty when the text matched as given.
    peeled: tuple[str, ...] = ()
    #: The rule is a generic fallback (``Rule.generic``): the layer is where the failure was seen, not its cause.
    generic: bool = False
    why: str | None = None  # the rule's reason for its layer

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The candidates' rule ids, each once, in rule order."""
        return tuple(dict.fromkeys(c.rule_id for c in self.candidates))


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


def rule_files() -> list[tuple[str, str]]:
    """The packaged rule files as ``(name, text)``, in the order their rules are tried (by file name)."""
    folder = resources.files(_KNOWLEDGE).joinpath(RULES_RESOURCE)
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)
    return [(f"{RULES_RESOURCE}/{f.name}", f.read_text(encoding="utf-8")) for f in files]


@lru_cache(maxsize=1)
def _packaged_rules() -> tuple[Rule, ...]:
    rules: list[Rule] = []
    first: dict[str, str] = {}
    for name, text in rule_files():
        for rule in _compile_all(_parse_yaml(text, name), origin=name, packaged=True):
            if rule.id in first:
                raise RuleError(f"{name}: rule {rule.id!r}: duplicate id {rule.id!r} (first in {first[rule.id]})")
            first[rule.id] = name
            if (
                rule.family is not None
                and rule.template is not None
                and _first_match(rules, {"message": rule.template.text})
            ):
                continue  # an earlier rule (a field report's) already catches this knowledge text whole
            rules.append(rule)
    return tuple(rules)


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
        data = yaml_text.load(text)
    except yaml.YAMLError as exc:
        line, column, why = yaml_text.error_place(exc, text)
        at = f" (line {line}, column {column})" if line is not None else ""
        raise RuleError(f"{where}{at}: not valid YAML: {why}") from None
    if isinstance(data, Mapping) and "rules" in data:
        data = data["rules"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise RuleError(f"{where}: expected a list of rules, found a YAML {type(data).__name__}")
    return data


def _compile_all(raw: list, *, origin: str, packaged: bool = False) -> list[Rule]:
    rules, seen = [], set()
    for index, item in enumerate(raw, 1):
        for rule in _compile(item, index, origin, packaged=packaged):
            if rule.id in seen:
                raise RuleError(f"{origin}: rule {index} ({rule.id!r}): duplicate id {rule.id!r}")
            seen.add(rule.id)
            rules.append(rule)
    return rules


def _compile(item: Any, index: int, origin: str, *, packaged: bool = False) -> list[Rule]:
    """One entry of a rules file: a rule, or for a ``templates:`` entry one rule per text of the family."""
    name = f"rule {index}"
    if not isinstance(item, Mapping):
        raise RuleError(f"{origin}: {name}: a rule must be a mapping, not a {type(item).__name__}")
    if isinstance(item.get("id"), str) and item["id"]:
        name = f"rule {index} ({item['id']!r})"

    def bad(what: str) -> RuleError:
        return RuleError(f"{origin}: {name}: {what}")

    missing = [k for k in _REQUIRED + (_PACKAGED_REQUIRED if packaged else ()) if k not in item]
    if missing:
        raise bad(f"missing key {', '.join(repr(k) for k in missing)}")
    unknown = sorted(set(item) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise bad(f"unknown key {', '.join(repr(k) for k in unknown)}; allowed: {', '.join(_REQUIRED + _OPTIONAL)}")
    for key in _REQUIRED:
        if not isinstance(item[key], str) or not item[key].strip():
            raise bad(f"{key!r} must be a non-empty string")
    if "why" in item and (not isinstance(item["why"], str) or not item["why"].strip()):
        raise bad("'why' must be a non-empty string")
    if not isinstance(item.get("generic", False), bool):
        raise bad("'generic' must be true or false")
    if item["layer"] not in ERROR_LAYERS:
        raise bad(f"unknown layer {item['layer']!r}; choose one of {', '.join(ERROR_LAYERS)}")
    if sum(k in item for k in ("match", "template", "templates")) != 1:
        raise bad(
            "needs exactly one of 'match' (a regex), 'templates' (a family of messages in toolkit.knowledge) "
            "or 'template' (a message in toolkit.knowledge)"
        )
    if "match" in item and ("args" in item or "until" in item):
        raise bad("'args' and 'until' go with 'template', not 'match'")
    if "templates" in item:
        return _family(item, origin, bad)

    fields = item.get("fields", "message")
    fields = (fields,) if isinstance(fields, str) else fields
    if not isinstance(fields, (list, tuple)) or not fields or not all(isinstance(f, str) for f in fields):
        raise bad(f"'fields' must be one of {', '.join(FIELDS)} or a list of them")
    wrong = [f for f in fields if f not in FIELDS]
    if wrong:
        raise bad(f"unknown field {wrong[0]!r} in 'fields'; choose from {', '.join(FIELDS)}")

    template = None
    if "match" in item:
        regex = item["match"]
        if not isinstance(regex, str) or not regex:
            raise bad("'match' must be a non-empty regex string")
    else:
        pieces, cut = _template_pieces(item, bad)
        regex = _template_regex(pieces, cut)
        # past ``until`` the text is computed from the arguments: a fragment may run on into it
        template = Template(item["template"], (*pieces, TAIL, "") if cut else pieces)
    try:
        pattern = re.compile(regex)
    except re.error as exc:
        raise bad(f"bad regex at position {exc.pos}: {exc.msg} (in {regex!r})") from None
    examples = {key: _examples(item.get(key), key, bad) for key in EXAMPLE_KEYS}
    return [
        Rule(
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
            template,
            why=_why(item),
            generic=item.get("generic", False),
        )
    ]


def _why(item: Mapping) -> str | None:
    return item["why"].strip() if isinstance(item.get("why"), str) else None


# ---- a family of knowledge texts: one rule per text ---------------------------------------------


def _family(item: Mapping, origin: str, bad) -> list[Rule]:
    """A ``templates: module.NAME`` entry: ``NAME`` maps keys to knowledge entries whose ``template`` is a
    ``str.format`` text (``openai_strict.RULES``), each with the dated wordings it had (``dated``: (period
    label, template), the newest last). Every wording becomes a rule ``<id>-<key>`` (an older wording
    ``<id>-<key>-<period>``) with the entry's layer, explain, why and fix, so a text added to the knowledge is
    a triage rule without an edit here. ``subject`` is what the system writes before each text (a
    ``str.format`` text, or a list of them: ``Invalid schema for function '{name}': ``); the rules catch the
    full text, and the text alone is read as a fragment of it (``fragments``), so where an earlier rule of a
    field report catches the full text, that rule reads the piece too. The family's ``examples`` (real
    texts or pieces, as quoted) and ``counterexamples`` are checked by tests/test_triage.py."""
    ref = item["templates"]
    if not isinstance(ref, str) or ref.count(".") != 1:
        raise bad(f"'templates' must be module.NAME inside toolkit.knowledge, not {ref!r}")
    if any(k in item for k in ("args", "until", "fields")):
        raise bad("'args', 'until' and 'fields' do not go with 'templates'")
    module_name, attr = ref.split(".")
    try:
        entries = getattr(importlib.import_module(f"{_KNOWLEDGE}.{module_name}"), attr)
    except (ImportError, AttributeError):
        raise bad(f"templates {ref!r} does not name anything in toolkit.knowledge") from None
    if not isinstance(entries, Mapping) or not all(
        isinstance(getattr(e, "template", None), str) for e in entries.values()
    ):
        raise bad(f"templates {ref!r} is not a mapping of entries with a 'template' text")
    subjects = item.get("subject", [""])
    subjects = [subjects] if isinstance(subjects, str) else subjects
    if not isinstance(subjects, list) or not subjects or not all(isinstance(x, str) for x in subjects):
        raise bad("'subject' must be a format text or a list of them")
    heads = [_format_pieces(x, bad) for x in subjects]
    # the subject's placeholders match any value (not named groups: they may recur in the text itself)
    head_regex = "|".join("".join(re.escape(p) if i % 2 == 0 else "[^\n]+?" for i, p in enumerate(h)) for h in heads)
    examples = {key: _examples(item.get(key), key, bad) for key in EXAMPLE_KEYS}
    rules: list[Rule] = []
    for key, entry in entries.items():
        wordings = tuple(getattr(entry, "dated", ()) or ()) or ((None, entry.template),)
        newest = wordings[-1][1]
        for label, text in dict.fromkeys(wordings):
            body = _format_pieces(text, bad)
            if set(heads[0][1::2]) & set(body[1::2]):
                raise bad(f"'subject' and {ref}[{key!r}] use the same placeholder name")
            pieces = (*heads[0][:-1], heads[0][-1] + body[0], *body[1:])
            rule_id = f"{item['id']}-{key}" if text == newest else f"{item['id']}-{key}-{_slug(label)}"
            where = f"{ref}[{key!r}]" + (f" ({label})" if label else "")
            regex = f"^(?:{head_regex})" + _template_regex(body, False)[1:]
            try:
                pattern = re.compile(regex)
            except re.error as exc:
                raise bad(f"bad regex for {where} at position {exc.pos}: {exc.msg} (in {regex!r})") from None
            sources = "; ".join(str(s) for s in (getattr(entry, "source", ""), getattr(entry, "report", "")) if s)
            rules.append(
                Rule(
                    rule_id,
                    item["layer"],
                    pattern,
                    ("message",),
                    item["explain"].strip(),
                    item["fix"].strip(),
                    f"{item['source'].strip()}; {where}: {sources}" if sources else item["source"].strip(),
                    origin,
                    template=Template(where, pieces),
                    why=_why(item),
                    generic=item.get("generic", False),
                    family=item["id"],
                )
            )
    if rules:  # the family's own examples stay with it (tests/test_triage.py reads them from the YAML)
        rules[0] = replace(rules[0], examples=examples["examples"], counterexamples=examples["counterexamples"])
    return rules


def _slug(label: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (label or "").lower()).strip("-")


def _format_pieces(text: str, bad) -> tuple[str, ...]:
    """``Template.pieces`` of a ``str.format`` text: literal text and the names of its ``{fields}``."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise bad(f"template text {text!r} is not a format string: {exc}") from None
    pieces = [""]
    for literal, field, _spec, _conv in parsed:
        pieces[-1] += literal
        if field is not None:
            if not field.isidentifier():
                raise bad(f"template text {text!r} has a field {field!r} that is not a name")
            pieces += [field, ""]
    return tuple(pieces)


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


#: The placeholder for the part of a ``template:`` rule's text past its ``until``.
TAIL = "rest"
_HOLE = re.compile(r"\x00(\w+)\x00")


def _template_pieces(item: Mapping, bad) -> tuple[tuple[str, ...], bool]:
    """A ``template:`` rule's text as ``Template.pieces`` (literal text and placeholder names), and whether
    it was cut at ``until``: a constant is all literal; a formatter is called with one placeholder per
    parameter."""
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
    return tuple(_HOLE.split(rendered)), until is not None


def _template_regex(pieces: tuple[str, ...], cut: bool) -> str:
    """The regex for a message written once in ``toolkit.knowledge``: literal text matches exactly, each
    placeholder becomes a named group (a repeat, a back-reference); a text cut at ``until`` is open-ended."""
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
    out.append("" if cut else "$")
    return "".join(out)


# ---- classifying --------------------------------------------------------------------------------


def classify(message: str | None, *, rules: list[Rule] | None = None, error_code=None, status=None) -> Classification:
    """Triage one error: the first rule that matches gives the layer, explanation and fix.

    A leading ``Error: `` (DSH's tool-result prefix) is ignored for matching but kept in
    ``Classification.message``. A message is also read as a fragment of the known texts
    (``fragments``): when no rule's pattern matches, a fragment names the rule of the full text it is a
    piece of; when the first matching rule is not the rule of any known text the message is a piece of,
    but other rules' texts contain it, every reading is a candidate. Nothing matches → layer and rule_id
    ``unknown``.

    When the text as given gets no rule, or only a generic fallback (``Rule.generic``), each layer of
    wrapping a gateway or SDK put around the provider's text (``peel``) is taken off in turn and the text
    inside is read the same way, with the status and error code the wrapper carried where the caller gave
    none: the first layer a specific rule reads gives the answer, and ``Classification.peeled`` names the
    wrappers taken off. Otherwise the answer for the text as given stands (the first generic one found
    inside when the text as given got none).
    """
    rules = load_rules() if rules is None else rules
    text = None if _missing(message) else str(message)
    body = text.removeprefix(ERROR_PREFIX) if text else text
    code = None if _missing(error_code) else str(error_code)
    shown = None if _missing(status) else _status_text(status)
    first = _classify_one(text, body, code, shown, rules)
    if (first.rule_id != UNKNOWN and not first.generic) or not body:
        return first
    fallback = None
    labels: list[str] = []
    for layer in peel(body):
        labels.append(layer.wrapper)
        code, shown = code or layer.error_code, shown or layer.status  # what an outer wrapper said holds inside
        found = _classify_one(layer.text, layer.text, code, shown, rules)
        if found.rule_id == UNKNOWN:
            continue
        found = replace(found, message=text, peeled=tuple(labels))
        if not found.generic:
            return found
        fallback = fallback or found
    return first if first.rule_id != UNKNOWN or fallback is None else fallback


def _classify_one(text: str | None, body: str | None, code, status, rules: list[Rule]) -> Classification:
    """``classify`` of one text, without peeling: ``text`` is shown, ``body`` (without DSH's prefix) is matched."""
    values = {"message": body, "error_code": code, "status": status}
    rule = _first_match(rules, values)
    pieces = fragments(body, rules=rules) if body else ()
    if rule is not None:
        own = [c for c in pieces if c.rule_id == rule.id]
        if own or not pieces:  # the rule's own text, or a text no other rule's known text contains
            ref, entry = (own[0].template, own[0].entry_point) if own else (None, None)
            whole = Candidate(rule.id, rule.layer, "text", text, ref, entry)
            return Classification(
                rule.id,
                rule.layer,
                rule.explain,
                rule.fix,
                text,
                rule.source,
                "text",
                (whole,),
                generic=rule.generic,
                why=rule.why,
            )
        return _readings((Candidate(rule.id, rule.layer, "text", text), *pieces), rules, text, "text")
    if pieces:
        return _readings(pieces, rules, text, "fragment")
    return Classification(UNKNOWN, UNKNOWN, Message("triage.unknown"), None, text, None)


def _first_match(rules: list[Rule], values: Mapping[str, str | None]) -> Rule | None:
    return next((r for r in rules if r.matches(values)), None)


def _readings(candidates: tuple[Candidate, ...], rules: list[Rule], text: str | None, matched: str) -> Classification:
    """One rule's reading(s), or the candidates of several rules without choosing among them."""
    ids = tuple(dict.fromkeys(c.rule_id for c in candidates))
    if len(ids) == 1:
        rule = next(r for r in rules if r.id == ids[0])
        return Classification(
            rule.id,
            rule.layer,
            rule.explain,
            rule.fix,
            text,
            rule.source,
            matched,
            candidates,
            generic=rule.generic,
            why=rule.why,
        )
    layers = {c.layer for c in candidates}
    layer = layers.pop() if len(layers) == 1 else UNKNOWN
    explanation = Message("triage.candidates", n=len(ids), rules=", ".join(ids))
    return Classification(RULE_ID_SEPARATOR.join(ids), layer, explanation, None, text, None, matched, candidates)


#: Between the rule ids of a classification with candidates of several rules: ``rule-a|rule-b``.
RULE_ID_SEPARATOR = "|"


# ---- wrappers: what gateways and SDKs put around a provider's text --------------------------------


@dataclass(frozen=True)
class Layer:
    """One wrapper taken off a message: its name (``litellm.BadRequestError``, ``Error code: 400``,
    ``json error.message``), the text inside it, and the status and error code the wrapper carried."""

    wrapper: str
    text: str
    status: str | None = None
    error_code: str | None = None


def _prefix_wrapper(pattern: str, label: str, source: str) -> tuple[re.Pattern, str, str]:
    return re.compile(pattern, re.DOTALL), label, source


#: The text wrappers, each a regex whose group ``rest`` is the text inside, with its name (``{group}`` filled
#: from the match) and where the form is defined. Tried in this order at each layer; the first that takes
#: the text wins.
WRAPPERS: tuple[tuple[re.Pattern, str, str], ...] = (
    _prefix_wrapper(
        r"^(?P<name>litellm(?:\.\w+)+): (?P<rest>.+?)(?: LiteLLM Retried: \d+ times(?:, LiteLLM Max Retries: \d+)?)?$",
        "{name}",
        'litellm litellm/exceptions.py @ 1.110.2 (`self.message = f"litellm.BadRequestError: {message}"`, and '
        "__str__ appending ` LiteLLM Retried: N times`; a traceback's last line puts `litellm.exceptions.<Class>: ` "
        "before it)",
    ),
    _prefix_wrapper(
        r"^(?:(?:RateLimitError|ContextWindowExceededError|ContentPolicyViolationError): )?"
        r"(?P<name>[A-Z][A-Za-z_]*Exception) - (?P<rest>.+)$",
        "{name}",
        "litellm litellm/litellm_core_utils/exception_mapping_utils.py @ 1.110.2 (`exception_provider = "
        'custom_llm_provider[0].upper() + custom_llm_provider[1:] + "Exception"`; '
        '`message=f"{exception_provider} - {message}"`)',
    ),
    _prefix_wrapper(
        r"^(?P<name>AI_[A-Za-z]+Error): (?P<rest>.+)$",
        "{name}",
        '@ai-sdk/provider 3.0.19 dist/index.js (`var name = "AI_APICallError"`; an AISDKError\'s name, shown '
        "by JavaScript as `<name>: <message>`)",
    ),
    _prefix_wrapper(
        r"^Error code: (?P<status>[1-5]\d\d) - (?P<rest>.+)$",
        "Error code: {status}",
        'openai-python src/openai/_base_client.py (1.x: `err_msg = f"Error code: {response.status_code} - '
        "{body}\"`, the parsed body as a Python dict; 3.57.0: the body's error.message)",
    ),
    _prefix_wrapper(
        r"^API Error: (?P<status>[1-5]\d\d) (?P<rest>.+)$",
        "API Error: {status}",
        "Claude Code's API error line (`API Error: 400 {…}`, `API Error: 404 No endpoints found …`), as its users "
        "quote it: https://github.com/musistudio/claude-code-router/issues/583, …/issues/593",
    ),
    _prefix_wrapper(
        r"^Error from provider\((?P<status>[1-5]\d\d)\):\s*(?P<rest>.+)$",
        "Error from provider({status})",
        "claude-code-router's provider error (`Error from provider(400): {…}`), as quoted in "
        "https://github.com/musistudio/claude-code-router/issues/593 and …/issues/599",
    ),
    _prefix_wrapper(
        r"^.+? API error \((?P<status>[1-5]\d\d)\): (?P<rest>.+)$",
        "API error ({status})",
        "earendil-works/pi packages/ai/src/utils/error-body.ts formatProviderError (`<provider> API error "
        "(<status>): <body>`)",
    ),
    _prefix_wrapper(
        r"^(?P<status>[1-5]\d\d):? (?P<rest>.+)$",
        "{status}",
        "openai-node APIError.makeMessage (`${status} ${message}`, or the error object as JSON); pi-ai "
        "`<status>: <body>`",
    ),
)

#: A DSH headless turn error (``dsh: <CODE>: <message>``), read from ``dsh_images.headless_stderr`` itself.
_DSH_LINE = re.compile(
    _template_regex(tuple(_HOLE.split(dsh_images.headless_stderr("\x00code\x00", "\x00rest\x00"))), False),
    re.DOTALL,
)
_EMBEDDED_BODY = re.compile(r"""\{\s*["'](?:error|message)["']\s*:""")
#: Longer bodies are not parsed as JSON or Python literals (a wrapper of an error is short).
_MAX_BODY_CHARS = 65_536
_MAX_LAYERS = 8


def peel(message: str | None) -> tuple[Layer, ...]:
    """The wrappers around ``message``, outermost first, each with the text inside it: gateway and SDK
    prefixes (``WRAPPERS``), DSH's headless ``dsh: CODE: …`` line, and error bodies, JSON or a Python dict
    repr (``{'error': {'message': …}}``), whose ``error.message`` (else ``message``, ``detail``, or an
    ``error`` string) is the text inside, again peeled when it holds JSON text itself. Empty when the text
    has no wrapper."""
    layers: list[Layer] = []
    text = "" if message is None else message.strip()
    while text and len(layers) < _MAX_LAYERS:
        layer = _peel_once(text)
        if layer is None or not layer.text.strip() or layer.text.strip() == text:
            break
        layers.append(layer)
        text = layer.text.strip()
    return tuple(layers)


def _peel_once(text: str) -> Layer | None:
    dsh = _DSH_LINE.match(text)
    if dsh:
        return Layer(f"dsh: {dsh['code']}", dsh["rest"], error_code=dsh["code"])
    for pattern, label, _source in WRAPPERS:
        hit = pattern.match(text)
        if hit:
            return Layer(label.format(**hit.groupdict()), hit["rest"], status=hit.groupdict().get("status"))
    if len(text) > _MAX_BODY_CHARS:
        return None
    if text[:1] in "{[":
        return _body_layer(text)
    # an error body quoted inside a longer text (a log line, a Python repr: ``'raw': '{"error": …}'``)
    hit = _EMBEDDED_BODY.search(text)
    end = _balanced_end(text, hit.start(), "}") if hit else None
    if hit is None or end is None:
        return None
    inner = text[hit.start() : end]
    layer = _body_layer(inner) or _body_layer(inner.replace("\\'", "'"))
    return None if layer is None else replace(layer, wrapper=f"embedded {layer.wrapper}")


def _body_layer(text: str) -> Layer | None:
    """The message inside a JSON error body or a Python repr of one."""
    body: Any
    kind = "json"
    try:
        body = json_text.loads(text)
    except ValueError:
        try:
            body = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
        kind = "dict"
    if isinstance(body, list) and body and isinstance(body[0], Mapping):
        body = body[0]  # Gemini answers a list of one error object
    if not isinstance(body, Mapping):
        return None
    error = body.get("error")
    holder: Mapping = error if isinstance(error, Mapping) else body
    metadata = holder.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, Mapping) else None
    if isinstance(raw, str) and raw.strip():  # OpenRouter: "Provider returned error", the provider's body in raw
        where = "error.metadata.raw" if holder is error else "metadata.raw"
        status = holder.get("code") if isinstance(holder.get("code"), int) else None
        return Layer(f"{kind} {where}", raw, status=None if status is None else str(status))
    for key in ("message", "detail", "error_message"):
        value = holder.get(key)
        if isinstance(value, str) and value.strip():
            where = f"error.{key}" if holder is error else key
            break
    else:
        if not isinstance(error, str) or not error.strip():
            return None
        value, where = error, "error"
    code = next((holder[k] for k in ("code", "type") if isinstance(holder.get(k), str) and holder[k]), None)
    status = holder.get("code") if isinstance(holder.get("code"), int) else None
    return Layer(f"{kind} {where}", value, status=None if status is None else str(status), error_code=code)


# ---- fragments: a piece of a known text ---------------------------------------------------------

#: The modules of ``toolkit.knowledge`` whose public texts (string constants, and formatters of string
#: arguments) are the exact texts of DSH and pi-ai; ``templates`` reads them all, so a text added there
#: is known to fragment matching without a second definition.
TEXT_MODULES = ("dsh_runtime", "dsh_settings", "dsh_images", "pi_ai_tools")

MIN_FRAGMENT_BYTES = 20
"""How much of a known text's own wording a fragment must hold: UTF-8 bytes of template text, not
counting the values it shows in placeholders.

Why 20: a fragment is read as DSH's text on the strength of its wording alone, so that wording must be a
phrase, not a word. The generic words and pairs every error vocabulary shares are shorter ("invalid" 7,
"not found" 9, "is not supported" 16, "must be a string" 16), and so are the pieces that are mostly
a value (``model "gpt-6-astra" does not`` has 17 bytes of DSH's wording). The phrases that name a cause
in DSH's texts are longer ("does not declare image input" 28, "expected a non-empty sentence" 29,
"is not strictly wider than" 26, "could not be resolved" 21). Bytes rather than characters, because one
Chinese character says about what a short English word does and takes three bytes (DSH's toast
``当前模型不支持图片`` is 27). Below the threshold a text stays ``unknown``. Above it a reading is always
marked ``matched="fragment"`` and shown with the full text it fits, and a piece that fits the texts of
more than one rule gets them all as candidates, so a phrase that happens to fit is never passed off as
the whole message nor as one rule's when it could be another's."""

#: How many ways to fill the placeholders a fragment does not show are tried when looking for the rule
#: that catches its full text (see ``fragments``).
_MAX_PROBES = 64
#: An integer stands in for a formatter argument that is not a string (rendered by the formatter, e.g. as
#: JSON) and is then replaced by the placeholder.
_NUMBER_PLACEHOLDER = 79_190_007_919


def templates(rules: list[Rule] | None = None) -> tuple[Template, ...]:
    """Every known text fragment matching reads: the public texts of ``TEXT_MODULES``, DSH's image
    refusals by entry point (``dsh_images.refusals``), and the text each ``template:`` rule is built
    from (with its fixed ``args``), each once."""
    rules = load_rules() if rules is None else rules
    # a formatter a rule cuts at ``until`` computes its tail from its arguments: placeholders give no real tail
    cut = {r.template.ref for r in rules if r.template is not None and TAIL in r.template.pieces[1::2]}
    found = {key: t for key, t in _knowledge_templates() if t.ref not in cut}
    for rule in rules:
        if rule.template is not None:
            key = _same_text(rule.template.pieces)
            known = found.get(key)
            # named as the rule names it (``removed_retries``, not ``removed_field`` that words it the same)
            found[key] = (
                rule.template if known is None else Template(rule.template.ref, known.pieces, known.entry_point)
            )
    return tuple(found.values())


def _same_text(pieces: tuple[str, ...]) -> tuple[str, ...]:
    """Texts that differ only by DSH's ``Error: `` tool-result prefix are one text."""
    return (pieces[0].removeprefix(ERROR_PREFIX), *pieces[1:])


@lru_cache(maxsize=1)
def _knowledge_templates() -> tuple[tuple[tuple[str, ...], Template], ...]:
    found: dict[tuple[str, ...], Template] = {}
    for module_name in TEXT_MODULES:
        module = importlib.import_module(f"{_KNOWLEDGE}.{module_name}")
        for name in module.__all__:
            pieces = _rendered(getattr(module, name))
            if pieces is not None:
                found.setdefault(_same_text(pieces), Template(f"{module_name}.{name}", pieces))
    marks = {p: f"\x00{p}\x00" for p in ("model", "path", "media_type")}
    for entry, text in dsh_images.refusals(marks["model"], marks["path"], media_type=marks["media_type"]):
        pieces = tuple(_HOLE.split(text))
        key = _same_text(pieces)
        known = found.get(key)
        # the text as the entry point shows it (read_image's with the ``Error: `` prefix), named by its formatter
        found[key] = Template(known.ref if known else "dsh_images.refusals", pieces, entry)
    return tuple(found.items())


def _rendered(target: Any) -> tuple[str, ...] | None:
    """``Template.pieces`` of a knowledge text: a string constant, or a formatter called with a placeholder
    for each argument without a default (a string, or a number it renders itself); ``None`` for anything
    else (data, predicates, formatters of other arguments, texts with two placeholders side by side)."""
    if isinstance(target, str):
        return (target,)
    if not inspect.isfunction(target):
        return None
    args: dict[str, Any] = {}
    numbers: list[str] = []
    for p in inspect.signature(target).parameters.values():
        if p.default is not p.empty:
            continue
        kind = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", "")
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return None
        if "str" in kind.replace(" ", "").split("|"):
            args[p.name] = f"\x00{p.name}\x00"
        elif kind in ("Any", "object"):
            args[p.name] = _NUMBER_PLACEHOLDER + len(numbers)
            numbers.append(p.name)
        else:
            return None
    if not args:
        return None
    try:
        text = target(**args)
    except Exception:  # a function of the module that is not a formatter of these arguments
        return None
    if not isinstance(text, str):
        return None
    for i, name in enumerate(numbers):
        text = text.replace(str(_NUMBER_PLACEHOLDER + i), f"\x00{name}\x00")
    pieces = tuple(_HOLE.split(text))
    if len(pieces) == 1 or any(not pieces[i] for i in range(2, len(pieces) - 1, 2)):
        return None
    return pieces


@dataclass(frozen=True)
class _Fit:
    """Where a fragment lies in a template: the placeholders it shows whole (``values``), those it starts
    or ends inside (``partial``: what of the value it shows), and how many bytes of template text it holds."""

    values: tuple[tuple[str, str], ...]
    partial: tuple[tuple[str, str], ...]
    covered: int


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


_CLOSING = {"(": ")", "[": "]"}


def _balanced_end(text: str, start: int, closing: str) -> int | None:
    """Where the bracket opened at ``start`` closes (the index after it), outside quotes; None if it does not."""
    opening, depth, quote, escaped = text[start], 0, None, False
    for i in range(start, min(len(text), start + _MAX_BODY_CHARS)):
        ch = text[i]
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch == "\n":
            return None
    return None


def _fits(fragment: str, template: Template) -> list[_Fit]:
    """Every way ``fragment`` is a contiguous piece of ``template``: literal text matches exactly; a value
    is at least one character and runs up to the character the template's next literal text starts with
    (a value never holds its own closing quote or delimiter, nor a line break); a name used twice has one
    value. The fragment may start or end anywhere, inside literal text or inside a value."""
    pieces, n = template.pieces, len(template.pieces)
    out: list[_Fit] = []

    def stop(i: int) -> re.Pattern:
        following = pieces[i + 1][:1]
        return re.compile("[\n" + re.escape(following) + "]") if following else re.compile("\n")

    def value_end(i: int, pos: int) -> int:
        closing = _CLOSING.get(fragment[pos : pos + 1])
        if closing is not None:  # a tuple or list repr (OpenAI's ``context=('properties', 'a')``) holds commas
            end = _balanced_end(fragment, pos, closing)
            if end is not None:
                return end
        hit = stop(i).search(fragment, pos)
        return hit.start() if hit else len(fragment)

    def agrees(name: str, value: str, values: dict, partial: dict) -> bool:
        whole = values.get(name)
        if whole is not None and whole != value:
            return False
        seen = partial.get(name)
        return seen is None or seen in value

    def walk(pos: int, i: int, values: dict, partial: dict, covered: int) -> None:
        if pos == len(fragment):
            out.append(_Fit(tuple(values.items()), tuple(partial.items()), covered))
            return
        if i >= n:
            return
        piece = pieces[i]
        if i % 2 == 0:
            if fragment.startswith(piece, pos):
                walk(pos + len(piece), i + 1, values, partial, covered + _size(piece))
            elif piece.startswith(fragment[pos:]):
                out.append(_Fit(tuple(values.items()), tuple(partial.items()), covered + _size(fragment[pos:])))
            return
        end = value_end(i, pos)
        if end == pos:
            return
        value = fragment[pos:end]
        if end == len(fragment):  # it ends inside this value: how much of it there is, is not known
            whole = values.get(piece)
            if whole is None or whole.startswith(value):
                out.append(_Fit(tuple(values.items()), tuple({**partial, piece: value}.items()), covered))
            return
        if agrees(piece, value, values, partial):
            walk(end, i + 1, {**values, piece: value}, partial, covered)
        # the last value of a text that ends in its delimiter (OpenAI's ``… keywords {names}.``) may hold it
        last = pieces[-1]
        rest = fragment[end:]
        if (
            i + 2 == n
            and last
            and rest.startswith(last[:1])
            and not any(c in rest for c in " \n'\"")
            and not fragment.endswith(last)
        ):
            # … and a piece cut inside that last value (``limit of 1.5`` of ``limit of 1.5.``) ends in it
            whole = values.get(piece)
            tail = fragment[pos:]
            if whole is None or whole.startswith(tail):
                out.append(_Fit(tuple(values.items()), tuple({**partial, piece: tail}.items()), covered))
        if i + 2 == n and last and fragment.endswith(last) and len(fragment) - len(last) > end:
            value = fragment[pos : len(fragment) - len(last)]
            if "\n" not in value and agrees(piece, value, values, partial):
                walk(len(fragment) - len(last), i + 1, {**values, piece: value}, partial, covered)

    first = fragment[0]
    for i in range(0, n, 2):  # starting inside literal text
        literal = pieces[i]
        at = literal.find(first)
        while at != -1:
            rest = literal[at:]
            if len(fragment) <= len(rest):
                if rest.startswith(fragment):
                    out.append(_Fit((), (), _size(fragment)))
            elif fragment.startswith(rest):
                walk(len(rest), i + 1, {}, {}, _size(rest))
            at = literal.find(first, at + 1)
    for i in range(1, n, 2):  # starting inside a value
        end = value_end(i, 0)
        # a value that holds the text's own wording before it is not one: that wording is not a value's
        if 0 < end < len(fragment) and not (pieces[i - 1] and pieces[i - 1] in fragment[:end]):
            walk(end, i + 1, {}, {pieces[i]: fragment[:end]}, 0)
    return out


def fragments(message: str | None, *, rules: list[Rule] | None = None) -> tuple[Candidate, ...]:
    """The readings of ``message`` as a piece of a known text (``templates``): for each template it is a
    contiguous piece of, holding at least ``MIN_FRAGMENT_BYTES`` of the template's wording, the rule that
    catches the full text, and that full text with the values the piece shows.

    Which rule catches a full text can depend on a value the piece does not show (a same-mode escalation
    is another rule than a narrower one), so each placeholder it does not show whole is tried as ``<name>``,
    as each value it does show and as the same value as another it does not show; every rule reached is a
    candidate. A template no rule catches gives
    none. DSH's ``Error: `` prefix and surrounding white space are ignored, as ``classify`` does."""
    rules = load_rules() if rules is None else rules
    body = "" if message is None else message.removeprefix(ERROR_PREFIX).strip()
    if _size(body) < MIN_FRAGMENT_BYTES:
        return ()
    if _packaged(rules) and len(body) <= _CACHED_CHARS:
        return _packaged_fragments(body)
    return _fragments(body, rules)


#: Messages up to this length have their fragment readings under the packaged rules cached (``errors``
#: meets the same refusal many times); a longer one is read afresh, so the cache stays small.
_CACHED_CHARS = 2048


def _packaged(rules: list[Rule]) -> bool:
    packaged = _packaged_rules()
    return len(rules) == len(packaged) and all(a is b for a, b in zip(rules, packaged, strict=True))


@lru_cache(maxsize=4096)
def _packaged_fragments(body: str) -> tuple[Candidate, ...]:
    return _fragments(body, list(_packaged_rules()))


def _fragments(body: str, rules: list[Rule]) -> tuple[Candidate, ...]:
    order = {r.id: i for i, r in enumerate(rules)}
    found: dict[tuple[str, str, str], tuple[Candidate, int]] = {}
    for template in templates(rules):
        fits = [f for f in _fits(body, template) if f.covered >= MIN_FRAGMENT_BYTES]
        # the piece's best alignment with this text: one that swallows its wording into a value says less
        best = max((f.covered for f in fits), default=0)
        for fit in fits:
            if fit.covered < best:
                continue
            values = dict(fit.values)
            shown = template.fill(values)
            for rule in _owners(template, values, dict(fit.partial), rules):
                key = (rule.id, template.ref, shown)
                if key not in found or found[key][1] < fit.covered:
                    reading = Candidate(rule.id, rule.layer, "fragment", shown, template.ref, template.entry_point)
                    found[key] = (reading, fit.covered)
    # in rule order; within a rule, the text the piece holds most of the wording of first
    ranked = sorted(found.values(), key=lambda item: (order[item[0].rule_id], -item[1]))
    return tuple(reading for reading, _ in ranked)


def _owners(template: Template, values: dict, partial: dict, rules: list[Rule]) -> list[Rule]:
    """The rules that catch the template's full text with ``values`` and the other placeholders filled."""
    names = list(dict.fromkeys(template.pieces[1::2]))
    unseen = [n for n in names if n not in values]
    shown = list(dict.fromkeys(values.values()))
    tries: list[list[str]] = []
    for k, name in enumerate(unseen):
        seen = partial.get(name, "")
        # its own value, one the piece shows, or the same value as another placeholder it does not show
        tries.append([f"<{name}>", *(v for v in shown if seen in v), *(f"<{n}>" for n in unseen[:k])])
    owners: dict[str, Rule] = {}
    for count, combo in enumerate(itertools.product(*tries)):
        if count >= _MAX_PROBES:
            break
        full = template.fill({**values, **dict(zip(unseen, combo, strict=True))})
        rule = _first_match(rules, {"message": full.removeprefix(ERROR_PREFIX)})
        if rule is not None:
            owners.setdefault(rule.id, rule)
    return list(owners.values())


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
    "MATCH_KINDS",
    "MIN_FRAGMENT_BYTES",
    "RETRIED",
    "RULE_ID_SEPARATOR",
    "TAIL",
    "TEXT_MODULES",
    "UNKNOWN",
    "WRAPPERS",
    "Candidate",
    "Classification",
    "Layer",
    "Rule",
    "RuleError",
    "Template",
    "classify",
    "errors",
    "fragments",
    "load_rules",
    "peel",
    "rule_files",
    "templates",
]
