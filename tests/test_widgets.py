"""Notebook widgets, driven without a kernel or browser: set a control's ``.value``, the observers run
synchronously, and the HTML panes' ``.value`` is what a notebook would show (notebooks.md §7)."""

from __future__ import annotations

import dataclasses
import html
import json

import pandas as pd
import pytest
from conftest import REPO
from traitlets import TraitError

import toolkit
from toolkit.analysis.triage import errors
from toolkit.analysis.whatif import POLICIES
from toolkit.present import widgets as w
from toolkit.present.widgets.capture_explorer import EXCHANGE, FILTERED
from toolkit.present.widgets.whatif_explorer import WHATIF_TABLE

DATA = REPO / "data"
FIXTURES = REPO / "tests" / "fixtures"
ESCALATION = ("sandbox_permissions", "justification")


@pytest.fixture(autouse=True)
def _fresh_memory():
    w.forget_selections()
    yield
    w.forget_selections()


@pytest.fixture(scope="module")
def har():
    return toolkit.load_capture(DATA / "before-fix" / "capture.har")


@pytest.fixture(scope="module")
def busy():
    return toolkit.load_capture(DATA / "busy-day" / "gateway.jsonl")


@pytest.fixture(scope="module")
def session():
    return toolkit.load_capture(DATA / "dsh-before-fix" / "session.jsonl.zstd")  # written by DSH 0.1.0-rc.8


def _text(fragment: str) -> str:
    """What a reader sees: tags removed, entities decoded."""
    import re

    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


# ---- 1. strict-variant comparer: logic -----------------------------------------------------------


def test_variant_view_incident_and_fix():
    incident = w.variant_view("bash", api="openai-responses", compat="unset", gateway="reads absent as strict")
    assert incident["sent_strict"] == "absent"
    assert incident["read_as"] == w.READ_NORMALISED
    assert set(ESCALATION) <= set(incident["required"]) and incident["optional"] == ()
    assert incident["nullable"] == () and incident["additional_properties"] == "false"
    assert incident["schema"]["additionalProperties"] is False
    assert incident["must_send"].startswith("every field")

    fix = w.variant_view("bash", api="openai-responses", compat="true", gateway="reads absent as strict")
    assert fix["sent_strict"] == "false" and fix["read_as"] == w.READ_NON_STRICT
    assert fix["required"] == ("command", "description")
    assert set(ESCALATION) <= set(fix["optional"])
    assert fix["additional_properties"] == "absent" and "additionalProperties" not in fix["schema"]
    assert fix["must_send"] == "command, description; the other 5 may be left out"


def test_variant_view_reuses_the_serialization_rows():
    from toolkit.layers.serialization import variants

    rows = variants(w.tool_definition("bash")).set_index("variant")
    view = w.variant_view("bash", api="openai-responses", compat="unset", gateway="reads absent as strict")
    row = rows.loc["absent, gateway reads absence as strict"]
    assert view["variant"] == "absent, gateway reads absence as strict"
    assert view["must_send"] == row["must_send"] and view["schema"] == row["schema"]


@pytest.mark.parametrize(
    "api, compat, gateway, sent, read_as, justification_required",
    [
        ("openai-responses", "unset", "pass-through", "absent", w.READ_NON_STRICT, False),
        ("openai-responses", "false", "reads absent as strict", "absent", w.READ_NORMALISED, True),
        ("openai-responses", "true", "forces strict", "false", w.READ_NORMALISED, True),
        ("openai-codex-responses", "unset", "pass-through", "null", w.READ_NON_STRICT, False),
        ("openai-codex-responses", "unset", "reads absent as strict", "null", w.READ_NORMALISED, True),
        ("openai-completions", "unset", "reads absent as strict", "absent", w.READ_NORMALISED, True),
        ("openai-completions", "true", "pass-through", "false", w.READ_NON_STRICT, False),
    ],
)
def test_variant_view_per_gateway(api, compat, gateway, sent, read_as, justification_required):
    view = w.variant_view("bash", api=api, compat=compat, gateway=gateway)
    assert (view["sent_strict"], view["read_as"]) == (sent, read_as)
    assert ("justification" in view["required"]) is justification_required
    assert view["nullable"] == ()  # nothing is made nullable unless pi-ai transformed the schema


