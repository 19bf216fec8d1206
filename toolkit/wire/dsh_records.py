"""DSH session-log records → typed records: a small state machine fed one line at a time.

No I/O: the reader (``toolkit.sources.dsh_session``) finds the lines and hands them over with their
line numbers; ``SessionDecoder`` yields ``Event`` for every event (packed ``*-chunks`` rows and V3
embedded streams expanded into one ``assistant/chunk`` event per member), ``ToolResult`` for every
tool result, one ``Decoded`` per model step (turn, step) and ``Problem`` for a line it cannot read.

The format's vocabulary (record types, versions, reasons, field names) and its upstream sources are
in ``toolkit.knowledge.dsh_session``; where DSH's own logs differ from the format's description the
real logs win (see the comments marked "real logs").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from toolkit.errors import InputError
from toolkit.knowledge.dsh_session import (
    ASSISTANT_ATTEMPT,
    ASSISTANT_CHUNK,
    ASSISTANT_MESSAGE,
    FINISH_TERMINALS,
    HEADER_TYPE,
    PACKED_TYPES,
    PROVIDER_APIS,
    REQUEST_CONTEXT,
    REQUEST_HEADER,
    STEP_END,
    STEP_START,
    TOOL_CALL,
    TOOL_RESULT,
    TURN_END,
    TURN_END_TERMINALS,
    TURN_START,
    USAGE_FIELDS,
    USER_MESSAGE,
)
from toolkit.wire.envelopes import too_big_to_keep
from toolkit.wire.json_text import json_int, json_kind, loads, parse_arguments
from toolkit.wire.records import (
    BAD_ENTRY,
    BAD_FIELD,
    CALL_NOT_DISPATCHED,
    FINISH_REASON,
    PACKED_CHUNKS,
    PLACEHOLDER,
    REQUEST_BODY,
    RETRIED,
    STEP_REOPENED,
    TOOL_NAMES_ONLY,
    WIRE_APIS,
    Call,
    Decoded,
    Event,
    Exchange,
    InputPart,
    Issue,
    Problem,
    Tool,
    ToolResult,
)
from toolkit.wire.responses import count_field, text_field
from toolkit.wire.schemas import strict_state
from toolkit.wire.values import TOO_MANY_DIGITS, finite, int64, what_is_wrong

__all__ = [
    "MAX_ARGUMENTS_DEPTH",
    "Record",
    "SessionDecoder",
    "SessionHeaderError",
    "content_text",
    "decode_lines",
    "expand_packed",
    "is_session_header",
    "message_parts",
    "split_call_id",
    "tool_result_parts",
]

Record = Event | ToolResult | Decoded | Problem

#: Tool-call arguments DSH logged as a JSON value (not text) are kept, as JSON text, only while nested at
#: most this deep: deeper, ``json.dumps`` would recurse past the stack, so the call keeps no arguments and
#: its parse error says why.
MAX_ARGUMENTS_DEPTH = 200


class SessionHeaderError(InputError):
    """The first line of a file is not a DSH session header (the file is not a session log)."""


# ---------------------------------------------------------------------------------------------
# Pure helpers


def expand_packed(
    row_type: str, data: Mapping[str, Any], *, seq0: Any = None, time0: Any = None
) -> tuple[list[tuple[int | None, float | None, Any]], str | None]:
    """One packed ``*-chunks`` row → ``[(seq, time_ms, chunk), ...]`` plus a note if it is off.

    Member k has ``seq = seq0 + k`` and ``time = time0 + sum(dt[:k])``; both stay ``None`` when
    the row carries no ``seq0``/``time0`` (real logs: the test snapshots never do).
    """
    chunk_type = PACKED_TYPES[row_type]
    parts = data.get("args") if row_type == "tool-call-chunks" else data.get("texts")
    if not isinstance(parts, list):
        key = "args" if row_type == "tool-call-chunks" else "texts"
        return [], f"{row_type} row without a {key} list"
    dt = data.get("dt")
    note = None
    if not isinstance(dt, list):
        dt, note = [], f"{row_type} row without a dt list"
    elif len(dt) != max(len(parts) - 1, 0):
        note = f"{row_type} row has {len(dt)} dt entries for {len(parts)} members (expected {max(len(parts) - 1, 0)})"
    seq0 = seq0 if _is_int(seq0) else None
    t = float(time0) if _is_number(time0) else None
    out = []
    for k, part in enumerate(parts):
        if k > 0 and t is not None:
            step = dt[k - 1] if k - 1 < len(dt) else None
            t = t + step if _is_number(step) else None
        chunk: dict[str, Any] = {"type": chunk_type, "index": data.get("index")}
        if row_type == "tool-call-chunks":
            chunk["id"] = data.get("id")
            if "name" in data:
                chunk["name"] = data.get("name")
            chunk["argumentsDelta"] = part
        else:
            chunk["text"] = part
        out.append((seq0 + k if seq0 is not None else None, t, chunk))
    return out, note


def tool_result_parts(data: Mapping[str, Any]) -> list[tuple[Any, Any, Any]]:
    """``tool/result`` data → ``[(call_id, is_error, content), ...]`` for each result it holds.

    Three layouts: V0/V3 ``message.content[{type:'tool-result', toolCallId, content, isError}]``;
    V4 tool-role ``message {role:'tool', toolCallId, isError, content}``; and the flat
    ``{callId, content, isError}`` (real logs: 13 records in 8 of the 0.1.1-rc.2 fixtures).
    """
    msg = data.get("message")
    if isinstance(msg, dict):
        source: Any = msg.get("source") if isinstance(msg.get("source"), dict) else {}
        if msg.get("role") == "tool" or "toolCallId" in msg:
            return [(msg.get("toolCallId", source.get("callId")), msg.get("isError"), msg.get("content"))]
        content = msg.get("content")
        blocks = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool-result"]
            if isinstance(content, list)
            else []
        )
        if blocks:
            return [(b.get("toolCallId", source.get("callId")), b.get("isError"), b.get("content")) for b in blocks]
        return [(source.get("callId"), None, content)]
    return [(data.get("callId", data.get("toolCallId")), data.get("isError"), data.get("content"))]


def content_text(content: Any) -> str:
    """The text parts of a DSH content list joined by newlines (images and other parts left out)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts)


