"""Write a DSH session log (V0) for a lab run, as DSH's session-persistence-jsonl would.

The lab does not run DSH (it drives pi-ai directly), so it writes the log from the same scripted run:
the request/header with the advertised tools, the calls with the model's raw argument strings (taken
from the gateway's stream), DSH's exact tool-result texts, and the permission events of the session's
preset (docs/upstream.md#dsh-namespaces, #dsh-session-log). The file is concatenated zstd frames, one per append batch, with
the header alone in the first, as DSH writes ``session.jsonl.zstd``.

The logs DSH 0.1.0-rc.8 writes itself (``data/dsh-*``, ``lab/run.py --dsh``) differ from these in ways the
toolkit's reader does not depend on; this writer is kept as it is so that ``data/before-fix`` and
``data/after-fix`` stay what ``make captures`` rebuilds. Real logs keep pi-ai's joined id ``call_…|fc_…`` as
the call id (here: the ``call_…`` part); ``sandbox/mode`` has no ``source``; ``agent/inbox/spliced`` comes
before ``turn/start``, and ``user/message`` (the task, then a second one with the runtime context),
``request/header`` and ``request/context`` come after the first ``step/start``; one call's deltas are split
over several ``tool-call-chunks`` rows with other events between them, and ``block-start``/``block-end``/
``usage`` chunks and a ``finish`` with pi-ai's ``replayState`` surround them; ``text-chunks`` rows carry
``seq0``/``time0`` (here: ``seq``/``time``); the session-title request is logged as
``session/title-llm-request`` and ``session/title``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import zstandard
from scenarios import SYSTEM_PROMPT, TOOLS

from toolkit.wire.sse import decode_events, parse_json_events

# docs/upstream.md#dsh-namespaces: preset → (sandbox mode, approval policy)
PRESETS = {
    "read-only": ("read-only", "ask"),
    "workspace-write": ("workspace-write", "ask"),
    "danger-full-access": ("danger-full-access", "never"),
}
STARTS = {"before-fix": "2026-11-30T09:00:00Z", "after-fix": "2026-11-30T10:00:00Z"}


def _ms(iso: str) -> int:
    return int(datetime.fromisoformat(iso).astimezone(UTC).timestamp() * 1000)


def stream_pieces(gateway_log: Path) -> dict[str, tuple[str, list[str]]]:
    """call_id → (raw arguments, the delta pieces as streamed), from the gateway's own log."""
    out: dict[str, tuple[str, list[str]]] = {}
    for line in gateway_log.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        body = (entry.get("response") or {}).get("body")
        if not isinstance(body, str):
            continue
        items: dict[str, dict] = {}
        for _, ev, _ in parse_json_events(decode_events(body.encode("utf-8"))):
            if not ev:
                continue
            kind = ev.get("type")
            if kind == "response.output_item.added" and ev.get("item", {}).get("type") == "function_call":
                items[ev["item"]["id"]] = {"call_id": ev["item"]["call_id"], "pieces": []}
            elif kind == "response.function_call_arguments.delta" and ev.get("item_id") in items:
                items[ev["item_id"]]["pieces"].append(ev["delta"])
            elif kind == "response.output_item.done" and ev.get("item", {}).get("id") in items:
                it = items[ev["item"]["id"]]
                out[it["call_id"]] = (ev["item"]["arguments"], it["pieces"])
    return out


def _call_id(call: dict) -> str:
    """DSH's call id: pi-ai joins the Responses ``call_id`` and item id as ``call|fc``."""
    return call["id"].split("|", 1)[0]


def _raw(call: dict, pieces: dict | None = None) -> str:
    """The arguments exactly as the model streamed them (the gateway log), else re-serialised."""
    found = (pieces or {}).get(_call_id(call))
    return found[0] if found else json.dumps(call.get("arguments", {}), separators=(",", ":"))


