"""The incident lab's stub gateway (lab/gateway.py): behaviours, strictness, personas, wire shapes, log.

The server runs in-process on a free port in a thread; requests go over 127.0.0.1 with urllib, and
streams are read back with the toolkit's own decoders, as the lab's captures will be.
"""

from __future__ import annotations

import http.client
import importlib.util
import itertools
import json
import math
import random
import signal
import subprocess
import sys
import threading
import time
import types
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import toolkit
from toolkit.wire import chat as wire_chat
from toolkit.wire import responses as wire_responses

REPO = Path(__file__).resolve().parents[1]
GATEWAY_PY = REPO / "lab" / "gateway.py"
_spec = importlib.util.spec_from_file_location("lab_gateway", GATEWAY_PY)
gateway = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gateway)

from toolkit.knowledge.dsh_tools import BASH_PARAMETERS  # noqa: E402

CLOCK = "2026-11-30T00:00:00Z"
CLOCK_EPOCH = 1795996800

# DSH 0.1.1-rc.2 bash schema with a confining executor (the toolkit's copy)
BASH = BASH_PARAMETERS
REQUIRED_ARGS = {"command": "ls -la", "description": "List files in the workspace"}
FILLED_ARGS = {
    "command": "ls -la",
    "description": "List files in the workspace",
    "timeoutMs": 120000,
    "workdir": ".",
    "run_in_background": False,
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}
RETRY_ARGS = {**FILLED_ARGS, "justification": "Listing the workspace needs full access to every directory."}
REFUSAL = "Error: invalid justification: expected a non-empty sentence"
PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgAAIAAAUAAR0YE9wAAAAASUVORK5CYII="
)
_ABSENT = object()
# Bounds on a hung request or process only: no test relies on anything finishing within them.
WAIT_S = 60


# --- harness ----------------------------------------------------------------------------------------


class Gateway:
    """A running in-process gateway; ``post``/``get`` return ``(status, headers, body bytes)``."""

    def __init__(self, log: Path, clock=CLOCK, seed=7):
        self.log = log
        self.server = gateway.make_server(0, log_path=log, clock=clock, seed=seed)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def request(self, path: str, body=None, method=None, raw: bytes | None = None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method or ("POST" if data is not None else "GET"),
            headers={"content-type": "application/json", "authorization": "Bearer sk-lab-fake-0000"},
        )
        try:
            with urllib.request.urlopen(req, timeout=WAIT_S) as resp:
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()

    def post(self, path: str, body: dict):
        return self.request(path, body)

    def lines(self) -> list[dict]:
        self.server.drain()  # a line is complete once its response is sent: wait for the exchanges in flight
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=WAIT_S)


@pytest.fixture
def make_gateway(tmp_path):
    started = []

    def start(name="gateway.jsonl", **kw) -> Gateway:
        gw = Gateway(tmp_path / name, **kw)
        started.append(gw)
        return gw

    yield start
    for gw in started:
        gw.close()


@pytest.fixture
def gw(make_gateway) -> Gateway:
    return make_gateway()


def responses_tool(strict=_ABSENT, name="bash", parameters=BASH) -> dict:
    t = {"type": "function", "name": name, "description": "Run a bash command.", "parameters": parameters}
    if strict is not _ABSENT:
        t["strict"] = strict
    return t


def chat_tool(strict=_ABSENT, name="bash", parameters=BASH) -> dict:
    fn = {"name": name, "description": "Run a bash command.", "parameters": parameters}
    if strict is not _ABSENT:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


def user(*parts) -> dict:
    content = [{"type": "input_text", "text": "List the workspace."}, *parts]
    return {"role": "user", "content": content}


def image_part() -> dict:
    return {"type": "input_image", "detail": "auto", "image_url": PNG}


def responses_body(model="gw-coder", strict=_ABSENT, input=None, stream=True, tools=None) -> dict:
    return {
        "model": model,
        "input": input or [{"role": "system", "content": "You are a coding agent."}, user()],
        "stream": stream,
        "store": False,
        "tools": tools if tools is not None else [responses_tool(strict)],
    }


def chat_body(model="gw-coder", strict=_ABSENT, messages=None, stream=True, usage=True, tools=None) -> dict:
    body = {
        "model": model,
        "stream": stream,
        "messages": messages
        or [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": "List the workspace."},
        ],
        "tools": tools if tools is not None else [chat_tool(strict)],
    }
    if stream and usage:
        body["stream_options"] = {"include_usage": True}
    return body


def history(output, args=FILLED_ARGS, call_id="call_prev_1", earlier=()) -> list:
    """A Responses conversation ending in a function_call_output."""
    return [
        user(),
        *earlier,
        {"type": "function_call", "id": "fc_prev_1", "call_id": call_id, "name": "bash", "arguments": json.dumps(args)},
        {"type": "function_call_output", "call_id": call_id, "output": output},
    ]


