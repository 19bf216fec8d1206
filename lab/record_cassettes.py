"""Record HTTP cassettes with the real VCR.py and the real openai SDK against the stub gateway (127.0.0.1).

Run it in its own environment (the recorder's packages stay out of the toolkit's)::

    python3 -m venv /tmp/rec-venv && /tmp/rec-venv/bin/pip install -r lab/requirements-cassettes.txt
    /tmp/rec-venv/bin/python lab/record_cassettes.py [--out tests/fixtures]

What it does: starts ``lab/gateway.py`` (virtual clock, so ids and times repeat) behind a small relay that
gzips non-stream JSON answers when the client accepts gzip (as real API front ends do), then records with
``vcr.use_cassette(record_mode="once")`` one Responses streaming call with DSH's ``bash`` tool and one Chat
Completions call with the same tool (``strict: true``):

- ``vcr/openai_raw.yaml``: ``decode_compressed_response=False`` (the gzip bytes kept as ``!!binary``);
- ``vcr/openai_decoded.yaml``: ``decode_compressed_response=True`` (bodies as text, no Content-Encoding);
- ``vcr/openai_raw.yaml.gz``: the first one gzip-compressed (``mtime=0``, so the bytes repeat).

There is no Go toolchain or Ruby here, so go-vcr and Ruby VCR cassettes are *written* by this script from the
same recorded exchanges, in each library's documented layout (not recorded by those libraries):

- ``go-vcr/openai.yaml``: go-vcr v2 (``version: 2``; ``request: {body, form, headers, url, method}``,
  ``response: {body, headers, status, code, duration}``, Go's ``time.Duration`` text), bodies decoded as
  Go's transport hands them over, durations from the gateway's (virtual-clock) log;
- ``ruby-vcr/openai.yaml``: Ruby VCR 6 (``http_interactions``; ``body: {encoding, string}``, the gzip
  body as ``base64_string`` as ``preserve_exact_body_bytes`` stores it; ``recorded_at`` from the gateway log,
  ``recorded_with: VCR 6.3.1``).

Cassettes are deleted before recording (``record_mode="once"`` would otherwise replay them).
"""

from __future__ import annotations

import argparse
import base64
import gzip
import http.client
import http.server
import json
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import openai
import vcr
import yaml

LAB = Path(__file__).resolve().parent
REPO = LAB.parent
sys.path.insert(0, str(REPO))
from toolkit.knowledge.dsh_tools import BASH_DESCRIPTION, BASH_PARAMETERS  # noqa: E402  (pure data)

GATEWAY_PORT = 18794  # apart from the ports of lab/scenarios.py
RELAY_PORT = 18795
CLOCK = "2026-11-30T09:00:00Z"
PROMPT = "List the files in the workspace."


# ---- the gzip relay ------------------------------------------------------------------------------


