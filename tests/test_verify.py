"""The four-layer verdict on the lab's before and after data."""

from __future__ import annotations

from conftest import REPO

import toolkit
from toolkit.analysis.verify import FILLED_CALLS, TABLE, verify
from toolkit.knowledge import dsh_images as img
from toolkit.layers.config import FINDINGS, load_settings
from toolkit.present import report

DATA = REPO / "data"
DSH = "0.1.0-rc.8"  # the published DSH the lab ran (lab/run.py --dsh)


def _run(folder: str, env: dict[str, str]):
    """One DSH run's evidence: the settings file DSH was given, the HAR of its traffic and the log it wrote."""
    return verify(
        load_settings(DATA / folder / "settings.yaml", env=env, dsh=DSH),
        toolkit.load_captures([DATA / folder / "capture.har", DATA / folder / "session.jsonl.zstd"]),
        dsh=DSH,
    )


def _before():
    return _run("dsh-before-fix", {})


def test_before_fix_fails_in_three_layers_with_evidence():
    v = _before()
    assert [(r.layer, r.verdict) for r in v.results] == [
        ("config", "warn"),
        ("serialization", "fail"),
        ("capability", "fail"),
        ("execution", "fail"),
    ]
    assert not v.ok
    ser, cap, exe = v.results[1:]
    assert any("justification': ''" in e for e in ser.evidence) and "strict" in ser.summary
    assert any("undeclared-refused-locally ×1" in e for e in cap.evidence)
    # each call once, although the HAR and DSH's log both hold it
    assert "×1: invalid justification: expected a non-empty sentence" in exe.evidence
    assert any(
        e.startswith('×1: sandbox escalation to "danger-full-access" is not strictly wider') for e in exe.evidence
    )
    assert "same-mode-noop: avoids 1 of 2 refusals" in exe.fix  # not the empty justification
    assert list(v.table.columns) == ["layer", "verdict", "summary", "evidence", "fix"]


def test_after_fix_passes():
    v = _run("dsh-after-fix", {"GATEWAY_API_KEY": "x"})
    # the model listed the files, then read the screenshot (the user only named it): DSH sent it, the gateway took it
    assert [r.verdict for r in v.results] == ["pass"] * 4 and v.ok
    assert set(v.capability["verdict"]) == {"declared-and-accepted"}
    assert "the step completed (a DSH log keeps no HTTP status)" in set(
        v.capability["evidence"].str.partition("; ")[2].str.partition("; ")[2]
    )
    # the pi-ai client's after-fix recording sends the screenshot: there the capability layer passes
    pi_ai = verify(
        load_settings(DATA / "configs" / "settings.after.yaml", env={"GATEWAY_API_KEY": "x"}),
        toolkit.load_capture(DATA / "after-fix" / "capture.har"),
    )
    assert [r.verdict for r in pi_ai.results] == ["pass"] * 4 and pi_ai.ok


def test_no_evidence_is_said_not_guessed():
    v = verify(None, None)
    assert [r.verdict for r in v.results] == ["not checked"] * 4
    assert v.overall == "inconclusive" and not v.ok


def test_frames_keep_their_declared_columns_and_dtypes_also_when_empty():
    """``findings`` is always the ``config.findings`` frame (no longer 5 columns without settings, 9 with)."""
    empty, before = verify(None, None), _before()
    for v in (empty, before):
        assert FINDINGS.mismatches(v.findings) == []
        assert TABLE.mismatches(v.table) == []
        assert FILLED_CALLS.mismatches(v.filled_calls) == []
    assert list(empty.findings.columns) == list(before.findings.columns) and empty.findings.empty
    assert empty.filled_calls.empty and len(before.filled_calls) > 0


def test_capability_lists_every_dsh_text_for_the_undeclared_image_by_entry_point():
    cap = _before().results[2]
    entries = [entry for entry, _ in cap.dsh_messages]
    assert set(entries) >= {"read_image", "mcp", "web", "web toast", "pi-ai adapter"}
    assert ("web", img.web_refusal("gw-coder")) in cap.dsh_messages
    assert ("web toast", img.WEB_TOAST) in cap.dsh_messages
    assert ("pi-ai adapter", img.adapter_refusal("gw-coder")) in cap.dsh_messages
    assert len(cap.dsh_messages) == len(set(cap.dsh_messages))  # each once
    # the refusal DSH logged for the session's own read_image call, with its real path
    assert ("read_image", "Error: " + img.read_image_refusal("screenshot.png", "gw-coder")) in cap.dsh_messages
    assert verify(None, None).results[2].dsh_messages == []


def test_verification_is_data_and_the_report_renders_it():
    v = _before()
    assert not hasattr(v, "_repr_html_")
    html = report.view(v)._repr_html_()
    status = "<p><b>At least one layer fails.</b></p>"  # the run's verdict leads the layers' table
    assert html == status + report.verdict_html(v) and report.verdict_html(v).startswith('<table class="agent-')
    assert "&lt;media type&gt;" in html and "<media type>" not in html  # escaped
    assert repr(report.view(v)) == repr(v)


# ---- the strict verdicts as layer 2's evidence ---------------------------------------------------


def _strict_lines(folder: str) -> list[str]:
    capture = toolkit.load_captures([DATA / folder / "capture.har", DATA / folder / "session.jsonl.zstd"])
    layer = next(r for r in verify(None, capture).results if r.layer == "serialization")
    return [e for e in layer.evidence if e.startswith("strict reading")], capture


def test_serialization_evidence_carries_the_strict_verdict_before_the_fix():
    from toolkit.knowledge import dsh_runtime
    from toolkit.knowledge.openai_strict import check

    lines, capture = _strict_lines("dsh-before-fix")
    http = capture.exchanges.loc[capture.exchanges["method"].notna(), "exchange_id"]
    wire = capture.tools[capture.tools["exchange_id"].isin(set(http))]
    assert set(wire["strict_state"].astype(str)) == {"absent"}  # on a Responses route: read as strict
    schemas = capture.tool_schemas.set_index("schema_hash")["schema"]
    refused = {t.name for t in wire.itertuples() if check(schemas[t.schema_hash], name=t.name)}
    first = wire.iloc[0]
    found = check(schemas[first["schema_hash"]], name=first["name"])[0]
    assert lines[0] == (
        f"strict reading: {len(refused)} of {wire['name'].nunique()} tools would be refused by OpenAI strict as "
        f"sent (first: {found.rule} at {found.path} of {first['name']}: {found.message})"
    )
    called = set(capture.calls["name"])
    fills = [line for line in lines[1:] if "(called)" in line]
    assert fills and all(line.split()[3] in called for line in fills)
    assert any(dsh_runtime.EMPTY_JUSTIFICATION in line for line in fills)


def test_serialization_evidence_after_the_fix_reads_nothing_as_strict():
    lines, capture = _strict_lines("dsh-after-fix")
    http = capture.exchanges.loc[capture.exchanges["method"].notna(), "exchange_id"]
    states = set(capture.tools.loc[capture.tools["exchange_id"].isin(set(http)), "strict_state"].astype(str))
    assert states == {"false"}
    assert lines[0].startswith("strict reading: 0 of ") and "if sent strict" in lines[0]
    assert len(lines) == 1  # no risky fills: no strict reading reached the called tools
