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

from toolkit.analysis.verify import Verification
from toolkit.layers.execution import DEFAULT_DSH

__all__ = [
    "FIGURE_MISSING",
    "MARK",
    "REPORT_VERSION",
    "SCHEMA",
    "Inputs",
    "VerdictView",
    "exit_code",
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


def to_markdown(v: Verification, inputs: Inputs, *, title: str = TITLE) -> str:
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


def to_html(v: Verification, inputs: Inputs, capture: Any = None, *, title: str = TITLE) -> str:
    """One self-contained file: styles inline, the summary figure embedded as a PNG data URL (or, without
    matplotlib, a note saying the figure is left out and how to get it)."""
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
        f"{verdict_html(v)}{_provenance_html(inputs)}{img}</body></html>\n"
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
    import base64
    import io

    import matplotlib

    matplotlib.use("Agg", force=False)
    from toolkit.present.plots import summary_figure

    fig = summary_figure(capture)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")
