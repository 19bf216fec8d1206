"""The incident lab's schema-rewriting proxy (lab/rewriter.py), and the two-hop data it was recorded in.

The rewriter runs in-process in a thread against a tiny recording upstream on 127.0.0.1 (and once
against the lab's real gateway); the committed two-hop folders are checked with plain Python: what
front.har and back.har differ by, path by path, is exactly what rewriter.jsonl says.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import toolkit
from toolkit.wire import responses as wire_responses

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
LAB = REPO / "lab"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"lab_{name}", LAB / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


rewriter = _load("rewriter")
gateway = _load("gateway")

PARAMS = {
    "type": "object",
    "properties": {"command": {"type": "string"}, "timeoutMs": {"type": "number"}, "justification": {"type": "string"}},
    "required": ["command"],
}
PNG = "data:image/png;base64,iVBORw0KGgo="
CLIENT_HEADERS = {
    "content-type": "application/json",
    "authorization": "Bearer sk-lab-FAKE-0000",
    "user-agent": "pi/1.6.0 (linux; node/v20.20.2; x64)",
    "x-stainless-os": "Linux",
    "x-stainless-lang": "js",
    "accept": "application/json",
}


def tool(name="bash", **extra) -> dict:
    return {"type": "function", "name": name, "description": "Run a command.", "parameters": PARAMS, **extra}


def responses_body(**extra) -> dict:
    body = {
        "model": "gw-coder",
        "input": [
            {"role": "system", "content": "You are a coding agent."},
            {"role": "user", "content": [{"type": "input_text", "text": "List files."}]},
        ],
        "stream": True,
        "store": False,
        "tools": [tool()],
    }
    body.update(extra)
    return body


# --- a tiny recording upstream -----------------------------------------------------------------------------


class Upstream:
    """Records every request; answers with the scripted ``(status, headers, [chunks])`` (close-delimited)."""

    def __init__(self):
        self.requests: list[dict] = []
        self.reply = (200, {"content-type": "text/event-stream"}, [b"event: x\ndata: {}\n\n"])
        # Set, the chunks after the first wait for it: a test then sees them arrive one write at a time
        # however the threads are scheduled.
        self.hold: threading.Event | None = None
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                self._answer()

            do_POST = do_GET

            def _answer(self):
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n) if n else b""
                outer.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "raw": raw,
                        "headers": [(k.lower(), v) for k, v in self.headers.items()],
                    }
                )
                status, headers, chunks = outer.reply
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("connection", "close")
                self.end_headers()
                for n, c in enumerate(chunks):
                    if n and outer.hold is not None:
                        outer.hold.wait(60)
                    self.wfile.write(c)
                    self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def body(self, n=-1) -> dict:
        return json.loads(self.requests[n]["raw"])

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Rewriter:
    def __init__(self, upstream_url: str, mode: str, log: Path):
        self.log = log
        self.server = rewriter.make_server(0, upstream_url, mode=mode, log_path=log)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def request(self, path, body=None, headers=None, method=None, raw=None):
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(
            self.base + path,
            data=data,
            method=method or ("POST" if data else "GET"),
            headers=CLIENT_HEADERS if headers is None else headers,
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read()

    def lines(self) -> list[dict]:
        if hasattr(self.server, "drain"):
            self.server.drain()  # a log line is written after its response is sent
        return [json.loads(x) for x in self.log.read_text(encoding="utf-8").splitlines() if x.strip()]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream():
    up = Upstream()
    yield up
    up.close()


@pytest.fixture
def make_rewriter(tmp_path, upstream):
    started = []

    def start(mode="strict-converter", url=None) -> Rewriter:
        rw = Rewriter(url or upstream.url, mode, tmp_path / f"rewriter-{len(started)}.jsonl")
        started.append(rw)
        return rw

    yield start
    for rw in started:
        rw.close()


def header_changes(changes):
    return [c for c in changes if c["path"].startswith("header:")]


def body_changes(changes):
    return [c for c in changes if c["path"].startswith("$")]


EXPECTED_HEADER_CHANGES = [
    {
        "path": "header:user-agent",
        "kind": "header removed",
        "before": "pi/1.6.0 (linux; node/v20.20.2; x64)",
        "after": None,
    },
    {"path": "header:x-stainless-os", "kind": "header removed", "before": "Linux", "after": None},
    {"path": "header:x-stainless-lang", "kind": "header removed", "before": "js", "after": None},
    {"path": "header:user-agent", "kind": "header added", "before": None, "after": "lab-rewriter/1"},
    {"path": "header:x-converter", "kind": "header added", "before": None, "after": "lab-rewriter/1"},
]


# --- strict-converter --------------------------------------------------------------------------------------


def test_strict_converter_rewrites_and_logs_every_change(upstream, make_rewriter):
    rw = make_rewriter()
    frames = [b'event: response.created\ndata: {"a":1}\n\n', b'event: response.completed\ndata: {"b":2}\n\n']
    upstream.reply = (200, {"content-type": "text/event-stream; charset=utf-8", "x-request-id": "req_9"}, frames)
    sent = responses_body(
        tools=[tool(), tool("read", strict=False), tool("codex", strict=None), tool("ok", strict=True)],
        prompt_cache_key="k",
        include=["reasoning.encrypted_content"],
        text={"verbosity": "low"},
        reasoning={"effort": "low"},
        parallel_tool_calls=True,
        temperature=0.2,
        instructions="Be brief.",
        max_output_tokens=100,
        tool_choice="auto",
    )
    status, headers, body = rw.request("/gw/v1/responses", sent)
    assert status == 200 and body == b"".join(frames)  # the stream comes back unchanged
    assert headers["x-request-id"] == "req_9"

    got = upstream.requests[0]
    assert got["path"] == "/gw/v1/responses"
    every = ["command", "timeoutMs", "justification"]
    strict_params = {**PARAMS, "required": every}
    assert upstream.body() == {
        "model": "gw-coder-2026-11",
        "input": sent["input"],
        "stream": True,
        "tools": [
            tool(strict=True, parameters=strict_params),
            tool("read", strict=True, parameters=strict_params),
            tool("codex", strict=True, parameters=strict_params),
            tool("ok", strict=True, parameters=strict_params),
        ],
        "temperature": 0.2,
        "instructions": "Be brief.",
        "max_output_tokens": 100,
        "tool_choice": "auto",
    }
    fwd = dict(got["headers"])
    assert fwd["authorization"] == "Bearer sk-lab-FAKE-0000"  # forwarded, never logged
    assert fwd["user-agent"] == "lab-rewriter/1" and fwd["x-converter"] == "lab-rewriter/1"
    assert not any(k.startswith("x-stainless-") for k in fwd)

    [line] = rw.lines()
    assert set(line) == {"id", "time", "mode", "method", "path_in", "path_out", "status", "changes"}
    assert (line["id"], line["mode"], line["path_in"], line["path_out"], line["status"]) == (
        "rw-0001",
        "strict-converter",
        "/gw/v1/responses",
        "/gw/v1/responses",
        200,
    )
    req_changed = [
        {"path": f"$.tools[{i}].parameters.required", "kind": "required changed", "before": ["command"], "after": every}
        for i in range(4)
    ]
    assert body_changes(line["changes"]) == [
        {"path": "$.store", "kind": "key dropped", "before": False, "after": None},
        {"path": "$.prompt_cache_key", "kind": "key dropped", "before": "k", "after": None},
        {"path": "$.include", "kind": "key dropped", "before": ["reasoning.encrypted_content"], "after": None},
        {"path": "$.text", "kind": "key dropped", "before": {"verbosity": "low"}, "after": None},
        {"path": "$.reasoning", "kind": "key dropped", "before": {"effort": "low"}, "after": None},
        {"path": "$.parallel_tool_calls", "kind": "key dropped", "before": True, "after": None},
        {"path": "$.model", "kind": "model renamed", "before": "gw-coder", "after": "gw-coder-2026-11"},
        {"path": "$.tools[0].strict", "kind": "strict added", "before": None, "after": True},
        req_changed[0],
        {"path": "$.tools[1].strict", "kind": "strict changed", "before": False, "after": True},
        req_changed[1],
        {"path": "$.tools[2].strict", "kind": "strict changed", "before": None, "after": True},
        req_changed[2],
        req_changed[3],
    ]
    assert sorted(header_changes(line["changes"]), key=json.dumps) == sorted(EXPECTED_HEADER_CHANGES, key=json.dumps)
    assert "sk-lab-FAKE" not in rw.log.read_text()
    assert all(c["kind"] in rewriter.KINDS for c in line["changes"])


def test_stream_is_relayed_chunk_by_chunk(upstream, make_rewriter):
    rw = make_rewriter()
    frames = [f'event: e\ndata: {{"n":{n}}}\n\n'.encode() for n in range(5)]
    upstream.reply = (200, {"content-type": "text/event-stream"}, frames)
    upstream.hold = threading.Event()  # the upstream sends the first frame, then waits for the client's read
    req = urllib.request.Request(
        rw.base + "/gw/v1/responses", data=json.dumps(responses_body()).encode(), method="POST", headers=CLIENT_HEADERS
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        first = resp.read1(65536)
        upstream.hold.set()
        rest = resp.read()
    assert first + rest == b"".join(frames) and first.count(b"\n\n") < 5  # not one buffered write


def test_other_requests_get_only_the_header_changes(upstream, make_rewriter):
    rw = make_rewriter()
    upstream.reply = (200, {"content-type": "application/json"}, [b'{"object":"list","data":[]}'])
    status, _, body = rw.request("/gw/v1/models")
    assert status == 200 and json.loads(body) == {"object": "list", "data": []}
    raw = b'{"model":"gw-coder","messages":[],"store":false}'
    rw.request("/gw/v1/chat/completions", raw=raw)
    assert upstream.requests[1]["raw"] == raw  # not a Responses request: the body is not touched
    for line in rw.lines():
        assert body_changes(line["changes"]) == [] and line["path_in"] == line["path_out"]


def test_authorization_like_header_values_are_redacted_in_the_log(upstream, make_rewriter):
    rw = make_rewriter()
    upstream.reply = (200, {"content-type": "application/json"}, [b"{}"])
    rw.request(
        "/gw/v1/responses",
        responses_body(),
        headers={**CLIENT_HEADERS, "x-stainless-api-key": "c2VjcmV0", "proxy-authorization": "Basic c2VjcmV0"},
    )
    [line] = rw.lines()
    removed = [c for c in line["changes"] if c["path"] == "header:x-stainless-api-key"]
    assert removed == [
        {"path": "header:x-stainless-api-key", "kind": "header removed", "before": "<redacted>", "after": None}
    ]
    assert "c2VjcmV0" not in rw.log.read_text()
    # hop-by-hop headers are this connection's own: not forwarded, not logged
    assert "proxy-authorization" not in dict(upstream.requests[0]["headers"])
    assert not any("proxy-authorization" in c["path"] for c in line["changes"])
    assert rewriter.header_value("Authorization", "Bearer x") == "<redacted>"
    assert rewriter.header_value("x-api-key", "x") == "<redacted>" and rewriter.header_value("accept", "x") == "x"


def test_errors_pass_through_and_an_unreachable_upstream_is_a_502(upstream, make_rewriter):
    rw = make_rewriter("to-chat")
    envelope = b'{"error":{"message":"Rate limit","type":"requests","param":null,"code":"rate_limit_exceeded"}}'
    upstream.reply = (429, {"content-type": "application/json", "retry-after": "1"}, [envelope])
    status, headers, body = rw.request("/gw/v1/responses", responses_body())
    assert (status, headers["retry-after"], body) == (429, "1", envelope)
    dead = make_rewriter(url="http://127.0.0.1:9")  # discard port: nothing listens
    status, _, body = dead.request("/gw/v1/responses", responses_body())
    assert status == 502 and json.loads(body)["error"]["code"] == "bad_gateway"
    assert [line["status"] for line in dead.lines()] == [502]


def test_upstream_must_be_loopback():
    with pytest.raises(ValueError):
        rewriter.make_server(0, "http://example.com:80")


def test_cli_prints_port_and_stops_cleanly(tmp_path, upstream):
    log = tmp_path / "cli.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            str(LAB / "rewriter.py"),
            "--port",
            "0",
            "--upstream",
            upstream.url,
            "--log",
            str(log),
            "--mode",
            "strict-converter",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on 127.0.0.1:")
        port = int(line.strip().rsplit(":", 1)[1])
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/gw/v1/responses",
            method="POST",
            data=json.dumps(responses_body()).encode(),
            headers=CLIENT_HEADERS,
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            resp.read()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
    assert proc.stderr.read() == ""
    [entry] = [json.loads(x) for x in log.read_text().splitlines()]
    assert entry["id"] == "rw-0001" and upstream.body()["model"] == "gw-coder-2026-11"


# --- to-chat -----------------------------------------------------------------------------------------------


def _chat_sse(*chunks, done=True) -> list[bytes]:
    frames = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks]
    return frames + ([b"data: [DONE]\n\n"] if done else [])


BASE = {"id": "chatcmpl-7", "object": "chat.completion.chunk", "created": 1796000000, "model": "gw-coder-2026-11"}


def chunk(delta, finish=None, **extra):
    return {
        **BASE,
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


CALL_STREAM = _chat_sse(
    chunk(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"index": 0, "id": "call_0042", "type": "function", "function": {"name": "bash", "arguments": ""}}
            ],
        }
    ),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"command":'}}]}),
    chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"ls"}'}}]}),
    chunk({}, "tool_calls"),
    chunk(None, usage={"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}),
)


def test_to_chat_converts_the_request_and_logs_it(upstream, make_rewriter):
    rw = make_rewriter("to-chat")
    upstream.reply = (200, {"content-type": "text/event-stream"}, CALL_STREAM)
    history = [
        {"role": "system", "content": "You are a coding agent."},
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Look:"},
                {"type": "input_image", "detail": "auto", "image_url": PNG},
            ],
        },
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Running it.", "annotations": []}],
        },
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash", "arguments": '{"command":"ls"}'},
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": [
                {"type": "input_text", "text": "a.txt"},
                {"type": "input_image", "detail": "auto", "image_url": PNG},
            ],
        },
    ]
    sent = responses_body(
        input=history,
        tools=[tool(), tool("read", strict=False)],
        instructions="Be brief.",
        max_output_tokens=64,
        tool_choice={"type": "function", "name": "bash"},
        store=False,
    )
    status, headers, _body = rw.request("/gw/v1/responses", sent)
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    assert upstream.requests[0]["path"] == "/gw/v1/chat/completions"

    def fn(name, strict):
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": "Run a command.",
                "parameters": PARAMS,
                "strict": strict,
            },
        }

    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "system", "content": "You are a coding agent."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image_url", "image_url": {"url": PNG, "detail": "auto"}},
            ],
        },
        {
            "role": "assistant",
            "content": "Running it.",
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command":"ls"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
    ]
    assert upstream.body() == {
        "model": "gw-coder-2026-11",
        "messages": messages,
        "tools": [fn("bash", True), fn("read", True)],
        "tool_choice": {"type": "function", "function": {"name": "bash"}},
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 64,
    }

    [line] = rw.lines()
    assert (line["path_in"], line["path_out"]) == ("/gw/v1/responses", "/gw/v1/chat/completions")
    changes = body_changes(line["changes"])
    kinds = {(c["path"], c["kind"]) for c in changes}
    assert {
        ("$", "protocol converted"),
        ("$.store", "key dropped"),
        ("$.model", "model renamed"),
        ("$.tools[0].strict", "strict added"),
        ("$.tools[1].strict", "strict changed"),
        ("$.input[4].output[1]", "property dropped"),
        ("$.stream_options", "property rewritten"),
        ("$.max_output_tokens", "property rewritten"),
        ("$.tool_choice", "property rewritten"),
        ("$.instructions", "property rewritten"),
    } <= kinds
    # each converted value: `before` is the value at `path` in what was sent, `after` the value at `to`
    for c in changes:
        if "to" in c and c["path"].startswith("$.input["):
            i = int(c["path"][len("$.input[") : -1])
            assert c["before"] == history[i]
            j = int(c["to"].split("[")[1].split("]")[0])
            target = messages[j] if ".tool_calls" not in c["to"] else messages[j]["tool_calls"][0]
            if history[i].get("role") == "assistant":
                assert c["after"] == {"role": "assistant", "content": "Running it."}  # before the call was merged in
            else:
                assert c["after"] == target
    assert [c for c in line["changes"] if c["path"] == "response:$"] == [
        {"path": "response:$", "kind": "protocol converted", "before": "chat.completions", "after": "responses"}
    ]


def test_to_chat_turns_the_chat_stream_into_a_responses_stream(upstream, make_rewriter):
    rw = make_rewriter("to-chat")
    upstream.reply = (200, {"content-type": "text/event-stream"}, CALL_STREAM)
    _, _, body = rw.request("/gw/v1/responses", responses_body())
    info = wire_responses.decode_stream(body)
    assert info.terminal == "completed" and info.issues == []
    [call] = info.calls
    assert (call.call_id, call.item_id, call.name, call.arguments, call.complete) == (
        "call_0042",
        "fc_0042",
        "bash",
        {"command": "ls"},
        True,
    )
    frames = [json.loads(f.split("data: ", 1)[1]) for f in body.decode().split("\n\n") if f.strip()]
    assert [f["type"] for f in frames] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [f["sequence_number"] for f in frames] == list(range(len(frames)))
    final = frames[-1]["response"]
    assert final["usage"] == {
        "input_tokens": 50,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 7,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 57,
    }
    assert final["tools"] == [tool(strict=True)] and final["model"] == "gw-coder-2026-11"


def test_to_chat_text_reply_cut_stream_and_error_frame(upstream, make_rewriter):
    rw = make_rewriter("to-chat")
    upstream.reply = (
        200,
        {"content-type": "text/event-stream"},
        _chat_sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Done: "}),
            chunk({"content": "ok"}),
            chunk({}, "stop"),
        ),
    )
    _, _, body = rw.request("/gw/v1/responses", responses_body())
    info = wire_responses.decode_stream(body)
    assert info.terminal == "completed" and info.calls == [] and info.issues == []
    frames = [json.loads(f.split("data: ", 1)[1]) for f in body.decode().split("\n\n") if f.strip()]
    types = [f["type"] for f in frames]
    assert frames[-1]["response"]["output"][0]["content"][0]["text"] == "Done: ok"
    assert types == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    # cut before any finish_reason: passed on cut, without a terminal event
    upstream.reply = (200, {"content-type": "text/event-stream"}, CALL_STREAM[:2])
    _, _, body = rw.request("/gw/v1/responses", responses_body())
    assert wire_responses.decode_stream(body).terminal != "completed"
    assert b"response.completed" not in body and b"response.output_item.added" in body
    # a mid-stream error frame becomes response.failed
    upstream.reply = (
        200,
        {"content-type": "text/event-stream"},
        _chat_sse(
            chunk({"role": "assistant", "content": ""}),
            {"error": {"message": "boom", "type": "server_error", "param": None, "code": "server_error"}},
            done=False,
        ),
    )
    _, _, body = rw.request("/gw/v1/responses", responses_body())
    assert wire_responses.decode_stream(body).terminal == "failed"


def test_to_chat_against_the_real_gateway(tmp_path, make_rewriter):
    server = gateway.make_server(0, log_path=tmp_path / "gateway.jsonl", clock="2026-11-30T00:00:00Z")
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        rw = make_rewriter("to-chat", url=f"http://127.0.0.1:{server.server_port}")
        _, _, body = rw.request("/passthrough/v1/responses", responses_body(tools=[tool(strict=False)]))
        info = wire_responses.decode_stream(body)
        assert info.terminal == "completed"
        # strict: true from the converter: the passthrough gateway enforces it, the model fills every field
        assert set(info.calls[0].arguments) == set(PARAMS["properties"])
    finally:
        server.shutdown()
        server.server_close()
    [entry] = [json.loads(x) for x in (tmp_path / "gateway.jsonl").read_text().splitlines()]
    assert entry["request"]["url"].endswith("/passthrough/v1/chat/completions") and entry["gateway"]["strict"] == {
        "bash": True
    }


# --- the committed two-hop data ----------------------------------------------------------------------------

TWO_HOP = ("two-hop-strict", "two-hop-chat")
CAPTURES = ("front.har", "front.mitm", "back.har", "back.mitm", "gateway.jsonl")
# set anew at every hop (the recorders too) or this connection's own: not the rewriter's decisions, not logged
TRANSPORT = {"host", "content-length", "connection", "keep-alive", "transfer-encoding", "te", "upgrade"}


def _har(folder: str, name: str) -> list[dict]:
    return json.loads((DATA / folder / name).read_text(encoding="utf-8"))["log"]["entries"]


def _log(folder: str) -> list[dict]:
    return [json.loads(x) for x in (DATA / folder / "rewriter.jsonl").read_text(encoding="utf-8").splitlines()]


def _parse_path(path: str) -> list:
    """``$.tools[0].parameters.required`` → ``["tools", 0, "parameters", "required"]``."""
    assert path.startswith("$")
    keys, rest = [], path[1:]
    while rest:
        if rest.startswith("."):
            name = rest[1:].split(".")[0].split("[")[0]
            keys.append(name)
            rest = rest[1 + len(name) :]
        elif rest.startswith('["'):
            end = rest.index('"]')
            keys.append(json.loads(rest[1 : end + 1]))
            rest = rest[end + 2 :]
        else:
            end = rest.index("]")
            keys.append(int(rest[1:end]))
            rest = rest[end + 1 :]
    return keys


_MISSING = object()


def _get(doc, path: str):
    for k in _parse_path(path):
        try:
            doc = doc[k]
        except (KeyError, IndexError, TypeError):
            return _MISSING
    return doc


def _diff(a, b, path="$") -> dict:
    """Every path where two JSON documents differ: ``{path: (a value or _MISSING, b value or _MISSING)}``.
    Objects are compared key by key, arrays of equal length item by item; anything else as a whole."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = {}
        for k in list(a) + [k for k in b if k not in a]:
            sub = f"{path}.{k}" if k.isidentifier() else f"{path}[{json.dumps(k)}]"
            out.update(_diff(a.get(k, _MISSING), b.get(k, _MISSING), sub))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = {}
        for i, (x, y) in enumerate(zip(a, b)):
            out.update(_diff(x, y, f"{path}[{i}]"))
        return out
    return {} if a == b and type(a) is type(b) else {path: (a, b)}


