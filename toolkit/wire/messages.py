"""Anthropic Messages (``/v1/messages``): request → tools and input parts; body or event stream → calls,
terminal, usage.

Rows use the same vocabulary as the OpenAI decoders (``function_call`` / ``function_call_output`` item
types) so the layers compare the three APIs without caring which one was spoken. Event and field names
follow Anthropic's streaming documentation and the ``anthropic`` Python SDK (docs/upstream.md#anthropic-messages).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from toolkit.wire.json_text import json_int
from toolkit.wire.records import (
    FINISH_REASON,
    REQUEST_BODY,
    RESPONSE_BODY,
    SSE_CALL,
    SSE_ORDER,
    STREAM_CUT,
    Call,
    InputPart,
    Issue,
    Tool,
)
from toolkit.wire.responses import (
    RequestInfo,
    ResponseInfo,
    StreamMachine,
    _str,
    add_tools,
    base64_size,
    data_url_info,
    fail,
    finished_call,
    not_an_object,
    request_info,
    run_stream,
    text_part,
)
from toolkit.wire.schemas import strict_state

__all__ = [
    "STOP_REASONS",
    "MessagesInfo",
    "MessagesStream",
    "decode_request",
    "decode_response",
    "decode_stream",
    "decode_tool",
]

#: ``stop_reason`` → terminal (anthropic-python ``types/stop_reason.py``); the reason is kept as
#: ``error_code`` for ``incomplete``. Anything else is read as completed with an Issue.
STOP_REASONS = {
    "end_turn": "completed",
    "tool_use": "completed",
    "stop_sequence": "completed",
    "max_tokens": "incomplete",
    "model_context_window_exceeded": "incomplete",
    "pause_turn": "incomplete",  # a server tool paused the turn: the client must send it back to go on
    "refusal": "incomplete",
}

#: ``system`` precedes ``messages[0]``: its rows get this item index.
SYSTEM_ITEM = -1

_TOOL_BLOCKS = ("tool_use", "server_tool_use")  # blocks whose input streams as input_json_delta


@dataclass(slots=True)
class MessagesInfo(ResponseInfo):
    """A ResponseInfo that also carries ``cache_read_input_tokens`` (not inside ``input_tokens``)."""

    cache_read_tokens: int | None = None


# ---- request ----------------------------------------------------------------------------------


def decode_tool(t: Any) -> Tool:
    """A client tool (``name``, ``input_schema``) is a ``function``; a server tool keeps its ``type``."""
    if not isinstance(t, dict):
        return Tool(None, "absent", kind="invalid")
    ttype = _str(t.get("type"))
    kind = "function" if ttype in (None, "custom") else ttype
    return Tool(_str(t.get("name")), strict_state(t), t.get("input_schema"), _str(t.get("description")), kind)


def decode_request(body: Any) -> RequestInfo:
    """Tools, ``tool_choice`` checked against them, ``system`` and one row per content block."""
    if not isinstance(body, dict):
        return not_an_object()
    info = request_info(body)
    add_tools(info, body, "tools", decode_tool)
    _tool_choice(body.get("tool_choice"), info)
    system = body.get("system")
    if isinstance(system, str):
        info.inputs.append(text_part(SYSTEM_ITEM, 0, "system", "message", "text", system))
    elif isinstance(system, list):
        names: dict[str, str | None] = {}
        for j, block in enumerate(system):
            info.inputs += _block(SYSTEM_ITEM, j, "system", block, names)
    elif system is not None:
        info.issues.append(Issue(REQUEST_BODY, "`system` is neither a string nor a list"))
    messages = body.get("messages")
    if isinstance(messages, list):
        names = {}  # tool_use id → name, so a tool_result row names its tool
        for i, msg in enumerate(messages):
            _message(i, msg, info, names)
    elif messages is not None:
        info.issues.append(Issue(REQUEST_BODY, "`messages` is not a list"))
    return info


def _tool_choice(choice: Any, info: RequestInfo) -> None:
    if choice is None:
        return
    if not isinstance(choice, dict) or _str(choice.get("type")) not in ("auto", "any", "tool", "none"):
        info.issues.append(Issue(REQUEST_BODY, f"`tool_choice` {choice!r} is not auto/any/tool/none"))
        return
    if choice["type"] == "tool":
        name = choice.get("name")
        if name not in {t.name for t in info.tools}:
            info.issues.append(Issue(REQUEST_BODY, f"`tool_choice` names tool {name!r}, which `tools` lacks"))


def _message(i: int, msg: Any, info: RequestInfo, names: dict[str, str | None]) -> None:
    if not isinstance(msg, dict):
        info.issues.append(Issue(REQUEST_BODY, f"message {i} is not an object"))
        return
    role = _str(msg.get("role"))
    content = msg.get("content")
    if isinstance(content, str):
        info.inputs.append(text_part(i, 0, role, "message", "text", content))
    elif isinstance(content, list):
        rows: list[InputPart] = []
        for block in content:
            rows += _block(i, len(rows), role, block, names)
        info.inputs += rows
    elif content is not None:
        info.issues.append(Issue(REQUEST_BODY, f"message {i} content is neither a string nor a list"))


def _block(i: int, j: int, role: str | None, block: Any, names: dict[str, str | None]) -> list[InputPart]:
    """One content block → its rows (a ``tool_result`` holding blocks gives one row per block)."""
    if isinstance(block, str):
        return [text_part(i, j, role, "message", "text", block)]
    if not isinstance(block, dict):
        return [InputPart(i, j, role, "message", "invalid")]
    btype = _str(block.get("type")) or "unknown"
    if btype in _TOOL_BLOCKS:
        cid, name = _str(block.get("id")), _str(block.get("name"))
        if cid:
            names[cid] = name
        args = json.dumps(block.get("input"), ensure_ascii=False) if "input" in block else None
        return [InputPart(i, j, role, "function_call", btype, text=args, call_id=cid, name=name)]
    if btype == "tool_result":
        cid = _str(block.get("tool_use_id"))
        kw: dict[str, Any] = {"call_id": cid, "name": names.get(cid) if cid else None}
        inner = block.get("content")
        if isinstance(inner, str):
            return [text_part(i, j, role, "function_call_output", "text", inner, **kw)]
        if isinstance(inner, list) and inner:
            rows: list[InputPart] = []
            for b in inner:
                for row in _block(i, j + len(rows), role, b, names):
                    row.item_type, row.call_id, row.name = "function_call_output", kw["call_id"], kw["name"]
                    rows.append(row)
            return rows
        return [InputPart(i, j, role, "function_call_output", "tool_result", **kw)]
    if btype in ("text", "thinking"):
        return [text_part(i, j, role, "message", btype, _str(block.get(btype)))]
    row = InputPart(i, j, role, "message", btype)
    if btype in ("image", "document"):
        row.media_type, row.byte_size = _source(block.get("source"))
        row.text = _str(block.get("title"))
    return [row]


def _source(src: Any) -> tuple[str | None, int | None]:
    """``(media_type, decoded byte size)`` of an image or document source; never the bytes."""
    if not isinstance(src, dict):
        return None, None
    stype, data = _str(src.get("type")), src.get("data")
    if stype == "base64" and isinstance(data, str):
        return _str(src.get("media_type")), base64_size(data)
    if stype == "text" and isinstance(data, str):
        return _str(src.get("media_type")), len(data.encode("utf-8"))
    if stype == "url":
        return data_url_info(src.get("url"))
    return _str(src.get("media_type")), None


# ---- response body ------------------------------------------------------------------------------


def _usage(info: MessagesInfo, usage: Any, *, cumulative: bool = False) -> None:
    """``message_delta`` usage is a running total: present fields overwrite, absent ones survive."""
    if not isinstance(usage, dict):
        return
    info.usage = {**(info.usage or {}), **usage} if cumulative else usage
    for key, attr in (
        ("input_tokens", "input_tokens"),
        ("output_tokens", "output_tokens"),
        ("cache_read_input_tokens", "cache_read_tokens"),
    ):
        value = json_int(usage.get(key))
        if value is not None or not cumulative:
            setattr(info, attr, value)


def _stop(info: MessagesInfo, reason: Any) -> None:
    if reason is None:
        info.terminal = "completed"
        info.issues.append(Issue(FINISH_REASON, "message without a stop_reason, read as completed"))
        return
    terminal = STOP_REASONS.get(reason) if isinstance(reason, str) else None
    if terminal is None:
        info.issues.append(Issue(FINISH_REASON, f"unknown stop_reason {reason!r}, read as completed"))
        terminal = "completed"
    info.terminal = terminal
    if terminal == "incomplete":
        info.error_code = reason


def decode_response(body: Any) -> MessagesInfo:
    """A non-streamed ``message`` (or a 200 body that is only an error envelope)."""
    info = MessagesInfo()
    if not isinstance(body, dict):
        info.issues.append(Issue(RESPONSE_BODY, "response is not a JSON object"))
        return info
    if body.get("type") == "error" or (body.get("error") and "content" not in body):
        fail(info, body)
        return info
    if body.get("type") != "message":
        info.issues.append(Issue(RESPONSE_BODY, f"response type {body.get('type')!r} is not 'message'"))
    info.model = _str(body.get("model"))
    _usage(info, body.get("usage"))
    _stop(info, body.get("stop_reason"))
    for block in body.get("content") or ():
        if isinstance(block, dict) and block.get("type") in _TOOL_BLOCKS:
            raw = json.dumps(block.get("input"), ensure_ascii=False) if "input" in block else None
            info.calls.append(finished_call(block.get("id"), None, block.get("name"), raw))
    return info


# ---- stream -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Block:
    index: int
    type: str | None
    call_id: str | None = None
    name: str | None = None
    start_input: Any = None
    pieces: list[str] = field(default_factory=list)
    stopped: bool = False


class MessagesStream(StreamMachine):
    """Feed parsed stream events in order (dispatched on the payload's ``type``, which the
    documentation says equals the SSE event name); ``finish()`` reassembles tool calls as the SDK's
    ``accumulate_event`` does: ``partial_json`` pieces joined per block ``index``."""

    def __init__(self) -> None:
        super().__init__()
        self.info: MessagesInfo = MessagesInfo()
        self._blocks: dict[int, _Block] = {}
        self._started = False
        self._stopped = False  # message_stop, or an error event: the SDK reads no further
        self._stop_seen = False
        self._stop_reason: Any = None
        self._events = 0

    def done(self, offset: int | None = None) -> None:
        """``data: [DONE]`` is not part of Messages; the SDK skips frames without an event name."""

    def feed(self, ev: dict[str, Any], offset: int | None = None) -> None:
        if self._stopped or not isinstance(ev, dict):
            return
        etype = ev.get("type")
        if etype == "ping":
            return
        self._events += 1
        info = self.info
        if etype == "error" or (etype is None and ev.get("error")):
            fail(info, ev)
            self._stopped = True
            return
        if etype == "message_start":
            if self._started:
                self._issue(SSE_ORDER, "a second message_start", offset)
            self._started = True
            msg = ev.get("message")
            if isinstance(msg, dict):
                info.model = _str(msg.get("model")) or info.model
                _usage(info, msg.get("usage"))
            return
        if not self._started and isinstance(etype, str):
            self._issue(SSE_ORDER, f"{etype} before message_start", offset)
            self._started = True
        index = json_int(ev.get("index"))
        st: _Block | None
        delta: Any = ev.get("delta") if isinstance(ev.get("delta"), dict) else {}
        if etype == "content_block_start":
            block: Any = ev.get("content_block") if isinstance(ev.get("content_block"), dict) else {}
            if index is None or index in self._blocks:
                self._issue(SSE_ORDER, f"content_block_start with index {ev.get('index')!r} already used", offset)
            st = _Block(index if index is not None else -len(self._blocks) - 1, _str(block.get("type")))
            if st.type in _TOOL_BLOCKS:
                st.call_id, st.name, st.start_input = _str(block.get("id")), _str(block.get("name")), block.get("input")
            self._blocks[st.index] = st
        elif etype == "content_block_delta":
            st = self._blocks.get(index) if index is not None else None
            if st is None:
                self._issue(SSE_CALL, f"content_block_delta for unknown block {ev.get('index')!r}", offset)
            elif delta.get("type") == "input_json_delta":
                if st.type not in _TOOL_BLOCKS:
                    self._issue(SSE_CALL, f"input_json_delta for {st.type} block {index}", offset)
                elif isinstance(delta.get("partial_json"), str):
                    st.pieces.append(delta["partial_json"])
            # text_delta, thinking_delta, signature_delta, citations_delta carry no call
        elif etype == "content_block_stop":
            st = self._blocks.get(index) if index is not None else None
            if st is None:
                self._issue(SSE_CALL, f"content_block_stop for unknown block {ev.get('index')!r}", offset)
            else:
                st.stopped = True
        elif etype == "message_delta":
            if "stop_reason" in delta:
                self._stop_reason = delta["stop_reason"]
            _usage(info, ev.get("usage"), cumulative=True)
        elif etype == "message_stop":
            self._stop_seen = self._stopped = True
        # other event types: Anthropic may add new ones (its versioning policy); they are skipped

    def finish(self) -> MessagesInfo:
        info = self.info
        if info.terminal is None:
            if self._stop_seen:
                _stop(info, self._stop_reason)
            else:
                info.terminal = "cut"
                self._issue(STREAM_CUT, f"stream ended without message_stop after {self._events} events", None)
        why = {
            "cut": "stream was cut before the call finished",
            "failed": "response failed before the call finished",
        }.get(info.terminal or "", "call never finished (no content_block_stop)")
        for st in sorted(self._blocks.values(), key=lambda b: b.index):
            if st.type not in _TOOL_BLOCKS:
                continue
            raw = "".join(st.pieces) if st.pieces else _start_raw(st.start_input)
            if st.stopped:
                info.calls.append(finished_call(st.call_id, None, st.name, raw))
            else:
                info.calls.append(Call(st.call_id, None, st.name, raw, None, why, complete=False))
        return info


def _start_raw(start_input: Any) -> str | None:
    """No ``input_json_delta`` at all: the SDK keeps the block's starting ``input`` (``{}``)."""
    return None if start_input is None else json.dumps(start_input, ensure_ascii=False)


def decode_stream(chunks: bytes | str | Iterable[bytes]) -> MessagesInfo:
    """A whole Messages SSE body (or its chunks) → the result a client would have seen."""
    return cast(MessagesInfo, run_stream(MessagesStream(), chunks))
