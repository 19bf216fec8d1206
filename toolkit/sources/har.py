"""HAR 1.2 reader, tolerant of what real exporters write.

The file's bytes are walked value by value: a compiled scanner finds where each entry ends (skipping
strings) and orjson parses that slice, so one entry at a time is alive as Python objects and the
whole text is never decoded: peak memory stays near the size of the file. Anything that scanner or
orjson is unsure of (bytes that are not UTF-8, NaN, a cut file, a syntax error) is walked again by
the exact walker (``json`` per entry, over the decoded text), which gives every message and offset. Quirks handled: mitmproxy ``hardump`` (status 0 with
``_error``, bodies decoded), Chrome (HTTP/2 pseudo-headers, base64 bodies, sanitized headers),
Firefox (no ``text``, reason in ``comment``), Safari (``_textBase64``), HTTP Toolkit
(``_requestBodyStatus: discarded:*``, ``_content``), headers as dicts or ``[name, value]`` pairs,
Polly.js (header values as JSON numbers), compressed bodies kept as base64, ``.zhar`` (zlib) and gzip files.

A file is untrusted: any field read may hold another JSON type or a value 1,000 levels deep. Each such field
is a problem row naming the entry, the field and what it holds (described, never repr'd whole), and the rest
of the entry is still read; nothing is dropped without a row saying so.
"""

from __future__ import annotations

import contextlib
import json
import re
import zlib
from collections.abc import Callable, Generator, Iterator
from datetime import datetime
from json.decoder import scanstring  # type: ignore[attr-defined]  # public at runtime, absent from typeshed
from os import PathLike
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from toolkit.errors import CaptureError
from toolkit.sources.inflate import inflate_file
from toolkit.sources.sniff import first_line_object
from toolkit.wire.encodings import MAX_BODY_BYTES, BodyDecodeError, decode_base64, decode_content, sniff_compression
from toolkit.wire.http import decode_exchange
from toolkit.wire.json_text import StrictDecoder
from toolkit.wire.records import (
    BAD_BODY,
    BAD_ENTRY,
    BAD_FIELD,
    BAD_UTF8,
    BODY_MISSING,
    Decoded,
    EntryCount,
    Exchange,
    Header,
    Issue,
    Problem,
)
from toolkit.wire.values import TOO_MANY_DIGITS, clean_text, epoch_seconds, finite, has_surrogate, int64, what_is_wrong

__all__ = ["read", "recognize"]

_WS = " \t\n\r"
_UNDECODED = re.compile("[\udc80-\udcff]")  # a byte that was not UTF-8 (decoded with surrogateescape)
#: A walk step: yields (entry or ``_Broken``, char offset) and returns the position after the value.
_Walk = Generator[tuple[Any, int], None, int]
_DECODER = StrictDecoder()
_LENIENT = json.JSONDecoder()  # only to find where an entry with a NaN literal ends
_LONG_INTS = json.JSONDecoder(parse_int=str)  # only to find where an entry with an over-long integer ends


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    path = Path(path)
    raw, bom = _load_bytes(path)
    walker = _FastWalker(raw, path, bom)
    del raw  # the walker holds the only reference, and lets go of it when it falls back
    n = 0  # entries seen, including one lost to a structural error inside "entries"
    for obj, pos in walker.entries():
        if isinstance(obj, _BadEntry):
            yield Problem(source, f"entry {n}", BAD_ENTRY, obj.message)
            n += 1
            continue
        if isinstance(obj, _Broken):
            if n == 0:
                raise CaptureError(path, obj.message, location=f"byte {walker.byte_offset(pos)}")
            where = f"byte {walker.byte_offset(pos)}"
            if walker.in_entries:
                where = f"entry {n}, {where}"
                n += 1
            yield Problem(source, where, BAD_ENTRY, obj.message)
            break
        location = f"entry {n}"
        n += 1
        if not isinstance(obj, dict):
            yield Problem(source, location, BAD_ENTRY, f"entry: {_what(obj)}, not an object")
            continue
        if not isinstance(obj.get("request"), dict) and not (
            "request" in obj and isinstance(obj.get("response"), dict)
        ):
            # nothing of an exchange to keep; a request of the wrong type beside a response keeps the response
            said = (
                f"request: {_what(obj['request'])}, not an object"
                if "request" in obj
                else "entry has no request object"
            )
            yield Problem(source, location, BAD_ENTRY, said)
            continue
        decoded = _entry(obj, source, location, f"{source}:{n - 1}")
        if walker.bad_byte is not None:
            decoded.issues.insert(
                0, Issue(BAD_UTF8, f"byte {walker.bad_byte}: bytes that are not UTF-8 in the entry, read as U+FFFD")
            )
        yield decoded
    if walker.error and n == 0:
        raise CaptureError(path, walker.error[1], location=f"byte {walker.byte_offset(walker.error[0])}")
    yield EntryCount(source, "entry", n)


