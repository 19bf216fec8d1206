"""Write the small sample captures in ``data/samples/`` (run: ``python lab/samples.py``).

They follow the documented wire shapes (pi-ai 1.6.0 requests, OpenAI Responses streams, DSH V0
session records) and show the incident's three failures in miniature. They are written by this
script, not recorded: the incident lab (``lab/``, issue 3) replaces them with captures made by the
real pi-ai through a real recorder.
"""
from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "samples"

# DSH 0.1.1-rc.2 bash schema with a confining executor (dsh.md §4); descriptions shortened.
BASH_PARAMETERS = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to execute."},
        "description": {"type": "string", "description": "Clear, concise description of what this command does in active voice, 5-10 words (shown in the UI)."},
        "timeoutMs": {"type": "number", "description": "Timeout in milliseconds."},
        "workdir": {"type": "string", "description": "Working directory for this command."},
        "run_in_background": {"type": "boolean", "description": "Run in the background and return a job id immediately."},
        "sandbox_permissions": {"type": "string", "description": "The wider sandbox mode this command needs. Only valid as a one-shot retry of a command the sandbox just denied; requires justification and user approval.", "enum": ["workspace-write", "danger-full-access"]},
        "justification": {"type": "string", "description": "Required with sandbox_permissions: one sentence for the user explaining why this exact command needs the wider access."},
    },
    "required": ["command", "description"],
}
BASH_DESCRIPTION = "Run a bash command in the workspace."
PNG_1PX = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)).decode()
FILLED_ARGS = {"command": "ls -la", "description": "List files in the workspace", "timeoutMs": None, "workdir": None,
               "run_in_background": None, "sandbox_permissions": "danger-full-access", "justification": ""}


def tool(strict: str) -> dict:
    t = {"type": "function", "name": "bash", "description": BASH_DESCRIPTION, "parameters": BASH_PARAMETERS}
    if strict != "absent":
        t["strict"] = {"null": None, "false": False, "true": True}[strict]
    return t


def request(strict: str, image: bool) -> dict:
    user = [{"type": "input_text", "text": "Here is the screenshot of the failing page:"}]
    user.append({"type": "input_image", "detail": "auto", "image_url": f"data:image/png;base64,{PNG_1PX}"} if image
                else {"type": "input_text", "text": "(image omitted: model does not support images)"})
    return {"model": "gw-coder", "input": [{"role": "system", "content": "You are a coding agent."},
                                           {"role": "user", "content": user}],
            "stream": True, "store": False, "tools": [tool(strict)]}


def sse(events: list[dict]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n}, separators=(',', ':'))}\n\n"
                   for n, e in enumerate(events))


def call_stream(resp_id: str, call: str, args: dict, *, cut: bool = False) -> str:
    text = json.dumps(args, separators=(",", ":"))
    item = {"id": f"fc_{call}", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": f"call_{call}", "name": "bash"}
    response = {"id": resp_id, "object": "response", "created_at": 1796025600, "status": "in_progress", "model": "gw-coder", "output": []}
    events = [{"type": "response.created", "response": response}, {"type": "response.in_progress", "response": response},
              {"type": "response.output_item.added", "output_index": 0, "item": item}]
    pieces = [text[i:i + 24] for i in range(0, len(text), 24)]
    if cut:
        return sse(events + [{"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": 0, "delta": p} for p in pieces[:3]])
    events += [{"type": "response.function_call_arguments.delta", "item_id": item["id"], "output_index": 0, "delta": p} for p in pieces]
    done = {**item, "status": "completed", "arguments": text}
    events += [{"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0, "name": "bash", "arguments": text},
               {"type": "response.output_item.done", "output_index": 0, "item": done},
               {"type": "response.completed", "response": {**response, "status": "completed", "output": [done],
                "usage": {"input_tokens": 412, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 58,
                          "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 470}}}]
    return sse(events)


def har_entry(started: str, body: dict, status: int, resp_headers: list, text: str, mime: str, ms: float) -> dict:
    return {
        "startedDateTime": started, "time": ms,
        "request": {"method": "POST", "url": "http://127.0.0.1:8787/v1/responses", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "authorization", "value": "Bearer sk-sample0000000000000000000000fake"},
                                {"name": "content-type", "value": "application/json"},
                                {"name": "user-agent", "value": "pi/1.6.0 (linux; node/v20.20.2; x64)"}],
                    "queryString": [], "headersSize": -1, "bodySize": len(json.dumps(body)),
                    "postData": {"mimeType": "application/json", "text": json.dumps(body)}},
        "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [], "headers": resp_headers,
                     "content": {"size": len(text), "mimeType": mime, "text": text}, "redirectURL": "", "headersSize": -1,
                     "bodySize": len(text)},
        "cache": {}, "timings": {"send": 0, "wait": ms / 2, "receive": ms / 2},
    }


def before_fix_har() -> dict:
    sse_type = [{"name": "content-type", "value": "text/event-stream; charset=utf-8"}]
    rate = json.dumps({"error": {"message": "Rate limit reached for gw-coder. Please try again in 2s.", "type": "requests",
                                 "param": None, "code": "rate_limit_exceeded"}})
    entries = [
        har_entry("2026-11-30T09:00:00.000Z", request("absent", False), 200, sse_type, call_stream("resp_before_1", "1", FILLED_ARGS), "text/event-stream; charset=utf-8", 812.0),
        har_entry("2026-11-30T09:00:05.000Z", request("absent", False), 429,
                  [{"name": "content-type", "value": "application/json"}, {"name": "retry-after", "value": "2"}], rate, "application/json", 35.0),
        har_entry("2026-11-30T09:00:09.000Z", request("absent", False), 200, sse_type, call_stream("resp_before_3", "3", FILLED_ARGS, cut=True), "text/event-stream; charset=utf-8", 420.0),
    ]
    return {"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0.2"}, "pages": [], "entries": entries}}


def after_fix_jsonl() -> str:
    ok_args = {"command": "ls -la", "description": "List files in the workspace", "timeoutMs": None, "workdir": None,
               "run_in_background": None, "sandbox_permissions": None, "justification": None}
    line = {"id": "req-after-1", "started_at": "2026-11-30T10:00:00Z", "duration_ms": 640,
            "request": {"method": "POST", "url": "http://127.0.0.1:8787/v1/responses",
                        "headers": {"authorization": "Bearer sk-sample0000000000000000000000fake", "content-type": "application/json"},
                        "body": request("false", True)},
            "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": call_stream("resp_after_1", "a1", ok_args)}}
    return json.dumps(line) + "\n"


