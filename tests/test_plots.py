"""Plots are checked by their data (markers, bar widths, annotations, labels), never by pixels."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from toolkit import load_capture, load_captures
from toolkit.analysis import triage
from toolkit.capture import FRAME_NAMES, Capture, frames
from toolkit.capture.load import ENTRIES
from toolkit.errors import InputError
from toolkit.present import plots
from toolkit.wire.records import STRICT_STATES

DATA = Path(__file__).resolve().parents[1] / "data"
LAB = {
    "busy-day": [DATA / "busy-day" / "gateway.jsonl"],
    "dsh-before-fix": sorted(
        p for p in (DATA / "dsh-before-fix").iterdir() if p.suffix in (".har", ".jsonl", ".zstd", ".mitm")
    ),
    "other-apis": [DATA / "other-apis" / "capture.har"],
}


def _empty_capture() -> Capture:
    return Capture(
        **{n: frames.empty(n) for n in FRAME_NAMES},
        entries=ENTRIES.empty(),
    )


@pytest.fixture(autouse=True)
def _no_pyplot_leaks():
    assert plt.get_fignums() == [], "a previous test left pyplot figures open"
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def busy():
    return load_capture(LAB["busy-day"][0])


@pytest.fixture(scope="module", params=sorted(LAB))
def lab(request):
    paths = LAB[request.param]
    return load_captures(paths) if len(paths) > 1 else load_capture(paths[0])


@pytest.fixture(scope="module")
def empty():
    return _empty_capture()


def _legend_texts(ax) -> dict[str, list[str]]:
    legends = [a for a in ax.artists if isinstance(a, matplotlib.legend.Legend)]
    if ax.get_legend() is not None:
        legends.append(ax.get_legend())
    return {leg.get_title().get_text(): [t.get_text() for t in leg.get_texts()] for leg in legends}


#: Markers per (outcome, error layer) on the timeline of each lab capture: facts of the recorded data,
#: not recomputed from it. dsh-before-fix (one run of the published DSH 0.1.0-rc.8): 19 completed exchanges
#: (HAR, mitm and gateway log 5 each, 4 model steps and DSH's title request; the session log 4 steps); only
#: the session logs DSH's tool results, 3 errors in 3 exchanges: the image refusal (config-capability) and the
#: two escalation refusals (runtime-policy). busy-day: 300 exchanges, 48
#: failing (28 HTTP errors: 19 × 429 and 9 × 500; 10 failed and 10 cut streams); an exchange that also
#: sends a DSH refusal back to the model is marked by its first layer, runtime-policy.
TIMELINE = {
    "dsh-before-fix": {
        ("completed", "config-capability"): 1,
        ("completed", "none"): 16,
        ("completed", "runtime-policy"): 2,
    },
    "busy-day": {
        ("completed", "none"): 172,
        ("completed", "runtime-policy"): 80,
        ("cut", "runtime-policy"): 1,
        ("cut", "transport-gateway"): 9,
        ("failed", "runtime-policy"): 4,
        ("failed", "transport-gateway"): 6,
        ("http-error", "runtime-policy"): 10,
        ("http-error", "transport-gateway"): 18,
    },
    "other-apis": {("completed", "none"): 8},
}


# ---- timeline -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(LAB))
def test_timeline_markers_per_outcome_and_layer_are_the_recorded_ones(name):
    paths = LAB[name]
    cap = load_captures(paths) if len(paths) > 1 else load_capture(paths[0])
    ax = plots.timeline(cap)
    per_pair = {}
    for coll in ax.collections:
        assert isinstance(coll, PathCollection)
        outcome, layer = coll.get_label().split(" / ")
        per_pair[(outcome, layer)] = len(coll.get_offsets())
        # colour is the outcome's fixed colour
        assert matplotlib.colors.to_hex(coll.get_facecolors()[0]) == plots.OUTCOME_COLORS[outcome].lower()
    assert per_pair == TIMELINE[name]
    assert sum(per_pair.values()) == len(cap.exchanges)


def test_timeline_busy_day_counts(busy):
    ax = plots.timeline(busy)
    counts = {}
    for coll in ax.collections:
        outcome = coll.get_label().split(" / ")[0]
        counts[outcome] = counts.get(outcome, 0) + len(coll.get_offsets())
    assert counts == {"completed": 252, "http-error": 28, "failed": 10, "cut": 10}
    # every error marker is a triaged exchange
    errs = triage.errors(busy)
    n_err = sum(len(c.get_offsets()) for c in ax.collections if not c.get_label().endswith(" / none"))
    assert n_err == errs["exchange_id"].nunique()


def test_timeline_rows_are_the_by_values(busy):
    ax = plots.timeline(busy, by="endpoint")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(labels) == sorted(busy.exchanges["endpoint"].astype(str).unique())
    ax = plots.timeline(busy, by="api")
    assert [t.get_text() for t in ax.get_yticklabels()] == ["responses", "chat"]
    # a marker's row is its exchange's api
    rows = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    chat = sum(int((c.get_offsets()[:, 1] == rows["chat"]).sum()) for c in ax.collections)
    assert chat == int((busy.exchanges["api"] == "chat").sum())


def test_timeline_labels_and_two_legends(busy):
    ax = plots.timeline(busy)
    assert ax.get_title() and "300 exchanges" in ax.get_title()
    assert ax.get_xlabel() == "started_at (UTC)"
    assert ax.get_ylabel() == "endpoint"
    legends = _legend_texts(ax)
    assert set(legends) == {"outcome (colour)", "error layer (marker)"}
    assert legends["outcome (colour)"] == ["completed (252)", "failed (10)", "cut (10)", "http-error (28)"]
    # an exchange's marker is its first error layer in fixed order; DSH's refusals sent back to the
    # model count for the request that carried them
    assert legends["error layer (marker)"] == ["none (172)", "runtime-policy (95)", "transport-gateway (33)"]


def test_timeline_legends_sit_outside_the_data_area(busy):
    ax = plots.timeline(busy)
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_window_extent()
    for leg in _legend_texts_objects(ax):
        assert leg.get_window_extent().x0 >= box.x1  # right of the axes, never over markers


def _legend_texts_objects(ax):
    return [a for a in ax.artists if isinstance(a, matplotlib.legend.Legend)] + [ax.get_legend()]


@pytest.mark.parametrize("seconds", [0, 2, 600, 86400])
def test_timeline_date_ticks_for_spans_from_seconds_to_a_day(busy, seconds):
    ex = busy.exchanges.head(3).copy()
    start = pd.Timestamp("2026-11-29T06:00:00Z")
    ex["started_at"] = [start, start + pd.Timedelta(seconds=seconds / 2), start + pd.Timedelta(seconds=seconds)]
    cap = Capture(**{n: getattr(busy, n) for n in FRAME_NAMES if n != "exchanges"}, exchanges=ex, entries=busy.entries)
    ax = plots.timeline(cap)
    ax.figure.canvas.draw()
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert 2 <= len(ticks) <= 12
    # no repeated labels (a too-coarse format), except the same hour on two days with the day named between
    assert len(set(ticks)) == len(ticks) or any(re.fullmatch(r"[A-Z][a-z]{2}-\d\d", t) for t in ticks), ticks
    assert not any(re.search(r"0x[0-9a-f]{6,}", t) for t in ticks)


def test_timeline_by_must_be_an_exchanges_column(busy):
    with pytest.raises(InputError, match="no column 'nope'"):
        plots.timeline(busy, by="nope")
    # a column the frame has itself cannot be the by column (it was silently overwritten)
    with pytest.raises(InputError, match=r"exchange_id: cannot be shown beside plots\.timeline"):
        plots.timeline_data(busy, by="exchange_id")


# ---- errors_by_layer ----------------------------------------------------------------------------


def _bar_widths(ax) -> dict[tuple[str, str], int]:
    rows = [t.get_text() for t in ax.get_yticklabels()]
    out = {}
    for cont in ax.containers:
        assert isinstance(cont, BarContainer)
        for row, patch in zip(rows, cont.patches):
            if patch.get_width():
                out[(row, cont.get_label())] = int(patch.get_width())
    return out


def test_errors_by_layer_bars_equal_triage_counts(lab):
    ax = plots.errors_by_layer(lab)
    errs = triage.errors(lab)
    endpoint = lab.exchanges.set_index("exchange_id")["endpoint"].astype(str)
    by = errs["exchange_id"].map(endpoint).fillna(plots.NO_EXCHANGE)
    expected = pd.DataFrame({"by": by, "layer": errs["layer"].astype(str)}).value_counts().to_dict()
    assert _bar_widths(ax) == expected


def test_errors_by_layer_busy_day(busy):
    ax = plots.errors_by_layer(busy)
    widths = _bar_widths(ax)
    errs = triage.errors(busy)
    assert sum(widths.values()) == len(errs) == 143
    assert {layer for _, layer in widths} == {"transport-gateway", "runtime-policy"}
    # stacking order and colours are the fixed layer order
    assert [c.get_label() for c in ax.containers] == ["runtime-policy", "transport-gateway"]
    assert (
        matplotlib.colors.to_hex(ax.containers[-1].patches[0].get_facecolor())
        == plots.LAYER_COLORS["transport-gateway"].lower()
    )
    # totals are written at the end of each bar
    texts = {t.get_text() for t in ax.texts}
    per_endpoint = {}
    for (row, _), w in widths.items():
        per_endpoint[row] = per_endpoint.get(row, 0) + w
    assert {str(v) for v in per_endpoint.values()} <= texts
    assert ax.get_title() == "Errors by layer per endpoint (143 errors)"
    assert ax.get_xlabel() == "errors" and ax.get_ylabel() == "endpoint"
    assert _legend_texts(ax) == {"layer": ["runtime-policy", "transport-gateway"]}


def test_errors_by_layer_stacks_several_layers_in_fixed_order():
    cap = load_captures([DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"])
    ax = plots.errors_by_layer(cap)
    labels = [c.get_label() for c in ax.containers]
    assert labels == [lay for lay in plots.LAYER_ORDER if lay in labels]
    assert _bar_widths(ax) == {("gateway", "config-capability"): 1, ("gateway", "runtime-policy"): 2}
    # a segment starts where the previous one ends
    first, second = (c.patches[[t.get_text() for t in ax.get_yticklabels()].index("gateway")] for c in ax.containers)
    assert second.get_x() == first.get_x() + first.get_width()
    # the clean endpoint is shown with 0
    assert "127.0.0.1/absent-is-strict/v1" in [t.get_text() for t in ax.get_yticklabels()]


def test_errors_by_layer_other_by_column(busy):
    ax = plots.errors_by_layer(busy, by="kind")
    assert _bar_widths(ax) == {
        ("http", "transport-gateway"): 28,
        ("stream", "transport-gateway"): 20,
        ("tool-output", "runtime-policy"): 95,
    }
    ax = plots.errors_by_layer(busy, by="api")
    assert sum(_bar_widths(ax).values()) == 143


def test_errors_by_layer_without_errors_says_so():
    cap = load_capture(DATA / "other-apis" / "capture.har")
    ax = plots.errors_by_layer(cap)
    assert not ax.containers
    assert [t.get_text() for t in ax.texts] == ["no errors in 8 exchanges"]


# ---- strict_matrix ------------------------------------------------------------------------------


def _cell_texts(ax) -> dict[str, str]:
    return {
        t.get_gid().removeprefix("strict-cell:"): t.get_text()
        for t in ax.texts
        if (t.get_gid() or "").startswith("strict-cell:")
    }


def _expected_cells(cap, rows="endpoint", cols="api") -> dict[str, str]:
    t = cap.tools.merge(
        cap.exchanges[["exchange_id", rows, cols]] if rows != cols else cap.exchanges[["exchange_id", rows]],
        on="exchange_id",
    )
    out = {}
    for (r, c), g in t.groupby([rows, cols], observed=True):
        counts = g["strict_state"].astype(str).value_counts()
        present = sorted(
            ((s, int(counts.get(s, 0))) for s in STRICT_STATES if counts.get(s, 0)),
            key=lambda p: (-p[1], STRICT_STATES.index(p[0])),
        )
        out[f"{r}|{c}"] = "\n".join(f"{s} {n}" for s, n in present)
    return out


def test_strict_matrix_annotations_match_tools(lab):
    ax = plots.strict_matrix(lab)
    cells = {k: v for k, v in _cell_texts(ax).items() if v != "no tools"}
    assert cells == _expected_cells(lab)


def test_strict_matrix_busy_day(busy):
    ax = plots.strict_matrix(busy)
    cells = _cell_texts(ax)
    assert cells["127.0.0.1/busy/gateway/v1|responses"] == "absent 286"
    assert cells["127.0.0.1/busy/gateway-chat/v1|chat"] == "absent 84"
    assert cells["127.0.0.1/busy/gateway-fixed/v1|responses"] == "false 172"
    assert cells["127.0.0.1/busy/codex-proxy/codex|responses"] == "null 58"
    total = sum(int(n) for text in cells.values() for n in re.findall(r" (\d+)", text))
    assert total == len(busy.tools) == 600
    assert ax.get_title() == "Tool definitions by strict state per endpoint and api (600 definitions)"
    assert ax.get_xlabel() == "api" and ax.get_ylabel() == "endpoint"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["responses", "chat"]
    assert _legend_texts(ax)["strict state"][:4] == ["absent (370)", "null (58)", "false (172)", "true (0)"]


def test_strict_matrix_share_bars_sum_to_the_cell(busy):
    ax = plots.strict_matrix(busy)
    colours = {matplotlib.colors.to_hex(c): s for s, c in plots.STRICT_COLORS.items()}
    bars = [p for p in ax.patches if matplotlib.colors.to_hex(p.get_facecolor()) in colours]
    assert len(bars) == 4  # one state per cell on the busy day
    assert all(abs(p.get_width() - 0.88) < 1e-9 for p in bars)


def test_strict_matrix_mixed_cell_dominant_first():
    cap = load_capture(DATA / "other-apis" / "capture.har")
    cells = _cell_texts(plots.strict_matrix(cap))
    assert cells == _expected_cells(cap)
    table = plots.strict_counts(cap)
    assert table["tools"].sum() == len(cap.tools)


def test_strict_matrix_rows_from_tools_columns(busy):
    ax = plots.strict_matrix(busy, rows="name", cols="api")
    cells = _cell_texts(ax)
    total = sum(int(n) for text in cells.values() for n in re.findall(r" (\d+)", text))
    assert total == len(busy.tools)
    assert ax.get_ylabel() == "name"


# ---- empty capture, summary figure, global state -----------------------------------------------


def test_empty_capture(empty):
    ax = plots.timeline(empty)
    assert [t.get_text() for t in ax.texts] == ["no exchanges"] and ax.get_title()
    ax = plots.errors_by_layer(empty)
    assert [t.get_text() for t in ax.texts] == ["no errors in 0 exchanges"]
    assert ax.get_xlabel() == "errors" and ax.get_ylabel() == "endpoint"
    ax = plots.strict_matrix(empty)
    assert [t.get_text() for t in ax.texts] == ["no tool definitions"]
    fig = plots.summary_figure(empty)
    assert len(fig.axes) == 3


def test_given_ax_is_used_and_returned():
    cap = load_capture(DATA / "other-apis" / "capture.har")
    fig, axes = plt.subplots(3)
    assert plots.timeline(cap, ax=axes[0]) is axes[0]
    assert plots.errors_by_layer(cap, ax=axes[1]) is axes[1]
    assert plots.strict_matrix(cap, ax=axes[2]) is axes[2]
    assert plt.get_fignums() == [fig.number]  # no extra figure


def test_summary_figure(busy, tmp_path):
    fig = plots.summary_figure(busy)
    assert isinstance(fig, Figure)
    assert plt.get_fignums() == []  # not registered with pyplot: nothing to close
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("Exchanges over time") and titles[1].startswith("Errors by layer")
    assert titles[2].startswith("Tool definitions by strict state")
    assert fig.get_suptitle()
    fig.savefig(tmp_path / "summary.png")
    assert (tmp_path / "summary.png").stat().st_size > 10_000


def test_plots_leave_no_pyplot_figure_when_closed(busy):
    for fn in (plots.timeline, plots.errors_by_layer, plots.strict_matrix):
        ax = fn(busy)
        assert ax.figure.number in plt.get_fignums()
        plt.close(ax.figure)
    assert plt.get_fignums() == []


def test_reprs_have_no_memory_addresses(busy):
    ax = plots.timeline(busy)
    assert not re.search(r"0x[0-9a-fA-F]{6,}", repr(ax))
    assert not re.search(r"0x[0-9a-fA-F]{6,}", repr(plots.summary_figure(busy)))


def test_importing_plots_does_not_import_matplotlib():
    code = "import sys, toolkit.present.plots, toolkit.present.cli; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# ---- declared frames behind the plots ----------------------------------------------------------


def test_plot_data_are_the_declared_frames(lab, empty):
    for cap in (lab, empty):
        assert plots.TIMELINE.mismatches(plots.timeline_data(cap)) == []
        by_model = plots.timeline_data(cap, by="model")
        assert plots.TIMELINE.renamed({"endpoint": "model"}).mismatches(by_model) == []
        counts = plots.error_counts(cap)
        assert plots.ERROR_COUNTS.mismatches(counts) == [] and counts.index.name == "endpoint"
        assert plots.STRICT_COUNTS.mismatches(plots.strict_counts(cap)) == []
        by_name = plots.strict_counts(cap, rows="name", cols="model")
        assert plots.STRICT_COUNTS.renamed({"endpoint": "name", "api": "model"}).mismatches(by_name) == []
    t = plots.timeline_data(lab)
    assert len(t) and t[["outcome", "layer"]].notna().all().all()  # every value inside its fixed vocabulary
    s = plots.strict_counts(lab)
    assert (s["dominant"].notna() == (s["tools"] > 0)).all()
