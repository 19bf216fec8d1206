"""Record the tools the published Codex CLI sends, per sandbox mode, approval policy and tool switch.

    python lab/record_codex_tools.py [--codex PATH] [--out tests/fixtures/codex]

Writes ``tools-0.171.0.json``: one cell per ``codex exec`` run against a loopback Responses upstream
(127.0.0.1) that keeps the first ``POST .../responses`` body and answers a minimal completed stream
(one assistant message), so the run ends after one request. The binary is the one
``lab/codex_rollouts.py`` uses (``npm pack @openai/codex@0.171.0-linux-x64``); each run has its own
``CODEX_HOME`` holding only a ``config.toml`` whose ``model_provider`` points at the upstream (dummy key).

Per cell: the settings and the ``codex exec`` arguments that made them, Codex's exit code, the
policy it ran under (the rollout's ``turn_context``: ``codex exec`` runs every configured approval
policy as ``never`` unless ``--approve-for-me``), or the error it stopped with; and from the request
body ``tools`` exactly as sent (key order kept), ``tool_choice``, ``parallel_tool_calls``, the tools
of an ``additional_tools`` input item (a model in Codex's own catalogue gets its tools there, not in
``tools``) and ``strict`` per tool (``null`` where the tool has no ``strict`` key).

Normalised (run-specific only): the run's temporary directory, ``CODEX_HOME`` and workspace paths
inside recorded texts become ``<tmp>``, ``<codex_home>``, ``<workspace>``; nothing else is touched
(0.171.0 puts no path or id in a tool definition, so in practice nothing is replaced). Ids of the
``additional_tools`` item are not recorded. Deterministic: two runs give the same bytes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from codex_rollouts import VERSION, _codex_binary, answer_stream, codex_home  # the same binary and stream writer

REPO = Path(__file__).resolve().parent.parent
PROMPT = "say ok"
SANDBOXES = ("read-only", "workspace-write", "danger-full-access")
#: Every value the protocol's ``AskForApproval`` names; 0.171.0 refuses ``untrusted`` at start-up.
APPROVALS = ("untrusted", "on-failure", "on-request", "never")
#: A model id Codex has no metadata for (as on any gateway): Codex's fallback model family.
LAB_MODEL = "gw-coder"
#: A model in Codex's bundled catalogue (named in its own ``spawn_agent`` description).
CATALOGUE_MODEL = "gpt-6.2-sol"
#: Switches that change the tools in 0.171.0 (``codex features list``; ``web_search`` is a config key).
SWITCHES: tuple[dict, ...] = (
    {"features": {"unified_exec": False}},
    {"features": {"shell_tool": False}},
    {"features": {"exec_permission_approvals": True}},
    {"features": {"request_permissions_tool": True}},
    {"features": {"view_image": False}},
    {"web_search": "cached"},
    {"web_search": "live"},
    {"web_search": "disabled"},
)


class _Upstream(BaseHTTPRequestHandler):
    """Keeps the first Responses request body; answers every request with one completed message."""

    bodies: ClassVar[list[dict]] = []

    def log_message(self, format, *args):  # quiet
        pass

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.headers.get("content-encoding"):
            raise SystemExit(f"compressed request body ({self.headers['content-encoding']}) not handled")
        body = json.loads(raw or b"{}")
        if self.path.endswith("/responses"):
            type(self).bodies.append(body)
        item = {
            "id": "msg_0001",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "ok", "annotations": []}],
        }
        answer_stream(self, body, {"id": "resp_0001", "object": "response", "status": "in_progress"}, item)


def _cells() -> list[dict]:
    """Every (settings, arguments) pair recorded, in fixture order."""
    cells = []

    def add(cid: str, settings: dict, argv: list[str]) -> None:
        cells.append({"id": cid, "settings": settings, "argv": argv})

    def base(sandbox, approval, model=LAB_MODEL, features=None, web_search=None) -> dict:
        return {
            "model": model,
            "sandbox_mode": sandbox,
            "approval_policy": approval,
            "features": features or {},
            "web_search": web_search,
        }

    def args(sandbox, approval, model=LAB_MODEL, features=None, web_search=None) -> list[str]:
        out = ["-m", model]
        if sandbox is not None:
            out += ["-s", sandbox]
        if approval is not None:
            out += ["-c", f'approval_policy="{approval}"']
        for name, on in (features or {}).items():
            out += ["--enable" if on else "--disable", name]
        if web_search is not None:
            out += ["-c", f'web_search="{web_search}"']
        return out

    for sandbox in SANDBOXES:
        for approval in APPROVALS:
            add(f"{sandbox}/{approval}", base(sandbox, approval), args(sandbox, approval))
    add(
        "dangerously-bypass-approvals-and-sandbox",
        {**base(None, None), "flag": "--dangerously-bypass-approvals-and-sandbox"},
        [*args(None, None), "--dangerously-bypass-approvals-and-sandbox"],
    )
    add("approve-for-me", {**base(None, None), "flag": "--approve-for-me"}, [*args(None, None), "--approve-for-me"])
    for switch in SWITCHES:
        label = (
            ",".join(f"{k}={v}" for k, v in switch.get("features", {}).items()) or f"web_search={switch['web_search']}"
        )
        for sandbox in SANDBOXES:
            add(f"{sandbox}/never/{label}", base(sandbox, "never", **switch), args(sandbox, "never", **switch))
    for sandbox in SANDBOXES:
        add(
            f"{sandbox}/never/model={CATALOGUE_MODEL}",
            base(sandbox, "never", model=CATALOGUE_MODEL),
            args(sandbox, "never", model=CATALOGUE_MODEL),
        )
    return cells


def _normalise(value, replace: list[tuple[str, str]]):
    if isinstance(value, str):
        for old, new in replace:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_normalise(v, replace) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v, replace) for k, v in value.items()}
    return value


def _strict(tools) -> dict | None:
    """``strict`` of each tool (``ns.name`` inside a namespace); None where a tool has no ``strict`` key."""
    if tools is None:
        return None
    out: dict = {}
    for tool in tools:
        name = tool.get("name", tool.get("type"))
        out[name] = tool.get("strict")
        for inner in tool.get("tools") or ():
            out[f"{name}.{inner.get('name')}"] = inner.get("strict")
    return out


def _run(codex: Path, url: str, cell: dict, tmp: Path, n: int) -> dict:
    home, ws, env = codex_home(tmp, str(n), url)
    _Upstream.bodies = []
    proc = subprocess.run(
        [str(codex), "exec", "--skip-git-repo-check", *cell["argv"], PROMPT],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    replace = [(str(ws), "<workspace>"), (str(home), "<codex_home>"), (str(tmp), "<tmp>")]
    record = {**cell, "exit_code": proc.returncode}
    if not _Upstream.bodies:
        errors = [line for line in proc.stderr.splitlines() if line.startswith("Error")]
        if proc.returncode == 0 or not errors:
            raise SystemExit(f"{cell['id']}: no request and no error (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        record.update(error=_normalise(errors[0], replace), effective=None, request=None)
        return record
    context = None
    for rollout in sorted(home.glob("sessions/**/rollout-*.jsonl")):
        for line in rollout.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            if entry.get("type") == "turn_context":
                context = entry["payload"]
    if context is None:
        raise SystemExit(f"{cell['id']}: the rollout has no turn_context")
    body = _Upstream.bodies[0]
    extra = [i for i in body.get("input") or () if isinstance(i, dict) and i.get("type") == "additional_tools"]
    tools = _normalise(body["tools"], replace) if "tools" in body else None
    additional = _normalise(extra[0]["tools"], replace) if extra else None
    record.update(
        error=None,
        effective={
            "approval_policy": context.get("approval_policy"),
            "sandbox_mode": (context.get("sandbox_policy") or {}).get("type"),
        },
        request={
            "keys": list(body),
            "tool_choice": body.get("tool_choice"),
            "parallel_tool_calls": body.get("parallel_tool_calls"),
            "tools": tools,
            "additional_tools": additional,
            "strict": _strict(tools),
            "additional_tools_strict": _strict(additional),
        },
    )
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codex", type=Path, help=f"the codex {VERSION} binary (default: npm pack it)")
    parser.add_argument("--out", type=Path, default=REPO / "tests/fixtures/codex")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="codex-tools-") as t:
        tmp = Path(t)
        codex = args.codex or _codex_binary(tmp)
        version = subprocess.run([str(codex), "--version"], capture_output=True, text=True, check=True).stdout.strip()
        if version != f"codex-cli {VERSION}":
            raise SystemExit(f"{codex}: {version!r}, expected codex-cli {VERSION}")
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_port}/v1"
            cells = [_run(codex, url, cell, tmp, n) for n, cell in enumerate(_cells())]
        finally:
            server.shutdown()
    doc = {
        "codex": VERSION,
        "package": f"@openai/codex@{VERSION}-linux-x64",
        "command": f"codex exec --skip-git-repo-check <argv> {json.dumps(PROMPT)}",
        "config_toml": "model_provider = lab (base_url = the loopback upstream, wire_api = responses)",
        "normalised": "paths of the run's temporary directory, CODEX_HOME and workspace in recorded texts",
        "cells": cells,
    }
    path = args.out / f"tools-{VERSION}.json"
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{path}: {len(cells)} cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
