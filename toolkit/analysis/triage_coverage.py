"""How far triage reaches on real error texts: the triage corpus read, checked and measured per family.

The corpus (``tests/corpus/triage/*.yaml``) holds error texts users of other stacks reported, or that a
system's own source defines, each with its source and the rule and layer a correct triage gives. It is a
measurement, not a set of rules: rules are written for families of texts, and the corpus says how many of
the texts each family's users bring get a rule that names the cause. Texts marked ``held_out`` come from
sources the rules were not written from, so their share is the measure of generalisation; they are
counted apart.

An entry: ``text`` (verbatim), ``stack`` (the system that produced it), ``family`` (the row of the table),
``source`` (the report's URL, or repo/path@version where the text is defined), ``expect: {rule, layer}``
(a rule id, or ``unknown`` for both), and optionally ``date`` (``'YYYY-MM-DD'``), ``held_out``,
``error_code`` and ``status`` (as ``classify`` takes them) and ``note``.

Each text gets one outcome (``OUTCOMES``): the expected rule (``specific``), another rule that names a
cause in the expected layer (``layer``), a generic HTTP fallback (``generic``: where the failure was seen,
not its cause), no rule (``unknown``), or a rule in another layer (``wrong``). An entry expected
``unknown`` says that no rule covers its template yet: it is counted as what it gets, and a rule that
names a cause for it makes the corpus test fail until the entry names that rule (the corpus states what a
correct triage gives, never what it happened to give).

``python -m toolkit.analysis.triage_coverage`` prints the table; ``--readme`` writes it into README.md
between ``README_MARKERS``; ``--check`` exits 1 when README.md's table is not the corpus's.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from toolkit.analysis import triage
from toolkit.errors import InputError
from toolkit.knowledge.messages import text
from toolkit.sources import yaml_text

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "triage"
README = ROOT / "README.md"
README_MARKERS = ("<!-- triage-coverage:start -->", "<!-- triage-coverage:end -->")

#: What a corpus text gets, in the order the table shows them.
OUTCOMES = ("specific", "layer", "generic", "unknown", "wrong")
_REQUIRED = ("text", "stack", "family", "source", "expect")
_OPTIONAL = ("date", "held_out", "error_code", "status", "note")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class CorpusError(InputError):
    """A corpus entry that cannot be measured: names the file, the entry and what is wrong."""


@dataclass(frozen=True)
class Entry:
    """One corpus text, with what a correct triage gives (``rule`` may be ``unknown``)."""

    text: str
    stack: str
    family: str
    source: str
    rule: str
    layer: str
    where: str  # "providers.yaml entry 3"
    held_out: bool = False
    date: str | None = None
    error_code: str | None = None
    status: int | str | None = None

    def classify(self, rules: list[triage.Rule] | None = None) -> triage.Classification:
        return triage.classify(self.text, rules=rules, error_code=self.error_code, status=self.status)


def read_corpus(folder: Path | str = CORPUS, *, rules: list[triage.Rule] | None = None) -> list[Entry]:
    """Every entry of the corpus files in ``folder`` (``*.yaml``, in name order), checked: an entry without a
    source, with an unknown key or layer, or expecting a rule id that does not exist is refused."""
    rules = triage.load_rules() if rules is None else rules
    known = {r.id: r for r in rules}
    out: list[Entry] = []
    files = sorted(Path(folder).glob("*.yaml"))
    for path in files:
        try:
            data = yaml_text.load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise CorpusError(f"{path.name}: not valid YAML: {exc}") from None
        except OSError as exc:
            raise CorpusError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if data is None:
            continue
        if not isinstance(data, list):
            raise CorpusError(f"{path.name}: expected a list of entries, found a YAML {type(data).__name__}")
        for index, item in enumerate(data, 1):
            out.append(_entry(item, f"{path.name} entry {index}", known))
    return out


def _entry(item: Any, where: str, known: Mapping[str, triage.Rule]) -> Entry:
    def bad(what: str) -> CorpusError:
        return CorpusError(f"{where}: {what}")

    if not isinstance(item, Mapping):
        raise bad(f"an entry must be a mapping, not a {type(item).__name__}")
    missing = [k for k in _REQUIRED if k not in item]
    if missing:
        raise bad(f"missing key {', '.join(repr(k) for k in missing)}")
    extra = sorted(set(item) - set(_REQUIRED) - set(_OPTIONAL))
    if extra:
        raise bad(f"unknown key {', '.join(repr(k) for k in extra)}; allowed: {', '.join(_REQUIRED + _OPTIONAL)}")
    for key in ("text", "stack", "family", "source"):
        if not isinstance(item[key], str) or not item[key].strip():
            raise bad(f"{key!r} must be a non-empty string")
    expect = item["expect"]
    if not isinstance(expect, Mapping) or set(expect) != {"rule", "layer"}:
        raise bad("'expect' must be a mapping of exactly 'rule' and 'layer'")
    rule, layer = expect["rule"], expect["layer"]
    if layer not in (*triage.ERROR_LAYERS, triage.UNKNOWN):
        raise bad(f"unknown layer {layer!r}; choose one of {', '.join(triage.ERROR_LAYERS)} or unknown")
    if not isinstance(rule, str) or not rule:
        raise bad("'expect.rule' must be a rule id or unknown")
    if rule == triage.UNKNOWN:
        if layer != triage.UNKNOWN:
            raise bad("'expect.rule' unknown goes with 'expect.layer' unknown (the layer is never guessed)")
    else:
        ids = rule.split(triage.RULE_ID_SEPARATOR)
        absent = [i for i in ids if i not in known]
        if absent:
            raise bad(f"expected rule {absent[0]!r} does not exist")
        layers = {known[i].layer for i in ids}
        if layer not in layers:
            raise bad(f"expected layer {layer!r} is not the layer of rule {rule!r} ({', '.join(sorted(layers))})")
    date = item.get("date")
    if date is not None and (not isinstance(date, str) or not _DATE.match(date)):
        raise bad(f"'date' must be YYYY-MM-DD (quoted), not {date!r}")
    held_out = item.get("held_out", False)
    if not isinstance(held_out, bool):
        raise bad("'held_out' must be true or false")
    code = item.get("error_code")
    if code is not None and not isinstance(code, str):
        raise bad("'error_code' must be a string")
    status = item.get("status")
    if status is not None and not isinstance(status, (int, str)):
        raise bad("'status' must be a number or a string")
    return Entry(
        item["text"],
        item["stack"].strip(),
        item["family"].strip(),
        item["source"].strip(),
        rule,
        layer,
        where,
        held_out,
        date,
        code,
        status,
    )


def outcome(entry: Entry, found: triage.Classification) -> str:
    """One of ``OUTCOMES`` for what ``found`` says about ``entry``."""
    if found.rule_id == triage.UNKNOWN:
        return "unknown"
    if found.generic:
        return "generic"
    if entry.rule != triage.UNKNOWN and entry.rule in (found.rule_id, *found.rule_ids):
        return "specific"
    if entry.layer == triage.UNKNOWN:  # no rule was expected: a specific reading is not judged right here
        return "layer"
    return "layer" if found.layer == entry.layer else "wrong"


def agrees(entry: Entry, found: triage.Classification) -> bool:
    """Whether ``found`` is what the corpus says a correct triage gives: the expected rule and layer; for an
    entry expected ``unknown``, no rule that names a cause (unknown, or only a generic fallback)."""
    if entry.rule == triage.UNKNOWN:
        return found.rule_id == triage.UNKNOWN or found.generic
    return entry.rule in (found.rule_id, *found.rule_ids) and found.layer == entry.layer


@dataclass
class Counts:
    texts: int = 0
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))

    def add(self, what: str) -> None:
        self.texts += 1
        self.outcomes[what] += 1


@dataclass
class Coverage:
    """Per family (and ``total``): the counts over all texts and over the held-out texts alone."""

    all: dict[str, Counts]
    held_out: dict[str, Counts]
    stacks: set[str]


TOTAL = "total"


def coverage(entries: Iterable[Entry], *, rules: list[triage.Rule] | None = None) -> Coverage:
    """Classify every entry and count its outcome per family, all texts and held-out texts apart."""
    every: dict[str, Counts] = {}
    held: dict[str, Counts] = {}
    stacks: set[str] = set()
    for entry in entries:
        what = outcome(entry, entry.classify(rules))
        stacks.add(entry.stack)
        for family in (entry.family, TOTAL):
            every.setdefault(family, Counts()).add(what)
            if entry.held_out:
                held.setdefault(family, Counts()).add(what)
            else:
                held.setdefault(family, Counts())
    return Coverage(every, held, stacks)


def table(cov: Coverage, lang: str = "en") -> str:
    """The coverage table in Markdown: one row per family (by name), then the total; each cell ``all (held
    out)``, and the share of texts left ``unknown``."""
    head = [text(f"triage.coverage.{k}", lang) for k in ("family", "texts", *OUTCOMES, "unknown_share")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    names = sorted(f for f in cov.all if f != TOTAL) + ([TOTAL] if TOTAL in cov.all else [])
    for name in names:
        a, h = cov.all[name], cov.held_out[name]
        cells = [f"{a.texts} ({h.texts})"] + [f"{a.outcomes[o]} ({h.outcomes[o]})" for o in OUTCOMES]
        share = f"{100 * a.outcomes['unknown'] / a.texts:.0f}%" if a.texts else "–"
        label = text("triage.coverage.total", lang) if name == TOTAL else name
        lines.append("| " + " | ".join([f"**{label}**" if name == TOTAL else label, *cells, share]) + " |")
    return "\n".join(lines)


def readme_block(cov: Coverage) -> str:
    """What goes between the README's markers: a line on what was measured, and the table."""
    total = cov.all.get(TOTAL, Counts())
    held = cov.held_out.get(TOTAL, Counts())
    rules = triage.load_rules()
    intro = text(
        "triage.coverage.intro",
        rules=len(rules),
        generic=sum(r.generic for r in rules),
        texts=total.texts,
        stacks=len(cov.stacks),
        families=len([f for f in cov.all if f != TOTAL]),
        held=held.texts,
    )
    return f"{README_MARKERS[0]}\n{intro}\n\n{table(cov)}\n{README_MARKERS[1]}"


