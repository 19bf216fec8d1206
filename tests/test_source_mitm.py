"""mitmproxy flow files: the native reader, the conversion hint, and the FlowReader path.

mitmproxy is not installed in this environment (and must not be: docs/upstream.md, "mitmproxy"). The native
reader is tested on flow files written here and, in ``test_lab_data.py``, on the lab's real ones; the
FlowReader path is exercised with small stand-ins that have the attributes the reader uses.
"""

from __future__ import annotations

import gzip
import sys
import types
from pathlib import Path

import pytest

from toolkit.errors import CaptureError
from toolkit.sources import mitm
from toolkit.wire.records import Decoded, EntryCount, Header, Problem

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _tnet(value) -> bytes:
    """A minimal typed-netstring writer for test files (the format of .mitm flows)."""
    if value is None:
        return b"0:~"
    if isinstance(value, bool):
        p = b"true" if value else b"false"
        return b"%d:%s!" % (len(p), p)
    if isinstance(value, int):
        p = str(value).encode()
        return b"%d:%s#" % (len(p), p)
    if isinstance(value, float):
        p = repr(value).encode()
        return b"%d:%s^" % (len(p), p)
    if isinstance(value, bytes):
        return b"%d:%s," % (len(value), value)
    if isinstance(value, str):
        p = value.encode("utf-8", "surrogateescape")
        return b"%d:%s;" % (len(p), p)
    if isinstance(value, list):
        p = b"".join(_tnet(v) for v in value)
        return b"%d:%s]" % (len(p), p)
    p = b"".join(_tnet(k) + _tnet(v) for k, v in value.items())
    return b"%d:%s}" % (len(p), p)


def _flow_state(version=21, **changes):
    state = {
        "version": version,
        "type": "http",
        "id": "f1",
        "metadata": {"sse_chunk_times": [1.5, 1.6]},
        "request": {
            "method": b"POST",
            "scheme": b"http",
            "host": "127.0.0.1",
            "port": 18788,
            "path": b"/v1/responses",
            "authority": b"",
            "http_version": b"HTTP/1.1",
            "headers": [
                [b"authorization", b"Bearer sk-test0123456789abcdefghij"],
                [b"content-type", b"application/json"],
            ],
            "content": b'{"model":"m","input":"hi","stream":false,"tools":[]}',
            "trailers": None,
            "timestamp_start": 100.0,
            "timestamp_end": 100.1,
        },
        "response": {
            "status_code": 200,
            "reason": b"OK",
            "http_version": b"HTTP/1.1",
            "headers": [[b"content-type", b"application/json"], [b"content-encoding", b"gzip"]],
            "content": gzip.compress(b'{"id":"r","object":"response","status":"completed","model":"m","output":[]}'),
            "trailers": None,
            "timestamp_start": 100.2,
            "timestamp_end": 100.25,
        },
        "error": None,
    }
    state.update(changes)
    return state


def test_native_reader_needs_no_mitmproxy(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)  # as if not installed, even where it is
    path = tmp_path / "flows.mitm"
    path.write_bytes(_tnet(_flow_state()) + _tnet(_flow_state(type="tcp")))
    recs = list(mitm.read(path, "m"))
    d, tcp, count = recs
    assert isinstance(d, Decoded) and d.exchange.url == "http://127.0.0.1:18788/v1/responses"
    assert (d.exchange.status, d.exchange.terminal, d.exchange.duration_ms) == (200, "completed", pytest.approx(250.0))
    assert d.chunk_times == [1.5, 1.6] and ("authorization", "Bearer sk-test0123456789abcdefghij") in [
        (h.name, h.value) for h in d.headers
    ]
    assert isinstance(tcp, Problem) and tcp.kind == "not-http"
    assert count == EntryCount("m", "flow", 2)


