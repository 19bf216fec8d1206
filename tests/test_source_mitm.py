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
from urllib.parse import urlsplit

import pytest
from conftest import tnet

from toolkit.errors import CaptureError
from toolkit.sources import mitm
from toolkit.wire.records import Decoded, EntryCount, Header, Problem

FIXTURES = Path(__file__).resolve().parent / "fixtures"


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
    path.write_bytes(tnet(_flow_state()) + tnet(_flow_state(type="tcp")))
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
    good = tnet(_flow_state())
    path = tmp_path / "cut.mitm"
    path.write_bytes(good + good[:200])
    recs = list(mitm.read(path, "m"))
    assert isinstance(recs[0], Decoded) and recs[1].kind == "bad-entry" and f"byte {len(good)}" in recs[1].message
    assert recs[-1] == EntryCount("m", "flow", 2)
    path.write_bytes(b"12:not a flow")
    with pytest.raises(CaptureError, match="not a mitmproxy flow file"):
        list(mitm.read(path, "m"))


def test_a_flow_without_a_version_is_not_a_flow(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = tmp_path / "f.mitm"
    path.write_bytes(tnet(_flow_state(version={"major": 9})))
    with pytest.raises(CaptureError, match=r"a flow without a flow format version \(\{'major': 9\}\)"):
        list(mitm.read(path, "m"))


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
    assert isinstance(records[1], Problem) and records[1].kind == "bad-entry"
    assert records[2] == EntryCount("m", "flow", 2)


# --- old flow formats, recorded by the real mitmproxy releases (lab/old_mitm.py) ------------------------

OLD = {"5.1.1": 7, "5.2": 8, "5.3.0": 9, "6.0.2": 10, "7.0.4": 14, "8.0.0": 15, "8.1.1": 17, "9.0.1": 18}
# mitmproxy 5 and 6 run the response hook, where -w saves the flow, before a streamed body is read, so
# lab/old_mitm.py records them without the tee addon: full bodies, no chunk times.
NO_TEE = {"5.1.1", "5.2", "5.3.0", "6.0.2"}
# mitmproxy 5's reverse mode set the Host header to the upstream host without its port (6.0 keeps the port).
PORTLESS_HOST = {"5.1.1", "5.2", "5.3.0"}
CURRENT_FIXTURE = FIXTURES / "mitm" / "mitmproxy-11.0.2.mitm"
# Columns that differ between two recordings of the same traffic: the file's name and the recorded times.
_PER_RUN = {"exchange_id", "first_exchange_id", "source", "started_at", "duration_ms"}


def _versions(path):
    from toolkit.wire.tnetstring import parse

    data, pos, versions = path.read_bytes(), 0, []
    while pos < len(data):
        state, pos = parse(data, pos)
        versions.append(state["version"])
    return versions


def _comparable(cap):
    from toolkit.capture.frames import CAPTURE

    out = {}
    for name in ("exchanges", "calls", "tools", "inputs", "input_parts", "headers", "problems"):
        frame = getattr(cap, name)
        assert CAPTURE[name].mismatches(frame) == [], name
        out[name] = frame.drop(columns=[c for c in frame.columns if c in _PER_RUN]).reset_index(drop=True)
    return out


@pytest.mark.parametrize("release", OLD)
def test_old_flow_formats_read_into_the_frames_of_the_current_one(release, monkeypatch):
    from toolkit.capture import load_capture

    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = FIXTURES / "mitm" / f"mitmproxy-{release}.mitm"
    assert _versions(path) == [OLD[release]] * 2 and _versions(CURRENT_FIXTURE) == [21, 21]
    old, new = load_capture(path), load_capture(CURRENT_FIXTURE)
    summary = old.summary()
    assert summary["reconciles"].all() and (int(summary["entries"].iloc[0]), int(summary["lost"].iloc[0])) == (2, 0)
    old_frames, new_frames = _comparable(old), _comparable(new)
    if release in PORTLESS_HOST:  # the only difference, and the URL follows the Host header as in HAR
        headers, host = old_frames["headers"], old_frames["headers"]["name"].str.lower() == "host"
        assert set(headers.loc[host, "value"]) == {"127.0.0.1"}
        assert old_frames["exchanges"]["url"].tolist() == [
            url.replace(":18792", "") for url in new_frames["exchanges"]["url"]
        ]
        headers.loc[host, "value"] = new_frames["headers"].loc[host, "value"]
        old_frames["exchanges"]["url"] = new_frames["exchanges"]["url"]
    for name, frame in new_frames.items():
        assert old_frames[name].equals(frame), name
    ex = old_frames["exchanges"]
    assert ex["api"].tolist() == ["responses", "chat"] and ex["terminal"].tolist() == ["completed", "completed"]
    assert ex["url"].tolist() == [
        "http://127.0.0.1:18792/absent-is-strict/v1/responses",
        "http://127.0.0.1:18792/passthrough/v1/chat/completions",
    ]
    assert len(old_frames["calls"]) == 2 and old_frames["calls"]["complete"].all()
    assert set(old_frames["tools"]["strict_state"]) == {"absent"}  # pi-ai 0.x sent no strict key
    assert old_frames["problems"].empty
    chunked = [r for r in mitm.read(path, "m") if isinstance(r, Decoded)]
    if release in NO_TEE:
        assert [d.chunk_times for d in chunked] == [[], []]
    else:
        assert all(len(d.chunk_times) > 3 for d in chunked)  # the tee addon's metadata survives the migration


def test_migration_renames_the_connection_fields_step_by_step():
    from toolkit.sources.mitm_migrate import MigrationError, migrate

    state = {
        "version": 14,
        "type": "http",
        "mode": "regular",
        "request": {"timestamp_start": 5.0},
        "websocket": {"messages": [[1, True, b"hi", 6.0]]},
        "client_conn": {"address": [b"10.0.0.1", 5], "tls_extensions": [], "tls_established": True, "state": 0},
        "server_conn": {
            "address": ["api.example", 443],
            "ip_address": ["3.33.235.18", 443],
            "source_address": ["10.0.0.1", 6],
            "via2": None,
            "sni": True,
            "cipher_name": "TLS_AES_128_GCM_SHA256",
            "tls_version": "QUIC",
        },
    }
    migrate(state)
    client, server = state["client_conn"], state["server_conn"]
    assert state["version"] == 21 and "mode" not in state and state["timestamp_created"] == 5.0
    assert state["websocket"]["messages"] == [[1, True, b"hi", 6.0, False]]
    assert client == {
        "peername": ["10.0.0.1", 5],
        "timestamp_start": 0.0,
        "proxy_mode": "regular",
        "cipher": None,
        "transport_protocol": "tcp",
    }
    assert (server["peername"], server["sockname"], server["sni"]) == (
        ["3.33.235.18", 443],
        ["10.0.0.1", 6],
        "api.example",
    )
    assert (server["cipher"], server["tls_version"], "ip_address" in server) == (
        "TLS_AES_128_GCM_SHA256",
        "QUICv1",
        False,
    )
    with pytest.raises(MigrationError, match="upgrading flow format 17 to 18: client_conn is list"):
        migrate({"version": 17, "client_conn": []})
    assert migrate({"version": 16, "type": "http", "request": {"timestamp_start": 1.0}})["version"] == 21
    with pytest.raises(MigrationError, match="not between 7 and 21"):
        migrate({"version": 6})


def test_migration_from_mitmproxy_5_and_6_follows_mitmproxy_compat():
    from toolkit.sources.mitm_migrate import MigrationError, migrate

    via = {"address": ["proxy", 8080], "cert": b"PEM", "alpn_proto_negotiated": b"h2", "sni": b"proxy"}
    state = {
        "version": 7,
        "type": "http",
        "marked": True,
        "metadata": {},
        "request": {"first_line_format": "relative", "is_replay": False, "timestamp_end": 2.0},
        "response": {"is_replay": True, "timestamp_start": None, "timestamp_end": None},
        "client_conn": {"address": ["10.0.0.1", 5], "clientcert": None, "tls_established": True, "sni": b"api.x"},
        "server_conn": {"address": ["api.x", 443], "cipher_name": "AES", "via": via, "tls_established": False},
    }
    migrate(state)
    client, server = state["client_conn"], state["server_conn"]
    assert (state["version"], state["is_replay"], state["marked"], state["comment"]) == (
        21,
        "response",
        ":default:",
        "",
    )
    assert state["websocket"] is None and state["request"]["authority"] == b""
    assert "first_line_format" not in state["request"] and "is_replay" not in state["request"]
    assert (state["request"]["trailers"], state["response"]["trailers"]) == (None, None)
    assert (state["response"]["timestamp_start"], state["response"]["timestamp_end"]) == (2.0, 3.0)  # #4576
    assert (client["sockname"], client["certificate_list"], client["tls"], client["sni"]) == (
        ["", 0],
        [],
        True,
        "api.x",
    )
    assert (client["alpn"], client["alpn_offers"], client["cipher_list"]) == (None, [], [])
    assert (server["certificate_list"], server["cipher"], server["cipher_list"], server["via"]) == ([], None, [], None)
    assert (via["certificate_list"], via["alpn"], via["alpn_offers"], via["sni"]) == ([b"PEM"], b"h2", [b"h2"], "proxy")
    # a mitmproxy 6 WebSocket flow of its own stays one: mitmproxy would copy its handshake flow into it
    websocket = {"version": 10, "type": "websocket", "metadata": {"websocket_handshake": "f1"}, "marked": False}
    assert migrate(websocket)["type"] == "websocket" and "websocket" not in websocket
    with pytest.raises(MigrationError, match="upgrading flow format 13 to 14: a response without timestamp_start"):
        migrate({"version": 13, "request": {"timestamp_end": None}, "response": {"timestamp_start": None}})


def _old_flows(release="9.0.1"):
    from toolkit.wire.tnetstring import parse

    data, pos, states = (FIXTURES / "mitm" / f"mitmproxy-{release}.mitm").read_bytes(), 0, []
    while pos < len(data):
        state, pos = parse(data, pos)
        states.append(state)
    return states


def test_partly_bad_old_file_keeps_the_good_flows_and_reconciles(tmp_path, monkeypatch):
    from toolkit.capture import load_capture

    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    responses, chat = _old_flows("9.0.1")
    older, broken, no_request = _old_flows("7.0.4")[0], _old_flows("8.1.1")[1], _old_flows("8.0.0")[0]
    older["version"] = 6  # a mitmproxy 3.0 release candidate's flow appended to the file
    broken["client_conn"] = [b"not", b"a", b"connection"]
    no_request["request"] = None
    good = tnet(responses)
    path = tmp_path / "old.mitm"
    path.write_bytes(good + tnet(older) + tnet(broken) + tnet(no_request) + tnet(chat) + good[:300])
    records = list(mitm.read(path, "m"))
    kinds = [r.kind if isinstance(r, Problem) else type(r).__name__ for r in records]
    assert kinds == ["Decoded", "bad-entry", "bad-entry", "bad-entry", "Decoded", "bad-entry", "EntryCount"]
    assert "flow 1: flow format version 6 (written by a mitmproxy development build) is older" in records[1].message
    assert records[2].message == "flow 2: upgrading flow format 17 to 18: client_conn is list, not a dictionary"
    assert records[3].message == "flow 3: an HTTP flow without a request state"
    assert records[4].exchange.api == "chat" and "reading stopped here" in records[5].message
    assert records[-1] == EntryCount("m", "flow", 6)
    summary = load_capture(path).summary()
    assert summary[["entries", "read", "lost"]].iloc[0].tolist() == [6, 2, 4] and summary["reconciles"].all()


@pytest.mark.parametrize(
    ("version", "written_by"),
    [
        (6, "a mitmproxy development build"),
        ([2, 0], "mitmproxy 2.0"),
        ([0, 18], "mitmproxy 0.18"),
    ],
)
def test_too_old_first_flow_names_the_release_and_the_conversion(version, written_by, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = tmp_path / "my flows.mitm"
    path.write_bytes(tnet(_flow_state(version=version)))
    with pytest.raises(CaptureError) as err:
        list(mitm.read(path, "m"))
    message = str(err.value)
    reads = "(7, mitmproxy 3.x to 5.1, to 21, mitmproxy 11.x and 12.x)"
    assert f"(written by {written_by}) is older than the versions the toolkit reads itself {reads}" in message
    assert "mitmproxy is not installed in this environment" in message
    assert f"mitmdump -nr '{path}' -w '{tmp_path}/my flows.v21.mitm'" in message
    assert f"mitmdump -nr '{path}' --set hardump=out.har" in message
    assert err.value.path == str(path)


def test_newer_flow_format_is_refused_as_newer(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = tmp_path / "f.mitm"
    path.write_bytes(tnet(_flow_state(version=22)))
    with pytest.raises(
        CaptureError, match=r"version 22 \(written by no mitmproxy release this toolkit knows\) is newer"
    ):
        list(mitm.read(path, "m"))
    with pytest.raises(CaptureError) as err:
        list(mitm.read(path, "m"))
    assert "convert it to HAR" in str(err.value) and " -w " not in str(err.value)


# --- the URL is the name the client asked for, as in mitmproxy's HAR export -----------------------------


def _addressed(request_changes, headers):
    state = _flow_state()
    state["request"].update(request_changes)
    state["request"]["headers"] = headers + [[b"content-type", b"application/json"]]
    return state


@pytest.mark.parametrize(
    ("changes", "headers", "url", "host"),
    [
        # transparent mode: the connection went to an IP address, the client asked for a name (HTTP/1: Host)
        (
            {"scheme": b"https", "host": "3.33.235.18", "port": 443, "path": b"/sdk/stream?x=1"},
            [[b"Host", b"clientstream.launchdarkly.com"]],
            "https://clientstream.launchdarkly.com/sdk/stream?x=1",
            "clientstream.launchdarkly.com",
        ),
        # a Host header with a port keeps it; a default port is left out
        (
            {"host": "10.1.2.3", "port": 8080},
            [[b"host", b"gateway.internal:8080"]],
            "http://gateway.internal:8080/v1/responses",
            "gateway.internal",
        ),
        # HTTP/2: :authority first
        (
            {
                "scheme": b"https",
                "host": "3.33.235.18",
                "port": 443,
                "http_version": b"HTTP/2.0",
                "authority": b"api.openai.com",
            },
            [],
            "https://api.openai.com/v1/responses",
            "api.openai.com",
        ),
        # no Host header (HTTP/1.0): the connection's address, as before
        ({}, [], "http://127.0.0.1:18788/v1/responses", "127.0.0.1"),
    ],
)
def test_url_and_host_come_from_the_host_header_as_in_har(changes, headers, url, host, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    path = tmp_path / "t.mitm"
    path.write_bytes(tnet(_addressed(changes, headers)))
    decoded, _ = list(mitm.read(path, "m"))
    assert (decoded.exchange.url, decoded.exchange.host) == (url, host)
    assert decoded.exchange.path == urlsplit(url).path


def test_flowreader_path_uses_pretty_url(tmp_path, monkeypatch):
    flow, _ = _sse_flow()
    flow.request.url = "https://3.33.235.18/v1/responses"
    flow.request.host = "3.33.235.18"
    flow.request.pretty_url = "https://api.openai.com/v1/responses"
    flow.request.pretty_host = "api.openai.com"
    _install_fake(monkeypatch, [flow])
    path = tmp_path / "f.mitm"
    path.write_bytes(b"x")
    decoded, _ = list(mitm.read(path, "m"))
    assert (decoded.exchange.url, decoded.exchange.host) == ("https://api.openai.com/v1/responses", "api.openai.com")
