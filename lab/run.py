"""Rebuild the lab's data (``make captures``): real pi-ai → mitmproxy → stub gateway, on 127.0.0.1.

Usage: ``python lab/run.py [SCENARIO ...] [--out data]``. With no names, every scenario and the busy day.
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
from scenarios import BY_NAME, GATEWAY_PORT, PROXY_PORT, SCENARIOS  # noqa: E402

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


@contextmanager
def gateway(log_path: Path, *, clock: str | None = None, seed: int = 7):
    _port_free(GATEWAY_PORT)
    cmd = [sys.executable, str(LAB / "gateway.py"), "--port", str(GATEWAY_PORT), "--log", str(log_path), "--seed", str(seed)]
    if clock:
        cmd += ["--clock", clock]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    try:
        _wait_port(GATEWAY_PORT, proc, "the stub gateway")
        yield
    finally:
        _stop(proc, signal.SIGTERM)


@contextmanager
def recorder(flows: Path, har: Path):
    _port_free(PROXY_PORT)
    cmd = [str(MITMDUMP), "--quiet", "--mode", f"reverse:http://127.0.0.1:{GATEWAY_PORT}",
           "--listen-host", "127.0.0.1", "--listen-port", str(PROXY_PORT),
           "-s", str(LAB / "mitm_addon.py"), "-w", str(flows), "--set", f"hardump={har}"]
    env = {**os.environ, "MITMPROXY_CONFDIR": str(WORK / "mitmproxy")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    try:
        _wait_port(PROXY_PORT, proc, "mitmdump")
        yield
    finally:
        _stop(proc)  # SIGINT: mitmdump writes the HAR on exit


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
    with gateway(folder / "gateway.jsonl"), recorder(folder / "capture.mitm", folder / "capture.har"):
        transcripts = {run.name: run_client(run.client_spec(), folder / f"transcript-{run.name}.json") for run in scenario.runs}
    for name, t in transcripts.items():
        final = t.get("final", {})
        log(f"  {name}: {len(t.get('requests', []))} requests, stop {final.get('stopReason')}"
            + (f" ({final.get('errorMessage')})" if final.get("errorMessage") else ""))
    if scenario.session_mode:
        run = scenario.runs[0]
        path = folder / "session.jsonl.zstd"
        dsh_session.write(path, scenario, run, transcripts[run.name])
        log(f"  wrote {path} (DSH V0 format, written by the lab)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"scenarios to rebuild: {', '.join([*BY_NAME, 'busy-day'])}")
    ap.add_argument("--out", type=Path, default=REPO / "data")
    args = ap.parse_args(argv)
    names = args.names or [*BY_NAME, "busy-day"]
    unknown = [n for n in names if n not in BY_NAME and n != "busy-day"]
    if unknown:
        ap.error(f"unknown scenario {', '.join(unknown)}")
    for tool, hint in [(MITMDUMP, "make captures (creates lab/.venv-mitm)"), (CLIENT.parent / "node_modules", "npm ci --prefix lab/client")]:
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
