"""Streaming ingest: one capture file → a partitioned Parquet dataset, in bounded memory.

Layout (``OUT`` is the dataset folder)::

    OUT/manifest.json                                   one entry per input file (see ``ingest``)
    OUT/<frame>/source=<source>/day=<YYYY-MM-DD>/part-<NNNNN>.parquet

The reader's records go to a fresh ``load.Builder`` per chunk of ``chunk`` exchanges; each chunk's
frames are written as one row group per (frame, source, day) partition, so memory depends on the
chunk, not the file. ``day`` is the UTC day of the row's exchange (``started_at``; an event without
a known exchange: its own ``time``; no time: ``unknown``). Frames that aggregate across exchanges
(``AGGREGATED``: ``tool_schemas``, one row per schema hash with its ``uses``) keep only their keys,
counts and days in memory: a key's first row is staged when it is first seen and the final rows,
with their totals, are written at the end. The dataset's frames equal ``load_capture``'s for the
same file (``read_frame``), rows ordered by day then file order.

``ingest`` is a pure function of one file: it writes into a staging folder and then replaces that
file's ``source=`` partitions and manifest entry, so files can be ingested in parallel
(``ingest_many``: processes; ``ingest_with_dask``: one Dask task per file) into one dataset that
DuckDB, Spark, Polars or pandas read. Ctrl-C stops cleanly: every Parquet file written is closed
(valid), the rows read so far are in place and the manifest entry says ``complete: false``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import quote

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from toolkit.capture import frames
from toolkit.capture.load import FRAME_NAMES, Builder, gc_paused
from toolkit.capture.progress import Progress, file_position
from toolkit.errors import InputError
from toolkit.sources import detect
from toolkit.sources.jsonl import split as jsonl_split
from toolkit.wire.records import Decoded, EntryCount

__all__ = [
    "AGGREGATED",
    "CHUNK",
    "MANIFEST",
    "PARALLEL_MIN_BYTES",
    "TUPLE_COLUMNS",
    "DatasetError",
    "ingest",
    "ingest_many",
    "ingest_with_dask",
    "read_frame",
    "read_manifest",
    "source_dir",
]

#: Exchanges per chunk (one builder, one row group per partition).
CHUNK = 1000

#: A JSONL log is read in line ranges (``ingest(jobs=)``) of at least this many bytes each.
PARALLEL_MIN_BYTES = 1 << 24

#: The manifest's file name in the dataset folder.
MANIFEST = "manifest.json"

#: Frames with one row per key across the whole file: (key column, count column summed over chunks,
#: exchange column whose day partitions the row). Their rows are written when the file ends.
AGGREGATED: dict[str, tuple[str, str, str]] = {
    "tool_schemas": ("schema_hash", "uses", "first_exchange_id"),
    "input_parts": ("part_id", "uses", "first_exchange_id"),
}

#: Object columns that hold tuples (JSON has only arrays; ``read_frame`` turns them back).
TUPLE_COLUMNS: dict[str, tuple[str, ...]] = {"tools": ("required", "optional")}

_UNKNOWN_DAY = "unknown"
_MAX_OPEN_WRITERS = 64  # partitions open at once; a partition reopened later gets its next part file
_RECORDS_PER_EXCHANGE = 64  # a chunk also ends after chunk * this many records (event-only streams)
_STAGING = ".staging"


class DatasetError(InputError):
    """A dataset folder that cannot be read or written as this module's layout."""


# -- schemas -------------------------------------------------------------------------------------


def _json_columns(frame: str) -> list[str]:
    return [c for c, t in frames.SCHEMAS[frame].items() if t is object]


def _arrow_type(dtype: Any) -> pa.DataType:
    if isinstance(dtype, pd.CategoricalDtype) or dtype == frames.CAT:
        return pa.dictionary(pa.int32(), pa.string())
    if dtype == frames.UTC_TIME:
        return pa.timestamp("us", tz="UTC")
    return {
        "string": pa.string(),
        "Int64": pa.int64(),
        "Float64": pa.float64(),
        "boolean": pa.bool_(),
    }.get(dtype, pa.string())  # object columns: JSON text


