"""The execution what-if: which policy change would have avoided each captured failure.

The logic is ``whatif_table`` (a DataFrame from ``execution.replay`` and ``whatif.whatif``), tested
without a kernel; ``WhatIfExplorer`` only wires controls.
"""

from __future__ import annotations

import dataclasses

import ipywidgets as W
import pandas as pd

from toolkit.analysis.whatif import POLICIES, WHATIF, whatif
from toolkit.capture import Capture
from toolkit.capture.frames import declare
from toolkit.knowledge import dsh_runtime as rt
from toolkit.layers.execution import DEFAULT_DSH, REPLAY, replay
from toolkit.present.i18n import language, t
from toolkit.present.widgets.base import RememberedWidget, capture_key, esc, frame_html, pane, seq

__all__ = ["WHATIF_BASE_COLUMNS", "WHATIF_TABLE", "WhatIfExplorer", "session_mode", "whatif_table"]


# mode: the session's mode the call ran under; granted_mode: what an approved escalation granted it
WHATIF_BASE_COLUMNS = ["call_id", "tool", "mode", "granted_mode", "mode_source", "baseline", "baseline_stage"]

#: ``whatif_table`` with every policy; a call with ``policies=`` has only those policy columns, in that order.
WHATIF_TABLE = declare(
    "widgets.whatif_table",
    {
        **{c: "string" for c in WHATIF_BASE_COLUMNS[:-1]},
        "mode_source": REPLAY.columns["mode_source"],  # the replay's Message, rendered in the table
        "baseline_stage": REPLAY.columns["stage"],
        **{p: WHATIF.columns["outcome"] for p in POLICIES},  # missing: the model of DSH does not cover the call
        "note": REPLAY.columns["note"],
    },
)


def session_mode(capture: Capture) -> str | None:
    """The sandbox mode a DSH session starts in (its first ``sandbox/mode`` event), or None."""
    ev = capture.events
    if ev.empty:
        return None
    for row in ev[ev["type"] == "sandbox/mode"].itertuples(index=False):
        if isinstance(row.payload, dict) and row.payload.get("mode"):
            return row.payload["mode"]
    return None


def _session_modes(capture: Capture) -> set[str]:
    ev = capture.events
    if ev.empty:
        return set()
    payloads = (r.payload for r in ev[ev["type"] == "sandbox/mode"].itertuples(index=False))
    return {str(p["mode"]) for p in payloads if isinstance(p, dict) and isinstance(p.get("mode"), str)}


def _with_mode(capture: Capture, mode: str) -> Capture:
    """The capture as if every ``sandbox/mode`` event had set ``mode`` (a what-if on the session's mode)."""
    ev = capture.events.copy()
    is_mode = (ev["type"] == "sandbox/mode").to_numpy()
    ev["payload"] = [
        {**p, "mode": mode, "source": "what-if"} if m and isinstance(p, dict) else p
        for p, m in zip(ev["payload"], is_mode)
    ]
    return dataclasses.replace(capture, events=ev)


def whatif_table(capture: Capture, *, mode: str | None = None, dsh: str = DEFAULT_DSH, policies=None) -> pd.DataFrame:
    """One row per captured call: DSH's baseline verdict (``baseline``: its message, ``runs``, or empty
    with a ``note`` for calls the model of DSH does not cover) and one column per policy with the
    outcome (``avoided``, ``still fails``, ``newly fails``, ``no failure``), from ``execution.replay``
    and ``whatif.whatif``.

    ``mode`` is the sandbox mode for an HTTP capture; for a DSH session, whose ``sandbox/mode`` events
    decide the mode, a ``mode`` other than the recorded one replays the session as if it had run in
    that mode throughout. ``policies`` defaults to every policy in ``whatif.POLICIES``.
    """
    if mode is not None and mode not in rt.MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(rt.MODES)}")
    policies = list(POLICIES) if policies is None else list(policies)
    bad = [p for p in policies if p not in POLICIES]
    if bad:
        raise ValueError(f"unknown policy {bad[0]!r}; choose from {', '.join(POLICIES)}")
    recorded = _session_modes(capture)
    if mode is not None and recorded and recorded != {mode}:
        capture = _with_mode(capture, mode)
    base = replay(capture, mode=mode, dsh=dsh)
    columns: dict[str, list] = {c: list(base[c]) for c in ("call_id", "tool", "mode", "granted_mode", "mode_source")}
    columns["baseline"] = [
        None if pd.isna(ok) else (msg if not ok else "runs") for ok, msg in zip(base["ok"], base["message"])
    ]
    columns["baseline_stage"] = list(base["stage"])
    modelled = base["ok"].notna().to_numpy()
    outcomes = {p: [pd.NA] * len(base) for p in policies}
    if policies and modelled.any():
        wi = whatif(capture, mode=mode, dsh=dsh, policies=policies)
        # whatif judges each call once (distinct_calls: a HAR and DSH's log of one run carry the same call);
        # every replay row of that call gets its outcomes
        by_call: dict[tuple, dict] = {}
        for r in wi.itertuples(index=False):
            by_call.setdefault((r.call_id, r.tool), {})[r.policy] = r.outcome
        for i in (i for i, m in enumerate(modelled) if m):
            got = by_call.get((base["call_id"].iloc[i], base["tool"].iloc[i]))
            if got is None or set(got) != set(policies):  # a modelled call whatif did not judge: a bug, not data
                raise RuntimeError(f"whatif() has no outcome for call {base['call_id'].iloc[i]!r}")
            for p in policies:
                outcomes[p][i] = got[p]
    columns.update(outcomes)
    columns["note"] = list(base["note"])
    return WHATIF_TABLE.select([*WHATIF_BASE_COLUMNS, *policies, "note"]).from_columns(columns)