class _Relay(http.server.BaseHTTPRequestHandler):
    """Forwards to the gateway; a non-stream answer is gzipped when the client accepts gzip."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        up = http.client.HTTPConnection("127.0.0.1", GATEWAY_PORT, timeout=30)
        skip = {"host", "content-length", "connection", "accept-encoding"}
        up.request("POST", self.path, body, {k: v for k, v in self.headers.items() if k.lower() not in skip})
        resp = up.getresponse()
        stream = "text/event-stream" in (resp.getheader("content-type") or "")
        self.send_response_only(resp.status, resp.reason)  # no Date of its own: reruns give the same bytes
        for k, v in resp.getheaders():
            if k.lower() not in {"content-length", "connection", "transfer-encoding", "date"}:
                self.send_header(k, v)
        if stream:
            self.send_header("connection", "close")
            self.end_headers()
            while chunk := resp.read1(65536):
                self.wfile.write(chunk)
                self.wfile.flush()
            self.close_connection = True
        else:
            data = resp.read()
            if "gzip" in (self.headers.get("accept-encoding") or ""):
                data = gzip.compress(data, mtime=0)
                self.send_header("content-encoding", "gzip")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        up.close()


def _port_free(port: int) -> None:
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} on 127.0.0.1 is taken; stop what listens there and run again")


def _wait(port: int, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(100):
        if proc.poll() is not None:
            raise SystemExit(f"{proc.args!r} exited")
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{proc.args!r} did not listen on {port}")


# ---- recording -------------------------------------------------------------------------------------


def _calls(client: openai.OpenAI) -> None:
    tool = {"type": "function", "name": "bash", "description": BASH_DESCRIPTION, "parameters": BASH_PARAMETERS}
    with client.responses.create(model="gw-coder", input=PROMPT, tools=[tool], stream=True) as stream:  # type: ignore[call-overload]
        for _ in stream:
            pass
    client.chat.completions.create(
        model="gw-coder",
        messages=[{"role": "user", "content": PROMPT}],
        tools=[{"type": "function", "function": {**{k: v for k, v in tool.items() if k != "type"}, "strict": True}}],
    )


class _ParsedBody:
    """pydantic-ai's cassette convention (its ``tests/json_body_serializer.py``), written here from its
    description: a JSON body (``content-type: application/json``) is stored as the parsed value under
    ``parsed_body`` in place of ``body``; other bodies stay; headers lower-cased; multi-line strings as
    literal blocks. Recording only: ``record_mode="once"`` with a fresh file never deserialises."""

    class _Dumper(yaml.SafeDumper):
        pass

    _Dumper.add_representer(
        str,
        lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None),
    )

    @staticmethod
    def serialize(cassette: dict[str, Any]) -> str:
        for interaction in cassette["interactions"]:
            for part in interaction.values():
                part["headers"] = {k.lower(): v for k, v in part.get("headers", {}).items()}
                if any(str(v).startswith("application/json") for v in part["headers"].get("content-type", [])):
                    body = part.get("body")
                    text = body.get("string") if isinstance(body, dict) else body
                    if text is not None:
                        part["parsed_body"] = json.loads(text)
                        del part["body"]
        return yaml.dump(cassette, Dumper=_ParsedBody._Dumper, allow_unicode=True, width=120)

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        raise NotImplementedError("recording only")


def record(out: Path) -> list[dict[str, Any]]:
    """Record both VCR.py cassettes; return the gateway's log lines (one per exchange, in order)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "gateway.jsonl"
        for port in (GATEWAY_PORT, RELAY_PORT):
            _port_free(port)
        cmd = [sys.executable, str(LAB / "gateway.py"), "--port", str(GATEWAY_PORT), "--log", str(log)]
        proc = subprocess.Popen([*cmd, "--clock", CLOCK], stdout=subprocess.DEVNULL)
        # the relay runs in its own process: VCR.py patches http.client in this one
        relay = subprocess.Popen([sys.executable, __file__, "--relay"])
        try:
            _wait(GATEWAY_PORT, proc)
            _wait(RELAY_PORT, relay)
            client = openai.OpenAI(
                base_url=f"http://127.0.0.1:{RELAY_PORT}/passthrough/v1", api_key="lab-key", max_retries=0
            )
            recorder = vcr.VCR()
            recorder.register_serializer("parsed-body", _ParsedBody)
            for name, decode, serializer in (
                ("openai_raw.yaml", False, "yaml"),
                ("openai_decoded.yaml", True, "yaml"),
                ("openai_parsed_body.yaml", True, "parsed-body"),
            ):
                path = out / "vcr" / name
                path.unlink(missing_ok=True)
                with recorder.use_cassette(
                    str(path),
                    record_mode="once",
                    decode_compressed_response=decode,
                    filter_headers=["authorization"],
                    serializer=serializer,
                ):
                    _calls(client)
        finally:
            for p in (relay, proc):
                p.terminate()
                p.wait(10)
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---- go-vcr and Ruby VCR, written from the same exchanges -------------------------------------------


def _body_bytes(body: Any) -> bytes:
    value = body.get("string") if isinstance(body, dict) else body
    if value is None:
        return b""
    return value if isinstance(value, bytes) else value.encode("utf-8")


def _go_duration(ms: float) -> str:
    """Go's ``time.Duration.String()`` for durations under a minute (yaml.v2 writes durations this way)."""
    ns = round(ms * 1e6)
    if ns < 1000:
        return f"{ns}ns"
    for unit, size in (("s", 10**9), ("ms", 10**6), ("µs", 10**3)):
        if ns >= size:
            text = f"{ns // size}.{ns % size:0{len(str(size)) - 1}d}".rstrip("0").rstrip(".")
            return text + unit
    raise AssertionError(ns)


