"""Record ``data/experiment-before-fix/``: the experiment of issue 18 against the lab gateway.

The first request of the recorded DSH run that sent tools (``data/dsh-before-fix/capture.har``,
exchange ``capture.har:1``: exchange 0 is DSH's title request, without tools) is replayed by
``toolkit.experiment.run`` as ``strict-absent``, ``strict-false`` and ``prune-schema``, five times each,
to ``lab/gateway.py`` on 127.0.0.1:18788 (the captured host and port, so no host notice), route
``absent-is-strict``, persona as captured (``gw-coder``), judged in ``danger-full-access`` by DSH
0.1.0-rc.8 (the release that was recorded). The gateway runs in-process with a virtual clock, so its
answers (ids, ``created_at``) are the same on every run; the experiment's own times (``started_at``,
``duration_ms`` in exchanges.jsonl, ``started``/``finished`` in experiment.json) are the real ones and
differ between runs. Only the data files are written (the Markdown, HTML and figure come from
``agent-contract experiment`` or ``verify --experiment``), plus a README.md saying how it was made.

    .venv/bin/python lab/record_experiment.py [--out data/experiment-before-fix]   # ~3 s
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import os
import shutil
import socket
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = "data/dsh-before-fix/capture.har"
EXCHANGE = "capture.har:1"
VARIANTS = ("strict-absent", "strict-false", "prune-schema")
SAMPLES = 5
MODE = "danger-full-access"
DSH = "0.1.0-rc.8"
PORT = 18788  # lab/scenarios.py GATEWAY_PORT: the port the DSH run was recorded against
CLOCK = "2026-11-30T00:00:00Z"
SEED = 7

README = f"""# experiment-before-fix

Recorded by `make captures` (`.venv/bin/python lab/record_experiment.py`): exchange `{EXCHANGE}` of
`{CAPTURE}` replayed as {", ".join(f"`{v}`" for v in VARIANTS)}, {SAMPLES} samples each, round-robin, to
`lab/gateway.py` on 127.0.0.1:{PORT} (`absent-is-strict`, persona `gw-coder`, virtual clock {CLOCK}),
judged in `{MODE}` by DSH {DSH}. The same as `agent-contract experiment {CAPTURE} --exchange {EXCHANGE}
--endpoint http://127.0.0.1:{PORT}/absent-is-strict/v1/responses --variants {",".join(VARIANTS)}
--samples {SAMPLES} --mode {MODE} --dsh {DSH} --out data/experiment-before-fix`; times differ per run.
"""


def _gateway_module():
    spec = importlib.util.spec_from_file_location("lab_gateway", ROOT / "lab" / "gateway.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the gateway binds (TIME_WAIT is free)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="data/experiment-before-fix", help="the folder to (re)write")
    args = parser.parse_args(argv)
    os.chdir(ROOT)  # the manifest names the capture relative to the repository
    sys.path.insert(0, str(ROOT))
    from toolkit.experiment.run import run as run_experiment
    from toolkit.experiment.send import Limits

    if not _port_free(PORT):
        print(f"record_experiment: 127.0.0.1:{PORT} is taken (a lab run still going?)", file=sys.stderr)
        return 1
    server = _gateway_module().make_server(PORT, clock=CLOCK, seed=SEED)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    try:
        result = run_experiment(
            CAPTURE,
            exchange=EXCHANGE,
            endpoint=f"http://127.0.0.1:{PORT}/absent-is-strict/v1/responses",
            variants=VARIANTS,
            samples=SAMPLES,
            mode=MODE,
            dsh=DSH,
            out=out,
            limits=Limits(rate=20.0),
            now=_steps(CLOCK),
        )
    finally:
        server.shutdown()
        server.server_close()
    (out / "README.md").write_text(README, encoding="utf-8")
    print(f"{out}: {result.manifest['counts']}")
    if result.comparison:
        print(result.comparison["sentence"])
    return 0


def _steps(start: str):
    """Wall time for the records and the manifest: the gateway's virtual clock, one second per
    reading, so a re-record writes the same times (and the postmortem notebook's output stays)."""
    t = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(UTC)
    n = itertools.count()
    return lambda: t + timedelta(seconds=next(n))


if __name__ == "__main__":
    sys.exit(main())
