"""SDK fixtures recorded with openai-python (lab/record_sdk_fixtures.py): stream chunk files and bare bodies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.capture import load_capture
from toolkit.capture.frames import DECLARED
from toolkit.errors import CaptureError
from toolkit.sources import detect, response_body, sse_chunks
from toolkit.wire.records import BAD_ENTRY, SSE_FRAME, STREAM_CUT, Decoded, EntryCount

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHUNKS = FIXTURES / "sse-chunks"
BODIES = FIXTURES / "response-body"
STRICT_ARGS = {
    "command": "ls -la",
    "description": "List files in the workspace",
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}
PLAIN_ARGS = {"command": "ls -la", "description": "List files in the workspace"}


def _frames(cap):
    ex = cap.exchanges
    assert DECLARED["exchanges"].mismatches(ex) == [] and DECLARED["problems"].mismatches(cap.problems) == []
    return [
        (r.location, r.api, r.stream, r.terminal, r.body_fidelity, r.model, r.input_tokens, r.output_tokens)
        for r in ex.itertuples()
    ]


def _counts(cap):
    s = cap.summary().iloc[0]
    return s["format"], s["unit"], s["entries"], s["read"], s["lost"], bool(s["reconciles"])


def test_two_responses_stream_in_one_chunk_file():
    cap = load_capture(CHUNKS / "responses_two.chunks.txt")
    assert _counts(cap) == ("sse-chunks", "response", 2, 2, 0, True)
    got = _frames(cap)
    assert [g[:5] for g in got] == [
        ("line 1 (byte 0)", "responses", True, "completed", "json"),
        ("line 14 (byte 4496)", "responses", True, "completed", "json"),
    ]
    assert all(g[5] == "gw-coder" and g[6] > 0 and g[7] > 0 for g in got)
    assert cap.exchanges["method"].isna().all() and cap.exchanges["status"].isna().all()  # response-only
    calls = cap.calls
    assert list(zip(calls["exchange_id"], calls["name"], calls["call_id"], strict=True)) == [
        ("responses_two.chunks.txt:0", "bash", "call_0001")
    ]
    assert calls["arguments"].iloc[0] == STRICT_ARGS and calls["complete"].all()
    assert cap.problems.empty


def test_chat_chunk_file_splits_at_a_new_completion_id():
    cap = load_capture(CHUNKS / "chat_two.chunks.txt")
    assert _counts(cap) == ("sse-chunks", "response", 2, 2, 0, True)
    assert [g[:5] for g in _frames(cap)] == [
        ("line 1 (byte 0)", "chat", True, "completed", "json"),
        ("line 8 (byte 1526)", "chat", True, "completed", "json"),
    ]
    lines = (CHUNKS / "chat_two.chunks.txt").read_bytes()
    assert json.loads(lines[1526:].split(b"\n", 1)[0])["id"] == "chatcmpl-0002"
    assert cap.calls["arguments"].tolist() == [PLAIN_ARGS]
    assert cap.exchanges["input_tokens"].tolist() == [157, 228]  # the include_usage chunk of each completion


def test_a_partly_bad_chunk_file_places_its_problems():
    path = CHUNKS / "partly_bad.chunks.txt"
    cap = load_capture(path)
    assert _counts(cap) == ("sse-chunks", "response", 2, 2, 0, True)
    assert [g[:4] for g in _frames(cap)] == [
        ("line 1 (byte 0)", "responses", True, "completed"),
        ("line 15 (byte 4567)", "responses", True, "cut"),
    ]
    probs = cap.problems
    assert list(zip(probs["exchange_id"], probs["kind"], strict=True)) == [
        ("partly_bad.chunks.txt:0", SSE_FRAME),
        ("partly_bad.chunks.txt:1", STREAM_CUT),
    ]
    msg = probs["message"].iloc[0]
    assert msg.startswith("byte 1744: line 4: not JSON")
    data = path.read_bytes()
    assert data[1744:].split(b"\n", 1)[0] == data.split(b"\n")[3]  # the offset is that line's first byte
    assert cap.calls["arguments"].tolist() == [STRICT_ARGS]  # the bad line lost nothing of the call


def test_chunk_reader_records_and_edge_cases(tmp_path):
    records = list(sse_chunks.read(CHUNKS / "responses_two.chunks.txt", "s"))
    assert [type(r) for r in records] == [Decoded, Decoded, EntryCount]
    assert records[-1] == EntryCount("s", "response", 2)
    nan = tmp_path / "nan.chunks.txt"
    first = (CHUNKS / "responses_two.chunks.txt").read_text().splitlines()[0]
    nan.write_text(first + '\n{"type":"response.output_text.delta","delta":NaN}\n')
    (decoded, _) = list(sse_chunks.read(nan, "n"))
    assert [i.kind for i in decoded.issues][:1] == [SSE_FRAME] and "NaN" in decoded.issues[0].message
    blank = tmp_path / "blank.chunks.txt"
    blank.write_text("\n\n")
    with pytest.raises(CaptureError):
        list(sse_chunks.read(blank, "b"))


def test_bare_responses_body_pretty_printed():
    path = BODIES / "responses_function_call.json"
    assert path.read_text().startswith("{\n  ")
    cap = load_capture(path)
    assert _counts(cap) == ("response-body", "body", 1, 1, 0, True)
    assert _frames(cap) == [("byte 0", "responses", False, "completed", "json", "gw-coder", 140, 63)]
    assert cap.calls["arguments"].tolist() == [STRICT_ARGS]
    assert cap.problems.empty


def test_bare_chat_completion_body_compact():
    cap = load_capture(BODIES / "chat_completion.json")
    assert _counts(cap) == ("response-body", "body", 1, 1, 0, True)
    assert _frames(cap) == [("byte 0", "chat", False, "completed", "json", "gw-coder", 144, 37)]
    assert cap.calls["arguments"].tolist() == [PLAIN_ARGS]


def test_a_truncated_body_loses_its_entry_with_the_offset():
    path = BODIES / "truncated.json"
    assert detect.detect(path) == "response-body"
    cap = load_capture(path)
    assert _counts(cap) == ("response-body", "body", 1, 0, 1, True)
    probs = cap.problems
    assert list(zip(probs["location"], probs["kind"], strict=True)) == [(f"byte {path.stat().st_size}", BAD_ENTRY)]
    assert probs["exchange_id"].isna().all()


def test_recognisers_keep_to_their_own_shapes():
    event = b'{"type":"response.created","response":{"object":"response"}}\n{"type":"response.in_progress"}\n'
    chunk = b'{"id":"c1","object":"chat.completion.chunk","choices":[]}\n'
    body = b'{"id":"resp_1","object":"response","output":[]}'
    assert sse_chunks.recognize(event) and sse_chunks.recognize(chunk) and not sse_chunks.recognize(body)
    assert response_body.recognize(body) and response_body.recognize(b'{\n "object": "chat.completion"\n}')
    assert not response_body.recognize(event) and not response_body.recognize(chunk)
    assert not response_body.recognize(b'{"object":"chat.completion.chunk"}')
    assert not response_body.recognize(b'{"object":"list","data":[]}')
    assert not sse_chunks.recognize(b'{"type":"session","version":4}\n')
