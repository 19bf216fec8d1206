"""A report a postmortem reader can use: the demo's before-fix report leads with the verdict, the root
causes and (HTML) the figure; the provenance shows its settled answers and one line per open question,
``--detail`` gives every row, and the HTML keeps everything, folded where long.

The layout in a real browser (no sideways scroll at 1,280 px, the figure near the top) is checked in
``tests/e2e/test_lab_browser.py``, with the one browser the suite starts."""

from __future__ import annotations

import re
from html import unescape

import pytest
from conftest import DEMO_BEFORE, REPO

from toolkit.analysis.provenance import table
from toolkit.analysis.verify import verify
from toolkit.capture import load_captures
from toolkit.layers.config import load_settings
from toolkit.present import report
from toolkit.present.cli import main

SEEDS = (
    "invalid justification: expected a non-empty sentence",
    'sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current '
    '"danger-full-access" mode',
    'model "gw-coder" does not declare image input',
)


@pytest.fixture(scope="module")
def before():
    settings = load_settings(REPO / "data/dsh-before-fix/settings.yaml", dsh="0.1.0-rc.8", env={})
    paths = [REPO / "data/dsh-before-fix/capture.har", REPO / "data/dsh-before-fix/session.jsonl.zstd"]
    capture = load_captures(paths)
    v = verify(settings, capture, dsh="0.1.0-rc.8")
    prov = table(settings, captures=paths[:1], sessions=paths[1:])
    return v, prov, capture


@pytest.fixture
def _cli(capsys, monkeypatch):
    """``verify`` with the demo's before-fix inputs (``make demo``'s), from the repository."""
    monkeypatch.chdir(REPO)

    def run(*extra):
        code = main(["verify", *DEMO_BEFORE, *extra])
        return code, capsys.readouterr().out

    return run


def test_the_default_text_report_fits_and_leads_with_the_causes(_cli):
    code, out = _cli()
    lines = out.splitlines()
    assert code == 1 and lines[0] == "agent-contract verify: FAIL"
    assert len(lines) <= 70  # was 161, with 118 provenance lines
    head = "\n".join(lines[:12])
    assert lines[3] == "ROOT CAUSES (the failing layers, in the order a request meets them)"
    assert [ln.split(":")[0].strip() for ln in lines[4:12] if re.match(r"\s+\d\.", ln)] == [
        "1. serialization",
        "2. capability",
        "3. execution",
    ]
    for seed in SEEDS:  # the three texts the incident was reported by, on the first screen
        assert seed in head


def test_detail_lists_every_provenance_row(_cli, before):
    _, prov, _ = before
    _, out = _cli("--detail")
    section = out.split("WHO CHANGED WHAT", 1)[1].splitlines()[1:]
    assert len([ln for ln in section if " — " in ln]) == len(prov) == 118


def test_folding_keeps_every_field_and_every_answer(before):
    _, prov, _ = before
    folded = report.fold_provenance(prov)
    assert len(folded) < len(prov) / 4
    for r in prov.itertuples(index=False):  # each row is in exactly one line, with its own answer
        homes = [f for f in folded if f.question == r.question and f.settled == r.settled and r.field in f.fields]
        assert len(homes) == 1 and str(r.answer) in map(str, homes[0].answers)
    open_questions = [f.question for f in folded if not f.settled]
    assert len(open_questions) == len(set(open_questions))  # one line per open question
    assert [f.settled for f in folded] == sorted((f.settled for f in folded), reverse=True)  # settled first


def test_a_folded_line_counts_the_fields_it_does_not_name(_cli):
    _, out = _cli()
    line = next(ln for ln in out.splitlines() if "who changed the schema" in ln)
    assert line.startswith("  ? 34 fields (bash.strict, bash.sandbox_permissions, bash.justification and 31 more)")


def test_markdown_leads_with_the_causes_and_folds(_cli):
    _, md = _cli("--format", "markdown")
    lines = md.splitlines()
    assert len(lines) <= 100  # was 193
    assert lines[2] == "**Result: failing**"
    assert "**Root causes (the failing layers, in the order a request meets them):**" in lines[:8]
    _, full = _cli("--format", "markdown", "--detail")
    assert len(full.splitlines()) > len(lines) + 100


def test_html_keeps_everything_folded_where_long(before):
    v, prov, capture = before
    inputs = report.Inputs("s", ["c"], ["x"], None, "0.1.0-rc.8", prov)
    html = report.to_html(v, inputs, capture)
    order = [html.index(x) for x in ("Root causes", 'alt="timeline', '<table class="agent-contract-verdict"')]
    assert order == sorted(order)  # the causes, the figure, then the layers
    details = html[html.index("<summary>Every field&#x27;s answers (118 rows)</summary>") :]
    assert details.count("<tr><td>") == len(prov)
    assert "overflow-wrap:anywhere" in html
    shown = unescape(html)
    for _, text in v.results[2].dsh_messages:  # every DSH text is still there, folded or not
        assert text in shown
    assert "<details><summary>" in html.split("<h2>Who changed what</h2>")[0]  # a long evidence list folded


def test_root_causes_markdown_never_says_more_than_the_run():
    assert report.root_causes_markdown(verify(None, None)) == "Inconclusive: no layer could be checked."
    after = load_settings(REPO / "data/dsh-after-fix/settings.yaml", dsh="0.1.0-rc.8", env={})
    text = report.root_causes_markdown(verify(after, None))
    assert text == "The checked layers pass (config); not checked: serialization, capability, execution."


def test_counts_of_one_read_as_one(before):
    v, _, _ = before
    capability = v.results[2]
    assert capability.summary == "1 of 1 image request did not reach a model that takes it"  # was "requests ... them"
