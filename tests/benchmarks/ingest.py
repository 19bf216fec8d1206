"""Ingest benchmark (``make bench``; not part of ``make test``).

Measures, on the same generated files and each in a fresh interpreter, the toolkit beside the
peers a user would reach for:

- a HAR of about 2,000 exchanges and 50 MB (long Responses input histories, the same 8 tools in
  every request, streamed function calls): bare ``json.loads``, ``orjson.loads``, haralyzer,
  ``pandas.json_normalize`` of the entries, ``load_capture`` and ``load_capture(keep_bodies=True)``;
- a JSONL gateway log of about 1 GB (``data/busy-day/gateway.jsonl`` repeated, one day per
  repetition, with fresh ids; written by streaming): ``json.loads`` and ``orjson.loads`` of every
  line, ``pandas.read_json(lines=True, chunksize=...)``, ``pandas.json_normalize`` per chunk,
  ``load_capture`` and ``agent-contract ingest`` (the CLI, as a subprocess: with ``--jobs 1``, and
  as a user runs it, one process per CPU reading the log in line ranges).

For each: seconds of the work (file read included, imports excluded; the CLI row is the whole
process), ratio to ``json.loads`` of the same input, peak RSS of the process (GNU time's ``%M``,
else ``wait4``; for the CLI, the larger of that and the sampled sum of its processes' PSS), the RSS of an interpreter that only imported the same modules, and the difference
("work"). The files are read warm (just written). Targets (printed, not enforced): HAR load within
1.5x json.loads and its work memory within 1.5x the file size; ingest of the JSONL within 2x
json.loads of every line with peak RSS at most 512 MB.

    make bench                                  # 50 MB HAR, 1 GiB JSONL
    make bench BENCH_ARGS="--jsonl-mb 256 --json bench.json"
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date, timedelta
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


REPO = Path(__file__).resolve().parents[2]
BUSY_DAY = REPO / "data" / "busy-day" / "gateway.jsonl"
MB = 1024 * 1024
CHUNK = 1000  # lines per pandas chunk
ID_PREFIXES = ("resp_", "req_", "req-", "fc_", "msg_", "call_", "chatcmpl-")


def _busy_day_template(source: Path) -> tuple[bytes, str]:
    """The busy day with a marker after every id and in place of its date, so each repetition is two
    ``bytes.replace`` calls rather than a JSON round trip (ids sit inside SSE strings too)."""
    import re

    text = source.read_text(encoding="utf-8")
    days = set(re.findall(r'"started_at":"(\d{4}-\d{2}-\d{2})T', text))
    if len(days) != 1:
        raise SystemExit(f"{source}: expected one day in started_at, found {sorted(days)}")
    (day,) = days
    if "\x01" in text or "\x02" in text:
        raise SystemExit(f"{source}: holds the generator's marker characters")
    ids = "|".join(re.escape(p) for p in ID_PREFIXES)
    text = re.sub(rf'(?<=")((?:{ids})\d+)', "\\1\x01", text)
    text = text.replace(f'"started_at":"{day}T', '"started_at":"\x02T')
    if not text.endswith("\n"):
        text += "\n"
    return text.encode("utf-8"), day


def make_busy_jsonl(path: Path, megabytes: float, source: Path = BUSY_DAY) -> int:
    """Write ``source`` repeated until the file reaches ``megabytes`` MiB (at least one line):
    repetition ``r`` is the day after repetition ``r - 1`` and every id gets the suffix ``_r<r>``.
    Streams, one repetition in memory at a time; returns the lines written."""
    template, day = _busy_day_template(source)
    first = date.fromisoformat(day)
    target = max(1, int(megabytes * MB))
    written = lines = rep = 0
    with open(path, "wb") as f:
        while written < target:
            stamp = (first + timedelta(days=rep)).isoformat().encode()
            block = template.replace(b"\x01", b"_r%05d" % rep).replace(b"\x02", stamp)
            if written + len(block) > target:  # the last repetition: whole lines up to the size
                for line in block.splitlines(keepends=True):
                    f.write(line)
                    written += len(line)
                    lines += 1
                    if written >= target:
                        break
                break
            f.write(block)
            written += len(block)
            lines += block.count(b"\n")
            rep += 1
    return lines


# One child per measurement: ``ingest.py --child MODE PATH`` imports what MODE needs, then
# (unless --baseline) does the work, and prints JSON. Peak RSS is taken from outside (``_run``).
IMPORTS = {
    "json": ["json"],
    "orjson": ["orjson"],
    "haralyzer": ["json", "haralyzer"],
    "json_normalize": ["json", "pandas"],
    "load": ["toolkit", "toolkit.capture"],
    "load_bodies": ["toolkit", "toolkit.capture"],
    "jsonl_json": ["json"],
    "jsonl_orjson": ["orjson"],
    "jsonl_read_json": ["pandas"],
    "jsonl_normalize": ["orjson", "pandas"],
    "jsonl_load": ["toolkit", "toolkit.capture"],
    "ingest_base": ["toolkit.present.cli", "toolkit.capture", "pyarrow", "pyarrow.parquet"],
}


def _work(mode: str, path: str) -> int:
    """The measured work; returns the rows it produced (entries, lines or exchanges)."""
    if mode == "json":
        import json as j

        with open(path, "rb") as f:
            return len(j.loads(f.read())["log"]["entries"])
    if mode == "orjson":
        import orjson

        with open(path, "rb") as f:
            return len(orjson.loads(f.read())["log"]["entries"])
    if mode == "haralyzer":
        import json as j

        from haralyzer import HarParser

        with open(path, "rb") as f:
            parser = HarParser(j.loads(f.read()))
        n = 0
        for page in parser.pages:
            for entry in page.entries:
                req, res = entry.request, entry.response
                _ = (req.method, req.url, req.headers, req.text, res.status, res.headers, res.text)
                n += 1
        return n
    if mode == "json_normalize":
        import json as j

        import pandas as pd

        with open(path, "rb") as f:
            return len(pd.json_normalize(j.loads(f.read())["log"]["entries"]))
    if mode in ("load", "load_bodies", "jsonl_load"):
        import toolkit

        return len(toolkit.load_capture(path, keep_bodies=mode == "load_bodies", progress=False).exchanges)
    if mode in ("jsonl_json", "jsonl_orjson"):
        if mode == "jsonl_json":
            import json as j

            loads = j.loads
        else:
            import orjson

            loads = orjson.loads
        n = 0
        with open(path, "rb") as f:
            for line in f:
                loads(line)
                n += 1
        return n
    if mode == "jsonl_read_json":
        import pandas as pd

        with pd.read_json(path, lines=True, chunksize=CHUNK) as reader:
            return sum(len(chunk) for chunk in reader)
    if mode == "jsonl_normalize":
        import orjson
        import pandas as pd

        n = 0
        with open(path, "rb") as f:
            batch: list = []
            for line in f:
                batch.append(orjson.loads(line))
                if len(batch) == CHUNK:
                    n += len(pd.json_normalize(batch))
                    batch = []
            if batch:
                n += len(pd.json_normalize(batch))
        return n
    raise SystemExit(f"unknown mode {mode}")


def _child(mode: str, path: str, baseline: bool) -> None:
    import importlib

    for name in IMPORTS[mode]:
        importlib.import_module(name)
    t, c = time.perf_counter(), time.process_time()
    n = 0 if baseline else _work(mode, path)
    print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - c, "n": n}))


TIME = shutil.which("time", path="/usr/bin:/bin")


def _run(cmd: list[str]) -> dict:
    """Run ``cmd``: wall seconds, peak RSS bytes of that process, stdout, stderr, exit code.

    The peak comes from GNU time when it is there: ``ru_maxrss`` of a child forked from this
    (larger) interpreter starts at this interpreter's own high-water mark, which would hide small
    peaks; forked from ``time`` it starts at about 2 MB. Without it, ``wait4`` gives that upper bound."""
    with tempfile.TemporaryDirectory() as tmp:
        rss_file = Path(tmp) / "rss"
        full = [TIME, "-f", "%M %U %S", "-o", str(rss_file), *cmd] if TIME else cmd
        with open(Path(tmp) / "out", "w+b") as out, open(Path(tmp) / "err", "w+b") as err:
            t = time.perf_counter()
            proc = subprocess.Popen(full, stdout=out, stderr=err, cwd=REPO)
            tree: dict[str, int] = {"peak": 0}
            stop = threading.Event()
            sampler = threading.Thread(target=_sample_tree, args=(proc.pid, stop, tree), daemon=True)
            sampler.start()
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t
            stop.set()
            sampler.join()
            proc.returncode = code = os.waitstatus_to_exitcode(status)
            peak, cpu = usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime
            if TIME:
                last = (rss_file.read_text().strip().splitlines() or [""])[-1].split()
                if len(last) == 3 and last[0].isdigit():
                    peak, cpu = int(last[0]) * 1024, float(last[1]) + float(last[2])
            out.seek(0)
            err.seek(0)
            return {
                "wall": wall,
                "peak": max(peak, tree["peak"]),  # with worker processes: their memory together
                "cpu": cpu,
                "code": code,
                "stdout": out.read().decode(errors="replace"),
                "stderr": err.read().decode(errors="replace"),
            }


def _tree_memory(root: int) -> int:
    """Bytes of ``root`` and every process below it: the sum of their PSS (a page shared by forked
    workers counts once, split between them; summed RSS would count it in each), RSS where
    ``smaps_rollup`` cannot be read."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(d)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * PAGE
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += _pss(pid, rss.get(pid, 0))
        todo += children.get(pid, [])
    return total


