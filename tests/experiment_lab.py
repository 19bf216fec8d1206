"""What the experiment's tests share: the lab gateway in this process (port 0, 127.0.0.1 only), the
captured DSH request they replay, and a run of it with fast limits. One definition, imported by
``test_experiment_run`` and ``test_experiment_caution`` (not a test module: pytest collects nothing here)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import threading
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
