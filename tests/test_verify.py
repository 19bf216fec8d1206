"""The four-layer verdict on the lab's before and after data."""

from __future__ import annotations

from conftest import REPO

import toolkit
from toolkit.analysis.verify import verify
from toolkit.layers.config import load_settings

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
