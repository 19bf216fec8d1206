"""Decompression bombs and endless lines: every reader stops at a named cap, with bounded memory.

The bombs are made here, small: one compressed member, block or frame of 1 MiB of spaces is repeated
until the file inflates to about 1.25 GiB, as the fuzz campaign's bombs did, from a few hundred KB on
disk. Peak memory is what ``tracemalloc`` counts (every allocation of the decompressors' output goes
through Python's allocator), so the bound is deterministic, not a timing.
"""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from toolkit.capture import load_capture
from toolkit.errors import CaptureError
from toolkit.sources import dsh_session, har, httprr, inflate, sniff
from toolkit.sources.cassettes import interaction
from toolkit.sources.jsonl import lines

ROOT = Path(__file__).resolve().parent.parent
HAR = ROOT / "data" / "image-refused" / "capture.har"
HTTPRR = ROOT / "tests" / "fixtures" / "httprr" / "lab_variants.httprr"
CASSETTE = ROOT / "tests" / "fixtures" / "vcr" / "openai_raw.yaml"
JSONL = ROOT / "tests" / "fixtures" / "jsonl" / "canonical.jsonl"
SESSION = ROOT / "data" / "dsh-image" / "session.jsonl.zstd"

MiB = 1024 * 1024
SPACES = b" " * MiB
BOMB_MIB = 1280  # 1.25 GiB inflated
#: What a reader may hold at its peak while refusing a bomb: the ratio cap's output for a file of about
#: 1.3 MB (130 MB) and a step above it; far below the bomb's 1.25 GiB.
PEAK_BOUND = 200 * MiB


