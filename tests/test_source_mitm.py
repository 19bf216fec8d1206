"""mitmproxy flow files: the missing-module error, and the flow mapping against a stand-in API.

mitmproxy is not installed in this environment (and must not be: wire-formats.md §5), so the
mapping is exercised with small stand-ins for ``mitmproxy.io.FlowReader`` and ``mitmproxy.http``
that have the attributes the reader uses.
"""
from __future__ import annotations

import gzip
import importlib.util
import sys
import types
from pathlib import Path

import pytest

from toolkit.errors import CaptureError
from toolkit.sources import mitm
from toolkit.wire.records import Decoded, EntryCount, Header, Problem

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_missing_mitmproxy_names_the_conversion_command(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)  # as if not installed, even where it is
    path = tmp_path / "flows.mitm"
    path.write_bytes(b"")
    with pytest.raises(CaptureError) as err:
        list(mitm.read(path, "m"))
    message = str(err.value)
    assert "mitmproxy is not installed in this environment" in message
    assert "own environment" in message and "Python 3.11" in message
    assert f"mitmdump -nr {path} --set hardump=out.har" in message
    assert err.value.path == str(path)


def test_missing_mitmproxy_quotes_awkward_file_names(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = tmp_path / "my flows.mitm"
    with pytest.raises(CaptureError) as err:
        list(mitm.read(path, "m"))
    assert f"mitmdump -nr '{path}' --set hardump=out.har" in str(err.value)


@pytest.mark.skipif(importlib.util.find_spec("mitmproxy") is not None,
                    reason="mitmproxy is installed here")
def test_this_environment_really_has_no_mitmproxy(tmp_path):
    with pytest.raises(CaptureError, match="mitmproxy is not installed"):
        list(mitm.read(tmp_path / "flows.mitm", "m"))


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
    for name, module in (("mitmproxy", pkg), ("mitmproxy.http", http), ("mitmproxy.io", io),
                         ("mitmproxy.exceptions", exceptions)):
        monkeypatch.setitem(sys.modules, name, module)


def _sse_flow():
    body = (FIXTURES / "sse" / "responses_function_call.sse").read_bytes()
    packed = gzip.compress(body)
    request_body = b'{"model":"test-model","input":"hi","stream":true,"tools":[]}'
    request = _Message(request_body, request_body,
                       [("content-type", "application/json"), ("authorization", "Bearer <redacted>")],
                       1767225600.0, 1767225600.01, method="POST",
                       url="https://api.openai.com/v1/responses", host="api.openai.com",
                       path="/v1/responses")
    response = _Message(packed, body,
                        [("content-type", "text/event-stream; charset=utf-8"), ("content-encoding", "gzip")],
                        1767225600.3, 1767225601.25, status_code=200)
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
        "POST", "https://api.openai.com/v1/responses", "api.openai.com", "/v1/responses", 200)
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
