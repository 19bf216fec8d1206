"""How JSON text that arrived on the wire is parsed and described, in one wording for every decoder."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import orjson

from toolkit.wire.values import TOO_MANY_DIGITS

__all__ = [
    "MAX_JSON_DEPTH",
    "JSONTooDeep",
    "StrictDecoder",
    "compact_deep",
    "depth_error",
    "describe_json_error",
    "json_int",
    "json_kind",
    "loads",
    "parse_arguments",
    "utf8",
    "utf8_size",
]


class _NotJSON(ValueError):
    def __init__(self, literal: str):
        super().__init__(literal)
        self.literal = literal


def _refuse_constant(literal: str) -> Any:
    raise _NotJSON(literal)


# A JSON string, or one of the literals Python's json module accepts and RFC 8259 does not.
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


class StrictDecoder(json.JSONDecoder):
    """JSON as RFC 8259 defines it: ``NaN``, ``Infinity`` and ``-Infinity`` are errors, not numbers
    (Python's json accepts them by default), raised as ``JSONDecodeError`` at the literal."""

    def __init__(self) -> None:
        super().__init__(parse_constant=_refuse_constant)

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        try:
            return super().raw_decode(s, idx)
        except RecursionError:  # Python's parser recurses: nesting past its stack is a JSON error
            raise depth_error(s, idx) from None
        except _NotJSON as e:
            # everything before the literal parsed, so its strings are whole: the first match outside one
            pos = next((m.start(1) for m in _CONSTANT.finditer(s, idx) if m.group(1) == e.literal), idx)
            raise json.JSONDecodeError(f"{e.literal} is not JSON", s, pos) from None


_STRICT = StrictDecoder()

#: Nesting of arrays and objects ``loads`` accepts: orjson's own limit. Past it Python's decoder would
#: recurse until ``RecursionError``, so JSON nested deeper is refused as ``JSONDecodeError`` at the
#: bracket that goes past it.
MAX_JSON_DEPTH = 1024
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]')


class JSONTooDeep(json.JSONDecodeError, RecursionError):
    """JSON nested past what can be read: a ``JSONDecodeError`` at the bracket (what every reader
    reports as bad JSON), and a ``RecursionError`` still for the readers that caught that one to say the
    end of the value is unknown."""


def depth_error(s: str, idx: int = 0) -> JSONTooDeep:
    """The error for JSON nested past ``MAX_JSON_DEPTH`` (or past Python's stack, which a parser that
    recursed met first), at the bracket that goes past it."""
    depth, deepest, at = 0, 0, idx
    for m in _STRING_OR_BRACKET.finditer(s, idx):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > deepest:
                deepest, at = depth, m.start()
            if depth > MAX_JSON_DEPTH:
                break
        elif c in "]}":
            depth -= 1
    if deepest > MAX_JSON_DEPTH:
        return JSONTooDeep(f"nested deeper than MAX_JSON_DEPTH ({MAX_JSON_DEPTH}) levels", s, at)
    return JSONTooDeep(f"nested {deepest} levels deep, past the stack of Python's JSON parser", s, at)


