"""The typed records every decoder yields and every reader hands to the capture builder.

Plain slotted dataclasses, so that a decoder can be tested without pandas and the builder can turn
lists of them into DataFrames with fixed dtypes (``toolkit.capture.frames``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ADDITIONAL_PROPERTIES",
    "BAD_BASE64",
    "BAD_BODY",
    "BAD_COMPRESSION",
    "BAD_ENTRY",
    "BAD_FIELD",
    "BAD_UTF8",
    "BODY_MISSING",
    "BODY_TOO_LARGE",
    "BODY_TRUNCATED",
    "CALL_ARGUMENTS",
    "CALL_NOT_DISPATCHED",
    "DECODER",
    "ENTRY_PLACE",
    "FINISH_REASON",
    "FLOW_ERROR",
    "GATEWAY_FAILURE",
    "NOT_HTTP",
    "NO_RESPONSE",
    "PACKED_CHUNKS",
    "PLACEHOLDER",
    "PROBLEM_KINDS",
    "REQUEST_BODY",
    "RESPONSE_BODY",
    "RETRIED",
    "SSE_CALL",
    "SSE_FRAME",
    "SSE_ORDER",
    "STEP_REOPENED",
    "STREAM_CUT",
    "STRICT_STATES",
    "TERMINALS",
    "TOOL_NAMES_ONLY",
    "UNKNOWN_SHAPE",
    "WIRE_APIS",
    "Call",
    "Decoded",
    "EntryCount",
    "Event",
    "Exchange",
    "Header",
    "InputPart",
    "Issue",
    "Problem",
    "Tool",
    "ToolResult",
    "names_entry",
]

# Small vocabularies, fixed so that filters and plots are predictable.
WIRE_APIS = ("responses", "chat", "messages", "other")  # OpenAI Responses, Chat Completions, Anthropic Messages
TERMINALS = ("completed", "incomplete", "failed", "cut", "http-error")
STRICT_STATES = ("absent", "null", "false", "true")
ADDITIONAL_PROPERTIES = ("absent", "true", "false", "schema")  # a tool schema's additionalProperties

# The problem kinds: one name per fault, whichever reader or decoder meets it (``problems.kind`` is a
# categorical of exactly these; the README's "Bad input" table lists them with these meanings).
# Entries lost whole (the problem row has no exchange_id):
BAD_ENTRY = "bad-entry"
UNKNOWN_SHAPE = "unknown-shape"
NOT_HTTP = "not-http"
DECODER = "decoder"
# Bodies:
BODY_MISSING = "body-missing"
BODY_TRUNCATED = "body-truncated"
BODY_TOO_LARGE = "body-too-large"
BAD_BODY = "bad-body"
BAD_BASE64 = "bad-base64"
BAD_COMPRESSION = "bad-compression"
BAD_UTF8 = "bad-utf8"
REQUEST_BODY = "request-body"
RESPONSE_BODY = "response-body"
NO_RESPONSE = "no-response"
# Fields of an entry:
BAD_FIELD = "bad-field"
# Streams:
SSE_FRAME = "sse-frame"
SSE_ORDER = "sse-order"
SSE_CALL = "sse-call"
STREAM_CUT = "stream-cut"
CALL_ARGUMENTS = "call-arguments"
FINISH_REASON = "finish-reason"
# What the recorder, the gateway or the agent logged as a failure:
FLOW_ERROR = "flow-error"
GATEWAY_FAILURE = "gateway-failure"
RETRIED = "retried"
# DSH session logs:
PACKED_CHUNKS = "packed-chunks"
STEP_REOPENED = "step-reopened"
PLACEHOLDER = "placeholder"
TOOL_NAMES_ONLY = "tool-names-only"
CALL_NOT_DISPATCHED = "call-not-dispatched"

#: Every problem kind with its one-line meaning.
PROBLEM_KINDS: dict[str, str] = {
    BAD_ENTRY: "an entry (HAR entry, JSONL or session line, flow) that is not readable: not JSON, not an object, "
    "no request, cut off; the entry is lost",
    UNKNOWN_SHAPE: "a JSON object of no shape the reader knows; the entry is lost",
    NOT_HTTP: "a recorded flow that is not an HTTP exchange (TCP, UDP, DNS); the entry is lost",
    DECODER: "a toolkit bug met while reading an entry, caught so that the rest of the capture is read",
    BODY_MISSING: "a body the capture does not hold: not recorded, streamed and not kept, discarded by the "
    "recorder, not stored by the gateway, or empty",
    BODY_TRUNCATED: "the capture holds only part of a body (the recorder or gateway cut it)",
    BODY_TOO_LARGE: "a body that is, or inflates to, more than the decoded-body cap",
    BAD_BODY: "a body held in a form that is not a body (a number or object where text was expected)",
    BAD_BASE64: "a body marked base64 that is not valid base64",
    BAD_COMPRESSION: "compressed bytes (Content-Encoding, or a compressed file) that do not decompress",
    BAD_UTF8: "bytes that are not UTF-8 in a text body or line; read with U+FFFD in their place, the message "
    "gives the first bad byte's offset",
    REQUEST_BODY: "a request body that is not strict JSON (NaN and Infinity are not JSON) or not its API's shape",
    RESPONSE_BODY: "a response body that is not strict JSON or not its API's shape",
    NO_RESPONSE: "no HTTP response was received (status 0)",
    BAD_FIELD: "an entry's field (time, number, status, URL, headers) whose value cannot be read; its column is empty",
    SSE_FRAME: "a server-sent event whose data is not a JSON object, or a frame the stream ended inside",
    SSE_ORDER: "stream events out of sequence_number order",
    SSE_CALL: "stream events of a function call that do not fit together (unknown item, changed id or name)",
    STREAM_CUT: "a stream that ended without its terminal event",
    CALL_ARGUMENTS: "a call's arguments told differently by the events of one stream",
    FINISH_REASON: "a finish or turn-end reason the toolkit does not know, or none where one is due",
    FLOW_ERROR: "the recorder logged an error for the exchange (connection reset, timeout)",
    GATEWAY_FAILURE: "the gateway logged the call as a failure",
    RETRIED: "an agent step's attempt failed and the step was retried",
    PACKED_CHUNKS: "DSH chunk rows (packed, or embedded in a message) that do not unpack",
    STEP_REOPENED: "DSH events for a step after the step was closed",
    PLACEHOLDER: "a DSH request header holding placeholder tools instead of the advertised schemas",
    TOOL_NAMES_ONLY: "a DSH request header listing tool names without their schemas",
    CALL_NOT_DISPATCHED: "a call in the model's output that DSH never dispatched (no tool/call event)",
}


def _check_kind(kind: str) -> None:
    if kind not in PROBLEM_KINDS:  # a reader bug: every kind is in the one vocabulary
        raise ValueError(f"problem kind {kind!r} is not in PROBLEM_KINDS")


@dataclass(slots=True)
class Exchange:
    """One HTTP exchange, or one logged model turn (DSH session step)."""

    exchange_id: str
    source: str
    location: str  # where in the source: "entry 3", "line 17", "byte 0"
    started_at: float | None = None  # epoch seconds, UTC
    method: str | None = None
    url: str | None = None
    host: str | None = None
    path: str | None = None
    api: str = "other"
    model: str | None = None
    stream: bool | None = None
    status: int | None = None
    duration_ms: float | None = None
    request_bytes: int | None = None
    response_bytes: int | None = None
    terminal: str | None = None
    error_type: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    provider: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None  # DSH logs these apart from input_tokens (not included)
    reasoning_tokens: int | None = None  # as logged (DSH reasoningTokens); not added to output_tokens
    log_id: str | None = None  # the id the log itself gave the entry (LiteLLM/Helicone request_id)
    # how close the bodies are to the bytes on the wire: "wire" (as sent), "json" (the same JSON
    # value, re-serialised), "normalised" (a gateway's own rendering, e.g. LiteLLM spend logs)
    body_fidelity: str | None = None


@dataclass(slots=True)
class Tool:
    """A tool definition as it appeared in one request; ``parameters`` is the JSON schema."""

    name: str | None
    strict_state: str  # one of STRICT_STATES; absent and null are different facts
    parameters: Any = None
    description: str | None = None
    kind: str = "function"


@dataclass(slots=True)
class Call:
    """A function call the model made, reassembled as a client would."""

    call_id: str | None
    item_id: str | None
    name: str | None
    arguments_raw: str | None
    arguments: dict[str, Any] | None = None
    parse_error: str | None = None
    complete: bool = True  # False when the stream was cut before the call finished


@dataclass(slots=True)
class InputPart:
    """One content part of the request input (never the image bytes themselves)."""

    item_index: int
    part_index: int
    role: str | None
    item_type: str  # message, function_call, function_call_output, ...
    part_type: str  # input_text, input_image, output_text, text, image_url, ...
    media_type: str | None = None
    byte_size: int | None = None
    text: str | None = None
    image_dropped: bool = False  # the text is pi-ai's "image omitted" placeholder
    call_id: str | None = None  # function_call / function_call_output rows: joins a call to its result
    name: str | None = None  # function_call rows: the tool name


@dataclass(slots=True)
class Header:
    direction: str  # request / response
    name: str
    value: str


@dataclass(slots=True)
class Issue:
    """Something inside an otherwise readable exchange that could not be read."""

    kind: str  # one of PROBLEM_KINDS
    message: str

    def __post_init__(self) -> None:
        _check_kind(self.kind)


@dataclass(slots=True)
class Decoded:
    """Everything one exchange yields: the row itself plus its child rows."""

    exchange: Exchange
    tools: list[Tool] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    inputs: list[InputPart] = field(default_factory=list)
    headers: list[Header] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)
    # epoch seconds at which each response chunk arrived, when the capture kept them (the
    # mitmproxy tee addon's ``flow.metadata["sse_chunk_times"]``); empty otherwise
    chunk_times: list[float] = field(default_factory=list)
    request: Any = None  # the parsed request body (kept in frames only with ``keep_bodies``)
    # the tools a Responses backend echoed in its response object, as it reads them (strict normalised)
    echoed_tools: list[Any] | None = None


@dataclass(slots=True)
class Problem:
    """An entry (or part of one) that could not be read. ``exchange_id`` is None when the whole
    entry was lost, so that entries == exchanges + lost entries always reconciles."""

    source: str
    location: str
    kind: str  # one of PROBLEM_KINDS
    message: str
    exchange_id: str | None = None

    def __post_init__(self) -> None:
        _check_kind(self.kind)


@dataclass(slots=True)
class Event:
    """One DSH session event (after unpacking ``*-chunks`` rows)."""

    source: str
    location: str
    type: str
    seq: int | None
    time: float | None  # epoch seconds
    turn: int | None
    step: int | None
    payload: Any
    exchange_id: str | None = None
    packed: str | None = None  # the packed row type ("tool-call-chunks", ...) this member came from
    member: int | None = None  # k: the member's index inside that packed row


@dataclass(slots=True)
class ToolResult:
    """What the agent (DSH, Codex) told the model a tool call returned. ``source`` and ``location`` say where
    it was read, so that a value of it that does not fit its column is a problem row at that place."""

    exchange_id: str | None
    call_id: str | None
    is_error: bool | None
    text: str
    error_name: str | None = None
    error_code: str | None = None
    turn: int | None = None
    step: int | None = None
    source: str | None = None
    location: str | None = None


@dataclass(slots=True)
class EntryCount:
    """Emitted once by each reader at the end: how many entries (HAR entries, JSONL lines, session
    lines) it saw, so the builder can prove every one became a row or a problem."""

    source: str
    unit: str  # "entry", "line", "stream"
    entries: int


#: The first word of an entry's location, by ``EntryCount.unit`` where it is not the unit itself: a response of
#: a chunk log is found at the ``line`` it starts on. A unit whose file holds one entry (a stream, a body) has
#: ``None``: any place in the file is in that entry.
ENTRY_PLACE: dict[str, str | None] = {"response": "line", "stream": None, "body": None}


def names_entry(location: str, unit: str) -> bool:
    """Whether a problem's ``location`` is one of the source's entries (``entry 3`` of a HAR entries' count) rather
    than a place in the file outside any entry (``byte 51 200`` where a HAR was cut): only a problem at an entry
    accounts for a lost entry when the counts are reconciled."""
    word = ENTRY_PLACE.get(unit, unit)
    return word is None or location.split(" ", 1)[0] == word
