"""Streaming ingest: the Parquet dataset holds exactly what ``load_capture`` gives, in bounded chunks,
stops cleanly on Ctrl-C, and is one dataset when files are ingested in parallel."""

from __future__ import annotations

import json

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

from toolkit.capture import FRAME_NAMES, dataset, load_capture
from toolkit.capture.inputs import expand
from toolkit.present import cli
from toolkit.wire.records import Decoded

BUSY = "data/busy-day/gateway.jsonl"
SESSION = "data/dsh-before-fix/session.jsonl.zstd"
HAR = "data/dsh-before-fix/capture.har"


#: Frames a chunk boundary changes (its first request stores its whole input): compared expanded.
BY_CHUNK = ("inputs", "input_prefixes")


def sent(out, sources=None):
    """The parts each request sent, from the dataset's ``inputs`` and ``input_prefixes``."""
    ids = dataset.read_frame(out, "exchanges", sources=sources)["exchange_id"]
    refs, prefixes = (dataset.read_frame(out, f, sources=sources) for f in BY_CHUNK)
    return expand(refs, prefixes, ids)


def assert_same_frames(out, path, source=None):
    cap = load_capture(path)
    sources = None if source is None else [source]
    for name in FRAME_NAMES:
        if name in BY_CHUNK:
            continue
        expected = getattr(cap, name).reset_index(drop=True)
        got = dataset.read_frame(out, name, sources=sources)
        pd.testing.assert_frame_equal(got, expected, obj=name)
    pd.testing.assert_frame_equal(sent(out, sources), cap.inputs_sent(), obj="inputs_sent")


@pytest.mark.parametrize("path", [BUSY, SESSION, HAR])
def test_dataset_equals_load_capture(tmp_path, path):
    entry = dataset.ingest(path, tmp_path)
    assert entry["complete"] and entry["sha256"] and entry["exchanges"] == len(load_capture(path).exchanges)
    assert_same_frames(tmp_path, path)
    for rel in entry["files"]:  # the layout: frame/source=/day=/part-NNNNN.parquet
        frame, src, day, part = rel.split("/")
        assert frame in FRAME_NAMES and src == dataset.source_dir(entry["source"]) and day.startswith("day=")
        assert part.startswith("part-") and (tmp_path / rel).is_file()


@pytest.mark.parametrize(("path", "small"), [(SESSION, 1), (HAR, 1), (BUSY, 13)])
def test_chunk_size_does_not_change_the_frames(tmp_path, path, small):
    one = dataset.ingest(path, tmp_path / "one", chunk=small)
    large = dataset.ingest(path, tmp_path / "large", chunk=100_000)
    assert one["chunks"] > large["chunks"] == 1
    assert {k: n for k, n in one["rows"].items() if k not in BY_CHUNK} == {
        k: n for k, n in large["rows"].items() if k not in BY_CHUNK
    }
    for name in FRAME_NAMES:
        if name in BY_CHUNK:
            continue
        pd.testing.assert_frame_equal(
            dataset.read_frame(tmp_path / "one", name), dataset.read_frame(tmp_path / "large", name)
        )
    pd.testing.assert_frame_equal(sent(tmp_path / "one"), sent(tmp_path / "large"))
    # the aggregated frames are one row per key across chunks, with the totals
    schemas = dataset.read_frame(tmp_path / "one", "tool_schemas")
    assert schemas["schema_hash"].is_unique and schemas["uses"].sum() == one["rows"]["tools"]
    parts = dataset.read_frame(tmp_path / "one", "input_parts")
    assert parts["part_id"].is_unique and parts["uses"].sum() == len(sent(tmp_path / "one"))


