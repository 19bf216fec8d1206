"""Judging real answers: DSH's own refusals on the recorded before-fix run, and an experiment sent to
the lab gateway on 127.0.0.1 (recorded as canonical JSONL, read back with load_capture)."""

from __future__ import annotations

import importlib.util
import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from toolkit.capture import load_capture
from toolkit.errors import InputError
from toolkit.experiment.frames import ANSWERS, PLAN, SUMMARY
from toolkit.experiment.judge import CONCLUSIONS, compare, judge, optional_fields, summarise
from toolkit.experiment.stats import fisher_exact, newcombe
from toolkit.experiment.variants import build

REPO = Path(__file__).resolve().parents[1]
BEFORE = REPO / "data" / "dsh-before-fix" / "capture.har"
_spec = importlib.util.spec_from_file_location("lab_gateway", REPO / "lab" / "gateway.py")
gateway = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gateway)

MODE = "danger-full-access"  # the before-fix session's mode (its runtime context says so)


def _documented(text: str) -> bool:
    return f"`{text}`" in (REPO / "docs" / "upstream.md").read_text()


@pytest.fixture(scope="module")
def captured():
    raw = load_capture(BEFORE, keep_bodies=True, redact=False)
    return dict(zip(raw.bodies["exchange_id"], raw.bodies["request"], strict=True))["capture.har:1"]


def test_the_before_fix_run_shows_dsh_refusal_verbatim(captured):
    """The recorded run itself as one arm: each request with tools is a sample."""
    capture = load_capture(BEFORE, keep_bodies=True)
    plan = PLAN.from_records(
        {"variant": "as-captured", "sample": i, "exchange_id": f"capture.har:{i}", "attempts": 1, "status": 200}
        | {"error": None}
        for i in range(1, 5)
    )
    answers = judge(capture, plan, build(captured, ["as-captured"], api="responses"), mode=MODE)
    assert ANSWERS.mismatches(answers) == []
    first = answers[answers["call_id"] == "call_0001"].iloc[0]
    assert first["verdict"] == "refused"
    assert first["rule"] == "invalid justification: expected a non-empty sentence"
    assert _documented(first["rule"])
    assert first["empty_filled"] == ("justification",)
    assert "sandbox_permissions" in first["filled"] and "command" not in first["filled"]  # command is required
    assert set(answers["verdict"].dropna()) == {"refused", "not judged"}  # read_image is not modelled
    last = answers[answers["exchange_id"] == "capture.har:4"]
    assert len(last) == 1 and last["call_id"].isna().all()  # the final answer made no call

    summary = summarise(answers, plan)
    assert SUMMARY.mismatches(summary) == []
    row = summary.iloc[0]
    assert (row["samples"], row["answered"], row["calls"], row["refused"]) == (4, 4, 3, 2)
    assert row["top_rule"] == "invalid justification: expected a non-empty sentence"


def test_optional_fields_come_from_the_clients_definition(captured):
    optional = optional_fields(captured, "responses")
    bash = next(t for t in captured["tools"] if t["name"] == "bash")["parameters"]
    assert set(optional["bash"]) == set(bash["properties"]) - set(bash["required"])
    assert "justification" in optional["bash"] and "command" not in optional["bash"]


class _Gateway:
    def __init__(self, log: Path):
        self.server = gateway.make_server(0, log_path=log, clock="2026-11-30T00:00:00Z", seed=7)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def _send(url: str, body: dict) -> dict:
    """One exchange as a canonical JSONL record (toolkit/sources/jsonl/canonical.py)."""
    headers = {"content-type": "application/json", "accept": "text/event-stream"}
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, rh, text = resp.status, dict(resp.headers.items()), resp.read().decode()
    except urllib.error.HTTPError as err:
        status, rh, text = err.code, dict(err.headers.items()), err.read().decode()
    return {
        "request": {"method": "POST", "url": url, "headers": headers, "body": body},
        "response": {"status": status, "headers": rh, "body": text},
    }


@pytest.fixture(scope="module")
def experiment(tmp_path_factory, captured):
    """strict-absent, strict-false and prune-schema, 5 samples each, interleaved, against the before-fix route."""
    tmp = tmp_path_factory.mktemp("experiment")
    gw = _Gateway(tmp / "gateway.jsonl")
    variants = build(captured, ["strict-absent", "strict-false", "prune-schema"], api="responses", mode=MODE)
    lines, plan = [], []
    try:
        for sample in range(1, 6):
            for v in variants:
                rec = _send(f"{gw.base}/absent-is-strict/v1/responses", v.body)
                lines.append(json.dumps(rec))
                xid = f"exchanges.jsonl:{len(lines)}"
                plan.append(
                    {"variant": v.name, "sample": sample, "exchange_id": xid, "attempts": 1}
                    | {"status": rec["response"]["status"], "error": None}
                )
        plan.append(  # a request that never got an answer
            {"variant": "strict-false", "sample": 6, "exchange_id": None, "attempts": 3, "status": None}
            | {"error": "timed out after 60 s"}
        )
    finally:
        gw.close()
    path = tmp / "exchanges.jsonl"
    path.write_text("\n".join(lines) + "\n")
    capture = load_capture(path, keep_bodies=True)
    plan_frame = PLAN.from_records(plan)
    answers = judge(capture, plan_frame, variants, mode=MODE)
    return capture, plan_frame, answers, summarise(answers, plan_frame)