def _reason(status: dict[str, Any]) -> str:
    return str(status.get("message") or http.client.responses.get(status["code"], ""))


def write_go_vcr(decoded: dict[str, Any], log: list[dict[str, Any]], path: Path) -> None:
    interactions = []
    for rec, entry in zip(decoded["interactions"], log, strict=True):
        req, resp = rec["request"], rec["response"]
        interactions.append(
            {
                "request": {
                    "body": _body_bytes(req.get("body")).decode("utf-8"),
                    "form": {},
                    "headers": {k.title(): v for k, v in req["headers"].items()},
                    "url": req["uri"],
                    "method": req["method"],
                },
                "response": {
                    "body": _body_bytes(resp["body"]).decode("utf-8"),
                    "headers": {k.title(): v for k, v in resp["headers"].items()},
                    "status": f"{resp['status']['code']} {_reason(resp['status'])}",
                    "code": resp["status"]["code"],
                    "duration": _go_duration(float(entry["duration_ms"])),
                },
            }
        )
    text = yaml.safe_dump(
        {"version": 2, "interactions": interactions}, sort_keys=False, allow_unicode=True, width=1_000_000
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n" + text, encoding="utf-8")


def _ruby_body(body: Any, headers: dict[str, list[str]]) -> dict[str, str]:
    data = _body_bytes(body)
    if any(k.lower() == "content-encoding" for k in headers):
        return {"encoding": "ASCII-8BIT", "base64_string": base64.encodebytes(data).decode("ascii")}
    return {"encoding": "UTF-8", "string": data.decode("utf-8")}


def write_ruby_vcr(raw: dict[str, Any], log: list[dict[str, Any]], path: Path) -> None:
    interactions = []
    for rec, entry in zip(raw["interactions"], log, strict=True):
        req, resp = rec["request"], rec["response"]
        when = datetime.fromisoformat(entry["started_at"].replace("Z", "+00:00")).astimezone(UTC)
        interactions.append(
            {
                "request": {
                    "method": req["method"].lower(),
                    "uri": req["uri"],
                    "body": _ruby_body(req.get("body"), req["headers"]),
                    "headers": {k.title(): v for k, v in req["headers"].items()},
                },
                "response": {
                    "status": {"code": resp["status"]["code"], "message": _reason(resp["status"])},
                    "headers": {k.title(): v for k, v in resp["headers"].items()},
                    "body": _ruby_body(resp["body"], resp["headers"]),
                },
                "recorded_at": format_datetime(when, usegmt=True),
            }
        )
    text = yaml.safe_dump(
        {"http_interactions": interactions, "recorded_with": "VCR 6.3.1"},
        sort_keys=False,
        allow_unicode=True,
        width=1_000_000,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n" + text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "fixtures")
    parser.add_argument("--relay", action="store_true", help=argparse.SUPPRESS)  # internal: serve the relay
    args = parser.parse_args(argv)
    if args.relay:
        http.server.ThreadingHTTPServer(("127.0.0.1", RELAY_PORT), _Relay).serve_forever()
        return 0
    (args.out / "vcr").mkdir(parents=True, exist_ok=True)
    log = record(args.out)
    raw_path = args.out / "vcr" / "openai_raw.yaml"
    (args.out / "vcr" / "openai_raw.yaml.gz").write_bytes(gzip.compress(raw_path.read_bytes(), mtime=0))
    raw = yaml.safe_load(raw_path.read_text(encoding="utf-8"))
    decoded = yaml.safe_load((args.out / "vcr" / "openai_decoded.yaml").read_text(encoding="utf-8"))
    # the gateway served the three recordings in order, two exchanges each
    write_go_vcr(decoded, log[2:4], args.out / "go-vcr" / "openai.yaml")
    write_ruby_vcr(raw, log[0:2], args.out / "ruby-vcr" / "openai.yaml")
    for name in (
        "vcr/openai_raw.yaml",
        "vcr/openai_decoded.yaml",
        "vcr/openai_parsed_body.yaml",
        "go-vcr/openai.yaml",
        "ruby-vcr/openai.yaml",
    ):
        print(args.out / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