class _Broken:
    def __init__(self, message: str):
        self.message = message


class _BadEntry(_Broken):
    """One entry that is not JSON although the file around it is; the walk goes on."""


def _load_bytes(path: Path) -> tuple[bytes, int]:
    """The file's bytes (gzip and zlib undone, within ``inflate``'s caps) after any BOM, and the BOM's length."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = inflate_file(raw, "gzip", path)
        except (OSError, EOFError) as exc:
            raise CaptureError(path, f"corrupt gzip data: {exc}") from None
    elif len(raw) >= 2 and raw[0] == 0x78 and (raw[0] * 256 + raw[1]) % 31 == 0:
        try:
            raw = inflate_file(raw, "zlib", path)
        except zlib.error as exc:
            raise CaptureError(path, f"corrupt zlib (.zhar) data: {exc}") from None
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    return raw, bom


def _decode_text(raw: memoryview) -> str:
    # Bytes that are not UTF-8 become lone surrogates, so byte offsets stay exact and the entry holding
    # them is still read (with U+FFFD) and reported, instead of the whole file being refused.
    return str(raw, "utf-8", "surrogateescape")


class _Unsure(Exception):
    """The fast walk met something only the exact walker words right."""


_WS_B = re.compile(rb"[ \t\n\r]*")
_STRING_B = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)
#: Everything up to the next bracket, strings whole (unrolled: bodies are full of escaped quotes).
_FLAT_B = re.compile(rb'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.S)
_SCALAR_B = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?![0-9])|true|false|null")


class _FastWalker:
    """The ``_Walker`` grammar over bytes, with orjson per value. It raises nothing of its own: where
    it is unsure, ``_Walker`` walks the file from the start and the entries already yielded (which
    it reads identically) are skipped, so results and messages are the exact walker's."""

    def __init__(self, raw: bytes, path: Path, bom: int):
        self.raw: memoryview | None = memoryview(raw)[bom:]
        self.raw_bytes = raw  # the whole buffer, for bytes.find (offsets shifted by the BOM)
        self.path, self.bom = path, bom
        self.exact: _Walker | None = None
        self.found_log = self.found_entries = False

    @property
    def error(self) -> tuple[int, str] | None:
        return self.exact.error if self.exact is not None else None

    @property
    def bad_byte(self) -> int | None:
        return self.exact.bad_byte if self.exact is not None else None

    @property
    def in_entries(self) -> bool:
        return self.exact.in_entries if self.exact is not None else False

    def byte_offset(self, pos: int) -> int:
        assert self.exact is not None  # offsets are only asked of the exact walker's values
        return self.exact.byte_offset(pos)

    def entries(self) -> Generator[tuple[Any, int], None, None]:
        fast = 0
        try:
            for obj in self._fast():
                yield obj, 0
                fast += 1
            if self.found_log:
                return
        except (_Unsure, IndexError, orjson.JSONDecodeError):
            pass
        assert self.raw is not None
        text, self.raw, self.raw_bytes = _decode_text(self.raw), None, b""
        self.exact = _Walker(text, self.path, self.bom)
        walk = self.exact.entries()
        for _ in range(fast):
            next(walk)
        yield from walk

    def _fast(self) -> Generator[Any, None, None]:
        buf = self.raw
        assert buf is not None
        n, ws_match, flat = len(buf), _WS_B.match, _FLAT_B.match

        def ws(pos: int) -> int:
            m = ws_match(buf, pos)
            assert m is not None  # `[ \t\n\r]*` matches everywhere
            return m.end()

        def expect(pos: int, char: int) -> int:
            pos = ws(pos)
            if pos >= n or buf[pos] != char:
                raise _Unsure
            return pos + 1

        def extent(pos: int) -> int:
            c = buf[pos]
            if c == 0x7B or c == 0x5B:  # { [
                depth = 0
                while True:
                    c = buf[pos]
                    if c == 0x7B or c == 0x5B:
                        depth += 1
                    elif c == 0x7D or c == 0x5D:
                        depth -= 1
                        if depth == 0:
                            return pos + 1
                    else:  # an unterminated string or a long digit run
                        raise _Unsure
                    m = flat(buf, pos + 1)
                    assert m is not None  # a `*+` pattern matches everywhere
                    pos = m.end()
            m = (_STRING_B if c == 0x22 else _SCALAR_B).match(buf, pos)
            if m is None:
                raise _Unsure
            return m.end()

        def value(pos: int) -> tuple[Any, int]:
            end = extent(pos)
            return orjson.loads(buf[pos:end]), end

        def obj(pos: int, visit: Callable[[str, int], Generator[Any, None, int]]) -> Generator[Any, None, int]:
            pos = ws(expect(pos, 0x7B))
            if pos < n and buf[pos] == 0x7D:
                return pos + 1
            while True:
                pos = ws(pos)
                if pos >= n or buf[pos] != 0x22:
                    raise _Unsure
                key, pos = value(pos)
                pos = ws(expect(pos, 0x3A))
                pos = ws((yield from visit(key, pos)))
                if pos >= n:
                    raise _Unsure
                if buf[pos] == 0x7D:
                    return pos + 1
                pos = expect(pos, 0x2C)

        def skip(pos: int) -> Generator[Any, None, int]:
            return value(pos)[1]
            yield  # a generator, so it can stand where a visitor does

        def array(pos: int) -> Generator[Any, None, int]:
            # Entries look alike: the bytes from one entry's closing brace to the next one's first key
            # (`},\n{"startedDateTime"`) cannot occur inside a JSON string, so finding them guesses where
            # an entry ends, and orjson accepting the slice proves it (a JSON object is prefix-free).
            pos = ws(expect(pos, 0x5B))
            if pos < n and buf[pos] == 0x5D:
                return pos + 1
            find, bom, sep, guessed = self.raw_bytes.find, self.bom, b"", False
            while True:
                item, guessed = None, False
                if sep and buf[pos] == 0x7B and (cand := find(sep, pos + bom) - bom) >= 0:
                    with contextlib.suppress(orjson.JSONDecodeError):
                        item, end, guessed = orjson.loads(buf[pos : cand + 1]), cand + 1, True
                if not guessed:
                    item, end = value(pos)
                yield item
                pos = ws(end)
                if pos >= n:
                    raise _Unsure
                if buf[pos] == 0x5D:
                    return pos + 1
                pos = ws(expect(pos, 0x2C))
                if not guessed and pos < n and buf[pos] == 0x7B and buf[end - 1] == 0x7D:
                    key = _STRING_B.match(buf, ws(pos + 1))
                    sep = bytes(buf[end - 1 : key.end()]) if key is not None else b""

        def visit_log(key: str, pos: int) -> Generator[Any, None, int]:
            self.found_entries |= key == "entries"
            return (yield from (array(pos) if key == "entries" else skip(pos)))

        def visit_top(key: str, pos: int) -> Generator[Any, None, int]:
            if key != "log":
                return (yield from skip(pos))
            self.found_log = True
            return (yield from obj(pos, visit_log))

        self.found_entries = False
        yield from obj(0, visit_top)
        if self.found_log and not self.found_entries:  # the exact walker says where "log" ends
            raise _Unsure


