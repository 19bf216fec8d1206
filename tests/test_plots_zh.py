"""The plots in Chinese: every label from the catalogue, drawn with the bundled subset font (no missing
glyph), the data verbatim, and the English plots exactly as they were."""

from __future__ import annotations

import io
import logging
import re
import string
import tomllib
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from fontTools.ttLib import TTFont
from matplotlib.container import BarContainer
from matplotlib.text import Text

from toolkit import load_capture, load_captures
from toolkit.capture import FRAME_NAMES, Capture, frames
from toolkit.capture.load import ENTRIES
from toolkit.experiment import SUMMARY
from toolkit.experiment.run import load as load_experiment
from toolkit.knowledge.messages import MESSAGES, text
from toolkit.present import i18n, plots

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
ZH = "zh-CN"


@pytest.fixture(autouse=True)
def _clean_state():
    assert plt.get_fignums() == []
    family = list(matplotlib.rcParams["font.family"])
    yield
    plt.close("all")
    i18n.set_language(None)
    assert list(matplotlib.rcParams["font.family"]) == family  # no global rcParams change


@pytest.fixture(scope="module")
def busy():
    return load_capture(DATA / "busy-day" / "gateway.jsonl")


@pytest.fixture(scope="module")
def captures(busy):
    dsh = sorted(p for p in (DATA / "dsh-before-fix").iterdir() if p.suffix in (".har", ".jsonl", ".zstd", ".mitm"))
    empty = Capture(**{n: frames.empty(n) for n in FRAME_NAMES}, entries=ENTRIES.empty())
    return {
        "busy-day": busy,
        "dsh-before-fix": load_captures(dsh),
        "other-apis": load_capture(DATA / "other-apis" / "capture.har"),
        "empty": empty,
    }


@pytest.fixture(scope="module")
def experiment():
    return load_experiment(DATA / "experiment-before-fix")


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=50, metadata={"Software": None})
    return buf.getvalue()


def _english_patterns() -> dict[str, re.Pattern[str]]:
    """Each plot key whose English differs from its Chinese, as a pattern a whole text line would match."""
    out = {}
    for key in plots.FONT_KEYS:
        entry = MESSAGES[key]
        if entry["en"] == entry[ZH]:
            continue
        parts = [
            re.escape(lit) + (".+?" if field is not None else "")
            for lit, field, _, _ in string.Formatter().parse(entry["en"])
        ]
        out[key] = re.compile("".join(parts))
    return out


# ---- the font ------------------------------------------------------------------------------------


def test_the_bundled_font_holds_every_cjk_character_of_every_plot_text():
    cmap = set(map(chr, TTFont(plots.FONT_FILE)["cmap"].getBestCmap()))
    missing = {}
    for key in plots.FONT_KEYS:
        chars = sorted({c for c in MESSAGES[key][ZH] if plots.is_cjk(c)} - cmap)
        if chars:
            missing[key] = "".join(chars)
    assert missing == {}, f"the bundled font lacks these characters (run `make font`): {missing}"
    # and nothing else: the subset is exactly the plot texts' characters (a stale font is rebuilt)
    assert "".join(sorted(c for c in cmap if plots.is_cjk(c))) == plots.font_characters()
    assert set(plots.CJK_PUNCTUATION) <= cmap


def test_every_key_plots_renders_is_one_the_font_covers():
    source = Path(plots.__file__).read_text(encoding="utf-8")
    frame_names = {plots.TIMELINE.name, plots.ERROR_COUNTS.name, plots.STRICT_COUNTS.name, plots.RECORDED_TWICE.name}
    used = set(re.findall(r'"((?:plots|layer|verdict|experiment)\.[^"\s]+)"', source)) - frame_names
    assert used, "no message keys found in plots.py"
    for key in used:
        if "{" in key:  # an f-string key: plots.outcome.{o}
            prefix = key[: key.index("{")]
            assert any(k.startswith(prefix) for k in plots.FONT_KEYS), key
        else:
            assert key in plots.FONT_KEYS, key
    # every outcome and error layer the plots can show has its key
    for o in plots.OUTCOMES:
        assert f"plots.outcome.{o}" in MESSAGES
    for layer in (plots.NO_ERROR, *plots.LAYER_ORDER):
        assert f"plots.error_layer.{layer}" in MESSAGES


