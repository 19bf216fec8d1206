"""What the three widgets share: remembered selections and the escaped, deterministic HTML panes.

Views are ``W.HTML`` panes whose ``.value`` is set (never ``W.Output``: nbval cannot compare what an
Output widget captures), and every piece of HTML is escaped and deterministic (no ids, no clock).

A widget remembers its choices per construction (same class and arguments, same capture), so re-running
a notebook cell keeps what was selected (msticpy-style); ``remember=False`` or ``forget_selections()``
turns that off.
"""

from __future__ import annotations

import contextlib
import html
import json
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from toolkit.capture import Capture
from toolkit.knowledge.messages import MESSAGES, render
from toolkit.present.i18n import language, t

__all__ = [
    "CSS",
    "RememberedWidget",
    "capture_key",
    "esc",
    "forget_selections",
    "frame_html",
    "key_json",
    "pane",
    "seq",
]

CSS = (
    "<style>"
    ".tk-view{font-size:12px}.tk-view pre{font-size:11px;line-height:1.35;margin:4px 0;white-space:pre-wrap}"
    ".tk-head{margin:2px 0}.tk-view mark{padding:0 1px}"
    "mark.tk-changed{background:#fde68a}mark.tk-required-added{background:#fecaca}"
    "mark.tk-required-removed{background:#bbf7d0}mark.tk-nullable{background:#bfdbfe}"
    "mark.tk-no-longer-nullable{background:#e9d5ff}mark.tk-ap{background:#fed7aa}"
    ".tk-table td,.tk-table th{text-align:left;vertical-align:top;padding:1px 6px}"
    "</style>"
)

# ---- remembered selections ---------------------------------------------------------------------

_MEMORY: dict[tuple, dict] = {}


def forget_selections() -> None:
    """Forget every remembered widget selection (the next widgets start from their defaults)."""
    _MEMORY.clear()


def key_json(obj: Any) -> str:
    """A construction argument as part of a memory key (stable across runs)."""
    return json.dumps(obj, sort_keys=True, default=str)


def capture_key(capture: Capture) -> tuple:
    """A capture as part of a memory key: its sources and exchange ids, so a re-loaded capture matches."""
    ids = tuple(capture.exchanges["exchange_id"].astype(str))
    return (tuple(str(s) for s in capture.entries["source"]), len(ids), hash(ids), len(capture.events))


def _set_quietly(control: Any, value: Any) -> None:
    """Restore a remembered value if it is still a valid choice."""
    if value is None:
        return
    with contextlib.suppress(Exception):
        control.value = value


class RememberedWidget:
    """Base of the widgets: the selection memory once, and notebook display of ``self.widget``.

    A subclass calls ``_memory_key(...)`` with what identifies its construction, ``_saved()`` /
    ``_restore_controls`` to take the remembered choices, and ``_remember(value)`` after each change.
    """

    _key: tuple | None = None
    widget: Any

    def _memory_key(self, remember: bool, *parts: Any) -> None:
        self._key = (type(self).__name__, *parts) if remember else None

    def _saved(self) -> dict | None:
        return _MEMORY.get(self._key) if self._key else None

    @staticmethod
    def _restore_controls(saved: Mapping[str, Any] | None, controls: Mapping[str, Any]) -> None:
        """Set each control to its remembered value (by name), skipping values no longer valid."""
        for name, control in controls.items():
            _set_quietly(control, (saved or {}).get(name))

    def _remember(self, value: dict) -> None:
        if self._key:
            _MEMORY[self._key] = value

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """The widget's view, with a note to run the cell as its plain-text fallback.

        A stored notebook keeps no widget state (``notebooks/build.py``), so until its cell runs again
        Lab can show only the output's ``text/plain``: ipywidgets' would be the widget tree's repr
        (``VBox(children=(HBox(…``), which tells the reader nothing. The note is in the notebook's
        language, and it is what nbval compares."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = t("widget.run_cell")
        return bundle


# ---- HTML panes --------------------------------------------------------------------------------


def esc(value: Any) -> str:
    """HTML-escaped text (None as empty)."""
    return html.escape("" if value is None else str(value), quote=True)


def seq(values: Iterable[str]) -> str:
    """A list of names for a header: ``a, b`` or ``none`` (in the current language)."""
    values = list(values)
    return ", ".join(values) if values else t("widget.none")


def pane(body: str, *, classes: str = "") -> str:
    """A pane's value: the shared style sheet and ``body`` in a ``tk-view`` div."""
    cls = f"tk-view {classes}".strip()
    return f'{CSS}<div class="{cls}">{body}</div>'


_TABLE_OPTIONS = ("display.precision", 6, "display.max_colwidth", None, "display.float_format", None)


def _cell(value: Any, lang: str) -> Any:
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return render(value, lang)  # a toolkit Message in the reader's language; data as it is


def frame_html(df: pd.DataFrame, *, empty: str | None = None) -> str:
    """A DataFrame as an escaped, deterministic HTML table (``to_html(escape=True, index=False)``), in
    the current language: column headers with a ``widget.col.<name>`` message translated (the others,
    policy names say, as they are) and toolkit ``Message`` cells rendered; ``empty`` (default ``none``)
    is shown for an empty frame."""
    if df.empty:
        return f'<p class="tk-empty">{esc(t("widget.none") if empty is None else empty)}</p>'
    lang = language()
    with pd.option_context(*_TABLE_OPTIONS):
        shown = df.astype(object)
        shown = shown.where(shown.notna(), "")  # NA, NaN, NaT: an empty cell whatever the dtype
        for col in shown.columns:
            shown[col] = shown[col].map(lambda v: _cell(v, lang))
        shown.columns = [t(f"widget.col.{c}") if f"widget.col.{c}" in MESSAGES else c for c in shown.columns]
        return shown.to_html(escape=True, index=False, na_rep="", border=0, classes="tk-table")
