"""Capture: reader records → DataFrames with fixed dtypes, problems that reconcile, ``summary()``.

Redaction happens here, at the one boundary every value crosses on its way to a frame.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pandas as pd

from toolkit.capture import frames
from toolkit.capture.inputs import expand
from toolkit.capture.progress import Progress as _Progress
from toolkit.capture.progress import file_position
from toolkit.capture.redact import redact_header, redact_obj, redact_text
from toolkit.errors import CaptureError
from toolkit.knowledge.messages import text
from toolkit.sources import detect
from toolkit.wire.records import BAD_FIELD, Decoded, EntryCount, Event, Issue, Problem, ToolResult, names_entry
from toolkit.wire.schemas import schema_facts, schema_hash, strict_state
from toolkit.wire.values import clean_text, epoch_seconds, finite, has_surrogate, int64, what_is_wrong

FRAME_NAMES = tuple(frames.SCHEMAS)
_WHERE_SENT = ("exchange_id", "item_index", "part_index")  # the columns of ``inputs`` the wide view keeps


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
    input_prefixes: pd.DataFrame
    input_parts: pd.DataFrame
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
            lost = {loc for loc in probs.loc[probs["exchange_id"].isna(), "location"] if names_entry(loc, src.unit)}
            lost -= read_locs
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
                    "inputs": int(self.inputs["exchange_id"].isin(ids).sum())  # parts sent, prefixes included
                    + int(self.input_prefixes.loc[self.input_prefixes["exchange_id"].isin(ids), "parts"].sum()),
                    "problems": len(probs),
                }
            )
        return Summary(SUMMARY.from_records(rows))

    def inputs_sent(
        self, exchange_ids: Iterable[str] | None = None, *, parts: pd.DataFrame | None = None
    ) -> pd.DataFrame:
        """One row per part each request sent, its prefix's parts included (frame ``inputs_sent``, the rows
        ``inputs`` held before repeated inputs were stored once): requests in ``exchanges`` order, parts
        in the order sent. ``exchange_ids`` keeps only those requests, ``parts`` (rows of
        ``input_parts``) only those parts; either is applied before anything is copied."""
        ids = self.exchanges["exchange_id"]
        if exchange_ids is not None:
            ids = ids[ids.isin(list(exchange_ids))]
        part_ids = None if parts is None else parts["part_id"]
        return expand(self.inputs, self.input_prefixes, ids, part_ids=part_ids)

    def inputs_wide(
        self,
        columns: Iterable[str] | None = None,
        *,
        exchange_ids: Iterable[str] | None = None,
        parts: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """One row per part sent, with everything about it: ``inputs_sent()`` joined to ``input_parts``
        (frame ``inputs_wide``, the shape ``inputs`` had before parts were stored once).

        Rows and their order are those of ``inputs_sent()``; ``columns`` keeps only some of the part's
        columns, ``exchange_ids`` only those requests, ``parts`` (rows of ``input_parts``) only those
        parts. The narrower the ask, the less of a long conversation's history is copied back into every request.
        """
        wanted = list(frames.INPUT_PART) if columns is None else list(columns)
        frame = frames.INPUTS_WIDE.select([*_WHERE_SENT, *wanted])  # refuses a column it does not have
        refs = self.inputs_sent(exchange_ids, parts=parts)
        at = pd.Index(self.input_parts["part_id"]).get_indexer(refs["part_id"])
        if (at < 0).any():
            missing = refs.loc[at < 0, "part_id"].iloc[0]
            raise ValueError(f"inputs references part {missing!r}, which input_parts does not hold")
        data = {c: refs[c] for c in _WHERE_SENT}
        for c in wanted:
            data[c] = self.input_parts[c].take(at).set_axis(refs.index)
        return pd.DataFrame(data, columns=list(frame.columns), index=refs.index)

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
    """Like ``load_capture`` for several files at once, into one set of frames. A file named twice (the
    same file by two paths too) is read once, with a ``UserWarning`` saying so: read twice, its requests
    would be two rows each, and two recorders of one run are not the same as one file given twice."""
    builder = Builder(redact=redact, keep_bodies=keep_bodies)
    paths, repeated = distinct_paths(paths)
    for p in repeated:
        warnings.warn(f"{p}: {REPEATED}", UserWarning, stacklevel=2)
    for path, source in zip(paths, _source_names(paths)):
        fmt = detect.detect(path) if format is None else detect.check_format(format)
        reader = detect.reader_for(fmt)
        with (
            _Progress(source, enabled=progress, total_bytes=path.stat().st_size, position=file_position(path)) as bar,
            gc_paused(),
        ):
            for record in reader(path, source):
                builder.add(record, fmt)
                bar.tick()
    with gc_paused():
        return builder.build()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off while records are read and rows built: its full collections over
    millions of young tuples cost about a tenth of a load, and the few cycles wait until it is back."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


#: what is said of a file given more than once (``load_captures``, ``find_captures``, the CLI)
REPEATED = text("input.repeated")


def distinct_paths(paths: Iterable) -> tuple[list[Path], list[str]]:
    """``(each file once, in the order first named; the later namings, as given)``: two paths name the
    same file when they resolve to it (``a.har``, ``./a.har``, a symlink to it)."""
    kept: list[Path] = []
    repeated: list[str] = []
    seen: set[Path] = set()
    for given in paths:
        key = Path(given).resolve()
        if key in seen:
            repeated.append(str(given))
            continue
        seen.add(key)
        kept.append(Path(given))
    return kept, repeated


def find_captures(paths: Iterable, *, format: str | None = None) -> tuple[list[Path], list[str]]:
    """Files named, plus every capture found in folders named. What a folder holds besides captures
    (transcripts, settings, READMEs) comes back as ``skipped`` with the reason, never dropped silently;
    so does a file named twice (or named and also found in a folder named), which is read once."""
    found: list[Path] = []
    skipped: list[str] = []
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
    found, repeated = distinct_paths(found)
    skipped += [f"{p}: {REPEATED}" for p in repeated]
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


class Builder:
    """Collects one tuple per row (in ``frames.SCHEMAS`` column order); builds frames once at the end.

    Shared by ``load_capture`` (one builder per load) and the streaming ingest (one per chunk, whose
    ``rows()`` go to Parquet without a DataFrame in between)."""

    def __init__(self, *, redact: bool, keep_bodies: bool = False):
        self.redact = redact
        self.keep_bodies = keep_bodies
        self.rows: dict[str, list[tuple]] = {name: [] for name in FRAME_NAMES}
        self.schemas: dict[str, list] = {}  # hash -> [schema, n_properties, uses, first exchange]
        self.parts: dict[str, list] = {}  # part id -> [its input_parts values, uses, first exchange]
        self._part_of: dict[tuple, list] = {}  # a part as read (before redaction) -> its entry in self.parts
        # per request with input: (its prefix or None, parts before its own, its own (item, part, id) rows);
        # a request with no rows of its own (a retry) shares its prefix's entry
        self._own: dict[str, tuple[str | None, int, list[tuple]]] = {}
        self._full: dict[tuple[str, int, int], list[str]] = {}  # (source, parts, chain hash) -> requests
        self.entries: list[dict] = []
        self._txt_cache: dict[str, str | None] = {}
        self._header_cache: dict[tuple[str, str, str], tuple[str, str, str | None]] = {}

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

    def _obj(self, obj):
        """``redact_obj`` with this builder's memoised string redaction (bodies resend histories). A
        method, not a bound method kept on the builder: that would be a cycle, freed only by the
        collector, which is paused while a streaming ingest drops one builder per chunk."""
        return redact_obj(obj, text=self._txt) if self.redact else obj

    def add(self, rec, fmt: str) -> None:
        if isinstance(rec, Decoded):
            rec.issues.extend(_checked_decoded(rec))
            self._decoded(rec)
        elif isinstance(rec, Event):
            for message in _checked(rec, _EVENT_FIELDS, "event"):
                self.rows["problems"].append((rec.source, rec.location, BAD_FIELD, message, rec.exchange_id))
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
            for message in _checked(rec, _RESULT_FIELDS, "tool result"):
                where = (rec.source or "", rec.location or f"call {rec.call_id}")
                self.rows["problems"].append((*where, BAD_FIELD, message, rec.exchange_id))
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
                name = fn.get("name")
                if name is None or isinstance(name, str):
                    echoed.setdefault(name, strict_state(t))
                else:  # a name that is a list names no tool
                    d.issues.append(Issue(BAD_FIELD, f"echoed tool name: {what_is_wrong(name)}, not a string; ignored"))
        tools = self.rows["tools"]
        for pos, tool in enumerate(d.tools):
            h = schema_hash(tool.parameters)
            facts = schema_facts(tool.parameters, h)
            entry = self.schemas.get(h)
            if entry is None:
                if _holds_surrogate(tool.parameters):  # checked once per distinct schema
                    d.issues.append(Issue(BAD_FIELD, f"tool {tool.name} parameters: text with a lone surrogate"))
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
        if d.inputs:
            self._inputs(xid, ex.source, d.inputs)
        headers = self.rows["headers"]
        seen = self._header_cache
        cached = seen.get
        head = (xid,)
        for hd in d.headers:
            key = (hd.direction, hd.name, hd.value)
            row = cached(key)
            if row is None:  # every request repeats most of its headers: redact each one once
                if len(seen) > 65536:
                    seen.clear()
                value = redact_header(hd.name, hd.value) if self.redact else hd.value
                row = seen[key] = (hd.direction, hd.name.lower(), value)
            headers.append(head + row)
        problems = self.rows["problems"]
        for issue in d.issues:
            problems.append((ex.source, ex.location, issue.kind, txt(issue.message), xid))

    def _inputs(self, xid: str, source: str, parts: list) -> None:
        """Rows of ``inputs`` past the longest earlier input of the source this one begins with (its row
        of ``input_prefixes``). Candidates come from a chain hash over whole items; the match is checked
        part by part against the earlier request's stored rows, so a hash collision cannot join two
        inputs. What is kept per request is its own rows: memory grows with the conversation, not its square."""
        preview = frames.TEXT_PREVIEW
        part_of = self._part_of
        known = part_of.get
        sent: list[tuple] = []  # (item_index, part_index, part_id) per part, in the order sent
        ends: list[tuple[int, int]] = []  # (parts so far, chain hash) at the end of each item
        keep, end = sent.append, ends.append
        h = hash(source)
        last = parts[0].item_index
        for p in parts:
            text = p.text
            key = (
                p.role,
                p.item_type,
                p.part_type,
                p.call_id,
                p.name,
                p.media_type,
                p.byte_size,
                None if text is None else len(text),
                None if text is None else text[:preview],
                p.image_dropped,
            )
            entry = known(key)
            if entry is None:
                entry = part_of[key] = self._new_part(key, xid)
            entry[2] += 1
            item = p.item_index
            if item != last:
                end((len(sent), h))
                last = item
            row = (item, p.part_index, entry[0])
            h = hash((h, row))
            keep(row)
        ends.append((len(sent), h))
        own = sent
        match = self._prefix(source, sent, ends)
        if match is None:
            self._own[xid] = (None, 0, own)
        else:
            earlier, items, n = match
            self.rows["input_prefixes"].append((xid, earlier, items, n))
            own = sent[n:]
            self._own[xid] = (earlier, n, own) if own else self._own[earlier]
        self._full.setdefault((source, *ends[-1]), []).append(xid)
        self.rows["inputs"] += [(xid, *row) for row in own]

    def _prefix(self, source: str, sent: list[tuple], ends: list[tuple[int, int]]) -> tuple[str, int, int] | None:
        """(earlier request, items, parts) of the longest earlier whole input ``sent`` begins with (ties:
        the latest), or None."""
        for items in range(len(ends), 0, -1):
            n, h = ends[items - 1]
            for earlier in reversed(self._full.get((source, n, h), ())):
                if self._begins_with(sent, earlier, n):
                    return earlier, items, n
        return None

    def _begins_with(self, sent: list[tuple], earlier: str, n: int) -> bool:
        """Whether ``sent`` begins with the whole input of request ``earlier`` (``n`` parts): its own rows,
        then its prefix's, back to the first request of the chain."""
        at: str | None = earlier
        while at is not None:
            at, lo, own = self._own[at]
            if sent[lo:n] != own:
                return False
            n = lo
        return n == 0

    def _new_part(self, key: tuple, xid: str) -> list:
        """The entry of a part not read before: [part id, values, uses, first exchange]. Two parts
        that redaction makes equal are one part (the id is a hash of what the frame holds)."""
        values = (*key[:8], self._txt(key[8]), key[9])
        pid = part_id(values)
        entry = self.parts.get(pid)
        if entry is None:
            entry = self.parts[pid] = [pid, values, 0, xid]
        return entry

    def finish(self) -> dict[str, list[tuple]]:
        """Every frame's rows, the stored-once frames (parts, schemas) with their final counts; once."""
        # a problem's message may quote what it found (a lone surrogate among it): the toolkit's own text is cleaned
        self.rows["problems"] = [
            (s, loc, kind, m if m is None or m.isascii() else clean_text(m), x)
            for s, loc, kind, m, x in self.rows["problems"]
        ]
        self.rows["input_parts"] = [(pid, *values, uses, first) for pid, values, uses, first in self.parts.values()]
        for h, (schema, nprops, uses, first) in self.schemas.items():
            self.rows["tool_schemas"].append((h, self._obj(schema), nprops, uses, first))
        return self.rows

    def build(self) -> Capture:
        rows = self.finish()
        built = {name: frames.from_rows(name, rows[name]) for name in FRAME_NAMES}
        return Capture(**built, entries=ENTRIES.from_records(self.entries), redacted=self.redact)


