"""Notebook widgets: the strict-variant comparer, the capture explorer and the execution what-if.

Each widget is a thin class over plain functions that return dicts or DataFrames (``variant_view``,
``compare_views``, ``diff_html``; ``filter_exchanges``, ``exchange_detail``, ``time_options``;
``whatif_table``), so the logic is tested without a kernel. Views are ``W.HTML`` panes whose ``.value``
is set (never ``W.Output``: nbval cannot compare what an Output widget captures), and every piece of HTML
is escaped and deterministic (no ids, no clock). Presentation only: the CLI does not import this module.

A widget remembers its choices per construction (same class and arguments, same capture), so re-running
a notebook cell keeps what was selected; ``remember=False`` or ``forget_selections()`` turns that off.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import html
import json
import numbers
import re
from typing import Any

import ipywidgets as W
import pandas as pd

from toolkit.analysis.triage import LAYERS, UNKNOWN, errors
from toolkit.analysis.whatif import POLICIES, whatif
from toolkit.capture import Capture
from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge.dsh_tools import BASH_DESCRIPTION, SCHEMAS, schema_for
from toolkit.knowledge.pi_ai import DEFAULT_VERSION
from toolkit.knowledge.pi_ai import VERSIONS as PI_AI_VERSIONS
from toolkit.knowledge.pi_ai_tools import APIS
from toolkit.layers.execution import DEFAULT_DSH, replay
from toolkit.layers.serialization import PiAiRefusal, convert_tools, strict_state, variants

__all__ = [
    "APIS",
    "COMPATS",
    "DSH_VERSIONS",
    "GATEWAYS",
    "MODES",
    "CaptureExplorer",
    "StrictVariantComparer",
    "WhatIfExplorer",
    "compare_views",
    "detail_html",
    "diff_html",
    "exchange_detail",
    "filter_exchanges",
    "forget_selections",
    "frame_html",
    "session_mode",
    "time_options",
    "tool_definition",
    "variant_view",
    "whatif_table",
]

COMPATS = ("unset", "true", "false")  # compat.supportsStrictMode
GATEWAYS = ("pass-through", "reads absent as strict", "forces strict")
DSH_TOOLS = tuple(SCHEMAS)  # bash, pwsh, write, edit
DSH_VERSIONS = ("0.1.1-rc.2", "0.1.6-alpha.2", "0.1.7-rc.2")
MODES = rt.MODES

_COMPAT_OBJ = {"unset": None, "true": {"supportsStrictMode": True}, "false": {"supportsStrictMode": False}}

# the rows of serialization.variants(), by name
_V_PASS = "absent, pass-through gateway"
_V_NORMALISED = "absent, gateway reads absence as strict"
_V_FALSE = "false"
_V_NULL = "null (Codex)"
_V_TRUE = "true, pi-ai's strict transform"

READ_NON_STRICT = "non-strict"
READ_NORMALISED = "strict by the gateway's normalisation"
READ_TRANSFORMED = "strict (pi-ai's transform)"
READ_NOT_SENT = "not sent"

_CSS = (
    "<style>"
    ".tk-view{font-size:12px}.tk-view pre{font-size:11px;line-height:1.35;margin:4px 0;white-space:pre-wrap}"
    ".tk-head{margin:2px 0}.tk-view mark{padding:0 1px}"
    "mark.tk-changed{background:#fde68a}mark.tk-required-added{background:#fecaca}"
    "mark.tk-required-removed{background:#bbf7d0}mark.tk-nullable{background:#bfdbfe}"
    "mark.tk-no-longer-nullable{background:#e9d5ff}mark.tk-ap{background:#fed7aa}"
    ".tk-table td,.tk-table th{text-align:left;vertical-align:top;padding:1px 6px}"
    "</style>"
)

# ---- remembered selections (msticpy-style: re-running a cell keeps the choices) ------------------

_MEMORY: dict[tuple, dict] = {}


def forget_selections() -> None:
    """Forget every remembered widget selection (the next widgets start from their defaults)."""
    _MEMORY.clear()


def _key_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def _capture_key(capture: Capture) -> tuple:
    ids = tuple(capture.exchanges["exchange_id"].astype(str))
    return (tuple(str(s) for s in capture.entries["source"]), len(ids), hash(ids), len(capture.events))


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


# =================================================================================================
# 1. Strict-variant comparer
# =================================================================================================


def tool_definition(tool: str | dict) -> dict:
    """The pi-ai tool definition for a DSH tool name (schema from ``dsh_tools``; bash and pwsh with
    ``BASH_DESCRIPTION``, write and edit have no description there), or a copy of a given definition
    (a Chat Completions tool nested under ``function`` is flattened)."""
    if isinstance(tool, str):
        if tool not in SCHEMAS:
            raise ValueError(
                f"unknown DSH tool {tool!r}; choose one of {', '.join(DSH_TOOLS)} or pass a definition dict"
            )
        return {
            "name": tool,
            "description": BASH_DESCRIPTION if tool in ("bash", "pwsh") else None,
            "parameters": schema_for(tool),
        }
    if not isinstance(tool, dict):
        raise TypeError(f"tool must be a DSH tool name or a pi-ai tool definition dict, not {type(tool).__name__}")
    tool = copy.deepcopy(tool)
    if isinstance(tool.get("function"), dict):
        tool = {k: v for k, v in tool.items() if k not in ("function", "type")} | tool["function"]
    return tool


def _flat(tool: dict) -> dict:
    if isinstance(tool.get("function"), dict):
        return {"type": tool.get("type", "function"), **tool["function"]}
    return dict(tool)


def variant_view(tool: str | dict, *, api: str, compat: str, gateway: str, pi_ai: str = DEFAULT_VERSION) -> dict:
    """What the model effectively receives for ``tool`` on a route: what pi-ai sends (``convert_tools``),
    its strict state, how the gateway reads it, and the schema and obligations that follow (the row of
    ``serialization.variants`` that applies).

    ``compat`` is ``compat.supportsStrictMode`` (``"unset"``, ``"true"``, ``"false"``); ``gateway`` is
    ``"pass-through"`` (as sent: strict only when ``strict: true``), ``"reads absent as strict"``
    (absent or null → OpenAI's normalisation: every property required, ``additionalProperties: false``,
    nothing made nullable) or ``"forces strict"`` (as if ``true``: pi-ai's transform when pi-ai made
    one, otherwise the same normalisation). Returns ``sent_strict``, ``read_as``, ``schema``,
    ``required``, ``optional``, ``nullable``, ``additional_properties``, ``must_send``, plus the
    choices, the ``variant`` row used, ``description`` and the ``sent`` tool.
    """
    if compat not in _COMPAT_OBJ:
        raise ValueError(f"unknown compat {compat!r}; choose one of {', '.join(COMPATS)}")
    if gateway not in GATEWAYS:
        raise ValueError(f"unknown gateway {gateway!r}; choose one of {', '.join(GATEWAYS)}")
    definition = tool_definition(tool)
    base = {
        "tool": definition.get("name"),
        "description": definition.get("description"),
        "api": api,
        "compat": compat,
        "gateway": gateway,
        "pi_ai": pi_ai,
    }
    try:
        sent = _flat(convert_tools([definition], api=api, compat=_COMPAT_OBJ[compat], pi_ai=pi_ai)[0])
    except PiAiRefusal as exc:
        return {
            **base,
            "variant": None,
            "sent": None,
            "sent_strict": "not sent",
            "read_as": READ_NOT_SENT,
            "schema": None,
            "required": (),
            "optional": (),
            "nullable": (),
            "additional_properties": None,
            "must_send": f"nothing: pi-ai refuses before sending ({exc})",
        }
    state = strict_state(sent)
    if gateway == "pass-through":
        name = {"absent": _V_PASS, "null": _V_NULL, "false": _V_FALSE, "true": _V_TRUE}[state]
    elif gateway == "reads absent as strict":
        name = {"absent": _V_NORMALISED, "null": _V_NORMALISED, "false": _V_FALSE, "true": _V_TRUE}[state]
    else:
        name = _V_TRUE if state == "true" else _V_NORMALISED
    row = variants(definition).set_index("variant").loc[name]
    read_as = {_V_TRUE: READ_TRANSFORMED, _V_NORMALISED: READ_NORMALISED}.get(name, READ_NON_STRICT)
    # the schema as the gateway passes it on: what was sent, unless the gateway normalised it
    schema = row["schema"] if name == _V_NORMALISED else sent.get("parameters")
    return {
        **base,
        "variant": name,
        "sent": sent,
        "sent_strict": state,
        "read_as": read_as,
        "schema": copy.deepcopy(schema),
        "required": tuple(row["required"]),
        "optional": tuple(row["optional"]),
        "nullable": tuple(row["nullable"]),
        "additional_properties": row["additional_properties"],
        "must_send": row["must_send"],
    }


def _props(view: dict) -> list[str]:
    schema = view.get("schema") or {}
    return list((schema.get("properties") or {}) if isinstance(schema, dict) else {})


def compare_views(left: dict, right: dict) -> dict:
    """What changes from the ``left`` view to the ``right`` one: per property (``properties``: name →
    list of changes), and as lists (``required_added``, ``required_removed``, ``became_nullable``,
    ``no_longer_nullable``, ``properties_added``, ``properties_removed``); ``additional_properties``,
    ``sent_strict``, ``read_as`` and ``must_send`` are ``{"left", "right"}`` when they differ, else None."""
    lp, rp = _props(left), _props(right)
    names = lp + [p for p in rp if p not in lp]
    lreq, rreq = set(left.get("required") or ()), set(right.get("required") or ())
    lnull, rnull = set(left.get("nullable") or ()), set(right.get("nullable") or ())
    out: dict[str, Any] = {
        k: []
        for k in (
            "required_added",
            "required_removed",
            "became_nullable",
            "no_longer_nullable",
            "properties_added",
            "properties_removed",
        )
    }
    per: dict[str, list[str]] = {}
    for p in names:
        changes = []
        # (left set, right set, key and label when gained, key and label when lost)
        for left_set, right_set, gained, lost in (
            (lp, rp, ("properties_added", "property added"), ("properties_removed", "property removed")),
            (lreq, rreq, ("required_added", "required added"), ("required_removed", "required removed")),
            (lnull, rnull, ("became_nullable", "became nullable"), ("no_longer_nullable", "no longer nullable")),
        ):
            if p in right_set and p not in left_set:
                key, label = gained
            elif p in left_set and p not in right_set:
                key, label = lost
            else:
                continue
            out[key].append(p)
            changes.append(label)
        if changes:
            per[p] = changes
    out["properties"] = per
    for key in ("additional_properties", "sent_strict", "read_as", "must_send"):
        a, b = left.get(key), right.get(key)
        out[key] = None if a == b else {"left": a, "right": b}
    out["changed"] = bool(per) or any(out[k] is not None for k in ("additional_properties", "sent_strict", "read_as"))
    return out


def _json_lines(
    value: Any, path: tuple = (), indent: int = 0, prefix: str = "", comma: str = ""
) -> list[tuple[str, tuple]]:
    """``json.dumps(value, indent=2)`` line by line, each line with the JSON path it belongs to."""
    pad = "  " * indent
    if isinstance(value, dict) and value:
        items = list(value.items())
        lines = [(f"{pad}{prefix}{{", path)]
        for i, (k, v) in enumerate(items):
            lines += _json_lines(
                v,
                path + (k,),
                indent + 1,
                json.dumps(str(k), ensure_ascii=False) + ": ",
                "," if i < len(items) - 1 else "",
            )
        return lines + [(f"{pad}}}{comma}", path)]
    if isinstance(value, list) and value:
        lines = [(f"{pad}{prefix}[", path)]
        for i, v in enumerate(value):
            lines += _json_lines(v, path + (i,), indent + 1, "", "," if i < len(value) - 1 else "")
        return lines + [(f"{pad}]{comma}", path)]
    return [(f"{pad}{prefix}{json.dumps(value, ensure_ascii=False, default=str)}{comma}", path)]


def _schema_html(
    schema: Any,
    *,
    required_marks: dict[str, tuple[str, str]],
    block_marks: dict[str, tuple[str, str]],
    ap_mark: tuple[str, str] | None,
) -> str:
    """Pretty JSON with the lines of changed parts wrapped in ``<mark class=… title=…>``."""
    req = list(schema.get("required") or []) if isinstance(schema, dict) else []
    line_marks: dict[tuple, tuple[str, str]] = {}
    for i, name in enumerate(req):
        if name in required_marks:
            line_marks[("required", i)] = required_marks[name]
    out, seen_key_line = [], set()
    for text, path in _json_lines(schema):
        mark = None
        if len(path) >= 2 and path[0] == "properties" and path[1] in block_marks:
            mark = block_marks[path[1]]
        elif len(path) == 2 and path[0] == "properties" and path[1] in required_marks and path not in seen_key_line:
            seen_key_line.add(path)
            mark = required_marks[path[1]]
        elif path in line_marks:
            mark = line_marks[path]
        elif path[:1] == ("additionalProperties",) and ap_mark:
            mark = ap_mark
        out.append(f'<mark class="{mark[0]}" title="{_esc(mark[1])}">{_esc(text)}</mark>' if mark else _esc(text))
    return "\n".join(out)


def _seq(values) -> str:
    return ", ".join(values) if values else "none"


def _view_html(view: dict, cmp: dict, side: str) -> str:
    def hl(key: str, text: str) -> str:
        return f'<mark class="tk-changed" title="differs from the other side">{text}</mark>' if cmp.get(key) else text

    ap = view.get("additional_properties")
    head = [
        f'<div class="tk-head"><b>{_esc(view["tool"])}</b> · {_esc(view["api"])} · compat.supportsStrictMode '
        f"{_esc(view['compat'])} · gateway {_esc(view['gateway'])} · pi-ai {_esc(view['pi_ai'])}</div>",
        f'<div class="tk-head">sent strict: {hl("sent_strict", "<code>" + _esc(view["sent_strict"]) + "</code>")} · '
        f"read as: {hl('read_as', _esc(view['read_as']))} · additionalProperties: "
        f"{hl('additional_properties', '<code>' + _esc(ap) + '</code>')}</div>",
        f'<div class="tk-head">must send: {hl("must_send", _esc(view["must_send"]))}</div>',
        f'<div class="tk-head">required: {_esc(_seq(view["required"]))} · optional: {_esc(_seq(view["optional"]))}'
        f" · nullable: {_esc(_seq(view['nullable']))}</div>",
    ]
    desc = view.get("description")
    head.append(
        f"<details><summary>description</summary><div>{_esc(desc)}</div></details>"
        if desc
        else '<div class="tk-head">description: none</div>'
    )
    if view.get("schema") is None:
        body = "<p>no schema reaches the model</p>"
    else:
        if side == "right":
            required = {p: ("tk-required-added", "required added") for p in cmp["required_added"]}
            blocks = {p: ("tk-nullable", "became nullable") for p in cmp["became_nullable"]}
        else:
            required = {p: ("tk-required-removed", "required on this side only") for p in cmp["required_removed"]}
            blocks = {p: ("tk-no-longer-nullable", "nullable on this side only") for p in cmp["no_longer_nullable"]}
        ap_mark = ("tk-ap", "additionalProperties differs") if cmp.get("additional_properties") else None
        body = (
            '<pre class="tk-schema">'
            + _schema_html(view["schema"], required_marks=required, block_marks=blocks, ap_mark=ap_mark)
            + "</pre>"
        )
    return f'{_CSS}<div class="tk-view tk-{side}">' + "".join(head) + body + "</div>"


def diff_html(left: dict, right: dict) -> tuple[str, str]:
    """The two views side by side as HTML: a header (sent strict, read as, additionalProperties, must
    send) and the schema as pretty JSON, with required / nullable / additionalProperties changes marked."""
    cmp = compare_views(left, right)
    return _view_html(left, cmp, "left"), _view_html(right, cmp, "right")


def summary_html(left: dict, right: dict) -> str:
    """One line: what changes from left to right."""
    cmp = compare_views(left, right)
    parts = []
    for key, label in (
        ("sent_strict", "sent strict"),
        ("read_as", "read as"),
        ("additional_properties", "additionalProperties"),
    ):
        if cmp[key]:
            parts.append(f"{label} {cmp[key]['left']} → {cmp[key]['right']}")
    for key, label in (
        ("required_added", "now required"),
        ("required_removed", "no longer required"),
        ("became_nullable", "now nullable"),
        ("no_longer_nullable", "no longer nullable"),
        ("properties_added", "added"),
        ("properties_removed", "removed"),
    ):
        if cmp[key]:
            parts.append(f"{label}: {', '.join(cmp[key])}")
    text = "; ".join(parts) if parts else "no difference in what the model must send"
    return f'<div class="tk-summary"><b>left → right:</b> {_esc(text)}</div>'


_SIDE_DEFAULTS = {
    "left": {
        "api": "openai-responses",
        "compat": "unset",
        "gateway": "reads absent as strict",
        "pi_ai": DEFAULT_VERSION,
    },
    "right": {
        "api": "openai-responses",
        "compat": "true",
        "gateway": "reads absent as strict",
        "pi_ai": DEFAULT_VERSION,
    },
}
_SIDE_OPTIONS = {"api": APIS, "compat": COMPATS, "gateway": GATEWAYS, "pi_ai": PI_AI_VERSIONS}


def _checked_side(side: str, given: dict | None) -> dict:
    given = dict(given or {})
    unknown = sorted(set(given) - set(_SIDE_OPTIONS))
    if unknown:
        raise ValueError(f"unknown {side} choice {unknown[0]!r}; choose from {', '.join(_SIDE_OPTIONS)}")
    out = {**_SIDE_DEFAULTS[side], **given}
    for k, v in out.items():
        if v not in _SIDE_OPTIONS[k]:
            raise ValueError(f"unknown {side} {k} {v!r}; choose one of {', '.join(_SIDE_OPTIONS[k])}")
    return out


class StrictVariantComparer:
    """Two routes side by side: what the model receives for one tool, and what changes between them.

    Defaults: left is the incident (openai-responses, compat unset, a gateway that reads absent as
    strict), right is the fix (``compat.supportsStrictMode: true``, same gateway). Controls:
    ``tool``, and per side ``left_api``/``left_compat``/``left_gateway``/``left_pi_ai`` (and ``right_…``,
    also as ``controls["left"]["api"]``); panes ``left_pane``, ``right_pane``, ``summary``.
    """

    def __init__(
        self, tool: str | dict = "bash", left: dict | None = None, right: dict | None = None, *, remember: bool = True
    ):
        options: list[tuple[str, Any]] = [(t, t) for t in DSH_TOOLS]
        if isinstance(tool, dict):
            definition = tool_definition(tool)
            options.append((f"{definition.get('name')} (given)", tool))
        else:
            tool_definition(tool)  # validates the name
        sides = {"left": _checked_side("left", left), "right": _checked_side("right", right)}
        self._key = ("StrictVariantComparer", _key_json(tool), _key_json(left), _key_json(right)) if remember else None
        self.tool = W.Dropdown(options=options, value=tool, description="tool")
        self.controls: dict[str, dict[str, W.Dropdown]] = {}
        for side, choices in sides.items():
            self.controls[side] = {
                k: W.Dropdown(options=list(_SIDE_OPTIONS[k]), value=choices[k], description=k.replace("_", "-"))
                for k in _SIDE_OPTIONS
            }
        c = self.controls
        self.left_api, self.left_compat, self.left_gateway, self.left_pi_ai = (c["left"][k] for k in _SIDE_OPTIONS)
        self.right_api, self.right_compat, self.right_gateway, self.right_pi_ai = (c["right"][k] for k in _SIDE_OPTIONS)
        self.left_pane, self.right_pane, self.summary = W.HTML(), W.HTML(), W.HTML()
        # stable selectors for the browser test (tests/e2e); none on ``tool``, whose repr starts the
        # 110-character text/plain that nbval compares
        for side, ctl in c.items():
            for k, dd in ctl.items():
                dd.add_class(f"tk-cmp-{side}-{k.replace('_', '-')}")
        self.left_pane.add_class("tk-cmp-left-pane")
        self.right_pane.add_class("tk-cmp-right-pane")
        self.summary.add_class("tk-cmp-summary")
        self._restore()
        self._update()
        for dd in [self.tool, *c["left"].values(), *c["right"].values()]:
            dd.observe(self._update, names="value")

        def box(side, pane):
            return W.VBox(
                [W.HTML(f"<b>{side}</b>"), *c[side].values(), pane],
                layout=W.Layout(width="50%"),
            )

        self.widget = W.VBox(
            [self.tool, self.summary, W.HBox([box("left", self.left_pane), box("right", self.right_pane)])]
        )
        self.widget.add_class("tk-cmp")

    @property
    def value(self) -> dict:
        """The current choices: ``{"tool", "left": {api, compat, gateway, pi_ai}, "right": {…}}``."""
        return {
            "tool": self.tool.value,
            **{side: {k: dd.value for k, dd in ctl.items()} for side, ctl in self.controls.items()},
        }

    def views(self) -> tuple[dict, dict]:
        """The two ``variant_view`` dicts for the current choices."""
        v = self.value
        return (variant_view(v["tool"], **v["left"]), variant_view(v["tool"], **v["right"]))

    def _restore(self) -> None:
        saved = _MEMORY.get(self._key) if self._key else None
        if not saved:
            return
        _set_quietly(self.tool, saved.get("tool"))
        for side, ctl in self.controls.items():
            for k, dd in ctl.items():
                _set_quietly(dd, (saved.get(side) or {}).get(k))

    def _update(self, change=None) -> None:
        left, right = self.views()
        self.left_pane.value, self.right_pane.value = diff_html(left, right)
        self.summary.value = summary_html(left, right)
        if self._key:
            _MEMORY[self._key] = self.value

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


def _set_quietly(control, value) -> None:
    """Restore a remembered value if it is still a valid choice."""
    if value is None:
        return
    with contextlib.suppress(Exception):
        control.value = value


# =================================================================================================
# 2. Capture explorer
# =================================================================================================

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
LAYER_CHOICES = ("none",) + LAYERS + (UNKNOWN,)
_STATUS_CLASS = re.compile(r"^[1-5]xx$")
_FAILED_TERMINALS = ("http-error", "failed", "cut")


def _utc(t) -> pd.Timestamp:
    ts = pd.Timestamp(t)
    return ts.tz_localize("UTC") if ts.tzinfo is None else ts.tz_convert("UTC")


def _layers(capture: Capture, triaged: pd.DataFrame | None) -> pd.DataFrame:
    """Per exchange: its error layers (in ``LAYERS`` order, then unknown) and how many errors."""
    err = errors(capture) if triaged is None else triaged
    err = err[err["exchange_id"].notna()]
    order = {name: i for i, name in enumerate(LAYERS + (UNKNOWN,))}
    rows = []
    for xid, group in err.groupby(err["exchange_id"].astype(str), sort=False):
        names = sorted({str(x) for x in group["layer"].dropna()}, key=lambda n: order.get(n, len(order)))
        rows.append({"exchange_id": xid, "layer": ", ".join(names) or UNKNOWN, "n_errors": len(group)})
    return pd.DataFrame(rows, columns=["exchange_id", "layer", "n_errors"])


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
    out = ex.loc[keep, [c for c in FILTER_COLUMNS if c in ex.columns]].copy()
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
    exchange = pd.DataFrame({"field": list(row.columns), "value": pd.Series(list(row.iloc[0]), dtype=object)})
    sel = lambda df: df[df["exchange_id"].astype(str) == str(exchange_id)]  # noqa: E731
    tools = sel(capture.tools)[["name", "strict_state", "required", "optional"]].reset_index(drop=True)
    inputs = sel(capture.inputs)
    inputs = inputs.assign(text_preview=inputs["text"])[
        ["role", "item_type", "part_type", "media_type", "byte_size", "text_preview", "image_dropped"]
    ].reset_index(drop=True)
    calls = sel(capture.calls)[["name", "call_id", "arguments_raw", "parse_error", "complete"]].reset_index(drop=True)
    err = errors(capture) if triaged is None else triaged
    err = err[(err["exchange_id"].astype("string") == str(exchange_id)).fillna(False)]
    err = err[["kind", "message", "layer", "rule_id", "fix"]].reset_index(drop=True)
    return {"exchange": exchange, "tools": tools, "inputs": inputs, "calls": calls, "errors": err}


_TABLE_OPTIONS = ("display.precision", 6, "display.max_colwidth", None, "display.float_format", None)


def _cell(value: Any) -> Any:
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def frame_html(df: pd.DataFrame, *, empty: str = "none") -> str:
    """A DataFrame as an escaped, deterministic HTML table (``to_html(escape=True, index=False)``)."""
    if df.empty:
        return f'<p class="tk-empty">{_esc(empty)}</p>'
    with pd.option_context(*_TABLE_OPTIONS):
        shown = df.astype(object)
        shown = shown.where(shown.notna(), "")  # NA, NaN, NaT: an empty cell whatever the dtype
        for col in shown.columns:
            shown[col] = shown[col].map(_cell)
        return shown.to_html(escape=True, index=False, na_rep="", border=0, classes="tk-table")


def detail_html(capture: Capture, exchange_id: str | None, *, triaged: pd.DataFrame | None = None) -> str:
    """``exchange_detail`` as HTML: one heading and table per part."""
    if exchange_id is None:
        return f'{_CSS}<div class="tk-view"><p>no exchange selected</p></div>'
    parts = exchange_detail(capture, exchange_id, triaged=triaged)
    body = [f"<h4>{_esc(exchange_id)}</h4>"]
    for name in ("errors", "calls", "tools", "inputs", "exchange"):
        body.append(f"<h5>{_esc(name)}</h5>" + frame_html(parts[name], empty=f"no {name}"))
    return f'{_CSS}<div class="tk-view">' + "".join(body) + "</div>"


def exchange_label(row) -> str:
    """``14:02:11 gw-coder 200 completed`` for the list of exchanges."""
    t = row["started_at"]
    when = t.strftime("%H:%M:%S") if isinstance(t, pd.Timestamp) and not pd.isna(t) else "--:--:--"
    status = "—" if pd.isna(row["status"]) else str(int(row["status"]))
    model = "—" if pd.isna(row["model"]) else str(row["model"])
    terminal = "—" if pd.isna(row["terminal"]) else str(row["terminal"])
    return f"{when} {model} {status} {terminal}"


def _any(values) -> list[tuple[str, Any]]:
    return [("any", None)] + [(str(v), str(v)) for v in values]


class CaptureExplorer:
    """Filter a capture's exchanges and read one of them.

    Controls: ``endpoint``, ``model``, ``status``, ``layer`` (dropdowns, ``None`` = any), ``time_range``
    (a ``SelectionRangeSlider`` over ``time_options``), ``exchange`` (a ``Select`` of the matching
    exchanges); panes ``count`` and ``detail``. The selected exchange stays selected while the filters
    still contain it.
    """

    def __init__(self, capture: Capture, *, remember: bool = True):
        self.capture = capture
        self._triaged = errors(capture)
        self._key = ("CaptureExplorer", _capture_key(capture)) if remember else None
        ex = capture.exchanges
        self.endpoint = W.Dropdown(
            options=_any(sorted(ex["endpoint"].dropna().astype(str).unique())), value=None, description="endpoint"
        )
        self.model = W.Dropdown(
            options=_any(sorted(ex["model"].dropna().astype(str).unique())), value=None, description="model"
        )
        statuses = sorted(int(s) for s in ex["status"].dropna().unique())
        self.status = W.Dropdown(
            options=[("any", None), ("2xx", "2xx"), ("4xx", "4xx"), ("5xx", "5xx"), ("error", "error")]
            + [(str(s), s) for s in statuses],
            value=None,
            description="status",
        )
        self.layer = W.Dropdown(
            options=[("any", None)] + [(c, c) for c in LAYER_CHOICES], value=None, description="layer"
        )
        self._times = time_options(capture)
        if self._times:
            self.time_range = W.SelectionRangeSlider(
                options=self._times, index=(0, len(self._times) - 1), description="time", layout=W.Layout(width="90%")
            )
        else:
            self.time_range = W.SelectionRangeSlider(
                options=[("no times", None)], index=(0, 0), description="time", disabled=True
            )
        self.exchange = W.Select(options=[], value=None, rows=10, description="exchanges", layout=W.Layout(width="90%"))
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
        saved = _MEMORY.get(self._key) if self._key else None
        if not saved:
            return
        for name in ("endpoint", "model", "status", "layer"):
            _set_quietly(getattr(self, name), saved.get(name))
        if self._times and saved.get("time_index"):
            with contextlib.suppress(Exception):
                self.time_range.index = tuple(saved["time_index"])
        self._wanted = saved.get("exchange_id")

    def _remember(self) -> None:
        if self._key:
            _MEMORY[self._key] = {**self.value, "time_index": tuple(self.time_range.index) if self._times else None}

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
        self.count.value = f"<div>{len(ids)} of {total} exchanges match</div>"
        self._show()

    def _show(self, change=None) -> None:
        if self._busy:
            return
        self.detail.value = detail_html(self.capture, self.exchange.value, triaged=self._triaged)
        self._remember()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


# =================================================================================================
# 3. Execution what-if
# =================================================================================================

WHATIF_BASE_COLUMNS = ["call_id", "tool", "effective_mode", "mode_source", "baseline", "baseline_stage"]


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
    return {
        r.payload.get("mode")
        for r in ev[ev["type"] == "sandbox/mode"].itertuples(index=False)
        if isinstance(r.payload, dict)
    }


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
    if mode is not None and mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    policies = list(POLICIES) if policies is None else list(policies)
    bad = [p for p in policies if p not in POLICIES]
    if bad:
        raise ValueError(f"unknown policy {bad[0]!r}; choose from {', '.join(POLICIES)}")
    recorded = _session_modes(capture)
    if mode is not None and recorded and recorded != {mode}:
        capture = _with_mode(capture, mode)
    base = replay(capture, mode=mode, dsh=dsh)
    out = pd.DataFrame(
        {
            "call_id": base["call_id"],
            "tool": base["tool"],
            "effective_mode": base["effective_mode"],
            "mode_source": base["mode_source"],
            "baseline": [
                None if pd.isna(ok) else (msg if not ok else "runs") for ok, msg in zip(base["ok"], base["message"])
            ],
            "baseline_stage": base["stage"],
        }
    )
    modelled = base["ok"].notna().to_numpy()
    outcomes = {p: [pd.NA] * len(base) for p in policies}
    if policies and modelled.any():
        wi = whatif(capture, mode=mode, dsh=dsh, policies=policies)
        positions = [i for i, m in enumerate(modelled) if m]
        for n, i in enumerate(positions):
            chunk = wi.iloc[n * len(policies) : (n + 1) * len(policies)]
            if list(chunk["call_id"]) != [base["call_id"].iloc[i]] * len(policies):  # whatif's row order changed
                raise RuntimeError("whatif() rows no longer follow replay()'s call order")
            for p, outcome in zip(chunk["policy"], chunk["outcome"]):
                outcomes[p][i] = outcome
    for p in policies:
        out[p] = pd.array(outcomes[p], dtype="string")
    out["note"] = base["note"]
    for col in ("call_id", "tool", "effective_mode", "mode_source", "baseline", "baseline_stage", "note"):
        out[col] = out[col].astype("string")
    return out


class WhatIfExplorer:
    """Which policy change would have avoided each captured failure, for a chosen mode and DSH version.

    Controls: ``mode`` (default: the session's mode when the capture has ``sandbox/mode`` events, else
    the ``mode`` given, else ``danger-full-access``), ``dsh`` (version), ``policies`` (a
    ``SelectMultiple``, all selected); pane ``table``.
    """

    def __init__(self, capture: Capture, mode: str | None = None, *, remember: bool = True):
        if mode is not None and mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        self.capture = capture
        self.given_mode = mode
        self.recorded_mode = session_mode(capture)
        default = self.recorded_mode or mode or "danger-full-access"
        self._key = ("WhatIfExplorer", _capture_key(capture), mode) if remember else None
        self.mode = W.Dropdown(options=list(MODES), value=default, description="mode")
        self.dsh = W.Dropdown(options=list(DSH_VERSIONS), value=DEFAULT_DSH, description="DSH")
        self.policies = W.SelectMultiple(
            options=list(POLICIES), value=tuple(POLICIES), rows=len(POLICIES), description="policies"
        )
        self.table = W.HTML()
        saved = _MEMORY.get(self._key) if self._key else None
        if saved:
            for name in ("mode", "dsh", "policies"):
                _set_quietly(getattr(self, name), saved.get(name))
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
            where = (
                "given"
                if v["mode"] == self.given_mode
                else ("default" if self.given_mode is None and v["mode"] == "danger-full-access" else "chosen")
            )
        elif _session_modes(self.capture) == {v["mode"]}:
            where = "the session's own mode"
        else:
            where = f"what-if: the session ran in {self.recorded_mode}"
        head = (
            f'<div class="tk-head">mode <b>{_esc(v["mode"])}</b> ({_esc(where)}) · DSH {_esc(v["dsh"])} · '
            f"policies: {_esc(_seq(v['policies']))}</div>"
        )
        table = frame_html(self.result(), empty="no tool calls in this capture")
        self.table.value = f'{_CSS}<div class="tk-view">{head}{table}</div>'
        if self._key:
            _MEMORY[self._key] = v

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
