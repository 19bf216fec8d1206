"""The four-layer verdict on the lab's before and after data."""

from __future__ import annotations

from conftest import REPO

import toolkit
from toolkit.analysis.verify import FILLED_CALLS, TABLE, verify
from toolkit.knowledge import dsh_images as img
from toolkit.layers.config import FINDINGS, load_settings
from toolkit.present import report

DATA = REPO / "data"


def _before():
    return verify(
        load_settings(DATA / "configs" / "settings.before.yaml", env={}),
        toolkit.load_captures([DATA / "before-fix" / "capture.har", DATA / "before-fix" / "session.jsonl.zstd"]),
    )


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
    assert any("undeclared-refused-locally ×5" in e for e in cap.evidence)
    assert "×2: invalid justification: expected a non-empty sentence" in exe.evidence
    assert any(
        e.startswith('×2: sandbox escalation to "danger-full-access" is not strictly wider') for e in exe.evidence
    )
    assert "same-mode-noop: avoids 2 of 4 refusals" in exe.fix  # not the empty justifications
    assert list(v.table.columns) == ["layer", "verdict", "summary", "evidence", "fix"]


def test_after_fix_passes():
    v = verify(
        load_settings(DATA / "configs" / "settings.after.yaml", env={"GATEWAY_API_KEY": "x"}),
        toolkit.load_captures([DATA / "after-fix" / "capture.har", DATA / "after-fix" / "session.jsonl.zstd"]),
    )
    assert [r.verdict for r in v.results] == ["pass"] * 4 and v.ok


def test_no_evidence_is_said_not_guessed():
    v = verify(None, None)
    assert [r.verdict for r in v.results] == ["no evidence"] * 4


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
    assert html == report.verdict_html(v) and html.startswith('<table class="agent-contract-verdict">')
    assert "&lt;path&gt;" in html and "<path>" not in html  # escaped
    assert repr(report.view(v)) == repr(v)
