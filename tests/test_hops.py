"""Hop diffs on the lab's two-hop captures, checked against the rewriting stage's own log."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO

import toolkit
from toolkit.analysis import hops
from toolkit.capture import Capture
from toolkit.errors import InputError

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
    log = reference("two-hop-strict")
    assert len(pairs) == len(log) == 3
    for pair, entry in zip(pairs.itertuples(), log, strict=True):
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
    ref = [c for entry in reference("two-hop-chat") for c in entry["changes"]]
    ref_kinds = {c["kind"] for c in ref}
    # a key the conversion added is `key added` here; the rewriter logs it as `property rewritten` from nothing
    ref_kinds |= {"key added" for c in ref if c["kind"] == "property rewritten" and c["before"] is None}
    added = set(changes.loc[changes["kind"] == "key added", "path"])
    assert added == {c["path"] for c in ref if c["kind"] == "property rewritten" and c["before"] is None}
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
    with pytest.raises(InputError, match="keep_bodies=True"):
        hops.diff(toolkit.load_capture(DATA / "before-fix" / "capture.har"), load("before-fix", "gateway.jsonl"))


# ---- proxy behaviours the lab's rewriter does not show, derived from its real two-hop recordings ----
# (a) the proxy answers a client request itself: the client's first attempt gets a 429 from the proxy a
#     second before it sends the same request again, and only the second goes upstream;
# (b) the proxy retries upstream: its first attempt gets a 502, a second carries the same request;
# (c) the client retries while its first request is still in flight and the proxy collapses the two.


def _har(folder: str, name: str) -> dict:
    return json.loads((DATA / folder / name).read_text(encoding="utf-8"))


def _shifted(entry: dict, ms: float, status: int | None = None) -> dict:
    out = copy.deepcopy(entry)
    t = datetime.fromisoformat(out["startedDateTime"]) + timedelta(milliseconds=ms)
    out["startedDateTime"] = t.isoformat()
    if status is not None:
        out["response"]["status"] = status
        out["response"]["content"] = {"size": 2, "mimeType": "application/json", "text": "{}"}
    return out


def _write(tmp_path: Path, name: str, har: dict) -> Capture:
    path = tmp_path / name
    path.write_text(json.dumps(har), encoding="utf-8")
    return toolkit.load_capture(path, keep_bodies=True)


def _derived(tmp_path: Path, *, front=None, back=None) -> tuple[Capture, Capture]:
    """The two-hop-strict recordings with ``front``/``back`` applied to their HAR entry lists."""
    hars = {"front.har": _har("two-hop-strict", "front.har"), "back.har": _har("two-hop-strict", "back.har")}
    for name, change in (("front.har", front), ("back.har", back)):
        if change is not None:
            hars[name]["log"]["entries"] = change(hars[name]["log"]["entries"])
    return _write(tmp_path, "front.har", hars["front.har"]), _write(tmp_path, "back.har", hars["back.har"])


def test_a_request_the_proxy_answered_itself_is_unpaired_and_the_rest_pair_with_the_nearest(tmp_path):
    # the client's first request, a second earlier, answered 429 by the proxy: it never went upstream
    front, back = _derived(tmp_path, front=lambda es: [_shifted(es[0], -1000, status=429), *es])
    pairs = hops.align(front, back)
    assert hops.ALIGN.mismatches(pairs) == []
    answered = pairs[pairs["a_exchange"] == "front.har:0"].iloc[0]
    assert answered["confidence"] == "unpaired" and pd.isna(answered["b_exchange"])
    assert "answered" in answered["basis"] and "429" in answered["basis"]
    paired = pairs[pairs["confidence"] != "unpaired"]
    # every real pair keeps its own partner, a few ms apart, and is called high
    assert list(zip(paired["a_exchange"], paired["b_exchange"], strict=True)) == [
        ("front.har:1", "back.har:0"),
        ("front.har:2", "back.har:1"),
        ("front.har:3", "back.har:2"),
    ]
    assert set(paired["confidence"]) == {"high"} and (paired["delta_ms"] < 20).all()
    # the competing client request (1 s away) is the margin behind the first pair
    assert paired.iloc[0]["margin_ms"] > 900


def test_a_proxy_retry_upstream_pairs_one_client_request_with_both_attempts(tmp_path):
    # the proxy's first attempt, 3 ms before the one the gateway answered, failed with a 502
    front, back = _derived(tmp_path, back=lambda es: [_shifted(es[0], -3, status=502), *es])
    pairs = hops.align(front, back)
    assert hops.ALIGN.mismatches(pairs) == []
    assert "unpaired" not in set(pairs["confidence"])
    retried = pairs[pairs["a_exchange"] == "front.har:0"]
    assert list(retried["b_exchange"]) == ["back.har:0", "back.har:1"]
    assert set(retried["relation"]) == {"upstream retry"} and list(retried["attempt"]) == [1, 2]
    assert retried["pair_id"].nunique() == 1
    # the diff reports each change once, citing both attempts
    changes = hops.diff(front, back, pairs)
    assert hops.DIFF.mismatches(changes) == []
    first = changes[changes["a_exchange"] == "front.har:0"]
    assert not first.duplicated(["path", "kind"]).any()
    strict = first[first["kind"] == "strict added"]
    assert len(strict) == 2 and set(strict["attempts"]) == {2}
    assert all(links == (("front.har:0", "back.har:0"), ("front.har:0", "back.har:1")) for links in strict["links"])
    # the changes are those of the recording without the retry
    plain = hops.diff(load("two-hop-strict", "front.har"), load("two-hop-strict", "back.har"))
    assert len(changes) == len(plain)


def test_a_client_retry_the_proxy_collapses_pairs_both_with_one_upstream_request(tmp_path):
    # the client sent its first request again 10 ms later, while the upstream request was in flight
    front, back = _derived(tmp_path, front=lambda es: [es[0], _shifted(es[0], 10), *es[1:]])
    pairs = hops.align(front, back)
    collapsed = pairs[pairs["b_exchange"] == "back.har:0"]
    assert list(collapsed["a_exchange"]) == ["front.har:0", "front.har:1"]
    assert set(collapsed["relation"]) == {"collapsed"} and "unpaired" not in set(pairs["confidence"])
    changes = hops.diff(front, back, pairs)
    assert not changes[changes["b_exchange"] == "back.har:0"].duplicated(["path", "kind"]).any()


def test_frames_keep_their_dtypes_when_empty(tmp_path):
    har, other = load("before-fix", "capture.har"), load("after-fix", "capture.har")
    pairs = hops.align(har, other)
    assert len(pairs) and hops.ALIGN.mismatches(pairs) == [] and pairs["pair_id"].isna().all()
    changes = hops.diff(har, other, pairs)
    assert changes.empty and hops.DIFF.mismatches(changes) == []
    nothing = _write(tmp_path, "empty.har", {"log": {"version": "1.2", "creator": {"name": "t"}, "entries": []}})
    empty = hops.align(nothing, nothing)
    assert empty.empty and hops.ALIGN.mismatches(empty) == []
