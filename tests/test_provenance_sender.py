"""Provenance names a sender only when the evidence establishes it: a client no profile reproduces is
unidentified (the closest profile named as the closest, never as the sender), and a DSH session log
that was given is used, or said to be silent, never asked for again."""

from __future__ import annotations

import json

import pandas as pd
from conftest import REPO

from toolkit.analysis.provenance import QUESTIONS, TABLE, table
from toolkit.knowledge.messages.surface import surface

RUN = REPO / "data" / "dsh-before-fix"
AFTER = REPO / "data" / "dsh-after-fix"


def _row(t, field, question):
    rows = t[(t["field"] == field) & (t["question"] == question)]
    assert len(rows) == 1, (field, question)
    return rows.iloc[0]


def _unknown_client(tmp_path):
    """The run's HAR as a client no modelled library writes: each tool carries a key of its own."""
    har = json.loads((RUN / "capture.har").read_text(encoding="utf-8"))
    for entry in har["log"]["entries"]:
        post = entry["request"].get("postData") or {}
        if "tools" in (post.get("text") or ""):
            body = json.loads(post["text"])
            body["tools"] = [{**tool, "x_client_tag": "acme"} for tool in body.get("tools") or []]
            post["text"] = json.dumps(body)
    path = tmp_path / "capture.har"
    path.write_text(json.dumps(har), encoding="utf-8")
    return path


def test_a_client_no_profile_reproduces_is_unidentified_with_the_closest_marked(tmp_path):
    har = _unknown_client(tmp_path)
    for settings in (None, RUN / "settings.yaml"):
        t = table(settings, captures=[har])
        assert TABLE.mismatches(t) == []
        defined = _row(t, "bash.strict", QUESTIONS[0])
        assert defined["answer"].startswith(
            "an unidentified client sent strict absent: no modelled profile reproduces its tools; "
            "closest (not a match): pi-ai "
        )
        assert "pi-ai sent" not in defined["answer"] and "pi-ai omitted" not in defined["answer"]
        assert pd.isna(defined["actor"]) and not defined["settled"]
        assert "user-agent" in defined["evidence"]
        assert "一个未识别的客户端发送了 strict absent" in defined["answer"].render("zh-CN")


def test_tools_several_clients_send_alike_name_none_of_them_as_the_sender():
    # pi-ai and LiteLLM write this array alike; without the settings or DSH's log, either could have sent it
    t = table(None, captures=[RUN / "capture.har"])
    defined = _row(t, "bash.strict", QUESTIONS[0])
    assert defined["answer"].startswith("strict absent was sent by one of the clients these tools cannot tell apart: ")
    assert "LiteLLM" in defined["answer"] and not defined["settled"]
    assert "give settings= to settle it" not in defined["evidence"]
    assert "(settings=)" in defined["evidence"]
    with surface("cli"):
        assert "(--settings)" in str(
            _row(table(None, captures=[RUN / "capture.har"]), "bash.strict", QUESTIONS[0])["evidence"]
        )
    # DSH's own log of the same run (same call ids) establishes the sender: DSH sends through pi-ai
    with_log = table(None, captures=[RUN / "capture.har"], sessions=[RUN / "session.jsonl.zstd"])
    assert _row(with_log, "bash.strict", QUESTIONS[0])["answer"] == (
        "pi-ai sent strict absent; without the settings, why is unknown"
    )


def test_a_session_log_given_is_never_asked_for():
    for run in (RUN, AFTER):
        t = table(run / "settings.yaml", captures=[run / "capture.har"], sessions=[run / "session.jsonl.zstd"])
        for evidence in t["evidence"]:
            assert "a DSH session log" not in evidence, evidence
        never_called = _row(t, "edit.justification", QUESTIONS[4])
        assert "the DSH session log given (session.jsonl.zstd) holds no call of edit" in never_called["evidence"]
    # after the fix DSH ran the call: its log settles who validated it
    ran = _row(
        table(AFTER / "settings.yaml", captures=[AFTER / "capture.har"], sessions=[AFTER / "session.jsonl.zstd"]),
        "bash.justification",
        QUESTIONS[4],
    )
    assert ran["settled"] and ran["actor"] == "DSH"
    assert ran["answer"] == "DSH ran the call: the session log records its tool result, not an error"
    # without a session log, the hint still asks for one
    alone = table(RUN / "settings.yaml", captures=[RUN / "capture.har"])
    assert "a DSH session log would settle it" in _row(alone, "edit.justification", QUESTIONS[4])["evidence"]