def _arrow_schema(frame: str) -> pa.Schema:
    """The Parquet schema of a frame: the same in every file, whatever values a chunk holds."""
    return pa.schema([pa.field(c, _arrow_type(t)) for c, t in frames.SCHEMAS[frame].items()])


def _series_to_arrow(dtype: Any, s: pd.Series) -> pa.Array:
    if dtype is object:
        return pa.array([None if v is None else _json(v) for v in s], pa.string())
    if isinstance(dtype, pd.CategoricalDtype) or dtype == frames.CAT:
        arr = pa.array(s, from_pandas=True)  # the categorical's codes and categories, as they are
        if not pa.types.is_dictionary(arr.type) or arr.type.value_type not in (pa.string(), pa.large_string()):
            values = [None if pd.isna(v) else str(v) for v in s.astype(object)]
            arr = pa.array(values, pa.string()).dictionary_encode()
        return arr.cast(_arrow_type(dtype))
    return pa.array(s, from_pandas=True).cast(_arrow_type(dtype))


def _to_arrow(frame: str, df: pd.DataFrame) -> pa.Table:
    arrays = [_series_to_arrow(dtype, df[col]) for col, dtype in frames.SCHEMAS[frame].items()]
    return pa.Table.from_arrays(arrays, schema=_arrow_schema(frame))


def _json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, default=list)


_PLAIN = {"string": pa.string(), "Int64": pa.int64(), "Float64": pa.float64(), "boolean": pa.bool_()}


def _column_to_arrow(frame: str, col: str, dtype: Any, values: list) -> pa.Array:
    """A builder column straight to Arrow; a value Arrow will not take as it is (an int in a string
    column, a float in an integer one, a timestamp) goes the DataFrame way, so the result is the same."""
    try:
        if dtype is object:
            return pa.array([None if v is None else _json(v) for v in values], pa.string())
        plain = _PLAIN.get(dtype) if isinstance(dtype, str) else None
        if plain is not None:
            if plain == pa.int64() and any(type(v) is bool for v in values):
                raise TypeError("a bool in an integer column")
            return pa.array(values, plain, from_pandas=True)
        if isinstance(dtype, pd.CategoricalDtype) or dtype == frames.CAT:
            if isinstance(dtype, pd.CategoricalDtype):
                known = set(dtype.categories)
                odd = {v for v in values if v is not None and v not in known}
                if odd:  # the declaration's own error
                    raise TypeError(odd)
            arr = pa.array(values, pa.string())
            return arr.dictionary_encode().cast(_arrow_type(dtype))
    except (TypeError, ValueError, pa.ArrowException):
        pass
    series = frames.CAPTURE[frame].select([col]).from_columns({col: values})[col]
    return _series_to_arrow(dtype, series)


def _rows_to_arrow(frame: str, rows: list[tuple]) -> pa.Table:
    """The table ``_to_arrow(frame, frames.from_rows(frame, rows))`` gives, without the DataFrame."""
    schema = frames.SCHEMAS[frame]
    width = len(schema)
    for i, row in enumerate(rows):
        if len(row) != width:
            raise ValueError(f"{frame}: row {i} has {len(row)} values for {width} columns")
    columns = list(zip(*rows)) if rows else [()] * width
    arrays = [
        _column_to_arrow(frame, col, dtype, list(values)) for (col, dtype), values in zip(schema.items(), columns)
    ]
    return pa.Table.from_arrays(arrays, schema=_arrow_schema(frame))


# -- writing -------------------------------------------------------------------------------------


def source_dir(source: str) -> str:
    """The ``source=`` partition folder of a source name (percent-encoded: DuckDB, pyarrow and Spark
    decode it back, so the partition value equals the rows' ``source``)."""
    return "source=" + quote(source, safe="")