class _Walker:
    """Walks ``{"log": {..., "entries": [...]}}`` without materialising the whole document."""

    def __init__(self, text: str, path: Path, bom: int):
        self.text, self.path, self.bom = text, path, bom
        self.error: tuple[int, str] | None = None
        self.found_log = self.in_entries = self.found_entries = False
        self.log_end = 0  # where the "log" object ends
        self.bad_byte: int | None = None  # the first byte that is not UTF-8 in the entry last yielded

    def byte_offset(self, pos: int) -> int:
        return self.bom + len(self.text[:pos].encode("utf-8", "surrogateescape"))

    def _ws(self, pos: int) -> int:
        text = self.text
        while pos < len(text) and text[pos] in _WS:
            pos += 1
        return pos

    def _expect(self, pos: int, char: str, what: str) -> int:
        pos = self._ws(pos)
        if pos >= len(self.text):
            raise _StructureError(pos, f"file ends early: expected {what}")
        if self.text[pos] != char:
            found = "a byte that is not UTF-8" if _UNDECODED.match(self.text[pos]) else repr(self.text[pos])
            raise _StructureError(pos, f"expected {what}, found {found}")
        return pos + 1

    def _object(self, pos: int, visit: Callable[[str, int], _Walk]) -> _Walk:
        """Walk the object at ``pos``; ``visit(key, value_pos)`` is a generator returning the value's end."""
        pos = self._expect(pos, "{", "'{'")
        pos = self._ws(pos)
        if pos < len(self.text) and self.text[pos] == "}":
            return pos + 1
        while True:
            pos = self._expect(pos, '"', "a key")
            try:
                key, pos = scanstring(self.text, pos)
            except ValueError as exc:
                raise _StructureError(pos, f"bad key: {exc}") from None
            pos = self._expect(pos, ":", "':'")
            pos = yield from visit(key, self._ws(pos))
            pos = self._ws(pos)
            if pos >= len(self.text):
                raise _StructureError(pos, "file ends early: expected ',' or '}'")
            if self.text[pos] == "}":
                return pos + 1
            pos = self._expect(pos, ",", "',' or '}'")

    def _skip(self, pos: int) -> _Walk:
        try:
            return _DECODER.raw_decode(self.text, pos)[1]
        except json.JSONDecodeError as exc:
            raise _StructureError(exc.pos, exc.msg) from None
        except ValueError:  # an integer past Python's digit limit, in a value that is skipped anyway
            with contextlib.suppress(ValueError):
                return _LONG_INTS.raw_decode(self.text, pos)[1]
            raise _StructureError(pos, TOO_MANY_DIGITS) from None
        yield  # a generator, so it can stand where a visitor does

    def _visit_top(self, key: str, pos: int) -> _Walk:
        if key != "log":
            return (yield from self._skip(pos))
        self.found_log = True
        self.log_end = yield from self._object(pos, self._visit_log)
        return self.log_end

    def _visit_log(self, key: str, pos: int) -> _Walk:
        if key == "entries":
            self.in_entries = self.found_entries = True
            end = yield from self._array(pos)
            self.in_entries = False
            return end
        return (yield from self._skip(pos))

    def entries(self) -> Generator[tuple[Any, int], None, None]:
        """Yield (entry, char offset); a structural error ends the walk with one ``_Broken``."""
        self.found_log = self.in_entries = self.found_entries = False
        try:
            yield from self._object(0, self._visit_top)
            if self.found_log and not self.found_entries:  # a damaged structure can close "log" early
                raise _StructureError(self.log_end - 1, '"log" ends without an "entries" array')
            if not self.found_log:
                self.error = (0, 'not a HAR file: no top-level "log" object')
        except _StructureError as exc:
            self.error = (exc.pos, exc.message)
            yield _Broken(f"{exc.message} (the rest of the file cannot be read)"), exc.pos

    def _array(self, pos: int) -> _Walk:
        pos = self._expect(pos, "[", "'[' after \"entries\"")
        pos = self._ws(pos)
        if pos < len(self.text) and self.text[pos] == "]":
            return pos + 1
        while True:
            start = pos
            try:
                obj, pos = _DECODER.raw_decode(self.text, pos)
            except RecursionError:  # where the entry ends is unknown: the walk cannot go on
                raise _StructureError(
                    start, f"JSON nested too deeply to read in the entry starting at byte {self.byte_offset(start)}"
                ) from None
            except ValueError as exc:  # a JSONDecodeError, or an integer past Python's digit limit
                try:  # only a NaN/Infinity literal or a long integer is wrong: that entry is lost, the walk goes on
                    _, pos = (_LENIENT if isinstance(exc, json.JSONDecodeError) else _LONG_INTS).raw_decode(
                        self.text, pos
                    )
                except ValueError:
                    if not isinstance(exc, json.JSONDecodeError):
                        raise _StructureError(
                            start, f"{TOO_MANY_DIGITS} in the entry starting at byte {self.byte_offset(start)}"
                        ) from None
                    said = _decoder_said(exc.msg, self.byte_offset(exc.pos))
                    raise _StructureError(
                        exc.pos, f"{said} in the entry starting at byte {self.byte_offset(start)}"
                    ) from None
                why = (
                    f"{exc.msg} (byte {self.byte_offset(exc.pos)})"
                    if isinstance(exc, json.JSONDecodeError)
                    else TOO_MANY_DIGITS
                )
                yield _BadEntry(why), start
                pos = self._ws(pos)
                if pos < len(self.text) and self.text[pos] == "]":
                    return pos + 1
                pos = self._ws(self._expect(pos, ",", "',' or ']' between entries"))
                continue
            self.bad_byte = None
            if (bad := _UNDECODED.search(self.text, start, pos)) is not None:
                self.bad_byte = self.byte_offset(bad.start())
                span = self.text[start:pos].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
                obj = _DECODER.decode(span)
            yield obj, start
            pos = self._ws(pos)
            if pos >= len(self.text):
                raise _StructureError(pos, 'file ends early inside "entries"')
            if self.text[pos] == "]":
                return pos + 1
            pos = self._expect(pos, ",", "',' or ']' between entries")
            pos = self._ws(pos)


