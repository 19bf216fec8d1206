"""OpenAI Responses API: request → tools and input parts; body or SSE stream → calls, terminal, usage.

Also holds the pieces Chat Completions shares (result types, content parts, finished calls), so
each fact (a placeholder string, a data-URL rule) is written once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, overload

import orjson

from toolkit.knowledge.dsh_images import PLACEHOLDER_TOOL, PLACEHOLDER_USER
from toolkit.wire.envelopes import error_fields
from toolkit.wire.json_text import json_int, json_kind, parse_arguments
from toolkit.wire.records import (
    BAD_FIELD,
    BAD_UTF8,
    CALL_ARGUMENTS,
    REQUEST_BODY,
    RESPONSE_BODY,
    SSE_CALL,
    SSE_FRAME,
    SSE_ORDER,
    STREAM_CUT,
    Call,
    InputPart,
    Issue,
    Tool,
)
from toolkit.wire.sse import DONE_PREFIX, SSEEvent, parse_json_events, split_frames
from toolkit.wire.values import int64, what_is_wrong

__all__ = [
    "IMAGE_PLACEHOLDERS",
    "Machine",
    "RequestInfo",
    "ResponseInfo",
    "ResponsesStream",
    "StreamMachine",
    "StreamResult",
    "add_tools",
    "base64_size",
    "check_tool_name",
    "content_part",
    "count_field",
    "data_url_info",
    "decode_request",
    "decode_response",
    "decode_stream",
    "decode_tool",
    "fail",
    "finished_call",
    "has_placeholder",
    "not_an_object",
    "request_info",
    "run_stream",
    "text_field",
    "text_part",
]

#: pi-ai's ``downgradeUnsupportedImages`` texts (written once, in ``toolkit.knowledge.dsh_images``).
IMAGE_PLACEHOLDERS = (PLACEHOLDER_USER, PLACEHOLDER_TOOL)


@dataclass(slots=True)
class RequestInfo:
    model: str | None
    stream: bool | None  # None: the request had no boolean `stream`
    tools: list[Tool] = field(default_factory=list)
    inputs: list[InputPart] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)


@dataclass(slots=True)
class ResponseInfo:
    """What the model answered, from a JSON body or a reassembled stream."""

    model: str | None = None
    terminal: str | None = None  # records.TERMINALS, None when the body does not say
    error_type: str | None = None
    error_code: str | None = None  # for `incomplete`, the reason (max_output_tokens, length, …)
    error_message: str | None = None
    calls: list[Call] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    issues: list[Issue] = field(default_factory=list)
    echoed_tools: list[Any] | None = None  # the response object's ``tools``: the backend's own reading


StreamResult = ResponseInfo


# ---- shared helpers -------------------------------------------------------------------------


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def text_field(v: Any, what: str, issues: list[Issue], where: str = "") -> str | None:
    """A text field of a body: ``v`` when it is a string; anything else but ``null`` (a list where a
    name goes) is left empty with a ``bad-field`` issue naming ``what`` (``where``: a byte offset)."""
    if v is None or type(v) is str:
        return v
    issues.append(Issue(BAD_FIELD, f"{where}{what}: {what_is_wrong(v)}, not text; left empty"))
    return None


def count_field(v: Any, what: str, issues: list[Issue], where: str = "") -> int | None:
    """An integer field (a token count, an index) as ``json_int`` reads it, when an int64 column holds
    it; anything else but ``null`` (``1e400``, 400 digits, text) is left empty with a ``bad-field`` issue."""
    if v is None:
        return None
    n = v if type(v) is int else json_int(v)
    if n is not None and int64(n) is not None:
        return n
    issues.append(Issue(BAD_FIELD, f"{where}{what}: {what_is_wrong(v)}, not an integer; left empty"))
    return None


_MARK = "omitted: model does not support images)"  # in both placeholders: one test rules most texts out


def has_placeholder(text: Any) -> bool:
    return isinstance(text, str) and _MARK in text and any(p in text for p in IMAGE_PLACEHOLDERS)


def base64_size(payload: str) -> int:
    """Decoded length of base64 text from its length alone (no decoding of a large image)."""
    n = len(payload) - sum(payload.count(c) for c in " \n\r\t")
    pad = 2 if payload.rstrip().endswith("==") else 1 if payload.rstrip().endswith("=") else 0
    return max(n * 3 // 4 - pad, 0)


def data_url_info(url: Any) -> tuple[str | None, int | None]:
    """``(media_type, decoded byte size)`` of a data URL; ``(None, None)`` for other URLs."""
    if not isinstance(url, str) or url[:5].lower() != "data:":
        return None, None
    head, comma, payload = url[5:].partition(",")
    if not comma:
        return None, None
    params = head.split(";")
    media = params[0].strip().lower() or None
    if any(p.strip().lower() == "base64" for p in params[1:]):
        return media, base64_size(payload)
    from urllib.parse import unquote_to_bytes

    return media, len(unquote_to_bytes(payload))


def content_part(
    item_index: int,
    part_index: int,
    role: str | None,
    item_type: str,
    part: Any,
    *,
    call_id: str | None = None,
    issues: list[Issue] | None = None,
) -> InputPart:
    """One content part of either API (input_text/input_image/input_file, text/image_url/file); with
    ``issues``, a part's text or type of the wrong type is reported there."""
    if type(part) is dict and "text" in part:  # nearly every part: built in one step
        ptype = part.get("type")
        text = part["text"]
        if type(text) is not str:
            if issues is not None and text is not None:
                text_field(text, f"item {item_index} part {part_index} text", issues)
            text = None
        if issues is not None and ptype is not None and type(ptype) is not str:
            text_field(ptype, f"item {item_index} part {part_index} type", issues)
        return InputPart(
            item_index,
            part_index,
            role,
            item_type,
            ptype if isinstance(ptype, str) and ptype else "unknown",
            None,
            None,
            text,
            text is not None and _MARK in text and has_placeholder(text),
            call_id,
        )
    row = InputPart(item_index, part_index, role, item_type, "invalid", call_id=call_id)
    if isinstance(part, str):  # a bare string inside a content list
        row.part_type, row.text = "text", part
    elif isinstance(part, dict):
        ptype = row.part_type = _str(part.get("type")) or "unknown"
        if issues is not None and part.get("type") is not None and ptype == "unknown":
            text_field(part["type"], f"item {item_index} part {part_index} type", issues)
        if "text" in part or ptype == "refusal":
            row.text = _str(part.get("text", part.get("refusal")))
        elif ptype == "input_image":
            row.media_type, row.byte_size = data_url_info(part.get("image_url"))
        elif ptype == "image_url":
            img = part.get("image_url")
            row.media_type, row.byte_size = data_url_info(img.get("url") if isinstance(img, dict) else img)
        elif ptype in ("input_file", "file"):
            f: Any = part.get("file") if ptype == "file" and isinstance(part.get("file"), dict) else part
            data = f.get("file_data")
            if isinstance(data, str) and data[:5].lower() == "data:":
                row.media_type, row.byte_size = data_url_info(data)
            elif isinstance(data, str):
                row.byte_size = base64_size(data)
            row.text = _str(f.get("filename"))
        elif ptype == "input_audio":
            a: Any = part.get("input_audio") if isinstance(part.get("input_audio"), dict) else part
            fmt = _str(a.get("format"))
            row.media_type = f"audio/{fmt}" if fmt else None
            row.byte_size = base64_size(a["data"]) if isinstance(a.get("data"), str) else None
    row.image_dropped = has_placeholder(row.text)
    return row


