"""Record a Polly.js HAR with the real Polly.js recorder against the stub gateway (127.0.0.1 only).

Polly.js (``@pollyjs/adapter-node-http`` 6.0.6, ``getBodyFromChunks``) keeps a response that has a
``Content-Encoding`` as the JSON text of an array of base64 strings, one per chunk received, with
``content.encoding: "base64"``: the format ``toolkit/sources/har.py`` reads. Run::

    (cd lab/polly && npm ci)
    python3 lab/polly_har.py [--package-dir lab/polly] [--out tests/fixtures/har/polly_gzip.har]

It starts ``lab/gateway.py`` (virtual clock) behind a relay that gzips every answer chunk by chunk
(a sync flush per upstream chunk, so a stream stays a stream and Polly sees several chunks), then runs
``lab/polly/record.mjs`` with node: one streamed Responses call and one plain one, both with DSH's
``bash`` tool. Polly writes its own times, so a rerun differs in ``startedDateTime`` and ``time`` only.
"""

from __future__ import annotations

import argparse
import http.client
import http.server
import shutil
import subprocess
import sys
import tempfile
import threading
import zlib
from pathlib import Path

LAB = Path(__file__).resolve().parent
REPO = LAB.parent
sys.path.insert(0, str(LAB))

from gateway import make_server  # noqa: E402


class _GzipRelay(http.server.BaseHTTPRequestHandler):
    """Forwards to the gateway; answers with ``content-encoding: gzip``, chunked, flushed per upstream chunk."""

    protocol_version = "HTTP/1.1"
    upstream: tuple[str, int] = ("127.0.0.1", 0)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        conn = http.client.HTTPConnection(*self.upstream, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "accept-encoding")}
        conn.request("POST", self.path, body=body, headers=headers)
        resp = conn.getresponse()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(k, v)
        self.send_header("content-encoding", "gzip")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("connection", "close")
        self.end_headers()
        gz = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        while chunk := resp.read1(65536):
            self._chunk(gz.compress(chunk) + gz.flush(zlib.Z_SYNC_FLUSH))
        self._chunk(gz.flush())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        conn.close()
        self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--package-dir", default=str(LAB / "polly"), help="where `npm ci` installed Polly")
    parser.add_argument("--out", default=str(REPO / "tests" / "fixtures" / "har" / "polly_gzip.har"))
    args = parser.parse_args(argv)
    package = Path(args.package_dir).resolve()
    if package != (LAB / "polly").resolve():  # node resolves the imports next to the script
        shutil.copy(LAB / "polly" / "record.mjs", package / "record.mjs")

    gateway = make_server(0, clock="2026-11-30T09:00:00Z")
    threading.Thread(target=gateway.serve_forever, daemon=True).start()
    _GzipRelay.upstream = ("127.0.0.1", gateway.server_address[1])
    relay = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _GzipRelay)
    threading.Thread(target=relay.serve_forever, daemon=True).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base = f"http://127.0.0.1:{relay.server_address[1]}"
            done = subprocess.run(
                ["node", str(package / "record.mjs"), base, tmp], cwd=package, capture_output=True, text=True
            )
            if done.returncode != 0:
                sys.stderr.write(done.stdout + done.stderr)
                return 1
            print(done.stdout.strip())
            (har,) = Path(tmp).rglob("recording.har")
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(har, args.out)
            print(f"wrote {args.out}")
    finally:
        relay.shutdown()
        gateway.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
