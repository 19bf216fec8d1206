"""Anthropic Messages: requests, bodies and streams decoded into the same frames, checked against what
the real ``anthropic`` SDK made of the same bytes (``lab/record_messages.py`` recorded both)."""

from __future__ import annotations

import base64
import json
import random

import pytest
from conftest import FIXTURES

import toolkit
from toolkit.capture import FRAME_NAMES, frames
from toolkit.wire import messages
from toolkit.wire.envelopes import decode_error_body
from toolkit.wire.http import decode_exchange
from toolkit.wire.records import Exchange

HERE = FIXTURES / "messages"
CAPTURE = HERE / "sdk_capture.jsonl"
SDK = json.loads((HERE / "sdk_results.json").read_text())
ROWS = [json.loads(line) for line in CAPTURE.read_text().splitlines()]
BY_SCENARIO = {r["request"]["headers"].get("x-lab-scenario", r["request"]["url"].rsplit("/", 1)[-1]): r for r in ROWS}
PNG_BYTES = 70  # lab/record_messages.py PNG
PDF_BYTES = 45


def _request(name):
    return json.loads(BY_SCENARIO[name]["request"]["body"])


def _response(name) -> str:
    return BY_SCENARIO[name]["response"]["body"]


def _sse(*events) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _calls(info):
    return [{"id": c.call_id, "name": c.name, "input": c.arguments} for c in info.calls]


def test_fixture_sizes_match_the_recorder():
    img = _request("stream-tool")["messages"][0]["content"][1]["source"]["data"]
    doc = _request("stream-tool")["messages"][0]["content"][2]["source"]["data"]
    assert (len(base64.b64decode(img)), len(base64.b64decode(doc))) == (PNG_BYTES, PDF_BYTES)


# ---- request ----------------------------------------------------------------------------------


def test_request_tools_carry_input_schema_and_all_four_strict_states():
    info = messages.decode_request(_request("stream-tool"))
    assert [(t.name, t.kind, t.strict_state) for t in info.tools] == [
        ("bash", "function", "true"),
        ("read_image", "function", "absent"),
        ("write", "function", "false"),
        ("read", "function", "null"),
    ]
    assert info.tools[0].parameters["required"] == ["command"] and info.tools[0].description == "Run a shell command."
    assert (info.model, info.stream, info.issues) == ("claude-lab-1", True, [])


def test_request_blocks_system_images_documents_never_the_bytes():
    rows = messages.decode_request(_request("stream-tool")).inputs
    got = [(r.item_index, r.part_index, r.role, r.item_type, r.part_type, r.media_type, r.byte_size) for r in rows]
    assert got == [
        (-1, 0, "system", "message", "text", None, None),
        (0, 0, "user", "message", "text", None, None),
        (0, 1, "user", "message", "image", "image/png", PNG_BYTES),
        (0, 2, "user", "message", "document", "application/pdf", PDF_BYTES),
        (0, 3, "user", "message", "image", None, None),  # a URL source: no bytes to count
    ]
    assert rows[3].text == "spec.pdf" and all("iVBOR" not in (r.text or "") for r in rows)


def test_request_tool_use_and_tool_result_join_by_call_id_and_name():
    info = messages.decode_request(_request("message-tool"))
    rows = [
        (r.item_index, r.item_type, r.part_type, r.call_id, r.name, r.text) for r in info.inputs if r.item_index > 0
    ]
    assert rows == [
        (1, "message", "text", None, None, "I'll list the files."),
        (1, "function_call", "tool_use", "toolu_lab_0001", "bash", '{"command": "ls -la"}'),
        (2, "function_call_output", "text", "toolu_lab_0001", "bash", "shot.png\nspec.pdf"),
        (2, "function_call_output", "image", "toolu_lab_0001", "bash", None),
        (2, "function_call_output", "text", "toolu_lab_0001", "bash", "exit 0"),
    ]
    assert [r.part_index for r in info.inputs if r.item_index == 2] == [0, 1, 2]
    assert next(r for r in info.inputs if r.item_index == 2 and r.part_type == "image").byte_size == PNG_BYTES
    assert info.issues == []  # tool_choice names read_image, which `tools` has


