"""Nothing lost without a word (issue 27 §3): where a damaged part of a file drops a count (a call, an
exchange, an event, a tool result, the tools), a problem row says what was lost and where, and the
summary reconciles only when every record of the file is accounted for.

Each case takes one of the project's own files, applies in code the damage a fuzz campaign found lost
silently, and checks the problem row, the counts of the undamaged parts, and the reconciliation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.capture.load import load_capture
from toolkit.errors import CaptureError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _load(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return load_capture(path, progress=False)


def _row(cap) -> dict:
    (row,) = cap.summary().to_dict("records")
    return row


def _problems(cap) -> set[tuple[str, str]]:
    return set(zip(cap.problems["location"], cap.problems["kind"]))


# ---- Chat Completions body: a `message` that is not an object -------------------------------------


def test_chat_message_that_is_a_number_is_a_problem(tmp_path):
    body = json.loads((FIXTURES / "response-body" / "chat_completion.json").read_text())
    whole = _row(_load(tmp_path, "whole.json", json.dumps(body).encode()))
    assert whole["calls"] == 1 and whole["problems"] == 0
    body["choices"][0]["message"] = 7
    cap = _load(tmp_path, "damaged.json", json.dumps(body).encode())
    row = _row(cap)
    assert (row["exchanges"], row["calls"], row["reconciles"]) == (1, 0, True)
    assert _problems(cap) == {("byte 0", "response-body")}
    assert "`message` is a number" in cap.problems["message"].iloc[0]


def test_chat_tool_call_that_is_a_number_is_a_problem(tmp_path):
    body = json.loads((FIXTURES / "response-body" / "chat_completion.json").read_text())
    body["choices"][0]["message"]["tool_calls"].insert(0, 5)
    cap = _load(tmp_path, "damaged.json", json.dumps(body).encode())
    row = _row(cap)
    assert (row["calls"], row["reconciles"]) == (1, True)  # the undamaged call is kept
    assert _problems(cap) == {("byte 0", "response-body")}
    assert "tool_calls[0] is a number" in cap.problems["message"].iloc[0]