def test_truncated_native_file_keeps_the_good_flows(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    good = _tnet(_flow_state())
    path = tmp_path / "cut.mitm"
    path.write_bytes(good + good[:200])
    recs = list(mitm.read(path, "m"))
    assert isinstance(recs[0], Decoded) and recs[1].kind == "bad-flow" and f"byte {len(good)}" in recs[1].message
    assert recs[-1] == EntryCount("m", "flow", 2)
    path.write_bytes(b"12:not a flow")
    with pytest.raises(CaptureError, match="not a mitmproxy flow file"):
        list(mitm.read(path, "m"))


def test_unknown_flow_version_names_the_conversion_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = tmp_path / "my flows.mitm"
    path.write_bytes(_tnet(_flow_state(version=7)))
    with pytest.raises(CaptureError) as err:
        list(mitm.read(path, "m"))
    message = str(err.value)
    assert "flow format version 7 is not one the toolkit reads itself" in message
    assert "mitmproxy is not installed in this environment" in message and "own environment" in message
    assert f"mitmdump -nr '{path}' --set hardump=out.har" in message
    assert err.value.path == str(path)


# --- the mapping, against stand-ins ------------------------------------------------------------


class _Headers:
    def __init__(self, pairs):
        self._pairs = pairs

    def items(self, multi=False):
        return list(self._pairs)


class _Message:
    def __init__(self, raw, decoded, headers, t0, t1, **kw):
        self.raw_content = raw
        self._decoded = decoded
        self.headers = _Headers(headers)
        self.timestamp_start, self.timestamp_end = t0, t1
        self.__dict__.update(kw)

    def get_content(self, strict=True):
        return self._decoded


class _HTTPFlow:
    type = "http"

    def __init__(self, request, response, metadata=None, error=None):
        self.request, self.response = request, response
        self.metadata = metadata or {}
        self.error = error


class _TCPFlow:
    type = "tcp"


class _FlowReadException(Exception):
    pass


def _install_fake(monkeypatch, flows):
    pkg = types.ModuleType("mitmproxy")
    http = types.ModuleType("mitmproxy.http")
    http.HTTPFlow = _HTTPFlow
    io = types.ModuleType("mitmproxy.io")

    class FlowReader:
        def __init__(self, f):
            self.f = f

        def stream(self):
            for flow in flows:
                if isinstance(flow, Exception):
                    raise flow
                yield flow

    io.FlowReader = FlowReader
    exceptions = types.ModuleType("mitmproxy.exceptions")
    exceptions.FlowReadException = _FlowReadException
    pkg.http, pkg.io, pkg.exceptions = http, io, exceptions
    for name, module in (
        ("mitmproxy", pkg),
        ("mitmproxy.http", http),
        ("mitmproxy.io", io),
        ("mitmproxy.exceptions", exceptions),
    ):
        monkeypatch.setitem(sys.modules, name, module)


def _sse_flow():
    body = (FIXTURES / "sse" / "responses_function_call.sse").read_bytes()
    packed = gzip.compress(body)
    request_body = b'{"model":"test-model","input":"hi","stream":true,"tools":[]}'
    request = _Message(
        request_body,
        request_body,
        [("content-type", "application/json"), ("authorization", "Bearer <redacted>")],
        1767225600.0,
        1767225600.01,
        method="POST",
        url="https://api.openai.com/v1/responses",
        host="api.openai.com",
        path="/v1/responses",
    )
    response = _Message(
        packed,
        body,
        [("content-type", "text/event-stream; charset=utf-8"), ("content-encoding", "gzip")],
        1767225600.3,
        1767225601.25,
        status_code=200,
    )
    return _HTTPFlow(request, response, metadata={"sse_chunk_times": [1767225600.3, 1767225600.9]}), packed


def test_http_flows_become_exchanges(tmp_path, monkeypatch):
    flow, packed = _sse_flow()
    _install_fake(monkeypatch, [flow, _TCPFlow()])
    path = tmp_path / "flows.mitm"
    path.write_bytes(b"stand-in")
    records = list(mitm.read(path, "m"))
    decoded, problem, count = records
    assert isinstance(decoded, Decoded) and isinstance(problem, Problem)
    assert count == EntryCount("m", "flow", 2)

    ex = decoded.exchange
    assert (ex.exchange_id, ex.location) == ("m:0", "flow 0")
    assert (ex.method, ex.url, ex.host, ex.path, ex.status) == (
        "POST",
        "https://api.openai.com/v1/responses",
        "api.openai.com",
        "/v1/responses",
        200,
    )
    assert ex.started_at == 1767225600.0
    assert ex.duration_ms == pytest.approx(1250.0)
    assert ex.response_bytes == len(packed)  # raw (encoded) size
    assert ex.api == "responses" and ex.terminal == "completed"
    assert [c.name for c in decoded.calls] == ["bash"]  # the decoded content was used
    assert decoded.chunk_times == [1767225600.3, 1767225600.9]
    assert Header("response", "content-encoding", "gzip") in decoded.headers

    assert (problem.location, problem.kind, problem.exchange_id) == ("flow 1", "not-http", None)


def test_flow_without_response_keeps_the_request(tmp_path, monkeypatch):
    flow, _ = _sse_flow()
    flow.response = None
    flow.error = types.SimpleNamespace(msg="Connection killed.")
    _install_fake(monkeypatch, [flow])
    path = tmp_path / "f.mitm"
    path.write_bytes(b"x")
    decoded, count = list(mitm.read(path, "m"))
    assert decoded.exchange.status is None and decoded.exchange.method == "POST"
    assert any(i.kind == "flow-error" and "Connection killed." in i.message for i in decoded.issues)
    assert count.entries == 1


def test_unreadable_file_and_truncated_tail(tmp_path, monkeypatch):
    path = tmp_path / "f.mitm"
    path.write_bytes(b"x")
    _install_fake(monkeypatch, [_FlowReadException("invalid tnetstring")])
    with pytest.raises(CaptureError, match="not a mitmproxy flow file"):
        list(mitm.read(path, "m"))
    flow, _ = _sse_flow()
    _install_fake(monkeypatch, [flow, _FlowReadException("truncated")])
    records = list(mitm.read(path, "m"))
    assert isinstance(records[0], Decoded)
    assert isinstance(records[1], Problem) and records[1].kind == "bad-flow"
    assert records[2] == EntryCount("m", "flow", 2)
