"""Scalars read from a file, checked for the type and range the frames can hold.

A file from an untrusted system can hold any JSON value anywhere: a 400-digit integer where a sequence
number goes (no int64 column holds it), ``1e400`` as a time (infinity: no timestamp), a lone surrogate in
a string (no UTF-8 encoder writes it), a list where a name goes. Each reader checks a value with these
where it uses it; what does not fit becomes ``None`` (or text with U+FFFD) and a ``BAD_FIELD`` problem
saying which field and why, so one damaged value never costs the rest of the file."""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "INT64_MAX",
    "MAX_EPOCH_SECONDS",
    "TOO_MANY_DIGITS",
    "clean_text",
    "epoch_seconds",
    "finite",
    "has_surrogate",
    "int64",
    "what_is_wrong",
]

#: The largest integer an int64 column (sequence numbers, statuses, sizes, token counts) holds.
INT64_MAX = 2**63 - 1
#: Times further than this from 1970 (about the years 1678 and 2262) are outside what a timestamp holds.
MAX_EPOCH_SECONDS = 9.2e9

#: Why JSON text was not read when it holds an integer past Python's limit on converted digits (4,300 by
#: default, ``sys.get_int_max_str_digits``): json raises ValueError, not JSONDecodeError, for it.
TOO_MANY_DIGITS = "an integer of more digits than Python converts (sys.get_int_max_str_digits)"

_SURROGATE = re.compile("[\ud800-\udfff]")


def int64(v: Any) -> int | None:
    """``v`` when it is an integer (not a bool) an int64 column holds, else ``None``."""
    if isinstance(v, int) and not isinstance(v, bool) and -INT64_MAX - 1 <= v <= INT64_MAX:
        return v
    return None


def finite(v: Any, limit: float = 1e300) -> float | None:
    """``v`` as a float when it is a number (not a bool) whose magnitude is finite and at most ``limit``."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, int) and not -(2**1000) < v < 2**1000:  # float() of it would raise OverflowError
        return None
    f = float(v)
    return f if math.isfinite(f) and abs(f) <= limit else None


def epoch_seconds(v: Any) -> float | None:
    """``v`` as seconds since 1970 when a timestamp can hold it."""
    return finite(v, MAX_EPOCH_SECONDS)


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (``"\\ud800"`` in JSON): no UTF-8 writer accepts it."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def clean_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, as a decoder does with a byte that is not UTF-8."""
    return _SURROGATE.sub("\ufffd", text) if has_surrogate(text) else text


def what_is_wrong(v: Any) -> str:
    """A short, bounded description of a value that did not fit (a 4,000-digit number is not repeated)."""
    if isinstance(v, int) and not isinstance(v, bool):
        digits = len(str(abs(v))) if abs(v) < 10**4000 else None
        return f"an integer of {digits} digits" if digits is not None else "an integer of over 4,000 digits"
    if isinstance(v, float):
        return f"the number {v!r}"
    if isinstance(v, str):
        return "text with a lone surrogate" if has_surrogate(v) else f"the text {v[:40]!r}"
    if isinstance(v, (bytes, bytearray)):
        return f"the bytes {bytes(v[:40])!r}"
    if isinstance(v, bool) or v is None:
        return "null" if v is None else f"the boolean {str(v).lower()}"
    # the JSON names of what a file holds (an object, not a dict), never the value itself: it may be 1,000 deep
    if isinstance(v, dict):
        return "an object"
    return "an array" if isinstance(v, list) else f"a {type(v).__name__}"