def text_part(
    item_index: int, part_index: int, role: str | None, item_type: str, part_type: str, text: str | None, **kw: Any
) -> InputPart:
    return InputPart(
        item_index, part_index, role, item_type, part_type, text=text, image_dropped=has_placeholder(text), **kw
    )


def finished_call(
    call_id: Any, item_id: Any, name: Any, raw: Any, issues: list[Issue] | None = None, what: str = "call"
) -> Call:
    """A finished call; with ``issues``, an id or name that is not text is reported there (as ``what``'s)."""
    args, err = parse_arguments(raw)
    if issues is not None:
        call_id = text_field(call_id, f"{what} call id", issues)
        item_id = text_field(item_id, f"{what} item id", issues)
        name = text_field(name, f"{what} name", issues)
    return Call(_str(call_id), _str(item_id), _str(name), _str(raw), args, err)


def fail(info: ResponseInfo, obj: Any, where: str = "") -> None:
    """Terminal ``failed`` with the fields of an error object (first error wins); a field that cannot be
    kept as text is a ``bad-field`` issue (``where``: a byte offset)."""
    info.terminal = "failed"
    if info.error_type is None and info.error_code is None and info.error_message is None:
        unfit: list[str] = []
        info.error_type, info.error_code, info.error_message = error_fields(obj, unfit)
        info.issues += [Issue(BAD_FIELD, where + m) for m in unfit]