def _none(v):
    return None if v is _MISSING else v


def _headers(entry: dict, side: str) -> dict:
    return {h["name"].lower(): h["value"] for h in entry[side]["headers"] if h["name"].lower() not in TRANSPORT}


@pytest.mark.parametrize("folder", TWO_HOP)
def test_one_rewriter_line_per_exchange_and_headers_differ_exactly_as_logged(folder):
    front, back, log = _har(folder, "front.har"), _har(folder, "back.har"), _log(folder)
    assert len(front) == len(back) == len(log) > 0
    for f, b, line in zip(front, back, log):
        assert f["request"]["url"].split("/", 3)[3] == line["path_in"].lstrip("/")
        assert b["request"]["url"].split("/", 3)[3] == line["path_out"].lstrip("/")
        assert line["status"] == b["response"]["status"] == f["response"]["status"] == 200
        fh, bh = _headers(f, "request"), _headers(b, "request")
        expected = []
        for name in sorted(set(fh) | set(bh)):
            if fh.get(name) == bh.get(name):
                continue
            if name in fh:
                expected.append({"path": f"header:{name}", "kind": "header removed", "before": fh[name], "after": None})
            if name in bh:
                expected.append({"path": f"header:{name}", "kind": "header added", "before": None, "after": bh[name]})
        assert sorted(header_changes(line["changes"]), key=json.dumps) == sorted(expected, key=json.dumps)
        assert fh["authorization"] == bh["authorization"]  # forwarded untouched, and so not in the log


