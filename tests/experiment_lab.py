"""What the experiment's tests share: the lab gateway in this process (port 0, 127.0.0.1 only), a server
with one fixed reply, the captured DSH request they replay, and a run of it with fast limits. One definition, imported by
``test_experiment_run`` and ``test_experiment_caution`` (not a test module: pytest collects nothing here)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from conftest import REPO

from toolkit.experiment.send import Limits

experiment = importlib.import_module("toolkit.experiment.run")  # the module (the package exports its run())
_spec = importlib.util.spec_from_file_location("lab_gateway_experiment", REPO / "lab" / "gateway.py")
gateway = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gateway)

BEFORE = REPO / "data" / "dsh-before-fix" / "capture.har"
EXCHANGE = "capture.har:1"  # capture.har:0 is DSH's title request: it sends no tools
MODE = "danger-full-access"
DSH = "0.1.0-rc.8"  # the release that was recorded
FAST = Limits(rate=1000.0)


class Gateway:
    """The lab gateway in this process, on a port the system picks."""

    def __init__(self, log: Path, seed: int = 7):
        self.log = log
        self.server = gateway.make_server(0, log_path=log, clock="2026-11-30T00:00:00Z", seed=seed)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.server.server_port}"

    def url(self, behaviour: str = "absent-is-strict") -> str:
        return f"{self.base}/{behaviour}/v1/responses"

    def lines(self) -> list[dict]:
        self.server.drain()
        return [json.loads(x) for x in self.log.read_text().splitlines()] if self.log.exists() else []

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serving(tmp_path: Path):
    """A ``Gateway`` for one test, closed after it (a test module's ``gw`` fixture yields from it)."""
    g = Gateway(tmp_path / "gateway.jsonl")
    try:
        yield g
    finally:
        g.close()


def go(url, out=None, **kw):
    """The captured request replayed as strict-absent and strict-false, 3 samples each, quietly."""
    args = {
        "exchange": EXCHANGE,
        "endpoint": url,
        "variants": ["strict-absent", "strict-false"],
        "samples": 3,
        "mode": MODE,
        "dsh": DSH,
        "out": out,
        "limits": FAST,
        "notice": lambda text: None,
    }
    args.update(kw)
    return experiment.run(BEFORE, **args)


class Fixed:
    """A server on 127.0.0.1 that answers every POST with one fixed reply. ``hold(connection)`` (if given) runs
    in the handler once the request is read; ``hold_until_close`` keeps every answer back until the test is
    over (``close``), so a client's timeout fires however slowly the machine runs. ``paths``: what was asked."""

    def __init__(self, status: int, headers: dict, body: str = "", hold=None, hold_until_close: bool = False):
        self.paths: list[str] = []
        self.released = threading.Event()
        fixed = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length") or 0))
                fixed.paths.append(self.path)
                if hold is not None:
                    hold(self.connection)
                if hold_until_close:
                    fixed.released.wait(60)
                raw = body.encode()
                try:
                    self.send_response_only(status)
                    for k, v in {"content-length": str(len(raw)), **headers}.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}/v1/responses"

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()