def test_variant_view_pi_ai_transform_when_strict_true():
    tool = {**w.tool_definition("bash"), "constrainedSampling": {"type": "json_schema"}}
    for gateway in w.GATEWAYS:
        view = w.variant_view(tool, api="openai-responses", compat="true", gateway=gateway)
        assert view["sent_strict"] == "true" and view["read_as"] == w.READ_TRANSFORMED
        assert "justification" in view["required"] and "justification" in view["nullable"]
        assert view["schema"] == view["sent"]["parameters"]


def test_variant_view_pi_ai_0_73_1_and_refusal():
    old = w.variant_view(
        "bash", api="openai-responses", compat="unset", gateway="reads absent as strict", pi_ai="0.73.1"
    )
    assert old["sent_strict"] == "false" and old["read_as"] == w.READ_NON_STRICT
    tool = {**w.tool_definition("bash"), "constrainedSampling": {"type": "json_schema", "strict": "require"}}
    refused = w.variant_view(tool, api="openai-responses", compat="unset", gateway="pass-through")
    assert refused["sent_strict"] == "not sent" and refused["schema"] is None
    assert "requires JSON-schema constrained sampling" in refused["must_send"]


def test_variant_view_tools_and_bad_choices():
    # The description DSH 0.1.0-rc.8's pwsh tool registered in a sandboxed composition (lab/dsh-fixtures).
    recorded = json.loads((FIXTURES / "dsh" / "schemas.json").read_text())["schemas"]
    pwsh = next(s for s in recorded if s["tool"] == "pwsh" and s["composition"] == "confined")
    view = w.variant_view("pwsh", api="openai-responses", compat="unset", gateway="pass-through")
    assert view["description"] == pwsh["description"] and view["schema"] == pwsh["parameters"]
    write = w.variant_view("write", api="openai-responses", compat="unset", gateway="forces strict")
    assert write["tool"] == "write" and set(ESCALATION) <= set(write["required"])
    nested = {
        "type": "function",
        "function": {
            "name": "x",
            "description": "d",
            "parameters": {"type": "object", "properties": {"a": {"type": "string"}}, "required": []},
        },
    }
    assert w.variant_view(nested, api="openai-completions", compat="unset", gateway="pass-through")["optional"] == (
        "a",
    )
    for bad in ({"compat": "yes"}, {"gateway": "sometimes"}, {"api": "anthropic"}):
        with pytest.raises(ValueError):
            w.variant_view("bash", **{"api": "openai-responses", "compat": "unset", "gateway": "pass-through", **bad})
    with pytest.raises(ValueError, match="unknown DSH tool"):
        w.variant_view("read_image", api="openai-responses", compat="unset", gateway="pass-through")


def test_compare_views_marks_each_property():
    left = w.variant_view("bash", api="openai-responses", compat="unset", gateway="reads absent as strict")
    right = w.variant_view("bash", api="openai-responses", compat="true", gateway="reads absent as strict")
    cmp = w.compare_views(left, right)
    assert cmp["required_removed"] == ["timeoutMs", "workdir", "run_in_background", *ESCALATION]
    assert cmp["required_added"] == [] and cmp["properties"]["justification"] == ["required removed"]
    assert cmp["additional_properties"] == {"left": "false", "right": "absent"}
    assert cmp["sent_strict"] == {"left": "absent", "right": "false"}
    back = w.compare_views(right, left)
    assert back["required_added"] == cmp["required_removed"]

    tool = {**w.tool_definition("bash"), "constrainedSampling": {"type": "json_schema"}}
    transformed = w.variant_view(tool, api="openai-responses", compat="true", gateway="pass-through")
    to_strict = w.compare_views(left, transformed)
    assert to_strict["became_nullable"] == ["timeoutMs", "workdir", "run_in_background", *ESCALATION]
    assert to_strict["required_added"] == [] and to_strict["additional_properties"] is None
    assert not w.compare_views(left, left)["changed"]


def test_diff_html_highlights_and_header():
    left = w.variant_view("bash", api="openai-responses", compat="unset", gateway="reads absent as strict")
    fix = w.variant_view("bash", api="openai-responses", compat="true", gateway="reads absent as strict")
    lhtml, rhtml = w.diff_html(fix, left)
    assert 'class="tk-required-added" title="required added">    &quot;justification&quot;</mark>' in rhtml
    assert 'class="tk-ap"' in rhtml and "additionalProperties&quot;: false" in rhtml
    assert "sent strict: " in _text(rhtml) and "must send: every field" in _text(rhtml)
    assert "must send: command, description" in _text(lhtml)
    # the pretty JSON is the schema, exactly
    pre = lhtml.split('<pre class="tk-schema">')[1].split("</pre>")[0]
    assert json.loads(_text(pre)) == fix["schema"]


