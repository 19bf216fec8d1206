"""One big JSONL log read by several processes: line-aligned byte ranges, and a reader of one range
that yields the records a single pass yields for those lines (the same exchange ids, locations and
byte offsets), so the parts together equal the whole."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from os import PathLike
from typing import BinaryIO

from toolkit.sources.jsonl import lines
from toolkit.sources.jsonl.lines import _BOM
from toolkit.wire.json_text import loads
from toolkit.wire.records import Decoded, EntryCount, Problem

__all__ = ["Range", "ranges", "read_range"]

#: (first byte, end byte, number of the first line)
Range = tuple[int, int, int]

_BLOCK = 1 << 23


def ranges(path: str | PathLike[str], parts: int, *, min_bytes: int = 1 << 24) -> list[Range]:
    """At most ``parts`` ranges of at least ``min_bytes`` each, split after a newline. One range
    (the whole file) when the file is compressed, small, or does not open with a JSON object line:
    only a plain log that is surely JSONL is split (the reader's "not a JSONL file" check needs the
    file's start)."""
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        f.seek(0)
        first = f.readline()
        whole = [(0, size, 1)]
        if parts < 2 or size < 2 * min_bytes or first[:2] == b"\x1f\x8b" or first[:4] == b"\x28\xb5\x2f\xfd":
            return whole
        try:
            ok = isinstance(loads(first.removeprefix(_BOM).decode("utf-8")), dict)
        except (ValueError, RecursionError):
            ok = False
        if not ok:
            return whole
        parts = min(parts, size // min_bytes)
        cuts: list[int] = []
        for k in range(1, parts):
            f.seek(size * k // parts)
            f.readline()
            at = f.tell()
            if (not cuts or at > cuts[-1]) and at < size:
                cuts.append(at)
        bounds = [0, *cuts, size]
        out: list[Range] = []
        line, pos = 1, 0
        f.seek(0)
        for start, end in itertools.pairwise(bounds):
            while pos < start:  # newlines before this range: its first line's number
                block = f.read(min(_BLOCK, start - pos))
                line += block.count(b"\n")
                pos += len(block)
            out.append((start, end, line))
        return out


def read_range(
    path: str | PathLike[str], source: str, part: Range, *, at: list[int] | None = None
) -> Iterator[Decoded | Problem | EntryCount]:
    """The records of the lines in ``part`` (from ``ranges``), then an ``EntryCount`` of its lines;
    ``at[0]`` follows the byte offset read to (for a progress line)."""
    counted = [0]
    with open(path, "rb") as f:
        yield from lines.records(_lines(f, part, at), source, counted)
    yield EntryCount(source, "line", counted[0])


def _lines(f: BinaryIO, part: Range, at: list[int] | None) -> Iterator[tuple[int, int, bytes]]:
    start, end, line_no = part
    f.seek(start)
    offset = start
    while offset < end:
        raw = f.readline()
        if not raw:
            return
        yield line_no, offset, raw
        offset += len(raw)
        line_no += 1
        if at is not None:
            at[0] = offset
