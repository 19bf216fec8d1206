"""The verdict as text, Markdown, JSON (``knowledge/verify_report.schema.json``) or one self-contained
HTML file. All rendering of a ``Verification`` lives here: ``toolkit.analysis.verify`` returns data only.

Every format lists, per layer, each text DSH shows for the cause with its entry point
(``LayerResult.dsh_messages``), so a user can search the report for the message they saw. Everything
shown is already redacted by the layers below.

The HTML report embeds a summary figure drawn with matplotlib, which comes with the ``notebooks``
extra. Without it the report is written without the figure and says so (``FIGURE_MISSING``); the
other formats never need it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html import escape
from typing import Any

import pandas as pd

from toolkit.analysis.verify import LayerResult, Verification
from toolkit.knowledge.messages import counted, render, text
from toolkit.layers.execution import DEFAULT_DSH
from toolkit.present import i18n

__all__ = [
    "DRY_RUN_TEXT",
    "EXIT_CODES",
    "EXPERIMENT_NOT_IN_JSON",
    "EXPERIMENT_TITLE",
    "FIGURE_MISSING",
    "MARK",
    "REPORT_VERSION",
    "SCHEMA",
    "Folded",
    "Inputs",
    "VerdictView",
    "exit_code",
    "experiment_html",
    "experiment_markdown",
    "experiment_rate",
    "experiment_sentence",
    "figure_available",
    "fold_provenance",
    "json_schema",
    "root_causes_markdown",
    "to_html",
    "to_json",
    "to_markdown",
    "to_text",
    "verdict_html",
    "view",
]

SCHEMA = "knowledge/verify_report.schema.json"
REPORT_VERSION = 3  # 2: each layer lists ``dsh_messages``; 3: ``verdict``, ``not_checked``, a layer's ``needs``
MARK = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail", "not checked": "➖ not checked"}
#: the exit code of each overall verdict (``Verification.overall``); 2 is bad usage or input, 130 an
#: interrupt (the README's table)
EXIT_CODES = {"pass": 0, "fail": 1, "inconclusive": 3}
EXTRA = "pip install 'agent-contract-toolkit[notebooks]'"
FIGURE_MISSING = text("report.figure_missing", extra=EXTRA)  # the English texts: toolkit.knowledge.messages
TITLE = text("report.title")


@dataclass
class Inputs:
    settings: str | None
    captures: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    mode: str | None = None
    dsh: str = DEFAULT_DSH
    provenance: Any = None  # toolkit.analysis.provenance.table(...) rows (a DataFrame), when computed
    gateway_config: str | None = None  # the LiteLLM proxy config.yaml given beside the settings
    #: the options that take each layer's input, by layer (the CLI's): a not-checked layer's "needs" names them
    options: dict[str, str] | None = None


def exit_code(v: Verification) -> int:
    return EXIT_CODES[v.overall]


def _names(layers: list[str], lang: str) -> str:
    return text("report.list_sep", lang).join(text(f"layer.{layer}", lang) for layer in layers)


def _status(v: Verification, lang: str, fail_key: str, *, html: bool = False) -> str:
    """The run's verdict in one phrase: every layer passed, some failed, the checked ones passed (and
    which were not checked), or nothing could be checked (no word "pass" then)."""
    if v.overall == "fail":
        return text(fail_key, lang)
    if v.overall == "inconclusive":
        return text("report.html.inconclusive" if html else "report.inconclusive", lang)
    if not v.not_checked:
        return text("report.html.all_pass" if html else "report.all_pass", lang)
    unchecked = [r.layer for r in v.not_checked]
    key = "report.html.partial_pass" if html else "report.partial_pass"
    return text(key, lang, checked=_names(v.checked, lang), unchecked=_names(unchecked, lang))


def _needs(r: LayerResult, inputs: Inputs | None, lang: str, *, label: bool = True) -> str:
    """What input would check the layer ``r``, with the options that take it when the CLI gave them;
    ``label``: after "needs:" (the reports' lines), else alone (the JSON's ``needs``)."""
    needs = _r(r.needs or "", lang)
    option = (inputs.options or {}).get(r.layer) if inputs is not None else None
    if not label:
        return f"{needs} ({option})" if option else needs
    return (
        text("report.needs_flags", lang, needs=needs, flags=option)
        if option
        else text("report.needs", lang, needs=needs)
    )


def _lang(lang: str | None) -> str:
    """The language to write in: the one asked for, else ``i18n.language()`` (English by default)."""
    return i18n.language() if lang is None else lang


def _r(s: str, lang: str) -> str:
    """A sentence the toolkit wrote (a ``Message``) in ``lang``; other text (upstream, data) as it is."""
    return render(s, lang)


def _question(q: Any, lang: str) -> str:
    """A provenance question (the table keeps it in English, as an identifier) in ``lang``."""
    return text(f"provenance.question.{q}", lang)


def _layer(r: LayerResult, lang: str) -> str:
    return text(f"layer.{r.layer}", lang)


def _verdict(r: LayerResult, lang: str) -> str:
    return text(f"verdict.{r.verdict}", lang)


def _dsh_line(entry: str, dsh_text: str, lang: str = "en") -> str:
    return text("report.dsh_says", lang, entry=entry, dsh_text=dsh_text)


def _colon(lang: str) -> str:
    """A label's colon: full-width in Chinese."""
    return ": " if lang == "en" else "："