@pytest.mark.parametrize(
    "choice, issue",
    [
        ({"type": "auto"}, None),
        ({"type": "any"}, None),
        ({"type": "tool", "name": "bash"}, None),
        ({"type": "tool", "name": "nope"}, "`tool_choice` names tool 'nope', which `tools` lacks"),
        ("required", "`tool_choice` 'required' is not auto/any/tool/none"),
    ],
)
def test_tool_choice(choice, issue):
    body = {"model": "m", "tools": [{"name": "bash", "input_schema": {}}], "tool_choice": choice, "messages": []}
    assert [i.message for i in messages.decode_request(body).issues] == ([issue] if issue else [])


def test_server_tool_keeps_its_type_and_custom_is_a_function():
    tools = messages.decode_request(
        {"tools": [{"type": "bash_20250124", "name": "bash"}, {"type": "custom", "name": "f", "input_schema": {}}]}
    ).tools
    assert [(t.kind, t.parameters) for t in tools] == [("bash_20250124", None), ("function", {})]


# ---- response body ------------------------------------------------------------------------------


def test_message_body_matches_the_sdk():
    info = messages.decode_response(json.loads(_response("message-tool")))
    sdk = SDK["message-tool"]["final"]
    assert (info.terminal, info.input_tokens, info.output_tokens, info.cache_read_tokens) == (
        "completed",
        sdk["input_tokens"],
        sdk["output_tokens"],
        sdk["cache_read_input_tokens"],
    )
    assert _calls(info) == sdk["calls"] and info.model == sdk["model"] and info.issues == []


@pytest.mark.parametrize(
    "reason, terminal, code, kinds",
    [
        ("end_turn", "completed", None, []),
        ("stop_sequence", "completed", None, []),
        ("max_tokens", "incomplete", "max_tokens", []),
        ("refusal", "incomplete", "refusal", []),
        ("made_up", "completed", None, ["finish-reason"]),
    ],
)
def test_stop_reasons(reason, terminal, code, kinds):
    info = messages.decode_response({"type": "message", "content": [], "stop_reason": reason})
    assert (info.terminal, info.error_code, [i.kind for i in info.issues]) == (terminal, code, kinds)


def test_error_bodies():
    body = json.loads(BY_SCENARIO["http-error"]["response"]["body"])
    assert decode_error_body(json.dumps(body)) == ("invalid_request_error", None, "max_tokens: Field required")
    info = messages.decode_response(body)  # a 200 that is only an error envelope
    assert (info.terminal, info.error_type) == ("failed", "invalid_request_error")


# ---- stream -------------------------------------------------------------------------------------


def _chunkings(data: bytes, seed: int = 13):
    yield [data]
    yield [data[i : i + 1] for i in range(len(data))]
    rng = random.Random(seed)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(data)), 12))
        yield [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    yield [data.replace(b"\n", b"\r\n")]


def test_stream_matches_the_sdk_however_it_is_chunked():
    data = _response("stream-tool").encode()
    sdk = SDK["stream-tool"]["final"]
    for chunks in _chunkings(data):
        info = messages.decode_stream(iter(chunks))
        assert (info.terminal, info.input_tokens, info.output_tokens, info.cache_read_tokens) == (
            "completed",
            sdk["input_tokens"],
            sdk["output_tokens"],
            sdk["cache_read_input_tokens"],
        )
        assert _calls(info) == sdk["calls"] and info.issues == []


def test_partial_json_pieces_join_per_block_index():
    start = {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 3, "output_tokens": 1}}}
    events = [start]
    for index, cid in ((0, "a"), (1, "b")):
        block = {"type": "tool_use", "id": cid, "name": "bash", "input": {}}
        events.append({"type": "content_block_start", "index": index, "content_block": block})
    for index, piece in ((1, '{"x"'), (0, '{"command"'), (0, ': "ls"}'), (1, ": 1}")):  # interleaved
        events.append(
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
        )
    events += [{"type": "content_block_stop", "index": 0}, {"type": "content_block_stop", "index": 1}]
    events += [{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}]
    events += [{"type": "message_stop"}]
    info = messages.decode_stream(_sse(*events))
    assert _calls(info) == [
        {"id": "a", "name": "bash", "input": {"command": "ls"}},
        {"id": "b", "name": "bash", "input": {"x": 1}},
    ]
    assert [c.arguments_raw for c in info.calls] == ['{"command": "ls"}', '{"x": 1}']
    assert (info.terminal, info.input_tokens, info.output_tokens) == ("completed", 3, 9)  # usage kept, then overwritten