class _Partitions:
    """The open ``ParquetWriter`` of each (frame, day) of one source, at most ``_MAX_OPEN_WRITERS``."""

    def __init__(self, root: Path, source: str):
        self.root = root
        self.source_dir = source_dir(source)
        self.open: OrderedDict[tuple[str, str], pq.ParquetWriter] = OrderedDict()
        self.parts: dict[tuple[str, str], int] = {}
        self.files: list[str] = []

    def write(self, frame: str, day: str, table: pa.Table) -> None:
        key = (frame, day)
        writer = self.open.get(key)
        if writer is None:
            if len(self.open) >= _MAX_OPEN_WRITERS:
                self.open.popitem(last=False)[1].close()
            n = self.parts.get(key, 0)
            self.parts[key] = n + 1
            rel = f"{frame}/{self.source_dir}/day={day}/part-{n:05d}.parquet"
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            self.open[key] = writer
            self.files.append(rel)
        else:
            self.open.move_to_end(key)
        writer.write_table(table)

    def close(self) -> None:
        while self.open:
            self.open.popitem(last=False)[1].close()


def _days(times: pd.Series) -> list[str]:
    return [_UNKNOWN_DAY if pd.isna(t) else t.strftime("%Y-%m-%d") for t in times]


_COLUMN = {f: {c: i for i, c in enumerate(cols)} for f, cols in frames.SCHEMAS.items()}


class _DayOf:
    """The UTC day of a time as the builder holds it (epoch seconds, rarely a timestamp), as the
    frame's own conversion gives it; one conversion per day, not per row, away from midnight."""

    def __init__(self) -> None:
        self.days: dict[float, str] = {}

    def __call__(self, t: Any) -> str:
        if type(t) is float or type(t) is int:
            n = t // 86400
            if 1.0 < t - n * 86400 < 86399.0:
                day = self.days.get(n)
                if day is None:
                    day = self.days[n] = self.exact(n * 86400 + 43200)
                return day
        return self.exact(t)

    @staticmethod
    def exact(t: Any) -> str:
        return _days(_STARTED_AT.from_columns({"started_at": [t]})["started_at"])[0]


_STARTED_AT = frames.CAPTURE["exchanges"].select(["started_at"])


