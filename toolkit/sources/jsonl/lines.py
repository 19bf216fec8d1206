"""The line-streaming half of the JSONL reader: open (through compression), split, parse, dispatch by shape."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterable, Iterator
from os import PathLike
from typing import Any

import orjson

from toolkit.errors import CaptureError
from toolkit.sources import inflate
from toolkit.sources.jsonl import canonical, flat, helicone, litellm, litellm_payload
from toolkit.sources.jsonl.entry import Entry, to_decoded
from toolkit.wire.json_text import json_kind, loads
from toolkit.wire.records import BAD_ENTRY, BAD_UTF8, DECODER, UNKNOWN_SHAPE, Decoded, EntryCount, Issue, Problem

__all__ = ["read", "recognizes", "records"]

_BOM = b"\xef\xbb\xbf"
_Stream = io.BufferedReader
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

#: (recogniser, reader) per shape, in the order they are tried.
_SHAPES: tuple[tuple[Callable[[dict[str, Any]], bool], Callable[[dict[str, Any]], Entry]], ...] = (
    (canonical.matches, canonical.entry),
    (flat.matches, flat.entry),
    (helicone.matches, helicone.entry),
    (litellm.matches, litellm.entry),
    (litellm_payload.matches, litellm_payload.entry),
)


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    """Yield one ``Decoded`` or ``Problem`` per non-blank line, then ``EntryCount``."""
    f = _open(path)
    with f:
        held: list[Problem] = []  # bad lines before the first good one (the file may be no JSONL)
        counted = [0]
        yield from records(_with_offsets(_numbered_lines(f, path)), source, counted, held)
        if held:
            first = held[0]
            raise CaptureError(
                path,
                f"not a JSONL file: no line parses as JSON ({first.message})",
                location=first.location,
            )
        yield EntryCount(source, "line", counted[0])


def records(
    lines: Iterable[tuple[int, int, bytes]], source: str, counted: list[int], held: list[Problem] | None = None
) -> Iterator[Decoded | Problem]:
    """The record of each non-blank (line number, byte offset, raw line); ``counted[0]`` counts them.
    With ``held``, bad lines before the first good one wait there (the caller decides, at the end,
    whether the file was JSONL at all) and are yielded when a good line comes."""
    for line_no, start, raw in lines:
        if line_no == 1 and raw.startswith(_BOM):
            raw, start = raw[len(_BOM) :], start + len(_BOM)
        if not raw.strip():
            continue
        counted[0] += 1
        obj, problem, bad_text = _parse_line(raw, line_no, start, source)
        if problem is not None:
            if held is None:
                yield problem
            else:
                held.append(problem)
            continue
        if held:
            yield from held
            held.clear()
        held = None
        record = _entry_record(obj, source, line_no)
        if bad_text is not None and isinstance(record, Decoded):
            record.issues.insert(0, bad_text)
        yield record


def _with_offsets(lines: Iterable[tuple[int, bytes]]) -> Iterator[tuple[int, int, bytes]]:
    offset = 0
    for line_no, raw in lines:
        yield line_no, offset, raw
        offset += len(raw)


def recognizes(obj: Any) -> bool:
    """Whether one parsed line has one of the exchange shapes this reader takes."""
    return isinstance(obj, dict) and any(matches(obj) for matches, _ in _SHAPES)


def _open(path: str | PathLike[str]) -> _Stream:
    """The file as a binary stream of lines, through gzip or zstd compression (sniffed), within
    ``inflate``'s ratio cap."""
    try:
        f = open(path, "rb")
        magic = f.read(4)
        f.seek(0)
        size = os.fstat(f.fileno()).st_size
    except OSError as exc:
        raise CaptureError(path, f"cannot open: {exc.strerror or exc}") from None
    if magic[:2] == b"\x1f\x8b":
        return inflate.open_stream(f, "gzip", path, size)
    if magic == _ZSTD_MAGIC:
        return inflate.open_stream(f, "zstd", path, size)
    return f


def _numbered_lines(f: _Stream, path: str | PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line); a corrupt compressed tail ends the file with a CaptureError, and so
    does a line longer than ``inflate.MAX_LINE_BYTES`` or output past the inflation caps."""
    line_no = 0
    while True:
        try:
            raw = f.readline(inflate.MAX_LINE_BYTES + 1)
        except CaptureError:
            raise
        except Exception as exc:  # gzip/zstd corruption (OSError, EOFError, zstandard.ZstdError)
            raise CaptureError(
                path, f"compressed data is corrupt after line {line_no}: {exc}", location=f"line {line_no + 1}"
            ) from None
        if not raw:
            return
        line_no += 1
        if len(raw) > inflate.MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise inflate.line_too_long(path, line_no)
        yield line_no, raw


def _parse_line(raw: bytes, line_no: int, start: int, source: str) -> tuple[Any, Problem | None, Issue | None]:
    """The line's JSON value, or the Problem that loses it; bytes that are not UTF-8 are read as U+FFFD
    and returned as an Issue (with the file's byte offset) for the exchange."""
    try:  # orjson reads the bytes (trailing CR/LF is whitespace) and refuses bytes that are not UTF-8
        return orjson.loads(raw), None, None
    except orjson.JSONDecodeError:
        pass  # bad bytes, or not JSON as orjson reads it: the steps below give Python's reading and message
    location = f"line {line_no}"
    raw = raw.rstrip(b"\r\n")
    bad_text = None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        bad_text = Issue(BAD_UTF8, f"byte {start + exc.start}: bytes that are not UTF-8 in the line, read as U+FFFD")
    try:
        return loads(text), None, bad_text
    except json.JSONDecodeError as exc:
        where = f"column {exc.colno}"
        if bad_text is None:  # with U+FFFD in the text its byte count is not the file's
            where += f", byte {start + len(text[: exc.pos].encode('utf-8'))}"
        msg = f"line {line_no}: not JSON: {exc.msg} ({where})"
        if bad_text is not None:
            msg += f"; {bad_text.message}"
        return None, Problem(source, location, BAD_ENTRY, msg), None
    except RecursionError:
        msg = f"line {line_no}: JSON nested too deeply to read"
        return None, Problem(source, location, BAD_ENTRY, msg), None


def _entry_record(obj: Any, source: str, line_no: int) -> Decoded | Problem:
    location = f"line {line_no}"
    if not isinstance(obj, dict):
        msg = f"line {line_no}: a JSON {json_kind(obj)}, not an object holding a request"
        return Problem(source, location, BAD_ENTRY, msg)
    shape = next((reader for matches, reader in _SHAPES if matches(obj)), None)
    if shape is None:
        keys = ", ".join(list(obj)[:8]) or "none"
        msg = (
            f"line {line_no}: JSON object with no recognisable request/response "
            f"(keys: {keys}); expected the canonical, LiteLLM spend-log or Helicone shape"
        )
        return Problem(source, location, UNKNOWN_SHAPE, msg)
    try:
        return to_decoded(shape(obj), source, line_no)
    except Exception as exc:  # a bug here must not cost the rest of the file
        msg = f"line {line_no}: reading the entry failed ({type(exc).__name__}: {exc})"
        return Problem(source, location, DECODER, msg)
