"""Record the real Anthropic Python SDK against a scripted Messages stub on 127.0.0.1.

The stub (standard library only) answers ``POST /v1/messages`` with the scenario the request's
``x-lab-scenario`` header names, and ``GET /v1/models`` with a model list. Every request the SDK sent
and every response the stub gave are written as the toolkit's canonical JSONL (bodies as the wire
carried them), and what the SDK itself made of each response (its final message, or the exception it
raised) is written beside it, so the tests compare the toolkit's decoding with the SDK's.

Run it in a throwaway environment (the SDK is not a dependency of the toolkit)::

    python3.11 -m venv /tmp/anth-venv
    /tmp/anth-venv/bin/pip install -r lab/requirements-messages.txt
    /tmp/anth-venv/bin/python lab/record_messages.py [--out tests/fixtures/messages]

Reruns write the same files (fixed clock, fixed ids, no machine-specific headers kept).
"""

from __future__ import annotations

import argparse
import base64
import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLOCK = datetime(2026, 12, 1, 10, 0, 0, tzinfo=UTC)
MODEL = "claude-lab-1"
#: Request headers kept in the recording (the rest name this machine: OS, arch, Python version).
KEPT_HEADERS = ("accept", "anthropic-version", "content-type", "user-agent", "x-api-key", "x-lab-scenario")
#: A 1×1 PNG and a tiny PDF, so the request carries real base64 image and document sources.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

TOOLS: list[dict[str, Any]] = [
    {
        "name": "bash",
        "description": "Run a shell command.",
        "input_schema": {
            "type": "object",
            "properties": {"command": {"type": "string"}, "timeout_ms": {"type": "integer"}},
            "required": ["command"],
            "additionalProperties": False,
        },
        "strict": True,
    },
    {
        "name": "read_image",
        "description": "Read an image file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "write",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}}},
        "strict": False,
    },
    {
        "name": "read",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "strict": None,  # a gateway's rendering of an unset flag: null is not absent
    },
]


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def _start(msg_id: str, input_tokens: int, cache_read: int = 0) -> dict[str, Any]:
    usage = {"input_tokens": input_tokens, "cache_creation_input_tokens": 0, "cache_read_input_tokens": cache_read}
    return {
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {**usage, "output_tokens": 1},
        },
    }


def _tool_use_events(index: int, call_id: str, name: str, pieces: list[str]) -> list[dict[str, Any]]:
    block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
    return [
        {"type": "content_block_start", "index": index, "content_block": block},
        *(
            {"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": p}}
            for p in pieces
        ),
        {"type": "content_block_stop", "index": index},
    ]


def _text_events(index: int, pieces: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": p}} for p in pieces),
        {"type": "content_block_stop", "index": index},
    ]


def _end(stop_reason: str, output_tokens: int) -> list[dict[str, Any]]:
    return [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": output_tokens},
        },
        {"type": "message_stop"},
    ]


STREAMS: dict[str, list[dict[str, Any]]] = {
    # text, then a tool_use whose input arrives in pieces split inside keys and values
    "stream-tool": [
        _start("msg_lab_0001", 120, cache_read=30),
        {"type": "ping"},
        *_text_events(0, ["I'll list ", "the files."]),
        *_tool_use_events(1, "toolu_lab_0001", "bash", ["", '{"comm', 'and": "ls', ' -la", "timeout_ms"', ": 5000}"]),
        *_end("tool_use", 42),
    ],
    # extended thinking (thinking_delta, signature_delta), then text cut short by max_tokens
    "stream-max-tokens": [
        _start("msg_lab_0003", 80),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "The user wants"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2lnLWxhYg=="}},
        {"type": "content_block_stop", "index": 0},
        *_text_events(1, ["A long answer that"]),
        *_end("max_tokens", 16),
    ],
    # an error event in the middle of a tool call (Anthropic's overloaded_error, HTTP 529 when not streamed)
    "stream-error": [
        _start("msg_lab_0004", 50),
        *_tool_use_events(0, "toolu_lab_0004", "bash", ['{"command": "l'])[:2],
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    ],
    # the connection closes after a partial tool call: no message_stop
    "stream-cut": [
        _start("msg_lab_0005", 50),
        *_tool_use_events(0, "toolu_lab_0005", "bash", ['{"command": "pw'])[:2],
    ],
}

