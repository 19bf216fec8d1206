"""JSONL exchange logs: canonical shape, LiteLLM spend-log rows, Helicone export rows, broken lines."""

from __future__ import annotations

import base64
import gzip
import json
import re
import tracemalloc
from pathlib import Path

import pytest

import toolkit
from toolkit.capture import frames
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
    assert "body-missing" in kinds
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
        ("line 2", "bad-entry"),
        ("line 5", "bad-entry"),
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
    assert [(p.location, p.kind) for p in problems] == [("line 2", "bad-entry")]
    assert "UTF-8" in problems[0].message


def test_timestamps_naive_iso_is_utc_and_bad_times_are_issues(tmp_path):
    base = json.loads((JSONL / "canonical.jsonl").read_text().splitlines()[3])
    rows = [dict(base, time="2026-01-01T00:00:00"), dict(base, time="yesterday")]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (naive, bad), _, _ = _read(path)
    assert naive.exchange.started_at == 1767225600.0
    assert bad.exchange.started_at is None
    assert any(i.kind == "bad-field" for i in bad.issues)


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


# --- every accepted field of every shape is read (issue 13 §3) -----------------------------------


_REQ = {"model": "m", "input": "hi", "tools": [{"type": "function", "name": "bash", "parameters": {}}]}
_RESP = {"id": "r", "object": "response", "status": "completed", "model": "m", "output": []}
_T0 = "2026-11-30T09:00:00Z"
_EPOCH = 1796029200.0  # _T0


def _load(tmp_path, *lines):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    cap = toolkit.load_capture(path)
    assert frames.CAPTURE["exchanges"].mismatches(cap.exchanges) == []
    return cap


def _row(cap, i=0):
    return cap.exchanges.iloc[i]


def _headers(cap, direction):
    h = cap.headers[cap.headers["direction"] == direction]
    return dict(zip(h["name"], h["value"]))


def test_flat_shape_reads_every_field(tmp_path):
    gz = gzip.compress(json.dumps(_RESP).encode())
    line = {
        "id": "log-1",
        "ts": _T0,
        "duration_ms": 812.5,
        "method": "POST",
        "url": "http://127.0.0.1:8787/v1/responses",
        "status": 200,
        "request_headers": {"content-type": "application/json", "x-trace": "t1"},
        "request_body": _REQ,
        "response_headers": [["content-type", "application/json"], ["content-encoding", "gzip"]],
        "response_body": base64.b64encode(gz).decode(),
        "response_body_encoding": "base64",
    }
    cap = _load(tmp_path, line)
    assert list(cap.problems["kind"]) == []
    r = _row(cap)
    assert (r.log_id, r.started_at.timestamp(), r.duration_ms) == ("log-1", _EPOCH, 812.5)
    assert (r.method, r.url, r.host, r.path, r.status) == ("POST", line["url"], "127.0.0.1", "/v1/responses", 200)
    assert (r.api, r.model, r.terminal, r.body_fidelity) == ("responses", "m", "completed", "json")
    assert r.request_bytes == len(_compact(_REQ)) and r.response_bytes == len(gz)
    assert _headers(cap, "request") == {"content-type": "application/json", "x-trace": "t1"}
    assert _headers(cap, "response")["content-encoding"] == "gzip"
    assert list(cap.tools["name"]) == ["bash"]


@pytest.mark.parametrize("key", ["ts", "timestamp", "time", "started_at"])
def test_flat_shape_time_keys_and_request_id(tmp_path, key):
    line = {key: _EPOCH * 1000, "request_id": "rq-9", "url": "http://h/v1/responses", "request_body": "{}"}
    r = _row(_load(tmp_path, line))
    assert (r.started_at.timestamp(), r.log_id, r.body_fidelity) == (_EPOCH, "rq-9", "wire")


def test_flat_shape_status_is_kept_and_a_429_is_an_http_error(tmp_path):
    """Flat lines used to be read as Helicone rows, which have no `status`: every status was <NA>."""
    error = {"error": {"message": "slow down", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}
    line = {"ts": _T0, "method": "POST", "url": "http://h/v1/responses", "status": 429, "request_body": _REQ}
    cap = _load(tmp_path, {**line, "response_body": error})
    r = _row(cap)
    assert (r.status, r.terminal, r.error_code, r.error_message) == (
        429,
        "http-error",
        "rate_limit_exceeded",
        "slow down",
    )
    assert (r.method, r.url) == ("POST", "http://h/v1/responses")


def test_canonical_shape_reads_every_field(tmp_path):
    line = {
        "id": "c-1",
        "started_at": _T0,
        "duration_ms": 100,
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8787/v1/responses",
            "headers": [{"name": "content-type", "value": "application/json"}],
            "body": base64.b64encode(json.dumps(_REQ).encode()).decode(),
            "body_encoding": "base64",
        },
        "response": {"status": 201, "headers": {"x-id": ["a", "b"]}, "body": json.dumps(_RESP)},
    }
    cap = _load(tmp_path, line, {**line, "started_at": None, "timestamp": _EPOCH}, {**line, "time": _EPOCH})
    r = _row(cap)
    assert (r.log_id, r.started_at.timestamp(), r.duration_ms) == ("c-1", _EPOCH, 100.0)
    assert (r.method, r.url, r.host, r.path, r.status) == (
        "POST",
        line["request"]["url"],
        "127.0.0.1",
        "/v1/responses",
        201,
    )
    assert (r.api, r.model, r.terminal, r.body_fidelity) == ("responses", "m", "completed", "wire")
    assert r.request_bytes == len(json.dumps(_REQ)) and r.response_bytes == len(json.dumps(_RESP))
    h = cap.headers[(cap.headers["exchange_id"] == r.exchange_id)]
    assert sorted(zip(h["direction"], h["name"], h["value"])) == [
        ("request", "content-type", "application/json"),
        ("response", "x-id", "a"),
        ("response", "x-id", "b"),
    ]
    assert [t.timestamp() for t in cap.exchanges["started_at"]] == [_EPOCH] * 3  # timestamp, time too