def message_parts(kind: str, data: Any) -> list[InputPart]:
    """The content parts of a ``user/message`` or ``tool/result`` as input rows (item indexes from 0).

    A DSH log stores each message once, so a step's inputs are what entered the context since the step
    before, not the whole history. Images are attachments (``{type: image, attachment: {mediaType, bytes}}``);
    their bytes stay in DSH's attachment store (``docs/upstream.md#dsh-session-log-observed``)."""
    if not isinstance(data, dict):
        return []
    rows: list[InputPart] = []
    if kind == TOOL_RESULT:
        for item, (call_id, _is_error, content) in enumerate(tool_result_parts(data)):
            _append_parts(rows, item, "tool", "function_call_output", content, split_call_id(call_id)[0])
    else:
        role = _str(data.get("role")) or "user"
        _append_parts(rows, 0, role, "message", data.get("content"), None)
    return rows


def _append_parts(
    rows: list[InputPart], item: int, role: str, item_type: str, content: Any, call_id: str | None
) -> None:
    parts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    for i, raw in enumerate(parts):
        part: dict[str, Any] = {"type": "text", "text": raw} if isinstance(raw, str) else raw
        if not isinstance(part, dict):
            continue
        kind = _str(part.get("type")) or "unknown"
        attachment: dict[str, Any] = part["attachment"] if isinstance(part.get("attachment"), dict) else {}
        text = _str(part.get("text"))
        rows.append(
            InputPart(
                item,
                i,
                role,
                item_type,
                kind,
                media_type=_str(attachment.get("mediaType") or part.get("mediaType")),
                byte_size=json_int(attachment.get("bytes")),
                text=text,
                call_id=call_id,
            )
        )


def is_session_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == HEADER_TYPE


# ---------------------------------------------------------------------------------------------
# State machine


@dataclass(slots=True)
class _Step:
    """What one model step (turn, step) has shown so far."""

    turn: int
    step: int
    exchange_id: str
    first_line: int
    first_time: float | None = None  # ms
    last_time: float | None = None  # ms
    streamed: bool = False
    finish: dict[str, Any] | None = None  # reason of the latest finish chunk
    finish_replay: dict[str, Any] | None = None
    failed_attempts: list[dict[str, Any]] = field(default_factory=list)  # reasons of finishes followed by a retry
    usage: dict[str, Any] | None = None
    message: dict[str, Any] | None = None  # the assistant/message data
    tool_calls: dict[Any, dict[str, Any]] = field(default_factory=dict)  # call id → tool/call data (in order)
    # call id → (name, arguments) from block-end/message
    model_calls: dict[Any, tuple[Any, Any]] = field(default_factory=dict)
    deltas: dict[Any, list[Any]] = field(default_factory=dict)  # call id or index → [id, name, [deltas]]
    issues: list[Issue] = field(default_factory=list)
    ended: bool = False  # step/end seen
    turn_reason: Any = None  # turn/end data of its turn, once seen
    inputs: list[InputPart] = field(default_factory=list)  # what entered the context for this step


