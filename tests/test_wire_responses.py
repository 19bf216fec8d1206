"""Responses API: request rows, non-streamed bodies and stream reassembly as a client would."""

from __future__ import annotations

import base64
import json

from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.wire import responses
from toolkit.wire.responses import ResponsesStream, data_url_info, decode_request, decode_response, decode_stream

WIRE = FIXTURES / "wire"
CALL_SSE = (WIRE / "responses_call.sse").read_bytes()
ARGS = {
    "command": "ls -la",
    "description": "List files",
    "timeoutMs": None,
    "workdir": None,
    "sandbox_permissions": None,
    "justification": None,
}


def sse(*events: dict) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def added(i, item_id, call_id, name):
    return {
        "type": "response.output_item.added",
        "output_index": i,
        "item": {"id": item_id, "type": "function_call", "arguments": "", "call_id": call_id, "name": name},
    }


def delta(item_id, piece, i=None):
    e = {"type": "response.function_call_arguments.delta", "delta": piece}
    if item_id is not None:
        e["item_id"] = item_id
    if i is not None:
        e["output_index"] = i
    return e


def item_done(i, item_id, call_id, name, args):
    return {
        "type": "response.output_item.done",
        "output_index": i,
        "item": {"id": item_id, "type": "function_call", "arguments": args, "call_id": call_id, "name": name},
    }


COMPLETED = {
    "type": "response.completed",
    "response": {"status": "completed", "model": "m", "output": [], "usage": {"input_tokens": 3, "output_tokens": 4}},
}


# ---- streams ------------------------------------------------------------------------------------


def test_reference_stream():
    r = decode_stream(CALL_SSE)
    assert (r.terminal, r.model, r.input_tokens, r.output_tokens) == ("completed", "test-model", 42, 17)
    (c,) = r.calls
    assert (c.call_id, c.item_id, c.name, c.complete, c.parse_error) == (
        "call_local_0001",
        "fc_local_0001",
        "bash",
        True,
        None,
    )
    assert c.arguments == ARGS
    assert r.issues == []


def test_interleaved_parallel_calls():
    body = sse(
        added(0, "fc_a", "call_a", "read"),
        added(1, "fc_b", "call_b", "bash"),
        delta("fc_b", '{"command":'),
        delta("fc_a", '{"path":'),
        delta("fc_b", '"ls"}'),
        delta("fc_a", '"x.txt"}'),
        item_done(1, "fc_b", "call_b", "bash", '{"command":"ls"}'),
        item_done(0, "fc_a", "call_a", "read", '{"path":"x.txt"}'),
        COMPLETED,
    )
    r = decode_stream(body)
    assert [(c.call_id, c.name, c.arguments) for c in r.calls] == [
        ("call_a", "read", {"path": "x.txt"}),
        ("call_b", "bash", {"command": "ls"}),
    ]
    assert r.issues == []


def test_delta_without_item_id_falls_back_to_output_index():
    body = sse(
        added(0, "fc_a", "call_a", "bash"),
        delta(None, '{"command":"ls"}', i=0),
        {"type": "response.function_call_arguments.done", "item_id": "fc_a", "arguments": '{"command":"ls"}'},
        COMPLETED,
    )
    r = decode_stream(body)  # no output_item.done: the call is not finished for the client
    (c,) = r.calls
    assert c.arguments_raw == '{"command":"ls"}' and c.complete is False
    assert "never finished" in c.parse_error


def test_done_arguments_preferred_and_disagreement_is_an_issue():
    body = sse(
        added(0, "fc_a", "call_a", "bash"),
        delta("fc_a", '{"command":"l"}'),
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_a",
            "output_index": 0,
            "arguments": '{"command":"ls"}',
        },
        item_done(0, "fc_a", "call_a", "bash", '{"command":"ls"}'),
        COMPLETED,
    )
    r = decode_stream(body)
    assert r.calls[0].arguments == {"command": "ls"}
    assert [i.kind for i in r.issues] == ["call-arguments"]
    assert "fc_a" in r.issues[0].message


def test_cut_stream_leaves_incomplete_calls():
    body = sse(
        added(0, "fc_a", "call_a", "bash"),
        delta("fc_a", '{"command":"ls"}'),
        item_done(0, "fc_a", "call_a", "bash", '{"command":"ls"}'),
        added(1, "fc_b", "call_b", "bash"),
        delta("fc_b", '{"comm'),
    )
    r = decode_stream(body)
    assert r.terminal == "cut"
    a, b = r.calls
    assert a.complete and a.arguments == {"command": "ls"}
    assert (b.complete, b.arguments, b.arguments_raw) == (False, None, '{"comm')
    assert b.parse_error == "stream was cut before the call finished"
    assert any(i.kind == "stream-cut" for i in r.issues)