def events(body: bytes) -> list[tuple[str, dict]]:
    out = []
    for frame in body.decode().split("\n\n"):
        if not frame.strip():
            continue
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((lines.get("event"), json.loads(lines["data"])))
    return out


def chat_frames(body: bytes) -> list:
    return [f[len("data: ") :] for f in body.decode().split("\n\n") if f.strip()]


def one_call(info):
    assert len(info.calls) == 1
    return info.calls[0]


# --- command line --------------------------------------------------------------------------------------


def test_cli_prints_port_serves_and_stops_cleanly_on_sigterm(tmp_path):
    log = tmp_path / "cli.jsonl"
    proc = subprocess.Popen(
        [sys.executable, str(GATEWAY_PY), "--port", "0", "--log", str(log), "--clock", CLOCK, "--seed", "7"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:")
        port = int(line.strip().rsplit(":", 1)[1])
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/passthrough/v1/responses",
            data=json.dumps(responses_body()).encode(),
            method="POST",
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=WAIT_S) as resp:
            body = resp.read()
        assert wire_responses.decode_stream(body).terminal == "completed"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=WAIT_S) == 0
    assert proc.stderr.read() == ""
    [entry] = [json.loads(x) for x in log.read_text().splitlines()]
    assert entry["id"] == "resp_0001" and entry["started_at"] == "2026-11-30T00:00:00.000Z"


def test_make_server_binds_loopback_only(gw):
    assert gw.server.server_address[0] == "127.0.0.1"
    assert gw.server.server_port > 0


# --- Responses stream shape ----------------------------------------------------------------------------


