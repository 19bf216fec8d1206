"""Old ``.mitm`` flow states (format 7, mitmproxy 3.0 to 5.1, to 20) brought step by step to format 21.

The native reader reads format 21; an older state is upgraded one version at a time, each step doing
what mitmproxy's own ``convert_N_M`` in ``mitmproxy/io/compat.py`` (mitmproxy/mitmproxy, 12.x) does
to the state, so the state the reader maps is the one mitmproxy itself would have (for the fixtures
recorded by mitmproxy 5.1.1 to 11.0.2, exactly the states mitmproxy 11.0.2's ``migrate_flow`` gives):

- 7 → 8: requests and responses get ``trailers`` None.
- 8 → 9: the request's ``first_line_format`` is dropped and ``authority`` is ``b""``; the request's and
  response's ``is_replay`` flags become the flow's ``is_replay`` (``"request"``, ``"response"`` or None).
- 9 → 10: connections get ``state`` 0, ``error`` None, ``tls`` (from ``tls_established``), ``alpn_offers``
  and ``cipher_list`` (the negotiated one in a list, else None); the client ``sockname`` ``["", 0]`` and
  ``certificate_list`` from ``clientcert``; the server (and its ``via``) ``certificate_list`` from ``cert``,
  ``cipher_name`` None and ``via2`` None.
- 10 → 11: ``sni`` as text, ``alpn_proto_negotiated`` → ``alpn``, ``alpn_offers`` and ``cipher_list``
  ``[]`` for None.
- 11 → 12: ``websocket`` None. A WebSocket flow of its own (metadata ``websocket_handshake``), which
  mitmproxy turns into a copy of its handshake flow found elsewhere in the file, stays a ``websocket``
  flow (read as ``not-http``): its handshake is an HTTP flow of its own and is read once.
- 12 → 13: ``marked`` becomes ``":default:"`` or ``""``.
- 13 → 14: ``comment`` ``""``; a response without ``timestamp_start`` gets the request's
  ``timestamp_end`` (and that + 1 s as its end; mitmproxy/mitmproxy#4576).
- 14 → 15: a WebSocket message gains an ``injected`` flag (False).
- 15 → 16: ``timestamp_created`` (the request's ``timestamp_start``, else the client connection's).
- 16 → 17: the flow's ``mode`` is dropped.
- 17 → 18: the client connection gets ``proxy_mode`` ``"regular"``.
- 18 → 19: connections renamed: client ``address`` → ``peername`` (a missing ``timestamp_start``
  becomes 0.0, ``tls_extensions`` dropped), server ``ip_address`` → ``peername``, ``source_address``
  → ``sockname``, ``via2`` → ``via``; on both ``tls_established`` dropped, ``cipher_name`` →
  ``cipher``, ``transport_protocol`` ``"tcp"`` when absent, host names in addresses as text; a server
  ``sni`` of ``True`` becomes the server address's host.
- 19 → 20: the connections' ``state`` is dropped.
- 20 → 21: a ``tls_version`` of ``"QUIC"`` becomes ``"QUICv1"``.

Older versions (the 3.0 release candidates' 5 and 6, and mitmproxy 2 and before, whose version is the
release's ``[major, minor]``) are refused with the command that rewrites the file in the current format.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkit.errors import InputError

__all__ = ["CURRENT", "OLDEST", "MigrationError", "migrate"]

OLDEST = 7
CURRENT = 21


class MigrationError(InputError):
    """A flow state that cannot be brought to the current format (its message names the field)."""


def _dict(state: dict[str, Any], key: str) -> dict[str, Any]:
    """The connection state ``key``; an absent one (a hand-written flow) as empty, another type an error."""
    value = state.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MigrationError(f"{key} is {type(value).__name__}, not a dictionary")
    return value


def _servers(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The server connection state and its ``via`` (the upstream proxy's), where present."""
    server = _dict(state, "server_conn")
    return [conn for conn in (server, _dict(server, "via") if server.get("via") else {}) if conn]


def _connections(state: dict[str, Any]) -> list[dict[str, Any]]:
    client = _dict(state, "client_conn")
    return [client, *_servers(state)] if client else _servers(state)


def _messages(state: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in (state.get("request"), state.get("response")) if isinstance(m, dict)]


def _7_8(state: dict[str, Any]) -> None:
    for message in _messages(state):
        message["trailers"] = None


def _8_9(state: dict[str, Any]) -> None:
    request, response = state.get("request"), state.get("response")
    replayed = None
    if isinstance(request, dict):
        request.pop("first_line_format", None)
        request["authority"] = b""
        replayed = "request" if request.pop("is_replay", False) else None
    if isinstance(response, dict) and response.pop("is_replay", False) and replayed is None:
        replayed = "response"
    state["is_replay"] = replayed


def _9_10(state: dict[str, Any]) -> None:
    if client := _dict(state, "client_conn"):
        client["sockname"] = ["", 0]
        clientcert = client.pop("clientcert", None)
        client["certificate_list"] = [clientcert] if clientcert else []
    for server in _servers(state):
        cert = server.pop("cert", None)
        server["certificate_list"] = [cert] if cert else []
        server["cipher_name"] = None
        server["via2"] = None
    for conn in _connections(state):
        conn["state"] = 0
        conn["error"] = None
        conn["tls"] = conn.get("tls_established")
        alpn, cipher = conn.get("alpn_proto_negotiated"), conn.get("cipher_name")
        conn["alpn_offers"] = [alpn] if alpn else None
        conn["cipher_list"] = [cipher] if cipher else None