def test_the_font_is_renamed_and_carries_its_licence():
    names = TTFont(plots.FONT_FILE)["name"]
    assert names.getDebugName(1) == plots.FONT_FAMILY  # a modified version: not the original's name
    assert "SIL Open Font License" in names.getDebugName(13)
    licence = (plots.FONT_FILE.parent / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence and names.getDebugName(0) in licence
    assert plots.FONT_FILE.stat().st_size < 100_000


def test_the_font_ships_as_package_data():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["toolkit"]
    root = REPO / "toolkit"
    shipped = {p for pattern in patterns for p in root.glob(pattern)}
    assert plots.FONT_FILE in shipped and plots.FONT_FILE.parent / "OFL.txt" in shipped


# ---- drawing in Chinese ----------------------------------------------------------------------------


def _draw_without_missing_glyphs(fig, caplog) -> bytes:
    """The figure as PNG bytes; a missing glyph (a warning) or a font fallback logged fails."""
    with warnings.catch_warnings(), caplog.at_level(logging.WARNING, logger="matplotlib"):
        warnings.simplefilter("error")
        png = _png(fig)
    assert [r.getMessage() for r in caplog.records] == []
    return png


def _assert_chinese(fig):
    """No text of the figure is a plot key's English text."""
    patterns = _english_patterns()
    left = [
        (key, line)
        for t in _texts(fig)
        for line in t.splitlines()
        for key, pattern in patterns.items()
        if pattern.fullmatch(line)
    ]
    assert left == []


@pytest.mark.parametrize("name", ["busy-day", "dsh-before-fix", "other-apis", "empty"])
def test_each_plot_draws_in_chinese_with_every_glyph(captures, name, caplog):
    cap = captures[name]
    for fn in (plots.timeline, plots.errors_by_layer, plots.strict_matrix):
        ax = fn(cap, lang=ZH)
        assert ax.get_title() and any(plots.is_cjk(c) for c in ax.get_title())
        _draw_without_missing_glyphs(ax.figure, caplog)
        _assert_chinese(ax.figure)
        plt.close(ax.figure)
    fig = plots.summary_figure(cap, lang=ZH)
    once = plots._once(cap, plots.recorded_twice(cap))  # an exchange two recorders hold is counted once
    title = text("plots.summary.title", ZH, exchanges=len(once.exchanges), tools=len(once.tools))
    assert fig.get_suptitle().split("\n")[0] == title
    _draw_without_missing_glyphs(fig, caplog)
    _assert_chinese(fig)


def test_plots_into_a_given_axes_made_before_get_the_font_too(busy, caplog):
    fig, axes = plt.subplots(3)  # outside the plots' font context: its titles and labels already exist
    plots.timeline(busy, ax=axes[0], lang=ZH)
    plots.errors_by_layer(busy, ax=axes[1], lang=ZH)
    plots.strict_matrix(busy, ax=axes[2], lang=ZH)
    _draw_without_missing_glyphs(fig, caplog)
    _assert_chinese(fig)


def _legends(ax) -> dict[str, list[str]]:
    legends = [a for a in ax.artists if isinstance(a, matplotlib.legend.Legend)] + [ax.get_legend()]
    return {leg.get_title().get_text(): [t.get_text() for t in leg.get_texts()] for leg in legends}


def test_timeline_in_chinese_keeps_the_data(busy):
    en, zh = plots.timeline(busy, lang="en"), plots.timeline(busy, lang=ZH)
    assert zh.get_title() == text("plots.timeline.title", ZH, by="endpoint", n=len(busy.exchanges))
    assert zh.get_xlabel() == "started_at（UTC）" and zh.get_ylabel() == "endpoint"  # a column name: data
    assert [t.get_text() for t in zh.get_yticklabels()] == [t.get_text() for t in en.get_yticklabels()]
    # the same markers, the same colours; the legends name the same categories in Chinese
    assert [(c.get_label(), len(c.get_offsets())) for c in zh.collections] == [
        (c.get_label(), len(c.get_offsets())) for c in en.collections
    ]
    legends_en, legends_zh = _legends(en), _legends(zh)
    outcomes = [s.rsplit(" (", 1) for s in legends_en["outcome (colour)"]]
    assert legends_zh["结果（颜色）"] == [
        text("plots.count", ZH, label=text(f"plots.outcome.{o}", ZH), n=n.rstrip(")")) for o, n in outcomes
    ]
    layers = [s.rsplit(" (", 1) for s in legends_en["error layer (marker)"]]
    assert legends_zh["错误层（标记）"] == [
        text("plots.count", ZH, label=text(f"plots.error_layer.{lay}", ZH), n=n.rstrip(")")) for lay, n in layers
    ]


def test_timeline_dates_in_chinese_are_numeric(busy):
    en, zh = plots.timeline(busy, lang="en"), plots.timeline(busy, lang=ZH)
    for ax in (en, zh):
        ax.figure.canvas.draw()
    assert en.xaxis.get_major_formatter().get_offset() == "2026-Nov-29"
    assert zh.xaxis.get_major_formatter().get_offset() == "2026-11-29"
    assert [t.get_text() for t in zh.get_xticklabels()] == [t.get_text() for t in en.get_xticklabels()]


def test_errors_by_layer_in_chinese_keeps_the_counts(busy):
    en, zh = plots.errors_by_layer(busy, lang="en"), plots.errors_by_layer(busy, lang=ZH)
    assert zh.get_title() == "各 endpoint 按层统计的错误（143 个错误）"
    assert zh.get_xlabel() == "错误数"
    assert [c.get_label() for c in zh.containers] == [
        text(f"plots.error_layer.{c.get_label()}", ZH) for c in en.containers
    ]
    assert [[p.get_width() for p in c.patches] for c in zh.containers] == [
        [p.get_width() for p in c.patches] for c in en.containers
    ]
    assert sorted(t.get_text() for t in zh.texts) == sorted(t.get_text() for t in en.texts)  # numbers
    assert _legends(zh) == {"层": [text(f"plots.error_layer.{c.get_label()}", ZH) for c in en.containers]}


def test_strict_matrix_in_chinese_keeps_states_verbatim(busy, captures):
    zh = plots.strict_matrix(busy, lang=ZH)
    cells = {t.get_gid(): t.get_text() for t in zh.texts if (t.get_gid() or "").startswith("strict-cell:")}
    en = plots.strict_matrix(busy, lang="en")
    assert cells == {t.get_gid(): t.get_text() for t in en.texts if (t.get_gid() or "").startswith("strict-cell:")}
    assert cells["strict-cell:127.0.0.1/busy/gateway/v1|responses"] == "absent 286"  # states are data
    legend = _legends(zh)["strict 状态"]
    assert legend[:4] == [
        text("plots.count", ZH, label=s, n=int(plots.strict_counts(busy)[s].sum())) for s in plots.STRICT_STATES
    ]
    assert legend[4] == "色条：各格内占比"
    assert "无交换" in [t.get_text() for t in zh.texts]  # a cell without exchanges
    assert plots.strict_cell_text(dict.fromkeys(plots.STRICT_STATES, 0), lang=ZH) == "无工具"
    empty = plots.strict_matrix(captures["empty"], lang=ZH)
    assert [t.get_text() for t in empty.texts] == ["无工具定义"]


def test_experiment_rates_in_chinese(experiment, caplog):
    fig = plots.experiment_rates(experiment.summary, lang=ZH)
    ax = fig.axes[0]
    total = int(experiment.summary["calls"].fillna(0).sum())
    assert ax.get_title() == text("plots.experiment.title", ZH, n=total)
    assert ax.get_xlabel() == "占该变体调用的比例"
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(v) for v in experiment.summary["variant"]]
    assert {c.get_label() for c in ax.containers if isinstance(c, BarContainer)} == {"拒绝", "接受"}
    for verdict in ("refused", "accepted"):
        labels = [t.get_text() for t in ax.texts if t.get_gid() == f"experiment-rate:{verdict}"]
        assert labels == [
            text(f"plots.experiment.rate.{verdict}", ZH, k=int(k), n=int(n))
            for k, n in zip(experiment.summary[verdict], experiment.summary["calls"])
        ]
    assert _legends(ax) == {"DSH 的判定": ["拒绝", "接受"]}
    _draw_without_missing_glyphs(fig, caplog)
    _assert_chinese(fig)
    none = plots.experiment_rates(SUMMARY.empty(), lang=ZH)
    assert [t.get_text() for t in none.axes[0].texts] == ["无变体"]
    assert plots.experiment_rate_text(0, 0, "refused", lang=ZH) == "无调用"