_MISS = object()

# What each field of a record must be to fit its frame column: "int" (int64), "time" (epoch seconds a
# timestamp holds), "float" (finite), "text" (a string with no lone surrogate), "bool".
_EXCHANGE_FIELDS = {
    "started_at": "time",
    "method": "text",
    "url": "text",
    "host": "text",
    "path": "text",
    "model": "text",
    "stream": "bool",
    "status": "int",
    "duration_ms": "float",
    "request_bytes": "int",
    "response_bytes": "int",
    "error_type": "text",
    "error_code": "text",
    "error_message": "text",
    "provider": "text",
    "input_tokens": "int",
    "output_tokens": "int",
    "cache_read_tokens": "int",
    "reasoning_tokens": "int",
    "log_id": "text",
}
_EVENT_FIELDS = {"seq": "int", "time": "time", "type": "text", "turn": "int", "step": "int"}
_TOOL_FIELDS = {"name": "text", "description": "text", "kind": "text"}
_CALL_FIELDS = {"call_id": "text", "item_id": "text", "name": "text", "arguments_raw": "text", "parse_error": "text"}
_HEADER_FIELDS = {"name": "text", "value": "text"}
_RESULT_FIELDS = {
    "call_id": "text",
    "is_error": "bool",
    "text": "text",
    "error_name": "text",
    "error_code": "text",
    "turn": "int",
    "step": "int",
}
_PART_FIELDS = {
    "item_type": "text",
    "part_type": "text",
    "role": "text",
    "media_type": "text",
    "byte_size": "int",
    "text": "text",
    "call_id": "text",
    "name": "text",
}
_FITS = {
    "int": int64,
    "time": epoch_seconds,
    "float": finite,
    "bool": lambda v: v if isinstance(v, bool) else None,
}


