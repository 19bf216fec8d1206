"""Schema-rewriting proxy of the incident lab: an OpenAI-compatible converter, Python standard library only.

Run ``python lab/rewriter.py --port N --upstream http://127.0.0.1:M [--log FILE.jsonl]
[--mode strict-converter|to-chat] [--map-model OLD=NEW ...]``. It serves on 127.0.0.1 until SIGTERM or
SIGINT and prints ``listening on 127.0.0.1:<port>`` (``--port 0`` picks a free port); tests import
``make_server`` and run it in a thread. Every request is forwarded on the same path to the upstream
(``--upstream`` may carry a path prefix; it must be a loopback address).

It stands for what real OpenAI-compatible converters in front of a gateway do (one-api/new-api
channels, LiteLLM-style proxies): normalise tools for strict structured output, drop what they do not
know, map model names, put their own headers on, or speak another API upstream.

Modes (the request rewrites apply to ``POST …/responses`` with a JSON object body; every other request
only gets the header changes):

``strict-converter``
    adds ``strict: true`` to every function tool (``strict added``, or ``strict changed`` when the
    tool said ``false``/``null``); rewrites each tool's ``parameters.required`` to list every property
    (``required changed``); keeps only the top-level keys of ``ALLOWED_KEYS`` (``key dropped`` for
    ``store``, ``prompt_cache_key``, ``include``, ``text``, ``reasoning``, ``parallel_tool_calls``, …);
    maps the model id (``model renamed``, default ``gw-coder`` → ``gw-coder-2026-11``). The response
    streams back unchanged, chunk by chunk.
``to-chat``
    converts the Responses request into a Chat Completions request on ``…/chat/completions``
    (``protocol converted``): ``instructions`` and ``input`` items → ``messages`` (text and image parts →
    chat parts with ``image_url``; ``function_call`` → assistant ``tool_calls``; ``function_call_output``
    → ``role: tool`` messages, whose image parts are dropped: chat tool messages carry text only), flat
    tools → ``{type: function, function: {…, strict: true}}``, ``max_output_tokens`` → ``max_tokens``,
    ``stream_options.include_usage: true``; the same key allow-list and model map. The Chat Completions
    stream that comes back is converted into a Responses stream (``response.created``/``in_progress``,
    ``output_item.added``, ``content_part.added``, ``output_text.delta``/``done``,
    ``function_call_arguments.delta``/``done``, ``output_item.done``, ``response.completed`` with usage, or
    ``response.incomplete``/``response.failed``; increasing ``sequence_number``s). A stream cut before
    its ``finish_reason`` stays cut (no terminal event). Error responses (non-2xx) pass through as they are.

Headers, every request: the ``x-stainless-*`` headers and ``user-agent`` are removed, the rewriter's own
``user-agent: lab-rewriter/1`` and ``x-converter: lab-rewriter/1`` are added (logged as a removal and an
addition). Hop-by-hop headers (``connection``, ``keep-alive``, ``transfer-encoding``, …) belong to one
connection and are not forwarded; ``host`` and ``content-length`` are set for the upstream connection.
Neither is logged: every hop changes them by itself (the recorders too), they are not the converter's
decisions.

Log: one JSON line per request, written when its response has been sent::

    {"id": "rw-0001", "time": ISO 8601, "mode", "method", "path_in", "path_out", "status",
     "changes": [{"path", "kind", "before", "after"[, "to"]}]}

``path`` is a JSON path into the request as received (``$.tools[0].strict``, ``$.model``, ``$.store``),
``header:<name>`` for a header, or ``response:$`` for the converted response. ``kind`` is one of
``KINDS``. ``before``/``after`` are the values (``null`` for absent); header values of
authorization-like headers are ``"<redacted>"``. ``to`` (to-chat only) is the JSON path of the
converted value in the request as forwarded.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import re
import sys
import time
import traceback
import zlib
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or loaded by file path
from serving import LoggingServer, decode_content, dumps, read_body

LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}
MODES = ("strict-converter", "to-chat")
KINDS = (
    "strict added",
    "strict changed",
    "required changed",
    "key dropped",
    "model renamed",
    "protocol converted",
    "header added",
    "header removed",
    "property dropped",
    "property rewritten",
)
ALLOWED_KEYS = ("model", "input", "tools", "stream", "tool_choice", "instructions", "temperature", "max_output_tokens")
MODEL_MAP = {"gw-coder": "gw-coder-2026-11"}
NAME = "lab-rewriter/1"
ADDED_HEADERS = (("user-agent", NAME), ("x-converter", NAME))
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
}
TRANSPORT = {"host", "content-length"}
SECRET = re.compile(r"authorization|api[-_]?key|cookie|token|secret|session|account-id", re.I)
REDACTED = "<redacted>"
UPSTREAM_TIMEOUT_S = 60


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def jpath(base: str, *keys) -> str:
    """``jpath("$", "tools", 0, "strict")`` → ``$.tools[0].strict``."""
    out = base
    for k in keys:
        if isinstance(k, int):
            out += f"[{k}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            out += f".{k}"
        else:
            out += "[" + json.dumps(k) + "]"
    return out


def change(path: str, kind: str, before=None, after=None, **extra) -> dict:
    assert kind in KINDS, kind
    # copies: a value logged here may be changed later by the conversion (e.g. calls merged into a message)
    return {"path": path, "kind": kind, "before": copy.deepcopy(before), "after": copy.deepcopy(after), **extra}


def header_value(name: str, value: str) -> str:
    return REDACTED if SECRET.search(name) else value


def is_responses_path(path: str) -> bool:
    return path.split("?", 1)[0].rstrip("/").endswith("/responses")


def chat_path(path: str) -> str:
    """``/x/v1/responses`` → ``/x/v1/chat/completions`` (``/x/codex/responses`` → ``/x/codex/chat/completions``)."""
    base, q, query = path.partition("?")
    base = base.rstrip("/")
    return base[: -len("/responses")] + "/chat/completions" + (q + query if q else "")


# --- headers --------------------------------------------------------------------------------------------


def rewrite_headers(headers: list[tuple[str, str]], changes: list) -> list[tuple[str, str]]:
    """Headers to forward (lower-case names, order kept), with each change appended to ``changes``."""
    out = []
    for name, value in headers:
        key = name.lower()
        if key in TRANSPORT or key in HOP_BY_HOP:  # this connection's own, not forwarded (RFC 9110 §7.6.1)
            continue
        if key.startswith("x-stainless-") or key == "user-agent":
            changes.append(change(f"header:{key}", "header removed", header_value(key, value), None))
            continue
        out.append((key, value))
    for key, value in ADDED_HEADERS:
        out.append((key, value))
        changes.append(change(f"header:{key}", "header added", None, value))
    return out


# --- strict-converter --------------------------------------------------------------------------------------


def _drop_and_rename(body: dict, changes: list, model_map: dict) -> dict:
    out = {}
    for key, value in body.items():
        if key not in ALLOWED_KEYS:
            changes.append(change(jpath("$", key), "key dropped", value, None))
            continue
        out[key] = value
    model = out.get("model")
    if isinstance(model, str) and model in model_map:
        out["model"] = model_map[model]
        changes.append(change("$.model", "model renamed", model, model_map[model]))
    return out


def _strict_tool(tool: dict, i: int, changes: list) -> dict:
    """A flat function tool with ``strict: true`` and every property required."""
    out = dict(tool)
    if "strict" not in tool:
        changes.append(change(jpath("$", "tools", i, "strict"), "strict added", None, True))
    elif tool["strict"] is not True:
        changes.append(change(jpath("$", "tools", i, "strict"), "strict changed", tool["strict"], True))
    out["strict"] = True
    params = tool.get("parameters")
    if isinstance(params, dict) and isinstance(params.get("properties"), dict):
        every = list(params["properties"])
        if params.get("required") != every:
            changes.append(
                change(
                    jpath("$", "tools", i, "parameters", "required"), "required changed", params.get("required"), every
                )
            )
            out["parameters"] = {**params, "required": every}
    return out


def _is_function_tool(tool) -> bool:
    return isinstance(tool, dict) and tool.get("type", "function") == "function" and isinstance(tool.get("name"), str)


def strict_converter(body: dict, changes: list, model_map: dict = MODEL_MAP) -> dict:
    out = _drop_and_rename(body, changes, model_map)
    if isinstance(out.get("tools"), list):
        out["tools"] = [_strict_tool(t, i, changes) if _is_function_tool(t) else t for i, t in enumerate(out["tools"])]
    return out


# --- to-chat: request ------------------------------------------------------------------------------------


def _chat_part(part, where: str, changes: list):
    """One Responses content part as a Chat content part (None: dropped, with a change)."""
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if not isinstance(part, dict):
        changes.append(change(where, "property dropped", part, None))
        return None
    kind = part.get("type")
    if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
        return {"type": "text", "text": part["text"]}
    if kind == "input_image" and isinstance(part.get("image_url"), str):
        image = {"url": part["image_url"]}
        if part.get("detail") is not None:
            image["detail"] = part["detail"]
        return {"type": "image_url", "image_url": image}
    changes.append(change(where, "property dropped", part, None))
    return None


def _text_of(content, where: str, changes: list) -> str:
    """Text-only content (system, assistant and tool messages): image and other parts are dropped."""
    if isinstance(content, str):
        return content
    texts = []
    for j, part in enumerate(content if isinstance(content, list) else ()):
        if (
            isinstance(part, dict)
            and part.get("type") in ("input_text", "output_text", "text")
            and isinstance(part.get("text"), str)
        ):
            texts.append(part["text"])
        else:
            changes.append(change(f"{where}[{j}]", "property dropped", part, None))
    return "".join(texts)


def convert_input(body: dict, changes: list) -> list[dict]:
    """``instructions`` + ``input`` → Chat ``messages``, one ``property rewritten`` change per item."""
    messages: list[dict] = []
    if isinstance(body.get("instructions"), str):
        messages.append({"role": "system", "content": body["instructions"]})
        changes.append(
            change("$.instructions", "property rewritten", body["instructions"], messages[-1], to="$.messages[0]")
        )
    inp = body.get("input")
    if isinstance(inp, str):
        messages.append({"role": "user", "content": inp})
        changes.append(
            change("$.input", "property rewritten", inp, messages[-1], to=f"$.messages[{len(messages) - 1}]")
        )
        return messages
    for i, item in enumerate(inp if isinstance(inp, list) else ()):
        where = jpath("$", "input", i)
        if not isinstance(item, dict):
            changes.append(change(where, "property dropped", item, None))
            continue
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            role = item.get("role") if item.get("role") in ("system", "developer", "user", "assistant") else "user"
            content = item.get("content")
            if role == "user" and isinstance(content, list):
                parts = [_chat_part(p, f"{where}.content[{j}]", changes) for j, p in enumerate(content)]
                msg = {"role": role, "content": [p for p in parts if p is not None]}
            else:
                msg = {"role": role, "content": _text_of(content, f"{where}.content", changes)}
            messages.append(msg)
            changes.append(change(where, "property rewritten", item, msg, to=f"$.messages[{len(messages) - 1}]"))
        elif kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments") or ""},
            }
            last = messages[-1] if messages else None
            if last is None or last.get("role") != "assistant" or "tool_calls" not in last:
                if last is not None and last.get("role") == "assistant" and "tool_calls" not in last:
                    last["tool_calls"] = []  # an assistant text message followed by calls: one chat message
                else:
                    messages.append({"role": "assistant", "content": None, "tool_calls": []})
            messages[-1]["tool_calls"].append(call)
            to = f"$.messages[{len(messages) - 1}].tool_calls[{len(messages[-1]['tool_calls']) - 1}]"
            changes.append(change(where, "property rewritten", item, call, to=to))
        elif kind == "function_call_output":
            msg = {
                "role": "tool",
                "tool_call_id": item.get("call_id"),
                "content": _text_of(item.get("output"), f"{where}.output", changes),
            }
            messages.append(msg)
            changes.append(change(where, "property rewritten", item, msg, to=f"$.messages[{len(messages) - 1}]"))
        else:  # reasoning, item_reference, hosted-tool items: Chat has no place for them
            changes.append(change(where, "property dropped", item, None))
    return messages


def to_chat(body: dict, changes: list, model_map: dict = MODEL_MAP) -> dict:
    """A Responses request body as a Chat Completions request body."""
    changes.append(change("$", "protocol converted", "responses", "chat.completions"))
    kept = _drop_and_rename(body, changes, model_map)
    out: dict = {}
    if "model" in kept:
        out["model"] = kept["model"]
    out["messages"] = convert_input(kept, changes)
    if isinstance(kept.get("tools"), list):
        tools = []
        for i, t in enumerate(kept["tools"]):
            if not _is_function_tool(t):
                changes.append(change(jpath("$", "tools", i), "property dropped", t, None))
                continue
            if "strict" not in t:
                changes.append(change(jpath("$", "tools", i, "strict"), "strict added", None, True))
            elif t["strict"] is not True:
                changes.append(change(jpath("$", "tools", i, "strict"), "strict changed", t["strict"], True))
            fn = {"name": t["name"]}
            if t.get("description") is not None:
                fn["description"] = t["description"]
            if t.get("parameters") is not None:
                fn["parameters"] = t["parameters"]
            fn["strict"] = True
            tools.append({"type": "function", "function": fn})
            changes.append(
                change(jpath("$", "tools", i), "property rewritten", t, tools[-1], to=f"$.tools[{len(tools) - 1}]")
            )
        out["tools"] = tools
    if "tool_choice" in kept:
        choice = kept["tool_choice"]
        if isinstance(choice, dict) and choice.get("type") == "function" and "name" in choice:
            new = {"type": "function", "function": {"name": choice["name"]}}
            changes.append(change("$.tool_choice", "property rewritten", choice, new, to="$.tool_choice"))
            choice = new
        out["tool_choice"] = choice
    if "stream" in kept:
        out["stream"] = kept["stream"]
        if kept["stream"] is True:
            out["stream_options"] = {"include_usage": True}
            changes.append(
                change("$.stream_options", "property rewritten", None, out["stream_options"], to="$.stream_options")
            )
    if "temperature" in kept:
        out["temperature"] = kept["temperature"]
    if "max_output_tokens" in kept:
        out["max_tokens"] = kept["max_output_tokens"]
        changes.append(
            change(
                "$.max_output_tokens",
                "property rewritten",
                kept["max_output_tokens"],
                kept["max_output_tokens"],
                to="$.max_tokens",
            )
        )
    return out


def echo_tools(chat_body: dict) -> list:
    """The tools of the converted request, flat again, for the ``tools`` echo of the response object."""
    out = []
    for t in chat_body.get("tools") or ():
        fn = t.get("function") or {}
        out.append(
            {
                "type": "function",
                "name": fn.get("name"),
                "description": fn.get("description"),
                "parameters": fn.get("parameters"),
                "strict": fn.get("strict"),
            }
        )
    return out


# --- to-chat: response -----------------------------------------------------------------------------------


def usage_from_chat(usage) -> dict | None:
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens") or 0
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": cached},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": usage.get("total_tokens") or prompt + completion,
    }


def _suffix(value: str, prefix: str) -> str:
    return value[len(prefix) :] if isinstance(value, str) and value.startswith(prefix) else str(value)


class ChatToResponses:
    """Turns a Chat Completions SSE stream into Responses SSE frames, incrementally.

    ``feed(bytes)`` and ``close()`` return the frames to send. The terminal event is written at
    ``data: [DONE]`` (or at the end of the stream) once a ``finish_reason`` has arrived; a stream that
    ends without one is passed on cut, as it came.
    """

    def __init__(self, tools: list):
        self.tools = tools
        self.buf = b""
        self.seq = 0
        self.response: dict | None = None
        self.output: list[dict] = []
        self.text: dict | None = None  # the open message item
        self.calls: dict[int, dict] = {}  # chat tool_call index → open function_call item
        self.finish = None
        self.usage = None
        self.done = False  # a terminal event was written

    # framing
    def feed(self, data: bytes) -> list[bytes]:
        self.buf += data.replace(b"\r\n", b"\n")
        frames = []
        while b"\n\n" in self.buf:
            block, self.buf = self.buf.split(b"\n\n", 1)
            frames += self._block(block)
        return frames

    def close(self) -> list[bytes]:
        frames = self._block(self.buf) if self.buf.strip() else []
        self.buf = b""
        if not self.done and self.finish is not None:
            frames += self._terminal()
        return frames

    def _block(self, block: bytes) -> list[bytes]:
        data = "\n".join(
            line[5:].lstrip(" ") for line in block.decode("utf-8", "replace").split("\n") if line.startswith("data:")
        )
        if not data or self.done:
            return []
        if data.strip() == "[DONE]":
            return self._terminal() if self.finish is not None else []
        try:
            chunk = json.loads(data)
        except ValueError:
            return []
        return self._chunk(chunk) if isinstance(chunk, dict) else []

    def _emit(self, etype: str, **fields) -> bytes:
        payload = {"type": etype, **fields, "sequence_number": self.seq}
        self.seq += 1
        return f"event: {etype}\ndata: {dumps(payload)}\n\n".encode()

    def _snapshot(self, **changes) -> dict:
        return json.loads(dumps({**self.response, **changes}))

    def _start(self, chunk: dict) -> list[bytes]:
        self.response = {
            "id": f"resp_{chunk.get('id', 'chat')}",
            "object": "response",
            "created_at": chunk.get("created") or int(time.time()),
            "status": "in_progress",
            "error": None,
            "incomplete_details": None,
            "model": chunk.get("model"),
            "output": [],
            "tools": self.tools,
            "usage": None,
        }
        return [
            self._emit("response.created", response=self._snapshot()),
            self._emit("response.in_progress", response=self._snapshot()),
        ]

    def _chunk(self, chunk: dict) -> list[bytes]:
        frames = [] if self.response is not None else self._start(chunk)
        if chunk.get("error"):
            err = chunk["error"] if isinstance(chunk["error"], dict) else {"message": str(chunk["error"])}
            self.done = True
            failed = self._snapshot(
                status="failed",
                output=self.output,
                error={"code": err.get("code") or "server_error", "message": err.get("message")},
            )
            return frames + [self._emit("response.failed", response=failed)]
        if chunk.get("usage"):
            self.usage = usage_from_chat(chunk["usage"])
        for choice in chunk.get("choices") or ():
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str) and delta["content"]:
                if self.text is None:
                    frames += self._open_text(chunk)
                self.text["content"][0]["text"] += delta["content"]
                frames.append(
                    self._emit(
                        "response.output_text.delta",
                        item_id=self.text["id"],
                        output_index=self.text["_index"],
                        content_index=0,
                        delta=delta["content"],
                        logprobs=[],
                    )
                )
            for tc in delta.get("tool_calls") or ():
                index = tc.get("index", 0)
                fn = tc.get("function") or {}
                if index not in self.calls:
                    frames += self._close_text()
                    call_id = tc.get("id") or f"call_{index}"
                    item = {
                        "id": f"fc_{_suffix(call_id, 'call_')}",
                        "type": "function_call",
                        "status": "in_progress",
                        "arguments": "",
                        "call_id": call_id,
                        "name": fn.get("name"),
                        "_index": len(self.output),
                    }
                    self.output.append(item)
                    self.calls[index] = item
                    frames.append(
                        self._emit("response.output_item.added", output_index=item["_index"], item=self._public(item))
                    )
                item = self.calls[index]
                if fn.get("arguments"):
                    item["arguments"] += fn["arguments"]
                    frames.append(
                        self._emit(
                            "response.function_call_arguments.delta",
                            item_id=item["id"],
                            output_index=item["_index"],
                            delta=fn["arguments"],
                        )
                    )
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
                frames += self._close_all()
        return frames

    @staticmethod
    def _public(item: dict) -> dict:
        return {k: v for k, v in item.items() if not k.startswith("_")}

    def _open_text(self, chunk: dict) -> list[bytes]:
        item = {
            "id": f"msg_{_suffix(chunk.get('id', 'chat'), 'chatcmpl-')}_{len(self.output)}",
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [{"type": "output_text", "text": "", "annotations": []}],
            "_index": len(self.output),
        }
        self.output.append(item)
        self.text = item
        where = {"item_id": item["id"], "output_index": item["_index"], "content_index": 0}
        return [
            self._emit(
                "response.output_item.added", output_index=item["_index"], item={**self._public(item), "content": []}
            ),
            self._emit(
                "response.content_part.added", **where, part={"type": "output_text", "text": "", "annotations": []}
            ),
        ]

    def _close_text(self) -> list[bytes]:
        item, self.text = self.text, None
        if item is None:
            return []
        item["status"] = "completed"
        where = {"item_id": item["id"], "output_index": item["_index"], "content_index": 0}
        return [
            self._emit("response.output_text.done", **where, text=item["content"][0]["text"], logprobs=[]),
            self._emit("response.content_part.done", **where, part=item["content"][0]),
            self._emit("response.output_item.done", output_index=item["_index"], item=self._public(item)),
        ]

    def _close_all(self) -> list[bytes]:
        frames = self._close_text()
        for index in sorted(self.calls, key=lambda k: self.calls[k]["_index"]):
            item = self.calls.pop(index)
            item["status"] = "completed"
            frames.append(
                self._emit(
                    "response.function_call_arguments.done",
                    item_id=item["id"],
                    output_index=item["_index"],
                    name=item["name"],
                    arguments=item["arguments"],
                )
            )
            frames.append(self._emit("response.output_item.done", output_index=item["_index"], item=self._public(item)))
        return frames

    def _terminal(self) -> list[bytes]:
        self.done = True
        output = [self._public(i) for i in self.output]
        if self.finish in ("length", "content_filter"):
            reason = "max_output_tokens" if self.finish == "length" else "content_filter"
            final = self._snapshot(
                status="incomplete", output=output, usage=self.usage, incomplete_details={"reason": reason}
            )
            return [self._emit("response.incomplete", response=final)]
        final = self._snapshot(status="completed", output=output, usage=self.usage)
        return [self._emit("response.completed", response=final)]


def chat_json_to_responses(obj: dict, tools: list) -> dict:
    """A non-stream ``chat.completion`` as a Responses response object."""
    conv = ChatToResponses(tools)
    frames = []
    choices = obj.get("choices") or []
    message = (choices[0].get("message") or {}) if choices else {}
    delta = {"content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{**tc, "index": n} for n, tc in enumerate(message["tool_calls"])]
    chunk = {k: obj.get(k) for k in ("id", "created", "model")}
    frames += conv._chunk(
        {
            **chunk,
            "choices": [
                {
                    "index": 0,
                    "delta": delta,
                    "finish_reason": (choices[0].get("finish_reason") if choices else None) or "stop",
                }
            ],
            "usage": obj.get("usage"),
        }
    )
    last = conv._terminal()
    return json.loads(last[-1].decode().split("data: ", 1)[1])["response"]


# --- server ---------------------------------------------------------------------------------------------


class RewriterServer(LoggingServer):
    def __init__(self, port: int, upstream: str, mode: str = "strict-converter", log_path=None, model_map=None):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
        url = urlsplit(upstream)
        if url.scheme != "http" or url.hostname not in LOOPBACK:
            raise ValueError(f"upstream must be http://127.0.0.1:<port>[/prefix], not {upstream!r}")
        super().__init__(port, RewriterHandler, log_path)
        self.mode = mode
        self.upstream_host = url.hostname
        self.upstream_port = url.port or 80
        self.upstream_prefix = url.path.rstrip("/")
        self.model_map = dict(MODEL_MAP if model_map is None else model_map)

    def begin(self) -> int:
        """A new request's sequence number: its ``rw-NNNN`` id and its place in the log."""
        return self.exchange_started()