def test_tool_use_without_deltas_keeps_its_start_input():
    block = {"type": "tool_use", "id": "a", "name": "noop", "input": {}}
    info = messages.decode_stream(
        _sse(
            {"type": "message_start", "message": {}},
            {"type": "content_block_start", "index": 0, "content_block": block},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}},
            {"type": "message_stop"},
        )
    )
    assert [(c.arguments_raw, c.arguments, c.complete) for c in info.calls] == [("{}", {}, True)]


def test_cut_stream_is_cut_and_its_call_incomplete():
    info = messages.decode_stream(_response("stream-cut"))
    assert info.terminal == "cut" and [i.kind for i in info.issues] == ["stream-cut"]
    assert [(c.call_id, c.arguments_raw, c.complete) for c in info.calls] == [
        ("toolu_lab_0005", '{"command": "pw', False)
    ]
    assert SDK["stream-cut"]["final"]["stop_reason"] is None  # the SDK saw no stop either


def test_error_event_fails_the_stream():
    info = messages.decode_stream(_response("stream-error"))
    assert (info.terminal, info.error_type, info.error_message) == ("failed", "overloaded_error", "Overloaded")
    assert [c.complete for c in info.calls] == [False] and info.issues == []
    assert SDK["stream-error"]["raised"] == "APIStatusError"
    late = _response("stream-error").encode() + _sse({"type": "message_stop"})
    assert messages.decode_stream(late).terminal == "failed"  # the SDK raised: nothing after counts


def test_max_tokens_stream_with_thinking_and_signature_deltas():
    info = messages.decode_stream(_response("stream-max-tokens"))
    sdk = SDK["stream-max-tokens"]["final"]
    assert (info.terminal, info.error_code, info.output_tokens) == (
        "incomplete",
        sdk["stop_reason"],
        sdk["output_tokens"],
    )
    assert info.calls == [] and info.issues == []


def test_ping_anywhere_and_unknown_events_are_skipped():
    data = _response("stream-tool").encode()
    pinged = data.replace(b"\n\n", b'\n\nevent: ping\ndata: {"type": "ping"}\n\n')
    noisy = pinged + _sse({"type": "future_event", "x": 1})
    a, b = messages.decode_stream(data), messages.decode_stream(noisy)
    assert (b.terminal, _calls(b), b.issues) == (a.terminal, _calls(a), [])


def test_event_before_message_start_and_unknown_block_are_issues():
    info = messages.decode_stream(
        _sse(
            {"type": "content_block_delta", "index": 4, "delta": {"type": "input_json_delta", "partial_json": "{}"}},
            {"type": "message_stop"},
        )
    )
    assert [i.kind for i in info.issues] == ["sse-order", "sse-call", "finish-reason"]


# ---- dispatch (decode_exchange) ---------------------------------------------------------------------


def ex(path, status=200):
    return Exchange("e1", "test", "entry 0", path=path, status=status)