def test_the_builder_never_holds_more_than_a_chunk(tmp_path, monkeypatch):
    held = []
    real = dataset._new_builder

    def counting(redact):
        b = real(redact)
        add = b.add
        held.append(0)

        def counted(rec, fmt):
            if isinstance(rec, Decoded):
                held[-1] += 1
            add(rec, fmt)

        b.add = counted
        return b

    monkeypatch.setattr(dataset, "_new_builder", counting)
    entry = dataset.ingest(BUSY, tmp_path, chunk=7)
    assert max(held) == 7 and sum(held) == entry["exchanges"] == 300
    files = [f for f in entry["files"] if f.startswith("exchanges/")]
    assert pq.ParquetFile(tmp_path / files[0]).num_row_groups == entry["chunks"] == 43  # a row group per chunk


def test_rows_of_several_days_land_in_their_day(tmp_path):
    lines = [json.loads(x) for x in open(BUSY, encoding="utf-8")][:6]
    for i, line in enumerate(lines):  # three days, in order, then one entry without a time
        line["started_at"] = 1796000000 + 86400 * (i // 2)
    del lines[-1]["started_at"]
    p = tmp_path / "days.jsonl"
    p.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    entry = dataset.ingest(p, tmp_path / "out", chunk=1)
    days = sorted({f.split("/")[2] for f in entry["files"] if f.startswith(("exchanges/", "headers/"))})
    assert days == ["day=2026-11-30", "day=2026-12-01", "day=2026-12-02", "day=unknown"]
    assert_same_frames(tmp_path / "out", p)  # in time order, day order is file order


def test_an_interrupt_leaves_a_valid_partial_dataset(tmp_path, monkeypatch):
    full = load_capture(BUSY).exchanges
    real = dataset.detect.reader_for

    def reader_for(fmt):
        read = real(fmt)

        def interrupted(path, source):
            n = 0
            for rec in read(path, source):
                yield rec
                n += isinstance(rec, Decoded)
                if n == 25:  # after 2 chunks of 10 and half of the third
                    raise KeyboardInterrupt

        return interrupted

    monkeypatch.setattr(dataset.detect, "reader_for", reader_for)
    with pytest.raises(KeyboardInterrupt):
        dataset.ingest(BUSY, tmp_path, chunk=10)
    (entry,) = dataset.read_manifest(tmp_path)["inputs"]
    assert entry["complete"] is False and entry["exchanges"] == 25 and entry["records"] == 25
    for rel in entry["files"]:
        pq.ParquetFile(tmp_path / rel)  # every file has its footer
    ex = dataset.read_frame(tmp_path, "exchanges")
    pd.testing.assert_frame_equal(ex, dataset.frames.CAPTURE["exchanges"].conform(full.head(25)))
    n = duckdb.sql(f"select count(*) from read_parquet('{tmp_path}/exchanges/**/*.parquet', hive_partitioning=true)")
    assert n.fetchall() == [(25,)]
    monkeypatch.setattr(dataset.detect, "reader_for", real)
    again = dataset.ingest(BUSY, tmp_path)  # re-ingesting replaces the partition and the entry
    assert again["complete"] and [e["exchanges"] for e in dataset.read_manifest(tmp_path)["inputs"]] == [300]
    assert len(dataset.read_frame(tmp_path, "exchanges")) == 300


def _count(out, frame="exchanges"):
    q = f"select count(*) from read_parquet('{out}/{frame}/**/*.parquet', hive_partitioning=true, union_by_name=true)"
    return duckdb.sql(q).fetchall()[0][0]


@pytest.mark.parametrize("how", ["processes", "dask"])
def test_files_in_parallel_make_one_dataset(tmp_path, how):
    paths = [BUSY, SESSION, "data/dsh-after-fix/session.jsonl.zstd"]
    if how == "dask":
        entries = dataset.ingest_with_dask(paths, tmp_path, scheduler="processes")
    else:
        entries = dataset.ingest_many(paths, tmp_path, jobs=2)
    sources = ["gateway.jsonl", "dsh-before-fix/session.jsonl.zstd", "dsh-after-fix/session.jsonl.zstd"]
    assert [e["source"] for e in entries] == sources and all(e["complete"] for e in entries)
    manifest = dataset.read_manifest(tmp_path)
    assert sorted(e["source"] for e in manifest["inputs"]) == sorted(sources)
    for frame in ("exchanges", "events", "tools"):
        assert _count(tmp_path, frame) == sum(e["rows"][frame] for e in entries) > 0
    assert _count(tmp_path) == sum(len(load_capture(p).exchanges) for p in paths)
    by_source = duckdb.sql(
        f"select source, count(*) from read_parquet('{tmp_path}/tools/**/*.parquet', hive_partitioning=true) group by 1"
    ).fetchall()
    assert dict(by_source) == {e["source"]: e["rows"]["tools"] for e in entries}
    assert pd.read_parquet(tmp_path / "exchanges")["exchange_id"].nunique() == _count(tmp_path)


def test_one_source_name_for_two_files_is_refused(tmp_path):
    dataset.ingest(BUSY, tmp_path)
    with pytest.raises(dataset.DatasetError, match="already holds"):
        dataset.ingest("data/dsh-before-fix/gateway.jsonl", tmp_path)


def test_cli_ingest(capsys, tmp_path):
    code = cli.main(["ingest", "data/dsh-before-fix", "--out", str(tmp_path), "--jobs", "2"])
    out, err = capsys.readouterr()
    assert code == 0, err
    manifest = dataset.read_manifest(tmp_path)
    assert len(manifest["inputs"]) == 4 and "skipped" in err and "dsh-run.json" in err  # not silently dropped
    calls = dataset.read_frame(tmp_path, "calls")
    assert len(calls) == sum(e["rows"]["calls"] for e in manifest["inputs"]) == 12  # har, mitm, log, session
    assert calls["arguments"].iloc[0]["justification"] == ""
    headers = dataset.read_frame(tmp_path, "headers")
    assert set(headers.loc[headers["name"] == "authorization", "value"]) == {"<redacted>"}
    assert "capture.har: 5 exchanges" in out


def test_cli_exit_130_on_interrupt_with_the_partial_dataset_valid(capsys, tmp_path, monkeypatch):
    real = dataset._Chunks.write
    calls = []

    def write(self, capture):
        real(self, capture)
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(dataset._Chunks, "write", write)
    assert cli.main(["ingest", BUSY, "--out", str(tmp_path), "--chunk", "10"]) == 130
    assert capsys.readouterr().err.strip().endswith("agent-contract: interrupted")
    (entry,) = dataset.read_manifest(tmp_path)["inputs"]
    assert not entry["complete"] and entry["chunks"] >= 3
    assert len(dataset.read_frame(tmp_path, "exchanges")) == entry["rows"]["exchanges"] >= 30


def test_progress_reports_bytes_and_records(tmp_path, capsys, monkeypatch):
    import itertools

    from toolkit.capture import progress

    ticks = itertools.count(0, 1.0)
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(ticks))
    dataset.ingest(BUSY, tmp_path, progress=True, chunk=50)
    err = capsys.readouterr().err
    assert "\rgateway.jsonl: 256 records, " in err and " MB/s" in err and "records/s" in err
    assert err.rstrip().endswith("done") and "5.3/5.3 MB (100%)" in err.splitlines()[-1]


def test_a_chunk_builder_is_freed_without_the_collector():
    """The ingest pauses the cyclic collector and drops a builder per chunk: a builder in a reference
    cycle would stay, with all its rows, until the end of the file."""
    import gc
    import weakref

    from toolkit.capture.load import Builder

    was = gc.isenabled()
    gc.disable()
    try:
        for redact in (True, False):
            b = Builder(redact=redact, keep_bodies=True)
            for rec in dataset.detect.reader_for("jsonl")(BUSY, "busy"):
                b.add(rec, "jsonl")
            rows = b.finish()
            assert len(rows["exchanges"]) == 300
            ref = weakref.ref(b)
            del b, rows
            assert ref() is None
    finally:
        if was:
            gc.enable()