def _checked(rec, fields: dict[str, str], what: str) -> list[str]:
    """Each field of ``rec`` that does not fit its column made ``None`` (text: its lone surrogates made
    U+FFFD), with one message per field saying what it held. The readers check what they compute with;
    this is the last check before a column, so that no reader's miss costs the rest of the file."""
    out = []
    for name, form in fields.items():
        v = getattr(rec, name)
        if v is None:
            continue
        if form == "text":
            if type(v) is str:
                if v.isascii() or not has_surrogate(v):
                    continue
                setattr(rec, name, clean_text(v))
                out.append(f"{what} {name}: a lone surrogate, read as U+FFFD")
                continue
            fit = None
        else:
            fit = _FITS[form](v)
            if fit is not None and (form != "int" or fit is v):
                if fit is not v:
                    setattr(rec, name, fit)
                continue
        setattr(rec, name, None)
        out.append(f"{what} {name}: {what_is_wrong(v)} does not fit; left empty")
    return out


def _holds_surrogate(obj) -> bool:
    """Whether a parsed JSON value holds a lone surrogate anywhere (orjson refuses to write one)."""
    try:
        orjson.dumps(obj)
    except TypeError:
        try:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return True
        except (TypeError, ValueError, RecursionError):  # not JSON at all: not this check's to say
            return False
    return False