def test_two_hop_strict_bodies_differ_exactly_as_logged():
    front, back, log = _har("two-hop-strict", "front.har"), _har("two-hop-strict", "back.har"), _log("two-hop-strict")
    for f, b, line in zip(front, back, log):
        fb, bb = json.loads(f["request"]["postData"]["text"]), json.loads(b["request"]["postData"]["text"])
        diff = _diff(fb, bb)
        logged = {c["path"]: c for c in body_changes(line["changes"])}
        assert set(diff) == set(logged), (line["id"], set(diff) ^ set(logged))
        for path, (before, after) in diff.items():
            assert (logged[path]["before"], logged[path]["after"]) == (_none(before), _none(after))
        kinds = {c["kind"] for c in logged.values()}
        assert kinds == {"key dropped", "model renamed", "strict added", "required changed"}
        assert all(t["strict"] is True for t in bb["tools"]) and all("strict" not in t for t in fb["tools"])
        # the response streamed back unchanged
        assert f["response"]["content"]["text"] == b["response"]["content"]["text"]


def test_two_hop_chat_bodies_differ_exactly_as_logged():
    front, back, log = _har("two-hop-chat", "front.har"), _har("two-hop-chat", "back.har"), _log("two-hop-chat")
    for f, b, line in zip(front, back, log):
        fb, bb = json.loads(f["request"]["postData"]["text"]), json.loads(b["request"]["postData"]["text"])
        changes = body_changes(line["changes"])
        assert changes[0] == {
            "path": "$",
            "kind": "protocol converted",
            "before": "responses",
            "after": "chat.completions",
        }
        covered = set()  # the paths of the forwarded body that the log accounts for
        for c in changes[1:]:
            assert c["before"] == _none(_get(fb, c["path"])) or c["kind"] == "strict added", c
            if c["kind"] == "key dropped":
                assert _get(bb, c["path"]) is _MISSING
            elif c["kind"] == "model renamed":
                assert bb["model"] == c["after"] and fb["model"] == c["before"]
                covered.add("$.model")
            elif c["kind"] in ("strict added", "strict changed"):
                i = _parse_path(c["path"])[1]
                assert _get(fb, c["path"]) in (_MISSING, None, False) and bb["tools"][i]["function"]["strict"] is True
            elif c["kind"] == "property rewritten":
                assert _get(bb, c["to"]) == c["after"], c["path"]
                covered.add(c["to"])
        # everything the forwarded body holds is accounted for: converted, renamed, or carried over as it was
        carried = {k for k in bb if f"$.{k}" not in covered and k not in ("messages", "tools", "model")}
        assert carried == {"stream"} and bb["stream"] == fb["stream"]
        for i, message in enumerate(bb["messages"]):  # each message is a converted item, or holds converted calls
            mine = {t for t in covered if t == f"$.messages[{i}]" or t.startswith(f"$.messages[{i}].")}
            assert mine == (
                {f"$.messages[{i}].tool_calls[{k}]" for k in range(len(message["tool_calls"]))}
                if message.get("tool_calls") and message.get("content") is None
                else {f"$.messages[{i}]"}
            )
        assert covered >= {f"$.tools[{i}]" for i in range(len(bb["tools"]))}
        # Responses in front, Chat Completions behind, the same call
        assert f["response"]["content"]["mimeType"].startswith("text/event-stream")
        assert any(c["path"] == "response:$" and c["kind"] == "protocol converted" for c in line["changes"])


