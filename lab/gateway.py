"""Stub upstream gateway of the incident lab: OpenAI-compatible, scripted, Python standard library only.

Run ``python lab/gateway.py --port N [--log FILE.jsonl] [--clock ISO] [--seed 7]``; it serves on
127.0.0.1 until SIGTERM or SIGINT and prints ``listening on 127.0.0.1:<port>`` (``--port 0`` picks a
free port). Tests import ``make_server`` and run it in a thread.

The first path segment names the **behaviour** (what a real gateway does; table in ``lab/README.md``):
``/<behaviour>/v1/responses``, ``/<behaviour>/codex/responses`` (same events; pi-ai's Codex provider
appends ``/codex/responses`` to its base URL), ``/<behaviour>/v1/chat/completions`` and
``GET /<behaviour>/v1/models``. One more segment may name a route, as multi-tenant gateways do:
``/<behaviour>/<route>/v1/responses`` (logged as ``gateway.route``).

The model id names the **persona**, each standing for a reported model behaviour:

* ``gw-coder`` (and any unknown id): a model trained on Codex's shell tool. Such models fill every
  property a strict schema lists, so under an effective ``strict`` it sends every property of the
  tool: ``command``/``description`` with values, ``sandbox_permissions: "danger-full-access"``,
  ``justification: ""`` and a value of the right type for the other optional ones (``timeoutMs:
  120000``, ``workdir: "."``, ``run_in_background: false``), so DSH's schema check passes. DSH refuses the empty
  justification (``invalid justification: expected a non-empty sentence``, docs/upstream.md#dsh-runtime-validation row 3c); the
  model then retries once with a one-sentence justification. A second refusal, or any other tool
  result, ends the turn with a text reply, unless the user's image reached the model only as pi-ai's
  placeholder ``(image omitted: model does not support images)``: then it tries ``read_image`` on
  the screenshot first. Without strict it sends only the required properties.
* ``gw-text-mini``: under strict it answers every optional field with ``null`` (the nullable half of
  pi-ai's strict transform), which DSH's schema check refuses (docs/upstream.md#gateways-strict).
* ``gw-vision``: as ``gw-coder``, and it describes an image instead of calling a tool when the
  latest user message (or the tool result being answered) carries one.
* ``gw-sometimes``: as ``gw-coder``, but a model that only usually gives in to strict: under an
  effective ``strict`` it fills the optional properties with probability ``SOMETIMES_P`` (0.7) and
  otherwise sends the required ones only, as without strict. One draw of ``random.Random`` seeded by
  ``--seed`` per answer it generates (its own generator: the other personas and ``busy`` draw
  nothing new), so a replayed experiment (``agent-contract experiment``) gets rates with real
  intervals, reproducibly for a given seed and request order. Not listed by ``GET /v1/models``.

Error envelopes (``{"error": {message, type, param, code}}``, openai-python ``error_object.py``):

===============  ======  =======================  ========================  =================================
outcome          status  type                     code                      message
===============  ======  =======================  ========================  =================================
image-refused    400     invalid_request_error    unsupported_image_input   Image input is not supported by
                                                                            model <m> on this gateway.
                                                                            (param: path of the first image
                                                                            part, e.g. ``input[1].content[1]``)
rate-limited     429     requests                 rate_limit_exceeded       Rate limit reached for <m>. Please
                                                                            try again in 1s. (headers
                                                                            ``retry-after: 1``,
                                                                            ``retry-after-ms: 1000``)
server-error     500     server_error             server_error              The server had an error while
                                                                            processing your request. Sorry
                                                                            about that!
not-found        404     invalid_request_error    unknown_url               Invalid URL (<METHOD> <path>) /
                                                                            Unknown behaviour ...
bad-request      400     invalid_request_error    invalid_json              We could not parse the JSON body
                                                                            of your request: <reason> / The
                                                                            request body must be a JSON object.
bad-request      400     invalid_request_error    invalid_body              We could not read the body of your
                                                                            request: <reason> (framing, gzip)
===============  ======  =======================  ========================  =================================

Effective ``strict`` per tool (Responses: top-level ``strict``; Chat: ``function.strict``):
``force-strict`` → always strict; ``passthrough`` → as sent, absent/null non-strict; every other
behaviour → explicit true/false as sent, absent/null strict on ``/v1/responses`` and
``/codex/responses`` but non-strict on Chat Completions (the OpenAI function-calling guide).

Every Responses response object (``response.created`` … ``response.completed``/``failed`` payloads and
non-stream bodies) echoes the request's ``tools`` the way real backends do, normalised as the gateway
reads them: each function tool with ``strict`` set to its effective strictness (a bool) and, when
strict, ``parameters`` as enforced (every property required, ``additionalProperties: false``).

Streams end the HTTP body by closing the connection (``connection: close``, no length), so a cut
stream reaches the client as a clean end of stream without a terminal event (pi-ai: "stream ended
before a terminal response event"). ``fail`` streams ``response.failed`` (Chat: a mid-stream
``data: {"error": …}`` frame).

Every exchange is written as one line of the toolkit's canonical JSONL shape plus a ``gateway`` field
``{behaviour, persona, strict: {tool: bool}, outcome}``, in the order the requests arrived (a line is
complete only once its response is sent, and waits for every earlier request's line:
``serving.LoggingServer``), so the log's order never depends on thread scheduling. Ids come
from per-server counters; with ``--clock`` times (and durations) come from a virtual clock, so the
log is reproducible for a given request sequence.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import traceback
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or loaded by file path
from serving import HOST, LoggingServer, decode_content, dumps, read_body

BEHAVIOURS = (
    "passthrough",
    "absent-is-strict",
    "force-strict",
    "no-images",
    "rate-limit",
    "cut-stream",
    "fail",
    "busy",
)
PERSONAS = ("gw-coder", "gw-vision", "gw-text-mini")  # listed by GET /v1/models
STOCHASTIC_PERSONAS = ("gw-sometimes",)  # seeded; not listed, so recorded model lists stay as they were
SOMETIMES_P = 0.7  # gw-sometimes: the probability it fills the optional properties under strict
DEFAULT_PERSONA = "gw-coder"

# Persona scripts.
NON_STRICT_VALUES = {"command": "ls -la", "description": "List files in the workspace"}
# What a Codex-trained model puts in the optional fields a strict schema makes it send: real values
# everywhere (so DSH's schema check passes), the widest escalation and an empty justification.
STRICT_OPTIONAL_VALUES = {
    "timeoutMs": 120000,
    "workdir": ".",
    "run_in_background": False,
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}
NULL_FILLERS = ("gw-text-mini",)  # personas that answer strict's required-but-nullable fields with null
IMAGE_PLACEHOLDER = "(image omitted: model does not support images)"  # pi-ai transform-messages.ts
SCREENSHOT_PATH = "screenshot.png"
RETRY_MARKER = "invalid justification"  # DSH validateEscalationArgs, docs/upstream.md#dsh-runtime-validation row 3c
RETRY_JUSTIFICATION = "Listing the workspace needs full access to every directory."
VISION_REPLY = "The screenshot shows a failing test run."
NO_TOOL_REPLY = "I have no tool to run."
REFUSED_PREFIX = "The command was refused: "
DONE_PREFIX = "Done: "

# Error envelopes.
RATE_LIMIT_HEADERS = {"retry-after": "1", "retry-after-ms": "1000"}
SERVER_ERROR_MESSAGE = "The server had an error while processing your request. Sorry about that!"
FAILED_ERROR = {"code": "server_error", "message": "The model failed to produce a response."}

# busy: cumulative outcome probabilities for one random.Random(seed).random() draw per request.
BUSY_TABLE = (("ok", 0.85), ("rate-limited", 0.91), ("cut", 0.95), ("failed", 0.98), ("server-error", 1.0))
BUSY_STEP_S = (30.0, 240.0)  # virtual clock advance per busy request: a seeded draw, in seconds
STEP_S = 1.0  # virtual clock advance per request of every other behaviour

PIECE = 20  # characters per argument / text delta
FRAME_BUDGET_S = 0.06  # total sleep between frames per response
FRAME_SLEEP_S = 0.003


# --- clock and ids ------------------------------------------------------------------------------


def parse_iso(text: str) -> float:
    """ISO 8601 (``Z`` or an offset; naive = UTC) → epoch seconds."""
    text = text.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    dt = datetime.fromisoformat(text)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Clock:
    """Real time, or a virtual clock that advances a deterministic amount per request."""

    def __init__(self, start: float | None, seed: int):
        self.virtual = start is not None
        self._now = start
        self._rng = random.Random(f"{seed}:clock")  # apart from the outcome draws

    def tick(self, behaviour: str | None) -> float:
        """The start time of a new request; the virtual clock then moves on."""
        if not self.virtual:
            return time.time()
        now = self._now
        step = round(self._rng.uniform(*BUSY_STEP_S), 3) if behaviour == "busy" else STEP_S
        self._now = now + step
        return now

    def duration_ms(self, started_real: float, frames: int) -> float:
        """Measured, or for a virtual clock a deterministic estimate from the frames written."""
        if self.virtual:
            return float(20 + 3 * frames)
        return round((time.monotonic() - started_real) * 1000.0, 1)


# --- request reading ----------------------------------------------------------------------------

_ABSENT = object()  # a tool without a `strict` key


def tool_entries(api: str, body: dict) -> list[dict]:
    """Function tools as ``{name, parameters, strict (value or _ABSENT)}``.

    Responses tools are flat (``strict`` at the top level; pi-ai's catalog Codex models put them in
    an ``additional_tools`` input item); Chat tools sit under ``function``.
    """
    raw = list(body.get("tools") or []) if isinstance(body.get("tools"), list) else []
    if api == "responses" and isinstance(body.get("input"), list):
        for item in body["input"]:
            if (
                isinstance(item, dict)
                and item.get("type") == "additional_tools"
                and isinstance(item.get("tools"), list)
            ):
                raw += item["tools"]
    out = []
    for t in raw:
        if not isinstance(t, dict) or t.get("type", "function") != "function":
            continue
        src = t.get("function") if api == "chat" and isinstance(t.get("function"), dict) else t
        name = src.get("name")
        if not isinstance(name, str):
            continue
        params = src.get("parameters") if isinstance(src.get("parameters"), dict) else {}
        out.append({"name": name, "parameters": params, "strict": src.get("strict", _ABSENT)})
    return out


def effective_strict(behaviour: str, api: str, value) -> bool:
    """Whether the gateway treats one tool as strict, from what was sent and the behaviour."""
    if behaviour == "force-strict":
        return True
    if behaviour == "passthrough":  # as sent; absent or null reads as non-strict
        return value is not _ABSENT and value is not None and bool(value)
    if value is _ABSENT or value is None:
        # Mirrors the OpenAI function-calling guide: Responses normalises an omitted `strict` into
        # strict mode and only an explicit `strict: false` opts out; Chat Completions stays
        # non-strict by default (absent or null).
        return api == "responses"
    return bool(value)


def _parts_text(parts) -> tuple[str, bool]:
    """Text of a content value (string or part list) and whether it carries an image."""
    if isinstance(parts, str):
        return parts, False
    texts, image = [], False
    for p in parts if isinstance(parts, list) else ():
        if isinstance(p, str):
            texts.append(p)
        elif isinstance(p, dict):
            if p.get("type") in ("input_image", "image_url"):
                image = True
            elif isinstance(p.get("text"), str):
                texts.append(p["text"])
    return "\n".join(texts), image


def conversation(api: str, body: dict) -> list[dict]:
    """Both APIs' histories as items ``{kind: user|assistant|system|call|output, text, image, …}``."""
    items: list[dict] = []
    if api == "chat":
        for m in body.get("messages") or ():
            if not isinstance(m, dict):
                continue
            role = m.get("role")
            text, image = _parts_text(m.get("content"))
            if role in ("tool", "function"):
                items.append({"kind": "output", "text": text, "image": image, "call_id": m.get("tool_call_id")})
                continue
            if role == "assistant":
                if text:
                    items.append({"kind": "assistant", "text": text, "image": False})
                for tc in m.get("tool_calls") or ():
                    fn = tc.get("function") if isinstance(tc, dict) and isinstance(tc.get("function"), dict) else {}
                    items.append(
                        {
                            "kind": "call",
                            "call_id": tc.get("id") if isinstance(tc, dict) else None,
                            "name": fn.get("name"),
                            "arguments": fn.get("arguments"),
                        }
                    )
                continue
            items.append({"kind": "user" if role == "user" else "system", "text": text, "image": image})
        return items
    inp = body.get("input")
    if isinstance(inp, str):
        return [{"kind": "user", "text": inp, "image": False}]
    for it in inp if isinstance(inp, list) else ():
        if not isinstance(it, dict):
            continue
        itype = it.get("type") or ("message" if "role" in it else None)
        if itype == "message":
            role = it.get("role")
            text, image = _parts_text(it.get("content"))
            kind = "user" if role == "user" else "assistant" if role == "assistant" else "system"
            items.append({"kind": kind, "text": text, "image": image})
        elif itype == "function_call":
            items.append(
                {"kind": "call", "call_id": it.get("call_id"), "name": it.get("name"), "arguments": it.get("arguments")}
            )
        elif itype == "function_call_output":
            text, image = _parts_text(it.get("output"))
            items.append({"kind": "output", "text": text, "image": image, "call_id": it.get("call_id")})
    return items


