"""The six questions, answered from the lab's evidence, and said to be unknown where it stops."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta

from conftest import REPO

import toolkit
from toolkit.analysis.provenance import QUESTIONS, TABLE, table

DATA = REPO / "data"
SETTINGS = DATA / "configs" / "settings.before.yaml"


def answer(t, field, question):
    rows = t[(t["field"] == field) & (t["question"] == question)]
    assert len(rows) == 1, (field, question, t[["field", "question"]])
    return rows.iloc[0]


def test_before_fix_names_each_actor_with_evidence():
    # one run of the published DSH: the settings file it was given, the HAR of its traffic, the log it wrote
    run = DATA / "dsh-before-fix"
    t = table(run / "settings.yaml", captures=[run / "capture.har"], sessions=[run / "session.jsonl.zstd"])
    defined = answer(t, "bash.strict", QUESTIONS[0])
    assert defined["actor"] == "pi-ai" and defined["answer"].startswith(
        "pi-ai omitted the key because compat.supportsStrictMode resolved to False"
    )
    assert (
        "settings.yaml llm-pi-ai.providers.gateway.compat" in defined["evidence"]
        and "$.tools[0].strict" in defined["evidence"]
    )
    read = answer(t, "bash.strict", QUESTIONS[2])
    assert read["actor"] == "gateway" and read["settled"]
    assert (
        "sent strict absent, echoed strict true" in read["answer"]
        and "response tools[name=bash].strict" in read["evidence"]
    )
    filled = answer(t, "bash.justification", QUESTIONS[6])
    # the first call filled it with "", the retry with a sentence: each value with its count
    assert filled["actor"] == "model" and filled["answer"].startswith("the model sent justification='' (1 call), ")
    assert filled["answer"].count("(1 call)") == 2
    validated = answer(t, "bash.justification", QUESTIONS[4])
    assert (
        validated["actor"] == "DSH"
        and "Error: invalid justification: expected a non-empty sentence" in validated["answer"]
    )
    permission = answer(t, "bash.sandbox_permissions", QUESTIONS[5])
    assert permission["actor"] == "DSH session" and "danger-full-access" in permission["answer"]
    assert "permission/preset" in permission["evidence"] and "sandbox/mode" in permission["evidence"]
    capability = answer(t, "gw-coder.input", QUESTIONS[3])
    assert capability["actor"] == "settings" and "route defaultInput" in capability["answer"]


def test_missing_hops_are_unknown_with_the_reason():
    t = table(SETTINGS, captures=[DATA / "before-fix" / "capture.har"])
    changed = answer(t, "bash.strict", QUESTIONS[1])
    assert not changed["settled"] and changed["answer"].startswith("unknown beyond the recorder")
    assert "a capture behind the proxy or gateway" in changed["evidence"]
    permission = answer(t, "bash.justification", QUESTIONS[5])
    assert (
        not permission["settled"]
        and "a DSH session log (sandbox/mode events) would settle it" in permission["evidence"]
    )
    nothing = table(None, captures=[DATA / "before-fix" / "capture.har"])
    assert not answer(nothing, "bash.strict", QUESTIONS[0])["settled"]


def test_two_hops_name_the_proxy():
    t = table(SETTINGS, captures=[DATA / "two-hop-strict" / "front.har", DATA / "two-hop-strict" / "back.har"])
    changed = answer(t, "bash.strict", QUESTIONS[1])
    assert changed["actor"] == "proxy" and changed["settled"]
    assert "required changed" in changed["answer"] and "strict added" in changed["answer"]
    assert "front.har" in changed["evidence"] and "back.har" in changed["evidence"]
    read = answer(t, "bash.strict", QUESTIONS[2])
    assert read["actor"] == "gateway" and "echoed strict true" in read["answer"]


def test_the_table_keeps_its_dtypes_also_when_empty():
    t = table(SETTINGS, captures=[DATA / "before-fix" / "capture.har"])
    assert len(t) and TABLE.mismatches(t) == []
    empty = table(None)
    assert empty.empty and TABLE.mismatches(empty) == []


def test_a_retried_request_is_one_change_citing_every_attempt(tmp_path):
    """The proxy retried the first request upstream (derived from the real two-hop recording: its first
    attempt, 3 ms earlier, failed with a 502): the change is named once, with both attempts as evidence."""
    har = json.loads((DATA / "two-hop-strict" / "back.har").read_text(encoding="utf-8"))
    first = copy.deepcopy(har["log"]["entries"][0])
    first["startedDateTime"] = (
        datetime.fromisoformat(first["startedDateTime"]) - timedelta(milliseconds=3)
    ).isoformat()
    first["response"]["status"] = 502
    first["response"]["content"] = {"size": 2, "mimeType": "application/json", "text": "{}"}
    har["log"]["entries"].insert(0, first)
    (tmp_path / "back.har").write_text(json.dumps(har), encoding="utf-8")
    front = toolkit.load_capture(DATA / "two-hop-strict" / "front.har", keep_bodies=True)
    back = toolkit.load_capture(tmp_path / "back.har", keep_bodies=True)
    t = table(SETTINGS, captures=[front, back])
    assert TABLE.mismatches(t) == []
    changed = answer(t, "bash.strict", QUESTIONS[1])
    assert changed["actor"] == "proxy" and changed["settled"]
    assert "front.har entry 0 → back.har entry 0, back.har entry 1 (2 upstream attempts)" in changed["evidence"]
