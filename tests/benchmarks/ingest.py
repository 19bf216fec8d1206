"""Ingest benchmark (``make bench``; not part of ``make test``).

Generates a large HAR (about 2,000 exchanges and 50 MB of Responses bodies: long input histories,
the same 8 tools in every request, streamed function calls) and JSONL logs of two sizes, then
reports wall time and peak memory of ``load_capture`` beside a bare ``json.loads`` of the same
bytes. Each measurement runs in a fresh interpreter so peaks do not mix.

Targets: load time at most 2x the bare parse; peak memory at most 4x the file size; JSONL reader
memory that does not grow with the file.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOOL_NAMES = ["bash", "read", "write", "edit", "read_image", "grep", "glob", "web_search"]


def _tool(name: str) -> dict:
    props = {
        "command": {"type": "string", "description": "The bash command to execute."},
        "description": {
            "type": "string",
            "description": "Clear, concise description of what this command does in active voice, 5-10 words.",
        },
        "timeoutMs": {"type": "number", "description": "Timeout in milliseconds."},
        "workdir": {"type": "string", "description": "Working directory for this command."},
        "sandbox_permissions": {
            "type": "string",
            "enum": ["workspace-write", "danger-full-access"],
            "description": "The wider sandbox mode this command needs.",
        },
        "justification": {"type": "string", "description": "Required with sandbox_permissions: one sentence."},
    }
    return {
        "type": "function",
        "name": name,
        "description": f"The {name} tool. " + "Details. " * 40,
        "parameters": {"type": "object", "properties": props, "required": ["command", "description"]},
    }


TOOLS = [_tool(n) for n in TOOL_NAMES]


def _history(rng: random.Random, turns: int) -> list:
    items = [{"role": "system", "content": "You are a coding agent. " * 30}]
    for t in range(turns):
        items.append(
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Please look at the failing test and fix it. " * rng.randint(5, 30)}
                ],
            }
        )
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{t}",
                "call_id": f"call_{t}",
                "name": "bash",
                "arguments": json.dumps({"command": f"pytest -q tests/test_{t}.py", "description": "Run the tests"}),
            }
        )
        items.append(
            {
                "type": "function_call_output",
                "call_id": f"call_{t}",
                "output": "F" * 50 + "\n" + "log line\n" * rng.randint(20, 120),
            }
        )
    return items


def _sse(i: int) -> str:
    args = json.dumps(
        {
            "command": "ls -la",
            "description": "List files",
            "sandbox_permissions": "danger-full-access",
            "justification": "",
        }
    )
    item = {
        "id": f"fc_{i}",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": f"call_{i}",
        "name": "bash",
    }
    events = [
        {
            "type": "response.created",
            "response": {"id": f"resp_{i}", "status": "in_progress", "model": "test-model", "output": []},
        },
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    for k in range(0, len(args), 16):
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": f"fc_{i}",
                "output_index": 0,
                "delta": args[k : k + 16],
            }
        )
    done = {**item, "status": "completed", "arguments": args}
    events += [
        {
            "type": "response.function_call_arguments.done",
            "item_id": f"fc_{i}",
            "output_index": 0,
            "name": "bash",
            "arguments": args,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {
            "type": "response.completed",
            "response": {
                "id": f"resp_{i}",
                "status": "completed",
                "model": "test-model",
                "output": [done],
                "usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940},
            },
        },
    ]
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n" for n, e in enumerate(events)
    )


def _exchange(rng: random.Random, i: int) -> tuple[dict, str]:
    body = {"model": "test-model", "input": _history(rng, 3 + i % 9), "tools": TOOLS, "stream": True, "store": False}
    return body, _sse(i)


def make_har(path: Path, n: int) -> None:
    rng = random.Random(7)
    with open(path, "w", encoding="utf-8") as f:
        f.write(
            '{"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "11.0.2"}, "pages": [], "entries": [\n'
        )
        for i in range(n):
            body, sse = _exchange(rng, i)
            entry = {
                "startedDateTime": f"2026-11-30T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                "time": 850.0,
                "request": {
                    "method": "POST",
                    "url": "http://127.0.0.1:8080/v1/responses",
                    "httpVersion": "HTTP/1.1",
                    "headers": [
                        {"name": "authorization", "value": "Bearer sk-bench0123456789abcdefghij"},
                        {"name": "content-type", "value": "application/json"},
                    ],
                    "cookies": [],
                    "queryString": [],
                    "headersSize": -1,
                    "bodySize": 0,
                    "postData": {"mimeType": "application/json", "text": json.dumps(body)},
                },
                "response": {
                    "status": 200,
                    "statusText": "OK",
                    "httpVersion": "HTTP/1.1",
                    "cookies": [],
                    "redirectURL": "",
                    "headers": [{"name": "content-type", "value": "text/event-stream"}],
                    "headersSize": -1,
                    "bodySize": len(sse),
                    "content": {"size": len(sse), "mimeType": "text/event-stream; charset=utf-8", "text": sse},
                },
                "cache": {},
                "timings": {"send": 1, "wait": 100, "receive": 749},
            }
            f.write(("" if i == 0 else ",\n") + json.dumps(entry))
        f.write("\n]}}\n")


def make_jsonl(path: Path, n: int) -> None:
    rng = random.Random(11)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            body, sse = _exchange(rng, i)
            f.write(
                json.dumps(
                    {
                        "id": f"req-{i}",
                        "started_at": 1796000000 + i,
                        "duration_ms": 850,
                        "request": {"method": "POST", "url": "http://127.0.0.1:8080/v1/responses", "body": body},
                        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": sse},
                    }
                )
                + "\n"
            )


_CHILD = r"""
import json, sys, time
def rss(field):
    for line in open('/proc/self/status'):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
