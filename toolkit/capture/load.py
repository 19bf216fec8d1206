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

from toolkit.capture import frames
from toolkit.capture.redact import redact_header, redact_obj, redact_text
from toolkit.errors import CaptureError
from toolkit.sources import detect
from toolkit.wire.records import Decoded, EntryCount, Event, Problem, ToolResult
from toolkit.wire.schemas import schema_facts, schema_hash, strict_state

FRAME_NAMES = tuple(frames.SCHEMAS)


#: ``Capture.entries``: per source, the entries its reader saw (``EntryCount``).
ENTRIES = frames.declare(
    "capture.entries",
    {"source": "string", "format": frames.fixed(*detect.FORMATS), "unit": frames.CAT, "entries": "Int64"},
)

#: ``Capture.summary()``: per source, entries seen, read and lost, and what they became.
SUMMARY = frames.declare(
    "capture.summary",
    {
        **ENTRIES.columns,
        "read": "Int64",
        "lost": "Int64",
        "reconciles": "boolean",
        "exchanges": "Int64",
        "events": "Int64",
        "tools": "Int64",
        "calls": "Int64",
        "inputs": "Int64",
        "problems": "Int64",
    },
)


class Summary(pd.DataFrame):
    """The summary table; printed whole (it is small), where a plain DataFrame would elide columns."""

    @property
    def _constructor(self):
        return pd.DataFrame

    def __repr__(self) -> str:
        return self.to_string(index=False)


@dataclass
class Capture:
    """Everything read from one or more captures, as DataFrames (see ``toolkit.capture.frames``)."""

    exchanges: pd.DataFrame
    tools: pd.DataFrame
    tool_schemas: pd.DataFrame
    calls: pd.DataFrame
    inputs: pd.DataFrame
    headers: pd.DataFrame
    problems: pd.DataFrame
    events: pd.DataFrame
    bodies: pd.DataFrame
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
        return Summary(SUMMARY.from_records(rows))

    def __repr__(self) -> str:
        counts = ", ".join(f"{n}={len(getattr(self, n))}" for n in FRAME_NAMES)
        return f"<Capture {counts}>"


def load_capture(
    path, *, format: str | None = None, redact: bool = True, progress: bool | None = None, keep_bodies: bool = False
) -> Capture:
    """Read one capture file (HAR, JSONL log, SSE body, DSH session, mitmproxy flows) into frames.

    The format is sniffed from the content; ``format=`` forces one of ``detect.FORMATS``. Secrets are
    redacted unless ``redact=False`` is passed explicitly. A file that cannot be read at all raises
    ``CaptureError``; bad entries become rows of ``problems``. ``keep_bodies`` also keeps each parsed
    request body (frame ``bodies``, redacted), which hop diffs need and large logs can do without.
    """
    return load_captures([path], format=format, redact=redact, progress=progress, keep_bodies=keep_bodies)


def load_captures(
    paths: Iterable,
    *,
    format: str | None = None,
    redact: bool = True,
    progress: bool | None = None,
    keep_bodies: bool = False,
) -> Capture:
    """Like ``load_capture`` for several files at once, into one set of frames."""
    builder = _Builder(redact=redact, keep_bodies=keep_bodies)
    paths = [Path(p) for p in paths]
    for path, source in zip(paths, _source_names(paths)):
        fmt = detect.detect(path) if format is None else detect.check_format(format)
        reader = detect.reader_for(fmt)
        with _Progress(source, enabled=progress) as bar:
            for record in reader(path, source):
                builder.add(record, fmt)
                bar.tick()
    return builder.build()


def find_captures(paths: Iterable, *, format: str | None = None) -> tuple[list[Path], list[str]]:
    """Files named, plus every capture found in folders named. What a folder holds besides captures
    (transcripts, settings, READMEs) comes back as ``skipped`` with the reason, never dropped silently."""
    found, skipped = [], []
    for p in map(Path, paths):
        if not p.is_dir():
            found.append(p)
            continue
        for x in sorted(x for x in p.rglob("*") if x.is_file() and not x.name.startswith(".")):
            try:
                if format is None:
                    detect.detect(x)
                found.append(x)
            except CaptureError as exc:
                skipped.append(f"{x}: {exc.reason}")
    return found, skipped