def test_reference_fixture_cut_after_every_frame():
    frames = CALL_SSE.split(b"\n\n")[:-1]
    assert len(frames) == 6
    for n in range(5):
        r = decode_stream(b"\n\n".join(frames[:n]) + b"\n\n" if n else b"")
        assert r.terminal == "cut"
        assert all(not c.complete for c in r.calls)  # output_item.done is frame 5, terminal frame 6
        assert (len(r.calls) == 1) == (n >= 1)
    r = decode_stream(b"\n\n".join(frames[:5]) + b"\n\n")
    assert r.terminal == "cut" and r.calls[0].complete is True


def test_response_failed_fixture():
    r = decode_stream((WIRE / "responses_failed.sse").read_bytes())
    assert (r.terminal, r.error_code, r.error_message) == ("failed", "server_error", "The model failed (scripted).")
    assert r.model == "test-model"


def test_error_event_fixture():
    r = decode_stream((WIRE / "responses_error_event.sse").read_bytes())
    assert (r.terminal, r.error_code, r.error_message) == ("failed", "rate_limit_exceeded", "Scripted error event.")


def test_midstream_proxy_error_stops_the_client():
    body = (
        sse(added(0, "fc_a", "call_a", "bash"), delta("fc_a", '{"c'))
        + b'data: {"error":{"message":"upstream reset","type":"proxy_error","code":"502"}}\n\n'
        + sse(item_done(0, "fc_a", "call_a", "bash", "{}"), COMPLETED)
    )
    r = decode_stream(body)
    assert (r.terminal, r.error_type, r.error_code, r.error_message) == (
        "failed",
        "proxy_error",
        "502",
        "upstream reset",
    )
    (c,) = r.calls
    assert c.complete is False and c.parse_error == "response failed before the call finished"


def test_malformed_frame_is_an_issue_with_offset_and_rest_decodes():
    good = sse(added(0, "fc_a", "call_a", "bash"))
    bad = (
        b'event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta",,}\n\n'
    )
    body = good + bad + sse(item_done(0, "fc_a", "call_a", "bash", '{"command":"ls"}'), COMPLETED)
    r = decode_stream(body)
    assert r.terminal == "completed" and r.calls[0].arguments == {"command": "ls"}
    (issue,) = r.issues
    assert issue.kind == "sse-frame"
    assert issue.message.startswith(f"byte {len(good)}: invalid JSON at char 49: Expecting property name")


def test_bad_arguments_json_sets_parse_error():
    body = sse(item_done(0, "fc_a", "call_a", "bash", '{"command":"ls" "x":1}'), COMPLETED)
    (c,) = decode_stream(body).calls
    assert c.complete and c.arguments is None
    assert c.parse_error == "invalid JSON at char 16: Expecting ',' delimiter"


def test_incomplete_terminal_and_call_only_in_terminal_output():
    inc = {
        "type": "response.incomplete",
        "response": {
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "function_call", "id": "fc_z", "call_id": "call_z", "name": "bash", "arguments": "{}"}],
        },
    }
    r = decode_stream(sse(inc))
    assert (r.terminal, r.error_code) == ("incomplete", "max_output_tokens")
    assert r.calls[0].call_id == "call_z" and r.calls[0].arguments == {}
    assert [i.kind for i in r.issues] == ["sse-call"]


def test_stream_machine_fed_directly():
    m = ResponsesStream()
    m.feed(added(0, "fc_a", "call_a", "bash"), 0)
    m.feed(delta("fc_a", "{}"), 10)
    r = m.finish()
    assert r.terminal == "cut" and r.calls[0].arguments_raw == "{}"


def _split(data: bytes, cuts):
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)])]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=100_000), max_size=15), st.booleans())
def test_any_chunking_gives_the_same_calls(cuts, crlf):
    body = sse(
        added(0, "fc_a", "call_a", "bash"),
        added(1, "fc_b", "call_b", "écrire"),
        delta("fc_b", '{"texte":"€😀'),
        delta("fc_a", '{"command":'),
        delta("fc_b", 'é"}'),
        delta("fc_a", '"ls"}'),
        item_done(0, "fc_a", "call_a", "bash", '{"command":"ls"}'),
        item_done(1, "fc_b", "call_b", "écrire", '{"texte":"€😀é"}'),
        COMPLETED,
    )
    body = body.replace(json.dumps("€😀").encode()[1:-1], "€😀".encode())  # raw UTF-8 on the wire
    if crlf:
        body = body.replace(b"\n", b"\r\n")
    whole = decode_stream(body)
    assert whole.calls[1].arguments == {"texte": "€😀é"} and whole.issues == []
    assert decode_stream(_split(body, cuts)) == whole


# ---- non-streamed bodies ------------------------------------------------------------------------