# ---- request ----------------------------------------------------------------------------------


def decode_tool(t: Any) -> Tool:
    """A Responses tool (flat); a Chat-shaped tool is read under ``function`` too."""
    if not isinstance(t, dict):
        return Tool(None, "absent", kind="invalid")
    kind = t.get("type")
    fn = t.get("function")
    src: Any = fn if isinstance(fn, dict) else t
    get = src.get
    name, desc, strict = get("name"), get("description"), get("strict", _MISSING)  # strict_state, inlined
    return Tool(
        name if isinstance(name, str) else None,
        "absent" if strict is _MISSING else "null" if strict is None else "true" if strict else "false",
        get("parameters"),
        desc if isinstance(desc, str) else None,
        kind if isinstance(kind, str) and kind else "function",
    )


_MISSING = object()


def not_an_object() -> RequestInfo:
    """What every API's request decoder answers for a body that is not a JSON object."""
    return RequestInfo(None, None, issues=[Issue(REQUEST_BODY, "request is not a JSON object")])


def request_info(body: dict[str, Any]) -> RequestInfo:
    """The fields every API's request names the same way: ``model`` and ``stream`` (a value of another
    type is a ``bad-field`` issue)."""
    issues: list[Issue] = []
    model = text_field(body.get("model"), "request model", issues)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        issues.append(Issue(BAD_FIELD, f"request stream: {what_is_wrong(stream)}, not a boolean; left empty"))
        stream = None
    return RequestInfo(model, stream, issues=issues)


def add_tools(info: RequestInfo, body: dict[str, Any], key: str, decode: Callable[[Any], Tool]) -> None:
    """The tool list under ``key``, each decoded by ``decode``; a non-list is a ``request-body`` issue, a
    tool name that is not text a ``bad-field`` one."""
    tools = body.get(key)
    if isinstance(tools, list):
        info.tools += [decode(t) for t in tools]
        for i, t in enumerate(tools):
            check_tool_name(t, f"{key}[{i}]", info.issues)
    elif tools is not None:
        info.issues.append(Issue(REQUEST_BODY, f"`{key}` is not a list"))


def check_tool_name(t: Any, what: str, issues: list[Issue]) -> None:
    """Report a tool whose name (flat, or under ``function``) is there but not text: ``decode_tool``
    leaves it empty."""
    if isinstance(t, dict):
        fn = t.get("function")
        name = (fn if isinstance(fn, dict) else t).get("name")
        if name is not None and type(name) is not str:
            text_field(name, f"{what} name", issues)