def _pad(s: str, width: int) -> str:
    """``s`` left-aligned in ``width`` terminal columns (a CJK character takes two)."""
    import unicodedata

    cols = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
    return s + " " * max(width - cols, 0)


# ---- text ---------------------------------------------------------------------------------------


def to_text(v: Verification, inputs: Inputs, *, lang: str | None = None, detail: bool = False) -> str:
    """The verdict as plain text in ``lang`` (default ``i18n.language()``); DSH's texts verbatim. It leads
    with the verdict and the root causes; the provenance shows its settled answers and one line per
    unsettled question (``detail``: every field's every answer)."""
    lang = _lang(lang)
    status = _status(v, lang, "report.text.fail")
    lines = [text("report.text.head", lang, status=status), _inputs_line(inputs, lang), ""]
    causes = v.root_causes
    if causes:
        lines.append(text("report.text.root_causes", lang))
        for i, (r, said) in enumerate(causes, 1):
            lines.append(f"  {i}. {_layer(r, lang)}{_colon(lang)}{_r(r.summary, lang)}")
            lines += [f"     {_dsh_line(entry, dsh_text, lang)}" for entry, dsh_text in said]
        lines.append("")
    for r in v.results:
        lines.append(f"{_pad(_layer(r, lang).upper(), 14)} {_pad(_verdict(r, lang).upper(), 12)} {_r(r.summary, lang)}")
        if not r.checked:
            lines.append(f"    - {_needs(r, inputs, lang)}")
        lines += [f"    - {_r(e, lang)}" for e in r.evidence]
        lines += [f"    - {_dsh_line(entry, dsh_text, lang)}" for entry, dsh_text in r.dsh_messages]
        lines += [text("report.text.fix", lang, fix=_r(f, lang)) for f in r.fix]
        lines.append("")
    prov = _provenance(inputs)
    if prov is not None and detail:
        lines.append(text("report.text.provenance", lang))
        for r in prov.itertuples(index=False):
            q, answer = _question(r.question, lang), _r(r.answer, lang)
            lines.append(f"  {'' if r.settled else '? '}{r.field} — {text('report.text.qa', lang, q=q, answer=answer)}")
    elif prov is not None:
        lines.append(text("report.text.provenance_folded", lang))
        for f in fold_provenance(prov):
            q, answers = _question(f.question, lang), _answers(f, lang)
            line = text("report.text.qa", lang, q=q, answer=answers)
            lines.append(f"  {'' if f.settled else '? '}{_fields(f.fields, f.settled, lang)} — {line}")
    return "\n".join(lines).rstrip() + "\n"


@dataclass(frozen=True)
class Folded:
    """One line of the folded provenance: a settled answer and every field it answers, or one unsettled
    question with every field it stays open for and the distinct answers (each says what would settle it)."""

    question: str
    settled: bool
    fields: list[str]
    answers: list[Any]  # the answers, as Messages, each once in the order met
    evidence: list[Any]


def fold_provenance(prov: pd.DataFrame) -> list[Folded]:
    """The provenance table in as many lines as it has different answers: settled rows with the same
    question and answer fold into one line naming their fields, and every unsettled row of a question
    into one line; settled lines first, each group in the order the table met it."""
    groups: dict[tuple, Folded] = {}
    for r in prov.itertuples(index=False):
        key = (r.question, True, str(r.answer)) if r.settled else (r.question, False)
        if key not in groups:
            groups[key] = Folded(str(r.question), bool(r.settled), [], [], [])
        g = groups[key]
        if r.field not in g.fields:
            g.fields.append(str(r.field))
        if str(r.answer) not in map(str, g.answers):
            g.answers.append(r.answer)
            g.evidence.append(r.evidence)
    return [g for g in groups.values() if g.settled] + [g for g in groups.values() if not g.settled]


#: how many fields a folded line names before it counts the rest
_SHOWN_FIELDS = 3


def _fields(fields: list[str], settled: bool, lang: str) -> str:
    shown = ", ".join(fields[:_SHOWN_FIELDS])
    if len(fields) > _SHOWN_FIELDS:
        shown = text("report.fields_more", lang, fields=shown, n=len(fields) - _SHOWN_FIELDS)
    if settled:
        return shown
    return text(counted("report.unsettled_for", len(fields)), lang, n=len(fields), fields=shown)


def _answers(f: Folded, lang: str) -> str:
    return " / ".join(_r(a, lang) for a in f.answers)