def test_helicone_shape_reads_every_field(tmp_path):
    line = {
        "request_id": "h-1",
        "request_created_at": _T0,
        "request_path": "/v1/responses",
        "request_body": _REQ,
        "response_created_at": "2026-11-30T09:00:02Z",
        "response_status": 200,
        "response_body": _RESP,
        "target_url": "https://api.openai.com/v1/responses",
        "model": None,
        "request_model": None,
        "response_model": "resp-model",
        "provider": "OPENAI",
        "delay_ms": None,
        "prompt_tokens": 11,
        "completion_tokens": "5",
        "signed_body_url": "https://example.invalid/body",
    }
    cap = _load(tmp_path, line, {**line, "target_url": None, "delay_ms": 640})
    a, b = _row(cap, 0), _row(cap, 1)
    assert (a.log_id, a.started_at.timestamp(), a.duration_ms) == ("h-1", _EPOCH, 2000.0)  # from response_created_at
    assert b.duration_ms == 640.0
    assert (a.method, a.url, a.status, a.provider) == ("POST", line["target_url"], 200, "OPENAI")
    assert b.url == "/v1/responses" and b.path == "/v1/responses"  # request_path without target_url
    assert (a.model, a.input_tokens, a.output_tokens, a.body_fidelity) == ("m", 11, 5, "json")  # body's model wins
    line2 = {**line, "request_body": {"input": "hi"}, "response_body": {"output": []}}
    for key, model in (("response_model", "resp-model"), ("request_model", "req-model"), ("model", "row-model")):
        line2[key] = model
        assert _row(_load(tmp_path, line2)).model == model  # model, then request_model, then response_model


def test_litellm_shape_reads_every_field(tmp_path):
    ok = {
        "request_id": "l-1",
        "call_type": "aresponses",
        "startTime": _T0,
        "endTime": "2026-11-30T09:00:01.5Z",
        "request_duration_ms": None,
        "model": "m",
        "custom_llm_provider": "openai",
        "api_base": "https://api.openai.com/v1",
        "status": "success",
        "messages": [{"role": "user", "content": "hi"}],
        "response": {"id": "r", "object": "response", "status": "completed", "output": []},
        "proxy_server_request": {"url": "/v1/responses", "method": "POST", "headers": {"x-a": "1"}, "body": _REQ},
        "prompt_tokens": 3,
        "completion_tokens": 4,
        "metadata": {},
    }
    failed = {
        **ok,
        "request_id": "l-2",
        "request_duration_ms": 99,
        "status": "failure",
        "response": {},
        "metadata": json.dumps(
            {"error_information": {"error_code": "429", "error_class": "RateLimitError", "error_message": "slow"}}
        ),
    }
    cap = _load(tmp_path, ok, failed)
    a, b = _row(cap, 0), _row(cap, 1)
    assert (a.log_id, a.started_at.timestamp(), a.duration_ms) == ("l-1", _EPOCH, 1500.0)  # from endTime
    assert (a.method, a.url, a.status, a.provider) == ("POST", "https://api.openai.com/v1/responses", 200, "openai")
    assert (a.api, a.model, a.input_tokens, a.output_tokens, a.body_fidelity) == ("responses", "m", 3, 4, "normalised")
    assert _headers(cap, "request") == {"x-a": "1"}
    assert (b.duration_ms, b.status, b.terminal) == (99.0, 429, "http-error")
    assert (b.error_code, b.error_type, b.error_message) == ("429", "RateLimitError", "slow")
    kinds = cap.problems.groupby("exchange_id")["kind"].apply(list).to_dict()
    assert kinds == {b.exchange_id: ["gateway-failure", "body-missing"]}


def test_a_line_with_nan_is_a_problem_not_a_value(tmp_path):
    good = {"ts": _T0, "url": "http://h/v1/responses", "request_body": {"input": "x"}}
    path = tmp_path / "nan.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "duration_ms": float("nan")}) + "\n")
    decoded, problems, _ = _read(path)
    assert len(decoded) == 1
    assert [(p.location, p.kind) for p in problems] == [("line 2", "bad-entry")]
    assert "NaN is not JSON" in problems[0].message


def test_a_bad_byte_inside_a_line_keeps_the_exchange_and_names_the_byte(tmp_path):
    good = (json.dumps({"ts": _T0, "url": "http://h/v1/responses", "request_body": {"input": "caf-"}}) + "\n").encode()
    bad = good.replace(b"caf-", b"caf\xe9")
    path = tmp_path / "bad.jsonl"
    path.write_bytes(good + bad)
    decoded, problems, _ = _read(path)
    assert len(decoded) == 2 and problems == []  # the line used to be lost
    (issue,) = decoded[1].issues
    assert issue.kind == "bad-utf8"
    at = len(good) + bad.index(b"\xe9")
    assert issue.message.startswith(f"byte {at}: ")
    assert decoded[1].inputs[0].text == "caf\ufffd"