def test_responses_stream_function_call_shape(gw):
    status, headers, body = gw.post("/passthrough/v1/responses", responses_body())
    assert status == 200
    assert headers["content-type"] == "text/event-stream; charset=utf-8"
    evs = events(body)
    types = [t for t, _ in evs]
    assert types[:3] == ["response.created", "response.in_progress", "response.output_item.added"]
    assert types[-4:] == [
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    deltas = [p["delta"] for t, p in evs if t == "response.function_call_arguments.delta"]
    assert len(deltas) >= 2 and all(len(d) <= 20 for d in deltas)
    assert all(t == p["type"] for t, p in evs)
    assert [p["sequence_number"] for _, p in evs] == list(range(len(evs)))
    added = evs[2][1]["item"]
    assert added == {
        "id": "fc_0001",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_0001",
        "name": "bash",
    }
    done = evs[-2][1]["item"]
    assert done["status"] == "completed" and json.loads(done["arguments"]) == REQUIRED_ARGS
    assert "".join(deltas) == done["arguments"]
    final = evs[-1][1]["response"]
    assert final["id"] == "resp_0001" and final["object"] == "response" and final["status"] == "completed"
    assert final["model"] == "gw-coder" and final["created_at"] == CLOCK_EPOCH
    assert final["output"] == [done]
    usage = final["usage"]
    assert usage["input_tokens_details"] == {"cached_tokens": 0}
    assert usage["output_tokens_details"] == {"reasoning_tokens": 0}
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0

    info = wire_responses.decode_stream(body)
    assert info.terminal == "completed" and info.issues == []
    call = one_call(info)
    assert (call.call_id, call.item_id, call.name, call.complete) == ("call_0001", "fc_0001", "bash", True)
    assert call.arguments == REQUIRED_ARGS


def test_stream_frames_arrive_separately_and_fast(gw, monkeypatch):
    # The pause between frames is held until the client has read what came first, so the frames
    # are seen to arrive one write at a time however the threads are scheduled; the pauses the
    # gateway asks for are recorded instead of timed.
    released, pauses = threading.Event(), []

    def pause(seconds: float) -> None:
        pauses.append(seconds)
        released.wait(WAIT_S)

    monkeypatch.setattr(gateway, "time", types.SimpleNamespace(sleep=pause, monotonic=time.monotonic, time=time.time))
    req = urllib.request.Request(
        gw.base + "/absent-is-strict/v1/responses", data=json.dumps(responses_body()).encode(), method="POST"
    )
    with urllib.request.urlopen(req, timeout=WAIT_S) as resp:
        first = resp.read1(65536)
        released.set()
        rest = resp.read()
    frames = (first + rest).count(b"\n\n")
    assert first.count(b"\n\n") < frames  # not one buffered write
    assert len(pauses) == frames - 1 and 0 < sum(pauses) <= gateway.FRAME_BUDGET_S  # < 100 ms in all


def test_codex_path_streams_the_same_events(gw):
    body = responses_body()
    body["tools"][0]["strict"] = None  # pi-ai's Codex provider sends strict: null
    status, _, raw = gw.post("/absent-is-strict/codex/responses", body)
    assert status == 200
    info = wire_responses.decode_stream(raw)
    assert info.terminal == "completed"
    assert one_call(info).arguments == FILLED_ARGS  # null reads as strict on Responses


def test_non_stream_responses_json(gw):
    status, headers, raw = gw.post("/passthrough/v1/responses", responses_body(stream=False))
    assert status == 200 and headers["content-type"] == "application/json"
    body = json.loads(raw)
    assert body["object"] == "response" and body["status"] == "completed"
    info = wire_responses.decode_response(body)
    assert info.terminal == "completed" and one_call(info).arguments == REQUIRED_ARGS


def test_text_reply_stream_shape(gw):
    _, _, raw = gw.post("/passthrough/v1/responses", responses_body(input=history("total 0\nfile.txt")))
    evs = events(raw)
    assert [t for t, _ in evs][2:4] == ["response.output_item.added", "response.content_part.added"]
    assert [t for t, _ in evs][-5:] == [
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    text = "".join(p["delta"] for t, p in evs if t == "response.output_text.delta")
    assert text == "Done: total 0"
    item = evs[-1][1]["response"]["output"][0]
    assert item["type"] == "message" and item["role"] == "assistant" and item["id"] == "msg_0001"
    assert item["content"] == [{"type": "output_text", "text": "Done: total 0", "annotations": []}]
    info = wire_responses.decode_stream(raw)
    assert info.terminal == "completed" and info.calls == []


# --- strictness ----------------------------------------------------------------------------------------

STRICT_TABLE = [
    # behaviour, api, sent, effective
    ("passthrough", "responses", _ABSENT, False),
    ("passthrough", "responses", None, False),
    ("passthrough", "responses", False, False),
    ("passthrough", "responses", True, True),
    ("passthrough", "chat", _ABSENT, False),
    ("passthrough", "chat", True, True),
    ("absent-is-strict", "responses", _ABSENT, True),
    ("absent-is-strict", "responses", None, True),
    ("absent-is-strict", "responses", False, False),
    ("absent-is-strict", "responses", True, True),
    ("absent-is-strict", "codex", _ABSENT, True),
    ("absent-is-strict", "codex", False, False),
    ("absent-is-strict", "chat", _ABSENT, False),
    ("absent-is-strict", "chat", None, False),
    ("absent-is-strict", "chat", False, False),
    ("absent-is-strict", "chat", True, True),
    ("no-images", "responses", _ABSENT, True),
    ("no-images", "chat", _ABSENT, False),
    ("force-strict", "responses", False, True),
    ("force-strict", "responses", _ABSENT, True),
    ("force-strict", "chat", False, True),
    ("force-strict", "chat", _ABSENT, True),
]


def _path(behaviour: str, api: str) -> str:
    return (
        f"/{behaviour}/" + {"responses": "v1/responses", "codex": "codex/responses", "chat": "v1/chat/completions"}[api]
    )


@pytest.mark.parametrize(
    "behaviour,api,sent,effective",
    STRICT_TABLE,
    ids=[f"{b}-{a}-{'absent' if s is _ABSENT else s}" for b, a, s, _ in STRICT_TABLE],
)
def test_effective_strictness_table(gw, behaviour, api, sent, effective):
    body = chat_body(strict=sent) if api == "chat" else responses_body(strict=sent)
    status, _, raw = gw.post(_path(behaviour, api), body)
    assert status == 200
    [entry] = gw.lines()
    assert entry["gateway"]["strict"] == {"bash": effective}
    decode = wire_chat.decode_stream if api == "chat" else wire_responses.decode_stream
    assert one_call(decode(raw)).arguments == (FILLED_ARGS if effective else REQUIRED_ARGS)


def test_strictness_is_per_tool(gw):
    other = {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "limit": {"type": "number"}},
        "required": ["file_path"],
    }
    tools = [responses_tool(False), responses_tool(_ABSENT, name="read", parameters=other)]
    gw.post("/absent-is-strict/v1/responses", responses_body(tools=tools))
    assert gw.lines()[0]["gateway"]["strict"] == {"bash": False, "read": True}


def _strict_reading(params: dict) -> dict:
    return {**params, "required": list(params["properties"]), "additionalProperties": False}


def test_responses_objects_echo_tools_as_enforced(gw):
    """Like real Responses backends, every response object echoes `tools` normalised: `strict` as the
    gateway enforces it (a bool) and, under strict, the schema it enforces; the log keeps `gateway.strict`."""
    other = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "opts": {"type": "object", "properties": {"n": {"type": "number"}}},
        },
        "required": ["file_path"],
    }
    tools = [responses_tool(False), responses_tool(_ABSENT, name="read", parameters=other)]
    _, _, raw = gw.post("/absent-is-strict/v1/responses", responses_body(tools=tools))
    evs = events(raw)
    objects = [p["response"] for t, p in evs if t in ("response.created", "response.in_progress", "response.completed")]
    assert len(objects) == 3
    read_enforced = {
        **_strict_reading(other),
        "properties": {"file_path": {"type": "string"}, "opts": {**_strict_reading(other["properties"]["opts"])}},
    }
    expected = [
        {"type": "function", "name": "bash", "description": "Run a bash command.", "parameters": BASH, "strict": False},
        {
            "type": "function",
            "name": "read",
            "description": "Run a bash command.",
            "parameters": read_enforced,
            "strict": True,
        },
    ]
    assert all(o["tools"] == expected for o in objects)
    assert gw.lines()[0]["gateway"]["strict"] == {"bash": False, "read": True}
    # non-stream bodies and failed responses carry the echo too; passthrough reads an absent strict as false
    _, _, raw = gw.post("/passthrough/v1/responses", responses_body(stream=False))
    assert json.loads(raw)["tools"] == [{**responses_tool(), "strict": False}]
    _, _, raw = gw.post("/force-strict/v1/responses", responses_body(stream=False))
    assert json.loads(raw)["tools"] == [{**responses_tool(), "parameters": _strict_reading(BASH), "strict": True}]
    _, _, raw = gw.post("/fail/v1/responses", responses_body(strict=True))
    failed = [p["response"] for t, p in events(raw) if t == "response.failed"]
    assert failed[0]["tools"] == [{**responses_tool(), "parameters": _strict_reading(BASH), "strict": True}]
    # Chat Completions objects carry no echo
    _, _, raw = gw.post("/passthrough/v1/chat/completions", chat_body(stream=False))
    assert "tools" not in json.loads(raw)


