"""Value parsers every JSONL shape shares: times, numbers, headers, JSON-text columns, bodies not stored."""

from __future__ import annotations

import contextlib
import json
import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from toolkit.wire.json_text import compact_deep, json_int, json_kind, loads
from toolkit.wire.records import BAD_FIELD, Issue
from toolkit.wire.values import finite, int64, what_is_wrong

if TYPE_CHECKING:
    from toolkit.sources.jsonl.entry import Entry

__all__ = [
    "compact",
    "compact_size",
    "count",
    "epoch",
    "header",
    "headers",
    "json_value",
    "not_stored",
    "number",
    "status",
    "str_or_none",
    "timing",
]


def compact(value: Any) -> str:
    """A parsed body as compact JSON text (what the wire decoders read). orjson is about ten times
    faster than ``json.dumps``; it refuses integers beyond 64 bits, which the standard encoder writes."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:  # also orjson's "Recursion limit reached" past 255 levels
        try:
            return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        except RecursionError:
            return compact_deep(value)


def compact_size(value: Any) -> int:
    """``len(compact(value).encode("utf-8"))`` without building the text (orjson writes UTF-8). A lone surrogate
    (``"\\udc00"`` in the log, which no UTF-8 writer accepts) counts the 3 bytes a lenient writer gives it; the wire
    decoder reports it when it reads the text."""
    try:
        return len(orjson.dumps(value))
    except TypeError:
        return len(compact(value).encode("utf-8", "surrogatepass"))


def json_value(value: Any) -> Any:
    """A JSON column that may arrive as JSON text (SQL/CSV exports) or as the value itself."""
    if isinstance(value, str):
        stripped = value.strip()
        if stripped[:1] in ("{", "[") or stripped in ("null", '""'):
            try:
                return loads(stripped)
            except (json.JSONDecodeError, RecursionError):
                return value
    return value


def not_stored(value: Any) -> bool:
    return value is None or value == "" or value == {} or value == []


def headers(value: Any, direction: str, issues: list[Issue]) -> list[tuple[str, str]]:
    """Headers as (name, value) pairs from a dict, ``[{name, value}]`` or ``[[name, value]]``."""
    if value is None:
        return []
    if type(value) is dict:  # nearly always a dict of names to strings: one pass
        out = [(n, v) for n, v in value.items() if type(v) is str and type(n) is str]
        if len(out) == len(value):
            return out
    out = []
    if isinstance(value, dict):
        for name, v in value.items():
            for item in v if isinstance(v, list) else [v]:
                _add_header(out, name, item, direction, issues)
        return out
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and "name" in item:
                _add_header(out, item["name"], item.get("value"), direction, issues)
            elif isinstance(item, (list, tuple)) and len(item) == 2:
                _add_header(out, item[0], item[1], direction, issues)
            else:
                issues.append(
                    Issue(BAD_FIELD, f"{direction} header entry: {what_is_wrong(item)}, not a header; skipped")
                )
        return out
    issues.append(Issue(BAD_FIELD, f"{direction} headers are a JSON {json_kind(value)}; ignored"))
    return []


def _add_header(out: list[tuple[str, str]], name: Any, value: Any, direction: str, issues: list[Issue]) -> None:
    """One header, its value as text: a number as its JSON text (recorders write ``content-length: 12``), null as
    empty; a name that is no text, or a value that is an object, an array or a boolean, is a problem and the
    header is left out (never its Python ``repr``, which a value 1,000 levels deep cannot even make)."""
    if not isinstance(name, str):
        issues.append(Issue(BAD_FIELD, f"{direction} header name: {what_is_wrong(name)}, not text; header skipped"))
        return
    if value is None or isinstance(value, str):
        out.append((name, value or ""))
        return
    number = finite(value) if not isinstance(value, bool) else None
    if number is not None:
        out.append((name, str(value) if isinstance(value, int) else repr(number)))
        return
    issues.append(
        Issue(BAD_FIELD, f"{direction} header {name[:80]!r}: value is {what_is_wrong(value)}, not text; skipped")
    )


def header(pairs: list[tuple[str, str]], name: str) -> str | None:
    """The first value of header ``name`` (lower case; an HTTP/2 pseudo-header's ``:`` ignored)."""
    for n, v in pairs:
        if n.lower().lstrip(":") == name:
            return v
    return None


def epoch(value: Any, key: str, issues: list[Issue]) -> float | None:
    """Epoch seconds (UTC) from ISO 8601 or epoch seconds/milliseconds."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            try:
                dt = datetime.fromisoformat(text)
            except ValueError:
                issues.append(Issue(BAD_FIELD, f"{key} {text[:60]!r} is not ISO 8601 or epoch time"))
                return None
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
            return dt.timestamp()
    seconds = finite(value)  # not a bool, not 1e400, not 400 digits (float() of those raises)
    if seconds is None:
        issues.append(Issue(BAD_FIELD, f"{key} {_told(value)} is not a time"))
        return None
    # Epoch seconds reach 1e11 only in the year 5138: anything larger is milliseconds.
    return seconds / 1000.0 if abs(seconds) >= 1e11 else seconds


def _told(value: Any) -> str:
    """A value in a message: a short scalar as its text, quoted (as these messages always said), anything else by
    what it is (a value 1,000 levels deep has no text to quote)."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return repr(str(value)[:60])
    return f"({what_is_wrong(value)})"


def number(value: Any, key: str, issues: list[Issue]) -> float | None:
    if value is None:
        return None
    if isinstance(value, str):
        try:
            result: float | None = float(value)
        except ValueError:
            result = None
        result = None if result is None or not math.isfinite(result) else result
    else:
        result = finite(value)
    if result is None:
        issues.append(Issue(BAD_FIELD, f"{key} {_told(value)} is not a number"))
    return result


def count(value: Any) -> int | None:
    """A count column: a JSON integer, or the decimal text of one (SQL and CSV exports write numbers as text)."""
    if isinstance(value, str):
        try:
            value = loads(value)
        except (ValueError, RecursionError):
            return None
    return json_int(value)


def status(value: Any, issues: list[Issue]) -> int | None:
    if value is None:
        return None
    code: int | None = None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            code = int(value)
    elif isinstance(value, float) and finite(value) is not None and value.is_integer():
        code = int(value)  # a status logged as 200.0
    elif not isinstance(value, bool):
        code = int64(value)
    if code is None or int64(code) is None:
        issues.append(Issue(BAD_FIELD, f"status {_told(value)} is not an integer"))
        return None
    return code


def str_or_none(value: Any, issues: list[Issue] | None = None, what: str = "field") -> str | None:
    """A text field: text as it is, a number as its JSON text (logs write ids and statuses as numbers), null as
    ``None``. An object, an array or a boolean has no text: ``None``, and a ``BAD_FIELD`` issue in ``issues`` naming
    ``what`` (its Python ``repr`` was kept before; of a value 1,000 levels deep there is none)."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, bool) and isinstance(value, (int, float)) and finite(value) is not None:
        return str(value) if isinstance(value, int) else repr(value)
    if issues is not None:
        issues.append(Issue(BAD_FIELD, f"{what}: {what_is_wrong(value)}, not text; left empty"))
    return None


def timing(e: Entry, obj: dict[str, Any], start_key: str, end_key: str, duration_key: str) -> None:
    """Start time, and a duration taken as logged or else from the end time."""
    if obj.get(start_key) is not None:
        e.started_at = epoch(obj[start_key], start_key, e.issues)
    e.duration_ms = number(obj.get(duration_key), duration_key, e.issues)
    if e.duration_ms is None and obj.get(end_key) is not None and e.started_at is not None:
        end = epoch(obj[end_key], end_key, e.issues)
        if end is not None:
            e.duration_ms = (end - e.started_at) * 1000.0
