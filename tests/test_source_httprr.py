"""httprr traces (Go tests' record/replay logs) and the raw HTTP/1.1 parser under them."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from toolkit.capture import load_capture
from toolkit.capture.frames import DECLARED
from toolkit.sources import detect, httprr
from toolkit.wire.http1 import Http1Error, parse_request, parse_response
from toolkit.wire.records import BAD_ENTRY, Decoded, EntryCount, Problem

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "httprr"
VARIANTS = FIXTURES / "lab_variants.httprr"
PARTLY_BAD = FIXTURES / "partly_bad.httprr"
BASH_ARGS = {
    "command": "ls -la",
    "description": "List files in the workspace",
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}


@pytest.fixture(scope="module")
def variants():
    return load_capture(VARIANTS)


def test_every_record_is_an_exchange_with_its_byte_offset(variants):
    ex = variants.exchanges
    assert DECLARED["exchanges"].mismatches(ex) == []
    assert list(ex["location"]) == [
        "record 0 (byte 16)",
        "record 1 (byte 6392)",
        "record 2 (byte 11945)",
        "record 3 (byte 13615)",
        "record 4 (byte 14920)",
    ]
    data = VARIANTS.read_bytes()
    for loc in ex["location"]:  # each offset points at that record's "<n1> <n2>" size line
        offset = int(loc.split("byte ")[1].rstrip(")"))
        assert data[offset:].split(b"\n", 1)[0].replace(b" ", b"").isdigit()
    summary = variants.summary().iloc[0]
    assert (summary["format"], summary["unit"], summary["entries"], summary["read"], summary["lost"]) == (
        "httprr",
        "record",
        5,
        5,
        0,
    )
    assert variants.problems.empty


def test_frames_of_each_variant(variants):
    ex = variants.exchanges
    got = [
        (r.api, r.method, r.host, r.path, r.status, r.stream, r.terminal, r.body_fidelity, r.model)
        for r in ex.itertuples()
    ]
    responses = "/absent-is-strict/v1/responses"
    assert got == [
        ("responses", "POST", "127.0.0.1", responses, 200, True, "completed", "wire", "gw-coder"),  # chunked SSE
        ("responses", "POST", "127.0.0.1", responses, 200, True, "completed", "wire", "gw-coder"),  # close-delimited
        ("responses", "POST", "127.0.0.1", responses, 200, False, "completed", "wire", "gw-coder"),  # gzip JSON
        ("responses", "POST", "127.0.0.1", "/rate-limit/v1/responses", 429, True, "http-error", "wire", "gw-coder"),
        (
            "chat",
            "POST",
            "127.0.0.1",
            "/absent-is-strict/v1/chat/completions",
            200,
            True,
            "completed",
            "wire",
            "gw-coder",
        ),
    ]
    assert ex["url"].iloc[0] == "http://127.0.0.1:18796/absent-is-strict/v1/responses"
    limited = ex.iloc[3]
    assert (limited["error_type"], limited["error_code"]) == ("requests", "rate_limit_exceeded")
    assert limited["error_message"].startswith("Rate limit reached for gw-coder.")


def test_calls_come_with_their_arguments(variants):
    calls = variants.calls
    assert list(calls["exchange_id"]) == ["lab_variants.httprr:0", "lab_variants.httprr:2", "lab_variants.httprr:4"]
    assert list(calls["name"]) == ["bash"] * 3
    assert calls["arguments"].iloc[0] == BASH_ARGS  # reassembled from the chunked stream's deltas
    assert calls["arguments"].iloc[1] == BASH_ARGS  # from the gzip-compressed body
    assert calls["arguments"].iloc[2] == {"command": "ls -la", "description": "List files in the workspace"}
    assert calls["complete"].all()


def test_request_tools_and_headers_are_read(variants):
    tools = variants.tools
    assert set(tools["name"]) == {"bash"} and len(tools) == 5
    headers = variants.headers
    gz = headers[(headers["exchange_id"] == "lab_variants.httprr:2") & (headers["direction"] == "response")]
    assert dict(zip(gz["name"], gz["value"], strict=True))["content-encoding"] == "gzip"
    chunked = headers[(headers["exchange_id"] == "lab_variants.httprr:0") & (headers["direction"] == "response")]
    assert dict(zip(chunked["name"], chunked["value"], strict=True))["transfer-encoding"] == "chunked"
    assert "authorization" not in set(headers["name"])


def test_a_partly_bad_trace_keeps_its_good_records_and_reconciles():
    cap = load_capture(PARTLY_BAD)
    s = cap.summary().iloc[0]
    assert (s["entries"], s["read"], s["lost"], bool(s["reconciles"])) == (4, 2, 2, True)
    assert list(cap.exchanges["location"]) == ["record 0 (byte 16)", "record 2 (byte 2005)"]
    probs = cap.problems
    assert DECLARED["problems"].mismatches(probs) == []
    assert list(zip(probs["location"], probs["kind"], strict=True)) == [
        ("record 1 (byte 1686)", BAD_ENTRY),
        ("record 3 (byte 3310)", BAD_ENTRY),
    ]
    assert "not an HTTP/1.x request line" in probs["message"].iloc[0]
    assert "truncated" in probs["message"].iloc[1] and "reading stopped" in probs["message"].iloc[1]
    assert probs["exchange_id"].isna().all()


def test_a_bad_size_line_stops_reading(tmp_path):
    good = VARIANTS.read_bytes()
    first_len = int(good.split(b"\n")[1].split()[0]) + int(good.split(b"\n")[1].split()[1])
    end = len(httprr.HEADER) + len(good.split(b"\n")[1]) + 1 + first_len
    p = tmp_path / "t.httprr"
    p.write_bytes(good[:end] + b"twelve 34\nGET / HTTP/1.1\r\n\r\n")
    records = list(httprr.read(p, "t"))
    assert [type(r) for r in records] == [Decoded, Problem, EntryCount]
    assert records[1].location == f"record 1 (byte {end})" and records[1].kind == BAD_ENTRY
    assert records[2] == EntryCount("t", "record", 2)


def test_gzip_compressed_trace_and_an_empty_trace(tmp_path):
    gz = tmp_path / "TestCall.httprr.gz"
    gz.write_bytes(gzip.compress(VARIANTS.read_bytes(), mtime=0))
    assert detect.detect(gz) == "httprr"
    assert len(load_capture(gz).exchanges) == 5
    empty = tmp_path / "empty.httprr"
    empty.write_bytes(httprr.HEADER)
    assert list(httprr.read(empty, "e")) == [EntryCount("e", "record", 0)]


def test_recognize_needs_the_exact_header():
    assert httprr.recognize(b"httprr trace v1\n12 34\n")
    assert not httprr.recognize(b"httprr trace v2\n")
    assert not httprr.recognize(b"httprr trace v1")  # no line end: httprr itself refuses it


# ---- toolkit.wire.http1 ------------------------------------------------------------------------


def test_chunked_body_with_extensions_and_trailers():
    raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n!\r\n0\r\nX-T: 1\r\n\r\n"
    resp = parse_response(raw)
    assert (resp.status, resp.reason, resp.body, resp.issues) == (200, "OK", b"hello!", [])


def test_truncated_bodies_keep_what_arrived():
    cut = parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\nhello")
    assert cut.body == b"hello" and [k for k, _ in cut.issues] == ["body-truncated"]
    short = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello")
    assert short.body == b"hello" and short.issues == [
        ("body-truncated", "body ends after 5 of the 10 bytes Content-Length declares")
    ]


def test_content_encoding_is_undone_and_a_corrupt_one_reported():
    body = gzip.compress(b'{"ok":true}', mtime=0)
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(body)
    assert parse_response(head + body).body == b'{"ok":true}'
    bad = parse_response(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n\x1f\x8bnot gzip")
    assert bad.body is None and [k for k, _ in bad.issues] == ["bad-compression"]


def test_request_forms_and_no_body_responses():
    req = parse_request(b"GET /v1/models HTTP/1.1\nHost: example.test\n\n")  # bare LF line ends
    assert (req.method, req.target, req.header("HOST"), req.body) == ("GET", "/v1/models", "example.test", b"")
    resp = parse_response(b"HTTP/1.1 204 No Content\r\n\r\n")
    assert resp.body == b"" and resp.issues == []
    head = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", request_method="HEAD")
    assert head.body == b"" and head.issues == []


@pytest.mark.parametrize(
    "raw",
    [b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", b"HTTP/1.1 OK\r\n\r\n", b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n"],
)
def test_an_unreadable_head_is_an_error(raw):
    with pytest.raises(Http1Error):
        parse_response(raw)