def decode_request(body: Any) -> RequestInfo:
    """Tools (including pi-ai's ``additional_tools`` input items) and one row per input part."""
    if not isinstance(body, dict):
        return not_an_object()
    info = request_info(body)
    if body and not any(k in body for k in ("model", "input")):  # an object of another shape: its tools cannot be known
        info.issues.append(
            Issue(REQUEST_BODY, "the request body has neither `model` nor `input`: not a Responses request")
        )
    add_tools(info, body, "tools", decode_tool)
    inp = body.get("input")
    if isinstance(inp, str):
        info.inputs.append(text_part(0, 0, "user", "message", "input_text", inp))
    elif isinstance(inp, list):
        rows = info.inputs
        for i, item in enumerate(inp):
            if type(item) is not dict:
                _input_item(i, item, info)
                continue
            itype = item.get("type")
            if (itype is None or itype == "message") and "content" in item:  # a message: the usual item
                role, content = item.get("role"), item["content"]
                if isinstance(role, str) and role:
                    if isinstance(content, str):
                        ptype = "output_text" if role == "assistant" else "input_text"
                        dropped = _MARK in content and has_placeholder(content)
                        rows.append(InputPart(i, 0, role, "message", ptype, None, None, content, dropped))
                        continue
                    if isinstance(content, list):
                        rows += [
                            content_part(i, j, role, "message", p, issues=info.issues) for j, p in enumerate(content)
                        ]
                        continue
            elif "role" not in item:
                if itype == "function_call":  # a finished call the client sends back
                    args, cid, name = item.get("arguments"), item.get("call_id"), item.get("name")
                    if not (_text_or_none(args) and _text_or_none(cid) and _text_or_none(name)):
                        _input_item(i, item, info)  # it says which field is off
                        continue
                    rows.append(
                        InputPart(
                            i,
                            0,
                            None,
                            itype,
                            itype,
                            None,
                            None,
                            args if isinstance(args, str) else None,
                            False,
                            cid if isinstance(cid, str) else None,
                            name if isinstance(name, str) else None,
                        )
                    )
                    continue
                if itype == "function_call_output":
                    out, cid = item.get("output"), item.get("call_id")
                    if isinstance(out, str) and _text_or_none(cid):  # a list output is read part by part below
                        dropped = _MARK in out and has_placeholder(out)
                        cid = cid if isinstance(cid, str) else None
                        rows.append(InputPart(i, 0, None, itype, "input_text", None, None, out, dropped, cid))
                        continue
            _input_item(i, item, info)
    elif inp is not None:
        info.issues.append(Issue(REQUEST_BODY, "`input` is neither a string nor a list"))
    return info


def _text_or_none(v: Any) -> bool:
    return v is None or type(v) is str


def _input_item(i: int, item: Any, info: RequestInfo) -> None:
    """An input item of a less usual shape (or a field of the wrong type, each one an issue)."""
    if not isinstance(item, dict):
        info.issues.append(Issue(REQUEST_BODY, f"input item {i} is not an object"))
        return
    get, issues, what = item.get, info.issues, f"input[{i}]"
    role, itype = get("role"), get("type")
    role = text_field(role, f"{what} role", issues)
    if itype is not None and type(itype) is not str:
        text_field(itype, f"{what} type", issues)
        itype = None
    itype = itype or ("message" if role else "unknown")
    rows = info.inputs
    if itype == "message":
        content = get("content")
        if isinstance(content, str):
            default = "output_text" if role == "assistant" else "input_text"
            rows.append(InputPart(i, 0, role, itype, default, text=content, image_dropped=has_placeholder(content)))
        elif isinstance(content, list):
            rows += [content_part(i, j, role, itype, p, issues=issues) for j, p in enumerate(content)]
        elif content is not None:  # its text cannot be read: say so, or the message vanishes without a word
            issues.append(Issue(REQUEST_BODY, f"{what} `content` is a JSON {json_kind(content)}: not read"))
    elif itype == "function_call":
        args, cid, name = get("arguments"), get("call_id"), get("name")
        rows.append(
            InputPart(
                i,
                0,
                role,
                itype,
                itype,
                text=text_field(args, f"{what} arguments", issues),
                call_id=text_field(cid, f"{what} call_id", issues),
                name=text_field(name, f"{what} name", issues),
            )
        )
    elif itype == "function_call_output":
        out, cid = get("output"), get("call_id")
        cid = text_field(cid, f"{what} call_id", issues)
        if out is not None and not isinstance(out, (str, list)):
            issues.append(Issue(REQUEST_BODY, f"{what} `output` is a JSON {json_kind(out)}: not read"))
        if isinstance(out, list):
            rows += [content_part(i, j, role, itype, p, call_id=cid, issues=issues) for j, p in enumerate(out)]
        else:
            text = out if isinstance(out, str) else None
            rows.append(
                InputPart(i, 0, role, itype, "input_text", text=text, image_dropped=has_placeholder(text), call_id=cid)
            )
    else:
        if itype == "additional_tools" and isinstance(item.get("tools"), list):
            info.tools += [decode_tool(t) for t in item["tools"]]
            for j, t in enumerate(item["tools"]):
                check_tool_name(t, f"input[{i}].tools[{j}]", info.issues)
        rows.append(InputPart(i, 0, role, itype, itype, call_id=_str(item.get("call_id")), name=_str(item.get("name"))))