# ---- 1. strict-variant comparer: widget ----------------------------------------------------------


def test_comparer_defaults_are_incident_and_fix():
    cmp = w.StrictVariantComparer(tool="bash")
    assert cmp.value == {
        "tool": "bash",
        "left": {"api": "openai-responses", "compat": "unset", "gateway": "reads absent as strict", "pi_ai": "1.6.0"},
        "right": {"api": "openai-responses", "compat": "true", "gateway": "reads absent as strict", "pi_ai": "1.6.0"},
    }
    assert "sent strict: absent" in _text(cmp.left_pane.value)
    assert "sent strict: false" in _text(cmp.right_pane.value)
    assert "sent strict absent → false" in _text(cmp.summary.value)
    assert cmp.widget.children[0] is cmp.tool
    assert cmp.controls["left"]["compat"] is cmp.left_compat


def test_comparer_compat_switch_updates_the_pane():
    cmp = w.StrictVariantComparer(tool="bash", right={"compat": "unset"})
    assert "sent strict: absent" in _text(cmp.right_pane.value)
    assert "must send: every field" in _text(cmp.right_pane.value)
    assert "no difference" in _text(cmp.summary.value)
    cmp.right_compat.value = "true"
    assert "sent strict: false" in _text(cmp.right_pane.value)
    assert "must send: command, description; the other 5 may be left out" in _text(cmp.right_pane.value)
    assert "no longer required: timeoutMs" in _text(cmp.summary.value)


def test_comparer_gateway_forces_strict_makes_justification_required():
    cmp = w.StrictVariantComparer()
    assert 'class="tk-required-added"' not in cmp.right_pane.value
    cmp.right_gateway.value = "forces strict"
    right = cmp.views()[1]
    assert "justification" in right["required"]
    assert 'title="required added">    &quot;justification&quot;' not in cmp.right_pane.value  # same as left now
    cmp.left_gateway.value = "pass-through"
    assert (
        'class="tk-required-added" title="required added">    &quot;justification&quot;</mark>' in cmp.right_pane.value
    )
    assert "now required: timeoutMs, workdir, run_in_background, sandbox_permissions, justification" in _text(
        cmp.summary.value
    )


def test_comparer_tool_and_api_changes():
    cmp = w.StrictVariantComparer()
    cmp.tool.value = "edit"
    assert "<b>edit</b>" in cmp.left_pane.value and "old_string" in cmp.left_pane.value
    cmp.left_api.value = "openai-codex-responses"
    assert "sent strict: null" in _text(cmp.left_pane.value)
    cmp.left_pi_ai.value = "0.73.1"
    assert cmp.value["left"] == {
        "api": "openai-codex-responses",
        "compat": "unset",
        "gateway": "reads absent as strict",
        "pi_ai": "0.73.1",
    }


def test_comparer_invalid_choices_raise():
    cmp = w.StrictVariantComparer()
    for control, bad in (
        (cmp.left_api, "anthropic-messages"),
        (cmp.right_compat, "maybe"),
        (cmp.left_gateway, "strict"),
        (cmp.tool, "read_image"),
    ):
        with pytest.raises(TraitError):
            control.value = bad
    with pytest.raises(ValueError):
        w.StrictVariantComparer(left={"gateway": "sometimes"})
    with pytest.raises(ValueError):
        w.StrictVariantComparer(tool="nope")


def test_comparer_escapes_descriptions_and_is_deterministic():
    tool = {
        "name": "evil<b>",
        "description": 'runs <script>alert("x")</script> & more',
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "string", "description": "<img src=x>"}},
            "required": [],
        },
    }
    cmp = w.StrictVariantComparer(tool=tool)
    assert cmp.tool.value == tool
    pane = cmp.left_pane.value
    assert "<script>" not in pane and "&lt;script&gt;" in pane and "&amp; more" in pane
    assert "<img" not in pane and "&lt;img src=x&gt;" in pane
    assert "<b>evil&lt;b&gt;</b>" in pane
    again = w.StrictVariantComparer(tool=tool, remember=False)
    assert (again.left_pane.value, again.right_pane.value, again.summary.value) == (
        cmp.left_pane.value,
        cmp.right_pane.value,
        cmp.summary.value,
    )
    for pane in (cmp.left_pane.value, cmp.right_pane.value):
        assert "id=" not in pane


