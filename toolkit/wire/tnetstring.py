"""Typed netstrings, the serialisation of mitmproxy's ``.mitm`` flow files: ``<len>:<payload><type>``.

Types: ``,`` bytes, ``;`` text, ``#`` int, ``^`` float, ``!`` bool, ``~`` null, ``]`` list, ``}`` dict
(keys are text). Reading them here lets the toolkit open ``.mitm`` files without mitmproxy, which
cannot share the toolkit's environment on Python 3.11.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_PREFIX", "TNetStringError", "parse", "read_prefix"]

MAX_PREFIX = 12  # digits of a length prefix (mitmproxy flows stay far below 10**12 bytes)


class TNetStringError(ValueError):
    def __init__(self, offset: int, message: str):
        self.offset = offset
        super().__init__(f"byte {offset}: {message}")


def read_prefix(data: bytes, pos: int = 0) -> tuple[int, int]:
    """``(payload length, payload start)`` of the value at ``pos``."""
    colon = data.find(b":", pos, pos + MAX_PREFIX + 1)
    digits = data[pos:colon] if colon >= 0 else b""
    if colon < 0 or not digits.isdigit():
        raise TNetStringError(pos, f"expected a length prefix, found {data[pos : pos + 12]!r}")
    return int(digits), colon + 1


class _Open:
    """A list or dictionary being read: its items so far, where its payload ends, where it began, and
    (for a dictionary) the key whose value comes next."""

    __slots__ = ("at", "end", "items", "key", "key_at")

    def __init__(self, items: list[Any] | dict[str, Any], end: int, at: int):
        self.items = items
        self.end = end
        self.at = at
        self.key: Any = _NO_KEY
        self.key_at = at


_NO_KEY = object()


def parse(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """The value at ``pos`` and the offset just after it.

    Iterative, with its own stack of open lists and dictionaries: a flow file is untrusted input, and
    values nested 100,000 deep (a few hundred kilobytes) would pass Python's recursion limit."""
    stack: list[_Open] = []
    i = pos
    while True:
        at = i
        length, start = read_prefix(data, at)
        end = start + length
        if end >= len(data):
            raise TNetStringError(at, f"value of {length} bytes runs past the end of the data")
        kind = data[end]
        if kind == 0x5D or kind == 0x7D:  # ] or }
            if start < end:
                stack.append(_Open([] if kind == 0x5D else {}, end, at))
                i = start
                continue
            value: Any = [] if kind == 0x5D else {}
        else:
            value = _scalar(kind, data[start:end], at, end)
        i = end + 1
        while stack:  # hand the value to the innermost open container; close those that are full
            top = stack[-1]
            if isinstance(top.items, list):
                top.items.append(value)
            elif top.key is _NO_KEY:
                top.key, top.key_at = value, at
                if i >= top.end:
                    raise TNetStringError(i, "dictionary key without a value")
                break
            else:
                key = top.key.decode("utf-8", "surrogateescape") if isinstance(top.key, bytes) else top.key
                if isinstance(key, (list, dict)):
                    raise TNetStringError(top.key_at, f"dictionary key is a {type(key).__name__}, not text")
                top.items[key] = value
                top.key = _NO_KEY
            if i < top.end:
                break
            stack.pop()
            value, i, at = top.items, top.end + 1, top.at
        else:
            return value, i


def _scalar(kind: int, payload: bytes, pos: int, end: int) -> Any:
    if kind == 0x2C:  # ,
        return bytes(payload)
    if kind == 0x3B:  # ;
        return payload.decode("utf-8", "surrogateescape")
    if kind == 0x23:  # #
        return int(payload)
    if kind == 0x5E:  # ^
        return float(payload)
    if kind == 0x21:  # !
        if payload not in (b"true", b"false"):
            raise TNetStringError(pos, f"bad boolean {payload!r}")
        return payload == b"true"
    if kind == 0x7E:  # ~
        if payload:
            raise TNetStringError(pos, "null with a payload")
        return None
    raise TNetStringError(end, f"unknown type byte {bytes([kind])!r}")