class _Chunks:
    """Writes the frames of each chunk's rows, partitioned by day; aggregates ``AGGREGATED``."""

    def __init__(self, root: Path, source: str, chunk: int):
        self.parts = _Partitions(root, source)
        self.keep_days = max(16 * CHUNK, 4 * chunk)
        self.rows = dict.fromkeys(FRAME_NAMES, 0)
        self.recent_days: OrderedDict[str, str] = OrderedDict()  # exchange id -> day, last few
        self.aggregates: dict[str, dict[str, list]] = {f: {} for f in AGGREGATED if f in FRAME_NAMES}
        self.staged = {f: root / _STAGING / f"{f}.parquet" for f in self.aggregates}
        self.stage_writers: dict[str, pq.ParquetWriter] = {}
        self.chunks = 0
        self.day_of = _DayOf()

    def write(self, rows: dict[str, list[tuple]]) -> None:
        """One chunk: ``Builder.finish()``'s rows of every frame."""
        at = _COLUMN["exchanges"]
        xi, ti = at["exchange_id"], at["started_at"]
        recent = self.recent_days
        for r in rows["exchanges"]:
            xid = r[xi]
            recent[xid] = self.day_of(r[ti])
            recent.move_to_end(xid)
        while len(recent) > self.keep_days:
            recent.popitem(last=False)
        for frame in FRAME_NAMES:
            frame_rows = rows[frame]
            if frame in self.aggregates:
                self._aggregate(frame, frame_rows)
                continue
            if not frame_rows:
                continue
            self.rows[frame] += len(frame_rows)
            days = self._row_days(frame, frame_rows)
            table = _rows_to_arrow(frame, frame_rows)
            groups: dict[str, list[int]] = {}
            for i, day in enumerate(days):
                groups.setdefault(day, []).append(i)
            if len(groups) == 1:
                self.parts.write(frame, days[0], table)
                continue
            for day, idx in groups.items():
                self.parts.write(frame, day, table.take(pa.array(idx)))
        self.chunks += 1

    def _row_days(self, frame: str, rows: list[tuple]) -> list[str]:
        at = _COLUMN[frame]
        day_of = self.day_of
        if frame == "exchanges":
            i = at["started_at"]
            return [day_of(r[i]) for r in rows]
        ti = at.get("time")
        xi = at.get("exchange_id")
        if xi is None:
            return [day_of(r[ti]) for r in rows] if ti is not None else [_UNKNOWN_DAY] * len(rows)
        recent = self.recent_days
        if ti is None:
            return [recent.get(r[xi], _UNKNOWN_DAY) if r[xi] is not None else _UNKNOWN_DAY for r in rows]
        return [recent.get(r[xi]) or day_of(r[ti]) if r[xi] is not None else day_of(r[ti]) for r in rows]

    def _aggregate(self, frame: str, rows: list[tuple]) -> None:
        key, count, first = AGGREGATED[frame]
        at = _COLUMN[frame]
        ki, ni, fi = at[key], at[count], at[first]
        seen = self.aggregates[frame]
        new = []
        for r in rows:
            k, n, x = r[ki], r[ni], r[fi]
            entry = seen.get(k)
            if entry is None:
                seen[k] = [int(n), self.recent_days.get(x, _UNKNOWN_DAY) if isinstance(x, str) else _UNKNOWN_DAY]
                new.append(r)
            else:
                entry[0] += int(n)
        if new:
            table = _rows_to_arrow(frame, new)
            writer = self.stage_writers.get(frame)
            if writer is None:
                self.staged[frame].parent.mkdir(parents=True, exist_ok=True)
                writer = self.stage_writers[frame] = pq.ParquetWriter(self.staged[frame], table.schema)
            writer.write_table(table)

    def finish(self) -> None:
        """Write the aggregated frames with their totals, close every file."""
        self.close_part()
        self.write_aggregates(self.aggregates, {f: [p] for f, p in self.staged.items() if p.exists()})

    def close_part(self) -> None:
        """Close every file, leaving the aggregated frames staged (a part of a file read in parallel)."""
        for writer in self.stage_writers.values():
            writer.close()
        self.stage_writers = {}
        self.parts.close()

    def write_aggregates(self, aggregates: dict[str, dict[str, list]], staged: dict[str, list[Path]]) -> None:
        """One row per key with its total, from the first staged file (in file order) holding it."""
        for frame, files in staged.items():
            key, count, _first = AGGREGATED[frame]
            seen = aggregates[frame]
            written: set[str] = set()
            for path in files:
                for batch in pq.ParquetFile(path).iter_batches(batch_size=4096):
                    table = pa.Table.from_batches([batch])
                    keys = table.column(key).to_pylist()
                    if len(files) > 1:  # a key first seen in an earlier part was staged there
                        keep = [i for i, k in enumerate(keys) if k not in written]
                        written.update(keys)
                        if len(keep) < len(keys):
                            table, keys = table.take(pa.array(keep, pa.int64())), [keys[i] for i in keep]
                    i = table.schema.get_field_index(count)
                    table = table.set_column(i, count, pa.array([seen[k][0] for k in keys], pa.int64()))
                    groups: dict[str, list[int]] = {}
                    for j, k in enumerate(keys):
                        groups.setdefault(seen[k][1], []).append(j)
                    for day, idx in groups.items():
                        self.parts.write(frame, day, table.take(pa.array(idx, pa.int64())))
            self.rows[frame] = len(seen)
        self.parts.close()

    def abandon(self) -> None:
        for writer in self.stage_writers.values():
            writer.close()
        self.parts.close()


def _sha256(f: BinaryIO, stop: threading.Event, out: dict) -> None:
    """The file's digest, read beside the reader (hashlib releases the GIL on large blocks)."""
    h = hashlib.sha256()
    with f:
        while block := f.read(1 << 20):
            if stop.is_set():
                return
            h.update(block)
    out["sha256"] = h.hexdigest()


def _new_builder(redact: bool) -> Builder:
    return Builder(redact=redact)


def _dtype_name(dtype: Any) -> str:
    """A declared dtype as pandas names it (``object``, ``string``, ``Int64``, ``category``), the name
    ``pandas_dtype`` reads back: ``str(object)`` would be the Python repr ``<class 'object'>``."""
    return str(pd.api.types.pandas_dtype(dtype))


def _one_pass_records(results: list[dict]) -> int:
    """The records one pass over the whole file yields, from the parts read in parallel: each part ends
    with its own count of lines (an ``EntryCount`` record) where one pass ends with one."""
    counts = sum(len(r["entries"]) for r in results)
    return sum(r["records"] for r in results) - max(0, counts - 1)