def _shown_table(table: pd.DataFrame) -> pd.DataFrame:
    """``whatif_table`` as a reader sees it: the outcome words and ``runs`` in the current language
    (DSH's messages, call ids, modes and policy names as they are). English: the table itself."""
    if language() == "en":
        return table
    out = table.astype(object)
    for p in POLICIES:
        if p in out.columns:
            out[p] = out[p].map(lambda v: t(f"execution.outcome.{v}") if isinstance(v, str) else v)
    # "runs" is whatif_table's own word for a call DSH runs; any other baseline is DSH's message, verbatim
    out["baseline"] = out["baseline"].map(
        lambda v: t("widget.whatif.runs") if isinstance(v, str) and v == "runs" else v
    )
    return out


class WhatIfExplorer(RememberedWidget):
    """Which policy change would have avoided each captured failure, for a chosen mode and DSH version.

    Controls: ``mode`` (default: the session's mode when the capture has ``sandbox/mode`` events, else
    the ``mode`` given, else ``danger-full-access``), ``dsh`` (version), ``policies`` (a
    ``SelectMultiple``, all selected); pane ``table``.
    """

    def __init__(self, capture: Capture, mode: str | None = None, *, remember: bool = True):
        if mode is not None and mode not in rt.MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(rt.MODES)}")
        self.capture = capture
        self.given_mode = mode
        self.recorded_mode = session_mode(capture)
        default = self.recorded_mode or mode or "danger-full-access"
        self._memory_key(remember, capture_key(capture), mode)
        self.mode = W.Dropdown(options=list(rt.MODES), value=default, description=t("widget.mode"))
        self.dsh = W.Dropdown(options=list(rt.VERSIONS), value=DEFAULT_DSH, description=t("widget.dsh"))
        self.policies = W.SelectMultiple(
            options=list(POLICIES), value=tuple(POLICIES), rows=len(POLICIES), description=t("widget.policies")
        )
        self.table = W.HTML()
        self._restore_controls(self._saved(), {"mode": self.mode, "dsh": self.dsh, "policies": self.policies})
        self._update()
        for control in (self.mode, self.dsh, self.policies):
            control.observe(self._update, names="value")
        self.widget = W.VBox([W.HBox([self.mode, self.dsh]), self.policies, self.table])

    @property
    def value(self) -> dict:
        """The current choices: ``{"mode", "dsh", "policies"}``."""
        return {"mode": self.mode.value, "dsh": self.dsh.value, "policies": tuple(self.policies.value)}

    def result(self) -> pd.DataFrame:
        v = self.value
        return whatif_table(self.capture, mode=v["mode"], dsh=v["dsh"], policies=list(v["policies"]))

    def _update(self, change=None) -> None:
        v = self.value
        if self.recorded_mode is None:
            where = t(
                "widget.whatif.given"
                if v["mode"] == self.given_mode
                else (
                    "widget.whatif.default"
                    if self.given_mode is None and v["mode"] == "danger-full-access"
                    else "widget.whatif.chosen"
                )
            )
        elif _session_modes(self.capture) == {v["mode"]}:
            where = t("widget.whatif.own")
        else:
            where = t("widget.whatif.what_if", mode=self.recorded_mode)
        line = t(
            "widget.whatif.head",
            mode=f"<b>{esc(v['mode'])}</b>",
            where=esc(where),
            dsh=esc(v["dsh"]),
            policies=esc(seq(v["policies"])),
        )
        head = f'<div class="tk-head">{line}</div>'
        table = frame_html(_shown_table(self.result()), empty=t("widget.whatif.no_calls"))
        self.table.value = pane(head + table)
        self._remember(v)
