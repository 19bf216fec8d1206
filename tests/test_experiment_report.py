"""The experiment in the reports: its Markdown and HTML sections, its figure, and ``verify --experiment``.

The results are real: the experiment runs against the lab gateway (lab/gateway.py) on 127.0.0.1, on the
first model step of the published DSH's before-fix capture, and the sections are compared with the
result's own frames and with the texts the real DSH run recorded, never with numbers typed in here.
"""

from __future__ import annotations

import base64
import importlib.util
import re
import threading
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from conftest import DEMO_BEFORE_HTTP, REPO
from matplotlib.container import BarContainer

import toolkit
from toolkit.errors import InputError
from toolkit.experiment import SUMMARY, stats
from toolkit.experiment.run import load, run
from toolkit.experiment.send import Limits
from toolkit.present import cli, plots, report

CAPTURE = REPO / "data" / "dsh-before-fix" / "capture.har"
SESSION = REPO / "data" / "dsh-before-fix" / "session.jsonl.zstd"
EXCHANGE = "capture.har:1"  # capture.har:0 is DSH's session-title request, without tools
VARIANTS = ["strict-absent", "strict-false", "prune-schema"]
MODE = "danger-full-access"
DSH = "0.1.0-rc.8"  # the release that recorded the capture
SAMPLES = 3

_spec = importlib.util.spec_from_file_location("lab_gateway_for_reports", REPO / "lab" / "gateway.py")
gateway = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gateway)


def _clock():
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    n = iter(range(10**6))
    return lambda: start + timedelta(seconds=next(n))


@pytest.fixture(scope="module")
def base():
    server = gateway.make_server(0, clock="2026-12-01T09:00:00Z", seed=7)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def _experiment(base: str, route: str, out: Path):
    return run(
        CAPTURE,
        exchange=EXCHANGE,
        endpoint=f"{base}/{route}/v1/responses",
        variants=VARIANTS,
        samples=SAMPLES,
        mode=MODE,
        dsh=DSH,
        out=out,
        limits=Limits(rate=200),
        progress=False,
        now=_clock(),
        notice=lambda text: None,
    )


@pytest.fixture(scope="module")
def before(base, tmp_path_factory):
    return _experiment(base, "absent-is-strict", tmp_path_factory.mktemp("before"))


@pytest.fixture(scope="module")
def after(base, tmp_path_factory):
    return _experiment(base, "passthrough", tmp_path_factory.mktemp("after"))


@pytest.fixture(scope="module")
def dry():
    return run(CAPTURE, exchange=EXCHANGE, variants=VARIANTS, samples=SAMPLES, mode=MODE, dsh=DSH)


@pytest.fixture(autouse=True)
def _no_pyplot_leaks():
    assert plt.get_fignums() == []
    yield
    plt.close("all")


def _dsh_refusal() -> str:
    """The refusal the published DSH wrote into its own session log for the empty justification."""
    session = toolkit.load_capture(SESSION)
    texts = [t for t in session.tool_results["text"].dropna() if "justification" in t]
    assert texts, "the before-fix session log has no justification refusal"
    return texts[0].removeprefix("Error: ")


