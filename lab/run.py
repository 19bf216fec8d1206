"""Rebuild the lab's data (``make captures``): real pi-ai → mitmproxy → stub gateway, on 127.0.0.1.

Usage: ``python lab/run.py [SCENARIO ...] [--out data]``. With no names, every scenario and the busy day.
Scenarios with a ``rewriter`` are recorded at two hops: client → mitmdump (front) → lab/rewriter.py →
mitmdump (back) → gateway, ports ``FRONT_PORT``/``REWRITER_PORT``/``BACK_PORT`` in lab/scenarios.py.
Needs ``lab/.venv-mitm`` (mitmproxy) and ``lab/client/node_modules`` (pi-ai); ``make captures`` makes both.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

LAB = Path(__file__).resolve().parent
REPO = LAB.parent
sys.path.insert(0, str(LAB))

import busy  # noqa: E402
import dsh_session  # noqa: E402
from scenarios import BACK_PORT, BY_NAME, FRONT_PORT, GATEWAY_PORT, PROXY_PORT, REWRITER_PORT  # noqa: E402

MITMDUMP = LAB / ".venv-mitm" / "bin" / "mitmdump"
CLIENT = LAB / "client" / "run.mjs"
WORK = LAB / ".work"


def log(msg: str) -> None:
    print(f"[lab] {msg}", file=sys.stderr, flush=True)


def _wait_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited early with code {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on 127.0.0.1:{port} within {timeout:.0f}s")


def _port_free(port: int) -> None:
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} on 127.0.0.1 is in use; stop what holds it and run again")


def _stop(proc: subprocess.Popen, sig=signal.SIGINT, timeout: float = 20.0) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _service(cmd: list[str], port: int, what: str, *, sig=signal.SIGTERM, env=None):
    """Start a lab process that listens on ``port``, wait until it does, and stop it on the way out."""
    _port_free(port)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, env=env)
    try:
        _wait_port(port, proc, what)
        yield
    finally:
        _stop(proc, sig)


@contextmanager
def gateway(log_path: Path, *, clock: str | None = None, seed: int = 7):
    cmd = [
        sys.executable,
        str(LAB / "gateway.py"),
        "--port",
        str(GATEWAY_PORT),
        "--log",
        str(log_path),
        "--seed",
        str(seed),
    ]
    if clock:
        cmd += ["--clock", clock]
    yield from _service(cmd, GATEWAY_PORT, "the stub gateway")


@contextmanager
def recorder(flows: Path, har: Path, *, port: int = PROXY_PORT, upstream: int = GATEWAY_PORT):
    cmd = [
        str(MITMDUMP),
        "--quiet",
        "--mode",
        f"reverse:http://127.0.0.1:{upstream}",
        "--listen-host",
        "127.0.0.1",
        "--listen-port",
        str(port),
        "-s",
        str(LAB / "mitm_addon.py"),
        "-w",
        str(flows),
        "--set",
        f"hardump={har}",
    ]
    env = {**os.environ, "MITMPROXY_CONFDIR": str(WORK / "mitmproxy")}
    # SIGINT: mitmdump writes the HAR on exit
    yield from _service(cmd, port, f"mitmdump on {port}", sig=signal.SIGINT, env=env)


@contextmanager
def rewriter(log_path: Path, mode: str):
    """lab/rewriter.py on REWRITER_PORT, forwarding to the back recorder."""
    cmd = [
        sys.executable,
        str(LAB / "rewriter.py"),
        "--port",
        str(REWRITER_PORT),
        "--upstream",
        f"http://127.0.0.1:{BACK_PORT}",
        "--log",
        str(log_path),
        "--mode",
        mode,
    ]
    yield from _service(cmd, REWRITER_PORT, "the rewriter")


def run_client(spec: dict, out: Path) -> dict:
    spec_path = WORK / f"{spec['name']}.json"
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    proc = subprocess.run(["node", str(CLIENT), str(spec_path), "--out", str(out)], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"client failed for {spec['name']}: {proc.stderr.strip()}")
    return json.loads(out.read_text(encoding="utf-8"))


def record(scenario, out_dir: Path) -> None:
    folder = out_dir / scenario.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    log(f"{scenario.name}: {scenario.title}")
    if scenario.rewriter:
        # client → front recorder → rewriter → back recorder → gateway; each process is stopped in reverse
        # order, so the recorders write their HAR after the last exchange has passed through them
        with (
            gateway(folder / "gateway.jsonl"),
            recorder(folder / "back.mitm", folder / "back.har", port=BACK_PORT, upstream=GATEWAY_PORT),
            rewriter(folder / "rewriter.jsonl", scenario.rewriter),
            recorder(folder / "front.mitm", folder / "front.har", port=FRONT_PORT, upstream=REWRITER_PORT),
        ):
            transcripts = {
                run.name: run_client(run.client_spec(port=FRONT_PORT), folder / f"transcript-{run.name}.json")
                for run in scenario.runs
            }
    else:
        with gateway(folder / "gateway.jsonl"), recorder(folder / "capture.mitm", folder / "capture.har"):
            transcripts = {
                run.name: run_client(run.client_spec(), folder / f"transcript-{run.name}.json") for run in scenario.runs
            }
    _check_flows(folder)
    for name, t in transcripts.items():
        final = t.get("final", {})
        log(
            f"  {name}: {len(t.get('requests', []))} requests, stop {final.get('stopReason')}"
            + (f" ({final.get('errorMessage')})" if final.get("errorMessage") else "")
        )
    if scenario.session_mode:
        run = scenario.runs[0]
        path = folder / "session.jsonl.zstd"
        dsh_session.write(path, scenario, run, transcripts[run.name])
        log(f"  wrote {path} (DSH V0 format, written by the lab)")


def _check_flows(folder: Path) -> None:
    """Warn when a recorder holds more flows than the gateway served: mitmproxy records a flow a second
    time (with ``Client disconnected``) when the client closes a close-delimited stream before the
    upstream does, which pi-ai's Chat Completions client may do right after ``data: [DONE]``."""
    served = sum(1 for line in (folder / "gateway.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())
    for har in sorted(folder.glob("*.har")):
        entries = len(json.loads(har.read_text(encoding="utf-8"))["log"]["entries"])
        if entries != served:
            log(
                f"  WARNING: {har.name} holds {entries} flows for {served} gateway exchanges "
                "(a client closed a stream before the upstream did); record this scenario again"
            )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"scenarios to rebuild: {', '.join([*BY_NAME, 'busy-day'])}")
    ap.add_argument("--out", type=Path, default=REPO / "data")
    args = ap.parse_args(argv)
    names = args.names or [*BY_NAME, "busy-day"]
    unknown = [n for n in names if n not in BY_NAME and n != "busy-day"]
    if unknown:
        ap.error(f"unknown scenario {', '.join(unknown)}")
    for tool, hint in [
        (MITMDUMP, "make captures (creates lab/.venv-mitm)"),
        (CLIENT.parent / "node_modules", "npm ci --prefix lab/client"),
    ]:
        if not tool.exists():
            raise SystemExit(f"{tool} is missing: run {hint}")
    WORK.mkdir(exist_ok=True)
    try:
        for name in names:
            if name == "busy-day":
                busy.record(args.out / "busy-day", gateway=gateway, run_client=run_client, log=log)
            else:
                record(BY_NAME[name], args.out)
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
