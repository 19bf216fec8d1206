"""Formats are told apart by content, and unreadable files say where and why."""

from __future__ import annotations

import gzip
import json
import zlib

import pytest
import zstandard
from conftest import FIXTURES

import toolkit
from toolkit import CaptureError
from toolkit.sources.detect import detect
from toolkit.sources.sniff import HEAD_BYTES

HAR = json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": []}})
SESSION = '{"type":"session","version":0,"id":"s","createdAt":1}\n{"type":"turn/start","data":{"turn":1}}\n'
JSONL = '{"request": {"method": "POST", "url": "http://127.0.0.1/v1/responses", "body": {"model": "m"}}, "response": null}\n'
SSE = 'event: response.created\ndata: {"type":"response.created","response":{"id":"r","status":"in_progress"}}\n\n'


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("a.txt", HAR, "har"),
        ("a.jsonl", json.dumps(json.loads(HAR), indent=2), "har"),  # pretty-printed, misleading name
        ("capture", '{"log": {"entries": [], "version": "1.2"}}', "har"),
        ("b.har", SESSION, "dsh-session"),
        ("c.json", JSONL, "jsonl"),
        ("d.jsonl", SSE, "sse"),
        ("e", ": keep-alive comment\n\ndata: {}\n\n", "sse"),
        ("f.har", "1234:5:value,}", "mitm"),
    ],
)
def test_format_comes_from_content_not_name(tmp_path, name, content, expected):
    p = tmp_path / name
    p.write_text(content, encoding="utf-8")
    assert detect(p) == expected


def test_compressed_containers_are_looked_into(tmp_path):
    (tmp_path / "s.zstd").write_bytes(zstandard.compress(SESSION.encode()))
    (tmp_path / "h.zhar").write_bytes(zlib.compress(HAR.encode()))
    (tmp_path / "l.gz").write_bytes(gzip.compress(JSONL.encode()))
    assert [detect(tmp_path / n) for n in ("s.zstd", "h.zhar", "l.gz")] == ["dsh-session", "har", "jsonl"]


#: The zstd-compressed logs of the DSH session fixtures (several of them concatenate frames).
ZSTD_SESSIONS = {
    "apps__web__tests__snapshots__goal-multi-turn-actions__session.jsonl.zstd",
    "examples__acp-agent__tests__snapshots__product-subagent-result-diagnostic__session.jsonl.zstd",
    "examples__acp-agent__tests__snapshots__pty-tools__session.jsonl.zstd",
    "examples__headless-agent__tests__snapshots__pty-tools__session.jsonl.zstd",
    "examples__jsonrpc-agent__tests__snapshots__persistent-tools__session.jsonl.zstd",
    "scripts__snapshots__python-sdk-single-exe__advanced__session.jsonl.zstd",
}


def test_real_multi_frame_session_is_detected(dsh_sessions):
    paths = sorted((dsh_sessions / "zstd").glob("*.zstd"))
    assert {p.name for p in paths} == ZSTD_SESSIONS  # an empty or moved folder must fail, not pass vacuously
    assert [detect(p) for p in paths] == ["dsh-session"] * len(ZSTD_SESSIONS)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "the file is empty"),
        (b"  \n\t\n", "only white space"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "this is a PNG image, not a capture"),
        (b"%PDF-1.7\n", "a PDF document"),
        (b"hello world, this is not a capture\n", "unknown format: the content starts with 'hello world"),
        (b'{"model": "x", "input": [1, 2', "not valid JSON"),
        (b'{\n  "model": "x"\n}\n', "neither HAR"),
        (b'[{"request_id": "1"}]', "Helicone export use `--format jsonl`"),
    ],
)
def test_unreadable_files_raise_one_clear_error(tmp_path, content, message):
    p = tmp_path / "input.bin"
    p.write_bytes(content)
    with pytest.raises(CaptureError) as info:
        toolkit.load_capture(p)
    text = str(info.value)
    assert message in text
    assert text.startswith(str(p)) and "(byte " in text


def test_truncated_json_names_the_byte(tmp_path):
    p = tmp_path / "cut.json"
    p.write_bytes(b'{\n "model": "x",\n "input": [')
    with pytest.raises(CaptureError, match=r"\(byte 28\): not valid JSON"):
        toolkit.load_capture(p)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(CaptureError, match="cannot open"):
        toolkit.load_capture(tmp_path / "nope.har")
    with pytest.raises(CaptureError, match="is a directory"):
        toolkit.load_capture(tmp_path)


def test_format_can_be_forced_and_is_checked(tmp_path):
    p = tmp_path / "stream.txt"
    p.write_text(SSE, encoding="utf-8")
    assert len(toolkit.load_capture(p, format="sse").exchanges) == 1
    with pytest.raises(CaptureError):
        toolkit.load_capture(p, format="har")  # forcing the wrong reader fails loudly, not silently
    with pytest.raises(ValueError, match="unknown format 'pcap'; choose one of mitm, har"):
        toolkit.load_capture(p, format="pcap")


def test_every_test_fixture_is_detected_as_its_folder_says():
    expected = {"jsonl": "jsonl", "sse": "sse"}
    for folder, fmt in expected.items():
        for p in sorted((FIXTURES / folder).iterdir()):
            if p.suffix in (".md",):
                continue
            if p.name == "garbage.jsonl":  # the reader's own test of a file that is no JSONL at all
                continue
            assert detect(p) == fmt, p


@pytest.mark.parametrize("pack", ["plain", "gzip", "zstd"])
def test_a_first_line_longer_than_the_head_is_still_json_lines(tmp_path, pack):
    # The real gateway log of a DSH run, its longest record first (which request comes first is random).
    lines = (FIXTURES.parent.parent / "data" / "dsh-after-fix" / "gateway.jsonl").read_bytes().splitlines(keepends=True)
    lines.sort(key=len, reverse=True)
    raw = b"".join(lines)
    assert len(lines[0]) > HEAD_BYTES
    packed = {
        "plain": raw,
        "gzip": gzip.compress(raw),
        "zstd": zstandard.ZstdCompressor().compress(raw),
    }[pack]
    path = tmp_path / "gateway.log"
    path.write_bytes(packed)
    assert detect(path) == "jsonl"
    capture = toolkit.load_capture(path)
    assert len(capture.exchanges) == len(lines) and capture.problems.empty