def test_regression_a_complete_messages_stream_is_not_a_cut_chat_stream():
    """Before: decoded as Chat Completions, terminal ``cut`` with a false ``stream-cut`` problem."""
    req, resp = BY_SCENARIO["stream-tool"]["request"]["body"], _response("stream-tool")
    for path in ("/v1/messages", "/messages", "/proxy/anything"):  # by path, and by body shape
        d = decode_exchange(ex(path), req, resp, response_content_type="text/event-stream")
        assert (d.exchange.api, d.exchange.terminal, d.exchange.cache_read_tokens) == ("messages", "completed", 30)
        assert d.issues == [] and [c.call_id for c in d.calls] == ["toolu_lab_0001"]


def test_a_plain_request_is_told_by_its_messages_response():
    req = json.dumps({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]})
    d = decode_exchange(ex("/proxy/x"), req, _response("stream-tool"))
    assert (d.exchange.api, d.exchange.terminal, d.issues) == ("messages", "completed", [])
    d = decode_exchange(ex("/proxy/x"), req, _response("message-tool"))
    assert (d.exchange.api, d.exchange.terminal, d.issues) == ("messages", "completed", [])
    assert decode_exchange(ex("/proxy/x"), req, None).exchange.api == "chat"  # nothing tells them apart


@pytest.mark.parametrize(
    "path, body, api",
    [
        ("/v1/messages", {}, "messages"),
        ("/anthropic/v1/messages?beta=true", {}, "messages"),
        ("/v1/threads/t_1/messages", {"role": "user", "content": "x"}, "other"),  # the Assistants API
        ("/v1/messages/count_tokens", {"messages": [], "system": "s"}, "other"),
        ("/v1/embeddings", {"model": "e", "input": "x"}, "other"),
        ("/v1/models", {}, "other"),
        ("/x", {"messages": [], "system": "s"}, "messages"),
        ("/x", {"messages": [], "tools": [{"name": "f", "input_schema": {}}]}, "messages"),
        ("/x", {"messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a"}]}]}, "messages"),
        ("/x", {"messages": [{"role": "system", "content": "s"}]}, "chat"),
    ],
)
def test_api_by_path_then_body_shape(path, body, api):
    assert decode_exchange(ex(path, status=None), json.dumps(body), None).exchange.api == api


def test_other_endpoints_raise_no_body_problems():
    cases = [
        ("/v1/embeddings", '{"model":"e","input":"x"}', '{"data":[{"embedding":[0.1]}]}', "application/json"),
        ("/v1/models", None, '{"data":[],"has_more":false}', "application/json"),
        ("/", None, "<!doctype html><p>hi", "text/html"),
        ("/a.css", None, "body{}", "text/css"),
        ("/a.png", None, b"\x89PNG\r\n\x1a\n\x00\xff", "image/png"),
        ("/form", "a=1&b=2", "", None),
        ("/gone", None, "", None),
        ("/eval/stream", None, 'event: put\ndata: {"flags": {}}\n\n', "text/event-stream"),  # a feature-flag feed
    ]
    for path, req, resp, ctype in cases:
        d = decode_exchange(ex(path), req, resp, response_content_type=ctype)
        assert (d.exchange.api, d.issues, d.exchange.terminal) == ("other", [], None), path


def test_a_web_page_answering_an_api_shaped_request_is_no_problem_but_an_api_path_still_is():
    req = '{"messages": [{"role": "user", "content": "hi"}]}'
    d = decode_exchange(ex("/chat"), req, "<html>sign in</html>", response_content_type="text/html")
    assert d.issues == []
    d = decode_exchange(ex("/v1/messages"), req, "<html>sign in</html>", response_content_type="text/html")
    assert [i.kind for i in d.issues] == ["response-body"]


# ---- capture level -------------------------------------------------------------------------------