def _10_11(state: dict[str, Any]) -> None:
    for conn in _connections(state):
        if isinstance(conn.get("sni"), bytes):
            conn["sni"] = conn["sni"].decode("ascii", "backslashreplace")
        conn["alpn"] = conn.pop("alpn_proto_negotiated", None)
        conn["alpn_offers"] = conn.get("alpn_offers") or []
        conn["cipher_list"] = conn.get("cipher_list") or []


def _11_12(state: dict[str, Any]) -> None:
    # mitmproxy turns a separate WebSocket flow (its metadata names the handshake flow) into a copy of the
    # handshake flow holding the messages; here it stays a "websocket" flow, so the handshake, an HTTP flow
    # of its own, is read once.
    metadata = state.get("metadata")
    if not (isinstance(metadata, dict) and "websocket_handshake" in metadata):
        state["websocket"] = None


def _12_13(state: dict[str, Any]) -> None:
    state["marked"] = ":default:" if state.get("marked") else ""


def _13_14(state: dict[str, Any]) -> None:
    state["comment"] = ""
    request, response = state.get("request"), state.get("response")
    # mitmproxy/mitmproxy#4576: a response without a start time gets the request's end time (and end + 1 s)
    if isinstance(response, dict) and response and response.get("timestamp_start") is None:
        end = request.get("timestamp_end") if isinstance(request, dict) else None
        if not isinstance(end, (int, float)) or isinstance(end, bool):
            raise MigrationError(f"a response without timestamp_start and a request timestamp_end of {end!r}")
        response["timestamp_start"], response["timestamp_end"] = end, end + 1


def _14_15(state: dict[str, Any]) -> None:
    websocket = state.get("websocket")
    if isinstance(websocket, dict) and isinstance(websocket.get("messages"), list):
        websocket["messages"] = [[*m, False] if isinstance(m, list) else m for m in websocket["messages"]]


def _15_16(state: dict[str, Any]) -> None:
    request = state.get("request")
    origin = request if isinstance(request, dict) else _dict(state, "client_conn")
    state["timestamp_created"] = origin.get("timestamp_start")


def _16_17(state: dict[str, Any]) -> None:
    state.pop("mode", None)


def _17_18(state: dict[str, Any]) -> None:
    if client := _dict(state, "client_conn"):
        client["proxy_mode"] = "regular"


def _host_text(address: Any) -> Any:
    if isinstance(address, list) and address and isinstance(address[0], bytes):
        return [address[0].decode("utf-8", "backslashreplace"), *address[1:]]
    return address


def _18_19(state: dict[str, Any]) -> None:
    client, server = _dict(state, "client_conn"), _dict(state, "server_conn")
    if not client or not server:  # nothing to rename in a flow that has no connection states
        return
    client["peername"] = client.pop("address", None)
    if client.get("timestamp_start") is None:
        client["timestamp_start"] = 0.0
    client.pop("tls_extensions", None)
    server["peername"] = server.pop("ip_address", None)
    server["sockname"] = server.pop("source_address", None)
    server["via"] = server.pop("via2", None)
    for conn in (client, server):
        conn.pop("tls_established", None)
        conn["cipher"] = conn.pop("cipher_name", None)
        conn.setdefault("transport_protocol", "tcp")
        for name in ("peername", "sockname", "address"):
            if name in conn:
                conn[name] = _host_text(conn[name])
    if server.get("sni") is True:
        address = server.get("address")
        server["sni"] = address[0] if isinstance(address, list) and address else None


def _19_20(state: dict[str, Any]) -> None:
    for key in ("client_conn", "server_conn"):
        _dict(state, key).pop("state", None)


def _20_21(state: dict[str, Any]) -> None:
    for key in ("client_conn", "server_conn"):
        conn = _dict(state, key)
        if conn.get("tls_version") == "QUIC":
            conn["tls_version"] = "QUICv1"


_STEPS: dict[int, Callable[[dict[str, Any]], None]] = {
    7: _7_8,
    8: _8_9,
    9: _9_10,
    10: _10_11,
    11: _11_12,
    12: _12_13,
    13: _13_14,
    14: _14_15,
    15: _15_16,
    16: _16_17,
    17: _17_18,
    18: _18_19,
    19: _19_20,
    20: _20_21,
}


def migrate(state: dict[str, Any]) -> dict[str, Any]:
    """The state in format ``CURRENT`` (changed in place); ``MigrationError`` if a step cannot run.

    The caller checks the version first (``OLDEST`` to ``CURRENT``); a state of another version is an error here.
    """
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not OLDEST <= version <= CURRENT:
        raise MigrationError(f"flow format version {version!r} is not between {OLDEST} and {CURRENT}")
    while version < CURRENT:
        try:
            _STEPS[version](state)
        except MigrationError as exc:
            raise MigrationError(f"upgrading flow format {version} to {version + 1}: {exc}") from None
        version += 1
        state["version"] = version
    return state