def _decoder_said(msg: str, byte: int) -> str:
    """The JSON decoder's message, whole: ``json`` keeps the position apart from its message
    (``Unterminated string starting at``, then ``: line 1 column 5 (char 4)``), so a message that names
    a place ends mid-sentence without it; the place is given as a byte offset, as everywhere else."""
    return f"{msg} byte {byte}" if msg.endswith(" at") else msg


class _StructureError(Exception):
    def __init__(self, pos: int, message: str):
        self.pos, self.message = pos, message


# ---- one entry ---------------------------------------------------------------------------------


def _what(v: Any) -> str:
    """``what_is_wrong``, with JSON's ``null``: short and bounded, so a value 1,000 levels deep is named by its
    type and never repr'd (its repr alone exhausts the recursion limit)."""
    return "null" if v is None else what_is_wrong(v)


def _text(container: dict[str, Any], key: str, what: str, issues: list[Issue], then: str) -> str | None:
    """An optional text field of ``container``: None when absent or null; any other value that is not text is
    a ``BAD_FIELD`` problem (``then`` says what is done instead) and None."""
    value = container.get(key)
    if value is None or isinstance(value, str):
        return value
    issues.append(Issue(BAD_FIELD, f"{what} {key}: {_what(value)}, not text; {then}"))
    return None