def test_decode_response_body():
    body = {
        "status": "completed",
        "model": "m",
        "usage": {"input_tokens": 1, "output_tokens": 2},
        "output": [
            {"type": "message", "content": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash", "arguments": '{"a":1}'},
        ],
    }
    r = decode_response(body)
    assert (r.terminal, r.model, r.input_tokens, r.output_tokens) == ("completed", "m", 1, 2)
    assert [(c.call_id, c.arguments) for c in r.calls] == [("call_1", {"a": 1})]


def test_decode_response_failed_cancelled_and_envelope():
    r = decode_response({"status": "failed", "error": {"code": "invalid_prompt", "message": "no"}})
    assert (r.terminal, r.error_code, r.error_message) == ("failed", "invalid_prompt", "no")
    assert decode_response({"status": "cancelled"}).error_code == "cancelled"
    r = decode_response({"error": {"type": "server_error", "message": "boom"}})
    assert (r.terminal, r.error_type, r.error_message) == ("failed", "server_error", "boom")
    assert decode_response({"status": "queued"}).terminal is None
    assert decode_response([1]).issues[0].kind == "response-body"


# ---- requests -----------------------------------------------------------------------------------


def test_reference_request_tools_and_inputs():
    info = decode_request(json.loads((WIRE / "responses_request.json").read_text()))
    assert (info.model, info.stream) == ("test-model", True)
    (tool,) = info.tools
    assert (tool.name, tool.kind, tool.strict_state) == ("bash", "function", "absent")
    assert tool.parameters["required"] == ["command", "description"]
    assert [(p.item_index, p.role, p.part_type, p.text) for p in info.inputs] == [
        (0, "system", "input_text", "You are a test harness."),
        (1, "user", "input_text", "Run the tool once."),
    ]


def test_history_with_images_calls_and_outputs():
    info = decode_request(json.loads((WIRE / "responses_history.json").read_text()))
    rows = [(p.item_index, p.part_index, p.item_type, p.part_type, p.media_type, p.call_id) for p in info.inputs]
    assert rows == [
        (0, 0, "message", "input_text", None, None),
        (0, 1, "message", "input_image", "image/png", None),
        (1, 0, "function_call", "function_call", None, "call_prev_1"),
        (2, 0, "function_call_output", "input_text", None, "call_prev_1"),
        (2, 1, "function_call_output", "input_image", "image/png", "call_prev_1"),
    ]
    assert info.inputs[2].name == "bash" and "screenshot" in info.inputs[2].text


def test_pi_ai_placeholders_set_image_dropped():
    # observed with input:["text"] on openai-responses (docs/upstream.md, "pi-ai-images")
    body = {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look at this:"},
                    {"type": "input_text", "text": "(image omitted: model does not support images)"},
                ],
            },
            {
                "type": "function_call_output",
                "call_id": "c1",
                "output": "screenshot taken\n(tool image omitted: model does not support images)",
            },
        ]
    }
    info = decode_request(body)
    assert [p.image_dropped for p in info.inputs] == [False, True, True]
    assert info.inputs[2].text.startswith("screenshot taken\n")  # full text kept


def test_data_url_sizes_without_decoding():
    png = bytes(range(256)) * 3 + b"x"
    for n in range(0, 7):
        raw = png[: len(png) - n]
        url = "data:image/png;base64," + base64.b64encode(raw).decode()
        assert data_url_info(url) == ("image/png", len(raw))
        assert data_url_info(url.rstrip("="))[1] == len(raw)  # unpadded too
    assert data_url_info("https://x/y.png") == (None, None)
    assert data_url_info("data:text/plain,hi%20there") == ("text/plain", 8)


def test_string_input_file_id_image_and_other_items():
    info = decode_request({"model": "m", "input": "hello", "stream": False})
    assert [(p.role, p.item_type, p.part_type, p.text) for p in info.inputs] == [
        ("user", "message", "input_text", "hello")
    ]
    assert info.stream is False
    info = decode_request(
        {
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_image", "file_id": "file_1"},
                        {"type": "input_file", "filename": "a.pdf", "file_data": "data:application/pdf;base64,AAAA"},
                    ],
                },
                {"type": "reasoning", "summary": []},
                "junk",
                {
                    "type": "additional_tools",
                    "role": "developer",
                    "tools": [{"type": "function", "name": "t", "strict": False}],
                },
            ]
        }
    )
    img, pdf, reasoning, extra = info.inputs
    assert (img.media_type, img.byte_size) == (None, None)
    assert (pdf.media_type, pdf.byte_size, pdf.text) == ("application/pdf", 3, "a.pdf")
    assert reasoning.item_type == "reasoning" and extra.item_type == "additional_tools"
    assert [(t.name, t.strict_state) for t in info.tools] == [("t", "false")]
    assert [i.kind for i in info.issues] == ["request-body"]


def test_non_function_tools_keep_their_kind():
    info = decode_request({"tools": [{"type": "web_search"}, {"type": "custom", "name": "apply_patch"}, 5]})
    assert [(t.kind, t.name) for t in info.tools] == [
        ("web_search", None),
        ("custom", "apply_patch"),
        ("invalid", None),
    ]


def test_decode_request_never_raises_on_garbage():
    assert decode_request("nope").issues[0].kind == "request-body"
    assert responses.decode_request({"input": 5, "tools": "x"}).issues