class SessionDecoder:
    """Feed DSH session lines in order; each call returns the records that line completes.

    ``read_header`` takes the first line (raising ``SessionHeaderError`` if it is not a session
    header), ``feed_line`` every later one, ``close`` flushes the steps still open at the end.
    ``provider_apis`` maps a provider route id to its api (``openai-completions``, ... or one of
    ``records.WIRE_APIS``) when the caller knows it from the settings; the log itself rarely says.
    """

    def __init__(self, source: str, *, provider_apis: Mapping[str, str] | None = None):
        self.source = source
        self.provider_apis = dict(provider_apis or {})
        self.header: dict[str, Any] | None = None
        self.version: int | None = None
        self._steps: dict[tuple[int, int], _Step] = {}  # open or waiting for their turn's end
        self._emitted: set[tuple[int, int]] = set()
        self._open: tuple[int, int] | None = None  # between step/start and step/end
        self._config: dict[str, Any] = {}
        self._tools: Any = None
        self._tools_line: int | None = None
        self._context: dict[str, Any] = {}
        self._pending_issues: list[Issue] = []
        # messages that entered the context after the last step's model output: the next step's inputs
        self._pending_inputs: list[InputPart] = []

    # -- input ---------------------------------------------------------------------------------

    def read_header(self, raw: bytes | str, line: int) -> list[Record]:
        """The first line: must be ``{"type":"session",...}``."""
        obj, error = _parse_line(raw, first=True)
        if error:
            raise SessionHeaderError(f"not a DSH session log: line {line} is {error}")
        if not is_session_header(obj):
            if isinstance(obj, dict) and "type" in obj:
                what = f"a {obj.get('type')!r} record"
            else:
                what = f"a JSON {json_kind(obj)} without type"
            raise SessionHeaderError(f"not a DSH session log: line {line} is {what}, not a session header")
        return self.feed(obj, line)

    def feed_line(self, raw: bytes | str, line: int) -> list[Record]:
        """One non-blank line; a line that is not a JSON object with a ``type`` becomes a Problem."""
        obj, error = _parse_line(raw)
        if error:
            return [self._bad_line(line, error)]
        return self.feed(obj, line)

    def feed(self, obj: Any, line: int) -> list[Record]:
        """One parsed line."""
        if not isinstance(obj, dict):
            return [self._bad_line(line, f"a JSON {json_kind(obj)}, not an object")]
        kind = obj.get("type")
        if not isinstance(kind, str) or not kind:
            return [self._bad_line(line, 'a JSON object without a string "type"')]
        if kind == HEADER_TYPE:
            return self._on_header(obj, line)
        if kind in PACKED_TYPES:
            return self._on_packed(obj, kind, line)
        return self._on_event(obj, kind, line)

    def close(self) -> list[Record]:
        """End of input: every step still open is emitted (unfinished ones as ``cut``)."""
        out: list[Record] = []
        for key in list(self._steps):
            out.append(self._emit(key, at_eof=True))
        self._open = None
        return out

    # -- lines -----------------------------------------------------------------------------------

    def _bad_line(self, line: int, what: str) -> Problem:
        return Problem(self.source, f"line {line}", BAD_ENTRY, f"line {line}: {what}")

    def _bad_field(self, line: int, what: str, exchange_id: str | None = None) -> Problem:
        return Problem(self.source, f"line {line}", BAD_FIELD, what, exchange_id)

    def _on_header(self, obj: dict[str, Any], line: int) -> list[Record]:
        if self.header is None:
            self.header = obj
            version = obj.get("version")
            # real logs: 12 of the 169 fixture headers carry no version; they are V0 records
            self.version = version if _is_int(version) else None
        created = obj.get("createdAt")
        time = created / 1000 if _is_number(created) else None
        out: list[Record] = [Event(self.source, f"line {line}", HEADER_TYPE, None, time, None, None, obj)]
        if created is not None and time is None:
            out.append(self._bad_field(line, f"createdAt: {what_is_wrong(created)}; left empty"))
        return out

    def _on_event(self, obj: dict[str, Any], kind: str, line: int) -> list[Record]:
        data = obj.get("data")
        d = data if isinstance(data, dict) else {}
        seq = obj.get("seq") if _is_int(obj.get("seq")) else None
        time_ms = obj.get("time") if _is_number(obj.get("time")) else None
        turn = d.get("turn") if _is_int(d.get("turn")) else None
        step_no = d.get("step") if _is_int(d.get("step")) else None
        out: list[Record] = []

        if kind == TURN_START and turn is not None:
            # a new turn while an older one never ended: the log was cut (crash, then resume)
            for older in [k for k in self._steps if k[0] < turn]:
                out.append(self._emit(older, at_eof=True))

        key = (turn, step_no) if turn is not None and step_no is not None else None
        if kind == STEP_START and key is not None:
            self._open = key
        where = key or self._open
        st = self._step(where, line, time_ms) if where else None
        if kind == STEP_START and st is not None and self._pending_inputs:
            st.inputs.extend(self._renumber(st, self._pending_inputs))
            self._pending_inputs = []
        event = Event(
            self.source,
            f"line {line}",
            kind,
            seq,
            _seconds(time_ms),
            turn,
            step_no,
            data,
            st.exchange_id if st else None,
        )
        out.insert(0, event)
        for name in ("seq", "time"):
            value = obj.get(name)
            if value is not None and (seq if name == "seq" else time_ms) is None:
                out.insert(
                    1, Problem(self.source, f"line {line}", BAD_FIELD, f"{name}: {what_is_wrong(value)}; left empty")
                )
        for name, kept in (("turn", turn), ("step", step_no)):
            value = d.get(name)
            if value is not None and kept is None:  # the event belongs to no step: say so
                out.append(self._bad_field(line, f"data.{name}: {what_is_wrong(value)}, not an integer; left empty"))

        if kind == REQUEST_HEADER:
            self._on_request_header(d, line)
        elif kind == REQUEST_CONTEXT:
            self._context = {k: d.get(k) for k in ("provider", "model") if isinstance(d.get(k), str)}
            for name in ("provider", "model"):
                if d.get(name) is not None and not isinstance(d.get(name), str):
                    out.append(
                        self._bad_field(line, f"request/context {name}: {what_is_wrong(d[name])}, not text; ignored")
                    )
        elif st is not None:
            if kind == ASSISTANT_CHUNK:
                self._on_chunk(st, d.get("chunk"), line)
            elif kind == ASSISTANT_MESSAGE:
                out.extend(self._on_message(st, d, line, time_ms))
            elif kind == ASSISTANT_ATTEMPT:
                out.extend(self._on_stream(st, d.get("stream"), line, time_ms))
            elif kind == TOOL_CALL:
                at = f"line {line}: tool/call"
                cid = text_field(d.get("callId"), f"{at} callId", st.issues)
                text_field(d.get("name"), f"{at} name", st.issues)
                st.tool_calls[cid if cid is not None else f"#{len(st.tool_calls)}"] = d
            elif kind == TOOL_RESULT:
                out.extend(self._tool_results(d, st.exchange_id, turn, step_no, line))
        elif kind == TOOL_RESULT:
            out.extend(self._tool_results(d, None, turn, step_no, line))
        if kind in (USER_MESSAGE, TOOL_RESULT):
            self._enter_context(st, message_parts(kind, d))

        if kind == STEP_END and key is not None and key in self._steps:
            self._steps[key].ended = True
            if self._open == key:
                self._open = None
            if self._knows_terminal(self._steps[key]):
                out.append(self._emit(key))
        elif kind == TURN_END:
            for k in [k for k in self._steps if turn is None or k[0] == turn]:
                self._steps[k].turn_reason = d if d else {"kind": None}
                out.append(self._emit(k))
            if turn is None or (self._open and self._open[0] == turn):
                self._open = None
        return out

    def _on_packed(self, obj: dict[str, Any], kind: str, line: int) -> list[Record]:
        data = obj.get("data")
        d = data if isinstance(data, dict) else {}
        turn = d.get("turn") if _is_int(d.get("turn")) else None
        step_no = d.get("step") if _is_int(d.get("step")) else None
        key = (turn, step_no) if turn is not None and step_no is not None else self._open
        odd = [
            self._bad_field(line, f"data.{name}: {what_is_wrong(d[name])}, not an integer; left empty")
            for name, kept in (("turn", turn), ("step", step_no))
            if d.get(name) is not None and kept is None
        ]
        # real logs: the test snapshots carry neither seq0 nor time0 on packed rows
        members, note = expand_packed(kind, d, seq0=obj.get("seq0"), time0=obj.get("time0"))
        st = self._step(key, line, members[0][1] if members else None) if key else None
        if not members:  # nothing to expand: keep the row as it is so the line is not lost
            if st is not None and note:
                st.issues.append(Issue(PACKED_CHUNKS, f"line {line}: {note}"))
            return [
                Event(
                    self.source, f"line {line}", kind, None, None, turn, step_no, data, st.exchange_id if st else None
                ),
                *odd,
            ]
        out: list[Record] = []
        for k, (seq, time_ms, chunk) in enumerate(members):
            payload = {"turn": d.get("turn"), "step": d.get("step"), "chunk": chunk}
            out.append(
                Event(
                    self.source,
                    f"line {line}",
                    ASSISTANT_CHUNK,
                    seq,
                    _seconds(time_ms),
                    turn,
                    step_no,
                    payload,
                    st.exchange_id if st else None,
                    packed=kind,
                    member=k,
                )
            )
            if st is not None:
                self._touch(st, time_ms)
                self._on_chunk(st, chunk, line)
        if st is not None and note:
            st.issues.append(Issue(PACKED_CHUNKS, f"line {line}: {note}"))
        return out + odd

    # -- step content ----------------------------------------------------------------------------

    def _step(self, key: tuple[int, int], line: int, time_ms: float | None) -> _Step:
        st = self._steps.get(key)
        if st is None:
            st = _Step(key[0], key[1], f"{self.source}:t{key[0]}s{key[1]}", line)
            if key in self._emitted:  # a late event for a step already emitted: keep the id apart
                st.issues.append(Issue(STEP_REOPENED, f"line {line}: events for this step after it was closed"))
            self._steps[key] = st
        self._touch(st, time_ms)
        return st

    @staticmethod
    def _touch(st: _Step, time_ms: float | None) -> None:
        if time_ms is None:
            return
        if st.first_time is None or time_ms < st.first_time:
            st.first_time = time_ms
        if st.last_time is None or time_ms > st.last_time:
            st.last_time = time_ms

    def _on_chunk(self, st: _Step, chunk: Any, line: int) -> None:
        if not isinstance(chunk, dict):
            return
        ctype = chunk.get("type")
        if st.finish is not None:
            # any chunk after a finish: the step was retried (llm/retry) and a new attempt starts
            st.failed_attempts.append(st.finish)
            st.finish, st.finish_replay, st.deltas, st.model_calls, st.usage = None, None, {}, {}, None
        st.streamed = True
        if ctype == "finish":
            reason = chunk.get("reason")
            st.finish = reason if isinstance(reason, dict) else {"kind": reason}
            st.finish_replay = chunk.get("replayState") if isinstance(chunk.get("replayState"), dict) else None
        elif ctype == "usage" and isinstance(chunk.get("usage"), dict):
            st.usage = chunk["usage"]
        elif ctype == "tool-call-delta":
            where = f"line {line}: tool-call-delta"
            cid = text_field(chunk.get("id"), f"{where} id", st.issues)
            index = chunk.get("index")
            if index is not None and not _is_int(index):
                st.issues.append(Issue(BAD_FIELD, f"{where} index: {what_is_wrong(index)}, not an integer; ignored"))
                index = None
            slot = st.deltas.setdefault(cid if cid is not None else ("index", index), [cid, None, []])
            if chunk.get("name") is not None:
                slot[1] = text_field(chunk.get("name"), f"{where} name", st.issues) or slot[1]
            delta = chunk.get("argumentsDelta")
            if isinstance(delta, str):
                slot[2].append(delta)
            elif delta is not None:
                st.issues.append(Issue(BAD_FIELD, f"{where} argumentsDelta: {what_is_wrong(delta)}, not text; dropped"))
        elif ctype == "block-end":
            block = chunk.get("block")
            if isinstance(block, dict) and block.get("type") == "tool-call":
                cid = text_field(block.get("id"), f"line {line}: block-end id", st.issues)
                st.model_calls[cid] = (block.get("name"), block.get("arguments"))

    def _on_message(self, st: _Step, d: dict[str, Any], line: int, time_ms: float | None) -> list[Record]:
        out = self._on_stream(st, d.get("stream"), line, time_ms)  # V3: its chunks come first
        st.message = d
        if isinstance(d.get("usage"), dict):
            st.usage = d["usage"]
        msg: Any = d.get("message") if isinstance(d.get("message"), dict) else d  # real logs: content may sit in data
        content = msg.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool-call":
                    cid = text_field(part.get("id"), f"line {line}: assistant/message tool-call id", st.issues)
                    st.model_calls.setdefault(cid, (part.get("name"), part.get("arguments")))
        return out

    def _on_stream(self, st: _Step, stream: Any, line: int, time_ms: float | None) -> list[Record]:
        """V3: the chunks of one attempt embedded in ``assistant/message`` or ``assistant/attempt``."""
        if not isinstance(stream, list):
            return []
        out: list[Record] = []
        member = 0
        for item in stream:
            if not isinstance(item, dict):
                st.issues.append(Issue(PACKED_CHUNKS, f"line {line}: embedded stream item is a JSON {json_kind(item)}"))
                continue
            itype = item.get("type")
            if itype in PACKED_TYPES:
                members, note = expand_packed(itype, item, seq0=item.get("seq0"), time0=item.get("time0"))
                if note:
                    st.issues.append(Issue(PACKED_CHUNKS, f"line {line}: {note}"))
            elif itype == "chunk":
                t = item.get("time")
                members = [(None, float(t) if _is_number(t) else None, item.get("chunk"))]
            else:
                st.issues.append(Issue(PACKED_CHUNKS, f"line {line}: unknown embedded stream item {itype!r}"))
                continue
            for _seq, t, chunk in members:
                payload = {"turn": st.turn, "step": st.step, "chunk": chunk}
                out.append(
                    Event(
                        self.source,
                        f"line {line}",
                        ASSISTANT_CHUNK,
                        None,
                        _seconds(t),
                        st.turn,
                        st.step,
                        payload,
                        st.exchange_id,
                        packed=itype,
                        member=member,
                    )
                )
                member += 1
                self._touch(st, t)
                self._on_chunk(st, chunk, line)
        return out

    def _tool_results(
        self, d: dict[str, Any], exchange_id: str | None, turn: int | None, step: int | None, line: int
    ) -> list[Record]:
        """The results a ``tool/result`` holds; a field of the wrong type is a ``bad-field`` problem."""
        error: Any = d.get("error") if isinstance(d.get("error"), dict) else {}
        unfit: list[Issue] = []
        at = f"line {line}: tool/result"
        name = text_field(error.get("name"), f"{at} error name", unfit)
        code = text_field(error.get("code"), f"{at} error code", unfit)
        out: list[Record] = []
        for call_id, is_error, content in tool_result_parts(d):
            if is_error is not None and not isinstance(is_error, bool):
                unfit.append(Issue(BAD_FIELD, f"{at} isError: {what_is_wrong(is_error)}, not a boolean; left empty"))
            if content is not None and not isinstance(content, (str, list)):
                unfit.append(Issue(BAD_FIELD, f"{at} content: {what_is_wrong(content)}, not text or a list; not read"))
            out.append(
                ToolResult(
                    exchange_id,
                    text_field(split_call_id(call_id)[0] if type(call_id) is str else call_id, f"{at} call id", unfit),
                    is_error if isinstance(is_error, bool) else None,
                    content_text(content),
                    name,
                    code,
                    turn,
                    step,
                )
            )
        out += [self._bad_field(line, i.message, exchange_id) for i in unfit]
        return out

    def _on_request_header(self, d: dict[str, Any], line: int) -> None:
        header: Any = d.get("header") if isinstance(d.get("header"), dict) else {}
        self._config = header.get("config") if isinstance(header.get("config"), dict) else {}
        self._tools = header.get("tools")
        self._tools_line = line
        tools = self._tools
        if isinstance(tools, str):
            # real logs: 136 fixtures hold "{{tools}}" instead of the advertised schemas
            self._pending_issues.append(
                Issue(PLACEHOLDER, f"request/header at line {line} has tools {tools!r}, not the advertised schemas")
            )
        elif isinstance(tools, list) and any(isinstance(t, str) for t in tools):
            # real logs: python-sdk snapshots list tool names only
            self._pending_issues.append(
                Issue(TOOL_NAMES_ONLY, f"request/header at line {line} lists tool names without their schemas")
            )
        elif tools is not None and not isinstance(tools, list):
            self._pending_issues.append(
                Issue(REQUEST_BODY, f"request/header at line {line} has tools as a JSON {json_kind(tools)}")
            )
        for i, t in enumerate(tools if isinstance(tools, list) else ()):
            if not isinstance(t, (dict, str)):
                self._pending_issues.append(
                    Issue(REQUEST_BODY, f"request/header at line {line}: tools[{i}] is {what_is_wrong(t)}; left out")
                )
            if isinstance(t, dict):
                for k in ("name", "description"):
                    if t.get(k) is not None:
                        text_field(t[k], f"request/header at line {line}: tools[{i}] {k}", self._pending_issues)
        for k in ("model", "provider", "api"):
            if self._config.get(k) is not None:
                text_field(self._config[k], f"request/header at line {line}: config {k}", self._pending_issues)

    # -- output ----------------------------------------------------------------------------------

    @staticmethod
    def _knows_terminal(st: _Step) -> bool:
        return st.finish is not None or st.message is not None

    def _emit(self, key: tuple[int, int], *, at_eof: bool = False) -> Decoded:
        st = self._steps.pop(key)
        self._emitted.add(key)
        if self._open == key:
            self._open = None
        ex = Exchange(st.exchange_id, self.source, f"line {st.first_line}")
        ex.body_fidelity = "normalised"  # DSH's own records of the request and the reply, not wire bytes
        ex.started_at = _seconds(st.first_time)
        if st.first_time is not None and st.last_time is not None:
            ex.duration_ms = st.last_time - st.first_time
        ex.stream = True if st.streamed else None
        issues = list(st.issues)

        # model / provider: the request/header config, then what the answer says, then request/context
        msg = st.message or {}
        inner: Any = msg.get("message") if isinstance(msg.get("message"), dict) else {}
        answered: Any = inner.get("source") if isinstance(inner.get("source"), dict) else {}
        if not answered and isinstance(msg.get("provenance"), dict):  # real logs: V0 provenance form
            answered = msg["provenance"]
        for attr in ("model", "provider"):
            for where in (self._config, answered, self._context):
                if isinstance(where.get(attr), str):
                    setattr(ex, attr, where[attr])
                    break
        ex.api = self._api(ex.provider, st, answered)

        self._set_terminal(ex, st, issues, at_eof)

        usage = st.usage or {}
        for name, column in USAGE_FIELDS.items():
            setattr(ex, column, count_field(usage.get(name), f"usage {name}", issues))

        tools = self._tool_rows()
        issues.extend(self._pending_issues)
        self._pending_issues = []
        return Decoded(ex, tools=tools, calls=self._calls(st, issues), inputs=st.inputs, issues=issues)

    def _enter_context(self, st: _Step | None, parts: list[InputPart]) -> None:
        """A user message or tool result joins the context: of the open step while it has not answered yet
        (DSH logs the task after ``step/start``), else of the next step (a result follows its call)."""
        if not parts:
            return
        if st is not None and not st.streamed and st.message is None and not st.model_calls:
            st.inputs.extend(self._renumber(st, parts))
        else:
            self._pending_inputs.extend(parts)

    @staticmethod
    def _renumber(st: _Step, parts: list[InputPart]) -> list[InputPart]:
        start = (st.inputs[-1].item_index + 1) if st.inputs else 0
        first = parts[0].item_index
        for p in parts:
            p.item_index = start + p.item_index - first
        return parts

    def _api(self, provider: str | None, st: _Step, answered: Mapping[str, Any]) -> str:
        candidates = [self._config.get("api")]
        for replay in (st.finish_replay, answered.get("replayState")):
            if isinstance(replay, dict) and isinstance(replay.get("response"), dict):
                candidates.append(replay["response"].get("api"))  # pi-ai replay state names the api
        if provider is not None:
            candidates.append(self.provider_apis.get(provider))
        for api in candidates:
            if isinstance(api, str) and (api in PROVIDER_APIS or (api != "other" and api in WIRE_APIS)):
                if provider is not None and provider not in self.provider_apis:
                    # DSH's request/header names no api; a step that failed before any answer has no replay
                    # state either, so what an earlier step of the same route showed is the evidence left
                    self.provider_apis[provider] = api
                return PROVIDER_APIS.get(api, api)
        return "other"

    def _set_terminal(self, ex: Exchange, st: _Step, issues: list[Issue], at_eof: bool) -> None:
        for reason in st.failed_attempts:
            failure = reason.get("failure") if isinstance(reason.get("failure"), dict) else {}
            issues.append(
                Issue(
                    RETRIED,
                    f"an attempt finished {_told(reason.get('kind'), repr)}"
                    + (f" ({_told(failure.get('code'))}: {_told(failure.get('message'))})" if failure else "")
                    + " and the step was retried",
                )
            )
        msg = st.message or {}
        failure = None
        if st.finish is not None:
            kind = st.finish.get("kind")
            ex.terminal = FINISH_TERMINALS.get(kind) if isinstance(kind, str) else None  # a list would not hash
            if ex.terminal is None:
                issues.append(Issue(FINISH_REASON, f"unknown finish reason {_told(kind, repr)}"))
            failure = st.finish.get("failure")
        elif msg.get("interrupted"):
            ex.terminal = "cut"
        elif st.message is not None:
            ex.terminal = "completed"
        elif st.turn_reason is not None:
            reason = st.turn_reason.get("reason")
            if isinstance(reason, dict):
                end_kind = reason.get("kind")
                ex.terminal = TURN_END_TERMINALS.get(end_kind) if isinstance(end_kind, str) else None
                failure = reason.get("error")
                if ex.terminal is None:
                    issues.append(Issue(FINISH_REASON, f"unknown turn/end reason {_told(reason.get('kind'), repr)}"))
            elif isinstance(st.turn_reason.get("error"), str):  # real logs: authored {"error": "..."}
                ex.terminal, failure = "failed", {"message": st.turn_reason["error"]}
        elif at_eof or st.ended:
            ex.terminal = "cut"  # the log ends before the step finished
        if isinstance(failure, dict):
            ex.error_code = text_field(failure.get("code"), "failure code", issues)
            ex.error_message = text_field(failure.get("message"), "failure message", issues)
            ex.status = count_field(failure.get("status"), "failure status", issues)

    def _tool_rows(self) -> list[Tool]:
        if not isinstance(self._tools, list):
            return []
        rows = []
        for t in self._tools:
            if isinstance(t, dict):
                rows.append(Tool(_str(t.get("name")), strict_state(t), t.get("parameters"), _str(t.get("description"))))
            elif isinstance(t, str):
                rows.append(Tool(t, "absent"))
        return rows

    def _calls(self, st: _Step, issues: list[Issue]) -> list[Call]:
        calls = []
        seen: set[Any] = set()
        for d in st.tool_calls.values():  # what DSH dispatched: the authoritative record
            calls.append(_call(d.get("callId"), d.get("name"), d.get("arguments"), complete=True))
            seen.add(_str(d.get("callId")))  # an id that is no text was reported when it came
        for cid, (name, raw) in st.model_calls.items():  # the model finished it; DSH logged no tool/call
            if cid in seen:
                continue
            seen.add(cid)
            calls.append(_call(cid, name, raw, complete=True))
            issues.append(
                Issue(
                    CALL_NOT_DISPATCHED,
                    f"call {cid} ({_told(name)}) is in the model output but has no tool/call event",
                )
            )
        for cid, name, parts in st.deltas.values():  # deltas only: the stream was cut
            if cid is not None and cid in seen:
                continue
            calls.append(_call(cid, name, "".join(parts), complete=False))
        return calls