def test_comparer_keeps_choices_when_the_cell_is_rerun():
    first = w.StrictVariantComparer()
    first.right_gateway.value = "pass-through"
    rerun = w.StrictVariantComparer()
    assert rerun.value == first.value and rerun.right_pane.value == first.right_pane.value
    assert w.StrictVariantComparer(remember=False).right_gateway.value == "reads absent as strict"
    assert w.StrictVariantComparer(tool="write").right_gateway.value == "reads absent as strict"  # other arguments
    w.forget_selections()
    assert w.StrictVariantComparer().right_gateway.value == "reads absent as strict"


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def test_each_widget_displays_its_box_with_a_note_to_run_the_cell(busy, session):
    """What a notebook stores for a widget (IPython's own formatter): the box's view, and as plain text a note
    to run the cell, not the box's repr; the note is all a reader sees before the cell runs (no widget state)."""
    from IPython.core.formatters import DisplayFormatter

    for widget in (w.StrictVariantComparer(), w.CaptureExplorer(busy), w.WhatIfExplorer(session)):
        data, _ = DisplayFormatter().format(widget)
        assert data[WIDGET_VIEW]["model_id"] == widget.widget.model_id, type(widget).__name__
        assert data["text/plain"] == "Run this cell to use the widget.", type(widget).__name__


# ---- 2. capture explorer: logic ------------------------------------------------------------------


def test_filter_exchanges_narrows(busy):
    everything = w.filter_exchanges(busy)
    assert len(everything) == len(busy.exchanges) == 300
    assert list(everything.columns) == w.FILTER_COLUMNS
    gw = w.filter_exchanges(busy, endpoint="127.0.0.1/busy/gateway/v1")
    assert len(gw) == 143 and set(gw["endpoint"].astype(str)) == {"127.0.0.1/busy/gateway/v1"}
    coder = w.filter_exchanges(busy, endpoint="127.0.0.1/busy/gateway/v1", model="gw-coder")
    assert 0 < len(coder) < len(gw) and set(coder["model"].astype(str)) == {"gw-coder"}
    assert len(w.filter_exchanges(busy, status=429)) == 19
    assert len(w.filter_exchanges(busy, status="4xx")) == 19
    assert len(w.filter_exchanges(busy, status="5xx")) == 9
    assert len(w.filter_exchanges(busy, status="2xx")) == 272
    failed = w.filter_exchanges(busy, status="error")
    assert len(failed) > 28 and {"cut", "failed"} <= set(failed["terminal"].astype(str))
    with pytest.raises(ValueError):
        w.filter_exchanges(busy, status="teapot")


def test_filter_exchanges_layers_come_from_triage(busy, session):
    err = errors(busy)
    for layer in err["layer"].dropna().unique():
        hit = w.filter_exchanges(busy, layer=str(layer))
        assert set(hit["exchange_id"]) == set(err.loc[err["layer"] == layer, "exchange_id"].dropna())
        assert (hit["n_errors"] >= 1).all() and hit["layer"].str.contains(str(layer)).all()
    none = w.filter_exchanges(busy, layer="none")
    assert set(none["exchange_id"]) == set(busy.exchanges["exchange_id"]) - set(err["exchange_id"].dropna())
    assert (none["layer"] == "none").all() and (none["n_errors"] == 0).all()
    # every failed exchange is triaged, so none of them is in layer "none"
    assert w.filter_exchanges(busy, layer="none", status="error").empty
    assert len(w.filter_exchanges(busy, layer="transport-gateway", status="error")) == len(
        w.filter_exchanges(busy, status="error")
    )
    s = w.filter_exchanges(session)
    assert list(s["layer"]) == ["runtime-policy", "runtime-policy", "config-capability", "none"]
    assert list(w.filter_exchanges(session, layer="config-capability")["exchange_id"]) == ["session.jsonl.zstd:t1s3"]
    with pytest.raises(ValueError):
        w.filter_exchanges(session, layer="wire")


def test_filter_exchanges_time_bounds_are_inclusive(busy, har):
    nine, ten = pd.Timestamp("2026-11-29 09:00", tz="UTC"), pd.Timestamp("2026-11-29 10:00", tz="UTC")
    hour = w.filter_exchanges(busy, start=nine, end=ten)
    assert len(hour) > 0 and hour["started_at"].between(nine, ten).all()
    assert len(w.filter_exchanges(busy, start="2026-11-29 09:00")) == (busy.exchanges["started_at"] >= nine).sum()
    t = list(har.exchanges["started_at"])
    assert list(w.filter_exchanges(har, start=t[1], end=t[2])["exchange_id"]) == ["capture.har:1", "capture.har:2"]


