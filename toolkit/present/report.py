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

from toolkit.analysis.verify import Verification
from toolkit.layers.execution import DEFAULT_DSH

__all__ = [
    "DRY_RUN_TEXT",
    "EXPERIMENT_NOT_IN_JSON",
    "EXPERIMENT_TITLE",
    "FIGURE_MISSING",
    "MARK",
    "REPORT_VERSION",
    "SCHEMA",
    "Inputs",
    "VerdictView",
    "exit_code",
    "experiment_html",
    "experiment_markdown",
    "experiment_rate",
    "experiment_sentence",
    "figure_available",
    "json_schema",
    "to_html",
    "to_json",
    "to_markdown",
    "to_text",
    "verdict_html",
    "view",
]

SCHEMA = "knowledge/verify_report.schema.json"
REPORT_VERSION = 2  # 2: each layer lists ``dsh_messages``
MARK = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail", "no evidence": "➖ no evidence"}
EXTRA = "pip install 'agent-contract-toolkit[notebooks]'"
FIGURE_MISSING = f"The summary figure is left out: it needs matplotlib ({EXTRA})."
TITLE = "Agent tool-call contract: four-layer verdict"


@dataclass
class Inputs:
    settings: str | None
    captures: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    mode: str | None = None
    dsh: str = DEFAULT_DSH
    provenance: Any = None  # toolkit.analysis.provenance.table(...) rows (a DataFrame), when computed
    gateway_config: str | None = None  # the LiteLLM proxy config.yaml given beside the settings


def exit_code(v: Verification) -> int:
    return 0 if v.ok else 1


def _dsh_line(entry: str, text: str) -> str:
    return f"DSH says ({entry}): {text}"


# ---- text ---------------------------------------------------------------------------------------


def to_text(v: Verification, inputs: Inputs) -> str:
    lines = [f"agent-contract verify: {'all layers pass' if v.ok else 'FAIL'}", _inputs_line(inputs), ""]
    for r in v.results:
        lines.append(f"{r.layer.upper():14} {r.verdict.upper():12} {r.summary}")
        lines += [f"    - {e}" for e in r.evidence]
        lines += [f"    - {_dsh_line(entry, text)}" for entry, text in r.dsh_messages]
        lines += [f"    fix: {f}" for f in r.fix]
        lines.append("")
    prov = _provenance(inputs)
    if prov is not None:
        lines.append("WHO CHANGED WHAT (provenance; ? = not settled by the evidence)")
        for r in prov.itertuples(index=False):
            lines.append(f"  {'' if r.settled else '? '}{r.field} — {r.question}: {r.answer}")
    return "\n".join(lines).rstrip() + "\n"


def _provenance(inputs: Inputs):
    prov = inputs.provenance
    return prov if prov is not None and len(prov) else None


def _inputs_line(i: Inputs) -> str:
    parts = [f"settings {i.settings or '(none)'}"]
    if i.gateway_config:
        parts.append(f"gateway config {i.gateway_config}")
    if i.captures:
        parts.append("captures " + ", ".join(i.captures))
    if i.sessions:
        parts.append("sessions " + ", ".join(i.sessions))
    parts.append(f"mode {i.mode or '(from the sessions only)'}; DSH {i.dsh}")
    return "; ".join(parts)


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


def to_markdown(v: Verification, inputs: Inputs, *, title: str = TITLE, experiment: Any = None) -> str:
    """The verdict as Markdown; with ``experiment`` (a ``toolkit.experiment.run.ExperimentResult``) its
    section follows (``experiment_markdown``)."""
    out = [
        f"## {title}",
        "",
        f"**Result: {'all layers pass' if v.ok else 'failing'}**",
        "",
        f"Inputs: {_md(_inputs_line(inputs))}",
        "",
        "| layer | verdict | summary |",
        "| --- | --- | --- |",
    ]
    out += [f"| {r.layer} | {MARK[r.verdict]} | {_md(r.summary)} |" for r in v.results]
    for r in v.results:
        if not r.evidence and not r.fix and not r.dsh_messages:
            continue
        out += ["", f"### {r.layer}: {r.verdict}", ""]
        out += [f"- {_md(e)}" for e in r.evidence]
        if r.dsh_messages:
            out += ["", "**What DSH says, by entry point:**", ""]
            out += [f"- {_md(entry)}: {_md_code(text)}" for entry, text in r.dsh_messages]
        if r.fix:
            out += ["", "**Fix:**", ""] + [f"- {_md(f)}" for f in r.fix]
    prov = _provenance(inputs)
    if prov is not None:
        out += ["", "### Who changed what", "", "| field | question | answer | settled |", "| --- | --- | --- | --- |"]
        out += [
            f"| {_md(r.field)} | {r.question} | {_md(r.answer)} | {'yes' if r.settled else '**no**'} |"
            for r in prov.itertuples(index=False)
        ]
    if experiment is not None:
        out += ["", experiment_markdown(experiment).rstrip("\n")]
    return "\n".join(out) + "\n"