def first_image_param(api: str, body: dict) -> str | None:
    """Where the first image part sits (``input[1].content[1]``), or None when there is none."""
    if api == "chat":
        for i, m in enumerate(body.get("messages") or ()):
            content = m.get("content") if isinstance(m, dict) else None
            for j, p in enumerate(content if isinstance(content, list) else ()):
                if isinstance(p, dict) and p.get("type") in ("image_url", "input_image"):
                    return f"messages[{i}].content[{j}]"
        return None
    inp = body.get("input")
    for i, it in enumerate(inp if isinstance(inp, list) else ()):
        if not isinstance(it, dict):
            continue
        key = "output" if it.get("type") == "function_call_output" else "content"
        for j, p in enumerate(it.get(key) if isinstance(it.get(key), list) else ()):
            if isinstance(p, dict) and p.get("type") in ("input_image", "image_url"):
                return f"input[{i}].{key}[{j}]"
    return None


# --- personas -----------------------------------------------------------------------------------


def persona_for(model) -> str:
    return model if model in PERSONAS or model in STOCHASTIC_PERSONAS else DEFAULT_PERSONA


def _value_for(name: str, schema) -> object:
    """A value for a required property: the scripted ones by name, else a placeholder of its type."""
    if name in NON_STRICT_VALUES:
        return NON_STRICT_VALUES[name]
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    kind = next((k for k in kind if k != "null"), "string") if isinstance(kind, list) else kind
    return {"number": 1, "integer": 1, "boolean": False, "array": [], "object": {}}.get(kind, "example")