class _Text(HTMLParser):
    """An HTML page's text, the way a reader sees it (entities decoded, tags gone)."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.images: list[str] = []

    def handle_data(self, data):
        self.parts.append(data)

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])


def _read_html(html: str) -> _Text:
    parser = _Text()
    parser.feed(html)
    return parser


# ---- the rate as the report writes it ------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "text"), [(0, 5, "0 of 5 (0–43%)"), (5, 5, "5 of 5 (57–100%)"), (3, 5, "3 of 5 (23–88%)")]
)
def test_a_rate_reads_k_of_n_with_its_wilson_interval(k, n, text):
    # the values of EXPERIMENT.md's example sentence; Wilson 1927 bounds at z = 1.96
    assert report.experiment_rate(k, n, *stats.wilson(k, n)) == text


def test_a_rate_without_calls_has_no_interval():
    assert report.experiment_rate(0, 0, *stats.wilson(0, 0)) == "0 of 0"


# ---- Markdown and HTML from a real run -----------------------------------------------------------


def test_the_before_fix_route_refuses_only_the_absent_strict_variant(before):
    """What the sections below render: the lab's scripted persona against DSH's rules (not typed in)."""
    s = before.summary.set_index("variant")
    assert list(before.summary["variant"]) == VARIANTS
    assert s.loc["strict-absent", "refused"] == s.loc["strict-absent", "calls"] == SAMPLES
    assert s.loc["strict-false", "refused"] == 0 and s.loc["prune-schema", "refused"] == 0
    assert s.loc["strict-absent", "top_rule"] == _dsh_refusal()


def test_markdown_section_has_what_was_sent_the_changes_the_rates_and_the_verdict(before):
    md = report.experiment_markdown(before)
    assert md.startswith(f"## {report.EXPERIMENT_TITLE}\n")
    sha = before.manifest["capture_sha256"]
    assert f"- capture: `{CAPTURE}` (sha256 {sha[:12]}…)" in md and f"- exchange: `{EXCHANGE}`" in md
    assert f"- samples: {SAMPLES} per variant, interleaved" in md
    assert f"- judged by: DSH {DSH}'s rules in {MODE}" in md
    assert f"- endpoint: `{before.manifest['endpoint']}`" in md  # in code: exact, and never a link
    # the changes: strict-absent had nothing to change; strict-false one row for all 25 tools
    assert "- **strict-absent**: nothing to change" in md
    n_tools = before.variants[1].changes["tool"].nunique()
    assert (
        f"| strict-false | `{n_tools} tools: bash, create_goal, edit, …, write` | `$.tools[*].strict` | `strict added` | — | `false` |"
        in md
    )
    pruned = before.variants[2].changes
    for row in pruned.itertuples():
        assert f"| prune-schema | `{row.tool}` | `{row.path}` | `{row.kind}` |" in md
    # one summary row per variant, the rates as "k of n (low–high%)" from the result's own frame
    for r in before.summary.itertuples():
        accepted = report.experiment_rate(r.accepted, r.judged, r.accepted_low, r.accepted_high)
        refused = report.experiment_rate(r.refused, r.judged, r.refused_low, r.refused_high)
        row = f"| {r.variant} | {r.samples} | {r.answered} | {r.errors} | {r.calls} | {r.judged} | {accepted} | {refused} |"
        assert row in md
    assert f"- strict-absent: `{_dsh_refusal()}`" in md  # DSH's text verbatim, in code
    assert f"**{before.comparison['sentence']}**" in md


def test_html_section_says_the_same_and_embeds_the_figure(before):
    html = report.experiment_html(before)
    page = _read_html(html)
    text = "".join(page.parts)
    assert report.EXPERIMENT_TITLE in text and before.comparison["sentence"] in text
    assert _dsh_refusal() in text
    for r in before.summary.itertuples():
        assert report.experiment_rate(r.refused, r.judged, r.refused_low, r.refused_high) in text
    assert len(page.images) == 1 and page.images[0].startswith("data:image/png;base64,")
    png = base64.b64decode(page.images[0].split(",", 1)[1])
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert report.experiment_html(before) == html  # the same bytes on every render


def test_after_the_fix_the_difference_disappears(after):
    s = after.summary
    assert (s["refused"] == 0).all() and (s["accepted"] == s["calls"]).all()
    md = report.experiment_markdown(after)
    assert "The most frequent refusal" not in md
    assert f"**{after.comparison['sentence']}**" in md


def test_a_dry_run_lists_the_changes_and_says_nothing_was_sent(dry):
    md = report.experiment_markdown(dry)
    assert "- endpoint: none (dry run: nothing was sent)" in md and "- when:" not in md
    assert md.rstrip().endswith(report.DRY_RUN_TEXT)
    assert "`strict added`" in md and "`property dropped`" in md
    html = report.experiment_html(dry)
    assert report.DRY_RUN_TEXT in html and "<img" not in html


def test_the_verdict_reports_include_the_section(before):
    from toolkit.analysis.verify import verify

    settings = toolkit.load_settings(REPO / "data" / "dsh-before-fix" / "settings.yaml", env={}, dsh="0.1.0-rc.8")
    v = verify(settings, None, dsh="0.1.0-rc.8")
    inputs = report.Inputs("settings.yaml")
    md = report.to_markdown(v, inputs, experiment=before)
    assert md.endswith(report.experiment_markdown(before))
    assert report.to_markdown(v, inputs) == md[: md.index(f"\n## {report.EXPERIMENT_TITLE}")]
    html = report.to_html(v, inputs, experiment=before)
    assert report.experiment_html(before) in html and html.endswith("</body></html>\n")
    assert report.EXPERIMENT_TITLE not in report.to_html(v, inputs)


# ---- the figure ------------------------------------------------------------------------------------


def test_the_figure_draws_each_rate_with_its_wilson_interval_and_k_of_n(before):
    fig = plots.experiment_rates(before.summary)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == VARIANTS
    containers = {c.get_label(): c for c in ax.containers if isinstance(c, BarContainer)}
    assert set(containers) == {"refused", "accepted"}
    for verdict, bars in containers.items():
        widths = [b.get_width() for b in bars.patches]
        assert widths == pytest.approx([float(x) for x in before.summary[f"{verdict}_rate"]])
        # the error bar of each bar spans exactly the Wilson interval of the summary
        segments = bars.errorbar.lines[2][0].get_segments()
        spans = [float(x) for seg in segments for x in (seg[0][0], seg[1][0])]
        expected = zip(before.summary[f"{verdict}_low"], before.summary[f"{verdict}_high"])
        assert spans == pytest.approx([float(x) for pair in expected for x in pair])
        labels = [t.get_text() for t in ax.texts if t.get_gid() == f"experiment-rate:{verdict}"]
        assert labels == [
            plots.experiment_rate_text(k, n, verdict) for k, n in zip(before.summary[verdict], before.summary["calls"])
        ]
    assert labels[0] == f"0 of {SAMPLES} accepted"  # strict-absent: none of its calls
    assert plt.get_fignums() == []  # not registered with pyplot


def test_the_figure_renders_to_the_same_png_twice(before):
    import io

    pngs = []
    for _ in range(2):
        buf = io.BytesIO()
        plots.experiment_rates(before.summary).savefig(buf, format="png", dpi=80, metadata={"Software": None})
        pngs.append(buf.getvalue())
    assert pngs[0] == pngs[1]


def test_the_figure_of_no_variants_says_so():
    fig = plots.experiment_rates(SUMMARY.empty())
    assert [t.get_text() for t in fig.axes[0].texts] == ["no variants"]


def test_the_figure_refuses_a_frame_that_is_not_a_summary(before):
    with pytest.raises(InputError, match=r"not an experiment\.summary frame"):
        plots.experiment_rates(before.answers)


# ---- verify --experiment ---------------------------------------------------------------------------


def _cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


VERIFY = ["verify", *DEMO_BEFORE_HTTP]


def test_verify_with_an_experiment_folder(before, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GATEWAY_API_KEY", raising=False)
    folder = str(before.out)
    loaded = load(folder)
    code, text, _ = _cli(capsys, *VERIFY, "--experiment", folder)
    assert code == 1
    lines = [line for line in text.splitlines() if line.startswith("experiment: ")]
    assert lines == [f"experiment: {loaded.comparison['sentence']}"]
    code, md, _ = _cli(capsys, *VERIFY, "--experiment", folder, "--format", "markdown")
    assert md.endswith(report.experiment_markdown(loaded))
    code, html, _ = _cli(capsys, *VERIFY, "--experiment", folder, "--format", "html")
    assert report.experiment_html(loaded) in html
    assert len(re.findall(r'src="data:image/png;base64,', html)) == 2  # the captures' figure and the experiment's
    code, _, err = _cli(capsys, *VERIFY, "--experiment", folder, "--format", "json")
    assert code == 1 and report.EXPERIMENT_NOT_IN_JSON in err


def test_verify_with_a_folder_that_is_no_experiment_is_bad_input(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    code, _, err = _cli(capsys, *VERIFY, "--experiment", str(tmp_path))
    assert code == 2 and err.startswith(f"agent-contract: error: {tmp_path}: not an experiment folder")


def test_the_bundled_experiment_reads_back_as_recorded(capsys, monkeypatch):
    """data/experiment-before-fix, judged again from its exchanges.jsonl, says what its manifest recorded."""
    import json

    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GATEWAY_API_KEY", raising=False)
    folder = REPO / "data" / "experiment-before-fix"
    recorded = json.loads((folder / "experiment.json").read_text(encoding="utf-8"))["comparison"]["sentence"]
    loaded = load(folder)
    md = report.experiment_markdown(loaded)
    assert f"**{recorded}**" in md and f"`{_dsh_refusal()}`" in md
    code, text, _ = _cli(capsys, *VERIFY, "--experiment", "data/experiment-before-fix")
    assert code == 1 and text.endswith(f"\nexperiment: {recorded}\n")