def _provenance(inputs: Inputs):
    prov = inputs.provenance
    return prov if prov is not None and len(prov) else None


def _inputs_line(i: Inputs, lang: str = "en") -> str:
    parts = [text("report.inputs.settings", lang, path=i.settings or text("report.inputs.none", lang))]
    if i.gateway_config:
        parts.append(text("report.inputs.gateway", lang, path=i.gateway_config))
    if i.captures:
        parts.append(text("report.inputs.captures", lang, paths=", ".join(i.captures)))
    if i.sessions:
        parts.append(text("report.inputs.sessions", lang, paths=", ".join(i.sessions)))
    parts.append(text("report.inputs.mode", lang, mode=i.mode or text("report.inputs.sessions_only", lang), dsh=i.dsh))
    return ("; " if lang == "en" else "；").join(parts)


# ---- Markdown -----------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Inline Markdown that pastes cleanly: pipes escaped, backticks kept, no raw HTML."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _md_code(text: str) -> str:
    """A code span holding ``text`` character for character (DSH's texts: searchable as shown)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _mark(verdict: str, lang: str) -> str:
    return MARK[verdict] if lang == "en" else f"{MARK[verdict].split(' ', 1)[0]} {text(f'verdict.{verdict}', lang)}"


def _heads(lang: str, *keys: str) -> list[str]:
    return [text(f"report.col.{k}", lang) for k in keys]


def to_markdown(
    v: Verification,
    inputs: Inputs,
    *,
    title: str | None = None,
    experiment: Any = None,
    lang: str | None = None,
    detail: bool = False,
) -> str:
    """The verdict as Markdown in ``lang`` (default ``i18n.language()``): the result and the root causes
    first, the provenance folded as in the text report (``detail``: every row); with ``experiment`` (a
    ``toolkit.experiment.run.ExperimentResult``) its section follows (``experiment_markdown``)."""
    lang = _lang(lang)
    title = text("report.title", lang) if title is None else title
    colon = _colon(lang)
    out = [
        f"## {title}",
        "",
        text("report.markdown.result", lang, status=_status(v, lang, "report.failing")),
        "",
        text("report.markdown.inputs", lang, inputs=_md(_inputs_line(inputs, lang))),
        "",
    ]
    if v.root_causes:
        out += [f"**{text('report.root_causes', lang)}{colon.rstrip()}**", "", root_causes_markdown(v, lang=lang), ""]
    out += [
        "| " + " | ".join(_heads(lang, "layer", "verdict", "summary")) + " |",
        "| --- | --- | --- |",
    ]
    out += [f"| {_layer(r, lang)} | {_mark(r.verdict, lang)} | {_md(_r(r.summary, lang))} |" for r in v.results]
    if v.not_checked:
        out += ["", f"**{text('report.not_checked', lang)}{colon.rstrip()}**", ""]
        out += [f"- {_layer(r, lang)}{colon}{_md(_needs(r, inputs, lang))}" for r in v.not_checked]
    for r in v.results:
        if not r.evidence and not r.fix and not r.dsh_messages:
            continue
        out += ["", f"### {_layer(r, lang)}{colon}{_verdict(r, lang)}", ""]
        out += [f"- {_md(_r(e, lang))}" for e in r.evidence]
        if r.dsh_messages:
            out += ["", text("report.markdown.dsh_by_entry", lang), ""]
            out += [f"- {_md(entry)}{_colon(lang)}{_md_code(dsh_text)}" for entry, dsh_text in r.dsh_messages]
        if r.fix:
            out += ["", text("report.markdown.fix", lang), ""] + [f"- {_md(_r(f, lang))}" for f in r.fix]
    prov = _provenance(inputs)
    if prov is not None:
        heads = _heads(lang, "field", "question", "answer", "settled")
        out += [
            "",
            f"### {text('report.provenance', lang)}",
            "",
            "| " + " | ".join(heads) + " |",
            "| --- | --- | --- | --- |",
        ]
        yes, no = text("report.yes", lang), f"**{text('report.no', lang)}**"
        if detail:
            out += [
                f"| {_md(r.field)} | {_question(r.question, lang)} | {_md(_r(r.answer, lang))} | {yes if r.settled else no} |"
                for r in prov.itertuples(index=False)
            ]
        else:
            out += [
                f"| {_md(_fields(f.fields, f.settled, lang))} | {_question(f.question, lang)} | "
                f"{_md(_answers(f, lang))} | {yes if f.settled else no} |"
                for f in fold_provenance(prov)
            ]
    if experiment is not None:
        out += ["", experiment_markdown(experiment, lang=lang).rstrip("\n")]
    return "\n".join(out) + "\n"


def root_causes_markdown(v: Verification, *, lang: str | None = None) -> str:
    """The failing layers in the order a request meets them, each with DSH's texts for its cause, as a
    numbered Markdown list (``Verification.root_causes``); what the postmortem leads its causes with. When
    nothing failed, the run's verdict in one phrase instead (never "no layer failed" for a run that
    checked nothing)."""
    lang = _lang(lang)
    colon = _colon(lang)
    if not v.root_causes:
        return _status(v, lang, "report.failing", html=True)
    out = []
    for i, (r, said) in enumerate(v.root_causes, 1):
        out.append(f"{i}. {_layer(r, lang)}{colon}{_md(_r(r.summary, lang))}")
        out += [f"   - {_md(entry)}{colon}{_md_code(dsh_text)}" for entry, dsh_text in said]
    return "\n".join(out)


# ---- JSON ---------------------------------------------------------------------------------------


def to_json(v: Verification, inputs: Inputs) -> dict:
    """The verdict as data, always in English whatever the language: its keys and verdict words are the
    schema's (``knowledge/verify_report.schema.json``), and tools read it, not people."""
    return {
        "report": "agent-contract-verify",
        "version": REPORT_VERSION,
        "ok": v.ok,
        "verdict": v.overall,
        "exit_code": exit_code(v),
        "not_checked": [r.layer for r in v.not_checked],
        "inputs": {
            "settings": inputs.settings,
            "captures": list(inputs.captures),
            "sessions": list(inputs.sessions),
            "mode": inputs.mode,
            "dsh": inputs.dsh,
            "gateway_config": inputs.gateway_config,
        },
        "layers": [
            {
                "layer": r.layer,
                "verdict": r.verdict,
                "summary": str(r.summary),
                "evidence": [str(e) for e in r.evidence],
                "dsh_messages": [{"entry_point": entry, "text": dsh_text} for entry, dsh_text in r.dsh_messages],
                "fix": [str(f) for f in r.fix],
                "needs": None if r.checked else _needs(r, inputs, "en", label=False),
            }
            for r in v.results
        ],
        "provenance": []
        if _provenance(inputs) is None
        else [
            {
                "field": r.field,
                "question": str(r.question),
                "answer": str(r.answer),
                "actor": None if r.actor is None or r.actor != r.actor else r.actor,
                "layer": r.layer,
                "settled": bool(r.settled),
                "evidence": str(r.evidence),
            }
            for r in inputs.provenance.itertuples(index=False)
        ],
    }


