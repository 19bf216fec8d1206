"""Hop diffs on the lab's two-hop captures, checked against the rewriting stage's own log."""

from __future__ import annotations

import json

import pytest
from conftest import REPO

import toolkit
from toolkit.analysis import hops

DATA = REPO / "data"


def load(folder: str, name: str):
    return toolkit.load_capture(DATA / folder / name, keep_bodies=True)


def reference(folder: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / folder / "rewriter.jsonl").read_text(encoding="utf-8").splitlines()]


def _normalise(changes: set) -> set:
    """The rewriter logs a changed header as removed plus added; the diff says changed."""
    out = set()
    for path, kind in changes:
        if kind == "header changed":
            out |= {(path, "header removed"), (path, "header added")}
        else:
            out.add((path, kind))
    return out


def test_align_pairs_every_request_with_high_confidence():
    pairs = hops.align(load("two-hop-strict", "front.har"), load("two-hop-strict", "back.har"))
    assert len(pairs) == 3 and set(pairs["confidence"]) == {"high"}
    assert (pairs["delta_ms"] >= 0).all() and (pairs["delta_ms"] < 1000).all()


def test_strict_converter_changes_are_exactly_the_proxys_log():
    front, back = load("two-hop-strict", "front.har"), load("two-hop-strict", "back.har")
    pairs = hops.align(front, back)
    changes = hops.diff(front, back, pairs)
    for pair, entry in zip(pairs.itertuples(), reference("two-hop-strict")):
        mine = changes[changes["a_exchange"] == pair.a_exchange]
        assert _normalise(set(zip(mine["path"], mine["kind"]))) == {(c["path"], c["kind"]) for c in entry["changes"]}
    strict = changes[changes["kind"] == "strict added"]
    assert set(strict["tool"]) == {"bash", "read_image"} and set(strict["after"]) == {"true"}
    assert set(changes.loc[changes["kind"] == "model renamed", "after"]) == {"gw-coder-2026-11"}
    # header values are redacted as everywhere
    assert "sk-lab-FAKE" not in changes.to_csv()


def test_protocol_conversion_is_named_and_strict_still_compared():
    front, back = load("two-hop-chat", "front.har"), load("two-hop-chat", "back.har")
    changes = hops.diff(front, back)
    ref_kinds = {c["kind"] for entry in reference("two-hop-chat") for c in entry["changes"]}
    kinds = {k for _, k in _normalise(set(zip(changes["path"], changes["kind"])))}
    assert {"protocol converted", "model renamed", "strict changed"} <= kinds <= ref_kinds
    converted = changes[changes["kind"] == "protocol converted"]
    assert (
        len(converted) == 3
        and converted.iloc[0]["before"].startswith("responses")
        and converted.iloc[0]["after"].startswith("chat")
    )
    strict = changes[changes["kind"] == "strict changed"]
    assert set(zip(strict["before"], strict["after"])) == {("false", "true")}  # the converter undoes the fix


def test_same_hop_twice_has_no_changes_and_unpaired_requests_are_listed():
    har, log = load("before-fix", "capture.har"), load("before-fix", "gateway.jsonl")
    assert hops.diff(har, log).empty
    other = load("after-fix", "capture.har")
    pairs = hops.align(har, other)
    assert set(pairs["confidence"]) == {"unpaired"} and len(pairs) == len(har.exchanges) + len(other.exchanges)


def test_diff_needs_bodies():
    with pytest.raises(ValueError, match="keep_bodies=True"):
        hops.diff(toolkit.load_capture(DATA / "before-fix" / "capture.har"), load("before-fix", "gateway.jsonl"))
