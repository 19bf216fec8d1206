"""A call the model of DSH cannot judge says why, per call (``replay``'s ``not_judged``) and counted by
reason in the execution layer's summary; a count of one is written in the singular."""

from __future__ import annotations

import pandas as pd
from conftest import FIXTURES, REPO

import toolkit
from toolkit.analysis.verify import verify
from toolkit.capture import load_captures
from toolkit.layers.execution import NOT_JUDGED, REPLAY, replay

DATA = REPO / "data"
HAR = DATA / "before-fix" / "capture.har"  # 2 bash calls and 1 read_image, no sandbox mode
SSE = (FIXTURES / "sse" / "responses_function_call.sse").read_text(encoding="utf-8")


def _stream(tmp_path, name: str, *, tool: str = "bash", cut: bool = False):
    """A recorded Responses stream with one call of ``tool``; ``cut`` ends it after the last arguments delta,
    where the arguments already parse as a JSON object but the call never finished."""
    text = SSE.replace('"call_local_0001"', f'"call_{name}"').replace('"name":"bash"', f'"name":"{tool}"')
    if cut:
        text = text[: text.index("event: response.function_call_arguments.done")]
    path = tmp_path / f"{name}.sse"
    path.write_text(text, encoding="utf-8")
    return path


def _captures(tmp_path):
    return load_captures([HAR, _stream(tmp_path, "cut", cut=True), _stream(tmp_path, "glob", tool="glob")])


def _reasons(rows: pd.DataFrame) -> dict[str, str | None]:
    return {
        f"{r.tool} {r.call_id}": (None if pd.isna(r.not_judged) else str(r.not_judged))
        for r in rows.itertuples(index=False)
    }


def test_replay_says_why_each_call_was_not_judged(tmp_path):
    cap = _captures(tmp_path)
    rows = replay(cap)
    assert REPLAY.mismatches(rows) == [] and "not_judged" in REPLAY.columns
    assert _reasons(rows) == {
        "bash call_0001": "mode-unknown",
        "bash call_0002": "mode-unknown",
        "read_image call_0003": "settings-missing",
        "bash call_cut": "stream-cut",
        "glob call_glob": "tool-not-modelled",
    }
    # a cut call's arguments parse, yet they are not what the model meant: never judged, even with the mode
    given = replay(cap, mode="workspace-write")
    assert _reasons(given)["bash call_cut"] == "stream-cut" and given.loc[3, "ok"] is pd.NA
    assert _reasons(given)["bash call_0001"] is None and given.loc[0, "ok"] is not pd.NA


def test_a_call_has_a_verdict_or_a_reason_never_both_nor_neither(tmp_path):
    settings = toolkit.load_settings(DATA / "dsh-before-fix" / "settings.yaml")
    for cap, kwargs in [
        (_captures(tmp_path), {}),
        (_captures(tmp_path), {"mode": "danger-full-access", "settings": settings}),
        (load_captures([DATA / "dsh-before-fix" / "capture.har", DATA / "dsh-before-fix" / "session.jsonl.zstd"]), {}),
    ]:
        rows = replay(cap, **kwargs)
        assert (rows["ok"].isna() == rows["not_judged"].notna()).all(), rows[["tool", "ok", "not_judged"]]
        assert set(rows["not_judged"].dropna().astype(str)) <= set(NOT_JUDGED)


def test_the_execution_layer_counts_the_calls_not_judged_by_reason(tmp_path):
    cap = _captures(tmp_path)
    layer = next(r for r in verify(None, cap).results if r.layer == "execution")
    assert layer.summary == (
        "no tool call could be judged: stream cut mid-call ×1, tool not in the model of DSH ×1, "
        "sandbox mode unknown ×2 (give mode= for HTTP captures)"
    )
    assert layer.summary.render("zh-CN") == (
        "没有可判定的工具调用：流在调用中途截断 ×1，DSH 模型未覆盖该工具 ×1，沙箱模式未知 ×2（HTTP 抓包请传入 mode=）"
    )
    judged = next(r for r in verify(None, cap, mode="danger-full-access").results if r.layer == "execution")
    not_judged = "2 calls not judged: stream cut mid-call ×1, tool not in the model of DSH ×1"
    assert judged.verdict == "fail" and judged.summary == f"DSH refused 2 of 2 calls; {not_judged}"
    assert not_judged in judged.evidence


def test_a_call_one_capture_cannot_judge_and_another_can_is_judged():
    # the HAR has no sandbox mode; DSH's own log of the same run has it, for the same call ids
    run = DATA / "dsh-before-fix"
    layer = next(
        r
        for r in verify(None, load_captures([run / "capture.har", run / "session.jsonl.zstd"])).results
        if r.layer == "execution"
    )
    assert layer.summary == "DSH refused 2 of 2 calls"
    assert not any("not judged" in e for e in layer.evidence)


def test_one_call_is_counted_in_the_singular(tmp_path):
    one = load_captures([_stream(tmp_path, "one"), _stream(tmp_path, "glob", tool="glob")])
    layer = next(r for r in verify(None, one, mode="workspace-write").results if r.layer == "execution")
    assert layer.evidence[0].startswith("1 call judged under DSH ")
    assert "1 call not judged: tool not in the model of DSH ×1" in layer.evidence
    assert "1 calls" not in layer.summary and not any("1 calls" in e for e in layer.evidence)
