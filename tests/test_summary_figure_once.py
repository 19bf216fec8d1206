"""The summary figure counts each exchange once: the HAR and the DSH session log of one run hold the
same calls, and the figure shows them as they went on the wire and says what it merged."""

from __future__ import annotations

import pytest
from conftest import REPO

pytest.importorskip("matplotlib")

from toolkit.capture import load_captures
from toolkit.present import plots

RUN = REPO / "data" / "dsh-before-fix"


def test_the_demo_run_is_counted_once_and_the_merge_is_said():
    # make demo's before-fix inputs: the settings, capture.har and session.jsonl.zstd of one run
    cap = load_captures([RUN / "capture.har", RUN / "session.jsonl.zstd"])
    assert (len(cap.exchanges), len(cap.tools)) == (9, 200)  # the two recorders, side by side
    twice = plots.recorded_twice(cap)
    assert plots.RECORDED_TWICE.mismatches(twice) == []
    assert list(zip(twice["exchange_id"], twice["same_as"], twice["basis"].astype(str))) == [
        ("session.jsonl.zstd:t1s1", "capture.har:1", "calls"),
        ("session.jsonl.zstd:t1s2", "capture.har:2", "calls"),
        ("session.jsonl.zstd:t1s3", "capture.har:3", "calls"),
        ("session.jsonl.zstd:t1s4", "capture.har:4", "outputs"),  # it sent back call_0003's result
    ]
    fig = plots.summary_figure(cap, lang="en")
    assert fig.get_suptitle() == (
        "Capture summary: 5 exchanges, 100 tool definitions\n"
        "4 exchanges of session.jsonl.zstd are capture.har's (same call ids): each counted once, as sent on the wire"
    )
    endpoints = plots.timeline_data(plots._once(cap, twice))["endpoint"].astype(str)
    assert set(endpoints) == {"127.0.0.1/absent-is-strict/v1"}  # the session log is no second endpoint
    zh = plots.summary_figure(cap, lang="zh-CN").get_suptitle()
    assert zh.startswith("抓包概览：5 个交换，100 个工具定义\n") and "session.jsonl.zstd" in zh


def test_two_hops_stay_two_hops_and_nothing_is_merged_without_a_shared_call():
    hops = load_captures(
        [REPO / "data" / "two-hop-strict" / "front.har", REPO / "data" / "two-hop-strict" / "back.har"]
    )
    assert plots.recorded_twice(hops).empty
    assert plots.summary_figure(hops, lang="en").get_suptitle() == (
        f"Capture summary: {len(hops.exchanges)} exchanges, {len(hops.tools)} tool definitions"
    )
    assert plots.RECORDED_TWICE.mismatches(plots.recorded_twice(load_captures([]))) == []