# --- personas ------------------------------------------------------------------------------------------


def test_other_tools_get_example_strings():
    params = {
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "limit": {"type": "number"},
            "mode": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["file_path", "mode"],
    }
    assert gateway.build_arguments(params, strict=False) == {"file_path": "example", "mode": "a"}
    assert gateway.build_arguments(params, strict=True) == {"file_path": "example", "limit": 1, "mode": "a"}
    assert gateway.build_arguments(params, strict=True, nulls=True) == {
        "file_path": "example",
        "limit": None,
        "mode": "a",
    }


def test_first_tool_is_called_when_there_is_no_bash(gw):
    params = {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}
    _, _, raw = gw.post(
        "/passthrough/v1/responses", responses_body(tools=[responses_tool(name="read", parameters=params)])
    )
    call = one_call(wire_responses.decode_stream(raw))
    assert (call.name, call.arguments) == ("read", {"file_path": "example"})


def test_retry_after_justification_refusal_then_give_up(gw):
    path = "/absent-is-strict/v1/responses"
    _, _, raw = gw.post(path, responses_body(input=history(REFUSAL)))
    assert one_call(wire_responses.decode_stream(raw)).arguments == RETRY_ARGS

    # The retry is refused again: the model gives up with text quoting the first line.
    earlier = history(REFUSAL)[1:]
    second = history(REFUSAL + "\nmore detail", args=RETRY_ARGS, call_id="call_prev_2", earlier=earlier)
    _, _, raw = gw.post(path, responses_body(input=second))
    info = wire_responses.decode_stream(raw)
    assert info.calls == [] and info.terminal == "completed"
    text = events(raw)[-1][1]["response"]["output"][0]["content"][0]["text"]
    assert text == "The command was refused: " + REFUSAL


def test_retry_reads_a_content_list_output(gw):
    output = [{"type": "input_text", "text": REFUSAL}]
    _, _, raw = gw.post("/absent-is-strict/v1/responses", responses_body(input=history(output)))
    assert one_call(wire_responses.decode_stream(raw)).arguments == RETRY_ARGS


@pytest.mark.parametrize(
    "output,text",
    [
        (
            'Error: invalid arguments: "workdir" must be a string',
            'The command was refused: Error: invalid arguments: "workdir" must be a string',
        ),
        ([{"type": "input_text", "text": "total 8\ndrwxr-xr-x 2 dev dev 4096 ."}], "Done: total 8"),
    ],
)
def test_other_results_end_the_turn_with_text(gw, output, text):
    _, _, raw = gw.post("/absent-is-strict/v1/responses", responses_body(input=history(output)))
    evs = events(raw)
    assert evs[-1][1]["response"]["output"][0]["content"][0]["text"] == text


def test_new_user_message_starts_a_new_call(gw):
    conv = history("total 0") + [{"role": "assistant", "content": "Done: total 0"}, user()]
    _, _, raw = gw.post("/absent-is-strict/v1/responses", responses_body(input=conv))
    assert one_call(wire_responses.decode_stream(raw)).arguments == FILLED_ARGS


def test_vision_describes_an_image_and_coder_calls_the_tool(gw):
    conv = [user(image_part())]
    _, _, raw = gw.post("/passthrough/v1/responses", responses_body(model="gw-vision", input=conv))
    evs = events(raw)
    assert evs[-1][1]["response"]["output"][0]["content"][0]["text"] == "The screenshot shows a failing test run."
    assert gw.lines()[-1]["gateway"]["persona"] == "gw-vision"
    _, _, raw = gw.post("/passthrough/v1/responses", responses_body(model="gw-coder", input=conv))
    assert one_call(wire_responses.decode_stream(raw)).name == "bash"
    _, _, raw = gw.post("/passthrough/v1/responses", responses_body(model="gw-vision"))  # no image: a call
    assert one_call(wire_responses.decode_stream(raw)).name == "bash"


