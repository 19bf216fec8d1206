"""The verdict as text, Markdown, JSON (``knowledge/verify_report.schema.json``) or one self-contained
HTML file. Presentation only: everything shown is already redacted by the layers below."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html import escape

from toolkit.analysis.verify import Verification

SCHEMA = "knowledge/verify_report.schema.json"
MARK = {"pass": "✅ pass", "warn": "⚠️ warn", "fail": "❌ fail", "no evidence": "➖ no evidence"}


@dataclass
class Inputs:
    settings: str | None
    captures: list[str] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    mode: str | None = None
    dsh: str = "0.1.1-rc.2"
    provenance: object = None  # toolkit.analysis.provenance.table(...) rows, when computed


def exit_code(v: Verification) -> int:
    return 0 if v.ok else 1


def to_text(v: Verification, inputs: Inputs) -> str:
    lines = [f"agent-contract verify: {'all layers pass' if v.ok else 'FAIL'}", _inputs_line(inputs), ""]
    for r in v.results:
        lines.append(f"{r.layer.upper():14} {r.verdict.upper():12} {r.summary}")
        lines += [f"    - {e}" for e in r.evidence]
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
    if i.captures:
        parts.append("captures " + ", ".join(i.captures))
    if i.sessions:
        parts.append("sessions " + ", ".join(i.sessions))
    parts.append(f"mode {i.mode or '(from the sessions only)'}; DSH {i.dsh}")
    return "; ".join(parts)


def _md(text: str) -> str:
    """Inline Markdown that pastes cleanly: pipes escaped, backticks kept, no raw HTML."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def to_markdown(v: Verification, inputs: Inputs, *, title: str = "Agent tool-call contract: four-layer verdict") -> str:
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
        if not r.evidence and not r.fix:
            continue
        out += ["", f"### {r.layer}: {r.verdict}", ""]
        out += [f"- {_md(e)}" for e in r.evidence]
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


def to_json(v: Verification, inputs: Inputs) -> dict:
    return {
        "report": "agent-contract-verify",
        "version": 1,
        "ok": v.ok,
        "exit_code": exit_code(v),
        "inputs": {
            "settings": inputs.settings,
            "captures": list(inputs.captures),
            "sessions": list(inputs.sessions),
            "mode": inputs.mode,
            "dsh": inputs.dsh,
        },
        "layers": [
            {
                "layer": r.layer,
                "verdict": r.verdict,
                "summary": r.summary,
                "evidence": list(r.evidence),
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


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1100px;color:#1f2328}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.5em;vertical-align:top;text-align:left}
ul{margin:.3em 0;padding-left:1.2em}img{max-width:100%}code{background:#f6f8fa;padding:0 .2em}
.meta{color:#57606a}"""


def to_html(
    v: Verification, inputs: Inputs, capture=None, *, title: str = "Agent tool-call contract: four-layer verdict"
) -> str:
    """One self-contained file: styles inline, the summary figure embedded as a PNG data URL."""
    figure = _figure_png(capture) if capture is not None and len(capture.exchanges) else ""
    img = (
        f'<h2>The captures</h2><img alt="timeline, errors by layer and strict states" src="data:image/png;base64,{figure}">'
        if figure
        else ""
    )
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"
        f'<p class="meta">{escape(_inputs_line(inputs))}</p>'
        f"<p><b>{'All layers pass.' if v.ok else 'At least one layer fails.'}</b></p>"
        f"{v._repr_html_()}{_provenance_html(inputs)}{img}</body></html>\n"
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
