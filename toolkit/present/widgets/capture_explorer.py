"""The capture explorer: filter a capture's exchanges and read one of them.

The logic is plain functions returning DataFrames (``filter_exchanges``, ``exchange_detail``,
``time_options``), tested without a kernel; ``CaptureExplorer`` only wires controls.
"""

from __future__ import annotations

import contextlib
import numbers
import re
from typing import Any

import ipywidgets as W
import pandas as pd

from toolkit.analysis.triage import ERROR_LAYERS, UNKNOWN, errors
from toolkit.capture import Capture
from toolkit.capture.frames import CAPTURE, Frame, declare
from toolkit.present.i18n import t
from toolkit.present.widgets.base import RememberedWidget, capture_key, esc, frame_html, pane

__all__ = [
    "EXCHANGE",
    "FILTERED",
    "FILTER_COLUMNS",
    "LAYER_CHOICES",
    "CaptureExplorer",
    "detail_html",
    "exchange_detail",
    "exchange_label",
    "filter_exchanges",
    "time_options",
]

FILTER_COLUMNS = [
    "exchange_id",
    "started_at",
    "source",
    "endpoint",
    "api",
    "model",
    "status",
    "terminal",
    "error_code",
    "layer",
    "n_errors",
]
LAYER_CHOICES = ("none",) + ERROR_LAYERS + (UNKNOWN,)

#: ``filter_exchanges``: the exchanges' own columns as in the capture, then their error layers.
FILTERED = declare(
    "widgets.exchanges",
    {
        **CAPTURE["exchanges"].select(FILTER_COLUMNS[:-2]).columns,
        "layer": "string",  # "none", or the exchange's error layers joined by ", "
        "n_errors": "Int64",
    },
)
#: ``exchange_detail(...)["exchange"]``: one exchange's row, transposed.
EXCHANGE = declare("widgets.exchange", {"field": "string", "value": object})
_LAYERS = Frame("widgets.layers", {"exchange_id": "string", "layer": "string", "n_errors": "Int64"})
_STATUS_CLASS = re.compile(r"^[1-5]xx$")
_FAILED_TERMINALS = ("http-error", "failed", "cut")


def _utc(t) -> pd.Timestamp:
    ts = pd.Timestamp(t)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def _layers(capture: Capture, triaged: pd.DataFrame | None) -> pd.DataFrame:
    """Per exchange: its error layers (in ``ERROR_LAYERS`` order, then unknown) and how many errors."""
    err = errors(capture) if triaged is None else triaged
    err = err[err["exchange_id"].notna()]
    order = {name: i for i, name in enumerate(ERROR_LAYERS + (UNKNOWN,))}
    rows = []
    for xid, group in err.groupby(err["exchange_id"].astype(str), sort=False):
        names = sorted({str(x) for x in group["layer"].dropna()}, key=lambda n: order.get(n, len(order)))
        rows.append({"exchange_id": xid, "layer": ", ".join(names) or UNKNOWN, "n_errors": len(group)})
    return _LAYERS.from_records(rows)


