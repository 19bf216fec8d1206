"""decode_exchange: api detection, bodies as bytes or str, SSE sniffing, HTTP errors, bad bodies."""

from __future__ import annotations

import json

import pytest
from conftest import FIXTURES

from toolkit.wire.envelopes import decode_error_body
from toolkit.wire.http import decode_exchange
from toolkit.wire.records import Exchange

WIRE = FIXTURES / "wire"


def ex(path="/v1/responses", status=200, **kw):
    return Exchange("e1", "test", "entry 0", path=path, status=status, **kw)


def test_responses_stream_exchange_from_bytes():
    d = decode_exchange(
        ex(),
        (WIRE / "responses_request.json").read_bytes(),
        (WIRE / "responses_call.sse").read_bytes(),
        response_content_type="text/event-stream; charset=utf-8",
    )
    e = d.exchange
    assert (e.api, e.model, e.stream, e.terminal, e.input_tokens, e.output_tokens) == (
        "responses",
        "test-model",
        True,
        "completed",
        42,
        17,
    )
    assert [t.strict_state for t in d.tools] == ["absent"]
    assert [c.call_id for c in d.calls] == ["call_local_0001"] and len(d.inputs) == 2
    assert d.issues == []


def test_chat_stream_exchange_from_str_sniffed_without_content_type():
    d = decode_exchange(
        ex("/v1/chat/completions"),
        (WIRE / "chat_request.json").read_text(),
        (WIRE / "chat_call.sse").read_text(),
        response_content_type="application/json",
    )
    assert (d.exchange.api, d.exchange.terminal, d.exchange.stream) == ("chat", "completed", True)
    assert d.calls[0].arguments["command"] == "ls -la"


@pytest.mark.parametrize(
    "path, body, api",
    [
        ("/proxy/x", {"input": "hi"}, "responses"),
        ("/proxy/x", {"messages": []}, "chat"),
        ("/proxy/x", {"prompt": "hi"}, "other"),
        ("/backend-api/codex/responses", {"messages": []}, "responses"),  # the path wins
        ("/v1/chat/completions?x=1", {}, "chat"),
    ],
)
def test_api_from_path_then_body(path, body, api):
    assert decode_exchange(ex(path, status=None), json.dumps(body), None).exchange.api == api


def test_model_falls_back_to_response_and_stream_from_sse():
    sse = (WIRE / "responses_failed.sse").read_bytes()
    d = decode_exchange(ex(), b'{"input":"x"}', sse)
    e = d.exchange
    assert (e.model, e.stream, e.terminal, e.error_code) == ("test-model", True, "failed", "server_error")
    d = decode_exchange(ex(), b'{"input":"x"}', b'{"status":"completed","model":"m2","output":[]}')
    assert (d.exchange.model, d.exchange.stream) == ("m2", False)


def test_http_error_uses_envelope():
    body = b'{"error":{"message":"Rate limit","type":"requests","param":null,"code":"rate_limit_exceeded"}}'
    e = decode_exchange(ex(status=429), b'{"input":"x","stream":true}', body).exchange
    assert (e.terminal, e.error_type, e.error_code, e.error_message, e.stream) == (
        "http-error",
        "requests",
        "rate_limit_exceeded",
        "Rate limit",
        True,
    )
    e = decode_exchange(ex(status=502), None, "<html>Bad gateway</html>").exchange
    assert (e.terminal, e.error_message) == ("http-error", "<html>Bad gateway</html>")


def test_invalid_bodies_become_issues():
    d = decode_exchange(ex(), b'{"input": [', b'{"status": ')
    assert [(i.kind, i.message.split(":")[0]) for i in d.issues] == [
        ("request-body", "invalid JSON at char 11"),
        ("response-body", "invalid JSON at char 11"),
    ]
    assert d.exchange.terminal is None
    d = decode_exchange(ex(), b"\xff\xfe garbage", b"\x00\x01")
    assert [i.kind for i in d.issues] == ["bad-utf8", "request-body", "response-body"]
    assert d.issues[0].message == "request body: byte 0: bytes that are not UTF-8, read as U+FFFD"


def test_sse_offsets_are_byte_offsets_of_the_raw_body():
    good = 'event: x\ndata: {"type":"x","note":"é€"}\n\n'.encode()
    body = good + b"data: {oops\n\n"
    d = decode_exchange(ex(), None, body)
    msgs = [i.message for i in d.issues if i.kind == "sse-frame"]
    assert msgs == [f"byte {len(good)}: invalid JSON at char 1: Expecting property name enclosed in double quotes"]
    assert d.exchange.terminal == "cut"


def test_empty_body_is_not_a_cut_stream():
    d = decode_exchange(ex(), b'{"input":"x","stream":true}', b"")
    assert d.exchange.terminal is None and [i.kind for i in d.issues] == ["body-missing"]


def test_error_json_labelled_as_event_stream_is_read_as_json():
    d = decode_exchange(
        ex(), b'{"input":"x"}', b'{"error":{"message":"nope","code":"x"}}', response_content_type="text/event-stream"
    )
    assert (d.exchange.terminal, d.exchange.error_code) == ("failed", "x")


@pytest.mark.parametrize(
    "body, fields",
    [
        ({"error": {"message": "m", "type": "t", "param": None, "code": "c"}}, ("t", "c", "m")),
        ('{"message":"m","type":"t","code":42}', ("t", "42", "m")),
        ('{"error":"quota exceeded","code":"q"}', (None, "q", "quota exceeded")),
        ('{"detail":"Not Found"}', (None, None, "Not Found")),
        (b"upstream timed out\n", (None, None, "upstream timed out")),
        ("", (None, None, None)),
        (None, (None, None, None)),
    ],
)
def test_error_envelopes(body, fields):
    assert decode_error_body(body) == fields