@pytest.mark.parametrize("folder", TWO_HOP)
@pytest.mark.parametrize("name", CAPTURES)
def test_two_hop_files_load_without_problems(folder, name):
    cap = toolkit.load_capture(DATA / folder / name)
    assert len(cap.problems) == 0 and len(cap.exchanges) > 0
    assert set(cap.exchanges["terminal"]) == {"completed"}


@pytest.mark.parametrize("folder", TWO_HOP)
def test_the_same_calls_at_both_hops_and_what_the_model_saw(folder):
    front, back = (toolkit.load_capture(DATA / folder / n) for n in ("front.har", "back.har"))
    assert list(front.calls["arguments_raw"]) == list(back.calls["arguments_raw"])
    assert set(front.exchanges["api"]) == {"responses"}
    assert set(back.exchanges["api"]) == ({"chat"} if folder == "two-hop-chat" else {"responses"})
    assert set(front.tools["strict_state"]) == ({"false"} if folder == "two-hop-chat" else {"absent"})
    assert set(back.tools["strict_state"]) == {"true"}  # the strictness the model saw came from the rewriter
    gw = [json.loads(x)["gateway"] for x in (DATA / folder / "gateway.jsonl").read_text().splitlines()]
    assert all(g["behaviour"] == "passthrough" and set(g["strict"].values()) == {True} for g in gw)
    transcript = json.loads((DATA / folder / f"transcript-{folder}.json").read_text(encoding="utf-8"))
    assert transcript["final"] == {"stopReason": "stop", "stoppedBy": "stopReason"}
    first = transcript["requests"][0]["assistant"]["content"][0]["arguments"]
    assert set(first) == {
        "command",
        "description",
        "timeoutMs",
        "workdir",
        "run_in_background",
        "sandbox_permissions",
        "justification",
    }  # every optional field filled