def filter_exchanges(
    capture: Capture,
    *,
    endpoint: str | None = None,
    model: str | None = None,
    status: int | str | None = None,
    layer: str | None = None,
    start=None,
    end=None,
    triaged: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The exchanges matching every filter given, in capture order, with each one's error ``layer``.

    ``status`` is an HTTP status (``429``), a class (``"2xx"``, ``"4xx"``, ``"5xx"``) or ``"error"``
    (status ≥ 400, or a ``failed``, ``cut`` or ``http-error`` stream). ``layer`` is one of the triage
    layers, ``"unknown"``, or ``"none"`` for exchanges without errors; the layers come from
    ``triage.errors(capture)`` joined by ``exchange_id`` (an exchange with errors in two layers matches
    both, and its ``layer`` column lists both). ``start``/``end`` are inclusive (naive times are UTC);
    exchanges without a time are left out once either is given. ``triaged`` reuses an ``errors()`` frame.
    """
    if layer is not None and layer not in LAYER_CHOICES:
        raise ValueError(f"unknown layer {layer!r}; choose one of {', '.join(LAYER_CHOICES)}")
    ex = capture.exchanges
    keep = pd.Series(True, index=ex.index)
    if endpoint is not None:
        keep &= (ex["endpoint"].astype("string") == str(endpoint)).fillna(False)
    if model is not None:
        keep &= (ex["model"].astype("string") == str(model)).fillna(False)
    if status is not None:
        st = ex["status"].astype("Int64")
        if isinstance(status, str) and _STATUS_CLASS.match(status):
            lo = int(status[0]) * 100
            keep &= ((st >= lo) & (st < lo + 100)).fillna(False)
        elif status == "error":
            keep &= (st >= 400).fillna(False) | ex["terminal"].isin(_FAILED_TERMINALS).fillna(False)
        elif (isinstance(status, numbers.Integral) and not isinstance(status, bool)) or (
            isinstance(status, str) and status.isdigit()
        ):
            keep &= (st == int(status)).fillna(False)
        else:
            raise ValueError(f"unknown status filter {status!r}; give an int, '2xx', '4xx', '5xx' or 'error'")
    if start is not None:
        keep &= (ex["started_at"] >= _utc(start)).fillna(False)
    if end is not None:
        keep &= (ex["started_at"] <= _utc(end)).fillna(False)
    out = ex.loc[keep, list(FILTERED.columns)[:-2]].copy()  # keeps the capture's dtypes and categories
    lay = _layers(capture, triaged)
    by_id = lay.set_index("exchange_id")
    ids = out["exchange_id"].astype(str)
    out["layer"] = pd.array([by_id["layer"].get(i, "none") for i in ids], dtype="string")
    out["n_errors"] = pd.array([int(by_id["n_errors"].get(i, 0)) for i in ids], dtype="Int64")
    if layer is not None:
        mask = [layer in value.split(", ") for value in out["layer"]]
        out = out[mask]
    return out.reset_index(drop=True)


def time_options(capture: Capture, *, max_points: int = 50) -> list[tuple[str, pd.Timestamp]]:
    """Options for the time-range slider: every distinct exchange time when there are at most
    ``max_points``, else whole hours from the first exchange's hour to the hour after the last.
    Labels are ``HH:MM:SS`` (``.mmm`` added when seconds collide; ``MM-DD`` added across days)."""
    times = pd.Series(capture.exchanges["started_at"]).dropna()
    if times.empty:
        return []
    times = sorted(set(times))
    multi_day = times[0].normalize() != times[-1].normalize()
    if len(times) <= max_points:
        fmt = "%H:%M:%S"
        if len({t.strftime(fmt) for t in times}) < len(times):
            labels = [t.strftime(fmt) + f".{t.microsecond // 1000:03d}" for t in times]
            if len(set(labels)) < len(labels):
                labels = [t.strftime(fmt) + f".{t.microsecond:06d}" for t in times]
        else:
            labels = [t.strftime(fmt) for t in times]
        if multi_day:
            labels = [t.strftime("%m-%d ") + lab for t, lab in zip(times, labels)]
        return list(zip(labels, times))
    first = times[0].floor("h")
    last = times[-1].ceil("h")
    if last == first:
        last = first + pd.Timedelta(hours=1)
    hours = list(pd.date_range(first, last, freq="h"))
    multi_day = hours[0].normalize() != (hours[-1] - pd.Timedelta(microseconds=1)).normalize()
    fmt = "%m-%d %H:%M" if multi_day else "%H:%M"
    return [(h.strftime(fmt), h) for h in hours]


def _first_row(capture: Capture, exchange_id: str) -> pd.DataFrame:
    ex = capture.exchanges
    row = ex[ex["exchange_id"].astype(str) == str(exchange_id)]
    if row.empty:
        raise KeyError(f"no exchange {exchange_id!r} in this capture")
    return row.iloc[[0]]


def exchange_detail(
    capture: Capture, exchange_id: str, *, triaged: pd.DataFrame | None = None
) -> dict[str, pd.DataFrame]:
    """One exchange for reading: ``exchange`` (its row transposed: field, value), ``tools`` (name,
    strict_state, required, optional), ``inputs`` (role, item_type, part_type, media_type, byte_size,
    text_preview, image_dropped), ``calls`` (name, call_id, arguments_raw, parse_error, complete) and
    ``errors`` (kind, message, layer, rule_id, fix, from ``triage.errors``). Raises KeyError for an
    unknown id. Values are as redacted in the capture; ``triaged`` reuses an ``errors()`` frame."""
    row = _first_row(capture, exchange_id)
    exchange = EXCHANGE.from_columns({"field": list(row.columns), "value": list(row.iloc[0])})
    sel = lambda df: df[df["exchange_id"].astype(str) == str(exchange_id)]  # noqa: E731
    tools = sel(capture.tools)[["name", "strict_state", "required", "optional"]].reset_index(drop=True)
    inputs = capture.inputs_wide(exchange_ids=[str(exchange_id)])
    inputs = inputs.assign(text_preview=inputs["text"])[
        ["role", "item_type", "part_type", "media_type", "byte_size", "text_preview", "image_dropped"]
    ].reset_index(drop=True)
    calls = sel(capture.calls)[["name", "call_id", "arguments_raw", "parse_error", "complete"]].reset_index(drop=True)
    err = errors(capture) if triaged is None else triaged
    err = err[(err["exchange_id"].astype("string") == str(exchange_id)).fillna(False)]
    err = err[["kind", "message", "layer", "rule_id", "fix"]].reset_index(drop=True)
    return {"exchange": exchange, "tools": tools, "inputs": inputs, "calls": calls, "errors": err}


def detail_html(capture: Capture, exchange_id: str | None, *, triaged: pd.DataFrame | None = None) -> str:
    """``exchange_detail`` as HTML: one heading and table per part."""
    if exchange_id is None:
        return pane(f"<p>{esc(t('widget.no_exchange'))}</p>")
    parts = exchange_detail(capture, exchange_id, triaged=triaged)
    body = [f"<h4>{esc(exchange_id)}</h4>"]
    for name in ("errors", "calls", "tools", "inputs", "exchange"):
        body.append(
            f"<h5>{esc(t(f'widget.part.{name}'))}</h5>" + frame_html(parts[name], empty=t(f"widget.no_part.{name}"))
        )
    return pane("".join(body))


def exchange_label(row) -> str:
    """``14:02:11 gw-coder 200 completed`` for the list of exchanges."""
    t = row["started_at"]
    when = t.strftime("%H:%M:%S") if isinstance(t, pd.Timestamp) and not pd.isna(t) else "--:--:--"
    status = "—" if pd.isna(row["status"]) else str(int(row["status"]))
    model = "—" if pd.isna(row["model"]) else str(row["model"])
    terminal = "—" if pd.isna(row["terminal"]) else str(row["terminal"])
    return f"{when} {model} {status} {terminal}"


def _any(values) -> list[tuple[str, Any]]:
    return [(t("widget.any"), None)] + [(str(v), str(v)) for v in values]


def _any_dropdown(options: list[tuple[str, Any]], description: str) -> Any:
    """A filter dropdown whose first choice, "any", has the value ``None``, shown by its label.

    ipywidgets reads ``value=None`` as "nothing selected" (``index`` None) and shows a blank box, also when
    an option's value is ``None``; so the dropdown starts at index 0 and goes back to it whenever it is
    left without a selection (``control.value = None`` from code)."""
    control = W.Dropdown(options=options, index=0, description=description)

    def _back_to_any(change) -> None:
        if change["new"] is None and control.options:
            control.index = 0

    control.observe(_back_to_any, names="index")
    return control


class CaptureExplorer(RememberedWidget):
    """Filter a capture's exchanges and read one of them.

    Controls: ``endpoint``, ``model``, ``status``, ``layer`` (dropdowns, ``None`` = any), ``time_range``
    (a ``SelectionRangeSlider`` over ``time_options``), ``exchange`` (a ``Select`` of the matching
    exchanges); panes ``count`` and ``detail``. The selected exchange stays selected while the filters
    still contain it.
    """

    def __init__(self, capture: Capture, *, remember: bool = True):
        self.capture = capture
        self._triaged = errors(capture)
        self._memory_key(remember, capture_key(capture))
        ex = capture.exchanges
        self.endpoint = _any_dropdown(_any(sorted(ex["endpoint"].dropna().astype(str).unique())), t("widget.endpoint"))
        self.model = _any_dropdown(_any(sorted(ex["model"].dropna().astype(str).unique())), t("widget.model"))
        statuses = sorted(int(s) for s in ex["status"].dropna().unique())
        self.status = _any_dropdown(
            [
                (t("widget.any"), None),
                ("2xx", "2xx"),
                ("4xx", "4xx"),
                ("5xx", "5xx"),
                (t("widget.status.error"), "error"),
            ]
            + [(str(s), s) for s in statuses],
            t("widget.status"),
        )
        self.layer = _any_dropdown(
            [(t("widget.any"), None)]
            + [(t("widget.layer.none") if c == "none" else c, c) for c in LAYER_CHOICES],  # layer names as they are
            t("widget.layer"),
        )
        self._times = time_options(capture)
        if self._times:
            self.time_range = W.SelectionRangeSlider(
                options=self._times,
                index=(0, len(self._times) - 1),
                description=t("widget.time"),
                layout=W.Layout(width="90%"),
            )
        else:
            self.time_range = W.SelectionRangeSlider(
                options=[(t("widget.no_times"), None)], index=(0, 0), description=t("widget.time"), disabled=True
            )
        self.exchange = W.Select(
            options=[], value=None, rows=10, description=t("widget.exchanges"), layout=W.Layout(width="90%")
        )
        self.count = W.HTML()
        self.detail = W.HTML()
        self._busy = False
        self._wanted = None
        self._restore()
        self._refilter()
        for control in (self.endpoint, self.model, self.status, self.layer, self.time_range):
            control.observe(self._refilter, names="value")
        self.exchange.observe(self._show, names="value")
        self.widget = W.VBox(
            [
                W.HBox([self.endpoint, self.model]),
                W.HBox([self.status, self.layer]),
                self.time_range,
                self.count,
                self.exchange,
                self.detail,
            ]
        )

    def filters(self) -> dict:
        """The current filters, as ``filter_exchanges`` takes them (a full time range is ``None``)."""
        start = end = None
        if self._times and self.time_range.index:
            lo, hi = self.time_range.index
            start = None if lo == 0 else self._times[lo][1]
            end = None if hi == len(self._times) - 1 else self._times[hi][1]
        return {
            "endpoint": self.endpoint.value,
            "model": self.model.value,
            "status": self.status.value,
            "layer": self.layer.value,
            "start": start,
            "end": end,
        }

    @property
    def value(self) -> dict:
        """The current filters plus the selected ``exchange_id`` (None when nothing matches)."""
        return {**self.filters(), "exchange_id": self.exchange.value}

    def matching(self) -> pd.DataFrame:
        return filter_exchanges(self.capture, **self.filters(), triaged=self._triaged)

    def _restore(self) -> None:
        saved = self._saved()
        if not saved:
            return
        self._restore_controls(saved, {n: getattr(self, n) for n in ("endpoint", "model", "status", "layer")})
        if self._times and saved.get("time_index"):
            with contextlib.suppress(Exception):
                self.time_range.index = tuple(saved["time_index"])
        self._wanted = saved.get("exchange_id")

    def _refilter(self, change=None) -> None:
        rows = self.matching()
        options = [(exchange_label(r), str(r["exchange_id"])) for _, r in rows.iterrows()]
        labels = [lab for lab, _ in options]
        if len(set(labels)) < len(labels):  # identical labels: name the exchange too
            options = [(f"{lab} · {xid}", xid) for lab, xid in options]
        ids = [xid for _, xid in options]
        keep = self.exchange.value
        if keep is None:
            keep = getattr(self, "_wanted", None)
            self._wanted = None
        self._busy = True
        try:
            self.exchange.options = options
            self.exchange.value = keep if keep in ids else (ids[0] if ids else None)
        finally:
            self._busy = False
        total = len(self.capture.exchanges)
        self.count.value = f"<div>{esc(t('widget.count', n=len(ids), total=total))}</div>"
        self._show()

    def _show(self, change=None) -> None:
        if self._busy:
            return
        self.detail.value = detail_html(self.capture, self.exchange.value, triaged=self._triaged)
        self._remember({**self.value, "time_index": tuple(self.time_range.index) if self._times else None})