def make_server(
    port: int, upstream: str, mode: str = "strict-converter", log_path=None, model_map=None
) -> RewriterServer:
    """A bound, not yet serving rewriter on 127.0.0.1 (``.server_port``); call ``serve_forever``."""
    return RewriterServer(port, upstream, mode=mode, log_path=log_path, model_map=model_map)


class RewriterHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = NAME
    timeout = 30

    def send_response(self, code, message=None):
        self.log_request(code)
        self.send_response_only(code, message)

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self._handle()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_GET

    def _read_body(self) -> bytes:
        return read_body(self)

    def _handle(self):
        srv: RewriterServer = self.server
        seq = srv.begin()
        record = {
            "id": f"rw-{seq:04d}",
            "time": _now_iso(),
            "mode": srv.mode,
            "method": self.command,
            "path_in": self.path,
            "path_out": self.path,
            "status": None,
            "changes": [],
        }
        try:
            self._forward(record)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
        finally:
            srv.exchange_finished(seq, record)

    def _forward(self, record: dict) -> None:
        srv: RewriterServer = self.server
        changes = record["changes"]
        raw = self._read_body()
        body = None
        convert = False
        if self.command == "POST" and is_responses_path(self.path) and raw and "content-encoding" not in self.headers:
            try:
                parsed = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                parsed = None
            if isinstance(parsed, dict):
                if srv.mode == "strict-converter":
                    body = strict_converter(parsed, changes, srv.model_map)
                else:
                    body = to_chat(parsed, changes, srv.model_map)
                    record["path_out"] = chat_path(self.path)
                    convert = True
        headers = rewrite_headers(list(self.headers.items()), changes)
        data = raw if body is None else dumps(body).encode("utf-8")
        conn = http.client.HTTPConnection(srv.upstream_host, srv.upstream_port, timeout=UPSTREAM_TIMEOUT_S)
        try:
            conn.putrequest(
                self.command, srv.upstream_prefix + record["path_out"], skip_host=True, skip_accept_encoding=True
            )
            conn.putheader("host", f"{srv.upstream_host}:{srv.upstream_port}")
            for key, value in headers:
                conn.putheader(key, value)
            if data or self.command in ("POST", "PUT", "PATCH"):
                conn.putheader("content-length", str(len(data)))
            conn.endheaders(data or None)
            try:
                resp = conn.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                return self._bad_gateway(record, exc)
            record["status"] = resp.status
            ctype = resp.getheader("content-type", "")
            if convert and 200 <= resp.status < 300:
                changes.append(change("response:$", "protocol converted", "chat.completions", "responses"))
                tools = echo_tools(body)
                if ctype.startswith("text/event-stream"):
                    return self._stream_converted(resp, tools)
                payload = self._read_all(resp)
                try:
                    obj = json.loads(payload.decode("utf-8"))
                except (UnicodeDecodeError, ValueError):
                    obj = None
                if isinstance(obj, dict):
                    return self._send_bytes(
                        resp.status,
                        [("content-type", "application/json")],
                        dumps(chat_json_to_responses(obj, tools)).encode("utf-8"),
                    )
                return self._send_bytes(resp.status, [("content-type", ctype)], payload)
            self._relay(resp)
        except (OSError, http.client.HTTPException) as exc:
            if record["status"] is None:
                self._bad_gateway(record, exc)
        finally:
            conn.close()

    @staticmethod
    def _read_all(resp) -> bytes:
        return decode_content(resp.read(), resp.getheader("content-encoding"))

    def _bad_gateway(self, record: dict, exc: Exception) -> None:
        record["status"] = 502
        err = {
            "error": {
                "message": f"The upstream could not be reached: {exc}",
                "type": "server_error",
                "param": None,
                "code": "bad_gateway",
            }
        }
        self._send_bytes(502, [("content-type", "application/json")], dumps(err).encode("utf-8"))

    def _send_bytes(self, status: int, headers: list, data: bytes) -> None:
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _relay(self, resp) -> None:
        """The upstream response as it came: status, headers, body chunk by chunk."""
        length = resp.getheader("content-length")
        self.send_response(resp.status, resp.reason)
        for k, v in resp.getheaders():
            if k.lower() in ("transfer-encoding",):
                continue
            self.send_header(k, v)
        if length is None:
            self.close_connection = True  # a close-delimited body, as the upstream sent it
            if resp.getheader("connection") is None:
                self.send_header("connection", "close")
        self.end_headers()
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                break
            self.wfile.write(chunk)
            self.wfile.flush()

    def _stream_converted(self, resp, tools: list) -> None:
        self.close_connection = True
        self.send_response(resp.status, resp.reason)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        if resp.getheader("x-request-id"):
            self.send_header("x-request-id", resp.getheader("x-request-id"))
        self.send_header("connection", "close")
        self.end_headers()
        coding = (resp.getheader("content-encoding") or "").lower()
        inflate = (
            zlib.decompressobj(16 + zlib.MAX_WBITS if coding == "gzip" else zlib.MAX_WBITS)
            if coding in ("gzip", "deflate")
            else None
        )
        conv = ChatToResponses(tools)
        try:
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    break
                for frame in conv.feed(inflate.decompress(chunk) if inflate else chunk):
                    self.wfile.write(frame)
                    self.wfile.flush()
        except (OSError, http.client.HTTPException):
            pass  # the upstream cut the stream: pass on what arrived, cut
        for frame in conv.close():
            self.wfile.write(frame)
        self.wfile.flush()