def test_unknown_model_behaves_like_coder_and_is_echoed(gw):
    _, _, raw = gw.post("/passthrough/v1/responses", responses_body(model="some-model"))
    assert events(raw)[-1][1]["response"]["model"] == "some-model"
    assert gw.lines()[0]["gateway"]["persona"] == "gw-coder"


# --- Chat Completions ----------------------------------------------------------------------------------


def test_chat_stream_shape_with_usage(gw):
    status, headers, raw = gw.post("/passthrough/v1/chat/completions", chat_body())
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    frames = chat_frames(raw)
    assert frames[-1] == "[DONE]"
    chunks = [json.loads(f) for f in frames[:-1]]
    first = chunks[0]["choices"][0]["delta"]
    assert first["role"] == "assistant" and first["tool_calls"] == [
        {"index": 0, "id": "call_0001", "type": "function", "function": {"name": "bash", "arguments": ""}}
    ]
    pieces = [c["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] for c in chunks[1:-2]]
    assert json.loads("".join(pieces)) == REQUIRED_ARGS and len(pieces) >= 2
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and set(chunks[-1]["usage"]) == {
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
    }
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == "chatcmpl-0001" for c in chunks)
    info = wire_chat.decode_stream(raw)
    assert info.terminal == "completed" and info.issues == [] and info.input_tokens > 0
    assert one_call(info).arguments == REQUIRED_ARGS


def test_chat_stream_without_usage_and_text_reply(gw):
    messages = [
        {"role": "user", "content": "List the workspace."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_prev_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps(REQUIRED_ARGS)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_prev_1", "content": "total 0"},
    ]
    _, _, raw = gw.post("/passthrough/v1/chat/completions", chat_body(messages=messages, usage=False))
    chunks = [json.loads(f) for f in chat_frames(raw)[:-1]]
    assert all(c["choices"] for c in chunks)
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == "Done: total 0"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    info = wire_chat.decode_stream(raw)
    assert info.terminal == "completed" and info.calls == []


def test_chat_retry_flow(gw):
    messages = [
        {"role": "user", "content": "List the workspace."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_prev_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps(FILLED_ARGS)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_prev_1", "content": REFUSAL},
    ]
    _, _, raw = gw.post("/force-strict/v1/chat/completions", chat_body(messages=messages))
    assert one_call(wire_chat.decode_stream(raw)).arguments == RETRY_ARGS


def test_chat_non_stream(gw):
    status, _, raw = gw.post("/force-strict/v1/chat/completions", chat_body(stream=False))
    body = json.loads(raw)
    assert status == 200 and body["object"] == "chat.completion"
    assert body["choices"][0]["finish_reason"] == "tool_calls"
    info = wire_chat.decode_response(body)
    assert info.terminal == "completed" and one_call(info).arguments == FILLED_ARGS


def test_chat_vision_image_url(gw):
    messages = [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Look."}, {"type": "image_url", "image_url": {"url": PNG}}],
        }
    ]
    _, _, raw = gw.post("/passthrough/v1/chat/completions", chat_body(model="gw-vision", messages=messages))
    text = "".join(
        json.loads(f)["choices"][0]["delta"].get("content") or ""
        for f in chat_frames(raw)[:-1]
        if json.loads(f)["choices"]
    )
    assert text == "The screenshot shows a failing test run."


# --- error behaviours ----------------------------------------------------------------------------------


def test_no_images_refuses_image_parts(gw):
    status, headers, raw = gw.post("/no-images/v1/responses", responses_body(input=[user(image_part())]))
    assert status == 400 and headers["content-type"] == "application/json"
    assert json.loads(raw) == {
        "error": {
            "message": "Image input is not supported by model gw-coder on this gateway.",
            "type": "invalid_request_error",
            "param": "input[0].content[1]",
            "code": "unsupported_image_input",
        }
    }
    # an image inside a tool result counts too
    out = [{"type": "input_text", "text": "screenshot taken"}, image_part()]
    status, _, raw = gw.post("/no-images/v1/responses", responses_body(input=history(out)))
    assert status == 400 and json.loads(raw)["error"]["param"] == "input[2].output[1]"
    messages = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": PNG}}]}]
    status, _, raw = gw.post("/no-images/v1/chat/completions", chat_body(messages=messages))
    assert status == 400 and json.loads(raw)["error"]["param"] == "messages[0].content[0]"
    status, _, _ = gw.post("/no-images/v1/responses", responses_body())
    assert status == 200
    assert [e["gateway"]["outcome"] for e in gw.lines()] == ["image-refused"] * 3 + ["ok"]


def test_rate_limit(gw):
    status, headers, raw = gw.post("/rate-limit/v1/responses", responses_body())
    assert status == 429
    assert headers["retry-after"] == "1" and headers["retry-after-ms"] == "1000"
    assert json.loads(raw) == {
        "error": {
            "message": "Rate limit reached for gw-coder. Please try again in 1s.",
            "type": "requests",
            "param": None,
            "code": "rate_limit_exceeded",
        }
    }
    status, _, _ = gw.post("/rate-limit/v1/chat/completions", chat_body())
    assert status == 429
    entry = gw.lines()[0]
    assert entry["id"] == "req-1" and entry["gateway"]["outcome"] == "rate-limited"
    assert entry["response"]["headers"]["retry-after-ms"] == "1000"


def test_cut_stream(gw):
    status, _, raw = gw.post("/cut-stream/v1/responses", responses_body())
    assert status == 200
    evs = events(raw)
    assert [t for t, _ in evs] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.delta",
    ]
    info = wire_responses.decode_stream(raw)
    assert info.terminal == "cut"
    call = one_call(info)
    assert call.complete is False and call.name == "bash"

    _, _, raw = gw.post("/cut-stream/v1/chat/completions", chat_body())
    assert b"[DONE]" not in raw
    info = wire_chat.decode_stream(raw)
    assert info.terminal == "cut" and one_call(info).complete is False


def test_fail_streams_response_failed(gw):
    status, _, raw = gw.post("/fail/v1/responses", responses_body())
    assert status == 200
    evs = events(raw)
    assert [t for t, _ in evs] == ["response.created", "response.in_progress", "response.failed"]
    assert evs[-1][1]["response"]["error"] == {
        "code": "server_error",
        "message": "The model failed to produce a response.",
    }
    info = wire_responses.decode_stream(raw)
    assert (info.terminal, info.error_code, info.error_message) == (
        "failed",
        "server_error",
        "The model failed to produce a response.",
    )
    _, _, raw = gw.post("/fail/v1/chat/completions", chat_body())
    info = wire_chat.decode_stream(raw)
    assert info.terminal == "failed" and info.error_code == "server_error"


@pytest.mark.parametrize(
    "path,method,body",
    [
        ("/unknown/v1/responses", "POST", {}),
        ("/passthrough/v1/nothing", "POST", {}),
        ("/passthrough/v1/responses", "GET", None),
        ("/", "GET", None),
    ],
)
def test_not_found(gw, path, method, body):
    status, _, raw = gw.request(path, body, method=method)
    assert status == 404
    err = json.loads(raw)["error"]
    assert set(err) == {"message", "type", "param", "code"}
    assert err["type"] == "invalid_request_error" and err["code"] == "unknown_url"
    assert gw.lines()[0]["gateway"]["outcome"] == "not-found"


def test_models(gw):
    status, _, raw = gw.request("/busy/v1/models")
    assert status == 200
    assert [m["id"] for m in json.loads(raw)["data"]] == ["gw-coder", "gw-vision", "gw-text-mini"]


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_bad_json_is_a_400_and_the_server_keeps_serving(gw, raw):
    status, _, body = gw.request("/passthrough/v1/responses", raw=raw)
    assert status == 400
    err = json.loads(body)["error"]
    assert err["type"] == "invalid_request_error" and err["code"] == "invalid_json"
    assert gw.post("/passthrough/v1/responses", responses_body())[0] == 200
    assert [e["gateway"]["outcome"] for e in gw.lines()] == ["bad-request", "ok"]


# --- busy ----------------------------------------------------------------------------------------------

BUSY_STATUS = {"ok": 200, "cut": 200, "failed": 200, "rate-limited": 429, "server-error": 500}


def _busy_run(make_gateway, name: str, seed: int, n: int = 60) -> list[dict]:
    g = make_gateway(name, seed=seed)
    for _ in range(n):
        g.post("/busy/v1/responses", responses_body(stream=True))
    return g.lines()


def test_busy_is_deterministic_for_a_seed(make_gateway):
    a = _busy_run(make_gateway, "a.jsonl", seed=7)
    b = _busy_run(make_gateway, "b.jsonl", seed=7)
    c = _busy_run(make_gateway, "c.jsonl", seed=8)
    outcomes = [e["gateway"]["outcome"] for e in a]
    assert outcomes == [e["gateway"]["outcome"] for e in b]
    assert outcomes != [e["gateway"]["outcome"] for e in c]
    assert [(e["id"], e["started_at"], e["response"]) for e in a] == [
        (e["id"], e["started_at"], e["response"]) for e in b
    ]
    # the draws are random.Random(seed).random(), one per request, against the documented table
    rng = random.Random(7)
    draws = [rng.random() for _ in a]
    expected = [next(name for name, upper in gateway.BUSY_TABLE if d < upper) for d in draws]
    assert outcomes == expected
    assert outcomes.count("ok") > len(outcomes) // 2 and len(set(outcomes)) >= 3
    assert [e["response"]["status"] for e in a] == [BUSY_STATUS[o] for o in outcomes]
    # the virtual clock advances 30-240 s per busy request
    starts = [gateway.parse_iso(e["started_at"]) for e in a]
    assert starts[0] == CLOCK_EPOCH
    assert all(30 <= y - x <= 240 for x, y in itertools.pairwise(starts))
    assert all(e["gateway"]["strict"] == {"bash": True} for e in a)  # normal traffic reads like absent-is-strict


def test_busy_refuses_images_for_text_models(gw):
    seen = []
    for model in ("gw-text", "gw-coder"):
        for _ in range(12):
            gw.post("/busy/v1/responses", responses_body(model=model, input=[user(image_part())]))
            seen.append((model, gw.lines()[-1]["gateway"]["outcome"]))
    text_outcomes = {o for m, o in seen if m == "gw-text"}
    assert "image-refused" in text_outcomes and text_outcomes <= {"image-refused", "rate-limited"}
    assert "image-refused" not in {o for m, o in seen if m == "gw-coder"}


# --- log -----------------------------------------------------------------------------------------------


def test_log_line_shape(gw):
    gw.post("/passthrough/v1/responses", responses_body())
    gw.post("/rate-limit/v1/responses", responses_body(stream=False))
    first, second = gw.lines()
    assert set(first) == {"id", "started_at", "duration_ms", "request", "response", "gateway"}
    assert first["id"] == "resp_0001" and second["id"] == "req-2"
    assert first["started_at"] == "2026-11-30T00:00:00.000Z"
    assert second["started_at"] == "2026-11-30T00:00:01.000Z"
    assert isinstance(first["duration_ms"], float)
    req = first["request"]
    assert req["method"] == "POST" and req["url"] == f"{gw.base}/passthrough/v1/responses"
    assert req["headers"]["authorization"] == "Bearer sk-lab-fake-0000"
    assert all(k == k.lower() for k in req["headers"])
    assert req["body"] == responses_body()
    resp = first["response"]
    assert resp["status"] == 200 and resp["headers"]["content-type"] == "text/event-stream; charset=utf-8"
    assert isinstance(resp["body"], str) and resp["body"].startswith("event: response.created\n")
    assert wire_responses.decode_stream(resp["body"].encode()).terminal == "completed"
    assert second["response"]["body"]["error"]["code"] == "rate_limit_exceeded"
    assert first["gateway"] == {
        "behaviour": "passthrough",
        "persona": "gw-coder",
        "strict": {"bash": False},
        "outcome": "ok",
    }


def test_log_loads_with_the_toolkit(gw):
    gw.post("/passthrough/v1/responses", responses_body())
    gw.post("/absent-is-strict/codex/responses", responses_body())
    gw.post("/force-strict/v1/chat/completions", chat_body())
    gw.post("/passthrough/v1/chat/completions", chat_body(stream=False))
    gw.post("/passthrough/v1/responses", responses_body(stream=False))
    gw.post("/no-images/v1/responses", responses_body(input=[user(image_part())]))
    gw.post("/rate-limit/v1/responses", responses_body())
    gw.post("/fail/v1/responses", responses_body())
    gw.post("/cut-stream/v1/responses", responses_body())
    gw.request("/passthrough/v1/models")
    gw.post("/unknown/v1/responses", {})
    lines = gw.lines()
    assert len(lines) == 11 and all("gateway" in e for e in lines)

    cap = toolkit.load_capture(gw.log)
    summary = cap.summary().iloc[0]
    assert summary["format"] == "jsonl" and summary["entries"] == 11 and summary["reconciles"]
    assert len(cap.exchanges) == 11
    assert cap.problems[["location", "kind"]].values.tolist() == [["line 9", "stream-cut"]]
    ex = cap.exchanges.set_index("location")
    assert ex.loc["line 1", "terminal"] == "completed" and ex.loc["line 2", "terminal"] == "completed"
    assert ex.loc["line 3", "api"] == "chat" and ex.loc["line 4", "terminal"] == "completed"
    assert ex.loc["line 6", "terminal"] == "http-error" and ex.loc["line 6", "error_code"] == "unsupported_image_input"
    assert ex.loc["line 7", "status"] == 429 and ex.loc["line 7", "error_code"] == "rate_limit_exceeded"
    assert ex.loc["line 8", "terminal"] == "failed" and ex.loc["line 8", "error_code"] == "server_error"
    assert ex.loc["line 9", "terminal"] == "cut"
    assert list(ex["log_id"].iloc[:3]) == ["resp_0001", "resp_0002", "chatcmpl-0001"]
    assert ex.loc["line 1", "started_at"].timestamp() == CLOCK_EPOCH
    strict = cap.tools.set_index("exchange_id")["strict_state"]
    assert strict.iloc[0] == "absent"


def test_ids_count_per_server(gw):
    for _ in range(2):
        gw.post("/passthrough/v1/responses", responses_body())
    gw.post("/passthrough/v1/chat/completions", chat_body())
    ids = [(e["id"], e["gateway"]["outcome"]) for e in gw.lines()]
    assert ids == [("resp_0001", "ok"), ("resp_0002", "ok"), ("chatcmpl-0001", "ok")]
    calls = [wire_responses.decode_stream(e["response"]["body"].encode()).calls[0].call_id for e in gw.lines()[:2]]
    assert calls == ["call_0001", "call_0002"]


def test_concurrent_requests_each_get_one_log_line(gw):
    results = []

    def worker():
        results.append(gw.post("/passthrough/v1/responses", responses_body())[0])

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [200] * 8
    lines = gw.lines()
    assert sorted(e["id"] for e in lines) == [f"resp_{n:04d}" for n in range(1, 9)]
    # in the order the requests arrived: their x-request-id numbers count up, as do their virtual start times
    numbers = [int(e["response"]["headers"]["x-request-id"].removeprefix("req_")) for e in lines]
    assert numbers == list(range(1, 9))
    starts = [gateway.parse_iso(e["started_at"]) for e in lines]
    assert starts == sorted(starts)


def test_log_is_in_request_order_when_an_earlier_exchange_finishes_last(gw):
    """The first request is held mid-body while a second one is answered; its line still comes first."""
    body = json.dumps(responses_body(stream=False)).encode()
    slow = http.client.HTTPConnection("127.0.0.1", gw.server.server_port, timeout=WAIT_S)
    try:
        slow.putrequest("POST", "/passthrough/v1/responses", skip_accept_encoding=True)
        slow.putheader("content-type", "application/json")
        slow.putheader("content-length", str(len(body)))
        slow.endheaders(body[:10])  # the handler has started and waits for the rest of the body
        deadline = time.monotonic() + WAIT_S
        while gw.server._active < 1:  # a state to wait for, not a time
            assert time.monotonic() < deadline, "the first request never reached the gateway"
            time.sleep(0.001)
        assert gw.post("/rate-limit/v1/responses", responses_body())[0] == 429
        slow.send(body[10:])
        answer = slow.getresponse()
        assert answer.status == 200 and json.loads(answer.read())["status"] == "completed"
    finally:
        slow.close()
    lines = gw.lines()
    assert [(e["id"], e["gateway"]["outcome"]) for e in lines] == [("resp_0001", "ok"), ("req-2", "rate-limited")]
    assert [e["started_at"] for e in lines] == ["2026-11-30T00:00:00.000Z", "2026-11-30T00:00:01.000Z"]


def test_real_clock_by_default(make_gateway):
    g = make_gateway("real.jsonl", clock=None)
    before, before_mono = time.time(), time.monotonic()
    g.post("/passthrough/v1/responses", responses_body())
    entry = g.lines()[0]
    after, after_mono = time.time(), time.monotonic()
    # the request's real start (logged to the millisecond) and duration lie within the client's view of it
    assert math.floor(before * 1000) / 1000 <= gateway.parse_iso(entry["started_at"]) <= after
    assert 0 < entry["duration_ms"] <= round((after_mono - before_mono) * 1000.0, 1) + 0.1


def test_null_filling_persona_sends_null_for_optional_fields():
    args = gateway.build_arguments(BASH, True, nulls=True)
    assert args == {
        **FILLED_ARGS,
        "timeoutMs": None,
        "workdir": None,
        "run_in_background": None,
        "sandbox_permissions": None,
        "justification": None,
    }
    assert gateway.persona_for("gw-text-mini") == "gw-text-mini"


def test_placeholder_leads_to_read_image_after_refusals():
    tools = [{"name": "bash", "parameters": BASH}, {"name": "read_image", "parameters": {"type": "object"}}]
    user = {"kind": "user", "text": "see screenshot\n(image omitted: model does not support images)", "image": False}
    refused = {"kind": "output", "text": "Error: sandbox escalation refused", "call_id": "c2"}
    reply = gateway.decide(
        "gw-coder", [user, {"kind": "call", "name": "bash", "call_id": "c2"}, refused], tools, {"bash": True}
    )
    assert reply == {"type": "call", "name": "read_image", "arguments": {"file_path": "screenshot.png"}}
    after = [
        user,
        {"kind": "call", "name": "read_image", "call_id": "c3"},
        {"kind": "output", "text": "Error: cannot read", "call_id": "c3"},
    ]
    assert gateway.decide("gw-coder", after, tools, {"bash": True})["type"] == "text"
    without_placeholder = [dict(user, text="see screenshot"), refused]
    assert gateway.decide("gw-coder", without_placeholder, tools, {"bash": True})["type"] == "text"


def test_a_route_segment_after_the_behaviour_is_accepted_and_logged(gw):
    body = {"model": "gw-coder", "stream": False, "input": "hi", "tools": []}
    status, _, _ = gw.request("/busy/team-a/v1/responses", body)
    assert status in (200, 429, 500)
    assert gw.lines()[-1]["gateway"]["route"] == "team-a"