# ---- response body ------------------------------------------------------------------------------

_STATUS = {"completed": "completed", "incomplete": "incomplete", "failed": "failed", "cancelled": "failed"}


def _apply_response(info: ResponseInfo, resp: dict[str, Any], status: Any = None, where: str = "") -> None:
    """Model, usage and terminal state from a Response object (body or stream event); a terminal
    event's name overrides the object's ``status``. A field of the wrong type is an issue (``where``:
    the event's byte offset)."""
    issues = info.issues
    info.model = text_field(resp.get("model"), "response model", issues, where) or info.model
    tools = resp.get("tools")
    if isinstance(tools, list):
        info.echoed_tools = tools
    elif tools is not None:
        issues.append(
            Issue(RESPONSE_BODY, f"{where}response `tools` is a JSON {json_kind(tools)}, not a list; ignored")
        )
    usage = resp.get("usage")
    if isinstance(usage, dict):
        info.usage = usage
        info.input_tokens, info.output_tokens = (
            count_field(usage.get("input_tokens"), "usage input_tokens", issues, where),
            count_field(usage.get("output_tokens"), "usage output_tokens", issues, where),
        )
    elif usage is not None:
        issues.append(Issue(BAD_FIELD, f"{where}response usage: {what_is_wrong(usage)}, not an object; left empty"))
    status = status or resp.get("status")
    terminal = _STATUS.get(status) if isinstance(status, str) else None
    if terminal == "failed":
        fail(info, {"error": resp.get("error") or {"code": status}}, where)
    elif terminal == "incomplete":
        info.terminal = "incomplete"
        details = resp.get("incomplete_details")
        if isinstance(details, dict):
            info.error_code = text_field(details.get("reason"), "incomplete_details reason", issues, where)
        else:
            info.error_code = None
    elif terminal:
        info.terminal = terminal


def decode_response(body: Any) -> ResponseInfo:
    """A non-streamed Response object (or a 200 body that is only an error envelope)."""
    info = ResponseInfo()
    if not isinstance(body, dict):
        info.issues.append(Issue(RESPONSE_BODY, "response is not a JSON object"))
        return info
    if body.get("error") and "output" not in body and "status" not in body:
        fail(info, body)
        return info
    _apply_response(info, body)
    if info.terminal is None:
        status = body.get("status")
        told = repr(status) if status is None or isinstance(status, str) else what_is_wrong(status)
        info.issues.append(Issue(RESPONSE_BODY, f"response status {told} is not terminal"))
    output = body.get("output")
    if ("output" in body or output is not None) and not isinstance(output, list):  # its calls cannot be read: say so
        info.issues.append(
            Issue(RESPONSE_BODY, f"`output` is a JSON {json_kind(output)}, not a list: its items are lost")
        )
        output = None
    for i, item in enumerate(output or ()):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):  # what it was is lost: say so
            if not isinstance(item, dict):
                what = f"is a {json_kind(item)}"
            else:
                what = f"has a {json_kind(item['type'])} type" if "type" in item else "has no type"
            info.issues.append(Issue(RESPONSE_BODY, f"output[{i}] {what}, not an output item: lost"))
        elif _ITEM_TYPE.fullmatch(item["type"]) is None:  # a damaged type (a newer, well-formed one is just unread)
            told = repr(item["type"][:40]) if item["type"].isascii() else "of non-ASCII text"
            info.issues.append(Issue(RESPONSE_BODY, f"output[{i}] type {told} is not an item type: lost"))
        elif item["type"] == "function_call":
            info.calls.append(
                finished_call(
                    item.get("call_id"),
                    item.get("id"),
                    item.get("name"),
                    item.get("arguments"),
                    info.issues,
                    f"output[{i}]",
                )
            )
    return info