def _header_value(value: Any) -> str | None:
    """A header's value as text, or None when it has none. Polly.js writes ``content-length`` as a JSON number,
    so a number stands as its JSON text; null is an empty value. The parser bounds an integer's digits."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return str(value) if finite(value) is not None else None


def _headers(raw: Any, direction: str, issues: list[Issue]) -> list[Header]:
    """The headers of one message. A header that is not a name and a text value is left out, and one problem
    says how many were and which came first: a list of thousands of bad headers is one row, not thousands."""
    if raw is not None and not isinstance(raw, (list, dict)):
        issues.append(Issue(BAD_FIELD, f"{direction} headers: {what_is_wrong(raw)}, not a list; ignored"))
        return []
    out, bad, first = [], 0, ""
    items = raw.items() if isinstance(raw, dict) else (raw or [])
    for i, item in enumerate(items):
        if isinstance(item, dict):
            name, value = item.get("name"), item.get("value")
        elif isinstance(item, (list, tuple)) and len(item) == 2:
            name, value = item
        else:
            bad, first = bad + 1, first or f"header {i}: {_what(item)}, not a name and a value"
            continue
        text = _header_value(value)
        if isinstance(name, str) and text is not None:
            out.append(Header(direction, name, text))
            continue
        bad += 1
        if not first:
            first = (
                f"header {i}: name is {_what(name)}, not text"
                if not isinstance(name, str)
                else f"header {name[:40]!r}: value is {_what(value)}, not text"
            )
    if bad:
        more = f", with {bad - 1} more that are not a name and a text value" if bad > 1 else ""
        issues.append(Issue(BAD_FIELD, f"{direction} {first}; left out{more}"))
    return out


def _header(headers: list[Header], name: str) -> str | None:
    for h in headers:
        if h.name.lower() == name:
            return h.value
    return None


def _body(container: dict[str, Any] | None, headers: list[Header], what: str, issues: list[Issue]) -> bytes | None:
    """The decoded bytes of a postData or content object, or None (with the reason as an Issue)."""
    if not isinstance(container, dict):
        return None
    size = _size(container.get("size"), f"{what} body size", issues)
    text: object
    encoded = False
    if isinstance(safari := _text(container, "_textBase64", f"{what} body", issues, "ignored"), str):  # Safari
        text, encoded = safari, True
    else:
        text = container.get("text")
        encoded = _text(container, "encoding", f"{what} body", issues, "the text is read as it is") == "base64"
    if text is None and isinstance(container.get("_content"), dict):  # HTTP Toolkit, not representable
        inner = container["_content"]
        text, encoded = inner.get("text"), inner.get("encoding") == "base64"
    if text is None:
        comment = _text(container, "comment", f"{what} body", issues, "ignored")
        if comment or (size is not None and size > 0):
            reason = comment or f"no body text although size is {size}"
            issues.append(Issue(BODY_MISSING, f"{what} body not in the capture: {reason}"))
        elif "text" in container and size is None:  # a null text, and no size to say the body was empty
            issues.append(Issue(BAD_BODY, f"{what} body text is null, not a string"))
        return None
    if not isinstance(text, str):
        issues.append(Issue(BAD_BODY, f"{what} body text is {type(text).__name__}, not a string"))
        return None
    if text == "" and size is not None and size > 0:
        issues.append(
            Issue(
                BODY_MISSING,
                f"{what} body is empty in the capture but {size} bytes were sent (a streamed body the recorder did not keep)",
            )
        )
        return None
    if not encoded:
        if has_surrogate(text):  # "\ud800" in the JSON: a string no UTF-8 encoder writes
            issues.append(Issue(BAD_UTF8, f"{what} body text holds a lone surrogate; read with U+FFFD in its place"))
            text = clean_text(text)
        return text.encode("utf-8")
    chunks = _polly_chunks(text)
    try:
        data = b"".join(map(decode_base64, chunks)) if chunks is not None else decode_base64(text)
    except BodyDecodeError as exc:
        issues.append(Issue(exc.kind, f"{what} body: {exc}"))
        return None
    coding = (
        _header(headers, "content-encoding")
        if sniff_compression(data) or _header(headers, "content-encoding")
        else None
    )
    coding = sniff_compression(data) or coding
    if coding:
        try:
            data = decode_content(data, coding, cap=MAX_BODY_BYTES)
        except BodyDecodeError as exc:
            if sniff_compression(data):  # it really was compressed and is broken or too large
                issues.append(Issue(exc.kind, f"{what} body: {exc}"))
                return None
            # the exporter had already decoded it; the header only describes the wire
    return data


def _polly_chunks(text: str) -> list[str] | None:
    """Polly.js (``@pollyjs/adapter-node-http``) keeps an encoded or binary body as the JSON text of an
    array of base64 chunks, one per chunk received; ``None`` when ``text`` is not that."""
    if not text.lstrip().startswith("["):
        return None
    try:
        value = _DECODER.decode(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, list) and all(isinstance(c, str) for c in value) else None


def _started(e: dict[str, Any], issues: list[Issue]) -> float | None:
    """``startedDateTime`` as seconds since 1970, when it is ISO 8601 text of a time a timestamp holds."""
    value = e.get("startedDateTime")
    if not isinstance(value, str):
        return None
    shown = f"{value[:40]!r}{'...' if len(value) > 40 else ''}"  # a long value is not repeated whole
    try:
        started = datetime.fromisoformat(value).timestamp()
    except ValueError:
        issues.append(Issue(BAD_FIELD, f"startedDateTime {shown} is not ISO 8601"))
        return None
    except (OverflowError, OSError):  # a naive time near year 1 or 9999, made local
        started = None
    if epoch_seconds(started) is None:
        issues.append(Issue(BAD_FIELD, f"startedDateTime {shown} is outside the times a timestamp holds; left empty"))
        return None
    return started


#: The keys of a postData or content object that say what its body is, or why it is not there: an object with
#: none of them (``{}``, or one damaged into ``{"a": ...}``) says nothing of a body, which is a problem, not silence.
_BODY_KEYS = frozenset({"text", "params", "size", "comment", "_textBase64", "_content"})


def _entry(e: dict[str, Any], source: str, location: str, xid: str) -> Decoded:
    """One entry as an exchange. HAR 1.2 makes ``request``, ``response`` and ``content`` objects and names the
    fields in them: each field read here that holds another JSON type (or nothing, where the exchange cannot be
    told without it) is a ``BAD_FIELD`` problem naming it, and the rest of the entry is still read."""
    issues: list[Issue] = []
    req: dict[str, Any] = e["request"] if isinstance(e.get("request"), dict) else {}
    if req is not e.get("request"):  # read() sends such an entry only when its response is an object
        what = _what(e.get("request"))
        issues.append(Issue(BAD_FIELD, f"request: {what}, not an object; its method, url, headers and body are lost"))
    resp: Any = e.get("response") if isinstance(e.get("response"), dict) else {}
    if "response" in e and resp is not e["response"]:
        what = _what(e["response"])
        issues.append(Issue(BAD_FIELD, f"response: {what}, not an object; its status, headers and body are lost"))
    req_headers = _headers(req.get("headers"), "request", issues)
    resp_headers = _headers(resp.get("headers"), "response", issues)
    pseudo = {h.name: h.value for h in req_headers if h.name.startswith(":")}
    req_headers = [h for h in req_headers if not h.name.startswith(":")]  # HTTP/2 (Chrome)
    resp_headers = [h for h in resp_headers if not h.name.startswith(":")]
    for where, field in ((req, "url"), (req, "method"), (e, "startedDateTime")):
        if field in where and not isinstance(where[field], str):
            issues.append(Issue(BAD_FIELD, f"{field}: {_what(where[field])}, not text; left empty"))
        elif field not in where and where is req and req is e["request"]:
            issues.append(Issue(BAD_FIELD, f"{field}: not in the request object; left empty"))
    url = req.get("url") if isinstance(req.get("url"), str) else None
    try:
        parts = urlsplit(url) if url else None
    except ValueError as exc:  # "Invalid IPv6 URL": urlsplit checks the brackets of a host
        issues.append(Issue(BAD_FIELD, f"url: not a URL ({exc}); host and path left empty"))
        parts = None
    host = (parts.hostname if parts else None) or pseudo.get(":authority") or _header(req_headers, "host")
    path = (parts.path if parts and parts.path else None) or pseudo.get(":path")

    status_code = resp.get("status")
    readable = int64(status_code) is not None
    if "status" in resp and not readable:
        issues.append(Issue(BAD_FIELD, f"status: {_what(status_code)}, not an integer; left empty"))
    elif "status" not in resp and resp is e.get("response"):
        issues.append(Issue(BAD_FIELD, "status: not in the response object; left empty"))
    status = status_code if readable and status_code > 0 else None
    unreadable = "response" in e and not readable  # a response was there, its status could not be read
    started = _started(e, issues)
    duration = finite(e.get("time"))
    if e.get("time") is not None and duration is None:
        issues.append(Issue(BAD_FIELD, f"time: {what_is_wrong(e['time'])}, not a number of milliseconds"))
    if "postData" in req and not isinstance(req["postData"], dict):
        issues.append(Issue(BAD_FIELD, f"request postData: {_what(req['postData'])}, not an object"))
        req = {k: v for k, v in req.items() if k != "postData"}
    if "content" in resp and not isinstance(resp["content"], dict):
        issues.append(Issue(BAD_FIELD, f"response content: {_what(resp['content'])}, not an object"))
        resp = {k: v for k, v in resp.items() if k != "content"}
    ex = Exchange(
        exchange_id=xid,
        source=source,
        location=location,
        started_at=started,
        method=req.get("method") if isinstance(req.get("method"), str) else None,
        url=url,
        host=host,
        path=path,
        status=status,
        duration_ms=duration if duration is not None and duration >= 0 else None,
    )
    post: dict[str, Any] = req.get("postData") or {}
    content: dict[str, Any] = resp.get("content") or {}
    body_status = req.get("_requestBodyStatus")
    if isinstance(body_status, str) and body_status.startswith("discarded"):
        comment = _text(req, "comment", "request", issues, "ignored") or _text(
            post, "comment", "request postData", issues, "ignored"
        )
        issues.append(
            Issue(
                BODY_MISSING,
                f"request body discarded by the recorder ({body_status}){': ' + comment if comment else ''}",
            )
        )
        req_body = _body(post or req if "_content" in req else None, req_headers, "request", issues)
    else:
        if "postData" in req and not post.keys() & _BODY_KEYS:
            issues.append(Issue(BAD_FIELD, "request postData: no text, params, size or comment in it; no body read"))
        req_body = _body(post or None, req_headers, "request", issues)
    if status is not None and "content" in resp and not content.keys() & _BODY_KEYS:
        issues.append(Issue(BAD_FIELD, "response content: no text, size or comment in it; no body read"))
    resp_body = _body(content or None, resp_headers, "response", issues)

    body_size = _size(req.get("bodySize"), "request bodySize", issues)
    ex.request_bytes = len(req_body) if req_body is not None else body_size
    ex.response_bytes = len(resp_body) if resp_body is not None else _size(content.get("size"))
    req_type = _text(post, "mimeType", "request postData", issues, "the Content-Type header is used")
    resp_type = _text(content, "mimeType", "response content", issues, "the Content-Type header is used")
    req_type = req_type or _header(req_headers, "content-type")
    resp_type = resp_type or _header(resp_headers, "content-type")
    # the bodies as the recorder kept them (text, or base64 of the bytes), Content-Encoding undone here
    ex.body_fidelity = "wire" if req_body is not None or resp_body is not None else None
    d = decode_exchange(ex, req_body, resp_body, request_content_type=req_type, response_content_type=resp_type)
    if status is None:
        error = _text(e, "_error", "entry", issues, "ignored") or _text(resp, "_error", "response", issues, "ignored")
        d.exchange.terminal = "http-error"
        d.exchange.error_type = d.exchange.error_type or "transport"
        d.exchange.error_message = (
            d.exchange.error_message
            or error
            or ("no readable status in the capture" if unreadable else "no response in the capture")
        )
    d.headers = req_headers + resp_headers
    d.issues = issues + d.issues
    return d


def _size(v: Any, what: str = "", issues: list[Issue] | None = None) -> int | None:
    """A byte count: an integer an int64 column holds and not negative (HAR writes -1 for unknown). Given
    ``issues``, a value of another JSON type is a ``BAD_FIELD`` problem naming ``what``."""
    n = int64(v)
    if issues is not None and v is not None and n is None:
        issues.append(Issue(BAD_FIELD, f"{what}: {_what(v)}, not a number of bytes; left empty"))
    return n if n is not None and n >= 0 else None


_HAR_START = re.compile(rb'^\{\s*"log"\s*:')


def recognize(head: bytes) -> bool:
    """A JSON document with a top-level ``log`` (exporters need not put it first)."""
    if _HAR_START.match(head):
        return True
    obj = first_line_object(head)
    if obj is not None:
        return isinstance(obj.get("log"), dict)
    return head[:1] == b"{" and bool(re.search(rb'"log"\s*:\s*\{', head)) and b'"entries"' in head
