"""The typed records every decoder yields and every reader hands to the capture builder.

Plain slotted dataclasses, so that a decoder can be tested without pandas and the builder can turn
lists of them into DataFrames with fixed dtypes (``toolkit.capture.frames``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ADDITIONAL_PROPERTIES",
    "STRICT_STATES",
    "TERMINALS",
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
]

# Small vocabularies, fixed so that filters and plots are predictable.
WIRE_APIS = ("responses", "chat", "other")  # which OpenAI wire API an exchange speaks
TERMINALS = ("completed", "incomplete", "failed", "cut", "http-error")
STRICT_STATES = ("absent", "null", "false", "true")
ADDITIONAL_PROPERTIES = ("absent", "true", "false", "schema")  # a tool schema's additionalProperties


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

    kind: str
    message: str


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
    kind: str
    message: str
    exchange_id: str | None = None


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
    """What DSH told the model a tool call returned."""

    exchange_id: str | None
    call_id: str | None
    is_error: bool | None
    text: str
    error_name: str | None = None
    error_code: str | None = None
    turn: int | None = None
    step: int | None = None


@dataclass(slots=True)
class EntryCount:
    """Emitted once by each reader at the end: how many entries (HAR entries, JSONL lines, session
    lines) it saw, so the builder can prove every one became a row or a problem."""

    source: str
    unit: str  # "entry", "line", "stream"
    entries: int
