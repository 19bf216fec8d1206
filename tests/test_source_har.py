"""HAR reader: the quirks of real exporters (docs/upstream.md, "har")."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit import CaptureError

REQ = {
    "model": "test-model",
    "stream": True,
    "store": False,
    "input": [{"role": "user", "content": [{"type": "input_text", "text": "Run the tool once."}]}],
    "tools": [
        {
            "type": "function",
            "name": "bash",
            "description": "Run a shell command.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}, "justification": {"type": "string"}},
                "required": ["command"],
            },
        }
    ],
}
ARGS = '{"command":"ls -la","justification":""}'
SSE = "".join(
    f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': i})}\n\n"
    for i, e in enumerate(
        [
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {
                    "id": "fc_1",
                    "type": "function_call",
                    "status": "in_progress",
                    "arguments": "",
                    "call_id": "call_1",
                    "name": "bash",
                },
            },
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 0,
                "delta": ARGS[:10],
            },
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 0,
                "delta": ARGS[10:],
            },
            {
                "type": "response.function_call_arguments.done",
                "item_id": "fc_1",
                "output_index": 0,
                "name": "bash",
                "arguments": ARGS,
            },
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {
                    "id": "fc_1",
                    "type": "function_call",
                    "status": "completed",
                    "arguments": ARGS,
                    "call_id": "call_1",
                    "name": "bash",
                },
            },
            {
                "type": "response.completed",
                "response": {"id": "resp_1", "status": "completed", "model": "test-model", "output": []},
            },
        ]
    )
)


def entry(*, req_extra=None, post=None, content=None, status=200, headers=None, resp_headers=None, **extra):
    e = {
        "startedDateTime": "2026-11-30T09:00:00.000Z",
        "time": 120.5,
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8787/v1/responses",
            "httpVersion": "HTTP/1.1",
            "headers": headers
            if headers is not None
            else [{"name": "authorization", "value": "Bearer sk-test0123456789abcdefghijkl"}],
            "cookies": [],
            "queryString": [],
            "headersSize": -1,
            "bodySize": -1,
            "postData": post if post is not None else {"mimeType": "application/json", "text": json.dumps(REQ)},
        },
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": resp_headers
            if resp_headers is not None
            else [{"name": "content-type", "value": "text/event-stream"}],
            "content": content
            if content is not None
            else {"size": len(SSE), "mimeType": "text/event-stream", "text": SSE},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 60, "receive": 60.5},
    }
    e["request"].update(req_extra or {})
    e.update(extra)
    return e


def har(entries, creator="mitmproxy"):
    return {"log": {"version": "1.2", "creator": {"name": creator, "version": "1"}, "pages": [], "entries": entries}}


def write(tmp_path, doc, name="capture.har", raw=None):
    p = tmp_path / name
    p.write_bytes(raw if raw is not None else json.dumps(doc, indent=1).encode())
    return p


def test_mitmproxy_hardump_entry(tmp_path):
    cap = toolkit.load_capture(write(tmp_path, har([entry()])))
    ex = cap.exchanges.iloc[0]
    assert (ex.api, ex.model, ex.method, ex.host, ex.path, ex.status, ex.terminal) == (
        "responses",
        "test-model",
        "POST",
        "127.0.0.1",
        "/v1/responses",
        200,
        "completed",
    )
    assert ex.started_at == pd.Timestamp("2026-11-30T09:00:00Z") and ex.duration_ms == 120.5
    assert ex.request_bytes == len(json.dumps(REQ)) and ex.response_bytes == len(SSE)
    tool = cap.tools.iloc[0]
    assert (tool["name"], tool["strict_state"], tool["required"], tool["optional"]) == (
        "bash",
        "absent",
        ("command",),
        ("justification",),
    )
    call = cap.calls.iloc[0]
    assert (call.call_id, call.item_id, call.arguments) == (
        "call_1",
        "fc_1",
        {"command": "ls -la", "justification": ""},
    )
    assert cap.headers.set_index("name").loc["authorization", "value"] == "<redacted>"
    assert cap.summary().iloc[0]["reconciles"]


def test_redaction_must_be_turned_off_explicitly(tmp_path):
    p = write(tmp_path, har([entry()]))
    assert "sk-test0123456789abcdefghijkl" not in cap_text(toolkit.load_capture(p))
    raw = toolkit.load_capture(p, redact=False)
    assert raw.headers.set_index("name").loc["authorization", "value"] == "Bearer sk-test0123456789abcdefghijkl"


def cap_text(cap) -> str:
    return "\n".join(
        getattr(cap, n).to_csv() for n in ("exchanges", "tools", "calls", "input_parts", "headers", "problems")
    )


def test_mitmproxy_failed_flow_has_status_0_and_error(tmp_path):
    e = entry(status=0, content={})
    e["response"]["_error"] = "Connection refused"
    cap = toolkit.load_capture(write(tmp_path, har([e])))
    ex = cap.exchanges.iloc[0]
    assert pd.isna(ex.status) and ex.terminal == "http-error" and ex.error_message == "Connection refused"


def test_chrome_http2_pseudo_headers_and_base64_body(tmp_path):
    headers = [
        {"name": ":authority", "value": "gw.example"},
        {"name": ":method", "value": "POST"},
        {"name": ":path", "value": "/v1/responses"},
        {"name": "content-type", "value": "application/json"},
    ]
    content = {
        "size": len(SSE),
        "mimeType": "x-unknown",
        "text": base64.b64encode(SSE.encode()).decode(),
        "encoding": "base64",
    }
    e = entry(headers=headers, content=content, _initiator={"type": "script"}, _resourceType="fetch")
    e["request"]["httpVersion"] = "http/2.0"
    e["request"]["url"] = "https://gw.example/v1/responses"
    cap = toolkit.load_capture(write(tmp_path, har([e], creator="WebInspector")))
    assert list(cap.headers["name"]) == ["content-type", "content-type"]  # pseudo-headers are not headers
    assert cap.exchanges.iloc[0].host == "gw.example"
    assert cap.calls.iloc[0].arguments == {"command": "ls -la", "justification": ""}


def test_firefox_missing_text_is_a_problem_on_that_exchange(tmp_path):
    content = {"mimeType": "text/event-stream", "size": 812, "comment": "Response bodies are not included."}
    cap = toolkit.load_capture(write(tmp_path, har([entry(content=content)], creator="Firefox")))
    assert len(cap.exchanges) == 1 and len(cap.calls) == 0
    prob = cap.problems.iloc[0]
    assert prob.kind == "body-missing" and "Response bodies are not included." in prob.message
    assert prob.exchange_id == cap.exchanges.iloc[0].exchange_id


def test_safari_text_base64(tmp_path):
    post = {"mimeType": "application/json", "_textBase64": base64.b64encode(json.dumps(REQ).encode()).decode()}
    content = {
        "size": len(SSE),
        "mimeType": "text/event-stream",
        "_textBase64": base64.b64encode(SSE.encode()).decode(),
    }
    cap = toolkit.load_capture(write(tmp_path, har([entry(post=post, content=content)], creator="WebKit")))
    assert cap.tools.iloc[0]["name"] == "bash" and len(cap.calls) == 1


def test_http_toolkit_discarded_bodies(tmp_path):
    e = entry(
        req_extra={
            "_requestBodyStatus": "discarded:too-large",
            "comment": "Body discarded during HAR export due to size",
        }
    )
    del e["request"]["postData"]
    e["response"]["content"] = {
        "size": 900000,
        "mimeType": "text/event-stream",
        "comment": "Body discarded during HAR export due to size",
    }
    cap = toolkit.load_capture(write(tmp_path, har([e], creator="HTTP Toolkit")))
    kinds = sorted(cap.problems["kind"])
    assert kinds == ["body-missing", "body-missing"]
    assert any("discarded:too-large" in m for m in cap.problems["message"])
    assert len(cap.exchanges) == 1 and cap.exchanges.iloc[0].status == 200


def test_compressed_base64_body_is_inflated(tmp_path):
    content = {
        "size": len(SSE),
        "mimeType": "text/event-stream",
        "text": base64.b64encode(gzip.compress(SSE.encode())).decode(),
        "encoding": "base64",
    }
    resp_headers = [
        {"name": "content-type", "value": "text/event-stream"},
        {"name": "content-encoding", "value": "gzip"},
    ]
    cap = toolkit.load_capture(write(tmp_path, har([entry(content=content, resp_headers=resp_headers)])))
    assert cap.calls.iloc[0].arguments["command"] == "ls -la"


def test_decompression_bomb_becomes_a_problem(tmp_path):
    bomb = gzip.compress(b"\0" * (65 << 20), compresslevel=9)
    content = {
        "size": 65 << 20,
        "mimeType": "application/json",
        "text": base64.b64encode(bomb).decode(),
        "encoding": "base64",
    }
    cap = toolkit.load_capture(write(tmp_path, har([entry(content=content)])))
    assert list(cap.problems["kind"]) == ["body-too-large"]
    assert len(cap.exchanges) == 1


def test_undecodable_base64_is_a_problem(tmp_path):
    content = {"size": 10, "mimeType": "application/json", "text": "not*base64!", "encoding": "base64"}
    cap = toolkit.load_capture(write(tmp_path, har([entry(content=content)])))
    assert list(cap.problems["kind"]) == ["bad-base64"]


def test_headers_as_dict_or_pairs(tmp_path):
    a = entry(headers={"Authorization": "Bearer abcdefghijklmnop1234", "X-Trace": "1"})
    b = entry(headers=[["authorization", "Bearer abcdefghijklmnop1234"], ["x-trace", "2"]])
    cap = toolkit.load_capture(write(tmp_path, har([a, b])))
    req = cap.headers[cap.headers["direction"] == "request"]
    assert list(req["name"]) == ["authorization", "x-trace", "authorization", "x-trace"]
    assert set(req[req["name"] == "authorization"]["value"]) == {"<redacted>"}


def test_bom_zhar_gzip_and_local_offsets(tmp_path):
    e = entry()
    e["startedDateTime"] = "2026-11-30T02:00:00.000-07:00"  # Charles writes local offsets
    doc = json.dumps(har([e])).encode()
    for name, raw in [
        ("bom.har", b"\xef\xbb\xbf" + doc),
        ("x.zhar", zlib.compress(doc)),
        ("x.har.gz", gzip.compress(doc)),
    ]:
        cap = toolkit.load_capture(write(tmp_path, None, name=name, raw=raw))
        assert cap.exchanges.iloc[0].started_at == pd.Timestamp("2026-11-30T09:00:00Z"), name


def test_truncated_file_keeps_good_entries_and_counts_reconcile(tmp_path):
    doc = json.dumps(har([entry(), entry(), entry()]))
    cut = doc[: doc.rindex('{"startedDateTime"') + 200]
    cap = toolkit.load_capture(write(tmp_path, None, raw=cut.encode()))
    s = cap.summary().iloc[0]
    assert (s.entries, s.read, s.lost, s.reconciles) == (3, 2, 1, True)
    prob = cap.problems.iloc[0]
    assert prob.kind == "bad-entry" and prob.location.startswith("entry 2, byte ")


def test_bad_entries_are_problems_not_silence(tmp_path):
    cap = toolkit.load_capture(write(tmp_path, har([entry(), {"request": "nope"}, 42, entry()])))
    s = cap.summary().iloc[0]
    assert (s.entries, s.read, s.lost, s.reconciles) == (4, 2, 2, True)
    assert list(cap.problems["location"]) == ["entry 1", "entry 2"]


@pytest.mark.parametrize(
    "raw, message",
    [
        (b'{"log": {"version": "1.2", "entries": [{"startedDateTime"', "byte"),
        (b'{"not_log": {}}', 'no top-level "log"'),
        (b'{"log": {"entries": {}}}', r"expected '\['"),
    ],
)
def test_unreadable_har_raises_with_place(tmp_path, raw, message):
    with pytest.raises(CaptureError, match=message) as info:
        toolkit.load_capture(write(tmp_path, None, raw=raw), format="har")
    assert str(tmp_path / "capture.har") in str(info.value)


def test_invalid_utf8_names_the_byte(tmp_path):
    raw = json.dumps(har([entry()])).encode()
    raw = raw[:100] + b"\xff" + raw[100:]
    assert raw[99:101] == b":\xff"  # between "entries": and its '[': the file cannot be read
    with pytest.raises(CaptureError, match=r"byte 100\): expected .* found a byte that is not UTF-8"):
        toolkit.load_capture(write(tmp_path, None, raw=raw))


# --- Polly.js, bytes that are not UTF-8, NaN (issue 13) ------------------------------------------

POLLY = Path(__file__).resolve().parent / "fixtures" / "har" / "polly_gzip.har"


def test_polly_gzip_chunks_are_read_with_their_function_calls():
    """Recorded by the real Polly.js 6.0.6 (lab/polly_har.py): a gzip body is a JSON array of base64 chunks."""
    doc = json.loads(POLLY.read_text())
    content = doc["log"]["entries"][0]["response"]["content"]
    assert content["encoding"] == "base64" and len(json.loads(content["text"])) > 1  # several chunks
    cap = toolkit.load_capture(POLLY)
    assert list(cap.problems["kind"]) == []  # used to be bad-base64, and the calls were lost
    ex = cap.exchanges
    assert list(ex["stream"]) == [True, False] and set(ex["terminal"]) == {"completed"}
    assert set(ex["body_fidelity"]) == {"wire"}
    assert list(cap.calls["name"]) == ["bash", "bash"] and set(cap.calls["arguments_raw"]) == {'{"command":"ls -la"}'}


def test_polly_chunks_that_are_not_base64_are_one_bad_base64_problem(tmp_path):
    content = {"size": 10, "mimeType": "application/json", "encoding": "base64", "text": '["H4sI", "!!"]'}
    cap = toolkit.load_capture(write(tmp_path, har([entry(content=content)])))
    assert list(cap.problems["kind"]) == ["bad-base64"] and len(cap.exchanges) == 1


def test_a_bad_byte_inside_a_body_keeps_every_entry_and_names_the_byte(tmp_path):
    raw = json.dumps(har([entry(), entry(), entry()])).encode()
    second = raw.index(b"Run the tool once.", raw.index(b"Run the tool once.") + 1)
    raw = raw[:second] + b"\xff" + raw[second + 1 :]  # one byte of the second entry's request text
    cap = toolkit.load_capture(write(tmp_path, None, raw=raw))
    assert len(cap.exchanges) == 3 and len(cap.calls) == 3  # it used to refuse the whole file
    (p,) = cap.problems.itertuples()
    assert (p.kind, p.location, p.exchange_id) == ("bad-utf8", "entry 1", cap.exchanges.exchange_id[1])
    assert p.message.startswith(f"byte {second}: ")
    assert "\ufffdun the tool once." in str(cap.inputs_wide().text[1])


def test_an_entry_with_a_nan_literal_is_lost_alone(tmp_path):
    doc = har([entry(), entry(time=float("nan")), entry()])
    raw = json.dumps(doc).encode()  # json.dumps writes NaN, which is not JSON
    cap = toolkit.load_capture(write(tmp_path, None, raw=raw))
    assert len(cap.exchanges) == 2
    (p,) = cap.problems.itertuples()
    assert (p.kind, p.location) == ("bad-entry", "entry 1") and pd.isna(p.exchange_id)
    assert f"NaN is not JSON (byte {raw.index(b'NaN')})" == p.message
    assert cap.summary()["reconciles"].all()


def test_an_entry_nested_too_deeply_ends_the_walk_with_a_problem_not_a_crash(tmp_path):
    """Python's decoder recurses; an absurdly nested entry is bad input with its byte, and the entries
    before it are kept (the walk cannot know where that entry ends, so nothing after it is read)."""
    deep = "[" * 5000 + "]" * 5000
    text = json.dumps(har([entry(), entry(x="DEEP"), entry()])).replace('"DEEP"', deep)
    path = write(tmp_path, None, raw=text.encode())
    cap = toolkit.load_capture(path)
    assert len(cap.exchanges) == 1
    (msg,) = cap.problems["message"]
    start = text.rindex('{"startedDateTime"', 0, text.index(deep))  # the second entry (ASCII: chars are bytes)
    assert msg == (
        f"JSON nested too deeply to read in the entry starting at byte {start} (the rest of the file cannot be read)"
    )
    with pytest.raises(CaptureError, match="nested too deeply"):  # as the first entry: nothing to keep
        toolkit.load_capture(
            write(
                tmp_path,
                None,
                name="first.har",
                raw=json.dumps(har([entry(x="DEEP")])).replace('"DEEP"', deep).encode(),
            )
        )
