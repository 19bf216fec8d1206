"""Plots of a ``Capture``: when exchanges failed, in which layer, and what ``strict`` each tool carried.

Each plot takes a ``Capture`` and an optional matplotlib ``ax`` and returns the Axes it drew on
(``summary_figure`` returns a Figure). Without ``ax`` a new pyplot figure is made, so a notebook shows
it; end the cell with ``;`` or assign the result so the Axes repr is not printed. The data behind each
plot comes from a plain function returning a DataFrame (``timeline_data``, ``error_counts``,
``strict_counts``), so notebooks and tests can check numbers instead of pixels.

Colours and marker shapes are fixed per category (colour-blind-friendly: Okabe-Ito and Paul Tol
palettes) in the fixed category orders of ``toolkit.capture.frames`` and of the ``triage.errors`` layers, so the same
outcome, layer or strict state looks the same in every plot. matplotlib is imported inside the
functions: importing this module (or the CLI) does not load it.

Titles, axis labels, legends and annotations are the toolkit's words (``toolkit.knowledge.messages``, keys
``plots.*``), written in ``lang`` (default ``i18n.language()``); column names, ``strict`` states, tool, model
and variant names stay as they are. In ``zh-CN`` the bundled subset of Noto Sans CJK SC
(``fonts/``, made by ``lab/subset_font.py``) is the fallback after the usual font, so the labels have
their glyphs on a machine without a CJK font; global ``rcParams`` are not changed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit.analysis.triage import ERRORS, UNKNOWN
from toolkit.capture.frames import CAT, UTC_TIME, Frame, declare, fixed
from toolkit.errors import InputError
from toolkit.knowledge.messages import LANGUAGES, MESSAGES, text
from toolkit.present import i18n
from toolkit.wire.records import STRICT_STATES, TERMINALS

#: Outcome of an exchange: its ``terminal`` state, or "no response" when there is none.
NO_RESPONSE = "no response"
OUTCOMES = TERMINALS + (NO_RESPONSE,)
OUTCOME_COLORS = {  # Okabe-Ito
    "completed": "#009E73",  # bluish green
    "incomplete": "#E69F00",  # orange
    "failed": "#D55E00",  # vermillion
    "cut": "#CC79A7",  # reddish purple
    "http-error": "#0072B2",  # blue
    NO_RESPONSE: "#7F7F7F",  # grey
}

#: Error layer of an exchange in ``timeline``; "none" for an exchange without errors.
NO_ERROR = "none"
LAYER_ORDER = tuple(ERRORS.columns["layer"].categories)  # triage's error layers, then unknown
LAYER_COLORS = {  # Paul Tol "bright"
    "config-capability": "#4477AA",
    "serialization-protocol": "#CCBB44",
    "runtime-policy": "#AA3377",
    "transport-gateway": "#EE6677",
    UNKNOWN: "#BBBBBB",
}
LAYER_MARKERS = {
    NO_ERROR: "o",
    "config-capability": "s",
    "serialization-protocol": "D",
    "runtime-policy": "^",
    "transport-gateway": "X",
    UNKNOWN: "P",
}

STRICT_COLORS = {  # Paul Tol "vibrant"
    "absent": "#EE7733",
    "null": "#33BBEE",
    "false": "#009988",
    "true": "#CC3311",
}

MISSING = "(none)"  # a ``by`` value that is missing
NO_EXCHANGE = "(no exchange)"  # an error or tool not linked to any exchange

# The frames behind the plots, declared with their default column names; a ``by``/``rows``/``cols``
# column is categorical in the order of its values (``_order``) and renamed to the column it shows.

#: ``timeline_data``: one row per exchange.
TIMELINE = declare(
    "plots.timeline",
    {
        "exchange_id": "string",
        "started_at": UTC_TIME,
        "endpoint": CAT,  # the ``by`` column, as text
        "outcome": fixed(*OUTCOMES),
        "layer": fixed(NO_ERROR, *LAYER_ORDER),
    },
)
#: ``error_counts``: errors per ``by`` value (the index) and layer.
ERROR_COUNTS = declare("plots.error_counts", {layer: "Int64" for layer in LAYER_ORDER})
#: ``strict_counts``: tool definitions per (``rows``, ``cols``) cell and strict state.
STRICT_COUNTS = declare(
    "plots.strict_counts",
    {
        "endpoint": CAT,  # the ``rows`` column
        "api": CAT,  # the ``cols`` column
        **{state: "Int64" for state in STRICT_STATES},
        "tools": "Int64",
        "dominant": fixed(*STRICT_STATES),  # missing: no tools in the cell
    },
)


#: ``recorded_twice``: an exchange an agent's own log reconstructed (``body_fidelity`` ``normalised``, a
#: DSH session log) that an HTTP capture holds as it went on the wire: the same exchange, seen by two
#: recorders. ``basis``: ``calls`` (its response made the same calls) or ``outputs`` (it sent back the
#: same call's result, the newest in its input); ``call_ids`` the ids, comma-separated.
RECORDED_TWICE = declare(
    "plots.recorded_twice",
    {
        "exchange_id": "string",  # the reconstructed exchange, left out of the summary figure
        "source": "string",
        "same_as": "string",  # the wire exchange kept
        "same_as_source": "string",
        "basis": fixed("calls", "outputs"),
        "call_ids": "string",
    },
)


# ---- data behind the plots ----------------------------------------------------------------------


def recorded_twice(capture) -> pd.DataFrame:
    """The exchanges two recorders of one run both hold (``RECORDED_TWICE``), paired as ``verify`` pairs
    a call seen twice (``execution.distinct_calls``): by call id. Recorders of one run carry the same
    call ids, in the response that made a call and in the request that sent its result back; an
    exchange with neither (a title request) is never paired. A reconstructed exchange (a DSH session
    log's) is paired with a wire one; two wire recordings only when they went to the same URL (a HAR and
    a .mitm of one hop), so two captures of two hops stay two hops. A kept exchange pairs with at most
    one exchange of each other recorder; the first wire recording seen is the one kept."""
    ex = capture.exchanges
    keys = _call_keys(capture)
    fidelity = ex["body_fidelity"].astype(object) if "body_fidelity" in ex else pd.Series("wire", index=ex.index)
    rows = list(zip(ex["exchange_id"].astype(str), ex["source"].astype(str), ex["url"].astype(object), fidelity))
    kept: dict[tuple, list[tuple[str, str, Any]]] = {}  # call key -> wire exchanges kept (id, source, url)
    used: set[tuple[str, str]] = set()  # (kept exchange, source paired with it): one to one per recorder
    out = []

    def pair(xid: str, source: str, key: tuple, url: Any) -> bool:
        same = next(
            (
                k
                for k in kept.get(key, [])
                if k[1] != source and (k[0], source) not in used and (url is None or k[2] == url)
            ),
            None,
        )
        if same is None:
            return False
        used.add((same[0], source))
        out.append(
            {
                "exchange_id": xid,
                "source": source,
                "same_as": same[0],
                "same_as_source": same[1],
                "basis": key[0],
                "call_ids": ", ".join(key[1]),
            }
        )
        return True

    for xid, source, url, fid in rows:  # the wire recordings first: they are what is kept
        key = keys.get(xid)
        if fid == "wire" and key is not None and not pair(xid, source, key, url):
            kept.setdefault(key, []).append((xid, source, url))
    for xid, source, _url, fid in rows:
        key = keys.get(xid)
        if fid != "wire" and key is not None:
            pair(xid, source, key, None)
    return RECORDED_TWICE.from_records(out)


def _call_keys(capture) -> dict[str, tuple[str, tuple[str, ...]]]:
    """exchange id → ("calls", its response's call ids) or ("outputs", (the call whose result is the
    newest in its input,)): what two recorders of one exchange both saw."""
    calls = capture.calls[capture.calls["call_id"].notna()]
    keys: dict[str, tuple[str, tuple[str, ...]]] = {
        str(xid): ("calls", tuple(sorted(set(group["call_id"].astype(str)))))
        for xid, group in calls.groupby("exchange_id", sort=False, observed=True)
    }
    parts = capture.input_parts
    outputs = parts[(parts["item_type"] == "function_call_output") & parts["call_id"].notna()]
    items = capture.inputs[capture.inputs["part_id"].isin(set(outputs["part_id"]))]
    call_of = dict(zip(outputs["part_id"], outputs["call_id"].astype(str)))
    for xid, group in items.groupby("exchange_id", sort=False, observed=True):
        if str(xid) not in keys:
            newest = group.sort_values(["item_index", "part_index"]).iloc[-1]
            keys[str(xid)] = ("outputs", (call_of[newest["part_id"]],))
    return keys


def _once(capture, twice: pd.DataFrame):
    """``capture`` without the exchanges ``twice`` names (each kept once, as its wire recording)."""
    if twice.empty:
        return capture
    dropped = set(twice["exchange_id"])
    frames = {
        f.name: getattr(capture, f.name)[~getattr(capture, f.name)["exchange_id"].isin(dropped)]
        for f in dataclasses.fields(capture)
        if isinstance(getattr(capture, f.name), pd.DataFrame) and "exchange_id" in getattr(capture, f.name)
    }
    return dataclasses.replace(capture, **frames)


# one legend style for every plot: outside the axes, small, no frame
_LEGEND: dict[str, Any] = {"borderaxespad": 0, "fontsize": 8, "title_fontsize": 9, "frameon": False}


def timeline_data(capture, *, by: str = "endpoint") -> pd.DataFrame:
    """One row per exchange: ``exchange_id``, ``started_at``, the ``by`` value (as text), ``outcome``
    (``OUTCOMES``) and ``layer`` (``"none"`` or the first of ``LAYER_ORDER`` among its errors)."""
    ex = capture.exchanges
    _check_column(by, ex, "exchanges")
    frame = _renamed(TIMELINE, {"endpoint": by})
    outcome = ex["terminal"].astype(object).where(ex["terminal"].notna(), NO_RESPONSE)
    layer = _exchange_layers(capture).reindex(ex["exchange_id"]).to_numpy()
    out = frame.from_columns(
        {
            "exchange_id": list(ex["exchange_id"]),
            "started_at": list(ex["started_at"]),
            by: list(_labels(ex[by])),
            "outcome": list(outcome),
            "layer": list(pd.Series(layer, dtype=object).fillna(NO_ERROR)),
        }
    )
    out[by] = pd.Categorical(out[by].astype(object), categories=_order(ex[by]))
    return out


def error_counts(capture, *, by: str = "endpoint") -> pd.DataFrame:
    """Errors (``triage.errors``) per ``by`` value and layer: index the ``by`` values (every value seen in
    the exchanges, then any only the errors have), columns ``LAYER_ORDER``, integer counts."""
    from toolkit.analysis.triage import errors

    errs = errors(capture)
    ex = capture.exchanges
    if by in errs.columns:
        values = _labels(errs[by])
    else:
        _check_column(by, ex, "exchanges or errors")
        lookup = pd.Series(_labels(ex[by]).to_numpy(), index=ex["exchange_id"].to_numpy())
        lookup = lookup[~lookup.index.duplicated()]
        values = errs["exchange_id"].map(lookup).fillna(NO_EXCHANGE)
    order = _order(ex[by]) if by in ex.columns else []
    order += [v for v in _order(values) if v not in order]
    table = pd.crosstab(
        pd.Categorical(values, categories=order),
        pd.Categorical(errs["layer"].astype(object), categories=list(LAYER_ORDER)),
        dropna=False,
    )
    table = table.reindex(index=order, columns=list(LAYER_ORDER), fill_value=0)
    out = ERROR_COUNTS.from_columns({layer: [int(n) for n in table[layer]] for layer in LAYER_ORDER})
    out.index = pd.Index(order, name=by, dtype=object)
    out.columns.name = "layer"
    return out


def strict_counts(capture, *, rows: str = "endpoint", cols: str = "api") -> pd.DataFrame:
    """Tool definitions per (``rows``, ``cols``) cell and strict state: one row per cell that has
    exchanges or tools, columns ``rows``, ``cols``, one count per ``STRICT_STATES``, ``tools`` (their
    sum) and ``dominant`` (the most frequent state, first in fixed order on a tie; missing if no tools).
    ``rows``/``cols`` may name a column of ``tools`` (``name``, ``kind``) or of ``exchanges``."""
    ex, tools = capture.exchanges, capture.tools

    def column(name: str) -> tuple[pd.Series, pd.Series, list[str]]:
        if name in tools.columns and name != "exchange_id":
            t = _labels(tools[name])
            return t, pd.Series([], dtype=object), _order(tools[name])
        _check_column(name, ex, "tools or exchanges")
        lookup = pd.Series(_labels(ex[name]).to_numpy(), index=ex["exchange_id"].to_numpy())
        lookup = lookup[~lookup.index.duplicated()]
        t = tools["exchange_id"].map(lookup).fillna(NO_EXCHANGE)
        return t, _labels(ex[name]), _order(ex[name])

    t_rows, e_rows, row_order = column(rows)
    t_cols, e_cols, col_order = column(cols)
    cells = pd.DataFrame(
        {rows: t_rows.to_numpy(), cols: t_cols.to_numpy(), "state": tools["strict_state"].astype(object).to_numpy()}
    )
    counts = cells.groupby([rows, cols, "state"], sort=False).size() if len(cells) else pd.Series([], dtype=int)
    keys = set(zip(cells[rows], cells[cols]))
    if len(e_rows) and len(e_cols):
        keys |= set(zip(e_rows, e_cols))
    row_order += [v for v in _order(cells[rows]) if v not in row_order]
    col_order += [v for v in _order(cells[cols]) if v not in col_order]
    out = []
    for r in row_order:
        for c in col_order:
            if (r, c) not in keys:
                continue
            n = {s: int(counts.get((r, c, s), 0)) for s in STRICT_STATES}
            total = sum(n.values())
            dominant = max(STRICT_STATES, key=lambda s: (n[s], -STRICT_STATES.index(s))) if total else None
            out.append({rows: r, cols: c, **n, "tools": total, "dominant": dominant})
    frame = _renamed(STRICT_COUNTS, {"endpoint": rows, "api": cols}).from_records(out)
    frame[rows] = pd.Categorical(frame[rows].astype(object), categories=row_order)
    frame[cols] = pd.Categorical(frame[cols].astype(object), categories=col_order)
    return frame


def strict_cell_text(counts, *, lang: str | None = None) -> str:
    """A cell's annotation: one ``state count`` line per state present, the dominant state first
    (``"absent 286\\nnull 58"``, the states as they are in every language); ``"no tools"`` (in ``lang``)
    when the cell has exchanges but no tool definitions."""
    present = [(s, int(counts[s])) for s in STRICT_STATES if int(counts[s])]
    if not present:
        return text("plots.strict.no_tools", _language(lang))
    present.sort(key=lambda p: -p[1])  # stable: fixed order among equal counts
    return "\n".join(f"{s} {n}" for s, n in present)


# ---- plots --------------------------------------------------------------------------------------


def _say_empty(ax, note: str) -> None:
    """An empty plot says why in its middle, with no ticks to suggest data."""
    ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", fontsize=12, color="#555555")
    ax.set_xticks([])
    ax.set_yticks([])


def timeline(capture, *, ax=None, by: str = "endpoint", lang: str | None = None):
    """Every exchange at its ``started_at``, one row per ``by`` value: colour = outcome, marker =
    error layer (``triage.errors`` joined on ``exchange_id``), labels in ``lang``. Returns the Axes."""
    lang = _language(lang)
    with _fonts(lang):
        return _timeline(capture, ax=ax, by=by, lang=lang)


def _timeline(capture, *, ax, by: str, lang: str):
    import matplotlib.dates as mdates
    from matplotlib.lines import Line2D

    data = timeline_data(capture, by=by)
    rows = _order(data[by]) if len(data) else []
    ax = ax if ax is not None else _new_axes(width=11, height=max(3.8, 0.55 * len(rows) + 2.2))
    ax.set_title(text("plots.timeline.title", lang, by=by, n=len(data)), **_family(lang))
    ax.set_xlabel(text("plots.timeline.xlabel", lang), **_family(lang))
    ax.set_ylabel(by, **_family(lang))
    timed = data[data["started_at"].notna()]
    if timed.empty:
        _say_empty(ax, text("plots.no_exchanges" if data.empty else "plots.timeline.no_start", lang))
        return ax

    ypos = {v: i for i, v in enumerate(rows)}
    x = mdates.date2num(timed["started_at"].dt.tz_convert("UTC").dt.tz_localize(None).to_numpy())
    y = timed[by].astype(object).map(ypos).to_numpy(dtype=float)
    outcomes, layers = timed["outcome"].astype(object).to_numpy(), timed["layer"].astype(object).to_numpy()
    for outcome in OUTCOMES:
        for layer in (NO_ERROR, *LAYER_ORDER):
            sel = (outcomes == outcome) & (layers == layer)
            if not sel.any():
                continue
            plain = layer == NO_ERROR
            ax.scatter(
                x[sel],
                y[sel],
                s=22 if plain else 58,
                c=OUTCOME_COLORS[outcome],
                marker=LAYER_MARKERS[layer],
                alpha=0.75 if plain else 0.95,
                edgecolors="none" if plain else "black",
                linewidths=0.5,
                zorder=2 if plain else 3,
                label=f"{outcome} / {layer}",
            )

    ax.set_yticks(range(len(rows)), rows)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first value on top
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    for i in range(len(rows) - 1):
        ax.axhline(i + 0.5, color="#eeeeee", linewidth=0.8, zorder=0)
    lo, hi = x.min(), x.max()
    pad = max((hi - lo) * 0.02, 0.5 / 86400)  # at least half a second either side
    ax.set_xlim(lo - pad, hi + pad)
    locator = mdates.AutoDateLocator(tz="UTC", minticks=3, maxticks=9)
    ax.xaxis.set_major_locator(locator)
    # seconds ticks as 06:00:01 (not a bare "01"), sub-second ones as 06:00:00.25
    formats = ["%Y", "%b", "%d", "%H:%M", "%H:%M", "%H:%M:%S.%f"]
    zero_formats = ["", "%Y", "%b", "%b-%d", "%H:%M", "%H:%M:%S"]  # a tick at midnight names the day
    offset: dict[str, Any] = {}
    if lang != "en":  # numeric months, not English month names
        formats, zero_formats, offset = _NUMERIC_DATES
    ax.xaxis.set_major_formatter(
        mdates.ConciseDateFormatter(
            locator, tz="UTC", formats=formats, zero_formats=zero_formats, show_offset=True, **offset
        )
    )

    n_out = timed["outcome"].value_counts()
    n_lay = timed["layer"].value_counts()
    outcome_handles = [
        Line2D(
            [],
            [],
            linestyle="",
            marker="o",
            markersize=7,
            color=OUTCOME_COLORS[o],
            label=_count(text(f"plots.outcome.{o}", lang), n_out[o], lang),
        )
        for o in OUTCOMES
        if n_out.get(o, 0)
    ]
    layer_handles = [
        Line2D(
            [],
            [],
            linestyle="",
            marker=LAYER_MARKERS[lay],
            markersize=7,
            color="#444444",
            label=_count(text(f"plots.error_layer.{lay}", lang), n_lay[lay], lang),
        )
        for lay in (NO_ERROR, *LAYER_ORDER)
        if n_lay.get(lay, 0)
    ]
    first = ax.legend(
        handles=outcome_handles,
        title=text("plots.timeline.outcomes", lang),
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        **_LEGEND,
    )
    ax.add_artist(first)
    ax.legend(
        handles=layer_handles,
        title=text("plots.timeline.layers", lang),
        loc="lower left",
        bbox_to_anchor=(1.01, 0.0),
        **_LEGEND,
    )
    return ax


def errors_by_layer(capture, *, by: str = "endpoint", ax=None, lang: str | None = None):
    """Errors per ``by`` value as horizontal bars stacked by layer, with counts, labels in ``lang``.
    Returns the Axes."""
    lang = _language(lang)
    with _fonts(lang):
        return _errors_by_layer(capture, by=by, ax=ax, lang=lang)


def _errors_by_layer(capture, *, by: str, ax, lang: str):
    table = error_counts(capture, by=by)
    shown = table if table.values.sum() else table.iloc[0:0]  # every value, so a clean one shows 0
    ax = ax if ax is not None else _new_axes(width=10, height=max(3.0, 0.5 * len(shown) + 1.8))
    total = int(table.values.sum())
    ax.set_title(text("plots.errors.title", lang, by=by, n=total), **_family(lang))
    ax.set_xlabel(text("plots.errors.xlabel", lang), **_family(lang))
    ax.set_ylabel(by, **_family(lang))
    if total == 0:
        n = len(capture.exchanges)
        _say_empty(ax, text("plots.errors.none_one" if n == 1 else "plots.errors.none_many", lang, n=n))
        return ax

    y = list(range(len(shown)))
    left = [0] * len(shown)
    row_totals = shown.sum(axis=1).tolist()
    biggest = int(max(row_totals))
    for layer in LAYER_ORDER:
        widths = shown[layer].tolist()
        if not any(widths):
            continue
        bars = ax.barh(
            y,
            widths,
            left=left,
            height=0.6,
            color=LAYER_COLORS[layer],
            edgecolor="white",
            linewidth=0.6,
            label=text(f"plots.error_layer.{layer}", lang),
            zorder=2,
        )
        # a count inside each segment wide enough to hold it, unless it is the whole bar (total at the end)
        ax.bar_label(
            bars,
            labels=[str(w) if w and w >= 0.06 * biggest and w != row else "" for w, row in zip(widths, row_totals)],
            label_type="center",
            fontsize=8,
            color="black",
        )
        left = [a + b for a, b in zip(left, widths)]
    for yi, t in zip(y, left):
        # a number: no CJK fallback, which has no bold face (matplotlib would log that it used Regular)
        ax.text(t + biggest * 0.01, yi, str(t), va="center", ha="left", fontsize=9, fontweight="bold", **_latin(lang))
    ax.set_yticks(y, [str(v) for v in shown.index])
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xlim(0, biggest * 1.08)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    ax.legend(
        title=text("plots.errors.legend", lang),
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        **_LEGEND,
    )
    return ax


def strict_matrix(capture, *, ax=None, rows: str = "endpoint", cols: str = "api", lang: str | None = None):
    """Tool definitions per (``rows``, ``cols``) cell by strict state (absent/null/false/true): each cell
    a bar of the shares and its counts, dominant state first, labels in ``lang``. Returns the Axes."""
    lang = _language(lang)
    with _fonts(lang):
        return _strict_matrix(capture, ax=ax, rows=rows, cols=cols, lang=lang)


def _strict_matrix(capture, *, ax, rows: str, cols: str, lang: str):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    table = strict_counts(capture, rows=rows, cols=cols)
    row_order = list(table[rows].cat.categories) if len(table) else []
    col_order = list(table[cols].cat.categories) if len(table) else []
    ax = (
        ax
        if ax is not None
        else _new_axes(width=max(7.0, 2.3 * len(col_order) + 5.0), height=max(3.0, 1.1 * len(row_order) + 1.6))
    )
    n_tools = int(table["tools"].sum()) if len(table) else 0
    ax.set_title(text("plots.strict.title", lang, rows=rows, cols=cols, n=n_tools), **_family(lang))
    ax.set_xlabel(cols, **_family(lang))
    ax.set_ylabel(rows, **_family(lang))
    if n_tools == 0:
        _say_empty(ax, text("plots.strict.none", lang))
        return ax

    for i in range(len(row_order)):
        for j in range(len(col_order)):
            ax.add_patch(
                Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#f7f7f7", edgecolor="white", linewidth=2, zorder=0)
            )
    filled = set(zip(table[rows].astype(str), table[cols].astype(str)))
    for i, r in enumerate(row_order):
        for j, c in enumerate(col_order):
            if (r, c) not in filled:
                ax.text(
                    j,
                    i,
                    text("plots.no_exchanges", lang),
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="#aaaaaa",
                    zorder=3,
                )
    for cell in table.itertuples(index=False):
        c = cell._asdict()
        i, j = row_order.index(c[rows]), col_order.index(c[cols])
        total = c["tools"]
        if total:
            start = j - 0.44
            for s in STRICT_STATES:
                if c[s]:
                    w = 0.88 * c[s] / total
                    ax.add_patch(
                        Rectangle(
                            (start, i + 0.16),
                            w,
                            0.24,
                            facecolor=STRICT_COLORS[s],
                            edgecolor="white",
                            linewidth=0.5,
                            zorder=2,
                        )
                    )
                    start += w
        ax.text(
            j,
            i - 0.08 if total else i,
            strict_cell_text(c, lang=lang),
            ha="center",
            va="center",
            fontsize=8.5,
            linespacing=1.15,
            color="black" if total else "#777777",
            zorder=3,
            gid=f"strict-cell:{c[rows]}|{c[cols]}",
        )
    ax.set_xlim(-0.5, len(col_order) - 0.5)
    ax.set_ylim(len(row_order) - 0.5, -0.5)
    ax.set_xticks(range(len(col_order)), col_order)
    ax.set_yticks(range(len(row_order)), row_order)
    ax.tick_params(length=0)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    totals = {s: int(table[s].sum()) for s in STRICT_STATES}
    handles: list[Patch | Line2D] = [
        Patch(facecolor=STRICT_COLORS[s], label=_count(s, totals[s], lang)) for s in STRICT_STATES
    ]
    handles.append(Line2D([], [], linestyle="", label=text("plots.strict.bar", lang)))
    ax.legend(
        handles=handles,
        title=text("plots.strict.legend", lang),
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        **_LEGEND,
    )
    return ax


def summary_figure(capture, *, lang: str | None = None):
    """The three plots stacked in one Figure, for the postmortem report, labels in ``lang``.

    Each exchange is counted once: one the HTTP capture and a DSH session log of the same run both hold
    (``recorded_twice``) is shown as it went on the wire, and the title says what was merged.

    The Figure is not registered with pyplot (nothing to close, no global state): a notebook shows it
    when it is a cell's value; ``fig.savefig(path)`` writes it.
    """
    lang = _language(lang)
    with _fonts(lang):
        return _summary_figure(capture, lang=lang)


def _summary_figure(capture, *, lang: str):
    from matplotlib.figure import Figure

    twice = recorded_twice(capture)
    capture = _once(capture, twice)

    n_by = capture.exchanges["endpoint"].nunique()
    t = strict_counts(capture)
    n_rows = t["endpoint"].nunique() if len(t) else 0
    heights = [max(3.8, 0.55 * n_by + 2.2), max(3.0, 0.5 * n_by + 1.8), max(3.0, 1.1 * n_rows + 1.6)]
    fig = Figure(figsize=(12, sum(heights) + 0.6), layout="constrained")
    axes = fig.subplots(3, 1, gridspec_kw={"height_ratios": heights})
    timeline(capture, ax=axes[0], lang=lang)
    errors_by_layer(capture, ax=axes[1], lang=lang)
    strict_matrix(capture, ax=axes[2], lang=lang)
    title = text("plots.summary.title", lang, exchanges=len(capture.exchanges), tools=len(capture.tools))
    for (source, kept), group in twice.groupby(["source", "same_as_source"], sort=False):
        key = "plots.summary.merged_one" if len(group) == 1 else "plots.summary.merged"
        title += "\n" + text(key, lang, n=len(group), source=source, kept=kept)
    fig.suptitle(title, fontsize=13)
    return fig


# ---- the experiment -----------------------------------------------------------------------------

#: ``experiment_rates``: the share of calls DSH would refuse and accept, per variant.
VERDICT_COLORS = {"refused": "#D55E00", "accepted": "#009E73"}  # Okabe-Ito vermillion, bluish green


def experiment_rate_text(k, n, verdict: str, *, lang: str | None = None) -> str:
    """A bar's label in ``lang``: ``"3 of 5 refused"`` (a 0% bar is invisible, so the label names its
    verdict, ``refused`` or ``accepted``); ``"no calls"`` when the variant got none (no rate to show)."""
    lang = _language(lang)
    if _isna(n) or not int(n):
        return text("plots.experiment.no_calls", lang)
    if verdict not in VERDICT_COLORS:
        raise InputError(
            f"experiment_rate_text: unknown verdict {verdict!r}; choose one of {', '.join(VERDICT_COLORS)}"
        )
    return text(f"plots.experiment.rate.{verdict}", lang, k=int(k), n=int(n))


def experiment_rates(summary: pd.DataFrame, *, lang: str | None = None):
    """The refused and the accepted share of each variant's calls (``experiment.summary``), each bar
    with its 95% Wilson interval as an error bar and labelled ``k of n``: with five samples an
    interval is wide, and the plot should say so. Labels in ``lang``; each verdict's bars carry the gid
    ``experiment-rates:<verdict>``. Returns a Figure not registered with pyplot."""
    lang = _language(lang)
    with _fonts(lang):
        return _experiment_rates(summary, lang=lang)


def _experiment_rates(summary: pd.DataFrame, *, lang: str):
    from matplotlib.figure import Figure

    from toolkit.experiment.frames import SUMMARY

    missing = [c for c in SUMMARY.columns if c not in summary.columns]
    if missing:
        raise InputError(f"experiment_rates: not an experiment.summary frame (no column {', '.join(missing)})")
    variants = [str(v) for v in summary["variant"]]
    fig = Figure(figsize=(9, max(2.6, 0.9 * len(variants) + 1.4)), layout="constrained")
    ax = fig.subplots()
    judged = summary["judged"] if "judged" in summary else summary["calls"]  # the rates' denominator
    total = int(judged.fillna(0).sum())
    ax.set_title(text("plots.experiment.title", lang, n=total))
    ax.set_xlabel(text("plots.experiment.xlabel", lang))
    if not variants:
        _say_empty(ax, text("plots.experiment.none", lang))
        return fig
    height = 0.38
    for offset, verdict in ((-height / 2, "refused"), (height / 2, "accepted")):
        rate = [0.0 if _isna(r) else float(r) for r in summary[f"{verdict}_rate"]]
        low = [r if _isna(v) else float(v) for v, r in zip(summary[f"{verdict}_low"], rate)]
        high = [r if _isna(v) else float(v) for v, r in zip(summary[f"{verdict}_high"], rate)]
        y = [i + offset for i in range(len(variants))]
        bars = ax.barh(
            y,
            rate,
            height=height,
            color=VERDICT_COLORS[verdict],
            xerr=[[r - lo for r, lo in zip(rate, low)], [hi - r for r, hi in zip(rate, high)]],
            error_kw={"ecolor": "#333333", "capsize": 3, "elinewidth": 1},
            label=text(f"experiment.col.{verdict}", lang),
            gid=f"experiment-rates:{verdict}",
            zorder=2,
        )
        labels = [experiment_rate_text(k, n, verdict, lang=lang) for k, n in zip(summary[verdict], judged)]
        for bar, hi, label in zip(bars, high, labels):
            ax.text(
                hi + 0.015,
                bar.get_y() + bar.get_height() / 2,
                label,
                va="center",
                ha="left",
                fontsize=8.5,
                gid=f"experiment-rate:{verdict}",
            )
    ax.set_yticks(range(len(variants)), variants)
    ax.set_ylim(len(variants) - 0.5, -0.5)  # first variant on top
    ax.set_xlim(0, 1.27)  # room for the labels right of a 100% bar
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0], ["0%", "25%", "50%", "75%", "100%"])
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    ax.legend(title=text("plots.experiment.legend", lang), loc="upper left", bbox_to_anchor=(1.01, 1.0), **_LEGEND)
    return fig


# ---- language and fonts -------------------------------------------------------------------------

#: The bundled font: the glyphs of the zh-CN plot labels, subset from Noto Sans CJK SC (SIL OFL 1.1,
#: ``fonts/OFL.txt``) by ``lab/subset_font.py``; renamed, as a modified version of the font.
FONT_FAMILY = "Agent Contract CJK"
FONT_FILE = Path(__file__).resolve().parent / "fonts" / "AgentContractCJK-Regular.otf"
#: The messages whose zh-CN texts the bundled font covers: every key the plots render, and the layer
#: and verdict words (``layer.*``, ``verdict.*``) for a notebook's own labels.
FONT_KEYS = tuple(
    sorted(k for k in MESSAGES if k.startswith(("plots.", "layer.", "verdict.")))
    + ["experiment.col.accepted", "experiment.col.refused"]
)
#: Chinese punctuation the font holds even when no text uses it yet (full-width forms DejaVu Sans lacks).
CJK_PUNCTUATION = "、。《》「」【】！（），：；？～"
# CJK blocks: radicals to unified ideographs, compatibility ideographs, vertical/compatibility forms,
# half- and full-width forms
_CJK_BLOCKS = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFE10, 0xFE1F), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF))
# ConciseDateFormatter's formats, zero formats and offset formats with numeric months (zh-CN)
_NUMERIC_DATES: tuple[list[str], list[str], dict[str, Any]] = (
    ["%Y", "%Y-%m", "%m-%d", "%H:%M", "%H:%M", "%H:%M:%S.%f"],
    ["", "%Y", "%Y-%m", "%m-%d", "%H:%M", "%H:%M:%S"],
    {"offset_formats": ["", "%Y", "%Y-%m", "%Y-%m-%d", "%Y-%m-%d", "%Y-%m-%d %H:%M"]},
)


def is_cjk(char: str) -> bool:
    """Whether ``char`` is in a CJK block (ideographs, CJK and full-width punctuation): the characters
    DejaVu Sans has no glyph for, which the bundled font must hold."""
    return any(lo <= ord(char) <= hi for lo, hi in _CJK_BLOCKS)


def font_characters() -> str:
    """The characters the bundled font must hold, sorted: the CJK characters of the zh-CN texts of
    ``FONT_KEYS`` (their literal parts: parameters are data) and ``CJK_PUNCTUATION``."""
    chars = set(CJK_PUNCTUATION)
    for key in FONT_KEYS:
        for literal, _, _, _ in string.Formatter().parse(MESSAGES[key]["zh-CN"]):
            chars.update(c for c in literal if is_cjk(c))
    return "".join(sorted(chars))


def _language(lang: str | None) -> str:
    lang = i18n.language() if lang is None else lang
    if lang not in LANGUAGES:
        raise ValueError(f"plots: unknown language {lang!r}: known {', '.join(LANGUAGES)}")
    return lang


def _families() -> list[str]:
    """The font families with the bundled font as the last fallback (registered once with matplotlib)."""
    import matplotlib as mpl
    from matplotlib import font_manager

    if not any(f.fname == str(FONT_FILE) for f in font_manager.fontManager.ttflist):
        font_manager.fontManager.addfont(str(FONT_FILE))
    families = list(mpl.rcParams["font.family"])
    return families if FONT_FAMILY in families else [*families, FONT_FAMILY]


@contextlib.contextmanager
def _fonts(lang: str) -> Iterator[None]:
    """In zh-CN, the artists made inside fall back to the bundled font (rcParams restored on exit)."""
    if lang == "en":
        yield
        return
    import matplotlib as mpl

    with mpl.rc_context({"font.family": _families()}):
        yield


def _family(lang: str) -> dict[str, Any]:
    """The font families for a text an Axes made before ``_fonts`` (its title and axis labels, when the
    caller passes ``ax``); nothing in English, so English plots are as they were."""
    return {} if lang == "en" else {"fontfamily": _families()}


def _latin(lang: str) -> dict[str, Any]:
    """The font families without the bundled font, for a bold number; nothing in English."""
    import matplotlib as mpl

    return {} if lang == "en" else {"fontfamily": [f for f in mpl.rcParams["font.family"] if f != FONT_FAMILY]}


def _count(label: str, n, lang: str) -> str:
    """A legend entry: ``"completed (252)"``."""
    return text("plots.count", lang, label=label, n=n)


# ---- helpers ------------------------------------------------------------------------------------


def _new_axes(*, width: float, height: float):
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=(width, height), layout="constrained")
    return ax


def _check_column(name: str, frame: pd.DataFrame, where: str) -> None:
    if name not in frame.columns:
        raise InputError(f"no column {name!r} in {where}; choose one of {', '.join(frame.columns)}")


def _renamed(frame: Frame, names: dict[str, str]) -> Frame:
    """``frame`` with its ``by``/``rows``/``cols`` columns named as the caller chose."""
    try:
        return frame.renamed(names)
    except ValueError:
        taken = [c for c in frame.columns if c not in names]
        raise InputError(
            f"{', '.join(names.values())}: cannot be shown beside {frame.name}'s own columns {', '.join(taken)}"
        ) from None


def _labels(values: pd.Series) -> pd.Series:
    """Values as text for an axis; missing ones become ``MISSING``."""
    return values.astype(object).map(lambda v: MISSING if _isna(v) else str(v))


def _order(values: pd.Series) -> list[str]:
    """Labels in their fixed order: a categorical's category order, else sorted; missing last."""
    present = set(_labels(values))
    if isinstance(values.dtype, pd.CategoricalDtype):
        order = [str(c) for c in values.cat.categories if str(c) in present]
    else:
        order = sorted(present - {MISSING, NO_EXCHANGE})
    order += [v for v in sorted(present) if v not in order]
    return order