def test_time_options_bounds(busy, har):
    hourly = w.time_options(busy)
    assert [lab for lab, _ in hourly] == [f"{h:02d}:00" for h in range(6, 19)]
    first, last = busy.exchanges["started_at"].min(), busy.exchanges["started_at"].max()
    assert hourly[0][1] <= first and hourly[-1][1] >= last
    per_exchange = w.time_options(har)
    assert [v for _, v in per_exchange] == list(har.exchanges["started_at"])
    # labels are the exchange times to the millisecond (the lab re-records them, so read them off the capture)
    assert [lab for lab, _ in per_exchange] == [t.strftime("%H:%M:%S.%f")[:12] for t in har.exchanges["started_at"]]
    assert w.time_options(busy) == hourly


def test_exchange_detail(har, session):
    d = w.exchange_detail(har, "capture.har:0")
    assert set(d) == {"exchange", "tools", "inputs", "calls", "errors"}
    ex = d["exchange"].set_index("field")["value"]
    assert ex["exchange_id"] == "capture.har:0" and ex["model"] == "gw-coder" and ex["status"] == 200
    assert list(d["tools"].columns) == ["name", "strict_state", "required", "optional"]
    assert list(d["tools"]["name"]) == ["bash", "read_image"] and set(d["tools"]["strict_state"]) == {"absent"}
    assert list(d["inputs"].columns) == [
        "role",
        "item_type",
        "part_type",
        "media_type",
        "byte_size",
        "text_preview",
        "image_dropped",
    ]
    assert d["inputs"]["image_dropped"].any()
    assert list(d["calls"].columns) == ["name", "call_id", "arguments_raw", "parse_error", "complete"]
    assert list(d["calls"]["call_id"]) == ["call_0001"]
    assert d["errors"].empty and list(d["errors"].columns) == ["kind", "message", "layer", "rule_id", "fix"]
    s = w.exchange_detail(session, "session.jsonl.zstd:t1s1")
    assert list(s["errors"]["rule_id"]) == ["dsh-invalid-justification"]
    assert list(s["errors"]["layer"].astype(str)) == ["runtime-policy"]
    with pytest.raises(KeyError):
        w.exchange_detail(har, "nope")


# ---- 2. capture explorer: widget -----------------------------------------------------------------


def test_explorer_starts_unfiltered(busy):
    ex = w.CaptureExplorer(busy)
    assert ex.value == {
        "endpoint": None,
        "model": None,
        "status": None,
        "layer": None,
        "start": None,
        "end": None,
        "exchange_id": "gateway.jsonl:1",
    }
    assert len(ex.exchange.options) == 300 and "300 of 300" in ex.count.value
    assert ex.exchange.options[0] == ("06:00:00 gw-text-mini 200 completed", "gateway.jsonl:1")
    assert ex.time_range.value == (w.time_options(busy)[0][1], w.time_options(busy)[-1][1])
    assert "<h4>gateway.jsonl:1</h4>" in ex.detail.value


def test_explorer_filters_narrow_the_list(busy):
    ex = w.CaptureExplorer(busy)
    ex.status.value = 429
    assert len(ex.exchange.options) == 19 and all(" 429 " in lab for lab, _ in ex.exchange.options)
    ex.status.value = None
    ex.layer.value = "transport-gateway"
    err = errors(busy)
    assert len(ex.exchange.options) == err.loc[err["layer"] == "transport-gateway", "exchange_id"].nunique()
    ex.endpoint.value = "127.0.0.1/busy/gateway-chat/v1"
    ids = [i for _, i in ex.exchange.options]
    expected = w.filter_exchanges(busy, endpoint="127.0.0.1/busy/gateway-chat/v1", layer="transport-gateway")
    assert ids == list(expected["exchange_id"])
    # .value reproduces the list through the logic function
    filters = {k: v for k, v in ex.value.items() if k != "exchange_id"}
    assert list(w.filter_exchanges(busy, **filters)["exchange_id"]) == ids
    ex.layer.value = "none"
    ex.status.value = "error"
    assert ex.exchange.options == () and ex.value["exchange_id"] is None
    assert "no exchange selected" in ex.detail.value