mode, path = sys.argv[1], sys.argv[2]
import toolkit, pandas, toolkit.capture, toolkit.sources.har, toolkit.sources.jsonl, toolkit.sources.detect
import gc; gc.collect()
with open('/proc/self/clear_refs', 'w') as f:
    f.write('5')  # reset the peak-RSS counter, so imports do not hide the reader's own peak
base = rss('VmRSS:')
t = time.perf_counter()
if mode == 'json':
    with open(path, 'rb') as f: data = json.loads(f.read())
    n = len(data['log']['entries'])
elif mode == 'jsonl-json':
    n = 0
    with open(path, 'rb') as f:
        for line in f: json.loads(line); n += 1
elif mode == 'reader':
    from toolkit.sources import detect
    p = __import__('pathlib').Path(path)
    n = sum(1 for _ in detect.reader_for(detect.detect(p))(p, p.name))
else:
    cap = toolkit.load_capture(path)
    n = len(cap.exchanges)
    assert cap.summary()['reconciles'].all()
elapsed = time.perf_counter() - t
print(json.dumps({'seconds': elapsed, 'peak': rss('VmHWM:') - base, 'n': n}))
"""


def measure(mode: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, mode, str(path)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{mode} on {path.name} failed:\n{out.stderr}")
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exchanges", type=int, default=2000)
    ap.add_argument("--keep", help="write the generated files to this folder instead of a temporary one")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        har, small, large = folder / "bench.har", folder / "bench-small.jsonl", folder / "bench-large.jsonl"
        t = time.perf_counter()
        print(f"generating {args.exchanges} exchanges ...", file=sys.stderr)
        make_har(har, args.exchanges)
        make_jsonl(small, args.exchanges // 4)
        make_jsonl(large, args.exchanges)
        print(f"generated in {time.perf_counter() - t:.1f}s", file=sys.stderr)
        rows = []
        for label, mode, path in [
            ("HAR: json.loads (bare parse)", "json", har),
            ("HAR: load_capture", "load", har),
            ("JSONL small: json.loads per line", "jsonl-json", small),
            ("JSONL small: reader only", "reader", small),
            ("JSONL small: load_capture", "load", small),
            ("JSONL large: json.loads per line", "jsonl-json", large),
            ("JSONL large: reader only", "reader", large),
            ("JSONL large: load_capture", "load", large),
        ]:
            print(f"  {label} ...", file=sys.stderr)
            r = measure(mode, path)
            size = path.stat().st_size
            rows.append((label, size, r["seconds"], r["peak"], r["n"]))
        print(f"{'measurement':36} {'file MB':>8} {'seconds':>8} {'peak MB':>8} {'peak/file':>9} {'rows':>6}")
        for label, size, sec, peak, n in rows:
            print(f"{label:36} {size / 1e6:8.1f} {sec:8.2f} {peak / 1e6:8.1f} {peak / size:9.2f} {n:6d}")
        bare, load = rows[0][2], rows[1][2]
        print(
            f"\nHAR load_capture / bare json.loads: {load / bare:.2f}x time (target <= 2x); "
            f"peak {rows[1][3] / rows[1][1]:.2f}x file size (target <= 4x)"
        )
        print(
            f"JSONL reader peak: small {rows[3][3] / 1e6:.1f} MB, large {rows[6][3] / 1e6:.1f} MB "
            f"for files of {rows[3][1] / 1e6:.0f} and {rows[6][1] / 1e6:.0f} MB"
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