#: What an output item's ``type`` looks like (``function_call``, ``web_search_call``): OpenAI's are lower-case words
#: joined by ``_``; one that is not is a damaged item, said so, where a well-formed type the decoder does not read
#: (a newer kind of item) is left alone.
_ITEM_TYPE = re.compile(r"[a-z][a-z0-9_.]*")


# ---- stream -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _CallState:
    item_id: str | None
    output_index: int | None
    call_id: str | None = None
    name: str | None = None
    deltas: list[str] = field(default_factory=list)
    done_args: str | None = None  # from function_call_arguments.done
    final: dict[str, Any] | None = None  # the output_item.done item (or the terminal output's item)


_DONE = DONE_PREFIX.encode("ascii")

# What ``ResponsesStream.feed`` does with an event type, looked up once per event (sentinels).
_QUIET, _DELTA, _RESPONSE = object(), object(), object()
_KIND: dict[str, object] = {
    # events the machine reads nothing from (beyond ``sequence_number`` and ``error``)
    **dict.fromkeys(
        (
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.added",
            "response.content_part.done",
            "response.reasoning_text.delta",
            "response.reasoning_summary_text.delta",
            "response.output_text.annotation.added",
        ),
        _QUIET,
    ),
    "response.function_call_arguments.delta": _DELTA,
    # one dot: a Response object under ``response`` (any other such name is tested as it comes)
    **dict.fromkeys(
        (
            "response.created",
            "response.in_progress",
            "response.queued",
            "response.completed",
            "response.incomplete",
            "response.failed",
        ),
        _RESPONSE,
    ),
}


class Machine(Protocol):
    """What ``run_stream`` drives: one parsed SSE payload at a time, then the result."""

    def bad_frame(self, offset: int, error: str) -> None: ...

    def bad_text(self, offset: int, message: str) -> None: ...

    def done(self, offset: int | None = None) -> None: ...

    def feed(self, ev: dict[str, Any], offset: int | None = None) -> None: ...

    def finish(self) -> ResponseInfo: ...


class StreamMachine:
    """What both stream machines share: the result being built and byte-placed issues."""

    def __init__(self) -> None:
        self.info = ResponseInfo()

    def _issue(self, kind: str, message: str, offset: int | None) -> None:
        self.info.issues.append(Issue(kind, _at(offset) + message))

    def bad_frame(self, offset: int, error: str) -> None:
        self._issue(SSE_FRAME, error, offset)

    def bad_text(self, offset: int, message: str) -> None:
        self._issue(BAD_UTF8, message, offset)