def test_explorer_time_slider(busy):
    ex = w.CaptureExplorer(busy)
    opts = w.time_options(busy)
    ex.time_range.index = (3, 4)  # 09:00 to 10:00
    assert ex.value["start"] == opts[3][1] and ex.value["end"] == opts[4][1]
    got = w.filter_exchanges(busy, start=opts[3][1], end=opts[4][1])
    assert [i for _, i in ex.exchange.options] == list(got["exchange_id"])
    assert all(lab.startswith("09:") or lab.startswith("10:00") for lab, _ in ex.exchange.options)
    ex.time_range.index = (0, len(opts) - 1)
    assert ex.value["start"] is None and ex.value["end"] is None and len(ex.exchange.options) == 300


def test_explorer_keeps_the_selection_while_the_filters_contain_it(busy):
    ex = w.CaptureExplorer(busy)
    target = w.filter_exchanges(busy, status=500).iloc[2]
    ex.exchange.value = target["exchange_id"]
    assert f"<h4>{target['exchange_id']}</h4>" in ex.detail.value
    ex.status.value = "5xx"
    assert ex.exchange.value == target["exchange_id"]
    ex.endpoint.value = str(target["endpoint"])
    assert ex.exchange.value == target["exchange_id"]
    ex.status.value = "2xx"  # no longer contains it: the first match is selected
    assert ex.exchange.value != target["exchange_id"]
    assert ex.exchange.value == ex.exchange.options[0][1]
    assert f"<h4>{ex.exchange.value}</h4>" in ex.detail.value


def test_explorer_detail_pane_and_session(session):
    ex = w.CaptureExplorer(session)
    assert ex.value["exchange_id"] == "session.jsonl.zstd:t1s1"
    assert "dsh-invalid-justification" in ex.detail.value
    assert "invalid justification: expected a non-empty sentence" in _text(ex.detail.value)
    ex.layer.value = "config-capability"
    assert ex.value["exchange_id"] == "session.jsonl.zstd:t1s3"
    assert "dsh-read-image-undeclared" in ex.detail.value
    labels = [lab for lab, _ in w.CaptureExplorer(session, remember=False).exchange.options]
    assert len(set(labels)) == len(labels)


def test_explorer_invalid_choices_raise(busy):
    ex = w.CaptureExplorer(busy)
    for control, bad in (
        (ex.endpoint, "nowhere"),
        (ex.status, 418),
        (ex.layer, "wire"),
        (ex.model, "gpt-9"),
        (ex.exchange, "gateway.jsonl:999"),
    ):
        with pytest.raises(TraitError):
            control.value = bad
    with pytest.raises(TraitError):
        ex.time_range.value = (pd.Timestamp("2020-01-01", tz="UTC"), pd.Timestamp("2020-01-02", tz="UTC"))


def test_explorer_escapes_and_is_deterministic(har):
    evil = '<script>alert("x")</script>'
    calls = har.calls.copy()
    calls["arguments_raw"] = calls["arguments_raw"].astype(object)
    calls.loc[0, "arguments_raw"] = evil
    cap = dataclasses.replace(har, calls=calls)
    one, two = w.CaptureExplorer(cap, remember=False), w.CaptureExplorer(cap, remember=False)
    assert "<script>" not in one.detail.value and "&lt;script&gt;" in one.detail.value
    assert one.detail.value == two.detail.value and one.count.value == two.count.value
    assert w.detail_html(har, "capture.har:1") == w.detail_html(har, "capture.har:1")


def test_explorer_keeps_choices_when_the_cell_is_rerun(busy):
    first = w.CaptureExplorer(busy)
    first.status.value = "5xx"
    first.time_range.index = (1, 5)
    first.exchange.value = first.exchange.options[1][1]
    rerun = w.CaptureExplorer(busy)
    assert rerun.value == first.value and rerun.detail.value == first.detail.value


# ---- 3. execution what-if ------------------------------------------------------------------------