# ---- JSON ---------------------------------------------------------------------------------------


def to_json(v: Verification, inputs: Inputs) -> dict:
    return {
        "report": "agent-contract-verify",
        "version": REPORT_VERSION,
        "ok": v.ok,
        "exit_code": exit_code(v),
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
                "summary": r.summary,
                "evidence": list(r.evidence),
                "dsh_messages": [{"entry_point": entry, "text": text} for entry, text in r.dsh_messages],
                "fix": list(r.fix),
            }
            for r in v.results
        ],
        "provenance": []
        if _provenance(inputs) is None
        else [
            {
                "field": r.field,
                "question": str(r.question),
                "answer": r.answer,
                "actor": None if r.actor is None or r.actor != r.actor else r.actor,
                "layer": r.layer,
                "settled": bool(r.settled),
                "evidence": r.evidence,
            }
            for r in inputs.provenance.itertuples(index=False)
        ],
    }


def json_schema() -> dict:
    from importlib.resources import files

    return json.loads(files("toolkit").joinpath(SCHEMA).read_text(encoding="utf-8"))


# ---- HTML ---------------------------------------------------------------------------------------

_COLOUR = {"pass": "#1a7f37", "warn": "#9a6700", "fail": "#cf222e", "no evidence": "#57606a"}


def verdict_html(v: Verification) -> str:
    """The verdict table: one row per layer with the verdict, the summary, the evidence (DSH's texts by
    entry point among it) and the fix, as lists. Escaped; the notebooks show it through ``view``."""
    out = [
        '<table class="agent-contract-verdict"><thead><tr><th>layer</th><th>verdict</th>'
        "<th>what the evidence says</th><th>fix</th></tr></thead><tbody>"
    ]
    for r in v.results:
        items = "".join(f"<li>{escape(e)}</li>" for e in r.evidence)
        items += "".join(
            f"<li>DSH says (<i>{escape(entry)}</i>): <code>{escape(text)}</code></li>" for entry, text in r.dsh_messages
        )
        fixes = "".join(f"<li>{escape(f)}</li>" for f in r.fix)
        out.append(
            f'<tr><td>{escape(r.layer)}</td><td style="color:{_COLOUR[r.verdict]};font-weight:bold">'
            f'{escape(r.verdict)}</td><td style="text-align:left"><b>{escape(r.summary)}</b><ul>{items}</ul></td>'
            f'<td style="text-align:left"><ul>{fixes}</ul></td></tr>'
        )
    out.append("</tbody></table>")
    return "".join(out)


@dataclass(frozen=True)
class VerdictView:
    """A ``Verification`` as a notebook shows it: the verdict table as HTML, the text report as repr."""

    verification: Verification

    def _repr_html_(self) -> str:
        return verdict_html(self.verification)

    def __repr__(self) -> str:
        return repr(self.verification)