def _checked_decoded(d: Decoded) -> list[Issue]:
    """``_checked`` over an exchange and everything read with it, as issues of the exchange."""
    messages = _checked(d.exchange, _EXCHANGE_FIELDS, "exchange")
    for t in d.tools:
        messages += _checked(t, _TOOL_FIELDS, "tool")
    for c in d.calls:
        messages += _checked(c, _CALL_FIELDS, "call")
    for h in d.headers:
        name, value = h.name, h.value
        if type(name) is str and type(value) is str and name.isascii() and value.isascii():
            continue  # nearly every header: nothing to check
        messages += _checked(h, _HEADER_FIELDS, f"{h.direction} header")
        if h.name is None:
            h.name = ""
        if h.value is None:
            h.value = ""
    for p in d.inputs or ():
        messages += _checked(p, _PART_FIELDS, "input part")
    return [Issue(BAD_FIELD, m) for m in dict.fromkeys(messages)]


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


def part_id(values: tuple) -> str:
    """First 16 hex chars of sha256 over the part's ``input_parts`` values as JSON, in column order:
    stable across loads and machines, and no more revealing than the (redacted) values themselves."""
    try:  # orjson writes these values (text, integers, booleans, None) byte for byte as json.dumps does
        doc = orjson.dumps(values)
    except TypeError:  # what orjson refuses (an integer past 64 bits, a lone surrogate): the reference writer
        doc = json.dumps(list(values), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return hashlib.sha256(doc).hexdigest()[:16]


__all__ = [
    "ENTRIES",
    "REPEATED",
    "SUMMARY",
    "Builder",
    "Capture",
    "CaptureError",
    "Summary",
    "distinct_paths",
    "find_captures",
    "gc_paused",
    "load_capture",
    "load_captures",
    "part_id",
]