def test_whatif_table_on_the_session(session):
    t = w.whatif_table(session, mode=None, dsh="0.1.1-rc.2", policies=None)
    assert list(t.columns) == w.WHATIF_BASE_COLUMNS + list(POLICIES) + ["note"]
    assert list(t["call_id"]) == ["call_0001", "call_0002", "call_0003"]
    assert t.loc[0, "baseline"] == "invalid justification: expected a non-empty sentence"
    assert t.loc[0, "same-mode-noop"] == "still fails" and t.loc[0, "prune-schema"] == "avoided"
    assert t.loc[1, "same-mode-noop"] == "avoided"
    assert pd.isna(t.loc[2, "prune-schema"]) and t.loc[2, "note"].startswith("not modelled")
    only = w.whatif_table(session, mode=None, dsh="0.1.6-alpha.2", policies=["strip-non-widening"])
    assert list(only.columns) == w.WHATIF_BASE_COLUMNS + ["strip-non-widening", "note"]
    assert only.loc[1, "baseline"] == "runs"  # 0.1.6-alpha.2 accepts the same-mode request
    with pytest.raises(ValueError):
        w.whatif_table(session, mode=None, dsh="0.1.1-rc.2", policies=["pray"])


def test_whatif_table_modes(session, har):
    recorded = w.whatif_table(session, mode="danger-full-access", dsh="0.1.1-rc.2", policies=None)
    assert recorded.equals(w.whatif_table(session, mode=None, dsh="0.1.1-rc.2", policies=None))
    ro = w.whatif_table(session, mode="read-only", dsh="0.1.1-rc.2", policies=None)
    assert set(ro["mode"]) == {"read-only"} and ro["mode_source"].str.contains("what-if").all()
    assert ro["granted_mode"].isna().all()  # the approval policy is never: nothing granted
    unknown = w.whatif_table(har, mode=None, dsh="0.1.1-rc.2", policies=None)
    assert unknown["note"].str.contains("mode").all() and unknown["prune-schema"].isna().all()
    given = w.whatif_table(har, mode="danger-full-access", dsh="0.1.1-rc.2", policies=None)
    assert list(given["prune-schema"].iloc[:2]) == ["avoided", "avoided"]