def build_arguments(parameters: dict, strict: bool, nulls: bool = False) -> dict:
    """Non-strict: the required properties only. Strict: every property, optional ones filled the way
    Codex-trained models fill them (escalation pair set, a value of the right type everywhere else),
    or with ``null`` for the null-filling personas."""
    props = parameters.get("properties") if isinstance(parameters.get("properties"), dict) else {}
    required = [r for r in parameters.get("required") or () if isinstance(r, str)]
    if not strict:
        return {name: _value_for(name, props.get(name)) for name in required}
    args = {}
    for name, schema in props.items():
        if name in required:
            args[name] = _value_for(name, schema)
        elif nulls:
            args[name] = None
        else:
            args[name] = STRICT_OPTIONAL_VALUES[name] if name in STRICT_OPTIONAL_VALUES else _value_for(name, schema)
    for name in required:  # required but not described
        args.setdefault(name, _value_for(name, None))
    return args


def enforced_schema(schema):
    """A JSON Schema as a strict reading enforces it: in every object schema each property is required
    and ``additionalProperties`` is false (nested objects, array items and ``anyOf`` branches too)."""
    if isinstance(schema, list):
        return [enforced_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: enforced_schema(v) if k in ("items", "anyOf", "oneOf", "allOf", "$defs", "definitions") else v
        for k, v in schema.items()
    }
    for key in ("$defs", "definitions"):
        if isinstance(schema.get(key), dict):
            out[key] = {n: enforced_schema(v) for n, v in schema[key].items()}
    props = schema.get("properties")
    if isinstance(props, dict):
        out["properties"] = {n: enforced_schema(v) for n, v in props.items()}
    kind = schema.get("type")
    if isinstance(props, dict) or kind == "object" or (isinstance(kind, list) and "object" in kind):
        out["required"] = list(props) if isinstance(props, dict) else []
        out["additionalProperties"] = False
    return out