class _Reading:
    """The counts of one read (a whole file, or one part of it read in parallel)."""

    def __init__(self) -> None:
        self.records = self.exchanges = 0
        self.entries: list[dict] = []
        self.complete = False
        self.bytes_read: int | None = None

    def merge(self, other: dict) -> None:
        self.records += other["records"]
        self.exchanges += other["exchanges"]
        self.entries += other["entries"]


def _read(records: Iterable, fmt: str, chunks: _Chunks, counts: _Reading, redact: bool, chunk: int, tick) -> None:
    """The records, a builder per chunk, into ``chunks``; what was read is written also on Ctrl-C."""
    builder, in_chunk, recs_in_chunk = _new_builder(redact), 0, 0
    try:
        with gc_paused():
            for rec in records:
                builder.add(rec, fmt)
                counts.records += 1
                recs_in_chunk += 1
                tick()
                if isinstance(rec, EntryCount):
                    counts.entries.append({"unit": rec.unit, "entries": rec.entries})
                elif isinstance(rec, Decoded):
                    counts.exchanges += 1
                    in_chunk += 1
                if in_chunk >= chunk or recs_in_chunk >= chunk * _RECORDS_PER_EXCHANGE:
                    chunks.write(builder.finish())
                    builder, in_chunk, recs_in_chunk = _new_builder(redact), 0, 0
        counts.complete = True
    finally:
        with _interrupts_deferred():
            if recs_in_chunk:
                chunks.write(builder.finish())
            del builder


#: Per worker of a parallel read: (records, bytes) read so far, for the parent's progress line.
_SHARED: Any = None


def _init_worker(shared: Any) -> None:
    global _SHARED
    _SHARED = shared


def _read_part(args: tuple) -> dict:
    """One line range of a file read in parallel, into its own staging folder (a worker process)."""
    path, stage, source, fmt, redact, chunk, part, k = args
    chunks = _Chunks(Path(stage), source, chunk)
    counts = _Reading()
    at = [part[0]]
    shared = _SHARED

    def tick() -> None:
        if shared is not None:
            shared[2 * k] = counts.records
            shared[2 * k + 1] = at[0] - part[0]

    try:
        with contextlib.suppress(KeyboardInterrupt):  # a Ctrl-C stops the part: what it read is kept
            _read(jsonl_split.read_range(path, source, part, at=at), fmt, chunks, counts, redact, chunk, tick)
        chunks.close_part()
    except BaseException:
        chunks.abandon()
        raise
    return {
        "records": counts.records,
        "exchanges": counts.exchanges,
        "entries": counts.entries,
        "complete": counts.complete,
        "bytes_read": at[0] - part[0],
        "rows": chunks.rows,
        "chunks": chunks.chunks,
        "files": chunks.parts.files,
        "aggregates": chunks.aggregates,
        "staged": {f: str(p) for f, p in chunks.staged.items() if p.exists()},
    }


def _merge_parts(chunks: _Chunks, stage: Path, results: list[dict]) -> None:
    """The parts' files into ``stage`` in file order (renumbered per partition), then the aggregated
    frames with totals over every part."""
    parts = chunks.parts
    for k, res in enumerate(results):
        for rel in res["files"]:
            frame, _sdir, day_dir, _name = rel.split("/")
            key = (frame, day_dir.removeprefix("day="))
            n = parts.parts.get(key, 0)
            parts.parts[key] = n + 1
            new = f"{frame}/{parts.source_dir}/{day_dir}/part-{n:05d}.parquet"
            (stage / new).parent.mkdir(parents=True, exist_ok=True)
            os.replace(stage / f"part{k}" / rel, stage / new)
            parts.files.append(new)
        for frame, n in res["rows"].items():
            if frame not in chunks.aggregates:
                chunks.rows[frame] += n
        chunks.chunks += res["chunks"]
    merged: dict[str, dict[str, list]] = {f: {} for f in chunks.aggregates}
    staged: dict[str, list[Path]] = {f: [] for f in chunks.aggregates}
    for res in results:
        for frame, seen in res["aggregates"].items():
            into = merged[frame]
            for key, (n, day) in seen.items():
                entry = into.get(key)
                if entry is None:
                    into[key] = [n, day]
                else:
                    entry[0] += n
        for frame, p in res["staged"].items():
            staged[frame].append(Path(p))
    chunks.write_aggregates(merged, {f: ps for f, ps in staged.items() if ps})