def _pss(pid: int, fallback: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return fallback


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _sample_tree(root: int, stop: threading.Event, out: dict) -> None:
    """The peak of the process tree's memory (``_tree_memory``), sampled every 50 ms: GNU time and
    ``wait4`` give the largest single process's peak, which under-counts a parent with workers."""
    if not os.path.isdir("/proc"):
        return
    while not stop.wait(0.05):
        out["peak"] = max(out["peak"], _tree_memory(root))


_baselines: dict[tuple, dict] = {}


def _baseline(mode: str) -> dict:
    key = tuple(IMPORTS[mode])
    if key not in _baselines:
        r = _run([sys.executable, __file__, "--child", mode, os.devnull, "--baseline"])
        if r["code"]:
            raise SystemExit(f"baseline for {mode} failed:\n{r['stderr']}")
        _baselines[key] = r
    return _baselines[key]


def _row(
    tool: str, size: int, seconds: float | None, peak: int | None, base: int | None, n, status: str, cpu=None
) -> dict:
    return {
        "tool": tool,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "peak_rss_mb": None if peak is None else peak / MB,
        "baseline_rss_mb": None if base is None else base / MB,
        "work_rss_mb": None if peak is None or base is None else (peak - base) / MB,
        "rss_per_file": None if peak is None else peak / size,
        "work_rss_per_file": None if peak is None or base is None else (peak - base) / size,
        "rows": n,
        "status": status,
    }


def measure(tool: str, mode: str, path: Path) -> dict:
    size = path.stat().st_size
    base = _baseline(mode)
    r = _run([sys.executable, __file__, "--child", mode, str(path)])
    if r["code"]:
        tail = (r["stderr"].strip().splitlines() or [f"exit code {r['code']}"])[-1]
        return _row(tool, size, None, r["peak"], base["peak"], None, f"failed: {tail[:120]}")
    res = json.loads(r["stdout"])
    return _row(tool, size, res["seconds"], r["peak"], base["peak"], res["n"], "ok", res["cpu"])


def _manifest_rows(out: Path):
    """Exchanges (or entries) the ingest wrote, from its manifest, whatever its exact layout."""
    try:
        m = json.loads((out / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    frames = m.get("frames")
    if isinstance(frames, dict) and isinstance(frames.get("exchanges"), dict):
        rows = frames["exchanges"].get("rows")
        if isinstance(rows, int):
            return rows
    for key in ("inputs", "files", "sources"):
        items = m.get(key)
        if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
            for field in ("entries", "exchanges"):
                if all(isinstance(i.get(field), int) for i in items):
                    return sum(i[field] for i in items)
            rows = [i.get("rows") for i in items]
            if all(isinstance(r, dict) and isinstance(r.get("exchanges"), int) for r in rows):
                return sum(r["exchanges"] for r in rows)
    return None


def measure_ingest(path: Path, out: Path, jobs: int | None = None) -> dict:
    """The CLI as a user runs it (``jobs`` None: its default, a process per CPU) or with ``--jobs``."""
    size = path.stat().st_size
    cli = shutil.which("agent-contract", path=str(Path(sys.executable).parent)) or "agent-contract"
    base = _baseline("ingest_base")
    shutil.rmtree(out, ignore_errors=True)
    name = "agent-contract ingest (CLI" + (f", --jobs {jobs})" if jobs else f", default: {os.cpu_count()} jobs)")
    r = _run([cli, "ingest", str(path), "--out", str(out), *(["--jobs", str(jobs)] if jobs else [])])
    if r["code"]:
        tail = (r["stderr"].strip().splitlines() or [f"exit code {r['code']}"])[-1]
        return _row(name, size, None, r["peak"], base["peak"], None, f"failed: {tail[:120]}")
    row = _row(name, size, r["wall"], r["peak"], base["peak"], _manifest_rows(out), "ok", r["cpu"])
    try:
        inputs = json.loads((out / "manifest.json").read_text()).get("inputs") or []
    except (OSError, ValueError, AttributeError):
        inputs = []
    if any(isinstance(i, dict) and i.get("complete") is False for i in inputs):
        row["status"] = "incomplete: the manifest says complete: false"
    files = [p for p in out.rglob("*") if p.is_file()]
    row["out_mb"] = sum(p.stat().st_size for p in files) / MB
    row["out_files"] = len(files)
    row["startup_seconds"] = base["wall"]
    row["startup_cpu_seconds"] = base["cpu"]
    shutil.rmtree(out, ignore_errors=True)
    return row


def _mem_available() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _fmt(v, spec: str, width: int) -> str:
    return f"{'-':>{width}}" if v is None else f"{v:{width}{spec}}"


def render(table: dict) -> str:
    lines = [f"{table['input']}: {table['file']}, {table['bytes'] / MB:.1f} MB, {table['records']:,} records"]
    head = (
        f"  {'tool':50} {'seconds':>8} {'x json':>7} {'cpu s':>8} {'peak MB':>8} {'base MB':>8} {'work MB':>8}"
        f" {'peak/file':>9} {'work/file':>9} {'rows':>8}  status"
    )
    lines.append(head)
    for r in table["rows"]:
        lines.append(
            f"  {r['tool']:50} {_fmt(r['seconds'], '.3f', 8)} {_fmt(r['ratio'], '.2f', 7)} {_fmt(r['cpu_seconds'], '.3f', 8)}"
            f" {_fmt(r['peak_rss_mb'], '.0f', 8)} {_fmt(r['baseline_rss_mb'], '.0f', 8)} {_fmt(r['work_rss_mb'], '.0f', 8)}"
            f" {_fmt(r['rss_per_file'], '.2f', 9)} {_fmt(r['work_rss_per_file'], '.2f', 9)}"
            f" {_fmt(r['rows'], 'd', 8)}  {r['status']}"
        )
    for r in table["rows"]:
        if "out_files" in r:
            lines.append(f"  {r['tool']} wrote {r['out_files']} files, {r['out_mb']:.1f} MB")
    for t in table["targets"]:
        lines.append(f"  target {'met' if t['met'] else 'NOT MET' if t['met'] is False else 'n/a'}: {t['text']}")
    return "\n".join(lines)


def _add_ratios(rows: list[dict]) -> None:
    bare = rows[0]["seconds"]
    for r in rows:
        r["ratio"] = None if r["seconds"] is None or not bare else r["seconds"] / bare


def _by_tool(rows: list[dict], tool: str) -> dict:
    return next(r for r in rows if r["tool"] == tool)


def har_table(path: Path, exchanges: int) -> dict:
    rows = []
    for tool, mode in [
        ("json.loads(bytes)", "json"),
        ("orjson.loads(bytes)", "orjson"),
        ("haralyzer.HarParser + entries' request/response", "haralyzer"),
        ('pandas.json_normalize(log["entries"])', "json_normalize"),
        ("toolkit.load_capture(path)", "load"),
        ("toolkit.load_capture(path, keep_bodies=True)", "load_bodies"),
    ]:
        print(f"  HAR: {tool} ...", file=sys.stderr, flush=True)
        rows.append(measure(tool, mode, path))
    _add_ratios(rows)
    size = path.stat().st_size
    load = _by_tool(rows, "toolkit.load_capture(path)")
    targets = []
    if load["seconds"] is None:
        targets.append({"name": "har_time", "met": None, "text": f"HAR load_capture {load['status']}"})
    else:
        targets.append(
            {
                "name": "har_time",
                "met": load["ratio"] <= 1.5,
                "text": f"HAR load_capture {load['seconds']:.2f} s = {load['ratio']:.2f}x json.loads "
                f"({rows[0]['seconds']:.2f} s); CPU {load['cpu_seconds'] / rows[0]['cpu_seconds']:.2f}x; target <= 1.5x",
            }
        )
    targets.append(
        {
            "name": "har_memory",
            "met": load["work_rss_per_file"] <= 1.5,
            "text": f"HAR load_capture work memory {load['work_rss_mb']:.0f} MB = {load['work_rss_per_file']:.2f}x "
            f"the {size / MB:.1f} MB file (whole process {load['peak_rss_mb']:.0f} MB = "
            f"{load['rss_per_file']:.2f}x); target <= 1.5x",
        }
    )
    return {
        "input": "HAR",
        "file": path.name,
        "bytes": size,
        "records": exchanges,
        "rows": rows,
        "targets": targets,
    }


def jsonl_table(path: Path, lines: int, folder: Path, load_limit_mb: float | None) -> dict:
    size = path.stat().st_size
    rows = []
    for tool, mode in [
        ("json.loads per line", "jsonl_json"),
        ("orjson.loads per line", "jsonl_orjson"),
        (f"pandas.read_json(lines=True, chunksize={CHUNK})", "jsonl_read_json"),
        (f"pandas.json_normalize per {CHUNK} lines (orjson)", "jsonl_normalize"),
    ]:
        print(f"  JSONL: {tool} ...", file=sys.stderr, flush=True)
        rows.append(measure(tool, mode, path))
    tool = "toolkit.load_capture(path)"
    avail = _mem_available()
    if load_limit_mb is not None and size > load_limit_mb * MB:
        rows.append(
            _row(tool, size, None, None, None, None, f"skipped: file above --load-capture-max-mb {load_limit_mb:g}")
        )
    elif avail and size * 8 > avail:
        rows.append(
            _row(tool, size, None, None, None, None, f"skipped: may need ~8x the file, {avail / MB:.0f} MB available")
        )
    else:
        print(f"  JSONL: {tool} ...", file=sys.stderr, flush=True)
        rows.append(measure(tool, "jsonl_load", path))
    print("  JSONL: agent-contract ingest --jobs 1 ...", file=sys.stderr, flush=True)
    rows.append(measure_ingest(path, folder / "ingest-out", jobs=1))
    print("  JSONL: agent-contract ingest ...", file=sys.stderr, flush=True)
    rows.append(measure_ingest(path, folder / "ingest-out"))
    _add_ratios(rows)
    ing = rows[-1]
    targets = []
    if ing["seconds"] is None:
        targets.append({"name": "ingest_time", "met": None, "text": f"ingest {ing['status']}"})
    else:
        targets.append(
            {
                "name": "ingest_time",
                "met": ing["ratio"] <= 2.0,
                "text": f"ingest {ing['seconds']:.1f} s = {ing['ratio']:.2f}x json.loads per line "
                f"({rows[0]['seconds']:.1f} s; the whole process, of which about {ing['startup_seconds']:.1f} s "
                f"is starting and importing); CPU {ing['cpu_seconds']:.1f} s, "
                f"{ing['cpu_seconds'] - ing['startup_cpu_seconds']:.1f} s net of start-up = "
                f"{(ing['cpu_seconds'] - ing['startup_cpu_seconds']) / rows[0]['cpu_seconds']:.2f}x json.loads' CPU; "
                "target <= 2x",
            }
        )
    targets.append(
        {
            "name": "ingest_memory",
            "met": None if ing["seconds"] is None else ing["peak_rss_mb"] <= 512,
            "text": f"ingest peak RSS {ing['peak_rss_mb']:.0f} MB for a {size / MB:.0f} MB file "
            f"(work {ing['work_rss_mb']:.0f} MB over an interpreter that imported the CLI, toolkit.capture and pyarrow); target <= 512 MB",
        }
    )
    return {
        "input": "JSONL",
        "file": path.name,
        "bytes": size,
        "records": lines,
        "rows": rows,
        "targets": targets,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--exchanges", type=int, default=2000, help="HAR exchanges (default 2000, about 50 MB)")
    ap.add_argument("--jsonl-mb", type=float, default=1024, help="size of the generated JSONL in MiB (default 1024)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes (40 exchanges, 2 MiB JSONL): a smoke test")
    ap.add_argument("--load-capture-max-mb", type=float, help="skip load_capture on a JSONL larger than this")
    ap.add_argument("--json", type=Path, help="also write the tables as JSON to this file")
    ap.add_argument("--dir", type=Path, help="folder for the generated files (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the generated files (printed at the end)")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "PATH"), help=argparse.SUPPRESS)
    ap.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        _child(args.child[0], args.child[1], args.baseline)
        return 0
    if args.quick:
        args.exchanges, args.jsonl_mb = min(args.exchanges, 40), min(args.jsonl_mb, 2)
    folder = args.dir or Path(tempfile.mkdtemp(prefix="agent-contract-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    started_load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    try:
        har, jsonl = folder / "bench.har", folder / "bench-busy.jsonl"
        t = time.perf_counter()
        print(f"generating {har} ({args.exchanges} exchanges) ...", file=sys.stderr, flush=True)
        make_har(har, args.exchanges)
        print(f"generating {jsonl} ({args.jsonl_mb:g} MiB of {BUSY_DAY.name}) ...", file=sys.stderr, flush=True)
        lines = make_busy_jsonl(jsonl, args.jsonl_mb)
        print(f"generated in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
        tables = [har_table(har, args.exchanges), jsonl_table(jsonl, lines, folder, args.load_capture_max_mb)]
        print(f"agent-contract-toolkit benchmark, {started}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"load average before the run: {started_load}; after: {load}")
        print("seconds: wall time of the work, file read included, imports excluded (the CLI row: the whole process);")
        print(
            "cpu s: user+sys CPU time of the same (the CLI row: of the whole process), less sensitive to a busy machine;"
        )
        print(
            "peak: the process's peak RSS (the CLI: or its processes' summed PSS, if larger); base: an interpreter that only imported the same modules; work = peak - base"
        )
        for table in tables:
            print()
            print(render(table))
        if args.json:
            args.json.write_text(
                json.dumps({"started": started, "python": sys.version.split()[0], "tables": tables}, indent=2) + "\n"
            )
        return 0
    finally:
        if args.keep:
            print(f"kept the generated files in {folder}", file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