def _source_names(paths: list[Path]) -> list[str]:
    """Each file's shortest distinct path suffix: ``capture.har`` alone, ``before-fix/capture.har``
    beside ``after-fix/capture.har``, so sources (and exchange ids) never collide."""
    parts = [p.resolve().parts for p in paths]
    names = []
    for i, p in enumerate(parts):
        depth = 1
        while depth < len(p) and any(q[-depth:] == p[-depth:] for j, q in enumerate(parts) if j != i):
            depth += 1
        names.append("/".join(p[-depth:]))
    return names


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
                print(
                    f"\r{self.source}: {self.n} records, {now - self.start:.1f}s", end="", file=sys.stderr, flush=True
                )

    def __exit__(self, exc_type, exc, tb):
        if self.enabled and self.last != self.start:
            state = "interrupted" if exc_type is KeyboardInterrupt else "done"
            print(f"\r{self.source}: {self.n} records, {time.monotonic() - self.start:.1f}s, {state}", file=sys.stderr)
        return False


class _Builder:
    """Collects one tuple per row (in ``frames.SCHEMAS`` column order); builds frames once at the end."""

    def __init__(self, *, redact: bool, keep_bodies: bool = False):
        self.redact = redact
        self.keep_bodies = keep_bodies
        self.rows: dict[str, list[tuple]] = {name: [] for name in FRAME_NAMES}
        self.schemas: dict[str, list] = {}  # hash -> [schema, n_properties, uses, first exchange]
        self.entries: list[dict] = []
        self._obj = redact_obj if redact else _same
        self._txt_cache: dict[str, str | None] = {}

    def _txt(self, text: str | None) -> str | None:
        """Redact, remembering short strings: histories resend the same texts in every request."""
        if not self.redact or text is None:
            return text
        if len(text) > 2048:
            return redact_text(text)
        out = self._txt_cache.get(text, _MISS)
        if out is _MISS:
            if len(self._txt_cache) > 65536:
                self._txt_cache.clear()
            out = self._txt_cache[text] = redact_text(text)
        return out  # type: ignore[return-value]  # _MISS never leaves the cache lookup

    def add(self, rec, fmt: str) -> None:
        if isinstance(rec, Decoded):
            self._decoded(rec)
        elif isinstance(rec, Event):
            self.rows["events"].append(
                (
                    rec.source,
                    rec.location,
                    rec.exchange_id,
                    rec.seq,
                    rec.time,
                    rec.type,
                    rec.turn,
                    rec.step,
                    self._obj(rec.payload),
                )
            )
        elif isinstance(rec, ToolResult):
            self.rows["tool_results"].append(
                (
                    rec.exchange_id,
                    rec.call_id,
                    rec.turn,
                    rec.step,
                    rec.is_error,
                    self._txt(rec.text),
                    rec.error_name,
                    rec.error_code,
                )
            )
        elif isinstance(rec, Problem):
            self.rows["problems"].append((rec.source, rec.location, rec.kind, self._txt(rec.message), rec.exchange_id))
        elif isinstance(rec, EntryCount):
            self.entries.append({"source": rec.source, "format": fmt, "unit": rec.unit, "entries": rec.entries})
        else:  # a reader bug, not bad input
            raise TypeError(f"unexpected record {type(rec).__name__}")

    def _decoded(self, d: Decoded) -> None:
        ex = d.exchange
        xid = ex.exchange_id
        txt = self._txt
        self.rows["exchanges"].append(
            (
                xid,
                ex.source,
                ex.location,
                ex.started_at,
                ex.method,
                txt(ex.url),
                ex.host,
                ex.path,
                _endpoint(ex.host, ex.path, ex.provider),
                ex.api,
                ex.provider,
                ex.model,
                ex.stream,
                ex.status,
                ex.duration_ms,
                ex.request_bytes,
                ex.response_bytes,
                ex.terminal,
                ex.error_type,
                ex.error_code,
                txt(ex.error_message),
                ex.input_tokens,
                ex.output_tokens,
                ex.cache_read_tokens,
                ex.reasoning_tokens,
                ex.body_fidelity,
                ex.log_id,
            )
        )
        if self.keep_bodies and d.request is not None:
            self.rows["bodies"].append((xid, self._obj(d.request)))
        echoed: dict[str | None, str] = {}
        for t in d.echoed_tools or ():
            if isinstance(t, dict):
                fn = t["function"] if isinstance(t.get("function"), dict) else t
                echoed.setdefault(fn.get("name"), strict_state(t))
        tools = self.rows["tools"]
        for pos, tool in enumerate(d.tools):
            h = schema_hash(tool.parameters)
            facts = schema_facts(tool.parameters, h)
            entry = self.schemas.get(h)
            if entry is None:
                props = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
                self.schemas[h] = [tool.parameters, len(props) if isinstance(props, dict) else 0, 1, xid]
            else:
                entry[2] += 1
            tools.append(
                (
                    xid,
                    pos,
                    tool.name,
                    tool.kind,
                    tool.strict_state,
                    facts.required,
                    facts.optional,
                    facts.additional_properties,
                    h,
                    echoed.get(tool.name),
                )
            )
        calls = self.rows["calls"]
        for c in d.calls:
            calls.append(
                (
                    xid,
                    c.call_id,
                    c.item_id,
                    c.name,
                    txt(c.arguments_raw),
                    self._obj(c.arguments),
                    c.parse_error,
                    c.complete,
                )
            )
        inputs = self.rows["inputs"]
        preview = frames.TEXT_PREVIEW
        for p in d.inputs:
            text = p.text
            inputs.append(
                (
                    xid,
                    p.item_index,
                    p.part_index,
                    p.role,
                    p.item_type,
                    p.part_type,
                    p.call_id,
                    p.name,
                    p.media_type,
                    p.byte_size,
                    None if text is None else len(text),
                    None if text is None else txt(text[:preview]),
                    p.image_dropped,
                )
            )
        headers = self.rows["headers"]
        for hd in d.headers:
            value = redact_header(hd.name, hd.value) if self.redact else hd.value
            headers.append((xid, hd.direction, hd.name.lower(), value))
        problems = self.rows["problems"]
        for issue in d.issues:
            problems.append((ex.source, ex.location, issue.kind, txt(issue.message), xid))

    def build(self) -> Capture:
        for h, (schema, nprops, uses, first) in self.schemas.items():
            self.rows["tool_schemas"].append((h, self._obj(schema), nprops, uses, first))
        built = {name: frames.from_rows(name, self.rows[name]) for name in FRAME_NAMES}
        return Capture(**built, entries=ENTRIES.from_records(self.entries), redacted=self.redact)


_MISS = object()


_API_SUFFIXES = ("/chat/completions", "/responses", "/completions", "/messages")


def _endpoint(host: str | None, path: str | None, provider: str | None = None) -> str | None:
    """Where requests went, without the API suffix: ``127.0.0.1:18788/busy/gateway-fixed/v1``.
    A DSH session names its provider route instead."""
    if provider:
        return provider
    if not path and not host:
        return None
    p = (path or "").split("?", 1)[0].rstrip("/")
    for suffix in _API_SUFFIXES:
        if p.endswith(suffix):
            p = p[: -len(suffix)]
            break
    return f"{host or ''}{p}"


def _same(x):
    return x


__all__ = [
    "ENTRIES",
    "SUMMARY",
    "Capture",
    "CaptureError",
    "Summary",
    "find_captures",
    "load_capture",
    "load_captures",
]