def ingest(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    source: str | None = None,
    format: str | None = None,
    redact: bool = True,
    chunk: int = CHUNK,
    progress: bool | None = None,
    jobs: int = 1,
) -> dict:
    """Read one capture file into the dataset at ``out``; return its manifest entry.

    ``source`` names the rows (default: the file's name, as ``load_capture`` names them). The entry
    holds path, source, format, sha256, bytes, entries (what the reader counted), rows per frame,
    problems, chunks, parts and ``complete``. ``jobs`` > 1 reads a plain (uncompressed) JSONL log of
    at least twice ``PARALLEL_MIN_BYTES`` in up to that many line ranges, one process each, into the same dataset a single
    process writes (other files: one process). On Ctrl-C the rows read so far are written and
    closed, the entry says ``complete: false`` (with ``records`` and ``bytes_read``: how far it
    got) and ``KeyboardInterrupt`` is raised again. Re-ingesting a file replaces its partitions and
    entry."""
    path, out = Path(path), Path(out)
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, not {chunk}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    source = path.name if source is None else source
    fmt = detect.detect(path) if format is None else detect.check_format(format)
    reader = detect.reader_for(fmt)
    out.mkdir(parents=True, exist_ok=True)
    _check_source(out, source, path)
    parts = jsonl_split.ranges(path, jobs, min_bytes=PARALLEL_MIN_BYTES) if jobs > 1 and fmt == "jsonl" else []
    stage = out / _STAGING / f"{quote(source, safe='')}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    stage.mkdir(parents=True)
    size = path.stat().st_size
    digest: dict[str, str] = {}
    stop = threading.Event()
    hashed = open(path, "rb")  # the thread closes it
    hashed_fd = hashed.fileno()
    hasher = threading.Thread(target=_sha256, args=(hashed, stop, digest), daemon=True)
    hasher.start()
    chunks = _Chunks(stage, source, chunk)
    counts = _Reading()
    started = time.monotonic()
    try:
        if len(parts) > 1:
            _read_parallel(path, stage, source, fmt, redact, chunk, parts, chunks, counts, progress)
        else:
            position = file_position(path, ignore=[hashed_fd])
            bar = Progress(source, enabled=progress, total_bytes=size, position=position)
            try:
                with bar:
                    _read(reader(path, source), fmt, chunks, counts, redact, chunk, bar.tick)
            finally:
                counts.bytes_read = size if counts.complete else position()
                with _interrupts_deferred():
                    chunks.finish()
    except KeyboardInterrupt:
        pass
    except BaseException:
        stop.set()
        chunks.abandon()
        shutil.rmtree(stage, ignore_errors=True)
        raise
    complete = counts.complete
    if complete:
        hasher.join()
    else:
        stop.set()
    entry = {
        "path": str(path.resolve()),
        "source": source,
        "format": fmt,
        "sha256": digest.get("sha256"),
        "bytes": size,
        "entries": sum(e["entries"] for e in counts.entries) if counts.entries else None,
        "unit": counts.entries[0]["unit"] if counts.entries else None,
        "records": counts.records,
        "exchanges": counts.exchanges,
        "rows": chunks.rows,
        "problems": chunks.rows.get("problems", 0),
        "chunks": chunks.chunks,
        "parts": max(1, len(parts)),
        "redacted": redact,
        "complete": complete,
        "bytes_read": counts.bytes_read,
        "seconds": round(time.monotonic() - started, 3),
        "files": sorted(chunks.parts.files),
    }
    with _interrupts_deferred():
        _publish(out, stage, source, entry)
    if not complete:
        raise KeyboardInterrupt
    return entry


