"""Every capture format the toolkit reads, declared once: detection, ``format=``, the CLI and the docs use it.

A reader is a module in ``toolkit.sources`` with two functions:

- ``recognize(head: bytes) -> bool``: whether the start of a file's content is this format. ``head`` is
  the first ``HEAD_BYTES`` of the content (through zstd, gzip or zlib), without a BOM and leading white
  space. It must be cheap and must not raise.
- ``read(path, source) -> Iterator[Record]``: the records, ending with one ``EntryCount``.

Formats are tried in the order below, the most specific first; adding a reader is one entry here and
its module (``tests/test_registry.py`` checks that every entry has both functions, an example file
that it recognises and reads, and a row in the README's format table).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from toolkit.errors import InputError

__all__ = ["FORMATS", "NAMES", "Format", "get", "recognize"]


@dataclass(frozen=True)
class Format:
    """One capture format: its name for ``format=``, its reader module, and what writes it."""

    name: str
    module: str  # the module in toolkit.sources holding recognize() and read()
    what: str  # one line: what the file holds
    written_by: str  # the programs that write it
    example: str  # an example file, relative to the repository (tests read it)
    noun: str  # what a person calls one ("a HAR capture"): the words of a refusal that names the file

    def reader(self) -> Callable[[Path, str], Iterator[Any]]:
        read: Callable[[Path, str], Iterator[Any]] = import_module(f"toolkit.sources.{self.module}").read
        return read

    def recognizes(self, head: bytes) -> bool:
        return bool(import_module(f"toolkit.sources.{self.module}").recognize(head))


FORMATS: tuple[Format, ...] = (
    Format(
        "mitm",
        "mitm",
        "mitmproxy flow files (tnetstring flow states, formats 7 to 21; older states migrated step by step)",
        "mitmproxy / mitmdump -w (3.x to 12.x)",
        "data/before-fix/capture.mitm",
        noun="a mitmproxy flow file",
    ),
    Format(
        "har",
        "har",
        "HAR 1.2: one entry per HTTP exchange",
        "mitmproxy hardump, Chrome, Firefox, Safari, HTTP Toolkit, Charles",
        "data/before-fix/capture.har",
        noun="a HAR capture",
    ),
    Format(
        "dsh-session",
        "dsh_session",
        "DSH session logs (V0 with packed rows, V3, V4), one event per line",
        "DeepSeek Harness (session.jsonl, session.jsonl.zstd)",
        "data/dsh-before-fix/session.jsonl.zstd",
        noun="a DSH session log",
    ),
    Format(
        "codex-rollout",
        "codex_rollout",
        "Codex CLI rollout files: model turns, tool calls and outputs, sandbox and approval policy",
        "OpenAI Codex CLI (~/.codex/sessions/**/rollout-*.jsonl)",
        "tests/fixtures/codex/real-0.171.0-danger-full-access.jsonl",
        noun="a Codex CLI rollout (session log)",
    ),
    Format(
        "sse-chunks",
        "sse_chunks",
        "SDK stream fixtures: one SSE payload object per line, no data: prefix, one or more responses",
        "SDK test suites (*.chunks.txt: Responses events, chat.completion.chunk payloads)",
        "tests/fixtures/sse-chunks/responses_two.chunks.txt",
        noun="an SDK stream fixture",
    ),
    Format(
        "jsonl",
        "jsonl",
        "exchange logs, one request and its response per line",
        "the toolkit's own shape, LiteLLM spend logs, Helicone exports, the lab gateway",
        "data/before-fix/gateway.jsonl",
        noun="a JSONL exchange log",
    ),
    Format(
        "response-body",
        "response_body",
        "a bare Responses or Chat Completions JSON response body (one response, no request)",
        "SDK test fixtures, curl -o, saved API responses",
        "tests/fixtures/response-body/responses_function_call.json",
        noun="a saved response body",
    ),
    Format(
        "httprr",
        "httprr",
        "httprr traces: length-prefixed raw HTTP/1.1 request and response pairs",
        "Go tests using rsc.io/httprr or golang.org/x/oscar internal/httprr (*.httprr, *.httprr.gz)",
        "tests/fixtures/httprr/lab_variants.httprr",
        noun="an httprr trace",
    ),
    Format(
        "go-vcr",
        "cassettes.go_vcr",
        "go-vcr cassettes, format version 2 (YAML: interactions with duration)",
        "Go tests using gopkg.in/dnaeon/go-vcr.v2 and later (v3, v4)",
        "tests/fixtures/go-vcr/openai.yaml",
        noun="a go-vcr cassette",
    ),
    Format(
        "vcr",
        "cassettes.vcr",
        "VCR.py cassettes (YAML interactions, version 1; .yaml.gz; pydantic-ai's parsed_body)",
        "Python tests using vcrpy, pytest-recording, pytest-vcr",
        "tests/fixtures/vcr/openai_raw.yaml",
        noun="a VCR.py cassette",
    ),
    Format(
        "ruby-vcr",
        "cassettes.ruby_vcr",
        "Ruby VCR cassettes (YAML http_interactions, recorded_at)",
        "Ruby tests using the vcr gem",
        "tests/fixtures/ruby-vcr/openai.yaml",
        noun="a Ruby VCR cassette",
    ),
    Format(
        "sse",
        "sse_file",
        "a saved text/event-stream body (Responses, Chat Completions or Anthropic Messages)",
        "curl -N, browser devtools, SDK debug logs",
        "tests/fixtures/sse/responses_function_call.sse",
        noun="a saved event stream",
    ),
)

NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)
_BY_NAME = {f.name: f for f in FORMATS}


def get(name: str) -> Format:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise InputError(f"unknown format {name!r}; choose one of {', '.join(NAMES)}") from None


def recognize(head: bytes) -> str | None:
    """The name of the first format whose reader recognises ``head``, or None."""
    for fmt in FORMATS:
        if fmt.recognizes(head):
            return fmt.name
    return None