MESSAGE = {
    "id": "msg_lab_0002",
    "type": "message",
    "role": "assistant",
    "model": MODEL,
    "content": [
        {"type": "text", "text": "Let me look at the screenshot."},
        {"type": "tool_use", "id": "toolu_lab_0002", "name": "read_image", "input": {"path": "shot.png"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 210, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 25},
}
ERROR_400 = {
    "type": "error",
    "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"},
    "request_id": "req_lab_0006",
}
MODELS = {
    "data": [{"type": "model", "id": MODEL, "display_name": "Claude Lab", "created_at": "2026-11-01T00:00:00Z"}],
    "has_more": False,
    "first_id": MODEL,
    "last_id": MODEL,
}


class _Stub(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    log: list[dict[str, Any]]

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _reply(self, status: int, ctype: str, body: bytes, *, stream: bool = False) -> None:
        self.send_response(status)
        headers = {"content-type": ctype, "request-id": f"req_lab_{len(self.log) + 1:04d}"}
        if stream:
            headers["cache-control"] = "no-cache"
            headers["connection"] = "close"
        else:
            headers["content-length"] = str(len(body))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        if stream:
            self.close_connection = True
        self.log[-1]["response"] = {"status": status, "headers": headers, "body": body.decode("utf-8")}

    def _record(self, body: bytes) -> None:
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() in KEPT_HEADERS}
        when = CLOCK + timedelta(seconds=len(self.log))
        self.log.append(
            {
                "id": f"lab-messages-{len(self.log) + 1}",
                "started_at": when.isoformat().replace("+00:00", "Z"),
                "request": {
                    "method": self.command,
                    "url": f"http://127.0.0.1:8788{self.path}",  # the stub's port varies; the recording names one
                    "headers": headers,
                    "body": body.decode("utf-8") if body else None,
                },
            }
        )

    def do_GET(self) -> None:
        self._record(b"")
        if self.path.split("?")[0] == "/v1/models":
            self._reply(200, "application/json", json.dumps(MODELS).encode())
        else:
            self._reply(404, "application/json", json.dumps(ERROR_400).encode())

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        self._record(body)
        scenario = self.headers.get("x-lab-scenario", "")
        if scenario in STREAMS:
            self._reply(200, "text/event-stream; charset=utf-8", _sse(STREAMS[scenario]), stream=True)
        elif scenario == "message-tool":
            self._reply(200, "application/json", json.dumps(MESSAGE).encode())
        else:
            self._reply(400, "application/json", json.dumps(ERROR_400).encode())


def _user_turn() -> list[dict[str, Any]]:
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in this folder? Here is a screenshot and the spec."},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
                },
                {
                    "type": "document",
                    "title": "spec.pdf",
                    "source": {
                        "type": "base64",
                        "media_type": "application/pdf",
                        "data": base64.b64encode(PDF).decode(),
                    },
                },
                {"type": "image", "source": {"type": "url", "url": "https://example.invalid/shot.png"}},
            ],
        }
    ]


def _history() -> list[dict[str, Any]]:
    """The first turn answered: the model's tool_use and the tool_result (text and an image)."""
    return [
        *_user_turn(),
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll list the files."},
                {"type": "tool_use", "id": "toolu_lab_0001", "name": "bash", "input": {"command": "ls -la"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_lab_0001",
                    "content": [
                        {"type": "text", "text": "shot.png\nspec.pdf"},
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": base64.b64encode(PNG).decode(),
                            },
                        },
                    ],
                },
                {"type": "tool_result", "tool_use_id": "toolu_lab_0001", "content": "exit 0", "is_error": False},
            ],
        },
    ]


def _final(message: Any) -> dict[str, Any]:
    """What the SDK made of a response: stop reason, usage and its tool calls with parsed input."""
    usage = message.usage
    return {
        "stop_reason": message.stop_reason,
        "model": message.model,
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_input_tokens": usage.cache_read_input_tokens,
        "calls": [
            {"id": b.id, "name": b.name, "input": b.input}
            for b in message.content
            if getattr(b, "type", "") == "tool_use"
        ],
    }


def record(out: Path) -> None:
    import anthropic

    log: list[dict[str, Any]] = []
    handler = type("Stub", (_Stub,), {"log": log})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = anthropic.Anthropic(
        api_key="lab-dummy-key", base_url=f"http://127.0.0.1:{server.server_port}", max_retries=0
    )
    system = [{"type": "text", "text": "You are a coding agent. Use the tools."}]
    common: dict[str, Any] = {"model": MODEL, "max_tokens": 1024, "system": system, "tools": TOOLS}
    results: dict[str, Any] = {}

    def run(name: str, fn: Any) -> None:
        try:
            results[name] = {"final": _final(fn())}
        except Exception as e:  # what the SDK raised is the evidence
            results[name] = {"raised": type(e).__name__, "status": getattr(e, "status_code", None)}

    def stream(name: str, **kw: Any) -> Any:
        def go() -> Any:
            with client.messages.stream(**{**common, **kw}, extra_headers={"x-lab-scenario": name}) as s:
                return s.get_final_message()

        return go

    run("stream-tool", stream("stream-tool", messages=_user_turn(), tool_choice={"type": "auto"}))
    run(
        "message-tool",
        lambda: client.messages.create(
            **common,
            messages=_history(),
            tool_choice={"type": "tool", "name": "read_image"},
            extra_headers={"x-lab-scenario": "message-tool"},
        ),
    )
    run("stream-max-tokens", stream("stream-max-tokens", messages=[{"role": "user", "content": "Explain."}]))
    run("stream-error", stream("stream-error", messages=_user_turn()))
    run("stream-cut", stream("stream-cut", messages=_user_turn()))
    run(
        "http-error",
        lambda: client.messages.create(**common, messages=_user_turn(), extra_headers={"x-lab-scenario": "http-error"}),
    )
    results["models"] = {"ids": [m.id for m in client.models.list()]}
    server.shutdown()
    out.mkdir(parents=True, exist_ok=True)
    with (out / "sdk_capture.jsonl").open("w", encoding="utf-8") as f:
        for row in log:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    results["sdk"] = f"anthropic {anthropic.__version__}"
    (out / "sdk_results.json").write_text(json.dumps(results, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(log)} exchanges to {out / 'sdk_capture.jsonl'} and {out / 'sdk_results.json'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "messages")
    record(ap.parse_args().out)


if __name__ == "__main__":
    main()
