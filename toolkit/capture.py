"""Capture: reader records → DataFrames with fixed dtypes, problems that reconcile, ``summary()``.

Redaction happens here, at the one boundary every value crosses on its way to a frame.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import frames
from .errors import CaptureError
from .redact import redact_header, redact_obj, redact_text
from .sources import detect
from .wire.records import Decoded, EntryCount, Event, Problem, ToolResult
from .wire.schemas import schema_facts, schema_hash

FRAME_NAMES = tuple(frames.SCHEMAS)


@dataclass
class Capture:
    """Everything read from one or more captures, as DataFrames (see ``toolkit.frames``)."""

    exchanges: pd.DataFrame
    tools: pd.DataFrame
    tool_schemas: pd.DataFrame
    calls: pd.DataFrame
    inputs: pd.DataFrame
    headers: pd.DataFrame
    problems: pd.DataFrame
    events: pd.DataFrame
    tool_results: pd.DataFrame
    entries: pd.DataFrame = field(repr=False)  # per source: format, unit, entries seen
    redacted: bool = True

    def summary(self) -> pd.DataFrame:
        """One row per source: entries seen, read, lost, and whether they reconcile."""
        rows = []
        for src in self.entries.itertuples(index=False):
            read_locs = set(self.exchanges.loc[self.exchanges["source"] == src.source, "location"])
            read_locs |= set(self.events.loc[self.events["source"] == src.source, "location"])
            probs = self.problems[self.problems["source"] == src.source]
            lost = set(probs.loc[probs["exchange_id"].isna(), "location"]) - read_locs
            ex = self.exchanges[self.exchanges["source"] == src.source]
            ids = set(ex["exchange_id"])
            rows.append(
                {
                    "source": src.source,
                    "format": src.format,
                    "unit": src.unit,
                    "entries": src.entries,
                    "read": len(read_locs),
                    "lost": len(lost),
                    "reconciles": src.entries == len(read_locs) + len(lost),
                    "exchanges": len(ex),
                    "events": int((self.events["source"] == src.source).sum()),
                    "tools": int(self.tools["exchange_id"].isin(ids).sum()),
                    "calls": int(self.calls["exchange_id"].isin(ids).sum()),
                    "inputs": int(self.inputs["exchange_id"].isin(ids).sum()),
                    "problems": len(probs),
                }
            )
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n}={len(getattr(self, n))}" for n in FRAME_NAMES)
        return f"<Capture {counts}>"


def load_capture(path, *, format: str | None = None, redact: bool = True, progress: bool | None = None) -> Capture:
    """Read one capture file (HAR, JSONL log, SSE body, DSH session, mitmproxy flows) into frames.

    The format is sniffed from the content; ``format=`` forces one of ``detect.FORMATS``. Secrets are
    redacted unless ``redact=False`` is passed explicitly. A file that cannot be read at all raises
    ``CaptureError``; bad entries become rows of ``problems``.
    """
    return load_captures([path], format=format, redact=redact, progress=progress)


def load_captures(paths: Iterable, *, format: str | None = None, redact: bool = True, progress: bool | None = None) -> Capture:
    """Like ``load_capture`` for several files at once, into one set of frames."""
    builder = _Builder(redact=redact)
    for path in paths:
        path = Path(path)
        fmt = detect.detect(path) if format is None else detect.check_format(format)
        source = path.name
        reader = detect.reader_for(fmt)
        with _Progress(source, enabled=progress) as bar:
            for record in reader(path, source):
                builder.add(record, fmt)
                bar.tick()
    return builder.build()


class _Progress:
    """A one-line counter on stderr for long reads (on a terminal, or when asked for)."""

    def __init__(self, source: str, enabled: bool | None):
        self.source = source
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.n = 0
        self.start = self.last = time.monotonic()

    def __enter__(self):
        return self

    def tick(self) -> None:
        self.n += 1
        if self.enabled and self.n % 256 == 0:
            now = time.monotonic()
            if now - self.last >= 0.5:
                self.last = now
                print(f"\r{self.source}: {self.n} records, {now - self.start:.1f}s", end="", file=sys.stderr, flush=True)

    def __exit__(self, exc_type, exc, tb):
        if self.enabled and self.last != self.start:
            state = "interrupted" if exc_type is KeyboardInterrupt else "done"
            print(f"\r{self.source}: {self.n} records, {time.monotonic() - self.start:.1f}s, {state}", file=sys.stderr)
        return False


class _Builder:
    """Collects records into column lists; builds the frames once at the end."""

    def __init__(self, *, redact: bool):
        self.redact = redact
        self.cols = {name: {c: [] for c in frames.SCHEMAS[name]} for name in FRAME_NAMES}
        self.schemas: dict[str, dict] = {}  # hash -> [schema, n_properties, uses, first exchange]
        self.entries: list[dict] = []
        self._txt = redact_text if redact else _same
        self._obj = redact_obj if redact else _same

    def _row(self, frame: str, **values) -> None:
        cols = self.cols[frame]
        for col, lst in cols.items():
            lst.append(values.get(col))

    def add(self, rec, fmt: str) -> None:
        if isinstance(rec, Decoded):
            self._decoded(rec)
        elif isinstance(rec, Event):
            self._row(
                "events", source=rec.source, location=rec.location, exchange_id=rec.exchange_id, seq=rec.seq,
                time=rec.time, type=rec.type, turn=rec.turn, step=rec.step, payload=self._obj(rec.payload),
            )
        elif isinstance(rec, ToolResult):
            self._row(
                "tool_results", exchange_id=rec.exchange_id, call_id=rec.call_id, turn=rec.turn, step=rec.step,
                is_error=rec.is_error, text=self._txt(rec.text), error_name=rec.error_name, error_code=rec.error_code,
            )
        elif isinstance(rec, Problem):
            self._row(
                "problems", source=rec.source, location=rec.location, kind=rec.kind,
                message=self._txt(rec.message), exchange_id=rec.exchange_id,
            )
        elif isinstance(rec, EntryCount):
            self.entries.append({"source": rec.source, "format": fmt, "unit": rec.unit, "entries": rec.entries})
        else:  # a reader bug, not bad input
            raise TypeError(f"unexpected record {type(rec).__name__}")

    def _decoded(self, d: Decoded) -> None:
        ex = d.exchange
        xid = ex.exchange_id
        values = {f: getattr(ex, f) for f in ex.__slots__}
        values["url"] = self._txt(ex.url)
        values["error_message"] = self._txt(ex.error_message)
        self._row("exchanges", **values)
        for pos, tool in enumerate(d.tools):
            h = schema_hash(tool.parameters)
            facts = schema_facts(tool.parameters)
            entry = self.schemas.get(h)
            if entry is None:
                props = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
                self.schemas[h] = [tool.parameters, len(props) if isinstance(props, dict) else 0, 1, xid]
            else:
                entry[2] += 1
            self._row(
                "tools", exchange_id=xid, position=pos, name=tool.name, kind=tool.kind, strict_state=tool.strict_state,
                required=facts.required, optional=facts.optional,
                additional_properties=facts.additional_properties, schema_hash=h,
            )
        for c in d.calls:
            self._row(
                "calls", exchange_id=xid, call_id=c.call_id, item_id=c.item_id, name=c.name,
                arguments_raw=self._txt(c.arguments_raw), arguments=self._obj(c.arguments),
                parse_error=c.parse_error, complete=c.complete,
            )
        for p in d.inputs:
            text = p.text
            self._row(
                "inputs", exchange_id=xid, item_index=p.item_index, part_index=p.part_index, role=p.role,
                item_type=p.item_type, part_type=p.part_type, media_type=p.media_type, byte_size=p.byte_size,
                text_chars=None if text is None else len(text),
                text=None if text is None else self._txt(text[: frames.TEXT_PREVIEW]),
                image_dropped=p.image_dropped,
            )
        for h in d.headers:
            value = redact_header(h.name, h.value) if self.redact else h.value
            self._row("headers", exchange_id=xid, direction=h.direction, name=h.name.lower(), value=value)
        for issue in d.issues:
            self._row(
                "problems", source=ex.source, location=ex.location, kind=issue.kind,
                message=self._txt(issue.message), exchange_id=xid,
            )

    def build(self) -> Capture:
        sc = self.cols["tool_schemas"]
        for h, (schema, nprops, uses, first) in self.schemas.items():
            sc["schema_hash"].append(h)
            sc["schema"].append(self._obj(schema))
            sc["n_properties"].append(nprops)
            sc["uses"].append(uses)
            sc["first_exchange_id"].append(first)
        built = {name: frames.to_frame(name, self.cols[name]) for name in FRAME_NAMES}
        entries = pd.DataFrame(self.entries, columns=["source", "format", "unit", "entries"])
        return Capture(**built, entries=entries, redacted=self.redact)


def _same(x):
    return x


__all__ = ["Capture", "CaptureError", "load_capture", "load_captures"]
