"""What the lab's Python recorders share: nothing leaves 127.0.0.1, and a loopback server that answers a
minimal Chat Completions or Responses reply and keeps every request it got.

Standard library only, so each recorder can import it from its own environment (``lab/.venv-agents``,
``lab/.venv-litellm``) before the library it records is imported.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

__all__ = ["LITELLM_ENV", "Recorder", "chat_reply", "loopback_only", "offline", "responses_reply", "serving"]

_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
#: LiteLLM without the network: the bundled cost map (no fetch from GitHub), no telemetry
LITELLM_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "LITELLM_LOG": "ERROR",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def offline(env: dict[str, str] | None = None) -> None:
    """No proxies and no real key in this process's environment (call before importing the library)."""
    os.environ.update({**(env or {}), "NO_PROXY": "*"})
    for var in (*_PROXY_VARS, "OPENAI_API_KEY"):
        os.environ.pop(var, None)


def loopback_only(script: str) -> None:
    """Make any connection that is not to 127.0.0.1 or ::1 raise, naming ``script``."""
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1"):
            raise OSError(f"{script}: refused a connection to {address!r} (loopback only)")
        return real(self, address)

    socket.socket.connect = connect  # type: ignore[method-assign]


def chat_reply(model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-lab",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def responses_reply(model: str) -> dict[str, Any]:
    return {
        "id": "resp_lab",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": [
            {
                "type": "message",
                "id": "msg_lab",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok", "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 2,
        },
    }


class Recorder(BaseHTTPRequestHandler):
    """Keeps each POST (method, path, JSON body) in ``seen`` and answers ``model``'s minimal reply."""

    seen: ClassVar[list[dict[str, Any]]] = []
    model: ClassVar[str] = "gw-coder"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        Recorder.seen.append({"method": "POST", "path": self.path, "body": body})
        responses = self.path.rstrip("/").endswith("/responses")
        data = json.dumps(responses_reply(self.model) if responses else chat_reply(self.model)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving(model: str) -> Iterator[str]:
    """A ``Recorder`` on 127.0.0.1 (a free port) for the block; yields its ``/v1`` base URL."""
    Recorder.model = model
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
