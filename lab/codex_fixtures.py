"""Write the Codex rollout fixtures that the real binary cannot record here (tests/fixtures/codex/).

    python lab/codex_fixtures.py [--out tests/fixtures/codex]

``codex exec`` always runs with approval ``never`` (0.171.0 records ``"approval_policy": "never"``
whatever ``-c approval_policy`` says), so an approved escalation, the older ``shell`` tool with
``with_escalated_permissions`` and a damaged file are written here, in the format the real files
(``real-0.171.0-*.jsonl``, from ``lab/codex_rollouts.py``) and ``openai/codex``'s ``protocol.rs`` show.
Deterministic: rerunning writes the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _line(n: int, kind: str, payload: dict, ordinal: bool = True) -> str:
    stamp = f"2026-11-30T10:00:{n:02d}.000Z"
    obj = {"timestamp": stamp, **({"ordinal": n} if ordinal else {}), "type": kind, "payload": payload}
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _usage(i: int, o: int, cached: int = 0, reasoning: int = 0) -> dict:
    return {
        "input_tokens": i,
        "cached_input_tokens": cached,
        "output_tokens": o,
        "reasoning_output_tokens": reasoning,
        "total_tokens": i + o,
    }


def _token_count(last: dict) -> dict:
    return {"type": "token_count", "info": {"total_token_usage": last, "last_token_usage": last}, "rate_limits": None}


def _user(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _assistant(text: str) -> dict:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def workspace_write_approved() -> list[str]:
    """0.171.0 shape: ``exec_command`` escalated under workspace-write / on-request, approved, ran."""
    esc = {
        "cmd": "npm install",
        "sandbox_permissions": "require_escalated",
        "justification": "Allow npm to reach the registry?",
    }
    rows: list[tuple[str, dict]] = [
        (
            "session_meta",
            {
                "id": "s-ww",
                "timestamp": "2026-11-30T10:00:00.000Z",
                "cwd": "/work/app",
                "originator": "codex_cli_rs",
                "cli_version": "0.171.0",
                "source": "cli",
                "model_provider": "openai",
            },
        ),
        (
            "turn_context",
            {
                "cwd": "/work/app",
                "approval_policy": "on-request",
                "model": "gpt-5-codex",
                "sandbox_policy": {"type": "workspace-write", "network_access": False},
            },
        ),
        ("response_item", _user("install the dependencies")),
        ("event_msg", {"type": "user_message", "message": "install the dependencies"}),
        ("response_item", {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA"}),
        (
            "response_item",
            {
                "type": "function_call",
                "id": "fc_1",
                "name": "exec_command",
                "arguments": json.dumps(esc),
                "call_id": "call_esc",
            },
        ),
        ("token_usage_record", {"response_id": "resp_1", "usage": _usage(1200, 40, cached=1000, reasoning=12)}),
        (
            "event_msg",
            {
                "type": "exec_approval_request",
                "call_id": "call_esc",
                "command": ["/bin/bash", "-lc", "npm install"],
                "reason": "Allow npm to reach the registry?",
            },
        ),
        (
            "event_msg",
            {"type": "exec_command_begin", "call_id": "call_esc", "command": ["/bin/bash", "-lc", "npm install"]},
        ),
        ("event_msg", {"type": "exec_command_end", "call_id": "call_esc", "exit_code": 0}),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_esc",
                "output": "Chunk ID: 1a2b3c\nWall time: 2.0 seconds\nProcess exited with code 0\nOutput:\nadded 12 packages\n",
            },
        ),
        ("event_msg", _token_count(_usage(1200, 40, cached=1000, reasoning=12))),
        (
            "response_item",
            {
                "type": "custom_tool_call",
                "id": "ctc_1",
                "call_id": "call_patch",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Add File: NOTES.md\n+installed\n*** End Patch\n",
            },
        ),
        ("token_usage_record", {"response_id": "resp_2", "usage": _usage(1300, 30)}),
        (
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "call_patch",
                "output": "Exit code: 0\nSuccess. Updated the following files:\nA NOTES.md\n",
            },
        ),
        ("response_item", _assistant("Installed; notes written.")),
        ("token_usage_record", {"response_id": "resp_3", "usage": _usage(1400, 8)}),
        ("event_msg", {"type": "task_complete", "last_agent_message": "Installed; notes written."}),
    ]
    return [_line(n, kind, p) for n, (kind, p) in enumerate(rows)]


def danger_full_access_legacy() -> list[str]:
    """The older shape (no ``ordinal``, ``sandbox_policy`` tagged ``mode``, the ``shell`` tool with
    ``with_escalated_permissions``): the model asks for escalation in danger-full-access anyway."""
    esc = {
        "command": ["bash", "-lc", "ls -la /"],
        "with_escalated_permissions": True,
        "justification": "Need to list /",
    }
    rows: list[tuple[str, dict]] = [
        (
            "session_meta",
            {
                "id": "s-dfa",
                "timestamp": "2026-11-30T10:00:00.000Z",
                "cwd": "/work/app",
                "originator": "codex_cli_rs",
                "cli_version": "0.46.0",
                "instructions": None,
                "source": "cli",
            },
        ),
        (
            "turn_context",
            {
                "cwd": "/work/app",
                "approval_policy": "on-request",
                "sandbox_policy": {"mode": "danger-full-access"},
                "model": "gpt-5-codex",
                "effort": "high",
                "summary": "auto",
            },
        ),
        ("response_item", _user("what is in the root directory?")),
        ("event_msg", {"type": "token_count", "info": None, "rate_limits": None}),
        (
            "response_item",
            {"type": "function_call", "name": "shell", "arguments": json.dumps(esc), "call_id": "call_dfa"},
        ),
        ("event_msg", _token_count(_usage(900, 25))),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_dfa",
                "output": json.dumps({"output": "bin\netc\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}),
            },
        ),
        (
            "response_item",
            {
                "type": "local_shell_call",
                "id": "lsh_1",
                "call_id": "call_local",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"], "working_directory": None},
            },
        ),
        ("event_msg", _token_count(_usage(950, 10))),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_local",
                "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nbin\n",
            },
        ),
        ("compacted", {"message": "The user asked about the root directory; it holds bin and etc."}),
        (
            "turn_context",
            {
                "cwd": "/work/app",
                "approval_policy": "never",
                "sandbox_policy": {"mode": "read-only"},
                "model": "gpt-5-mini",
            },
        ),
        (
            "response_item",
            {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"', "call_id": "call_bad_args"},
        ),
        (
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "call_bad_args",
                "output": "failed to parse function arguments: EOF while parsing a list at line 1 column 12",
            },
        ),
        ("response_item", _assistant("bin and etc.")),
        ("event_msg", _token_count(_usage(300, 5))),
    ]
    return [_line(n, kind, p, ordinal=False) for n, (kind, p) in enumerate(rows)]


def partly_bad() -> bytes:
    """Good lines, then one bad line of each kind, and a last line cut off mid-object (no newline)."""
    good = danger_full_access_legacy()[:7]
    bad = [
        "this is not json",
        '{"timestamp":"2026-11-30T10:00:20.000Z","type":"event_msg","payload":{"type":"token_count","x":NaN}}',
        "[1, 2, 3]",
        '{"hello":"world"}',
    ]
    cut = '{"timestamp":"2026-11-30T10:00:30.000Z","type":"response_item","payload":{"type":"message","role":"assi'
    text = "\n".join(good[:4] + bad[:2] + good[4:] + bad[2:]) + "\n" + cut
    return text.encode("utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "tests/fixtures/codex")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    files = {
        "workspace-write-approved.jsonl": ("\n".join(workspace_write_approved()) + "\n").encode("utf-8"),
        "danger-full-access-legacy.jsonl": ("\n".join(danger_full_access_legacy()) + "\n").encode("utf-8"),
        "partly-bad.jsonl": partly_bad(),
    }
    for name, data in files.items():
        (args.out / name).write_bytes(data)
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