def _read_parallel(
    path: Path,
    stage: Path,
    source: str,
    fmt: str,
    redact: bool,
    chunk: int,
    parts: list,
    chunks: _Chunks,
    counts: _Reading,
    progress: bool | None,
) -> None:
    """Read the line ranges in worker processes and merge them into ``chunks``.
    A Ctrl-C reaches the workers too: each closes what it wrote and returns; the parent merges."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    shared = multiprocessing.Array("q", 2 * len(parts), lock=False)
    args = [(str(path), str(stage / f"part{k}"), source, fmt, redact, chunk, p, k) for k, p in enumerate(parts)]
    bar = Progress(source, enabled=progress, total_bytes=path.stat().st_size, position=lambda: sum(shared[1::2]))
    pool = ProcessPoolExecutor(max_workers=len(parts), initializer=_init_worker, initargs=(shared,))
    interrupted = False
    try:
        with bar:
            futures = [pool.submit(_read_part, a) for a in args]
            pending = set(futures)
            ticked = 0
            while pending:
                try:
                    _done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                except KeyboardInterrupt:
                    interrupted = True  # the workers got it too; wait for what they wrote
                    continue
                now = sum(shared[0::2])
                if now > ticked:
                    bar.tick(now - ticked)
                    ticked = now
            results = [f.result() for f in futures]
            bar.n = _one_pass_records(results)  # the last line says the count the manifest keeps
    finally:
        pool.shutdown(wait=True)
    with _interrupts_deferred():
        _merge_parts(chunks, stage, results)
        chunks.parts.close()
        for res in results:
            counts.merge(res)
        counts.records = _one_pass_records(results)
        if len(counts.entries) > 1:  # each part counted its lines: one count, as one pass gives
            counts.entries = [{"unit": counts.entries[0]["unit"], "entries": sum(e["entries"] for e in counts.entries)}]
        counts.complete = not interrupted and all(r["complete"] for r in results)
        counts.bytes_read = sum(r["bytes_read"] for r in results)
    if interrupted:
        raise KeyboardInterrupt


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold a Ctrl-C that arrives while files are closed and moved; raise it afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda sig, frame: caught.append(sig))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _check_source(out: Path, source: str, path: Path) -> None:
    for entry in read_manifest(out).get("inputs", []):
        if entry["source"] == source and entry["path"] != str(path.resolve()):
            raise DatasetError(
                f"{out}: source {source!r} already holds {entry['path']}; "
                f"ingest {path} with another source= (or into another folder)"
            )


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """One writer of the manifest and partitions at a time (processes on one machine or a shared disk)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(out / ".lock", "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _publish(out: Path, stage: Path, source: str, entry: dict) -> None:
    """Replace the source's partitions with the staged ones and its manifest entry, atomically each."""
    sdir = source_dir(source)
    with _locked(out):
        for frame_dir in [p for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")]:
            shutil.rmtree(frame_dir / sdir, ignore_errors=True)
        for frame in FRAME_NAMES:
            staged = stage / frame / sdir
            if staged.is_dir():
                (out / frame).mkdir(exist_ok=True)
                os.replace(staged, out / frame / sdir)
        manifest = read_manifest(out)
        inputs = [e for e in manifest.get("inputs", []) if e["source"] != source] + [entry]
        manifest = {
            "format": "agent-contract-toolkit dataset",
            "version": 1,
            "layout": "<frame>/source=<source>/day=<YYYY-MM-DD>/part-<NNNNN>.parquet",
            "frames": {
                name: {
                    "columns": {c: _dtype_name(t) for c, t in frames.SCHEMAS[name].items()},
                    "json_columns": _json_columns(name),
                    "tuple_columns": list(TUPLE_COLUMNS.get(name, ())),
                }
                for name in FRAME_NAMES
            },
            "inputs": sorted(inputs, key=lambda e: e["source"]),
        }
        tmp = out / f".{MANIFEST}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, out / MANIFEST)
    shutil.rmtree(stage, ignore_errors=True)
    with contextlib.suppress(OSError):
        (out / _STAGING).rmdir()


# -- many files ----------------------------------------------------------------------------------


def _distinct_sources(paths: list[Path]) -> list[str]:
    from toolkit.capture.load import _source_names

    return _source_names(paths)


def _ingest_one(args: tuple[str, str, str, dict]) -> dict:
    path, out, source, options = args
    return ingest(path, out, source=source, **options)


def ingest_many(
    paths: Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    jobs: int | None = None,
    on_done: Callable[[dict], None] | None = None,
    **options: Any,
) -> list[dict]:
    """``ingest`` every file into one dataset, ``jobs`` files at a time in worker processes (default:
    the CPU count; 1 = in this process); a single file gets the ``jobs`` (``ingest``'s line ranges).
    Sources are named as ``load_captures`` names them (the shortest distinct path suffix).
    ``options`` go to ``ingest``; ``on_done`` sees each entry."""
    files = [Path(p) for p in paths]
    names = _distinct_sources(files)
    jobs = jobs or os.cpu_count() or 1
    done: list[dict] = []
    if jobs == 1 or len(files) == 1:
        for p, name in zip(files, names):
            done.append(ingest(p, out, source=name, jobs=jobs, **options))
            if on_done:
                on_done(done[-1])
        return done
    from concurrent.futures import ProcessPoolExecutor, as_completed

    options.setdefault("progress", False)  # one line per file from here instead of interleaved bars
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(files)))
    try:
        futures = [pool.submit(_ingest_one, (str(p), str(out), name, options)) for p, name in zip(files, names)]
        for fut in as_completed(futures):
            done.append(fut.result())
            if on_done:
                on_done(done[-1])
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)  # workers close their files before the pool goes
        raise
    pool.shutdown()
    return sorted(done, key=lambda e: names.index(e["source"]))