def test_exchange_ids_of_the_plan_are_the_captures(experiment):
    capture, plan, _, _ = experiment
    assert set(plan["exchange_id"].dropna()) == set(capture.exchanges["exchange_id"])


def test_strict_absent_gets_filled_fields_and_refusals(experiment):
    _, _, answers, _ = experiment
    assert ANSWERS.mismatches(answers) == []
    absent = answers[(answers["variant"] == "strict-absent") & answers["call_id"].notna()]
    assert len(absent) == 5
    assert (absent["verdict"] == "refused").all()
    assert set(absent["rule"]) == {"invalid justification: expected a non-empty sentence"}
    assert all("justification" in e for e in absent["empty_filled"])


def test_strict_false_fills_nothing_optional_and_is_accepted(experiment):
    _, _, answers, _ = experiment
    false = answers[(answers["variant"] == "strict-false") & answers["call_id"].notna()]
    assert len(false) == 5
    assert all(f == () for f in false["filled"])
    assert (false["verdict"] == "accepted").all() and false["rule"].isna().all()
    lost = answers[(answers["variant"] == "strict-false") & (answers["sample"] == 6)]
    assert len(lost) == 1 and lost["status"].isna().all() and list(lost["error"]) == ["timed out after 60 s"]


def test_prune_schema_judges_against_the_pruned_schema(experiment):
    """Still strict (absent), but justification is no longer offered: the model cannot fill it."""
    _, _, answers, _ = experiment
    pruned = answers[(answers["variant"] == "prune-schema") & answers["call_id"].notna()]
    assert len(pruned) == 5
    assert all("justification" not in f and "sandbox_permissions" not in f for f in pruned["filled"])
    assert all("justification" not in a for a in pruned["arguments"])


def test_summary_and_comparison(experiment):
    _, _, _, summary = experiment
    assert SUMMARY.mismatches(summary) == []
    assert list(summary["variant"]) == ["strict-absent", "strict-false", "prune-schema"]
    s = summary.set_index("variant")
    assert s.at["strict-false", "samples"] == 6 and s.at["strict-false", "answered"] == 5
    assert s.at["strict-absent", "filled_empty"] == 5
    c = compare(summary, "strict-absent", "strict-false")
    ka, na, kb, nb = c["refused_a"], c["judged_a"], c["refused_b"], c["judged_b"]
    assert (c["low"], c["high"]) == newcombe(ka, na, kb, nb)
    assert c["p"] == fisher_exact(ka, na, kb, nb)
    assert c["difference"] == ka / na - kb / nb
    # 5 of 5 against 0 of 5: Wilson 5/5 is 0.5655..1, so Newcombe's low is 1 - sqrt(2) * 0.4345 = 0.386;
    # Fisher's p is 2 / C(10, 5) = 0.0079
    assert c["sentence"] == (
        f"strict-absent: {ka} of {na} calls refused (57–100%); strict-false: {kb} of {nb} (0–43%). "
        f"Difference 100 points (95% interval 39 to 100), Fisher exact p = 0.008: {CONCLUSIONS['explained']}"
    )


def test_a_true_null_says_what_the_interval_allows_not_that_n_is_too_small(experiment):
    """0 of 5 against 0 of 5 is no difference seen, not "N is too small": the sentence says how large a
    difference the interval still allows (Newcombe's bounds for 0/5 against 0/5, -43 to 43 points)."""
    _, _, _, summary = experiment
    c = compare(summary, "prune-schema", "strict-false")
    assert c["difference"] == 0 and c["p"] == 1.0
    assert (round(c["low"] * 100), round(c["high"] * 100)) == (-43, 43)
    assert c["sentence"].endswith(
        "Fisher exact p = 1.000: no difference seen; the 95% interval still allows a true difference from -43 to 43 "
        "points."
    )
    assert CONCLUSIONS["unclear"] not in c["sentence"]
    with pytest.raises(InputError, match="no variant 'strict-true'"):
        compare(summary, "strict-absent", "strict-true")


def test_compare_needs_both_the_interval_and_the_test():
    """3 of 3 against 0 of 3: Newcombe's interval (0.206 to 1) excludes 0, Fisher's p = 2 / C(6, 3) = 0.1."""
    summary = SUMMARY.from_records(
        {c: None for c in SUMMARY.columns} | {"variant": name, "calls": 3, "judged": 3, "refused": k}
        for name, k in (("a", 3), ("b", 0))
    )
    c = compare(summary, "a", "b")
    assert c["low"] > 0 and c["p"] == pytest.approx(0.1)
    assert c["sentence"] == (
        "a: 3 of 3 calls refused (44–100%); b: 0 of 3 (0–56%). Difference 100 points (95% interval 21 to 100), "
        f"Fisher exact p = 0.100: {CONCLUSIONS['unclear']}"
    )
    empty = SUMMARY.from_records(
        {c: None for c in SUMMARY.columns} | {"variant": name, "calls": n, "judged": n, "refused": 0}
        for name, n in (("a", 2), ("b", 0))
    )
    assert (
        compare(empty, "a", "b")["sentence"]
        == "a: 0 of 2 calls refused; b: 0 of 0: no judged calls to compare on b; send more samples."
    )


def test_judge_refuses_a_plan_for_variants_not_built(experiment, captured):
    capture, plan, _, _ = experiment
    with pytest.raises(InputError, match="prune-schema"):
        judge(capture, plan, build(captured, ["strict-absent", "strict-false"], api="responses"), mode=MODE)