# ---------------------------------------------------------------------------------------------


def split_call_id(value: Any) -> tuple[str | None, str | None]:
    """``(call_id, item_id)`` of a DSH tool-call id. DSH keeps the id pi-ai gives a Responses call,
    ``<call_id>|<item id>`` (pi-ai ``openai-responses-shared`` ``id: `${item.call_id}|${item.id}```, 0.82.1
    and 1.6.0); the wire, and every other capture, names the call by the part before ``|``
    (``docs/upstream.md#dsh-session-log-observed``)."""
    text = _str(value)
    if text is None or "|" not in text:
        return text, None
    call_id, _, item_id = text.partition("|")
    return call_id, item_id or None


def _call(call_id: Any, name: Any, raw: Any, *, complete: bool) -> Call:
    arguments, error = (raw, None) if isinstance(raw, dict) else parse_arguments(raw)
    if isinstance(raw, str) or raw is None:
        raw_text = raw
    elif isinstance(raw, (dict, list)) and (
        deep := too_big_to_keep(raw, MAX_ARGUMENTS_DEPTH, None, "MAX_ARGUMENTS_DEPTH")
    ):
        raw_text, arguments, error = None, None, f"arguments are {deep}: not kept"
    else:
        raw_text = json.dumps(raw, ensure_ascii=False)
    if not complete and error is not None:
        error = f"incomplete: {error}"
    wire_id, item_id = split_call_id(call_id)
    return Call(wire_id, item_id, _str(name), raw_text, arguments, error, complete)