class ResponsesStream(StreamMachine):
    """Feed parsed SSE payloads in order; ``finish()`` reassembles calls as a client would."""

    def __init__(self) -> None:
        super().__init__()
        self._calls: list[_CallState] = []
        self._by_item: dict[str, _CallState] = {}
        self._by_index: dict[int | None, _CallState] = {}
        self._stopped = False  # the client stops reading after an error or [DONE]
        self._events = 0
        self._last_seq: int | None = None

    def done(self, offset: int | None = None) -> None:
        """``data: [DONE]`` (not part of Responses): openai-python stops reading there."""
        self._stopped = True

    def feed(self, ev: dict[str, Any], offset: int | None = None) -> None:
        if self._stopped or not isinstance(ev, dict):
            return
        self._events += 1
        get = ev.get
        seq = get("sequence_number")
        if seq is not None:
            seq = seq if type(seq) is int and -(2**63) <= seq < 2**63 else self._count(seq, "sequence_number", offset)
            if seq is not None:
                if self._last_seq is not None and seq <= self._last_seq:
                    self._issue(SSE_ORDER, f"sequence_number {seq} after {self._last_seq}", offset)
                self._last_seq = seq
        info = self.info
        st: _CallState | None
        if get("error"):  # the SDK raises APIError on any truthy top-level "error"
            fail(info, ev, _at(offset))
            self._stopped = True
            return
        etype = get("type")
        if type(etype) is not str:  # no branch below takes a type that is not a string
            if etype is not None:
                self._issue(RESPONSE_BODY, f"event type is a {json_kind(etype)}, not a string: event skipped", offset)
            return
        kind = _KIND.get(etype)
        if kind is _QUIET:  # text, reasoning and part events: nothing a frame holds
            return
        if kind is _DELTA:  # the most frequent event of a tool call
            item_id = get("item_id")
            if isinstance(item_id, str) and item_id:
                st = self._by_item.get(item_id)
            else:
                st = self._by_index.get(self._count(get("output_index"), "output_index", offset))
            if st is None:
                st = self._unknown_item(etype, ev, offset)
            delta = get("delta")
            if isinstance(delta, str):
                st.deltas.append(delta)
            elif delta is not None:
                self._issue(BAD_FIELD, f"arguments delta: {what_is_wrong(delta)}, not text; dropped", offset)
            return
        if etype == "error":
            fail(info, {"code": get("code"), "message": get("message")}, _at(offset))
            self._stopped = True
            return
        if kind is _RESPONSE or (kind is None and etype.startswith("response.") and etype.count(".") == 1):
            resp = get("response")
            if isinstance(resp, dict) and info.terminal is None:
                terminal = etype in ("response.completed", "response.incomplete", "response.failed")
                _apply_response(info, resp, etype[9:] if terminal else None, _at(offset))
                if terminal:
                    self._adopt_output(resp.get("output"), offset)
            elif resp is not None and not isinstance(resp, dict):
                self._issue(
                    RESPONSE_BODY, f"{etype} `response` is a JSON {json_kind(resp)}, not an object: ignored", offset
                )
            return
        if etype == "response.output_item.added" or etype == "response.output_item.done":
            item = get("item")
            if isinstance(item, dict) and item.get("type") == "function_call":
                index = self._count(get("output_index"), "output_index", offset)
                self._check_item(item, f"{etype} item", offset)
                st = self._state(_str(item.get("id")), index, create=True)
                if etype == "response.output_item.done":
                    st.final = item
                else:
                    st.call_id, st.name = _str(item.get("call_id")), _str(item.get("name"))
                    if isinstance(item.get("arguments"), str) and item["arguments"]:
                        st.deltas.append(item["arguments"])
            elif item is not None and not isinstance(item, dict):
                self._issue(
                    RESPONSE_BODY, f"{etype} `item` is a JSON {json_kind(item)}, not an object: ignored", offset
                )
        elif etype == "response.function_call_arguments.done":
            item_id = text_field(get("item_id"), "item_id", info.issues, _at(offset))
            st = self._state(item_id, self._count(get("output_index"), "output_index", offset))
            if st is None:
                st = self._unknown_item(etype, ev, offset)
            st.done_args = text_field(get("arguments"), "arguments", info.issues, _at(offset))
            st.name = st.name or text_field(get("name"), "name", info.issues, _at(offset))

    def _count(self, v: Any, what: str, offset: int | None) -> int | None:
        return count_field(v, what, self.info.issues, _at(offset))

    def _check_item(self, item: dict[str, Any], what: str, offset: int | None) -> None:
        """A function_call item's text fields that are there but not text (each left empty)."""
        for key in ("id", "call_id", "name", "arguments"):
            v = item.get(key)
            if v is not None and type(v) is not str:
                text_field(v, f"{what} {key}", self.info.issues, _at(offset))

    def _unknown_item(self, etype: str, ev: dict[str, Any], offset: int | None) -> _CallState:
        item_id = ev.get("item_id")
        told = repr(item_id) if item_id is None or isinstance(item_id, str) else what_is_wrong(item_id)
        self._issue(SSE_CALL, f"{etype} for unknown item {told}", offset)
        return self._state(_str(item_id), json_int(ev.get("output_index")), create=True)

    @overload
    def _state(self, item_id: str | None, index: int | None, create: Literal[True]) -> _CallState: ...

    @overload
    def _state(self, item_id: str | None, index: int | None, create: bool = False) -> _CallState | None: ...

    def _state(self, item_id: str | None, index: int | None, create: bool = False) -> _CallState | None:
        st = self._by_item.get(item_id) if item_id else self._by_index.get(index)
        if st is None and create:
            st = _CallState(item_id, index)
            self._calls.append(st)
            if item_id:
                self._by_item[item_id] = st
            if index is not None:
                self._by_index[index] = st
        return st

    def _adopt_output(self, output: Any, offset: int | None) -> None:
        """Final items in the terminal response finish calls whose output_item.done was missing."""
        if output is not None and not isinstance(output, list):  # its calls cannot be read: say so
            self._issue(
                RESPONSE_BODY,
                f"terminal response `output` is a JSON {json_kind(output)}, not a list: its items are lost",
                offset,
            )
            return
        for i, item in enumerate(output or ()):
            if not (isinstance(item, dict) and item.get("type") == "function_call"):
                continue
            self._check_item(item, f"terminal response output[{i}]", offset)
            st = self._state(_str(item.get("id")), i)
            if st is None:
                self._issue(SSE_CALL, f"call {_str(item.get('call_id'))!r} only in the terminal response", offset)
                st = self._state(_str(item.get("id")), i, create=True)
            st.final = st.final or item

    def finish(self) -> ResponseInfo:
        info = self.info
        if info.terminal is None:
            info.terminal = "cut"
            self._issue(STREAM_CUT, f"stream ended without a terminal event after {self._events} events", None)
        unfinished = {
            "cut": "stream was cut before the call finished",
            "failed": "response failed before the call finished",
        }.get(info.terminal, "call never finished (no response.output_item.done)")
        for st in self._calls:
            info.calls.append(self._call(st, unfinished))
        return info

    def _call(self, st: _CallState, unfinished: str) -> Call:
        joined = "".join(st.deltas) if st.deltas else None
        final = st.final or {}
        final_args = _str(final.get("arguments"))
        label = st.item_id or st.call_id or f"output {st.output_index}"
        if st.done_args is not None and joined is not None and joined != st.done_args:
            self._issue(CALL_ARGUMENTS, f"{label}: arguments.done differs from the joined deltas", None)
        if final_args is not None and st.done_args is not None and final_args != st.done_args:
            self._issue(CALL_ARGUMENTS, f"{label}: output_item.done differs from arguments.done", None)
        raw = next((a for a in (final_args, st.done_args, joined) if a is not None), None)
        call_id = _str(final.get("call_id")) or st.call_id
        name = _str(final.get("name")) or st.name
        item_id = _str(final.get("id")) or st.item_id
        if st.final is None:
            return Call(call_id, item_id, name, raw, None, unfinished, complete=False)
        return finished_call(call_id, item_id, name, raw)


