"""Chat Completions: nested tools, message rows, non-streamed bodies, tool_calls delta streams."""

from __future__ import annotations

import json

from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.wire.chat import ChatStream, decode_request, decode_response, decode_stream

WIRE = FIXTURES / "wire"
CHAT_SSE = (WIRE / "chat_call.sse").read_bytes()


def frames(*chunks: dict, done: bool = True) -> bytes:
    out = b"".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode() for c in chunks)
    return out + (b"data: [DONE]\n\n" if done else b"")


def tc(index, args=None, id=None, name=None):
    d = {"index": index, "function": {}}
    if id:
        d |= {"id": id, "type": "function"}
        d["function"]["name"] = name
    if args is not None:
        d["function"]["arguments"] = args
    return d


def chunk(*tool_calls, finish=None, choice=0):
    return {
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [
            {"index": choice, "delta": {"tool_calls": list(tool_calls)} if tool_calls else {}, "finish_reason": finish}
        ],
    }


def test_reference_stream():
    r = decode_stream(CHAT_SSE)
    assert (r.terminal, r.model, r.input_tokens, r.output_tokens) == ("completed", "test-model", 42, 17)
    (c,) = r.calls
    assert (c.call_id, c.item_id, c.name, c.complete) == ("call_local_0001", None, "bash", True)
    assert c.arguments["command"] == "ls -la" and len(c.arguments) == 6
    assert r.issues == []


def test_parallel_tool_calls_interleaved_by_index():
    body = frames(
        chunk(tc(0, "", "call_a", "read"), tc(1, "", "call_b", "bash")),
        chunk(tc(1, '{"command":')),
        chunk(tc(0, '{"path":"x"}')),
        chunk(tc(1, '"ls"}')),
        chunk(finish="tool_calls"),
    )
    r = decode_stream(body)
    assert [(c.call_id, c.name, c.arguments) for c in r.calls] == [
        ("call_a", "read", {"path": "x"}),
        ("call_b", "bash", {"command": "ls"}),
    ]


def test_cut_without_done_or_finish_reason():
    r = decode_stream(frames(chunk(tc(0, "", "call_a", "bash")), chunk(tc(0, '{"comm')), done=False))
    assert r.terminal == "cut"
    (c,) = r.calls
    assert (c.complete, c.arguments, c.arguments_raw) == (False, None, '{"comm')
    assert c.parse_error == "stream was cut before the call finished"


def test_reference_stream_cut_before_finish_reason():
    first_three = b"\n\n".join(CHAT_SSE.split(b"\n\n")[:3]) + b"\n\n"
    r = decode_stream(first_three)
    assert r.terminal == "cut" and r.calls[0].complete is False
    # finish_reason seen but no [DONE]: the client still saw a finished turn
    r = decode_stream(b"\n\n".join(CHAT_SSE.split(b"\n\n")[:4]) + b"\n\n")
    assert r.terminal == "completed" and r.calls[0].complete is True


def test_finish_reasons_map_to_terminals():
    assert decode_stream(frames(chunk(finish="stop"))).terminal == "completed"
    r = decode_stream(frames(chunk(finish="length")))
    assert (r.terminal, r.error_code) == ("incomplete", "length")
    assert decode_stream(frames(chunk(finish="content_filter"))).terminal == "incomplete"
    r = decode_stream(frames(chunk()))  # [DONE] but no finish_reason
    assert r.terminal == "completed" and [i.kind for i in r.issues] == ["finish-reason"]


def test_midstream_error_payload_fails_the_stream():
    body = frames(
        chunk(tc(0, "", "call_a", "bash")),
        {"error": {"message": "overloaded", "code": 529}},
        chunk(finish="tool_calls"),
    )
    r = decode_stream(body)
    assert (r.terminal, r.error_code, r.error_message) == ("failed", "529", "overloaded")
    assert r.calls[0].complete is False


def test_malformed_frame_issue_and_rest_decodes():
    head = frames(chunk(tc(0, "", "call_a", "bash")), done=False)
    body = head + b"data: {not json}\n\n" + frames(chunk(tc(0, "{}")), chunk(finish="tool_calls"))
    r = decode_stream(body)
    assert r.calls[0].arguments == {} and r.terminal == "completed"
    assert [i.message for i in r.issues] == [
        f"byte {len(head)}: invalid JSON at char 1: Expecting property name enclosed in double quotes"
    ]


