"""A saved text/event-stream body: one stream, read in chunks, decoded as the client would."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolkit
from toolkit.errors import CaptureError
from toolkit.sources import sse_file
from toolkit.wire.http import decode_exchange
from toolkit.wire.records import Decoded, EntryCount, Exchange

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SSE = FIXTURES / "sse"


def _read(path, source="stream", **kw):
    records = list(sse_file.read(path, source, **kw))
    assert len(records) == 2
    decoded, count = records
    assert isinstance(decoded, Decoded)
    assert count == EntryCount(source, "stream", 1)
    return decoded


def _summary(d: Decoded):
    ex = d.exchange
    return (
        ex.api,
        ex.model,
        ex.terminal,
        ex.input_tokens,
        ex.output_tokens,
        [(c.call_id, c.item_id, c.name, c.arguments_raw, c.complete) for c in d.calls],
        [(i.kind, i.message) for i in d.issues],
    )


def test_responses_stream():
    d = _read(SSE / "responses_function_call.sse", "r")
    ex = d.exchange
    assert (ex.exchange_id, ex.location, ex.stream) == ("r:0", "byte 0", True)
    assert ex.api == "responses" and ex.terminal == "completed"
    assert ex.response_bytes == (SSE / "responses_function_call.sse").stat().st_size
    assert (ex.input_tokens, ex.output_tokens) == (42, 17)
    (call,) = d.calls
    assert (call.call_id, call.item_id, call.name) == ("call_local_0001", "fc_local_0001", "bash")
    assert call.arguments == {
        "command": "ls -la",
        "description": "List files",
        "timeoutMs": None,
        "workdir": None,
        "sandbox_permissions": None,
        "justification": None,
    }
    assert d.issues == []


def test_chat_stream():
    d = _read(SSE / "chat_tool_call.sse")
    assert d.exchange.api == "chat" and d.exchange.terminal == "completed"
    assert [(c.call_id, c.name) for c in d.calls] == [("call_local_0001", "bash")]
    assert d.calls[0].arguments["command"] == "ls -la"


@pytest.mark.parametrize("name", ["responses_function_call", "chat_tool_call", "responses_malformed_cut"])
@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 64, 1000, 65536])
def test_any_chunk_size_gives_the_same_result(name, chunk_size):
    path = SSE / f"{name}.sse"
    assert _summary(_read(path, chunk_size=chunk_size)) == _summary(_read(path))


@pytest.mark.parametrize("name", ["responses_function_call", "chat_tool_call", "responses_malformed_cut"])
def test_same_result_as_decoding_the_whole_body(name):
    """The chunked reader and decode_exchange on the whole body must agree (one decoder)."""
    body = (SSE / f"{name}.sse").read_bytes()
    whole = decode_exchange(Exchange("x:0", "x", "byte 0"), None, body, response_content_type="text/event-stream")
    assert _summary(_read(SSE / f"{name}.sse")) == _summary(whole)


def test_malformed_frames_are_issues_with_byte_offsets():
    path = SSE / "responses_malformed_cut.sse"
    data = path.read_bytes()
    d = _read(path)
    assert d.exchange.terminal == "cut"
    frames = [i for i in d.issues if i.kind == "sse-frame"]
    assert len(frames) == 2
    bad_json = data.index(b'"delta":"x"')
    bad_start = data.rindex(b"event:", 0, bad_json)
    assert frames[0].message.startswith(f"byte {bad_start}:")
    cut_start = data.rindex(b"event: response.completed")
    assert frames[1].message.startswith(f"byte {cut_start}:")
    assert any(i.kind == "stream-cut" for i in d.issues)


def test_crlf_line_endings(tmp_path):
    crlf = tmp_path / "crlf.sse"
    crlf.write_bytes((SSE / "chat_tool_call.sse").read_bytes().replace(b"\n", b"\r\n"))
    lf = _summary(_read(SSE / "chat_tool_call.sse"))
    for size in (1, 5, 65536):
        assert _summary(_read(crlf, chunk_size=size))[:-1] == lf[:-1]


def test_file_with_no_frames_raises(tmp_path):
    empty = tmp_path / "empty.sse"
    empty.write_bytes(b"")
    with pytest.raises(CaptureError, match="empty"):
        list(sse_file.read(empty, "e"))
    not_sse = tmp_path / "body.json"
    not_sse.write_text('{"id": "chatcmpl-1", "object": "chat.completion"}\n')
    with pytest.raises(CaptureError, match="no text/event-stream frame"):
        list(sse_file.read(not_sse, "j"))


def test_bytes_that_are_not_utf8_are_read_and_reported_with_their_offset(tmp_path):
    """An SSE body with a bad byte used to be altered (U+FFFD) without a word."""
    body = (
        b'data: {"type":"response.created","response":{"id":"r","status":"in_progress","note":"caf\xe9"}}\n\n'
        b'data: {"type":"response.completed","response":{"id":"r","status":"completed","output":[]}}\n\n'
    )
    path = tmp_path / "bad.sse"
    path.write_bytes(body)
    at = body.index(b"\xe9")
    for chunk_size in (7, 64 * 1024):
        d = _read(path, chunk_size=chunk_size)
        assert [(i.kind, i.message) for i in d.issues] == [
            ("bad-utf8", f"byte {at}: bytes that are not UTF-8, read as U+FFFD")
        ]
        assert d.exchange.terminal == "completed" and d.exchange.body_fidelity == "wire"


def test_a_frame_with_nan_is_a_bad_frame(tmp_path):
    body = (
        b'data: {"type":"response.created","response":{"id":"r","status":"in_progress"}}\n\n'
        b'data: {"type":"response.in_progress","response":{"temperature":NaN}}\n\n'
    )
    path = tmp_path / "nan.sse"
    path.write_bytes(body)
    d = _read(path)
    assert [i.kind for i in d.issues] == ["sse-frame", "stream-cut"]
    assert "NaN is not JSON" in d.issues[0].message


def test_a_saved_messages_stream_is_read_as_messages_not_a_cut_stream(tmp_path):
    """The SDK-recorded Anthropic stream, saved as an .sse file, is complete (it ends in message_stop)."""
    import json

    rows = [json.loads(line) for line in (FIXTURES / "messages" / "sdk_capture.jsonl").read_text().splitlines()]
    body = next(
        r["response"]["body"]
        for r in rows
        if isinstance(r["response"]["body"], str)
        and "message_stop" in r["response"]["body"]
        and "tool_use" in r["response"]["body"]
    )
    path = tmp_path / "messages.sse"
    path.write_text(body, encoding="utf-8")
    cap = toolkit.load_capture(path)
    assert list(cap.exchanges["api"]) == ["messages"] and list(cap.exchanges["terminal"]) == ["completed"]
    assert cap.problems.empty and list(cap.calls["name"]) == ["bash"]
