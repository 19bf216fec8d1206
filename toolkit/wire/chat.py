"""Chat Completions: request → tools and input parts; body or delta stream → calls, terminal, usage.

Rows use the Responses vocabulary (``function_call`` / ``function_call_output`` item types) so the
layers can compare the two APIs without caring which one was spoken.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from toolkit.wire.json_text import json_kind
from toolkit.wire.records import (
    BAD_FIELD,
    FINISH_REASON,
    REQUEST_BODY,
    RESPONSE_BODY,
    SSE_CALL,
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
    _at,
    add_tools,
    content_part,
    count_field,
    decode_tool,
    fail,
    finished_call,
    not_an_object,
    request_info,
    run_stream,
    text_field,
    text_part,
)
from toolkit.wire.values import what_is_wrong

__all__ = ["ChatStream", "decode_request", "decode_response", "decode_stream"]

# finish_reason → terminal; anything else is read as completed with an Issue.
_FINISH = {
    "stop": "completed",
    "tool_calls": "completed",
    "function_call": "completed",
    "length": "incomplete",
    "content_filter": "incomplete",
    "error": "failed",
}


def decode_request(body: Any) -> RequestInfo:
    """Tools (nested under ``function``; legacy ``functions`` too) and one row per message part."""
    if not isinstance(body, dict):
        return not_an_object()
    info = request_info(body)
    if body and not any(
        k in body for k in ("model", "messages")
    ):  # an object of another shape: its tools cannot be known
        info.issues.append(
            Issue(REQUEST_BODY, "the request body has neither `model` nor `messages`: not a Chat Completions request")
        )
    add_tools(info, body, "tools", decode_tool)
    add_tools(info, body, "functions", _legacy)
    messages = body.get("messages")
    if isinstance(messages, list):
        for i, msg in enumerate(messages):
            _message(i, msg, info)
    elif messages is not None:
        info.issues.append(Issue(REQUEST_BODY, "`messages` is not a list"))
    return info


def _legacy(fn: Any) -> Tool:
    if not isinstance(fn, dict):
        return Tool(None, "absent", kind="invalid")
    return decode_tool({"type": "function", "function": fn})


def _message(i: int, msg: Any, info: RequestInfo) -> None:
    if not isinstance(msg, dict):
        info.issues.append(Issue(REQUEST_BODY, f"message {i} is not an object"))
        return
    issues = info.issues
    role = msg.get("role")
    role = role if type(role) is str else text_field(role, f"message {i} role", issues)
    is_result = role in ("tool", "function")
    itype = "function_call_output" if is_result else "message"
    cid = text_field(msg.get("tool_call_id"), f"message {i} tool_call_id", issues) if is_result else None
    content = msg.get("content")
    rows: list[InputPart] = []
    if isinstance(content, str):
        rows.append(text_part(i, 0, role, itype, "text", content, call_id=cid))
    elif isinstance(content, list):
        rows += [content_part(i, j, role, itype, p, call_id=cid, issues=issues) for j, p in enumerate(content)]
    elif content is not None:  # its text cannot be read: say so, or the message vanishes without a word
        issues.append(Issue(REQUEST_BODY, f"message {i} `content` is a JSON {json_kind(content)}: not read"))
    calls = msg.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        issues.append(
            Issue(REQUEST_BODY, f"message {i} `tool_calls` is a JSON {json_kind(calls)}, not a list: not read")
        )
    for j, tc in enumerate(calls if isinstance(calls, list) else ()):
        what = f"message {i} tool_calls[{j}]"
        if not isinstance(tc, dict):
            issues.append(Issue(REQUEST_BODY, f"{what} is a JSON {json_kind(tc)}, not an object"))
        fn: Any = tc.get("function") if isinstance(tc, dict) and isinstance(tc.get("function"), dict) else {}
        if isinstance(tc, dict) and tc.get("function") is not None and not fn:
            issues.append(
                Issue(REQUEST_BODY, f"{what} `function` is a JSON {json_kind(tc['function'])}, not an object")
            )
        rows.append(
            InputPart(
                i,
                len(rows),
                role,
                "function_call",
                "function_call",
                text=text_field(fn.get("arguments"), f"{what} arguments", issues),
                call_id=text_field(tc.get("id"), f"{what} id", issues) if isinstance(tc, dict) else None,
                name=text_field(fn.get("name"), f"{what} name", issues),
            )
        )
    info.inputs += rows


def _finish(info: ResponseInfo, reason: Any) -> None:
    if not isinstance(reason, str) or info.terminal is not None:
        return
    terminal = _FINISH.get(reason)
    if terminal is None:
        info.issues.append(Issue(FINISH_REASON, f"unknown finish_reason {reason!r}, read as completed"))
        terminal = "completed"
    if terminal == "failed":
        fail(info, {"code": reason})
    else:
        info.terminal = terminal
        if terminal == "incomplete":
            info.error_code = reason


def _usage(info: ResponseInfo, usage: Any, where: str = "") -> None:
    """Token counts of a ``usage`` object; one that does not fit (or a usage that is no object) is an issue."""
    if isinstance(usage, dict) and usage:
        info.usage = usage
        info.input_tokens, info.output_tokens = (
            count_field(usage.get("prompt_tokens"), "usage prompt_tokens", info.issues, where),
            count_field(usage.get("completion_tokens"), "usage completion_tokens", info.issues, where),
        )
    elif usage is not None and not isinstance(usage, dict):
        info.issues.append(Issue(BAD_FIELD, f"{where}usage: {what_is_wrong(usage)}, not an object; left empty"))


def decode_response(body: Any) -> ResponseInfo:
    """A non-streamed ``chat.completion`` (or a 200 body that is only an error envelope)."""
    info = ResponseInfo()
    if not isinstance(body, dict):
        info.issues.append(Issue(RESPONSE_BODY, "response is not a JSON object"))
        return info
    if body.get("error") and "choices" not in body:
        fail(info, body)
        return info
    info.model = text_field(body.get("model"), "response model", info.issues)
    _usage(info, body.get("usage"))
    choices = body.get("choices")
    if choices is not None and not isinstance(choices, list):
        info.issues.append(Issue(RESPONSE_BODY, f"`choices` is a JSON {json_kind(choices)}, not a list"))
    elif choices and not isinstance(choices[0], dict):
        info.issues.append(Issue(RESPONSE_BODY, f"choices[0] is a JSON {json_kind(choices[0])}, not an object"))
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    _finish(info, text_field(choice.get("finish_reason"), "choice 0 finish_reason", info.issues))
    if info.terminal is None:
        info.issues.append(Issue(RESPONSE_BODY, "no choice with a finish_reason"))
    msg: Any = choice.get("message", {})
    if not isinstance(msg, dict):  # its calls cannot be read: say so, or they vanish without a word
        info.issues.append(Issue(RESPONSE_BODY, f"choice 0's `message` is a {json_kind(msg)}, not an object"))
        msg = {}
    calls = msg.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        info.issues.append(
            Issue(RESPONSE_BODY, f"choice 0's `tool_calls` is a JSON {json_kind(calls)}, not a list: lost")
        )
        calls = None
    for i, tc in enumerate(calls or ()):
        if isinstance(tc, dict):
            fn: Any = tc.get("function")
            if not isinstance(fn, dict):
                if fn is not None:
                    info.issues.append(
                        Issue(RESPONSE_BODY, f"tool_calls[{i}] `function` is a JSON {json_kind(fn)}, not an object")
                    )
                fn = {}
            info.calls.append(
                finished_call(tc.get("id"), None, fn.get("name"), fn.get("arguments"), info.issues, f"tool_calls[{i}]")
            )
        else:
            info.issues.append(Issue(RESPONSE_BODY, f"tool_calls[{i}] is a {json_kind(tc)}, not an object: lost"))
    fc = msg.get("function_call")
    if isinstance(fc, dict):  # legacy single function call
        info.calls.append(finished_call(None, None, fc.get("name"), fc.get("arguments"), info.issues, "function_call"))
    elif fc is not None:
        info.issues.append(
            Issue(RESPONSE_BODY, f"choice 0's `function_call` is a JSON {json_kind(fc)}, not an object: lost")
        )
    return info


@dataclass(slots=True)
class _CallState:
    call_id: str | None
    name: str | None
    pieces: list[str] = field(default_factory=list)


class ChatStream(StreamMachine):
    """Feed parsed ``chat.completion.chunk`` payloads; tool-call deltas are keyed by ``index``."""

    def __init__(self) -> None:
        super().__init__()
        self._calls: list[_CallState] = []
        self._open: dict[tuple[int, Any], _CallState] = {}  # (choice index, tool_call index)
        self._done = False
        self._stopped = False
        self._chunks = 0

    def done(self, offset: int | None = None) -> None:
        if not self._stopped:  # the SDK stops reading at [DONE] (or already did, at an error)
            self._done = self._stopped = True

    def feed(self, chunk: dict[str, Any], offset: int | None = None) -> None:
        if self._stopped or not isinstance(chunk, dict):
            return
        self._chunks += 1
        info = self.info
        if chunk.get("error"):  # the SDK raises APIError on any truthy top-level "error"
            fail(info, chunk, _at(offset))
            self._stopped = True
            return
        where = _at(offset)
        model = chunk.get("model")
        if model is not None and type(model) is not str:
            text_field(model, "chunk model", info.issues, where)
        elif not info.model:
            info.model = model
        _usage(info, chunk.get("usage"), where)
        choices = chunk.get("choices")
        if choices is not None and not isinstance(choices, list):
            self._issue(
                RESPONSE_BODY, f"chunk's `choices` is a {json_kind(choices)}, not a list: chunk skipped", offset
            )
            choices = None
        for c, choice in enumerate(choices or ()):
            if not isinstance(choice, dict):
                self._issue(
                    RESPONSE_BODY, f"choices[{c}] is a JSON {json_kind(choice)}, not an object: skipped", offset
                )
                continue
            ci = choice.get("index")
            ci = (
                ci
                if type(ci) is int and 0 <= ci < 2**63
                else count_field(ci, f"choices[{c}] index", info.issues, where)
            ) or 0
            delta: Any = choice.get("delta")
            if not isinstance(delta, dict):
                if delta is not None:
                    self._issue(
                        RESPONSE_BODY,
                        f"choices[{c}] `delta` is a JSON {json_kind(delta)}, not an object: skipped",
                        offset,
                    )
                delta = {}
            calls = delta.get("tool_calls")
            if calls is not None and not isinstance(calls, list):
                self._issue(
                    RESPONSE_BODY,
                    f"choices[{c}].delta `tool_calls` is a JSON {json_kind(calls)}, not a list: lost",
                    offset,
                )
                calls = None
            for i, tc in enumerate(calls or ()):
                if isinstance(tc, dict):
                    self._tool_delta(ci, tc, offset, f"choices[{c}].delta.tool_calls[{i}]")
                else:
                    self._issue(
                        RESPONSE_BODY,
                        f"choices[{c}].delta.tool_calls[{i}] is a JSON {json_kind(tc)}, not an object: lost",
                        offset,
                    )
            if ci == 0:
                reason = choice.get("finish_reason")
                _finish(
                    info,
                    reason
                    if type(reason) is str
                    else text_field(reason, f"choices[{c}] finish_reason", info.issues, where),
                )

    def _tool_delta(self, ci: int, tc: dict[str, Any], offset: int | None, what: str) -> None:
        issues, where = self.info.issues, _at(offset)
        fn: Any = tc.get("function")
        if not isinstance(fn, dict):
            if fn is not None:
                self._issue(RESPONSE_BODY, f"{what} `function` is a JSON {json_kind(fn)}, not an object", offset)
            fn = {}
        idx = tc.get("index")
        idx = idx if type(idx) is int and 0 <= idx < 2**63 else count_field(idx, f"{what} index", issues, where)
        cid = text_field(tc.get("id"), f"{what} id", issues, where)
        name = text_field(fn.get("name"), f"{what} function name", issues, where)
        key = (ci, idx if idx is not None else cid)
        st = self._open.get(key)
        if key[1] is None and st is None and self._calls:  # no index, no id: continue the last call
            st = self._calls[-1]
        if st is not None and cid and st.call_id and cid != st.call_id:
            self._issue(SSE_CALL, f"tool_calls index {idx} changed id {st.call_id!r} → {cid!r}", offset)
            st = None
        if st is None:
            st = self._open[key] = _CallState(cid, name)
            self._calls.append(st)
        st.call_id = st.call_id or cid
        if name and st.name and name != st.name:
            self._issue(SSE_CALL, f"tool_calls index {idx} changed name {st.name!r} → {name!r}", offset)
        st.name = st.name or name
        args = fn.get("arguments")
        if isinstance(args, str):
            st.pieces.append(args)
        elif args is not None:
            self._issue(BAD_FIELD, f"{what} function arguments: {what_is_wrong(args)}, not text; dropped", offset)

    def finish(self) -> ResponseInfo:
        info = self.info
        if info.terminal is None:
            if self._done:
                info.terminal = "completed"
                self._issue(FINISH_REASON, "[DONE] without a finish_reason", None)
            else:
                info.terminal = "cut"
                self._issue(
                    STREAM_CUT, f"stream ended without finish_reason or [DONE] after {self._chunks} chunks", None
                )
        finished = self._done or info.terminal in ("completed", "incomplete")
        why = (
            "stream was cut before the call finished"
            if info.terminal == "cut"
            else "response failed before the call finished"
        )
        for st in self._calls:
            raw = "".join(st.pieces)
            if not finished:
                info.calls.append(Call(st.call_id, None, st.name, raw, None, why, complete=False))
            else:
                info.calls.append(finished_call(st.call_id, None, st.name, raw))
        return info


def decode_stream(chunks: bytes | str | Iterable[bytes]) -> ResponseInfo:
    """A whole Chat Completions SSE body (or its chunks) → the result a client would have seen."""
    return run_stream(ChatStream(), chunks)