# ---- the language choice, English unchanged ----------------------------------------------------------


def test_the_default_language_is_i18n_s_and_lang_overrides_it(busy):
    i18n.set_language(ZH)
    assert plots.errors_by_layer(busy).get_title() == "各 endpoint 按层统计的错误（143 个错误）"
    assert plots.errors_by_layer(busy, lang="en").get_title() == "Errors by layer per endpoint (143 errors)"
    i18n.set_language(None)
    assert plots.errors_by_layer(busy).get_title() == "Errors by layer per endpoint (143 errors)"
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        plots.timeline(busy, lang="fr")


def test_english_plots_are_as_before(busy, experiment):
    ax = plots.timeline(busy)
    assert ax.get_title() == "Exchanges over time by endpoint (300 exchanges)"
    assert ax.get_xlabel() == "started_at (UTC)"
    assert set(_legends(ax)) == {"outcome (colour)", "error layer (marker)"}
    ax = plots.strict_matrix(busy)
    assert _legends(ax)["strict state"][4] == "bar: share per cell"
    fig = plots.summary_figure(busy)
    assert fig.get_suptitle() == "Capture summary: 300 exchanges, 600 tool definitions"
    ax = plots.experiment_rates(experiment.summary).axes[0]
    assert ax.get_xlabel() == "share of the variant's calls"
    assert _legends(ax) == {"DSH's verdict": ["refused", "accepted"]}
    assert {c.get_label() for c in ax.containers if isinstance(c, BarContainer)} == {"refused", "accepted"}
    # English text never asks for the bundled font: its families are matplotlib's as configured
    for f in [plt.figure(n) for n in plt.get_fignums()] + [fig, ax.figure]:
        families = {tuple(t.get_fontfamily()) for t in f.findobj(Text)}
        assert all(plots.FONT_FAMILY not in fam for fam in families)


def test_english_plot_pixels_do_not_depend_on_the_chinese_font(busy):
    before = _png(plots.summary_figure(busy))
    plots.summary_figure(busy, lang=ZH).savefig(io.BytesIO(), format="png")  # registers the bundled font
    assert _png(plots.summary_figure(busy)) == before