def _gzip_bomb(prefix: bytes, unit: bytes = SPACES) -> bytes:
    """Concatenated gzip members (valid gzip): ``prefix``, then 1.25 GiB of ``unit``."""
    return gzip.compress(prefix) + gzip.compress(unit) * (BOMB_MIB * MiB // len(unit))


def _zlib_bomb(prefix: bytes) -> bytes:
    """One zlib stream: after a sync flush, each further MiB of spaces compresses to the same bytes."""
    c = zlib.compressobj(9)
    head = c.compress(prefix + SPACES) + c.flush(zlib.Z_SYNC_FLUSH)
    unit = c.compress(SPACES) + c.flush(zlib.Z_SYNC_FLUSH)
    return head + unit * BOMB_MIB  # no end: the cap must stop it long before the end would matter


def _zstd_bomb(prefix: bytes, unit: bytes) -> bytes:
    """Concatenated zstd frames: ``prefix``, then 1.25 GiB of ``unit``."""
    z = zstandard.ZstdCompressor(level=19)
    return z.compress(prefix) + z.compress(unit) * (BOMB_MIB * MiB // len(unit))


def _refusal(read: Callable[[], object]) -> tuple[CaptureError, int]:
    """The CaptureError ``read`` raises and the peak of memory traced while it ran."""
    tracemalloc.start()
    try:
        with pytest.raises(CaptureError) as info:
            read()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return info.value, peak


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _assert_stream_cap(err: CaptureError, path: Path, kind: str, peak: int) -> None:
    """A streamed file: the ratio applies past MAX_INFLATED_BYTES; memory stays at one line."""
    assert err.path == str(path)
    assert err.reason == (
        f"{kind} data inflates past MAX_INFLATED_BYTES (256 MiB) at more than MAX_INFLATE_RATIO (100) times "
        f"the file's {path.stat().st_size} bytes; refused as a possible decompression bomb"
    )
    assert peak < PEAK_BOUND, f"peak {peak / MiB:.0f} MiB"


def _assert_ratio_cap(err: CaptureError, path: Path, kind: str, peak: int) -> None:
    assert err.path == str(path)
    assert f"{kind} data inflates past MAX_INFLATE_RATIO (100 times the file's " in err.reason
    assert err.reason.endswith("refused as a possible decompression bomb")
    assert err.location is not None and err.location.startswith("decompressed byte ")
    assert peak < PEAK_BOUND, f"peak {peak / MiB:.0f} MiB"


def test_har_gzip_bomb_stops_at_the_ratio_cap(tmp_path):
    path = _write(tmp_path, "bomb.har.gz", _gzip_bomb(HAR.read_bytes()[:4096]))
    assert path.stat().st_size < 2 * MiB
    err, peak = _refusal(lambda: list(har.read(path, "bomb")))
    _assert_ratio_cap(err, path, "gzip", peak)


def test_har_zlib_bomb_stops_at_the_ratio_cap(tmp_path):
    path = _write(tmp_path, "bomb.zhar", _zlib_bomb(HAR.read_bytes()[:4096]))
    assert path.stat().st_size < 2 * MiB
    err, peak = _refusal(lambda: list(har.read(path, "bomb")))
    _assert_ratio_cap(err, path, "zlib", peak)


def test_httprr_gzip_bomb_stops_at_the_ratio_cap(tmp_path):
    path = _write(tmp_path, "bomb.httprr.gz", _gzip_bomb(HTTPRR.read_bytes()[:4096]))
    err, peak = _refusal(lambda: list(httprr.read(path, "bomb")))
    _assert_ratio_cap(err, path, "gzip", peak)


def test_yaml_gz_cassette_bomb_stops_at_the_ratio_cap(tmp_path):
    path = _write(tmp_path, "bomb.yaml.gz", _gzip_bomb(CASSETTE.read_bytes()[:4096]))
    err, peak = _refusal(lambda: interaction.load(path))
    _assert_ratio_cap(err, path, "gzip", peak)


def test_jsonl_gzip_bomb_of_blank_lines_stops_at_the_stream_cap(tmp_path):
    first = JSONL.read_bytes().splitlines(keepends=True)[0]
    path = _write(tmp_path, "bomb.jsonl.gz", _gzip_bomb(first, b" " * (MiB - 1) + b"\n"))
    err, peak = _refusal(lambda: list(lines.read(path, "bomb")))
    _assert_stream_cap(err, path, "gzip", peak)


def test_jsonl_zstd_bomb_stops_at_the_stream_cap(tmp_path):
    first = JSONL.read_bytes().splitlines(keepends=True)[0]
    path = _write(tmp_path, "bomb.jsonl.zst", _zstd_bomb(first, b" " * (MiB - 1) + b"\n"))
    err, peak = _refusal(lambda: list(lines.read(path, "bomb")))
    _assert_stream_cap(err, path, "zstd", peak)


def test_dsh_session_zstd_bomb_stops_at_the_stream_cap(tmp_path):
    with zstandard.ZstdDecompressor().stream_reader(SESSION.open("rb"), read_across_frames=True) as r:
        header = r.read(sniff.HEAD_BYTES).split(b"\n")[0] + b"\n"
    path = _write(tmp_path, "session.jsonl.zstd", _zstd_bomb(header, b" " * (MiB - 1) + b"\n"))
    err, peak = _refusal(lambda: list(dsh_session.read(path, "bomb")))
    _assert_stream_cap(err, path, "zstd", peak)


def test_the_loader_reports_the_bomb_as_one_capture_error(tmp_path):
    path = _write(tmp_path, "bomb.har.gz", _gzip_bomb(HAR.read_bytes()[:4096]))
    err, peak = _refusal(lambda: load_capture(path))
    _assert_ratio_cap(err, path, "gzip", peak)


def test_a_file_held_whole_stops_at_the_size_cap(tmp_path, monkeypatch):
    """A real HAR, gzipped, against a size cap lowered below its size: the cap is named with its value."""
    plain = HAR.read_bytes()
    path = _write(tmp_path, "capture.har.gz", gzip.compress(plain))
    monkeypatch.setattr(inflate, "MAX_INFLATED_BYTES", len(plain) // 2)
    err, _ = _refusal(lambda: list(har.read(path, "cap")))
    assert f"gzip data inflates past MAX_INFLATED_BYTES ({len(plain) // 2 / MiB:.1f} MiB)" in err.reason


def test_compressed_files_within_the_caps_read_as_their_plain_twins(tmp_path):
    plain = list(har.read(HAR, "x"))
    for name, data in (("c.har.gz", gzip.compress(HAR.read_bytes())), ("c.zhar", zlib.compress(HAR.read_bytes()))):
        assert list(har.read(_write(tmp_path, name, data), "x")) == plain
    assert list(httprr.read(_write(tmp_path, "t.httprr.gz", gzip.compress(HTTPRR.read_bytes())), "x")) == list(
        httprr.read(HTTPRR, "x")
    )
    assert interaction.load(_write(tmp_path, "c.yaml.gz", gzip.compress(CASSETTE.read_bytes()))) == interaction.load(
        CASSETTE
    )


def test_corrupt_compression_keeps_its_words(tmp_path):
    """The decompressors' own messages for a cut stream, as before the caps."""
    cut_zlib = _write(tmp_path, "cut.zhar", zlib.compress(HAR.read_bytes())[:-40])
    with pytest.raises(CaptureError, match=r"corrupt zlib \(\.zhar\) data: Error -5 while decompressing data: "):
        list(har.read(cut_zlib, "x"))
    cut_gzip = _write(tmp_path, "cut.har.gz", gzip.compress(HAR.read_bytes())[:-40])
    with pytest.raises(CaptureError, match="corrupt gzip data: Compressed file ended before the end-of-stream"):
        list(har.read(cut_gzip, "x"))


def test_a_jsonl_line_past_the_line_cap_is_refused_by_name(tmp_path, monkeypatch):
    """A plain file whose second line has no end within the (lowered) cap: a CaptureError, not a MemoryError."""
    first = JSONL.read_bytes().splitlines(keepends=True)[0]
    monkeypatch.setattr(inflate, "MAX_LINE_BYTES", 2 * MiB)
    path = _write(tmp_path, "long.jsonl", first + b'{"x": "' + b"a" * (3 * MiB))
    with pytest.raises(CaptureError) as info:
        list(lines.read(path, "long"))
    assert info.value.reason == "line 2 runs past MAX_LINE_BYTES (2 MiB) without ending; refused"
    assert info.value.location == "line 2"
    ok = _write(tmp_path, "ok.jsonl", first + b" " * (2 * MiB - 1) + b"\n")  # exactly at the cap: read
    assert [type(r).__name__ for r in lines.read(ok, "ok")] == ["Decoded", "EntryCount"]


def test_a_gzip_jsonl_line_of_64_mib_is_refused_not_buffered(tmp_path):
    """The real cap: a gzip line of spaces with no end stops at 64 MiB, not at the bomb's 1.25 GiB."""
    first = JSONL.read_bytes().splitlines(keepends=True)[0]
    path = _write(tmp_path, "endless.jsonl.gz", _gzip_bomb(first))
    err, peak = _refusal(lambda: list(lines.read(path, "endless")))
    assert err.reason == "line 2 runs past MAX_LINE_BYTES (64 MiB) without ending; refused"
    assert peak < PEAK_BOUND


def test_a_dsh_session_line_past_the_line_cap_is_refused_by_name(tmp_path, monkeypatch):
    with zstandard.ZstdDecompressor().stream_reader(SESSION.open("rb"), read_across_frames=True) as r:
        header = r.read(sniff.HEAD_BYTES).split(b"\n")[0] + b"\n"
    monkeypatch.setattr(inflate, "MAX_LINE_BYTES", 1 * MiB)
    path = _write(tmp_path, "session.jsonl", header + b"x" * (2 * MiB))
    with pytest.raises(CaptureError) as info:
        list(dsh_session.read(path, "long"))
    assert info.value.reason == "line 2 runs past MAX_LINE_BYTES (1 MiB) without ending; refused"


@pytest.mark.parametrize("make", [_gzip_bomb, _zlib_bomb, lambda p: _zstd_bomb(p, SPACES)])
def test_sniffing_a_bomb_reads_a_bounded_amount(tmp_path, make):
    """``head`` asks each decompressor for at most what it lacks; ``first_line`` stops at the line cap."""
    path = _write(tmp_path, "bomb.bin", make(b'{"a": 1}'))
    assert sniff.head(path) == (b'{"a": 1}' + SPACES)[: sniff.HEAD_BYTES]
    tracemalloc.start()
    try:
        line = sniff.first_line(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(line) == inflate.MAX_LINE_BYTES
    assert peak < PEAK_BOUND


def test_the_cli_prints_a_bomb_as_one_line_and_exits_2(tmp_path, capsys):
    from toolkit.present.cli import main

    first = JSONL.read_bytes().splitlines(keepends=True)[0]
    path = _write(tmp_path, "bomb.jsonl.zst", _zstd_bomb(first, b" " * (MiB - 1) + b"\n"))
    assert main(["summary", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"agent-contract: error: {path} (decompressed byte ")
    assert "zstd data inflates past MAX_INFLATED_BYTES (256 MiB) at more than MAX_INFLATE_RATIO" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("compress", [gzip.compress, zstandard.ZstdCompressor(level=3).compress])
def test_a_streamed_log_that_compresses_well_is_read_whole(tmp_path, compress):
    """Real records repeated (as a proxy log repeats a request's tools) compress past the ratio; a stream
    is held a line at a time, so below MAX_INFLATED_BYTES it is read to its last line."""
    record = JSONL.read_bytes().splitlines(keepends=True)[0]
    plain = record * (24 * MiB // len(record))
    path = _write(tmp_path, "log.jsonl.z", compress(plain))
    assert len(plain) > inflate.MAX_INFLATE_RATIO * path.stat().st_size > 0
    rows = list(lines.read(path, "log"))
    assert rows[-1].entries == plain.count(b"\n")  # every line counted, none refused