def view(v: Verification) -> VerdictView:
    """What to end a notebook cell with to see the verdict as a table."""
    return VerdictView(v)


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;color:#1f2328}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.5em;vertical-align:top;text-align:left}
ul{margin:.3em 0;padding-left:1.2em}img{max-width:100%}code{background:#f6f8fa;padding:0 .2em}
.meta{color:#57606a}"""


def figure_available() -> bool:
    """Whether the HTML report can draw its figure (matplotlib, from the ``notebooks`` extra)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def to_html(v: Verification, inputs: Inputs, capture: Any = None, *, title: str = TITLE, experiment: Any = None) -> str:
    """One self-contained file: styles inline, the summary figure embedded as a PNG data URL (or, without
    matplotlib, a note saying the figure is left out and how to get it); with ``experiment`` its section
    (``experiment_html``) after the captures."""
    img = ""
    if capture is not None and len(capture.exchanges):
        if figure_available():
            img = (
                '<h2>The captures</h2><img alt="timeline, errors by layer and strict states" '
                f'src="data:image/png;base64,{_figure_png(capture)}">'
            )
        else:
            img = f'<h2>The captures</h2><p class="meta">{escape(FIGURE_MISSING)}</p>'
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"
        f'<p class="meta">{escape(_inputs_line(inputs))}</p>'
        f"<p><b>{'All layers pass.' if v.ok else 'At least one layer fails.'}</b></p>"
        f"{verdict_html(v)}{_provenance_html(inputs)}{img}"
        f"{'' if experiment is None else experiment_html(experiment)}</body></html>\n"
    )


def _provenance_html(inputs: Inputs) -> str:
    prov = _provenance(inputs)
    if prov is None:
        return ""
    rows = "".join(
        f"<tr><td>{escape(r.field)}</td><td>{escape(str(r.question))}</td><td>{escape(r.answer)}</td>"
        f"<td>{'yes' if r.settled else '<b>no</b>'}</td><td>{escape(r.evidence)}</td></tr>"
        for r in prov.itertuples(index=False)
    )
    return (
        "<h2>Who changed what</h2><table><thead><tr><th>field</th><th>question</th><th>answer</th><th>settled</th>"
        f"<th>evidence</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _figure_png(capture) -> str:
    import matplotlib

    matplotlib.use("Agg", force=False)
    from toolkit.present.plots import summary_figure

    return _png(summary_figure(capture))


def _png(fig) -> str:
    """A Figure as base64 PNG, without the matplotlib version in its metadata (same bytes on rebuild)."""
    import base64
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


# ---- the experiment -----------------------------------------------------------------------------

EXPERIMENT_TITLE = "Experiment: the same request, variants of the contract"
DRY_RUN_TEXT = "A dry run: nothing was sent. Give an endpoint to send the variants."
EXPERIMENT_NOT_IN_JSON = "the JSON report has no experiment section: use --format markdown or html"
_CHANGE_COLUMNS = ("tool", "path", "kind", "before", "after")
_COUNTED = (
    "Accepted and refused count the calls the model made, judged by DSH's own rules (the execution layer, in "
    "the session's mode); in brackets the 95% Wilson interval."
)
_SUMMARY_HEAD = ("variant", "requests", "answered", "errors", "calls", "accepted", "refused", "filled empty")


def experiment_rate(k, n, low, high) -> str:
    """A rate as the report writes it: ``"3 of 5 (23–88%)"``, the 95% Wilson interval in whole percent;
    ``"0 of 0"`` when there were no calls to count."""
    k, n = _int(k), _int(n)
    if not n or _missing(low) or _missing(high):
        return f"{k} of {n}"
    return f"{k} of {n} ({float(low) * 100:.0f}–{float(high) * 100:.0f}%)"


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


def _sent_facts(result) -> list[tuple[str, str, str]]:
    """What was sent where and when, from the manifest: (label, code, text) triples, ``code`` shown in
    code formatting (paths, ids, the URL: exact, and never a link that would fetch), ``text`` after it.
    The endpoint is shown as scheme, host, port and path only: a query string may carry a key."""
    from urllib.parse import urlsplit

    m = dict(getattr(result, "manifest", None) or {})
    facts: list[tuple[str, str, str]] = []
    sha = m.get("capture_sha256")
    if m.get("capture"):
        facts.append(("capture", str(m["capture"]), f" (sha256 {str(sha)[:12]}…)" if sha else ""))
    if m.get("exchange"):
        facts.append(("exchange", str(m["exchange"]), ""))
    endpoint = m.get("endpoint")
    if endpoint:
        u = urlsplit(str(endpoint))
        host = (u.hostname or "") + (f":{u.port}" if u.port else "")  # no user:password, no query
        facts.append(("endpoint", f"{u.scheme}://{host}{u.path}" if u.scheme else str(endpoint), ""))
    else:
        facts.append(("endpoint", "", "none (dry run: nothing was sent)"))
    names = [v.name for v in getattr(result, "variants", None) or []] or list(m.get("variants") or [])
    if names:
        facts.append(("variants", "", ", ".join(names)))
    if m.get("samples") is not None:
        facts.append(("samples", "", f"{m['samples']} per variant, interleaved"))
    if m.get("mode") or m.get("dsh"):
        judged = f"DSH {m['dsh']}'s rules" if m.get("dsh") else "DSH's rules"
        facts.append(("judged by", "", judged + (f" in {m['mode']}" if m.get("mode") else "")))
    if m.get("started") or m.get("finished"):
        facts.append(("when", "", f"{m.get('started') or '?'} to {m.get('finished') or '?'} (UTC)"))
    if "complete" in m:
        facts.append(("complete", "", "yes" if m["complete"] else "no: stopped early, what was sent is recorded"))
    return facts


_TOOL_INDEX = re.compile(r"^\$\.tools\[\d+\]")
_GROUPED = 3  # more tools than this with the same change: one row naming them


def _change_rows(result) -> list[tuple[str, list[list[str]]]]:
    """Per variant its changes (hops.diff's vocabulary) as rows of text; no rows: nothing to change.
    The same change on more than ``_GROUPED`` tools is one row (``$.tools[*]``, the tools counted and
    named); every single change is in the folder's changes.csv."""
    out = []
    for var in getattr(result, "variants", None) or []:
        rows = [[_text(getattr(c, col)) for col in _CHANGE_COLUMNS] for c in var.changes.itertuples(index=False)]
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
                shown.append([f"{len(names)} tools: {', '.join(names[:3])}, …, {names[-1]}", *key])
        out.append((var.name, shown))
    return out


def _group_key(row: list[str]) -> tuple[str, ...]:
    return (_TOOL_INDEX.sub("$.tools[*]", row[1]), *row[2:])


def _no_change_text(variant) -> str:
    return (
        "the captured request as it is"
        if variant.name == "as-captured"
        else "nothing to change: the same body as captured (sent all the same, so the comparison keeps its arm)"
    )


def _summary_rows(summary) -> list[list[str]]:
    rows = []
    for r in summary.itertuples(index=False):
        rows.append(
            [
                str(r.variant),
                str(_int(r.samples)),
                str(_int(r.answered)),
                str(_int(r.errors)),
                str(_int(r.calls)),
                experiment_rate(r.accepted, r.calls, r.accepted_low, r.accepted_high),
                experiment_rate(r.refused, r.calls, r.refused_low, r.refused_high),
                str(_int(r.filled_empty)),
            ]
        )
    return rows


def _top_rules(summary) -> list[tuple[str, str]]:
    return [(str(r.variant), str(r.top_rule)) for r in summary.itertuples(index=False) if not _missing(r.top_rule)]


def _sentence(result) -> str | None:
    comparison = getattr(result, "comparison", None)
    if isinstance(comparison, dict):
        return comparison.get("sentence")
    return None


def experiment_sentence(result) -> str:
    """The experiment in one line (``verify --experiment`` text output): the comparison's sentence, or
    when there is none (one variant) each variant's refused count."""
    sentence = _sentence(result)
    if sentence:
        return sentence
    return "; ".join(
        f"{r.variant}: {experiment_rate(r.refused, r.calls, r.refused_low, r.refused_high)} calls refused"
        for r in result.summary.itertuples(index=False)
    )


def _dry(result) -> bool:
    return bool((getattr(result, "manifest", None) or {}).get("dry_run"))


def experiment_markdown(result) -> str:
    """The experiment (``toolkit.experiment.run.ExperimentResult``) as a Markdown section: what was
    sent where, what each variant changed, what came back per variant with its intervals, DSH's most
    frequent refusal verbatim, and the comparison sentence. The figure is the HTML's (and ``refusals.png``)."""
    out = [f"## {EXPERIMENT_TITLE}", ""]
    out += [f"- {label}: {_md_code(code) if code else ''}{_md(text)}" for label, code, text in _sent_facts(result)]
    out += ["", "### What each variant changed", ""]
    for var, (name, rows) in zip(result.variants, _change_rows(result)):
        if not rows:
            out.append(f"- **{_md(name)}**: {_no_change_text(var)}")
    changed = [(name, rows) for name, rows in _change_rows(result) if rows]
    if changed:
        out += ["", "| variant | " + " | ".join(_CHANGE_COLUMNS) + " |", "| --- " * (len(_CHANGE_COLUMNS) + 1) + "|"]
        for name, rows in changed:
            out += [f"| {_md(name)} | " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    out += ["", "### What came back", ""]
    if _dry(result):
        out += [DRY_RUN_TEXT]
        return "\n".join(out) + "\n"
    out += ["| " + " | ".join(_SUMMARY_HEAD) + " |", "| --- " * len(_SUMMARY_HEAD) + "|"]
    out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in _summary_rows(result.summary)]
    out += ["", _COUNTED]
    rules = _top_rules(result.summary)
    if rules:
        out += ["", "The most frequent refusal, as DSH words it:", ""]
        out += [f"- {_md(name)}: {_md_code(text)}" for name, text in rules]
    sentence = _sentence(result)
    if sentence:
        out += ["", f"**{_md(sentence)}**"]
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    """A changes-table cell: JSON values in a code span (exact), empty as an em dash."""
    return _md_code(text).replace("|", "\\|") if text else "—"


def experiment_html(result) -> str:
    """The experiment as an HTML section (escaped), the figure (``plots.experiment_rates``) embedded as a
    PNG data URL, or without matplotlib a note saying it is left out."""
    facts = "".join(
        f"<li>{escape(label)}: {f'<code>{escape(code)}</code>' if code else ''}{escape(text)}</li>"
        for label, code, text in _sent_facts(result)
    )
    changes = []
    for var, (name, rows) in zip(result.variants, _change_rows(result)):
        if not rows:
            changes.append(
                f'<tr><td>{escape(name)}</td><td colspan="5"><i>{escape(_no_change_text(var))}</i></td></tr>'
            )
        for row in rows:
            cells = "".join(f"<td><code>{escape(c)}</code></td>" if c else "<td>—</td>" for c in row)
            changes.append(f"<tr><td>{escape(name)}</td>{cells}</tr>")
    head = "".join(f"<th>{escape(c)}</th>" for c in ("variant", *_CHANGE_COLUMNS))
    summary_head = "".join(f"<th>{escape(c)}</th>" for c in _SUMMARY_HEAD)
    summary_rows = "".join(
        "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in _summary_rows(result.summary)
    )
    came_back = (
        f"<p>{escape(DRY_RUN_TEXT)}</p>"
        if _dry(result)
        else f"<table><thead><tr>{summary_head}</tr></thead><tbody>{summary_rows}</tbody></table>"
        f'<p class="meta">{escape(_COUNTED)}</p>'
    )
    rules = _top_rules(result.summary)
    rules_html = (
        "<p>The most frequent refusal, as DSH words it:</p><ul>"
        + "".join(f"<li>{escape(name)}: <code>{escape(text)}</code></li>" for name, text in rules)
        + "</ul>"
        if rules
        else ""
    )
    sentence = _sentence(result)
    if _dry(result):
        figure = ""
    elif figure_available():
        import matplotlib

        matplotlib.use("Agg", force=False)
        from toolkit.present.plots import experiment_rates

        figure = (
            '<img alt="refused and accepted share of calls per variant, with 95% Wilson intervals" '
            f'src="data:image/png;base64,{_png(experiment_rates(result.summary))}">'
        )
    else:
        figure = f'<p class="meta">{escape(FIGURE_MISSING)}</p>'
    return (
        f'<section class="agent-contract-experiment"><h2>{escape(EXPERIMENT_TITLE)}</h2><ul class="meta">{facts}</ul>'
        f"<h3>What each variant changed</h3><table><thead><tr>{head}</tr></thead><tbody>{''.join(changes)}</tbody></table>"
        f"<h3>What came back</h3>{came_back}"
        f"{rules_html}{'' if not sentence else f'<p><b>{escape(sentence)}</b></p>'}{figure}</section>"
    )
