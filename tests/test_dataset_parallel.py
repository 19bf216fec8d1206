"""One JSONL log ingested in line ranges by several processes (``ingest(jobs=)``, issue 17)."""

from __future__ import annotations

import gzip
import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from toolkit.capture import FRAME_NAMES, dataset, load_capture
from toolkit.present import cli
from toolkit.sources.jsonl import split
from toolkit.wire.records import Decoded

BUSY = "data/busy-day/gateway.jsonl"
#: Frames whose rows depend on where a builder starts (prefix references); compared expanded.
PREFIXED = ("inputs", "input_prefixes")


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(dataset, "PARALLEL_MIN_BYTES", 1 << 20)


def _same_datasets(a, b):
    for name in FRAME_NAMES:
        if name not in PREFIXED:
            pd.testing.assert_frame_equal(dataset.read_frame(a, name), dataset.read_frame(b, name), obj=name)


def _damaged(tmp_path):
    """The busy day with bad lines spread over the file: every range meets some."""
    lines = open(BUSY, "rb").read().splitlines(keepends=True)
    for i in (40, 120, 199, 260):
        lines[i] = b'{"id": "cut' + b"\n"
    lines[150] = lines[150].replace(b"Check", b"Ch\xffck", 1)
    lines.insert(210, b"\n")
    lines.insert(230, b"[1, 2]\n")
    p = tmp_path / "damaged.jsonl"
    p.write_bytes(b"".join(lines))
    return p


def test_ranges_start_after_a_newline_with_their_line_numbers(tmp_path):
    p = _damaged(tmp_path)
    raw = p.read_bytes()
    parts = split.ranges(p, 4, min_bytes=1 << 20)
    assert len(parts) == 4 and parts[0][:1] == (0,) and parts[-1][1] == len(raw)
    for (start, end, line), nxt in zip(parts, [*parts[1:], None]):
        assert start == 0 or raw[start - 1 : start] == b"\n"
        assert line == raw[:start].count(b"\n") + 1
        assert nxt is None or nxt[0] == end


def test_what_is_not_split(tmp_path):
    gz = tmp_path / "busy.jsonl.gz"
    gz.write_bytes(gzip.compress(open(BUSY, "rb").read()))
    assert split.ranges(gz, 4, min_bytes=1 << 10) == [(0, gz.stat().st_size, 1)]
    bad_start = tmp_path / "bad-start.jsonl"
    bad_start.write_bytes(b"not json\n" + open(BUSY, "rb").read())
    assert split.ranges(bad_start, 4, min_bytes=1 << 10) == [(0, bad_start.stat().st_size, 1)]
    size = open(BUSY, "rb").seek(0, 2)
    assert split.ranges(BUSY, 4, min_bytes=size) == [(0, size, 1)]  # too small to split
    assert len(split.ranges(BUSY, 4, min_bytes=size // 3)) == 3  # at most one range per min_bytes


def test_the_ranges_read_what_one_pass_reads(tmp_path):
    p = _damaged(tmp_path)
    whole = [r for r in dataset.detect.reader_for("jsonl")(p, "s")]
    parts = [r for part in split.ranges(p, 3, min_bytes=1 << 20) for r in split.read_range(p, "s", part)]
    counts = [r for r in parts if type(r).__name__ == "EntryCount"]
    assert sum(c.entries for c in counts) == whole[-1].entries and len(counts) == 3
    got = [r for r in parts if type(r).__name__ != "EntryCount"]
    assert repr(got) == repr(whole[:-1])  # same records, ids, locations and byte offsets, in order


@pytest.mark.parametrize("path", [BUSY, "damaged"])
def test_parallel_ingest_writes_the_single_process_dataset(tmp_path, small_parts, path):
    p = _damaged(tmp_path) if path == "damaged" else path
    one = dataset.ingest(p, tmp_path / "one", jobs=1)
    par = dataset.ingest(p, tmp_path / "par", jobs=3)
    assert one["parts"] == 1 and par["parts"] == 3 and par["complete"]
    for key in ("records", "exchanges", "entries", "problems", "sha256", "bytes", "bytes_read"):
        assert par[key] == one[key], key
    assert {k: v for k, v in par["rows"].items() if k not in PREFIXED} == {
        k: v for k, v in one["rows"].items() if k not in PREFIXED
    }
    _same_datasets(tmp_path / "one", tmp_path / "par")
    cap = load_capture(p)
    problems = dataset.read_frame(tmp_path / "par", "problems")  # by day (bad lines: "unknown"), then file order
    pd.testing.assert_frame_equal(
        problems.sort_values(["location", "message"], ignore_index=True),
        cap.problems.sort_values(["location", "message"], ignore_index=True),
    )
    if path == "damaged":
        assert len(problems) > len(load_capture(BUSY).problems) + 5
    assert dataset.read_frame(tmp_path / "par", "input_parts")["part_id"].is_unique
    schemas = dataset.read_frame(tmp_path / "par", "tool_schemas")
    assert schemas["uses"].sum() == par["rows"]["tools"]  # totals over the three parts
    for rel in par["files"]:
        assert rel.rsplit("/", 1)[1].startswith("part-")
        pq.ParquetFile(tmp_path / "par" / rel)


def test_an_interrupted_part_leaves_a_valid_partial_dataset(tmp_path, small_parts, monkeypatch):
    real = dataset._new_builder
    seen = {"n": 0}

    def builder(redact):  # in every worker (forked after the patch): stop after 40 exchanges
        b = real(redact)
        add = b.add

        def counted(rec, fmt):
            if isinstance(rec, Decoded):
                seen["n"] += 1
                if seen["n"] > 40:
                    raise KeyboardInterrupt
            add(rec, fmt)

        b.add = counted
        return b

    monkeypatch.setattr(dataset, "_new_builder", builder)
    with pytest.raises(KeyboardInterrupt):
        dataset.ingest(BUSY, tmp_path, jobs=2, chunk=15)
    (entry,) = dataset.read_manifest(tmp_path)["inputs"]
    assert entry["complete"] is False and entry["parts"] == 2 and entry["exchanges"] == 80
    assert 0 < entry["bytes_read"] < entry["bytes"]
    for rel in entry["files"]:
        pq.ParquetFile(tmp_path / rel)
    ex = dataset.read_frame(tmp_path, "exchanges")
    full = load_capture(BUSY).exchanges
    first = full.head(40)["exchange_id"].tolist()
    assert ex["exchange_id"].tolist()[:40] == first and len(ex) == 80


def test_cli_ingest_of_one_file_uses_the_jobs(tmp_path, small_parts, capsys):
    assert cli.main(["ingest", BUSY, "--out", str(tmp_path), "--jobs", "2"]) == 0
    (entry,) = dataset.read_manifest(tmp_path)["inputs"]
    assert entry["parts"] == 2 and entry["complete"]
    assert "gateway.jsonl: 300 exchanges" in capsys.readouterr().out
    manifest = json.loads((tmp_path / dataset.MANIFEST).read_text())
    assert manifest["inputs"][0]["exchanges"] == 300