def _parse_line(raw: bytes | str, *, first: bool = False) -> tuple[Any, str | None]:
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
    if first:
        raw = raw.lstrip("\ufeff")
    try:
        return loads(raw), None
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON: {exc.msg} at column {exc.colno}"
    except RecursionError:
        return None, "invalid JSON: nested too deeply"
    except ValueError:  # Python's limit on the digits of an integer it converts (sys.get_int_max_str_digits)
        return None, f"invalid JSON: {TOO_MANY_DIGITS}"


def _is_int(v: Any) -> TypeGuard[int]:
    """An integer an int64 column holds (a 400-digit ``seq`` is not one)."""
    return int64(v) is not None


def _is_number(v: Any) -> TypeGuard[int | float]:
    """A number arithmetic on it keeps finite (``1e400`` is infinity, a 400-digit integer no float)."""
    return finite(v) is not None


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _told(v: Any, show: Callable[[Any], str] = str) -> str:
    """A logged value inside a sentence: as it is when text, a number, null or a small object or array,
    else described boundedly (a 1,000-deep list is neither repeated nor formatted recursively)."""
    if v is None or isinstance(v, (str, bool, float)) or (isinstance(v, int) and -(10**100) < v < 10**100):
        return show(v)
    if isinstance(v, (dict, list)) and too_big_to_keep(v) is None:  # a small one as it always was shown
        return show(v)
    return what_is_wrong(v)


def _seconds(ms: float | None) -> float | None:
    return ms / 1000 if ms is not None else None


def decode_lines(source: str, lines: Iterable[tuple[int, bytes | str]]) -> list[Record]:
    """Decode already-split ``(line number, text)`` pairs in memory (tests and small inputs)."""
    dec = SessionDecoder(source)
    out: list[Record] = []
    first = True
    for n, raw in lines:
        if not (raw.strip() if isinstance(raw, (str, bytes)) else raw):
            continue
        out.extend(dec.read_header(raw, n) if first else dec.feed_line(raw, n))
        first = False
    out.extend(dec.close())
    return out