def json_schema() -> dict:
    from importlib.resources import files

    return json.loads(files("toolkit").joinpath(SCHEMA).read_text(encoding="utf-8"))


# ---- HTML ---------------------------------------------------------------------------------------

_COLOUR = {"pass": "#1a7f37", "warn": "#9a6700", "fail": "#cf222e", "not checked": "#57606a"}


def verdict_html(
    v: Verification, *, lang: str | None = None, inputs: Inputs | None = None, collapse: int | None = None
) -> str:
    """The verdict table: one row per layer with the verdict, the summary, the evidence (DSH's texts by
    entry point among it) and the fix, as lists, in ``lang`` (default ``i18n.language()``). Escaped; the
    notebooks show it through ``view``."""
    lang = _lang(lang)
    heads = "".join(f"<th>{escape(h)}</th>" for h in _heads(lang, "layer", "verdict", "evidence_says", "fix"))
    out = [f'<table class="agent-contract-verdict"><thead><tr>{heads}</tr></thead><tbody>']
    for r in v.results:
        lines = [] if r.checked else [escape(_needs(r, inputs, lang))]
        lines += [escape(_r(e, lang)) for e in r.evidence]
        lines += [
            _dsh_line(f"<i>{escape(entry)}</i>", f"<code>{escape(dsh_text)}</code>", lang)
            for entry, dsh_text in r.dsh_messages
        ]
        items = _items(lines, collapse, lang)
        fixes = "".join(f"<li>{escape(_r(f, lang))}</li>" for f in r.fix)
        out.append(
            f'<tr><td>{escape(_layer(r, lang))}</td><td style="color:{_COLOUR[r.verdict]};font-weight:bold">'
            f'{escape(_verdict(r, lang))}</td><td style="text-align:left"><b>{escape(_r(r.summary, lang))}</b>'
            f'{items}</td><td style="text-align:left"><ul>{fixes}</ul></td></tr>'
        )
    out.append("</tbody></table>")
    return "".join(out)


def _items(lines: list[str], collapse: int | None, lang: str) -> str:
    """Escaped lines as a list; past ``collapse`` of them, the rest folded in a ``<details>`` (kept, not cut)."""
    if collapse is None or len(lines) <= collapse:
        return "<ul>" + "".join(f"<li>{x}</li>" for x in lines) + "</ul>"
    shown = "".join(f"<li>{x}</li>" for x in lines[:collapse])
    rest = "".join(f"<li>{x}</li>" for x in lines[collapse:])
    more = escape(text("report.html.more", lang, n=len(lines) - collapse))
    return f"<ul>{shown}</ul><details><summary>{more}</summary><ul>{rest}</ul></details>"


