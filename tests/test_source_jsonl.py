"""JSONL exchange logs: canonical shape, LiteLLM spend-log rows, Helicone export rows, broken lines."""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path

import pytest

from toolkit.errors import CaptureError
from toolkit.sources import jsonl
from toolkit.wire.records import Decoded, EntryCount, Header, Problem

FIXTURES = Path(__file__).resolve().parent / "fixtures"
JSONL = FIXTURES / "jsonl"
SSE = FIXTURES / "sse"


def _read(path: Path, source: str = "log"):
    records = list(jsonl.read(path, source))
    decoded = [r for r in records if isinstance(r, Decoded)]
    problems = [r for r in records if isinstance(r, Problem)]
    counts = [r for r in records if isinstance(r, EntryCount)]
    assert len(counts) == 1 and records[-1] is counts[0], "EntryCount comes once, at the end"
    lost = [p for p in problems if p.exchange_id is None]
    assert counts[0].entries == len(decoded) + len(lost), "every line is a row or a lost entry"
    return decoded, problems, counts[0]


def _compact(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# --- canonical shape ---------------------------------------------------------------------------


def test_canonical_lines_become_exchanges():
    decoded, problems, count = _read(JSONL / "canonical.jsonl")
    assert problems == []
    assert count == EntryCount("log", "line", 3)  # the blank line 2 is not an entry
    assert [d.exchange.exchange_id for d in decoded] == ["log:1", "log:3", "log:4"]
    assert [d.exchange.location for d in decoded] == ["line 1", "line 3", "line 4"]

    first, second, third = (d.exchange for d in decoded)
    assert first.method == "POST"
    assert first.url == "https://api.openai.com/v1/responses"
    assert (first.host, first.path) == ("api.openai.com", "/v1/responses")
    assert first.status == 200
    assert first.started_at == pytest.approx(1767225600.25)  # ISO 8601 with Z
    assert first.duration_ms == 812.5
    assert first.log_id == "req-1"
    assert second.started_at == pytest.approx(1767225601.5)  # epoch milliseconds
    assert third.started_at == 1767225602.0  # epoch seconds


def test_canonical_bodies_go_through_decode_exchange():
    decoded, _, _ = _read(JSONL / "canonical.jsonl")
    responses, chat, error = decoded
    line1 = json.loads((JSONL / "canonical.jsonl").read_text().splitlines()[0])

    assert responses.exchange.api == "responses"
    assert responses.exchange.stream is True
    assert responses.exchange.terminal == "completed"
    assert [(c.call_id, c.name, c.complete) for c in responses.calls] == [("call_local_0001", "bash", True)]
    assert [t.name for t in responses.tools] == ["bash"]
    assert responses.exchange.request_bytes == len(_compact(line1["request"]["body"]))
    assert responses.exchange.response_bytes == (SSE / "responses_function_call.sse").stat().st_size
    assert responses.exchange.body_fidelity == "json"  # the request body was a JSON value

    assert chat.exchange.api == "chat"
    assert chat.calls[0].arguments["command"] == "ls -la"

    assert error.exchange.status == 429
    assert error.exchange.terminal == "http-error"
    assert error.exchange.error_code == "rate_limit_exceeded"


def test_headers_in_all_three_shapes():
    decoded, _, _ = _read(JSONL / "canonical.jsonl")
    responses, chat, _ = decoded
    # request headers as a dict, response headers as [{name, value}]
    assert Header("request", "user-agent", "pi/1.6.0 (linux; node/v20.20.2; x64)") in responses.headers
    assert Header("response", "content-type", "text/event-stream; charset=utf-8") in responses.headers
    # [[name, value]] pairs
    assert Header("request", "authorization", "Bearer <redacted>") in chat.headers
    assert Header("response", "content-type", "text/event-stream") in chat.headers
    assert sum(h.direction == "request" for h in chat.headers) == 6


def test_body_that_is_not_json_is_an_issue_on_that_exchange():
    decoded, problems, count = _read(JSONL / "not_json_body.jsonl")
    assert problems == [] and count.entries == 2
    cut, form = decoded
    assert cut.exchange.status == 200
    assert any(i.kind == "response-body" and "invalid JSON" in i.message for i in cut.issues)
    assert any(i.kind == "request-body" for i in form.issues)
    assert form.exchange.terminal == "http-error"
    assert form.exchange.error_message.startswith("upstream connect error")


def test_base64_body_with_content_encoding(tmp_path):
    import base64
    import gzip

    sse = (SSE / "chat_tool_call.sse").read_bytes()
    packed = gzip.compress(sse)
    line = {
        "started_at": 0,
        "request": {"method": "POST", "url": "https://x.test/v1/chat/completions", "body": {"model": "m"}},
        "response": {
            "status": 200,
            "headers": {"content-type": "text/event-stream", "content-encoding": "gzip"},
            "body": base64.b64encode(packed).decode(),
            "body_encoding": "base64",
        },
    }
    path = tmp_path / "b64.jsonl"
    path.write_text(json.dumps(line) + "\n")
    (d,), _, _ = _read(path)
    assert d.exchange.response_bytes == len(packed)  # the size the log held, before decoding
    assert d.exchange.terminal == "completed"
    assert [c.name for c in d.calls] == ["bash"]


# --- LiteLLM spend logs ------------------------------------------------------------------------


def test_litellm_spend_log_row():
    decoded, problems, count = _read(JSONL / "litellm_spend_logs.jsonl")
    assert problems == [] and count.entries == 3
    row = decoded[0]
    ex = row.exchange
    assert ex.log_id == "chatcmpl-5b1c7c8e-1f0a-4b44-9d8e-3d1a0b7f0001"
    assert ex.body_fidelity == "normalised"  # LiteLLM's rendering, not wire bytes
    assert ex.method == "POST"
    assert ex.url == "https://api.openai.com/v1/chat/completions"  # api_base + call_type endpoint
    assert ex.status == 200  # inferred from status "success"
    assert ex.started_at == pytest.approx(1767225600.1)
    assert ex.duration_ms == pytest.approx(1250.0)
    assert ex.api == "chat" and ex.model == "test-model"
    assert (ex.input_tokens, ex.output_tokens) == (42, 17)
    assert [t.name for t in row.tools] == ["bash"]
    assert [(c.call_id, c.name) for c in row.calls] == [("call_local_0001", "bash")]
    assert ex.terminal == "completed"


def test_litellm_empty_bodies_are_an_issue_not_a_crash():
    decoded, _, _ = _read(JSONL / "litellm_spend_logs.jsonl")
    row = decoded[1]
    kinds = [i.kind for i in row.issues]
    assert "body-not-stored" in kinds
    assert any("15641" in i.message for i in row.issues)
    assert row.tools == [] and row.calls == []
    assert row.exchange.request_bytes is None and row.exchange.response_bytes is None


def test_litellm_json_text_columns_read_like_json_columns():
    decoded, _, _ = _read(JSONL / "litellm_spend_logs.jsonl")
    as_json, as_text = decoded[0], decoded[2]
    assert as_text.exchange.started_at == pytest.approx(1767225602.0)  # Postgres "+00" offset
    assert as_text.exchange.duration_ms == pytest.approx(500.0)
    assert [c.arguments for c in as_text.calls] == [c.arguments for c in as_json.calls]
    assert [t.parameters for t in as_text.tools] == [t.parameters for t in as_json.tools]


def test_litellm_truncated_strings_are_flagged(tmp_path):
    row = json.loads((JSONL / "litellm_spend_logs.jsonl").read_text().splitlines()[0])
    row["proxy_server_request"]["messages"][0]["content"] = "You are a ... (litellm_truncated 1200 chars)"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (d,), _, _ = _read(path)
    assert any(i.kind == "body-truncated" for i in d.issues)


@pytest.mark.parametrize(
    "prompt, completion, expected",
    [
        ("42", "17", (42, 17)),  # SQL/CSV exports write counts as text
        (42.0, " 17 ", (42, 17)),
        (12.5, True, (None, None)),  # a fraction or a boolean is no count (12.5 used to become 12)
        ("n/a", None, (None, None)),
    ],
)
def test_token_columns_are_integers(tmp_path, prompt, completion, expected):
    row = json.loads((JSONL / "litellm_spend_logs.jsonl").read_text().splitlines()[1])  # no bodies: columns decide
    row["prompt_tokens"], row["completion_tokens"] = prompt, completion
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (d,), _, _ = _read(path)
    assert (d.exchange.input_tokens, d.exchange.output_tokens) == expected


# --- Helicone export ---------------------------------------------------------------------------


def test_helicone_export_row():
    decoded, problems, count = _read(JSONL / "helicone_export.jsonl")
    assert problems == [] and count.entries == 2
    ex = decoded[0].exchange
    assert ex.log_id == "5e4f1a2b-0000-4000-8000-000000000001"
    assert ex.url == "https://api.openai.com/v1/chat/completions"  # target_url
    assert ex.status == 200
    assert ex.started_at == pytest.approx(1767225600.1)
    assert ex.duration_ms == 1200.0  # delay_ms
    assert ex.provider == "OPENAI"
    assert ex.api == "chat" and ex.terminal == "completed"
    assert [c.name for c in decoded[0].calls] == ["bash"]


def test_helicone_row_without_bodies():
    decoded, _, _ = _read(JSONL / "helicone_export.jsonl")
    row = decoded[1]
    assert any(i.kind == "body-missing" and "--include-body" in i.message for i in row.issues)
    assert row.exchange.model == "test-model"  # from the row's own columns
    assert row.exchange.status == 200


# --- broken lines ------------------------------------------------------------------------------


def test_broken_line_in_the_middle():
    decoded, problems, count = _read(JSONL / "broken.jsonl")
    assert count == EntryCount("log", "line", 6)  # 7 lines, one blank
    assert [d.exchange.location for d in decoded] == ["line 1", "line 3", "line 7"]
    assert [(p.location, p.kind) for p in problems] == [
        ("line 2", "bad-line"),
        ("line 5", "unknown-shape"),
        ("line 6", "unknown-shape"),
    ]
    bad = problems[0]
    assert bad.exchange_id is None
    assert "line 2" in bad.message and "column" in bad.message and "byte" in bad.message
    # the byte offset points into line 2 of the file
    data = (JSONL / "broken.jsonl").read_bytes()
    byte = int(re.search(r"byte (\d+)", bad.message).group(1))
    assert data.index(b"\n") < byte <= data.index(b"\n", data.index(b"\n") + 1)


def test_file_that_is_not_jsonl_at_all_raises():
    with pytest.raises(CaptureError) as err:
        list(jsonl.read(JSONL / "garbage.jsonl", "g"))
    assert "garbage.jsonl" in str(err.value) and "line 1" in str(err.value)


def test_bad_first_lines_are_problems_when_a_later_line_parses(tmp_path):
    good = (JSONL / "canonical.jsonl").read_text().splitlines()[3]
    path = tmp_path / "late.jsonl"
    path.write_text("not json\n\n{broken\n" + good + "\n")
    decoded, problems, count = _read(path)
    assert [p.location for p in problems] == ["line 1", "line 3"]
    assert [d.exchange.location for d in decoded] == ["line 4"]
    assert count.entries == 3


def test_bom_crlf_and_non_utf8_lines(tmp_path):
    good = (JSONL / "canonical.jsonl").read_text().splitlines()[3].encode()
    path = tmp_path / "crlf.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + good + b"\r\n\xff\xfe{}\r\n" + good + b"\r\n")
    decoded, problems, _count = _read(path)
    assert [d.exchange.location for d in decoded] == ["line 1", "line 3"]
    assert [(p.location, p.kind) for p in problems] == [("line 2", "bad-line")]
    assert "UTF-8" in problems[0].message


def test_timestamps_naive_iso_is_utc_and_bad_times_are_issues(tmp_path):
    base = json.loads((JSONL / "canonical.jsonl").read_text().splitlines()[3])
    rows = [dict(base, time="2026-01-01T00:00:00"), dict(base, time="yesterday")]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (naive, bad), _, _ = _read(path)
    assert naive.exchange.started_at == 1767225600.0
    assert bad.exchange.started_at is None
    assert any(i.kind == "bad-time" for i in bad.issues)


def test_reads_line_by_line_without_holding_the_file(tmp_path):
    row = json.loads((JSONL / "canonical.jsonl").read_text().splitlines()[3])
    row["pad"] = "x" * 8000
    line = json.dumps(row) + "\n"
    path = tmp_path / "big.jsonl"
    with path.open("w") as f:
        for _ in range(1500):
            f.write(line)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        n = 0
        for record in jsonl.read(path, "big"):
            n += isinstance(record, Decoded)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n == 1500
    assert peak < size / 4, f"peak {peak} bytes for a {size}-byte file"


def test_compressed_jsonl_is_read_through(tmp_path):
    import gzip

    import zstandard

    data = (JSONL / "canonical.jsonl").read_bytes()
    plain = [d.exchange for d in _read(JSONL / "canonical.jsonl")[0]]
    gz = tmp_path / "log.jsonl.gz"
    gz.write_bytes(gzip.compress(data))
    zst = tmp_path / "log.jsonl.zst"
    zst.write_bytes(zstandard.ZstdCompressor().compress(data))
    for path in (gz, zst):
        assert [d.exchange for d in _read(path)[0]] == plain
