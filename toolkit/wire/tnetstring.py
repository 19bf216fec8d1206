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


def parse(data: bytes, pos: int = 0) -> tuple[Any, int]:
    """The value at ``pos`` and the offset just after it."""
    length, start = read_prefix(data, pos)
    end = start + length
    if end >= len(data):
        raise TNetStringError(pos, f"value of {length} bytes runs past the end of the data")
    kind = data[end]
    payload = data[start:end]
    if kind == 0x2C:  # ,
        return bytes(payload), end + 1
    if kind == 0x3B:  # ;
        return payload.decode("utf-8", "surrogateescape"), end + 1
    if kind == 0x23:  # #
        return int(payload), end + 1
    if kind == 0x5E:  # ^
        return float(payload), end + 1
    if kind == 0x21:  # !
        if payload not in (b"true", b"false"):
            raise TNetStringError(pos, f"bad boolean {payload!r}")
        return payload == b"true", end + 1
    if kind == 0x7E:  # ~
        if payload:
            raise TNetStringError(pos, "null with a payload")
        return None, end + 1
    if kind == 0x5D:  # ]
        items, i = [], start
        while i < end:
            value, i = parse(data, i)
            items.append(value)
        return items, end + 1
    if kind == 0x7D:  # }
        obj, i = {}, start
        while i < end:
            key, i = parse(data, i)
            if i >= end:
                raise TNetStringError(i, "dictionary key without a value")
            value, i = parse(data, i)
            obj[key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else key] = value
        return obj, end + 1
    raise TNetStringError(end, f"unknown type byte {bytes([kind])!r}")