def test_capture_of_the_sdk_recording():
    cap = toolkit.load_capture(CAPTURE)
    assert [m for name in FRAME_NAMES for m in frames.CAPTURE[name].mismatches(getattr(cap, name))] == []
    e = cap.exchanges
    assert list(e["api"]) == ["messages"] * 6 + ["other"]
    assert list(e["terminal"].astype(object).where(e["terminal"].notna(), None)) == [
        "completed",
        "completed",
        "incomplete",
        "failed",
        "cut",
        "http-error",
        None,
    ]
    assert list(e["cache_read_tokens"].iloc[:2]) == [30, 0] and e["error_type"].iloc[5] == "invalid_request_error"
    assert list(zip(cap.problems["location"], cap.problems["kind"], strict=True)) == [("line 5", "stream-cut")]
    done = cap.calls[cap.calls["complete"]]
    assert [{"id": r.call_id, "name": r.name, "input": r.arguments} for r in done.itertuples()] == (
        SDK["stream-tool"]["final"]["calls"] + SDK["message-tool"]["final"]["calls"]
    )
    # four tools in six requests; read_image and read share one input_schema: three schemas stored once
    assert sorted(cap.tool_schemas["uses"]) == [6, 6, 12]
    first = cap.tools[cap.tools["exchange_id"] == e["exchange_id"].iloc[0]]
    assert list(first["strict_state"]) == ["true", "absent", "false", "null"]
    assert list(first["additional_properties"]) == ["false", "absent", "absent", "absent"]
    assert cap.summary()["reconciles"].all()


def _har_entry(method, url, status, ctype, text, *, encoding=None, post=None):
    content = {"size": len(text), "mimeType": ctype, "text": text, **({"encoding": encoding} if encoding else {})}
    request = {
        "method": method,
        "url": url,
        "httpVersion": "HTTP/1.1",
        "headers": [],
        "queryString": [],
        "cookies": [],
        "headersSize": -1,
        "bodySize": len(post or ""),
    }
    if post is not None:
        request["postData"] = {"mimeType": "application/json", "text": post}
    headers = [{"name": "content-type", "value": ctype}] if ctype else []
    return {
        "startedDateTime": "2026-12-01T10:00:00.000Z",
        "time": 5,
        "request": request,
        "cache": {},
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "headers": headers,
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "timings": {"send": 0, "wait": 5, "receive": 0},
    }


def test_har_with_web_assets_next_to_an_api_call(tmp_path):
    """A browser export: pages and assets are ``other`` and raise nothing; the API call is decoded."""
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256))).decode()
    font = base64.b64encode(b"wOF2\x00\x01\xff\xfe").decode()
    api = BY_SCENARIO["stream-tool"]
    entries = [
        _har_entry("GET", "https://app.example/", 200, "text/html; charset=utf-8", "<!doctype html><p>hi</p>"),
        _har_entry("GET", "https://app.example/logo.png", 200, "image/png", png, encoding="base64"),
        _har_entry("GET", "https://app.example/site.css", 200, "text/css", "body{color:red}"),
        _har_entry("GET", "https://app.example/app.js", 200, "application/javascript", "let x = {"),
        _har_entry("GET", "https://app.example/f.woff2", 200, "font/woff2", font, encoding="base64"),
        _har_entry("GET", "https://api.example/v1/models", 200, "application/json", '{"data":[{"id":"m"}]}'),
        _har_entry(
            "POST",
            "https://api.example/v1/embeddings",
            200,
            "application/json",
            '{"data":[]}',
            post='{"model":"e","input":"x"}',
        ),
        _har_entry(
            "POST",
            "https://api.example/v1/messages",
            200,
            "text/event-stream",
            api["response"]["body"],
            post=api["request"]["body"],
        ),
    ]
    path = tmp_path / "browser.har"
    path.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
    )
    cap = toolkit.load_capture(path)
    assert list(cap.exchanges["api"]) == ["other"] * 7 + ["messages"]
    assert cap.problems.empty, cap.problems.to_dict("records")
    assert cap.exchanges["terminal"].iloc[-1] == "completed" and list(cap.calls["name"]) == ["bash"]