def echo_tools(body: dict, strict: dict) -> list:
    """The request's ``tools`` as a Responses backend echoes them in the response object: each function
    tool with ``strict`` as the gateway enforces it (bool) and the ``parameters`` it enforces; other
    tools as sent."""
    out = []
    for t in body.get("tools") if isinstance(body.get("tools"), list) else ():
        if not isinstance(t, dict) or t.get("type", "function") != "function" or not isinstance(t.get("name"), str):
            out.append(t)
            continue
        eff = bool(strict.get(t["name"], False))
        params = t.get("parameters") if isinstance(t.get("parameters"), dict) else {}
        out.append(
            {
                "type": "function",
                "name": t["name"],
                "description": t.get("description"),
                "parameters": enforced_schema(params) if eff else params,
                "strict": eff,
            }
        )
    return out


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def _is_error(text: str) -> bool:
    """DSH hands a thrown error back as ``Error: <message>`` (docs/upstream.md#dsh-runtime-validation)."""
    return (text or "").lstrip().lower().startswith("error")


def decide(persona: str, items: list[dict], tools: list[dict], strict: dict) -> dict:
    """The persona's reply: ``{"type": "call", name, arguments}`` or ``{"type": "text", text}``."""
    last = items[-1] if items else None
    if persona == "gw-vision" and last is not None and last["kind"] in ("user", "output") and last.get("image"):
        return {"type": "text", "text": VISION_REPLY}
    if last is None or last["kind"] != "output":
        tool = next((t for t in tools if t["name"] == "bash"), tools[0] if tools else None)
        if tool is None:
            return {"type": "text", "text": NO_TOOL_REPLY}
        return {
            "type": "call",
            "name": tool["name"],
            "arguments": build_arguments(tool["parameters"], strict.get(tool["name"], False), persona in NULL_FILLERS),
        }
    text = last.get("text") or ""
    if RETRY_MARKER in text and _refusals_this_turn(items) == 1:
        call = next(
            (i for i in reversed(items) if i["kind"] == "call" and i.get("call_id") == last.get("call_id")), None
        )
        name = call.get("name") if call and isinstance(call.get("name"), str) else "bash"
        try:
            args = json.loads(call["arguments"]) if call else None
        except (TypeError, ValueError):
            args = None
        if not isinstance(args, dict):
            tool = next((t for t in tools if t["name"] == name), None)
            args = build_arguments(tool["parameters"] if tool else {}, True)
        args["justification"] = RETRY_JUSTIFICATION
        return {"type": "call", "name": name, "arguments": args}
    wants = _wants_screenshot(items, tools)
    if wants == "named" or (wants == "placeholder" and _is_error(text)):
        # the user's screenshot did not reach the model: read the file, after the listing when the user only
        # named it (DSH's headless app takes text only), once refused when pi-ai dropped the attached image
        return {"type": "call", "name": "read_image", "arguments": {"file_path": SCREENSHOT_PATH}}
    prefix = REFUSED_PREFIX if _is_error(text) else DONE_PREFIX
    return {"type": "text", "text": prefix + _first_line(text)}


