"""Record the same two exchanges with old and current mitmproxy releases: fixtures for the ``.mitm`` migrations.

Usage: ``python lab/old_mitm.py [--out tests/fixtures/mitm] [--venvs lab/.work/mitm-venvs] [RELEASE ...]``.
For each pinned release below it makes (or reuses) a virtualenv, starts ``lab/gateway.py`` and ``mitmdump
--mode reverse`` with ``lab/mitm_addon.py`` on 127.0.0.1, sends one streaming Responses request and one
streaming Chat Completions request through it (the first request bodies pi-ai sent in
``data/before-fix/capture.har`` and ``data/other-apis/capture.har``), and writes
``<out>/mitmproxy-<release>.mitm``. The gateway runs on a virtual clock, so response bodies are the same
for every release; timestamps and flow ids differ from run to run. Python standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

LAB = Path(__file__).resolve().parent
REPO = LAB.parent

# release → (Python it runs on, pip requirements) and, in the comment, the flow format version it writes.
# mitmproxy 5 and 6 (Python 3.8) need the Flask 1.1 era's Werkzeug, Jinja2, MarkupSafe and itsdangerous;
# they write flow formats 7 (5.1.1), 8 (5.2), 9 (5.3.0) and 10 (6.0.2).
# mitmproxy 7 and 8 import Flask releases that need a Werkzeug older than the one pip resolves; mitmproxy 8
# does not import on Python 3.11 (a dataclass default that 3.11 refuses), so it runs on 3.10.
RELEASES = {
    "5.1.1": ("python3.8", ["mitmproxy==5.1.1", "werkzeug<2.1", "jinja2<3.1", "markupsafe<2.1", "itsdangerous<2.1"]),
    "5.2": ("python3.8", ["mitmproxy==5.2", "werkzeug<2.1", "jinja2<3.1", "markupsafe<2.1", "itsdangerous<2.1"]),
    "5.3.0": ("python3.8", ["mitmproxy==5.3.0", "werkzeug<2.1", "jinja2<3.1", "markupsafe<2.1", "itsdangerous<2.1"]),
    "6.0.2": ("python3.8", ["mitmproxy==6.0.2", "werkzeug<2.1", "jinja2<3.1", "markupsafe<2.1", "itsdangerous<2.1"]),
    "7.0.4": ("python3.11", ["mitmproxy==7.0.4", "werkzeug==2.0.3"]),  # flow format 14
    "8.0.0": ("python3.10", ["mitmproxy==8.0.0", "werkzeug==2.0.3"]),  # flow format 15
    "8.1.1": ("python3.10", ["mitmproxy==8.1.1", "werkzeug==2.1.2"]),  # flow format 17
    "9.0.1": ("python3.11", ["mitmproxy==9.0.1"]),  # flow format 18
    "11.0.2": ("python3.11", ["mitmproxy==11.0.2"]),  # flow format 21 (the lab's recorder)
}
# mitmproxy 5 and 6 (flow formats 7 to 10) run the ``response`` hook, where ``-w`` saves the flow, before they
# read a streamed body, so the tee addon cannot keep one: these releases record buffered, without chunk times.
NO_TEE = {"5.1.1", "5.2", "5.3.0", "6.0.2"}
GATEWAY_PORT = 18792
PROXY_PORT = 18793
CLOCK = "2026-11-30T09:00:00Z"


def _first_request(har: Path, path_part: str) -> tuple[str, bytes]:
    entries = json.loads(har.read_text())["log"]["entries"]
    for entry in entries:
        url = entry["request"]["url"]
        if path_part in url:
            return url.split("/", 3)[3], entry["request"]["postData"]["text"].encode()
    raise SystemExit(f"no request to {path_part} in {har}")


REQUESTS = (
    _first_request(REPO / "data" / "before-fix" / "capture.har", "/v1/responses"),
    _first_request(REPO / "data" / "other-apis" / "capture.har", "/v1/chat/completions"),
)


def _venv(root: Path, release: str) -> Path:
    venv = root / f"mitmproxy-{release}"
    mitmdump = venv / "bin" / "mitmdump"
    if not mitmdump.exists():
        python, requirements = RELEASES[release]
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", *requirements], check=True)
    return mitmdump


def _wait_port(port: int, proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited early with code {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on 127.0.0.1:{port}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _port_free(port: int) -> None:
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            raise SystemExit(f"port {port} on 127.0.0.1 is in use; stop what holds it and run again")


def record(mitmdump: Path, out: Path, work: Path, tee: bool = True) -> None:
    _port_free(GATEWAY_PORT)
    _port_free(PROXY_PORT)
    gateway = subprocess.Popen(
        [sys.executable, str(LAB / "gateway.py"), "--port", str(GATEWAY_PORT), "--clock", CLOCK],
        stdout=subprocess.DEVNULL,
    )
    try:
        _wait_port(GATEWAY_PORT, gateway, "the stub gateway")
        proxy = subprocess.Popen(
            [
                str(mitmdump),
                "--quiet",
                "--mode",
                f"reverse:http://127.0.0.1:{GATEWAY_PORT}",
                "--listen-host",
                "127.0.0.1",
                "--listen-port",
                str(PROXY_PORT),
                *(["-s", str(LAB / "mitm_addon.py")] if tee else []),
                "-w",
                str(out),
            ],
            stdout=subprocess.DEVNULL,
            env={**os.environ, "MITMPROXY_CONFDIR": str(work / "confdir")},
        )
        try:
            _wait_port(PROXY_PORT, proxy, f"{mitmdump}")
            for path, body in REQUESTS:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{PROXY_PORT}/{path}",
                    data=body,
                    headers={"content-type": "application/json", "authorization": "Bearer sk-lab-not-a-key"},
                    method="POST",
                )
                with urllib.request.urlopen(request, timeout=30) as response:
                    response.read()
        finally:
            _stop(proxy)
    finally:
        _stop(gateway)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", help=f"of {', '.join(RELEASES)} (default: all)")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "fixtures" / "mitm")
    parser.add_argument("--venvs", type=Path, default=LAB / ".work" / "mitm-venvs")
    args = parser.parse_args(argv)
    unknown = set(args.releases) - set(RELEASES)
    if unknown:
        parser.error(f"unknown release {', '.join(sorted(unknown))}; choose from {', '.join(RELEASES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    args.venvs.mkdir(parents=True, exist_ok=True)
    for release in args.releases or RELEASES:
        target = args.out / f"mitmproxy-{release}.mitm"
        print(f"[old_mitm] recording {target} with mitmproxy {release}", file=sys.stderr, flush=True)
        record(_venv(args.venvs, release), target, args.venvs, tee=release not in NO_TEE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