def test_whatif_table_of_a_har_and_its_session_judges_each_call_once(session, har):
    """A HAR and DSH's log of one run carry the same calls: every row of a call gets that call's outcomes."""
    both = toolkit.load_captures(
        [DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"]
    )
    t = w.whatif_table(both, mode="danger-full-access", dsh="0.1.1-rc.2", policies=None)
    alone = w.whatif_table(session, mode="danger-full-access", dsh="0.1.1-rc.2", policies=None).set_index("call_id")
    modelled = t[t["prune-schema"].notna()]
    assert modelled["call_id"].duplicated().any()  # the same call, recorded twice
    for _, r in modelled.iterrows():
        assert [r[p] for p in POLICIES] == [alone.loc[r["call_id"], p] for p in POLICIES]
    assert "avoided" in set(modelled["prune-schema"])
    w.WhatIfExplorer(both)  # the explorer opens on it (it raised before)


def test_whatif_explorer_defaults(session, har):
    ex = w.WhatIfExplorer(session)
    assert ex.value == {"mode": "danger-full-access", "dsh": "0.1.1-rc.2", "policies": tuple(POLICIES)}
    assert "the session&#x27;s own mode" in ex.table.value
    assert w.WhatIfExplorer(session, mode="read-only", remember=False).mode.value == "danger-full-access"
    assert w.WhatIfExplorer(har, mode="workspace-write").mode.value == "workspace-write"
    assert w.WhatIfExplorer(har).mode.value == "danger-full-access"
    with pytest.raises(ValueError):
        w.WhatIfExplorer(har, mode="root")


def test_whatif_explorer_updates_the_table(session):
    ex = w.WhatIfExplorer(session)
    assert "<th>same-mode-noop</th>" in ex.table.value and "still fails" in ex.table.value
    ex.policies.value = ("prune-schema",)
    assert "<th>same-mode-noop</th>" not in ex.table.value and "<th>prune-schema</th>" in ex.table.value
    ex.dsh.value = "0.1.6-alpha.2"
    assert "sandbox escalation to" not in _text(ex.table.value)  # the same-mode request now runs
    ex.mode.value = "read-only"
    assert "what-if: the session ran in danger-full-access" in _text(ex.table.value)
    assert "sandbox/mode (what-if, line 3)" in ex.table.value
    ex.policies.value = ()
    assert "<th>baseline</th>" in ex.table.value and "<th>prune-schema</th>" not in ex.table.value


def test_whatif_explorer_invalid_choices_raise(session):
    ex = w.WhatIfExplorer(session)
    with pytest.raises(TraitError):
        ex.mode.value = "root"
    with pytest.raises(TraitError):
        ex.dsh.value = "9.9.9"
    with pytest.raises(TraitError):
        ex.policies.value = ("pray",)


def test_whatif_explorer_is_deterministic_escaped_and_remembered(session):
    one = w.WhatIfExplorer(session, remember=False)
    assert one.table.value == w.WhatIfExplorer(session, remember=False).table.value
    assert 'sandbox escalation to "danger-full-access" is not strictly wider' in one.table.value
    first = w.WhatIfExplorer(session)
    first.dsh.value = "0.1.7-rc.2"
    assert w.WhatIfExplorer(session).value == first.value


def test_the_three_widgets_share_one_selection_memory():
    """The selection memory is written once (widgets.base), not once per widget."""
    import inspect

    from toolkit.present.widgets import base, capture_explorer, strict_variants, whatif_explorer

    for cls in (w.StrictVariantComparer, w.CaptureExplorer, w.WhatIfExplorer):
        assert issubclass(cls, base.RememberedWidget)
    for module in (capture_explorer, strict_variants, whatif_explorer):
        source = inspect.getsource(module)
        assert "_MEMORY" not in source and "def _ipython_display_" not in source, module.__name__


# ---- declared frames ----------------------------------------------------------------------------


def test_widget_frames_are_the_declared_ones(busy, har, session):
    assert FILTERED.mismatches(w.filter_exchanges(busy)) == []
    none = w.filter_exchanges(busy, model="no such model")
    assert none.empty and FILTERED.mismatches(none) == []
    # the capture's categories are kept, not recomputed from the rows left
    assert list(none["endpoint"].cat.categories) == list(busy.exchanges["endpoint"].cat.categories)
    assert EXCHANGE.mismatches(w.exchange_detail(har, "capture.har:0")["exchange"]) == []
    full = w.whatif_table(session, mode=None, dsh="0.1.1-rc.2", policies=None)
    assert WHATIF_TABLE.mismatches(full) == [] and full["prune-schema"].notna().sum() == 2
    only = w.whatif_table(session, mode=None, dsh="0.1.1-rc.2", policies=["strip-non-widening", "prune-schema"])
    chosen = WHATIF_TABLE.select([*w.WHATIF_BASE_COLUMNS, "strip-non-widening", "prune-schema", "note"])
    assert chosen.mismatches(only) == []
    no_calls = toolkit.load_captures([])
    empty = w.whatif_table(no_calls, mode="read-only", dsh="0.1.1-rc.2", policies=None)
    assert empty.empty and WHATIF_TABLE.mismatches(empty) == []
    assert FILTERED.mismatches(w.filter_exchanges(no_calls)) == []


# ---- 1b. strict-variant comparer: the tool's strict verdict ------------------------------------


def _recorded_tool(name: str) -> dict:
    har = json.loads((REPO / "data" / "dsh-before-fix" / "capture.har").read_text(encoding="utf-8"))
    body = json.loads(har["log"]["entries"][1]["request"]["postData"]["text"])
    return next(t for t in body["tools"] if t["name"] == name)


def test_verdict_html_shows_the_first_400_its_path_and_the_risky_fills():
    from toolkit.knowledge import dsh_runtime
    from toolkit.knowledge.openai_strict import check
    from toolkit.present.widgets.strict_variants import verdict_html

    bash = _recorded_tool("bash")  # as DSH 0.1.0-rc.8 sent it in the recorded run
    text = _text(verdict_html(bash))
    found = check(bash["parameters"], name="bash")
    assert found and f"400 at {found[0].path}" in text and found[0].message in text
    assert "must fill under a strict reading: " in text and "justification" in text
    assert dsh_runtime.EMPTY_JUSTIFICATION in text  # DSH's own refusal of the filled ""


def test_verdict_html_accepts_a_schema_that_meets_the_rules():
    from toolkit.layers.strict import all_keys_required
    from toolkit.present.widgets.strict_variants import verdict_html

    tool = _recorded_tool("read_image")
    tool = tool | {"parameters": all_keys_required(tool["parameters"])}
    text = _text(verdict_html(tool))
    assert "accepted by OpenAI strict" in text and "400" not in text and "risky fills" not in text


def test_comparer_shows_the_verdict_for_the_selected_tool():
    from toolkit.present.widgets.strict_variants import verdict_html

    cmp = w.StrictVariantComparer(tool="bash", remember=False)
    assert cmp.verdict in cmp.widget.children
    assert cmp.verdict.value == verdict_html("bash", pi_ai=cmp.left_pi_ai.value)
    cmp.tool.value = "write"
    assert "strict verdict for write" in _text(cmp.verdict.value)
