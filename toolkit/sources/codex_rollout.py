"""Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): one JSON object per line.

Each line is an entry and becomes one ``Event`` (type ``codex/<line type>[/<payload type>]``, the payload
as written) or one ``Problem``. On top of that:

- **exchanges**: one per model response. A response is the run of model output items (``reasoning``,
  assistant ``message``, ``function_call``, ``local_shell_call``, ``custom_tool_call``, ...) between two
  inputs (a user/developer message, a tool output, a ``turn_context``, ``compacted``, a task start); a
  ``token_usage_record`` (0.171.0) ends one too. The exchange sits at the line of its first output item,
  ``api`` "responses", ``provider`` the session's ``model_provider`` (else "openai"), ``model`` the
  ``turn_context``'s, tokens from the ``token_usage_record`` or the next ``token_count`` event
  (``last_token_usage``), ``body_fidelity`` "normalised" (Codex's rendering of the items, not the wire).
- **calls**: ``function_call`` (arguments parsed), ``custom_tool_call`` (freeform input, not parsed),
  ``local_shell_call`` (its ``action`` as the arguments).
- **tool_results**: ``function_call_output`` / ``custom_tool_call_output``; ``is_error`` True for
  Codex's refusals (nothing ran) or ``success: false``, False where a process ran (whatever its exit
  code), None otherwise.
- **the permission state**, as the events layer 4 reads for DSH: each ``turn_context`` adds a
  ``sandbox/mode`` event (``{"mode", "source": "turn_context", "policy"}``) and an ``approval/policy``
  event (``{"policy"}``); each call adds a ``tool/call`` event (``{"callId", "name"}``), so
  ``toolkit.layers.execution.replay`` finds the mode and policy a call ran under.

Vocabulary and upstream sources: ``toolkit.knowledge.codex``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from os import PathLike
from pathlib import Path
from typing import Any

from toolkit.errors import CaptureError
from toolkit.knowledge import codex
from toolkit.sources.sniff import first_line_object
from toolkit.wire import json_text
from toolkit.wire.json_text import json_int, json_kind, parse_arguments
from toolkit.wire.records import (
    BAD_ENTRY,
    BAD_FIELD,
    BAD_UTF8,
    UNKNOWN_SHAPE,
    Call,
    Decoded,
    EntryCount,
    Event,
    Exchange,
    Problem,
    ToolResult,
)

__all__ = ["read", "recognize"]

Record = Decoded | Event | Problem | ToolResult | EntryCount

# The first line as Codex writes it, for a head that stops inside a long session_meta line.
_HEAD = re.compile(rb'^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*("ordinal"\s*:\s*\d+\s*,\s*)?"type"\s*:\s*"session_meta"')


def recognize(head: bytes) -> bool:
    """The first line is a rollout line of type ``session_meta`` (``timestamp``, ``type``, ``payload``)."""
    obj = first_line_object(head)
    if obj is not None:
        return obj.get("type") == "session_meta" and "timestamp" in obj and isinstance(obj.get("payload"), dict)
    return b"\n" not in head and _HEAD.match(head) is not None


def read(path: str | PathLike[str], source: str) -> Iterator[Record]:
    """Yield the records of each line in order, the exchanges at the end, then one ``EntryCount``."""
    path = Path(path)
    try:
        f = open(path, "rb")
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    state = _Rollout(source)
    entries = 0
    with f:
        offset = 0
        for line_no, raw in enumerate(f, 1):
            start = offset
            offset += len(raw)
            if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw, start = raw[3:], start + 3
            if not raw.strip():
                continue
            entries += 1
            yield from state.line(raw, line_no, start)
    if entries == 0:
        raise CaptureError(path, "empty file: no rollout lines", location="line 1")
    yield from state.close()
    yield EntryCount(source, "line", entries)


def _epoch(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


class _Rollout:
    """The state of one file: the session's provider, the turn's model, the exchange being built."""

    def __init__(self, source: str):
        self.source = source
        self.provider: str | None = None
        self.model: str | None = None
        self.turn: int | None = None  # how many turn_context lines so far
        self.current: Decoded | None = None  # the response whose output items are being read
        self.done: list[Decoded] = []
        self.call_exchange: dict[str, str] = {}  # call id -> exchange id

    # ---- one line -------------------------------------------------------------------------------

    def line(self, raw: bytes, line_no: int, start: int) -> Iterator[Record]:
        where = f"line {line_no}"
        terminated = raw.endswith(b"\n")
        raw = raw.rstrip(b"\r\n")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield Problem(
                self.source,
                where,
                BAD_UTF8,
                f"{where}: not UTF-8: {exc.reason} (byte {start + exc.start}); read with U+FFFD",
            )
            text = raw.decode("utf-8", errors="replace")
        try:
            obj = json_text.loads(text)
        except json.JSONDecodeError as exc:
            byte = start + len(text[: exc.pos].encode("utf-8"))
            cut = " (the last line, with no newline: cut off while Codex was writing it?)" if not terminated else ""
            msg = f"{where}: not JSON: {exc.msg} (column {exc.colno}, byte {byte}){cut}"
            yield Problem(self.source, where, BAD_ENTRY, msg)
            return
        except (ValueError, RecursionError) as exc:
            yield Problem(self.source, where, BAD_ENTRY, f"{where}: not JSON: {exc} (byte {start})")
            return
        if not isinstance(obj, dict):
            msg = f"{where}: a JSON {json_kind(obj)} (byte {start}), not a rollout line object"
            yield Problem(self.source, where, BAD_ENTRY, msg)
            return
        kind, payload = obj.get("type"), obj.get("payload")
        if not isinstance(kind, str) or "payload" not in obj:
            keys = ", ".join(list(obj)[:8]) or "none"
            msg = f"{where}: no rollout line (keys: {keys}; byte {start}); expected timestamp, type and payload"
            yield Problem(self.source, where, UNKNOWN_SHAPE, msg)
            return
        time = _epoch(obj.get("timestamp"))
        sub = payload.get("type") if isinstance(payload, dict) else None
        yield from self._unread(kind, payload, sub, where)
        extra: list[Event] = []
        xid = None
        p = payload if isinstance(payload, dict) else {}
        if kind == "session_meta":
            self._close()
            prov = p.get("model_provider")
            self.provider = prov if isinstance(prov, str) and prov else self.provider
        elif kind == "turn_context":
            self._close()
            self.turn = (self.turn or 0) + 1
            self.model = p.get("model") if isinstance(p.get("model"), str) else self.model
            extra += self._permission_events(p, where, time)
        elif kind == "compacted":
            self._close()
        elif kind == "response_item":
            xid, more = self._item(p, sub, where, time)
            extra += more[0]
            yield from more[1]
        elif kind == "token_usage_record":
            usage = p.get("usage")
            ex = self._latest_without_tokens()
            if ex is not None and isinstance(usage, dict):
                self._tokens(ex, usage)
                rid = p.get("response_id")
                ex.exchange.log_id = rid if isinstance(rid, str) else ex.exchange.log_id
                xid = ex.exchange.exchange_id
            self._close()
        elif kind == "event_msg":
            if sub == "token_count":
                info = p.get("info")
                last = info.get("last_token_usage") if isinstance(info, dict) else None
                ex = self._latest_without_tokens()
                if ex is not None and isinstance(last, dict):
                    self._tokens(ex, last)
                    xid = ex.exchange.exchange_id
            elif sub in ("task_started", "user_message", "turn_aborted", "task_complete"):
                self._close()
        name = (
            f"codex/{kind}/{sub}"
            if isinstance(sub, str) and kind in ("response_item", "event_msg")
            else f"codex/{kind}"
        )
        seq = json_int(obj.get("ordinal"))
        yield Event(self.source, where, name, seq, time, self.turn, None, payload, exchange_id=xid)
        for ev in extra:
            ev.seq = seq
            yield ev

    def _unread(self, kind: str, payload: Any, sub: Any, where: str) -> Iterator[Problem]:
        """A line kept as an event whose meaning is lost (an unknown line or item type, a call id that is
        not text, a turn without its sandbox policy) says so: a damaged line would otherwise drop an
        exchange, a call, a tool result or a permission event without a word."""
        msg = None
        if kind not in codex.LINE_TYPES:
            msg = f"rollout line type {kind!r} is not one Codex writes; kept as an event only"
        elif kind in ("response_item", "event_msg") and not isinstance(payload, dict):
            msg = f"{kind} payload is a {json_kind(payload)}, not an object; kept as an event only"
        elif kind in ("response_item", "event_msg") and not isinstance(sub, str):
            msg = f"{kind} payload type is a {json_kind(sub)}, not a string; kept as an event only"
        elif kind == "response_item" and sub not in (*codex.MODEL_OUTPUT_ITEMS, *codex.TOOL_OUTPUT_ITEMS):
            msg = f"response item type {sub!r} is not one the reader knows; not read as output or a tool result"
        elif kind == "response_item" and sub == "message" and not isinstance(payload.get("role"), str):
            role = payload.get("role")
            msg = f"message role is a {json_kind(role)}, not a string; not read as the model's output"
        elif kind == "response_item" and sub == "message" and payload["role"] not in codex.MESSAGE_ROLES:
            told = repr(payload["role"][:40])
            msg = f"message role {told} is not one of {', '.join(codex.MESSAGE_ROLES)}; not read as the model's output"
        elif kind == "response_item" and "call_id" in payload and not isinstance(payload["call_id"], str):
            msg = f"{sub} call_id is a {json_kind(payload['call_id'])}, not a string; read without a call id"
        elif kind == "turn_context":
            missing = [
                k for k in ("sandbox_policy", "approval_policy") if not isinstance(payload, dict) or k not in payload
            ]
            if missing:
                msg = f"turn_context without {' or '.join(missing)}: that permission state is not recorded"
        if msg is not None:
            yield Problem(self.source, where, BAD_FIELD, f"{where}: {msg}")

    def _permission_events(self, p: dict[str, Any], where: str, time: float | None) -> list[Event]:
        out = []
        if "sandbox_policy" in p:
            policy = p["sandbox_policy"]
            mode = codex.sandbox_mode(policy)
            payload = {"mode": mode, "source": "turn_context", "policy": policy}
            out.append(Event(self.source, where, "sandbox/mode", None, time, self.turn, None, payload))
        if "approval_policy" in p:
            payload = {"policy": codex.approval_name(p["approval_policy"]), "recorded": p["approval_policy"]}
            out.append(Event(self.source, where, "approval/policy", None, time, self.turn, None, payload))
        return out

    # ---- response items -------------------------------------------------------------------------

    def _item(
        self, p: dict[str, Any], sub: Any, where: str, time: float | None
    ) -> tuple[str | None, tuple[list[Event], list[Record]]]:
        role = p.get("role")
        is_output = sub in codex.MODEL_OUTPUT_ITEMS and (sub != "message" or role == "assistant")
        if not is_output:
            self._close()
            records: list[Record] = []
            if sub in codex.TOOL_OUTPUT_ITEMS:
                records.append(self._result(p, where))
            return None, ([], records)
        if self.current is None:
            self.current = self._exchange(where, time)
        ex = self.current
        xid = ex.exchange.exchange_id
        call = self._call(p, sub)
        events: list[Event] = []
        if call is not None:
            ex.calls.append(call)
            if call.call_id:
                self.call_exchange[call.call_id] = xid
                payload = {"callId": call.call_id, "name": call.name}
                events.append(Event(self.source, where, "tool/call", None, time, self.turn, None, payload, xid))
        return xid, (events, [])

    def _exchange(self, where: str, time: float | None) -> Decoded:
        line_no = where.removeprefix("line ")
        ex = Exchange(
            exchange_id=f"{self.source}:{line_no}",
            source=self.source,
            location=where,
            started_at=time,
            api="responses",
            model=self.model,
            provider=self.provider or "openai",
            body_fidelity="normalised",
        )
        return Decoded(exchange=ex)

    @staticmethod
    def _call(p: dict[str, Any], sub: Any) -> Call | None:
        call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else None
        item_id = p.get("id") if isinstance(p.get("id"), str) else None
        name = p.get("name") if isinstance(p.get("name"), str) else None
        if sub == "function_call":
            raw = p.get("arguments")
            args, err = parse_arguments(raw)
            return Call(call_id, item_id, name, raw if isinstance(raw, str) else None, args, err)
        if sub == "custom_tool_call":
            raw = p.get("input")
            return Call(call_id, item_id, name, raw if isinstance(raw, str) else None, None, None)
        if sub == "local_shell_call":
            action = p.get("action")
            raw = json.dumps(action, ensure_ascii=False) if action is not None else None
            args = action if isinstance(action, dict) else None
            err = None if args is not None else "no action object"
            return Call(call_id or item_id, item_id, "local_shell", raw, args, err)
        return None

    def _result(self, p: dict[str, Any], where: str) -> ToolResult:
        call_id = p.get("call_id") if isinstance(p.get("call_id"), str) else None
        out = p.get("output")
        success = None
        if isinstance(out, dict):  # FunctionCallOutputPayload as an object: content (+ success)
            success = out.get("success") if isinstance(out.get("success"), bool) else None
            out = out.get("content")
        if isinstance(out, list):  # content items
            out = "\n".join(str(i.get("text", "")) for i in out if isinstance(i, dict))
        text = out if isinstance(out, str) else ("" if out is None else json.dumps(out, ensure_ascii=False))
        if success is False or codex.is_refusal_text(text):
            is_error: bool | None = True
        elif codex.ran_a_process(text):
            is_error = False
        else:
            is_error = None
        xid = self.call_exchange.get(call_id or "")
        return ToolResult(xid, call_id, is_error, text, turn=self.turn, source=self.source, location=where)

    # ---- exchanges ------------------------------------------------------------------------------

    def _latest_without_tokens(self) -> Decoded | None:
        latest = self.current or (self.done[-1] if self.done else None)
        if latest is None or latest.exchange.input_tokens is not None:
            return None
        return latest

    @staticmethod
    def _tokens(d: Decoded, usage: dict[str, Any]) -> None:
        ex = d.exchange
        ex.input_tokens = json_int(usage.get("input_tokens"))
        ex.output_tokens = json_int(usage.get("output_tokens"))
        ex.reasoning_tokens = json_int(usage.get("reasoning_output_tokens"))

    def _close(self) -> None:
        if self.current is not None:
            self.done.append(self.current)
            self.current = None

    def close(self) -> Iterator[Decoded]:
        self._close()
        yield from self.done