def failed_stream() -> str:
    response = {"id": "resp_failed_1", "object": "response", "created_at": 1796025600, "status": "in_progress", "model": "gw-coder", "output": []}
    return sse([{"type": "response.created", "response": response},
                {"type": "response.failed", "response": {**response, "status": "failed",
                 "error": {"code": "server_error", "message": "The model failed to produce a response."}}}])


def dsh_session_frames() -> list[bytes]:
    """A DSH V0 session as DSH writes it: header frame, then one frame per append batch."""
    t0 = 1796025600000
    args = json.dumps(FILLED_ARGS, separators=(",", ":"))
    header = {"type": "session", "version": 0, "id": "sample-session", "createdAt": t0, "cwd": "/work/project"}
    batches = [
        [{"type": "permission/preset", "seq": 0, "time": t0 + 1, "data": {"preset": "danger-full-access"}},
         {"type": "sandbox/mode", "seq": 1, "time": t0 + 1, "data": {"mode": "danger-full-access", "source": "preset"}},
         {"type": "approval/policy", "seq": 2, "time": t0 + 1, "data": {"policy": "never"}}],
        [{"type": "turn/start", "seq": 3, "time": t0 + 10, "data": {"turn": 1}},
         {"type": "user/message", "seq": 4, "time": t0 + 10, "data": {"id": "m1", "role": "user", "content": [{"type": "text", "text": "List the files."}], "source": {"kind": "user"}}, "surfaceOp": "append"},
         {"type": "request/header", "seq": 5, "time": t0 + 11, "data": {"header": {"config": {"provider": "gateway", "model": "gw-coder"},
          "tools": [{"name": "bash", "description": BASH_DESCRIPTION, "parameters": BASH_PARAMETERS}]}, "reason": "initial"}}],
        [{"type": "tool-call-chunks", "seq0": 6, "time0": t0 + 900, "data": {"turn": 1, "step": 1, "index": 0, "id": "call_1", "name": "bash",
          "dt": [3, 2], "args": [args[:30], args[30:60], args[60:]]}},
         {"type": "assistant/chunk", "seq": 9, "time": t0 + 906, "data": {"turn": 1, "step": 1, "chunk": {"type": "finish", "reason": {"kind": "tool-calls"}}}},
         {"type": "assistant/message", "seq": 10, "time": t0 + 906, "data": {"turn": 1, "step": 1, "message": {"id": "a1", "role": "assistant",
          "content": [{"type": "tool-call", "id": "call_1", "name": "bash", "arguments": args}], "source": {"kind": "model", "provider": "gateway", "model": "gw-coder"}},
          "usage": {"inputTokens": 412, "outputTokens": 58}}, "surfaceOp": "append"}],
        [{"type": "tool/call", "seq": 11, "time": t0 + 907, "data": {"turn": 1, "step": 1, "callId": "call_1", "name": "bash", "arguments": args}},
         {"type": "tool/result", "seq": 12, "time": t0 + 908, "data": {"turn": 1, "step": 1, "message": {"id": "r1", "role": "user", "source": {"kind": "tool", "callId": "call_1"},
          "content": [{"type": "tool-result", "toolCallId": "call_1", "content": [{"type": "text", "text": "Error: invalid justification: expected a non-empty sentence"}], "isError": True}]}},
          "sourceEventSeqs": [11], "surfaceOp": "append"},
         {"type": "turn/end", "seq": 13, "time": t0 + 2000, "data": {"turn": 1, "reason": {"kind": "completed"}}}],
    ]
    lines = [[header]] + batches
    return ["".join(json.dumps(r, separators=(",", ":")) + "\n" for r in batch).encode() for batch in lines]


def main() -> int:
    import zstandard

    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "before-fix.har").write_text(json.dumps(before_fix_har(), indent=1) + "\n", encoding="utf-8")
    (OUT / "after-fix.jsonl").write_text(after_fix_jsonl(), encoding="utf-8")
    (OUT / "failed-stream.sse").write_text(failed_stream(), encoding="utf-8")
    cctx = zstandard.ZstdCompressor(write_checksum=True)
    (OUT / "session.jsonl.zstd").write_bytes(b"".join(cctx.compress(frame) for frame in dsh_session_frames()))
    for p in sorted(OUT.iterdir()):
        print(f"{p.relative_to(OUT.parent.parent)}  {p.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