@dataclass(frozen=True)
class VerdictView:
    """A ``Verification`` as a notebook shows it: the verdict table as HTML, one line per layer as repr,
    in ``lang`` (default: ``i18n.language()`` when shown)."""

    verification: Verification
    lang: str | None = None

    def _repr_html_(self) -> str:
        status = escape(_status(self.verification, _lang(self.lang), "report.html.some_fail", html=True))
        return f"<p><b>{status}</b></p>" + verdict_html(self.verification, lang=self.lang)

    def __repr__(self) -> str:
        lang = _lang(self.lang)
        if lang == "en":
            return repr(self.verification)
        status = _status(self.verification, lang, "report.html.some_fail", html=True)
        return "\n".join(
            [status]
            + [
                f"{_pad(_layer(r, lang), 13)} {_pad(_verdict(r, lang), 11)} {_r(r.summary, lang)}"
                for r in self.verification.results
            ]
        )


def view(v: Verification, *, lang: str | None = None) -> VerdictView:
    """What to end a notebook cell with to see the verdict as a table (in the notebook's language)."""
    return VerdictView(v, lang)


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;color:#1f2328}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.5em;vertical-align:top;text-align:left;overflow-wrap:anywhere}
ul{margin:.3em 0;padding-left:1.2em}img{max-width:100%}code{background:#f6f8fa;padding:0 .2em;white-space:pre-wrap}
.meta{color:#57606a}summary{cursor:pointer;color:#0969da}details{margin:.3em 0}"""


def figure_available() -> bool:
    """Whether the HTML report can draw its figure (matplotlib, from the ``notebooks`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _figure_missing(lang: str) -> str:
    return text("report.figure_missing", lang, extra=EXTRA)


def to_html(
    v: Verification,
    inputs: Inputs,
    capture: Any = None,
    *,
    title: str | None = None,
    experiment: Any = None,
    lang: str | None = None,
) -> str:
    """One self-contained file in ``lang`` (default ``i18n.language()``): styles inline, the summary figure
    embedded as a PNG data URL (or, without matplotlib, a note saying the figure is left out and how to
    get it); with ``experiment`` its section (``experiment_html``) after the captures. It leads with the
    verdict, the root causes and the figure; long lists and the provenance's every row are folded into
    ``<details>`` (all there, collapsed), and tables wrap to the page."""
    lang = _lang(lang)
    title = text("report.title", lang) if title is None else title
    img = ""
    captures = escape(text("report.html.captures", lang))
    if capture is not None and len(capture.exchanges):
        if figure_available():
            img = (
                f'<h2>{captures}</h2><img alt="{escape(text("report.html.figure_alt", lang))}" '
                f'src="data:image/png;base64,{_figure_png(capture, lang)}">'
            )
        else:
            img = f'<h2>{captures}</h2><p class="meta">{escape(_figure_missing(lang))}</p>'
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"
        f'<p class="meta">{escape(_inputs_line(inputs, lang))}</p>'
        f"<p><b>{escape(_status(v, lang, 'report.html.some_fail', html=True))}</b></p>"
        f"{_root_causes_html(v, lang)}{img}"
        f"<h2>{escape(text('report.html.layers', lang))}</h2>"
        f"{verdict_html(v, lang=lang, inputs=inputs, collapse=_COLLAPSE)}{_provenance_html(inputs, lang)}"
        f"{'' if experiment is None else experiment_html(experiment, lang=lang)}</body></html>\n"
    )


#: how many lines of a layer's evidence the HTML report shows before folding the rest
_COLLAPSE = 6


def _root_causes_html(v: Verification, lang: str) -> str:
    if not v.root_causes:
        return ""
    items = "".join(
        f"<li><b>{escape(_layer(r, lang))}</b>{_colon(lang)}{escape(_r(r.summary, lang))}"
        + _items([_dsh_line(f"<i>{escape(e)}</i>", f"<code>{escape(t)}</code>", lang) for e, t in said], None, lang)
        + "</li>"
        for r, said in v.root_causes
    )
    return f"<h2>{escape(text('report.root_causes', lang))}</h2><ol>{items}</ol>"


def _provenance_html(inputs: Inputs, lang: str = "en") -> str:
    """The folded provenance (as the text report's), then every row in a collapsed ``<details>``."""
    prov = _provenance(inputs)
    if prov is None:
        return ""
    yes, no = escape(text("report.yes", lang)), f"<b>{escape(text('report.no', lang))}</b>"
    folded = "".join(
        f"<tr><td>{escape(_fields(f.fields, f.settled, lang))}</td><td>{escape(_question(f.question, lang))}</td>"
        f"<td>{escape(_answers(f, lang))}</td><td>{yes if f.settled else no}</td>"
        f"<td>{escape(' / '.join(_r(e, lang) for e in f.evidence))}</td></tr>"
        for f in fold_provenance(prov)
    )
    rows = "".join(
        f"<tr><td>{escape(r.field)}</td><td>{escape(_question(r.question, lang))}</td>"
        f"<td>{escape(_r(r.answer, lang))}</td><td>{yes if r.settled else no}</td>"
        f"<td>{escape(_r(r.evidence, lang))}</td></tr>"
        for r in prov.itertuples(index=False)
    )
    heads = "".join(f"<th>{escape(h)}</th>" for h in _heads(lang, "field", "question", "answer", "settled", "evidence"))
    every = escape(text("report.provenance_all", lang, n=len(prov)))
    return (
        f"<h2>{escape(text('report.provenance', lang))}</h2><table><thead><tr>{heads}</tr></thead>"
        f"<tbody>{folded}</tbody></table><details><summary>{every}</summary><table><thead><tr>{heads}</tr>"
        f"</thead><tbody>{rows}</tbody></table></details>"
    )


def _figure_png(capture, lang: str = "en") -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    from toolkit.present.plots import summary_figure

    return _png(summary_figure(capture, lang=lang))


def _png(fig) -> str:
    """A Figure as base64 PNG, without the matplotlib version in its metadata (same bytes on rebuild)."""
    import base64
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


# ---- the experiment -----------------------------------------------------------------------------

EXPERIMENT_TITLE = text("experiment.title")
DRY_RUN_TEXT = text("experiment.dry_run")
EXPERIMENT_NOT_IN_JSON = text("experiment.not_in_json")
_CHANGE_COLUMNS = ("tool", "path", "kind", "before", "after")
_SUMMARY_HEAD = ("variant", "requests", "answered", "errors", "calls", "judged", "accepted", "refused", "filled empty")


def experiment_rate(k, n, low, high, *, lang: str = "en") -> str:
    """A rate as the report writes it: ``"3 of 5 (23–88%)"``, the 95% Wilson interval in whole percent;
    ``"0 of 0"`` when there were no calls to count."""
    k, n = _int(k), _int(n)
    if not n or _missing(low) or _missing(high):
        return text("experiment.rate", lang, k=k, n=n)
    low, high = f"{float(low) * 100:.0f}", f"{float(high) * 100:.0f}"
    return text("experiment.rate_interval", lang, k=k, n=n, low=low, high=high)


def _int(v) -> int:
    return 0 if _missing(v) else int(v)


def _missing(v) -> bool:
    if v is None or v is pd.NA:
        return True
    try:
        return bool(v != v)  # NaN
    except (TypeError, ValueError):
        return False


def _text(v) -> str:
    return "" if _missing(v) else str(v)


def _sent_facts(result, lang: str = "en") -> list[tuple[str, str, str]]:
    """What was sent where and when, from the manifest: (label, code, text) triples, ``code`` shown in
    code formatting (paths, ids, the URL: exact, and never a link that would fetch), ``text`` after it.
    The endpoint is shown as scheme, host, port and path only: a query string may carry a key."""
    from urllib.parse import urlsplit

    m = dict(getattr(result, "manifest", None) or {})
    facts: list[tuple[str, str, str]] = []

    def fact(label: str, code: str, txt: str) -> None:
        facts.append((text(f"experiment.fact.{label}", lang), code, txt))

    sha = m.get("capture_sha256")
    if m.get("capture"):
        fact("capture", str(m["capture"]), text("experiment.sha", lang, sha=str(sha)[:12]) if sha else "")
    if m.get("exchange"):
        fact("exchange", str(m["exchange"]), "")
    endpoint = m.get("endpoint")
    if endpoint:
        u = urlsplit(str(endpoint))
        host = (u.hostname or "") + (f":{u.port}" if u.port else "")  # no user:password, no query
        fact("endpoint", f"{u.scheme}://{host}{u.path}" if u.scheme else str(endpoint), "")
    else:
        fact("endpoint", "", text("experiment.no_endpoint", lang))
    names = [v.name for v in getattr(result, "variants", None) or []] or list(m.get("variants") or [])
    if names:
        fact("variants", "", ", ".join(names))
    if m.get("samples") is not None:
        fact("samples", "", text("experiment.samples", lang, n=m["samples"]))
    if m.get("mode") or m.get("dsh"):
        judged = (
            text("experiment.rules_version", lang, dsh=m["dsh"]) if m.get("dsh") else text("experiment.rules", lang)
        )
        if m.get("mode"):
            judged = text("experiment.rules_mode", lang, rules=judged, mode=m["mode"])
        fact("judged_by", "", judged)
    if m.get("started") or m.get("finished"):
        fact(
            "when",
            "",
            text("experiment.when", lang, started=m.get("started") or "?", finished=m.get("finished") or "?"),
        )
    if "complete" in m:
        fact("complete", "", text("report.yes", lang) if m["complete"] else text("experiment.incomplete", lang))
    return facts


_TOOL_INDEX = re.compile(r"^\$\.tools\[\d+\]")
_GROUPED = 3  # more tools than this with the same change: one row naming them


def _change_rows(result, lang: str = "en") -> list[tuple[str, list[list[str]]]]:
    """Per variant its changes (hops.diff's vocabulary) as rows of text; no rows: nothing to change.
    The same change on more than ``_GROUPED`` tools is one row (``$.tools[*]``, the tools counted and
    named); every single change is in the folder's changes.csv."""
    out = []
    for var in getattr(result, "variants", None) or []:
        rows = [[_text(getattr(c, col)) for col in _CHANGE_COLUMNS] for c in var.changes.itertuples(index=False)]
        for row in rows:  # hops.diff's kind (changes.csv keeps the English value) in the reader's language
            row[2] = text(f"hops.kind.{row[2]}", lang) if row[2] else row[2]
        groups: dict[tuple[str, ...], list[str]] = {}
        for row in rows:
            groups.setdefault(_group_key(row), []).append(row[0])
        shown, done = [], set()
        for row in rows:  # in the order of the changes; a group where its first member was
            key = _group_key(row)
            names = groups[key]
            if len(names) <= _GROUPED:
                shown.append(row)
            elif key not in done:
                done.add(key)
                listed = f"{', '.join(names[:3])}, …, {names[-1]}"
                shown.append([text("experiment.grouped", lang, n=len(names), names=listed), *key])
        out.append((var.name, shown))
    return out


def _group_key(row: list[str]) -> tuple[str, ...]:
    return (_TOOL_INDEX.sub("$.tools[*]", row[1]), *row[2:])


def _no_change_text(variant, lang: str = "en") -> str:
    return text("experiment.as_captured" if variant.name == "as-captured" else "experiment.nothing_to_change", lang)


def _summary_rows(summary, lang: str = "en") -> list[list[str]]:
    rows = []
    for r in summary.itertuples(index=False):
        rows.append(
            [
                str(r.variant),
                str(_int(r.samples)),
                str(_int(r.answered)),
                str(_int(r.errors)),
                str(_int(r.calls)),
                str(_int(r.judged)),
                experiment_rate(r.accepted, r.judged, r.accepted_low, r.accepted_high, lang=lang),
                experiment_rate(r.refused, r.judged, r.refused_low, r.refused_high, lang=lang),
                str(_int(r.filled_empty)),
            ]
        )
    return rows


def _top_rules(summary) -> list[tuple[str, str]]:
    return [(str(r.variant), str(r.top_rule)) for r in summary.itertuples(index=False) if not _missing(r.top_rule)]


def _sentence(result, lang: str = "en") -> str | None:
    """The comparison's sentence (``judge.compare``'s ``Message``) in ``lang``; None without a comparison."""
    comparison = getattr(result, "comparison", None)
    if isinstance(comparison, dict) and comparison.get("sentence"):
        return _r(comparison["sentence"], lang)
    return None


def experiment_sentence(result, *, lang: str | None = None) -> str:
    """The experiment in one line (``verify --experiment`` text output): the comparison's sentence, or
    when there is none (one variant) each variant's refused count; a run that was stopped or judged
    nothing says so first."""
    lang = _lang(lang)
    verdict = _run_verdict(result, lang)
    sentence = _sentence(result, lang)
    if sentence:
        return f"{verdict} {sentence}" if verdict else sentence
    counts = "; ".join(
        text(
            "experiment.refused_calls",
            lang,
            variant=r.variant,
            rate=experiment_rate(r.refused, r.judged, r.refused_low, r.refused_high, lang=lang),
        )
        for r in result.summary.itertuples(index=False)
    )
    return f"{verdict} {counts}" if verdict else counts


def _dry(result) -> bool:
    return bool((getattr(result, "manifest", None) or {}).get("dry_run"))


def _run_verdict(result, lang: str = "en") -> str | None:
    """A run the endpoint stopped, or one where nothing could be judged, says so first (no rate is a result
    then); None for a run that measured something."""
    m = getattr(result, "manifest", None) or {}
    if m.get("verdict") == "stopped":
        return text("experiment.stopped", lang, why=_r((m.get("stopped") or {}).get("why", "?"), lang))
    if m.get("verdict") == "inconclusive":
        return text("experiment.inconclusive", lang)
    return None


def _cols(lang: str, names) -> list[str]:
    return [text(f"experiment.col.{c}", lang) for c in names]


def experiment_markdown(result, *, lang: str | None = None) -> str:
    """The experiment (``toolkit.experiment.run.ExperimentResult``) as a Markdown section in ``lang``
    (default ``i18n.language()``): what was sent where, what each variant changed, what came back per
    variant with its intervals, DSH's most frequent refusal verbatim, and the comparison sentence (the
    experiment's own, in English). The figure is the HTML's (and ``refusals.png``)."""
    lang = _lang(lang)
    out = [f"## {text('experiment.title', lang)}", ""]
    c = _colon(lang)
    out += [f"- {label}{c}{_md_code(code) if code else ''}{_md(txt)}" for label, code, txt in _sent_facts(result, lang)]
    out += ["", f"### {text('experiment.changed', lang)}", ""]
    for var, (name, rows) in zip(result.variants, _change_rows(result, lang)):
        if not rows:
            out.append(f"- **{_md(name)}**: {_no_change_text(var, lang)}")
    changed = [(name, rows) for name, rows in _change_rows(result, lang) if rows]
    if changed:
        heads = _cols(lang, ("variant", *_CHANGE_COLUMNS))
        out += ["", "| " + " | ".join(heads) + " |", "| --- " * (len(_CHANGE_COLUMNS) + 1) + "|"]
        for name, rows in changed:
            out += [f"| {_md(name)} | " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    out += ["", f"### {text('experiment.came_back', lang)}", ""]
    if _dry(result):
        out += [text("experiment.dry_run", lang)]
        return "\n".join(out) + "\n"
    verdict = _run_verdict(result, lang)
    if verdict:
        out += [f"**{_md(verdict)}**", ""]
    out += ["| " + " | ".join(_cols(lang, _SUMMARY_HEAD)) + " |", "| --- " * len(_SUMMARY_HEAD) + "|"]
    out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in _summary_rows(result.summary, lang)]
    out += ["", text("experiment.counted", lang), "", text("experiment.assumptions", lang)]
    rules = _top_rules(result.summary)
    if rules:
        out += ["", text("experiment.top_rule", lang), ""]
        out += [f"- {_md(name)}{_colon(lang)}{_md_code(rule)}" for name, rule in rules]
    sentence = _sentence(result, lang)
    if sentence:
        out += ["", f"**{_md(sentence)}**"]
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    """A changes-table cell: JSON values in a code span (exact), empty as an em dash."""
    return _md_code(text).replace("|", "\\|") if text else "—"


def experiment_html(result, *, lang: str | None = None) -> str:
    """The experiment as an HTML section (escaped) in ``lang`` (default ``i18n.language()``), the figure
    (``plots.experiment_rates``) embedded as a PNG data URL, or without matplotlib a note saying it is
    left out."""
    lang = _lang(lang)
    facts = "".join(
        f"<li>{escape(label)}{_colon(lang)}{f'<code>{escape(code)}</code>' if code else ''}{escape(txt)}</li>"
        for label, code, txt in _sent_facts(result, lang)
    )
    changes = []
    for var, (name, rows) in zip(result.variants, _change_rows(result, lang)):
        if not rows:
            changes.append(
                f'<tr><td>{escape(name)}</td><td colspan="5"><i>{escape(_no_change_text(var, lang))}</i></td></tr>'
            )
        for row in rows:
            cells = "".join(f"<td><code>{escape(c)}</code></td>" if c else "<td>—</td>" for c in row)
            changes.append(f"<tr><td>{escape(name)}</td>{cells}</tr>")
    head = "".join(f"<th>{escape(c)}</th>" for c in _cols(lang, ("variant", *_CHANGE_COLUMNS)))
    summary_head = "".join(f"<th>{escape(c)}</th>" for c in _cols(lang, _SUMMARY_HEAD))
    summary_rows = "".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in _summary_rows(result.summary, lang)
    )
    verdict = _run_verdict(result, lang)
    came_back = (
        f"<p>{escape(text('experiment.dry_run', lang))}</p>"
        if _dry(result)
        else ("" if not verdict else f"<p><b>{escape(verdict)}</b></p>")
        + f"<table><thead><tr>{summary_head}</tr></thead><tbody>{summary_rows}</tbody></table>"
        f'<p class="meta">{escape(text("experiment.counted", lang))}</p>'
        f'<p class="meta">{escape(text("experiment.assumptions", lang))}</p>'
    )
    rules = _top_rules(result.summary)
    rules_html = (
        f"<p>{escape(text('experiment.top_rule', lang))}</p><ul>"
        + "".join(f"<li>{escape(name)}{_colon(lang)}<code>{escape(rule)}</code></li>" for name, rule in rules)
        + "</ul>"
        if rules
        else ""
    )
    sentence = _sentence(result, lang)
    if _dry(result):
        figure = ""
    elif figure_available():
        import matplotlib

        matplotlib.use("Agg", force=False)
        from toolkit.present.plots import experiment_rates

        figure = (
            f'<img alt="{escape(text("experiment.figure_alt", lang))}" '
            f'src="data:image/png;base64,{_png(experiment_rates(result.summary, lang=lang))}">'
        )
    else:
        figure = f'<p class="meta">{escape(_figure_missing(lang))}</p>'
    return (
        f'<section class="agent-contract-experiment"><h2>{escape(text("experiment.title", lang))}</h2>'
        f'<ul class="meta">{facts}</ul>'
        f"<h3>{escape(text('experiment.changed', lang))}</h3><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(changes)}</tbody></table>"
        f"<h3>{escape(text('experiment.came_back', lang))}</h3>{came_back}"
        f"{rules_html}{'' if not sentence else f'<p><b>{escape(sentence)}</b></p>'}{figure}</section>"
    )