def _at(offset: int | None) -> str:
    """The prefix that places a stream issue (as ``StreamMachine._issue`` writes it)."""
    return f"byte {offset}: " if offset is not None else ""


def decode_stream(chunks: bytes | str | Iterable[bytes]) -> ResponseInfo:
    """A whole Responses SSE body (or its chunks) → the result a client would have seen."""
    return run_stream(ResponsesStream(), chunks)


def run_stream(machine: Machine, chunks: bytes | str | Iterable[bytes]) -> ResponseInfo:
    """Drive a stream machine (Responses or Chat) over SSE bytes; shared by both APIs.

    The frames of the usual kind (whole, UTF-8, a JSON object) go straight to ``feed``, with
    ``parse_json_events``'s steps inlined; every other event through ``parse_json_events`` itself."""
    frames, tail = split_frames(chunks)
    feed = machine.feed
    for _, data, _, _, offset in frames:
        if data.startswith(_DONE):
            machine.done(offset)
            continue
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError:  # parsed again for Python's message (or accepted, as loads does)
            _, payload, error = next(parse_json_events([SSEEvent(None, data.decode("utf-8"), None, None, offset)]))
            if error is not None:
                machine.bad_frame(offset, error)
                continue
        if type(payload) is dict:
            feed(payload, offset)
        else:
            machine.bad_frame(offset, f"frame is JSON {type(payload).__name__}, not an object")
    for offset, payload, error in parse_json_events(tail, on_bad_text=machine.bad_text):
        if error is not None:
            machine.bad_frame(offset, error)
        elif payload is None:
            machine.done(offset)
        else:
            machine.feed(payload, offset)
    return machine.finish()