# --- command line ---------------------------------------------------------------------------------------


def _model_map(values: list[str] | None) -> dict:
    if not values:
        return dict(MODEL_MAP)
    out = {}
    for v in values:
        old, sep, new = v.partition("=")
        if not sep or not old or not new:
            raise ValueError(f"--map-model takes OLD=NEW, not {v!r}")
        out[old] = new
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Schema-rewriting proxy of the incident lab (127.0.0.1 only).")
    ap.add_argument("--port", type=int, required=True, help="port on 127.0.0.1; 0 picks a free one")
    ap.add_argument("--upstream", required=True, help="http://127.0.0.1:<port>[/prefix] to forward to")
    ap.add_argument("--log", help="append one JSON line per request (every change made) to this file")
    ap.add_argument("--mode", choices=MODES, default="strict-converter")
    ap.add_argument(
        "--map-model",
        action="append",
        metavar="OLD=NEW",
        help=f"model id mapping (repeatable); default {', '.join(f'{a}={b}' for a, b in MODEL_MAP.items())}",
    )
    args = ap.parse_args(argv)
    try:
        server = make_server(
            args.port, args.upstream, mode=args.mode, log_path=args.log, model_map=_model_map(args.map_model)
        )
    except ValueError as exc:
        ap.error(str(exc))
    return server.serve_until_signalled()


if __name__ == "__main__":
    sys.exit(main())