def _isna(v) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def _exchange_layers(capture) -> pd.Series:
    """Per exchange_id with errors, the first of ``LAYER_ORDER`` among them (one marker per exchange)."""
    from toolkit.analysis.triage import errors

    errs = errors(capture)
    errs = errs[errs["exchange_id"].notna()]
    if errs.empty:
        return pd.Series([], dtype=object)
    rank = errs["layer"].astype(object).map({lay: i for i, lay in enumerate(LAYER_ORDER)})
    first = rank.groupby(errs["exchange_id"].astype(object)).min()
    return first.map(dict(enumerate(LAYER_ORDER)))


__all__ = [
    "CJK_PUNCTUATION",
    "ERROR_COUNTS",
    "FONT_FAMILY",
    "FONT_FILE",
    "FONT_KEYS",
    "LAYER_COLORS",
    "LAYER_MARKERS",
    "LAYER_ORDER",
    "NO_ERROR",
    "NO_RESPONSE",
    "OUTCOMES",
    "OUTCOME_COLORS",
    "RECORDED_TWICE",
    "STRICT_COLORS",
    "STRICT_COUNTS",
    "TIMELINE",
    "VERDICT_COLORS",
    "error_counts",
    "errors_by_layer",
    "experiment_rate_text",
    "experiment_rates",
    "font_characters",
    "is_cjk",
    "recorded_twice",
    "strict_cell_text",
    "strict_counts",
    "strict_matrix",
    "summary_figure",
    "timeline",
    "timeline_data",
]