def _wants_screenshot(items: list[dict], tools: list[dict]) -> str | None:
    """Why the model should read the screenshot, or None: a user message of this turn lost its image to
    pi-ai's placeholder (``placeholder``), or named the file without attaching it (``named``: DSH's headless
    app takes text only), and read_image was not tried yet.

    Every user message since the last assistant message counts: DSH sends its runtime-context message
    after the task, so the task is not always the latest one."""
    if not any(t["name"] == "read_image" for t in tools):
        return None
    named = False
    for item in reversed(items):
        if item["kind"] == "call" and item.get("name") == "read_image":
            return None
        if item["kind"] == "user":
            text = item.get("text") or ""
            if item.get("image"):
                return None
            if IMAGE_PLACEHOLDER in text:
                return "placeholder"
            named = named or SCREENSHOT_PATH in text
        if item["kind"] == "assistant":
            break
    return "named" if named else None


def _refusals_this_turn(items: list[dict]) -> int:
    """Tool results since the latest user message that carry the justification refusal."""
    n = 0
    for item in reversed(items):
        if item["kind"] == "user":
            break
        if item["kind"] == "output" and RETRY_MARKER in (item.get("text") or ""):
            n += 1
    return n


# --- wire builders ------------------------------------------------------------------------------


def _pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def envelope(message: str, etype: str, code: str | None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": etype, "param": param, "code": code}}


def usage_responses(request: dict, output: list) -> dict:
    i = len(dumps(request)) // 4
    o = max(1, len(dumps(output)) // 4)
    return {
        "input_tokens": i,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": o,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": i + o,
    }


class ResponsesWriter:
    """The Responses events of one reply, as ``(type, payload)`` pairs with sequence numbers."""

    def __init__(self, response: dict):
        self.response = response
        self.frames: list[tuple[str, dict]] = []

    def emit(self, etype: str, **fields) -> None:
        payload = {"type": etype, **fields, "sequence_number": len(self.frames)}
        self.frames.append((etype, payload))

    def snapshot(self, **changes) -> dict:
        return json.loads(dumps({**self.response, **changes}))

    def start(self) -> None:
        self.emit("response.created", response=self.snapshot(status="in_progress", output=[], usage=None))
        self.emit("response.in_progress", response=self.snapshot(status="in_progress", output=[], usage=None))

    def item(self, index: int, item: dict, cut_after_deltas: int | None = None) -> bool:
        """Events of one output item; with ``cut_after_deltas`` stop after that many deltas (True)."""
        if item["type"] == "function_call":
            self.emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for n, piece in enumerate(_pieces(item["arguments"])):
                if cut_after_deltas is not None and n >= cut_after_deltas:
                    return True
                self.emit("response.function_call_arguments.delta", item_id=item["id"], output_index=index, delta=piece)
            if cut_after_deltas is not None:
                return True
            self.emit(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=index,
                name=item["name"],
                arguments=item["arguments"],
            )
            self.emit("response.output_item.done", output_index=index, item=item)
            return False
        text = item["content"][0]["text"]
        self.emit(
            "response.output_item.added", output_index=index, item={**item, "status": "in_progress", "content": []}
        )
        where = {"item_id": item["id"], "output_index": index, "content_index": 0}
        self.emit("response.content_part.added", **where, part={"type": "output_text", "text": "", "annotations": []})
        for n, piece in enumerate(_pieces(text)):
            if cut_after_deltas is not None and n >= cut_after_deltas:
                return True
            self.emit("response.output_text.delta", **where, delta=piece, logprobs=[])
        if cut_after_deltas is not None:
            return True
        self.emit("response.output_text.done", **where, text=text, logprobs=[])
        self.emit("response.content_part.done", **where, part=item["content"][0])
        self.emit("response.output_item.done", output_index=index, item=item)
        return False

    def sse(self) -> list[str]:
        return [f"event: {etype}\ndata: {dumps(payload)}\n\n" for etype, payload in self.frames]


def chat_chunk(base: dict, delta: dict | None, finish=None, **extra) -> dict:
    chunk = {**base, "object": "chat.completion.chunk"}
    chunk["choices"] = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    chunk.update(extra)
    return chunk


# --- server -------------------------------------------------------------------------------------


class GatewayServer(LoggingServer):
    """The lab's logging server with the gateway's state: counters, clock and seeded draws."""

    def __init__(self, port: int, log_path=None, clock=None, seed: int = 7):
        super().__init__(port, GatewayHandler, log_path)
        if isinstance(clock, str):
            clock = parse_iso(clock)
        elif isinstance(clock, datetime):
            clock = (clock if clock.tzinfo else clock.replace(tzinfo=UTC)).timestamp()
        self.clock = Clock(clock, seed)
        self.seed = seed
        self.busy_rng = random.Random(seed)
        self.sometimes_rng = random.Random(f"{seed}:sometimes")  # apart from the busy and clock draws
        self.state_lock = threading.Lock()
        self.counters = {"resp": 0, "chat": 0, "call": 0, "msg": 0}

    def begin(self, behaviour: str | None) -> tuple[int, float]:
        """Number and (clock) start time of a new request.

        The number is the exchange's sequence number, which orders the log (``serving.LoggingServer``);
        taken under the same lock as the clock's tick, so the log's order, its ``req-N`` ids and its
        virtual ``started_at`` times always agree."""
        with self.state_lock:
            return self.exchange_started(), self.clock.tick(behaviour)

    def next_id(self, kind: str) -> int:
        with self.state_lock:
            self.counters[kind] += 1
            return self.counters[kind]

    def sometimes_fills(self) -> bool:
        """gw-sometimes: whether this request's answer gives in to strict (one seeded draw)."""
        with self.state_lock:
            draw = self.sometimes_rng.random()
        return draw < SOMETIMES_P

    def busy_outcome(self) -> str:
        with self.state_lock:
            draw = self.busy_rng.random()
        return next(name for name, upper in BUSY_TABLE if draw < upper)


def make_server(port: int, log_path=None, clock=None, seed: int = 7) -> GatewayServer:
    """A bound, not yet serving gateway on 127.0.0.1 (``.server_port``); call ``serve_forever``."""
    return GatewayServer(port, log_path=log_path, clock=clock, seed=seed)


class _Exchange:
    """What one request/response pair becomes in the log."""

    def __init__(self):
        self.log_id: str | None = None
        self.status: int | None = None
        self.headers: dict = {}
        self.body = None
        self.frames = 0
        self.gateway = {"behaviour": None, "persona": None, "strict": {}, "outcome": None}


class GatewayHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "incident-lab-gateway/1"
    timeout = 30  # an idle keep-alive connection ends after this many seconds

    # -- plumbing --

    def send_response(self, code, message=None):
        """No ``Server``/``Date`` headers, so the logged response headers are reproducible."""
        self.log_request(code)
        self.send_response_only(code, message)

    def log_message(self, format, *args):  # quiet: the JSONL log is the record
        pass

    def do_GET(self):
        self._handle()

    def do_POST(self):
        self._handle()

    do_PUT = do_DELETE = do_PATCH = do_POST

    def _handle(self):
        real_start = time.monotonic()
        path = self.path.split("?", 1)[0]
        segments = [s for s in path.split("/") if s]
        behaviour = segments[0] if segments else None
        srv: GatewayServer = self.server
        req_no, started = srv.begin(behaviour if behaviour in BEHAVIOURS else None)
        self._req_no = req_no
        ex = _Exchange()
        ex.gateway["behaviour"] = behaviour
        req_headers: dict = {}
        request_body = None
        try:
            for name, value in self.headers.items():
                key = name.lower()
                req_headers[key] = (
                    value
                    if key not in req_headers
                    else ((req_headers[key] if isinstance(req_headers[key], list) else [req_headers[key]]) + [value])
                )
            try:
                raw = decode_content(read_body(self), self.headers.get("content-encoding"))
            except (ValueError, OSError, EOFError) as exc:  # bad framing or Content-Encoding
                self.close_connection = True
                return self._error(
                    ex,
                    400,
                    "bad-request",
                    f"We could not read the body of your request: {exc}",
                    "invalid_request_error",
                    "invalid_body",
                )
            request_body = self._body_for_log(raw)
            self._route(ex, behaviour, "/".join(segments[1:]), raw, started)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception:  # never let a bug take the server thread down
            traceback.print_exc(file=sys.stderr)
            self.close_connection = True
            if ex.status is None:
                try:
                    self._senddumps(ex, 500, envelope(SERVER_ERROR_MESSAGE, "server_error", "server_error"))
                    ex.gateway["outcome"] = "server-error"
                except OSError:
                    pass
        finally:
            ex.log_id = ex.log_id or f"req-{req_no}"
            srv.exchange_finished(
                req_no,
                {
                    "id": ex.log_id,
                    "started_at": iso(started),
                    "duration_ms": srv.clock.duration_ms(real_start, ex.frames),
                    "request": {
                        "method": self.command,
                        "url": f"http://{HOST}:{srv.server_port}{self.path}",
                        "headers": req_headers,
                        "body": request_body,
                    },
                    "response": {"status": ex.status, "headers": ex.headers, "body": ex.body},
                    "gateway": ex.gateway,
                },
            )

    @staticmethod
    def _body_for_log(raw: bytes):
        if not raw:
            return None
        text = raw.decode("utf-8", errors="replace")
        try:
            return json.loads(text)
        except ValueError:
            return text

    def _senddumps(self, ex: _Exchange, status: int, obj: dict, headers: dict | None = None) -> None:
        data = dumps(obj).encode("utf-8")
        hdrs = {"content-type": "application/json", "content-length": str(len(data)), **(headers or {})}
        self._start(ex, status, hdrs)
        self.wfile.write(data)
        self.wfile.flush()
        ex.body, ex.frames = obj, 1

    def _start(self, ex: _Exchange, status: int, headers: dict) -> None:
        headers = {**headers, "x-request-id": f"req_{self._req_no:04d}"}
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        ex.status, ex.headers = status, headers

    def _send_stream(self, ex: _Exchange, frames: list[str]) -> None:
        """Write SSE frames one by one (a flush and a short pause each), then close the connection."""
        self.close_connection = True
        self._start(
            ex,
            200,
            {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "connection": "close"},
        )
        pause = min(FRAME_SLEEP_S, FRAME_BUDGET_S / max(len(frames), 1))
        sent = []
        try:
            for n, frame in enumerate(frames):
                if n:
                    time.sleep(pause)
                self.wfile.write(frame.encode("utf-8"))
                self.wfile.flush()
                sent.append(frame)
        finally:
            ex.body, ex.frames = "".join(sent), len(sent)

    def _error(
        self, ex: _Exchange, status: int, outcome: str, message: str, etype: str, code, param=None, headers=None
    ) -> None:
        ex.gateway["outcome"] = outcome
        self._senddumps(ex, status, envelope(message, etype, code, param), headers)

    # -- routing --

    def _route(self, ex: _Exchange, behaviour, rest: str, raw: bytes, started: float) -> None:
        method = self.command
        if behaviour not in BEHAVIOURS:
            known = ", ".join(BEHAVIOURS)
            return self._error(
                ex,
                404,
                "not-found",
                f"Unknown behaviour {behaviour!r} in {method} {self.path}; known behaviours: {known}.",
                "invalid_request_error",
                "unknown_url",
            )
        apis = {"v1/responses": "responses", "codex/responses": "responses", "v1/chat/completions": "chat"}
        head, _, tail = rest.partition("/")
        if rest.rstrip("/") not in apis and tail.rstrip("/") in apis | {"v1/models": None}:
            ex.gateway["route"] = head  # `/<behaviour>/<route>/v1/...`: a tenant or route prefix, as gateways use
            rest = tail
        api = apis.get(rest.rstrip("/"))
        if method == "GET" and rest.rstrip("/") == "v1/models":
            ex.gateway["outcome"] = "ok"
            data = [{"id": m, "object": "model", "created": int(started), "owned_by": "incident-lab"} for m in PERSONAS]
            return self._senddumps(ex, 200, {"object": "list", "data": data})
        if api is None or method != "POST":
            return self._error(
                ex, 404, "not-found", f"Invalid URL ({method} {self.path})", "invalid_request_error", "unknown_url"
            )
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return self._error(
                ex,
                400,
                "bad-request",
                f"We could not parse the JSON body of your request: {exc}",
                "invalid_request_error",
                "invalid_json",
            )
        if not isinstance(body, dict):
            return self._error(
                ex,
                400,
                "bad-request",
                "The request body must be a JSON object.",
                "invalid_request_error",
                "invalid_json",
            )
        self._generate(ex, behaviour, api, body, started)

    def _generate(self, ex: _Exchange, behaviour: str, api: str, body: dict, started: float) -> None:
        srv: GatewayServer = self.server
        model = body.get("model") if isinstance(body.get("model"), str) else DEFAULT_PERSONA
        persona = persona_for(model)
        tools = tool_entries(api, body)
        strict_b = "absent-is-strict" if behaviour == "busy" else behaviour
        strict = {t["name"]: effective_strict(strict_b, api, t["strict"]) for t in tools}
        ex.gateway.update(persona=persona, strict=strict)

        outcome = {"rate-limit": "rate-limited", "cut-stream": "cut", "fail": "failed"}.get(behaviour, "ok")
        if behaviour == "busy":
            outcome = srv.busy_outcome()
        image_param = first_image_param(api, body)
        refuse_images = behaviour == "no-images" or (behaviour == "busy" and "text" in model)
        if outcome == "rate-limited":
            return self._error(
                ex,
                429,
                outcome,
                f"Rate limit reached for {model}. Please try again in 1s.",
                "requests",
                "rate_limit_exceeded",
                headers=RATE_LIMIT_HEADERS,
            )
        if refuse_images and image_param is not None:
            return self._error(
                ex,
                400,
                "image-refused",
                f"Image input is not supported by model {model} on this gateway.",
                "invalid_request_error",
                "unsupported_image_input",
                param=image_param,
            )
        if outcome == "server-error":
            return self._error(ex, 500, outcome, SERVER_ERROR_MESSAGE, "server_error", "server_error")
        ex.gateway["outcome"] = outcome
        shaped_by = strict
        if persona in STOCHASTIC_PERSONAS:
            fills = srv.sometimes_fills()
            ex.gateway["fills_optional"] = fills
            if not fills:  # this time the model sends the required properties only, as without strict
                shaped_by = {name: False for name in strict}
        reply = decide(persona, conversation(api, body), tools, shaped_by)
        stream = body.get("stream") is True
        if api == "responses":
            self._responses(ex, body, model, reply, outcome, stream, started)
        else:
            self._chat(ex, body, model, reply, outcome, stream, started)

    # -- Responses --

    def _responses(self, ex, body, model, reply, outcome, stream, started) -> None:
        srv: GatewayServer = self.server
        resp_id = f"resp_{srv.next_id('resp'):04d}"
        ex.log_id = resp_id
        response = {
            "id": resp_id,
            "object": "response",
            "created_at": int(started),
            "status": "in_progress",
            "error": None,
            "incomplete_details": None,
            "model": model,
            "output": [],
            "tools": echo_tools(body, ex.gateway["strict"]),
            "usage": None,
        }
        w = ResponsesWriter(response)
        if outcome == "failed":
            failed = w.snapshot(status="failed", error=FAILED_ERROR)
            if not stream:
                return self._senddumps(ex, 200, failed)
            w.start()
            w.emit("response.failed", response=failed)
            return self._send_stream(ex, w.sse())
        item = self._output_item(reply)
        final = w.snapshot(status="completed", output=[item], usage=usage_responses(body, [item]))
        if not stream:
            if outcome == "cut":
                return self._send_cutdumps(ex, final)
            return self._senddumps(ex, 200, final)
        w.start()
        if w.item(0, item, cut_after_deltas=2 if outcome == "cut" else None):
            return self._send_stream(ex, w.sse())
        w.emit("response.completed", response=final)
        self._send_stream(ex, w.sse())

    def _output_item(self, reply: dict) -> dict:
        srv: GatewayServer = self.server
        if reply["type"] == "call":
            n = srv.next_id("call")
            return {
                "id": f"fc_{n:04d}",
                "type": "function_call",
                "status": "completed",
                "arguments": dumps(reply["arguments"]),
                "call_id": f"call_{n:04d}",
                "name": reply["name"],
            }
        return {
            "id": f"msg_{srv.next_id('msg'):04d}",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": reply["text"], "annotations": []}],
        }

    def _send_cutdumps(self, ex: _Exchange, obj: dict) -> None:
        """A JSON body cut in half: the declared length is never reached and the connection closes."""
        data = dumps(obj).encode("utf-8")
        self.close_connection = True
        self._start(ex, 200, {"content-type": "application/json", "content-length": str(len(data))})
        part = data[: len(data) // 2]
        self.wfile.write(part)
        self.wfile.flush()
        ex.body, ex.frames = part.decode("utf-8", errors="replace"), 1

    # -- Chat Completions --

    def _chat(self, ex, body, model, reply, outcome, stream, started) -> None:
        srv: GatewayServer = self.server
        chat_id = f"chatcmpl-{srv.next_id('chat'):04d}"
        ex.log_id = chat_id
        base = {"id": chat_id, "object": "chat.completion", "created": int(started), "model": model}
        if outcome == "failed" and not stream:
            return self._error(ex, 500, "failed", FAILED_ERROR["message"], "server_error", "server_error")
        call = None
        if reply["type"] == "call":
            n = srv.next_id("call")
            call = {
                "id": f"call_{n:04d}",
                "type": "function",
                "function": {"name": reply["name"], "arguments": dumps(reply["arguments"])},
            }
        prompt = len(dumps(body)) // 4
        completion = max(1, len(dumps(call if call else reply["text"])) // 4)
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        finish = "tool_calls" if call else "stop"
        if not stream:
            message = {"role": "assistant", "content": None if call else reply["text"]}
            if call:
                message["tool_calls"] = [call]
            obj = {**base, "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}
            return self._send_cutdumps(ex, obj) if outcome == "cut" else self._senddumps(ex, 200, obj)
        chunks: list[dict] = []
        if outcome == "failed":
            chunks.append(chat_chunk(base, {"role": "assistant", "content": ""}))
            frames = [f"data: {dumps(c)}\n\n" for c in chunks]
            frames.append(f"data: {dumps(envelope(FAILED_ERROR['message'], 'server_error', 'server_error'))}\n\n")
            return self._send_stream(ex, frames)
        cut = outcome == "cut"
        if call:
            first = {
                "index": 0,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""},
            }
            chunks.append(chat_chunk(base, {"role": "assistant", "content": None, "tool_calls": [first]}))
            pieces = _pieces(call["function"]["arguments"])
            for piece in pieces[:2] if cut else pieces:
                chunks.append(chat_chunk(base, {"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        else:
            chunks.append(chat_chunk(base, {"role": "assistant", "content": ""}))
            pieces = _pieces(reply["text"])
            for piece in pieces[:2] if cut else pieces:
                chunks.append(chat_chunk(base, {"content": piece}))
        frames = [f"data: {dumps(c)}\n\n" for c in chunks]
        if not cut:
            frames.append(f"data: {dumps(chat_chunk(base, {}, finish))}\n\n")
            opts = body.get("stream_options")
            if isinstance(opts, dict) and opts.get("include_usage"):
                frames.append(f"data: {dumps(chat_chunk(base, None, usage=usage))}\n\n")
            frames.append("data: [DONE]\n\n")
        self._send_stream(ex, frames)


# --- command line -------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Stub upstream gateway of the incident lab (127.0.0.1 only).")
    parser.add_argument("--port", type=int, required=True, help="port on 127.0.0.1; 0 picks a free one")
    parser.add_argument("--log", help="append one JSON line per exchange to this file")
    parser.add_argument("--clock", help="virtual clock start, ISO 8601 (e.g. 2026-11-30T00:00:00Z)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the busy draws and the virtual clock")
    args = parser.parse_args(argv)
    if args.clock:
        try:
            parse_iso(args.clock)
        except ValueError:
            parser.error(f"--clock {args.clock!r} is not ISO 8601")
    return make_server(args.port, log_path=args.log, clock=args.clock, seed=args.seed).serve_until_signalled()


if __name__ == "__main__":
    sys.exit(main())