def test_changed_id_at_same_index_starts_a_new_call():
    r = decode_stream(
        frames(chunk(tc(0, "{}", "call_a", "a")), chunk(tc(0, "{}", "call_b", "b")), chunk(finish="tool_calls"))
    )
    assert [c.call_id for c in r.calls] == ["call_a", "call_b"]
    assert [i.kind for i in r.issues] == ["sse-call"]


def test_machine_fed_directly_and_usage_only_chunk():
    m = ChatStream()
    m.feed({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 6}})
    m.done()
    m.feed(chunk(finish="length"))  # after [DONE] the client has stopped reading
    r = m.finish()
    assert (r.input_tokens, r.output_tokens, r.terminal) == (5, 6, "completed")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=100_000), max_size=15), st.sampled_from([b"\n", b"\r\n", b"\r"]))
def test_any_chunking_gives_the_same_calls(cuts, eol):
    body = frames(
        chunk(tc(0, "", "call_a", "bash"), tc(1, "", "call_b", "écrire")),
        chunk(tc(1, '{"t":"€😀')),
        chunk(tc(0, '{"command":"ls"}')),
        chunk(tc(1, 'é"}')),
        chunk(finish="tool_calls"),
    ).replace(b"\n", eol)
    whole = decode_stream(body)
    assert whole.calls[1].arguments == {"t": "€😀é"}
    points = sorted({c % (len(body) + 1) for c in cuts})
    parts = [body[a:b] for a, b in zip([0, *points], [*points, len(body)])]
    assert decode_stream(parts) == whole


def test_reference_request():
    info = decode_request(json.loads((WIRE / "chat_request.json").read_text()))
    assert (info.model, info.stream) == ("test-model", True)
    (t,) = info.tools
    assert (t.name, t.kind, t.strict_state, t.description) == (
        "bash",
        "function",
        "absent",
        "Run a shell command in the workspace.",
    )
    assert t.parameters["required"] == ["command", "description"]
    assert [(p.role, p.part_type, p.text) for p in info.inputs] == [
        ("system", "text", "You are a test harness."),
        ("user", "text", "Run the tool once."),
    ]


def test_request_strict_states_and_message_shapes():
    body = {
        "messages": [
            {
                "role": "assistant",
                "content": "calling",
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command":"x"}'}}
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "call_1",
                "content": "(tool image omitted: model does not support images)",
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Attached image(s) from tool result:"},
                    {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}},
                ],
            },
        ],
        "tools": [
            {"type": "function", "function": {"name": n, **s}}
            for n, s in [("a", {}), ("b", {"strict": None}), ("c", {"strict": False}), ("d", {"strict": True})]
        ],
    }
    info = decode_request(body)
    assert [t.strict_state for t in info.tools] == ["absent", "null", "false", "true"]
    rows = [(p.item_index, p.part_index, p.item_type, p.part_type, p.call_id, p.image_dropped) for p in info.inputs]
    assert rows == [
        (0, 0, "message", "text", None, False),
        (0, 1, "function_call", "function_call", "call_1", False),
        (1, 0, "function_call_output", "text", "call_1", True),
        (2, 0, "message", "text", None, False),
        (2, 1, "message", "image_url", None, False),
    ]
    assert (info.inputs[4].media_type, info.inputs[4].byte_size) == ("image/jpeg", 6)
    assert info.inputs[1].name == "bash"


def test_decode_response_body():
    body = {
        "model": "m",
        "usage": {"prompt_tokens": 1, "completion_tokens": 2},
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{bad"}}
                    ],
                },
            }
        ],
    }
    r = decode_response(body)
    assert (r.terminal, r.input_tokens) == ("completed", 1)
    (c,) = r.calls
    assert c.call_id == "call_1" and c.arguments is None and c.parse_error.startswith("invalid JSON at char 1:")
    r = decode_response({"error": {"message": "bad key", "type": "auth", "code": "invalid_api_key"}})
    assert (r.terminal, r.error_code) == ("failed", "invalid_api_key")