def ingest_with_dask(
    paths: Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    scheduler: Any = "processes",
    **options: Any,
) -> list[dict]:
    """``ingest`` on Dask, one ``dask.delayed`` task per file, into one dataset. ``scheduler`` is a
    Dask scheduler (``"processes"``, ``"threads"``, ``"sync"``), or None for Dask's default (a
    ``distributed.Client`` when one is active; its workers must all see ``out``)."""
    import dask

    files = [Path(p) for p in paths]
    names = _distinct_sources(files)
    options.setdefault("progress", False)
    tasks = [dask.delayed(_ingest_one)((str(p), str(out), name, options)) for p, name in zip(files, names)]
    kwargs = {} if scheduler is None else {"scheduler": scheduler}
    return list(dask.compute(*tasks, **kwargs))


# -- reading -------------------------------------------------------------------------------------


def read_manifest(out: str | os.PathLike[str]) -> dict:
    """The dataset's manifest (an empty one for a folder not ingested into yet)."""
    p = Path(out) / MANIFEST
    if not p.exists():
        return {}
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise DatasetError(f"{p}: not a dataset manifest ({exc})") from None


def read_frame(out: str | os.PathLike[str], frame: str, *, sources: Iterable[str] | None = None) -> pd.DataFrame:
    """One frame of the dataset, with the declared dtypes (``frames.SCHEMAS``): the sources in
    manifest order (or those named), each one's rows by day, then in file order."""
    if frame not in frames.SCHEMAS:
        raise DatasetError(f"{out}: no frame {frame!r} (frames: {', '.join(FRAME_NAMES)})")
    out = Path(out)
    manifest = read_manifest(out)
    if not manifest:
        raise DatasetError(f"{out}: no {MANIFEST}: not a dataset written by `agent-contract ingest`")
    names = [e["source"] for e in manifest["inputs"]] if sources is None else list(sources)
    tables = []
    for name in names:
        folder = out / frame / source_dir(name)
        files = sorted(folder.glob("day=*/part-*.parquet"), key=lambda p: (p.parent.name, p.name))
        tables += [pq.read_table(f, schema=_arrow_schema(frame)) for f in files]
    if not tables:
        return frames.empty(frame)
    df = pa.concat_tables(tables).to_pandas(types_mapper=_NULLABLE.get)
    tuples = TUPLE_COLUMNS.get(frame, ())
    for col in _json_columns(frame):
        conv = tuple if col in tuples else None
        df[col] = [None if v is None or v is pd.NA else _from_json(v, conv) for v in df[col]]
    return frames.CAPTURE[frame].conform(df)


_NULLABLE = {
    pa.int64(): pd.Int64Dtype(),
    pa.float64(): pd.Float64Dtype(),
    pa.bool_(): pd.BooleanDtype(),
    pa.string(): pd.StringDtype(),
}


def _from_json(text: str, conv: Callable[[Any], Any] | None) -> Any:
    value = json.loads(text)
    return conv(value) if conv is not None and isinstance(value, list) else value