def loads(text: str | bytes) -> Any:
    """``json.loads`` for text from the wire or a log: strict JSON (see ``StrictDecoder``), one place for
    every decoder. Raises ``json.JSONDecodeError``, also for nesting past ``MAX_JSON_DEPTH``.

    orjson parses (several times faster); whatever it refuses is parsed again by ``StrictDecoder``, so
    what is accepted, and every error message and position, stay Python's. One difference remains: an
    integer outside the 64-bit range comes back as the nearest float."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as e:
        deep = str(e).startswith("depth limit exceeded")
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8")
    if deep:
        raise depth_error(text)
    try:
        return _STRICT.decode(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer past Python's digit limit: json raises ValueError, not JSONDecodeError
        raise json.JSONDecodeError(TOO_MANY_DIGITS, text, _long_integer_at(text)) from None


def _long_integer_at(text: str) -> int:
    """Where the first integer of more digits than Python converts starts (outside any string)."""
    limit = sys.get_int_max_str_digits()
    pattern = r'"(?:[^"\\]|\\.)*"|(-?\d{' + str(limit + 1) + ",})"
    for m in re.finditer(pattern, text) if limit else ():
        if m.group(1):
            return m.start(1)
    return 0


def compact_deep(value: Any, *, sort_keys: bool = False, default: Any = None) -> str:
    """``json.dumps(value, separators=(",", ":"), ensure_ascii=False)`` without recursion: the standard encoder
    recurses once per level and meets Python's stack on values that ``loads`` accepts (up to ``MAX_JSON_DEPTH``),
    and orjson's writer stops at 255 levels. Used only when those refuse, so its speed does not matter.
    ``sort_keys`` and ``default`` are json's."""
    out: list[str] = []
    stack: list[Any] = [value]
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=default).encode
    while stack:
        v = stack.pop()
        if isinstance(v, _Close):
            out.append(v.text)
        elif isinstance(v, dict):
            out.append("{")
            stack.append(_Close("}"))
            items = sorted(v.items()) if sort_keys else list(v.items())
            for i in range(len(items) - 1, -1, -1):
                k, item = items[i]
                stack.append(item)
                stack.append(_Close(("," if i else "") + encode(k if isinstance(k, str) else str(k)) + ":"))
        elif isinstance(v, (list, tuple)):
            out.append("[")
            stack.append(_Close("]"))
            for i in range(len(v) - 1, -1, -1):
                stack.append(v[i])
                if i:
                    stack.append(_Close(","))
        else:
            out.append(encode(v))
    return "".join(out)


class _Close:
    """Text ``compact_deep`` writes once everything pushed after it is written (a comma, a key, a bracket)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def describe_json_error(e: json.JSONDecodeError) -> str:
    """One wording for bad JSON everywhere: 'invalid JSON at char 17: Expecting ',' delimiter'."""
    return f"invalid JSON at char {e.pos}: {e.msg}"


def json_kind(value: Any) -> str:
    """The JSON name of a decoded value's type, for messages ('array', not 'list')."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def json_int(value: Any) -> int | None:
    """An integer from a decoded JSON value: an int, or a float without a fraction (JSON has one number
    type, so ``3.0`` is ``3``); booleans, fractions, non-finite numbers and text are ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A tool call's arguments string as the model emitted it → ``(object, None)`` or ``(None, why not)``."""
    if raw is None:
        return None, "no arguments string"
    if not isinstance(raw, str):
        return None, f"arguments are a {type(raw).__name__}, not a JSON string"
    if not raw.strip():
        return None, "empty arguments string"
    try:
        value = loads(raw)
    except json.JSONDecodeError as e:
        return None, describe_json_error(e)
    if not isinstance(value, dict):
        return None, f"arguments are a JSON {json_kind(value)}, not an object"
    return value, None


_last_utf8: tuple[str, bytes] = ("", b"")


def utf8(text: str) -> bytes:
    """``text.encode("utf-8")``, remembering the last text: a reader measures a body's size and the
    wire decoder then needs its bytes, so the same (immutable) text is encoded once, not twice."""
    global _last_utf8
    last = _last_utf8
    if last[0] is text:
        return last[1]
    data = text.encode("utf-8")
    _last_utf8 = (text, data)
    return data


def utf8_size(text: str) -> int:
    """The UTF-8 length of a text as read (an ASCII text's is its length, no copy). A lone surrogate (``"\\ud800"``
    in JSON, which no UTF-8 writer accepts) counts the 3 bytes a lenient writer gives it: a size is measured for
    every body, and the decoder that reads the text is the one that reports the surrogate."""
    if text.isascii():
        return len(text)
    try:
        return len(utf8(text))
    except UnicodeEncodeError:
        return len(text.encode("utf-8", "surrogatepass"))
