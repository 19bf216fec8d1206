"""Record real Codex CLI rollout files on 127.0.0.1: the published ``codex`` binary against stub upstreams.

    python lab/codex_rollouts.py [--codex PATH] [--out tests/fixtures/codex]

Without ``--codex`` the binary is fetched with ``npm pack @openai/codex@0.171.0-linux-x64`` into a
temporary directory. Each scenario runs ``codex exec`` with its own ``CODEX_HOME`` (a temporary
directory holding only a ``config.toml`` whose ``model_provider`` points at the upstream; the API key
is a dummy) and copies the rollout Codex wrote to ``real-0.171.0-<scenario>.jsonl``.

- ``danger-full-access``: the lab gateway (``lab/gateway.py``, behaviour ``passthrough``) answers; its
  default persona calls the first tool (``exec_command``) with the required arguments only.
- ``escalation-never``: ``danger-full-access`` with approval ``never``, and a scripted upstream (the
  gateway's own ``ResponsesWriter``) whose model asks for ``sandbox_permissions: "require_escalated"``
  with a justification, as Codex's ``exec_command`` schema invites it to in every mode; Codex refuses.

Rerunnable; the rollouts differ per run only in ids, times and paths.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gateway  # the lab's stub gateway and its Responses event writer

VERSION = "0.171.0"
REPO = Path(__file__).resolve().parent.parent
ESCALATION = {
    "cmd": "ls -la /",
    "sandbox_permissions": "require_escalated",
    "justification": "Do you allow listing the root directory outside the sandbox?",
}


class _Scripted(BaseHTTPRequestHandler):
    """A Responses upstream whose model asks for escalation once, then reports the tool output."""

    def log_message(self, format, *args):  # quiet
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        outputs = [
            i for i in body.get("input") or () if isinstance(i, dict) and i.get("type") == "function_call_output"
        ]
        n = len(outputs) + 1
        if not outputs:
            item = {
                "id": f"fc_{n:04d}",
                "type": "function_call",
                "status": "completed",
                "arguments": json.dumps(ESCALATION),
                "call_id": f"call_{n:04d}",
                "name": "exec_command",
            }
        else:
            out = outputs[-1].get("output")
            text = out if isinstance(out, str) else json.dumps(out)
            item = {
                "id": f"msg_{n:04d}",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": "Refused: " + text.splitlines()[0], "annotations": []}],
            }
        response = {"id": f"resp_{n:04d}", "object": "response", "status": "in_progress", "model": body.get("model")}
        answer_stream(self, body, response, item)


def answer_stream(handler: BaseHTTPRequestHandler, body: dict, response: dict, item: dict) -> None:
    """Answer ``body`` with a Responses stream of the one output ``item`` (the lab gateway's writer)."""
    w = gateway.ResponsesWriter(response)
    w.start()
    w.item(0, item)
    w.emit(
        "response.completed",
        response=w.snapshot(status="completed", output=[item], usage=gateway.usage_responses(body, [item])),
    )
    data = "".join(w.sse()).encode("utf-8")
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("content-length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _codex_binary(tmp: Path) -> Path:
    subprocess.run(["npm", "pack", f"@openai/codex@{VERSION}-linux-x64"], cwd=tmp, check=True, capture_output=True)
    tgz = next(tmp.glob("openai-codex-*.tgz"))
    subprocess.run(["tar", "xzf", tgz.name], cwd=tmp, check=True)
    return next(tmp.glob("package/vendor/*/bin/codex"))


def codex_home(tmp: Path, name: str, base_url: str, model: str | None = None) -> tuple[Path, Path, dict]:
    """A throwaway ``CODEX_HOME`` whose only provider is ``base_url`` (a dummy key), a workspace, and the
    environment to run ``codex`` in: nothing of the user's own Codex setup is read."""
    home, ws = tmp / f"home-{name}", tmp / f"ws-{name}"
    home.mkdir()
    ws.mkdir()
    (home / "config.toml").write_text(
        (f'model = "{model}"\n' if model else "") + 'model_provider = "lab"\n\n[model_providers.lab]\nname = "lab"\n'
        f'base_url = "{base_url}"\nwire_api = "responses"\nenv_key = "LAB_KEY"\n',
        encoding="utf-8",
    )
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "CODEX_HOME": str(home), "LAB_KEY": "dummy"}
    return home, ws, env


def _run(codex: Path, base_url: str, sandbox: str, approval: str, out: Path, tmp: Path) -> None:
    home, ws, env = codex_home(tmp, out.stem, base_url, model="gw-coder")
    cmd = [str(codex), "exec", "--skip-git-repo-check", "-s", sandbox, "-c", f'approval_policy="{approval}"']
    proc = subprocess.run(
        [*cmd, "list the files here"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    rollouts = sorted(home.glob("sessions/**/rollout-*.jsonl"))
    if not rollouts:
        raise SystemExit(f"{out.name}: codex wrote no rollout (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    shutil.copyfile(rollouts[-1], out)
    print(f"{out}: {sum(1 for _ in out.open(encoding='utf-8'))} lines (codex exit {proc.returncode})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codex", type=Path, help=f"the codex {VERSION} binary (default: npm pack it)")
    parser.add_argument("--out", type=Path, default=REPO / "tests/fixtures/codex")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="codex-lab-") as t:
        tmp = Path(t)
        codex = args.codex or _codex_binary(tmp)
        gw = gateway.make_server(0)
        scripted = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
        for srv in (gw, scripted):
            threading.Thread(target=srv.serve_forever, daemon=True).start()
        try:
            gw_url = f"http://127.0.0.1:{gw.server_port}/passthrough/v1"
            sc_url = f"http://127.0.0.1:{scripted.server_port}/v1"
            _run(
                codex, gw_url, "danger-full-access", "never", args.out / f"real-{VERSION}-danger-full-access.jsonl", tmp
            )
            _run(codex, sc_url, "danger-full-access", "never", args.out / f"real-{VERSION}-escalation-never.jsonl", tmp)
        finally:
            for srv in (gw, scripted):
                srv.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