def records(scenario, run, transcript: dict, pieces: dict[str, tuple[str, list[str]]]) -> list[list[dict]]:
    """The session as batches of records (each batch one zstd frame)."""
    t0 = _ms(STARTS.get(scenario.name, "2026-11-30T11:00:00Z"))
    mode, policy = PRESETS[scenario.session_mode]
    seq = 0
    clock = t0

    def ev(kind: str, data: dict, advance: int = 1, **extra) -> dict:
        nonlocal seq, clock
        clock += advance
        rec = {"type": kind, "seq": seq, "time": clock, "data": data, **extra}
        seq += 1
        return rec

    header = {
        "type": "session",
        "version": 0,
        "id": f"lab-{scenario.name}",
        "createdAt": t0,
        "cwd": "/work/checkout-app",
        "delegationDepth": 0,
    }
    batches: list[list[dict]] = [[header]]
    batches.append(
        [
            ev("permission/preset", {"preset": scenario.session_mode}),
            ev("sandbox/mode", {"mode": mode, "source": "preset"}, 0),
            ev("approval/policy", {"policy": policy}, 0),
        ]
    )
    turn = 1
    user = {
        "id": "msg-user-1",
        "role": "user",
        "content": [{"type": "text", "text": run.text}],
        "source": {"kind": "user"},
    }
    batches.append([ev("turn/start", {"turn": turn}, 1000), ev("user/message", user, 1, surfaceOp="append")])
    provider, model = "gateway", run.model
    tools = [{"name": t["name"], "description": t["description"], "parameters": t["parameters"]} for t in TOOLS]
    for step, req in enumerate(transcript.get("requests", []), 1):
        batch = []
        if step == 1:
            batch.append(
                ev(
                    "request/header",
                    {
                        "header": {
                            "config": {"provider": provider, "model": model},
                            "system": SYSTEM_PROMPT,
                            "tools": tools,
                        },
                        "reason": "initial",
                    },
                )
            )
        batch.append(ev("step/start", {"turn": turn, "step": step}, 1))
        content = (req.get("assistant") or {}).get("content") or []
        calls = [c for c in content if c.get("type") == "toolCall"]
        texts = [c.get("text", "") for c in content if c.get("type") == "text"]
        first = seq
        for index, call in enumerate(calls):
            call_id = _call_id(call)
            raw, parts = pieces.get(call_id) or (_raw(call), [])
            parts = parts or [raw]
            row = {
                "type": "tool-call-chunks",
                "seq0": seq,
                "time0": clock + 400,
                "data": {
                    "turn": turn,
                    "step": step,
                    "index": index,
                    "id": call_id,
                    "name": call["name"],
                    "dt": [3] * (len(parts) - 1),
                    "args": parts,
                },
            }
            batch.append(row)
            seq += len(parts)
            clock += 400 + 3 * (len(parts) - 1)
        if texts:
            batch.append(
                ev("text-chunks", {"turn": turn, "step": step, "index": 0, "dt": [], "texts": ["".join(texts)]}, 400)
            )
        stop = req.get("stopReason")
        finish = (
            {"kind": "tool-calls"}
            if calls
            else {"kind": "stop"}
            if stop == "stop"
            else {"kind": "error", "failure": {"message": req.get("errorMessage") or stop, "code": "PROVIDER_ERROR"}}
        )
        batch.append(ev("assistant/chunk", {"turn": turn, "step": step, "chunk": {"type": "finish", "reason": finish}}))
        message_content = [{"type": "text", "text": "".join(texts)}] if texts else []
        message_content += [
            {"type": "tool-call", "id": _call_id(c), "name": c["name"], "arguments": _raw(c, pieces)} for c in calls
        ]
        usage = req.get("usage") or {}
        batch.append(
            ev(
                "assistant/message",
                {
                    "turn": turn,
                    "step": step,
                    "message": {
                        "id": f"msg-assistant-{step}",
                        "role": "assistant",
                        "content": message_content,
                        "source": {"kind": "model", "provider": provider, "model": model},
                    },
                    "usage": {"inputTokens": usage.get("input", 0), "outputTokens": usage.get("output", 0)},
                },
                0,
                surfaceOp="append",
                sourceEventSeqs=list(range(first, seq)),
            )
        )
        sent = req.get("toolResultsSent") or []
        for call, result in zip(calls, sent):
            call_id = _call_id(call)
            call_ev = ev(
                "tool/call",
                {"turn": turn, "step": step, "callId": call_id, "name": call["name"], "arguments": _raw(call, pieces)},
                1,
            )
            text = "".join(p.get("text", "") for p in result.get("content", []) if p.get("type") == "text")
            batch.append(call_ev)
            batch.append(
                ev(
                    "tool/result",
                    {
                        "turn": turn,
                        "step": step,
                        "message": {
                            "id": f"msg-tool-{call_id}",
                            "role": "user",
                            "source": {"kind": "tool", "callId": call_id},
                            "content": [
                                {
                                    "type": "tool-result",
                                    "toolCallId": call_id,
                                    "content": [{"type": "text", "text": text}],
                                    "isError": bool(result.get("isError")),
                                }
                            ],
                        },
                    },
                    5,
                    surfaceOp="append",
                    sourceEventSeqs=[call_ev["seq"]],
                )
            )
        batch.append(ev("step/end", {"turn": turn, "step": step}, 1))
        batches.append(batch)
    batches.append([ev("turn/end", {"turn": turn, "reason": {"kind": "completed"}}, 1)])
    return batches


def write(path: Path, scenario, run, transcript: dict) -> None:
    pieces = stream_pieces(path.parent / "gateway.jsonl")
    cctx = zstandard.ZstdCompressor(level=3, write_checksum=True)
    frames = []
    for batch in records(scenario, run, transcript, pieces):
        text = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in batch)
        frames.append(cctx.compress(text.encode("utf-8")))
    path.write_bytes(b"".join(frames))