def with_block(readme: str, block: str) -> str:
    """``readme`` with the text between the markers replaced by ``block``; a README without both markers, in
    order, is refused."""
    start, end = README_MARKERS
    a, b = readme.find(start), readme.find(end)
    if a < 0 or b < a:
        raise CorpusError(f"README.md: no {start} … {end} block to write the coverage table into")
    return readme[:a] + block + readme[b + len(end) :]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m toolkit.analysis.triage_coverage")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--readme", action="store_true", help="write the table into README.md")
    parser.add_argument("--check", action="store_true", help="exit 1 when README.md's table is not the corpus's")
    args = parser.parse_args(argv)
    try:
        cov = coverage(read_corpus(args.corpus))
        block = readme_block(cov)
        if args.readme or args.check:
            current = README.read_text(encoding="utf-8")
            updated = with_block(current, block)
            if args.check:
                return 0 if updated == current else 1
            if updated != current:
                README.write_text(updated, encoding="utf-8")
            return 0
    except InputError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(block)
    return 0


__all__ = [
    "CORPUS",
    "OUTCOMES",
    "README_MARKERS",
    "TOTAL",
    "CorpusError",
    "Counts",
    "Coverage",
    "Entry",
    "agrees",
    "coverage",
    "main",
    "outcome",
    "read_corpus",
    "readme_block",
    "table",
    "with_block",
]

if __name__ == "__main__":
    sys.exit(main())
