"""`make bench` still runs: the benchmark with --quick (tiny generated files), checked for every row
and for values that make sense. No timing assertions; the numbers that matter come from the full run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "tests" / "benchmarks" / "ingest.py"

HAR_TOOLS = [
    "json.loads(bytes)",
    "orjson.loads(bytes)",
    "haralyzer.HarParser + entries' request/response",
    'pandas.json_normalize(log["entries"])',
    "toolkit.load_capture(path)",
    "toolkit.load_capture(path, keep_bodies=True)",
]
JSONL_TOOLS = [
    "json.loads per line",
    "orjson.loads per line",
    "pandas.read_json(lines=True, chunksize=1000)",
    "pandas.json_normalize per 1000 lines (orjson)",
    "toolkit.load_capture(path)",
    "agent-contract ingest (CLI, --jobs 1)",
    f"agent-contract ingest (CLI, default: {os.cpu_count()} jobs)",
]


def test_quick_benchmark_prints_every_row(tmp_path):
    gen, out = tmp_path / "gen", tmp_path / "bench.json"
    run = subprocess.run(
        [sys.executable, str(BENCH), "--quick", "--dir", str(gen), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=900,  # a bound on a hang only: about 20 s on an idle machine, several times that with every core busy
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr
    assert not gen.exists(), "the generated files are deleted without --keep"
    tables = json.loads(out.read_text())["tables"]
    assert [t["input"] for t in tables] == ["HAR", "JSONL"]
    har, jsonl = tables
    assert [r["tool"] for r in har["rows"]] == HAR_TOOLS
    assert [r["tool"] for r in jsonl["rows"]] == JSONL_TOOLS
    assert har["records"] == 40 and 0.5e6 < har["bytes"] < 2e6
    assert jsonl["records"] > 0 and 1.9 * 2**20 <= jsonl["bytes"] < 2.1 * 2**20
    for table in tables:
        for row in table["rows"]:
            where = f"{table['input']} {row['tool']}"
            assert row["status"] == "ok", f"{where}: {row['status']}"
            assert row["seconds"] > 0, where
            assert row["cpu_seconds"] > 0, where
            assert row["ratio"] == row["seconds"] / table["rows"][0]["seconds"], where
            # every process holds at least an interpreter, and never less than the one that only imported
            assert 5 < row["baseline_rss_mb"] <= row["peak_rss_mb"] + 2, where
            assert row["peak_rss_mb"] < 2048, where
            if row["rows"] is not None or not row["tool"].startswith("agent-contract ingest (CLI"):
                # every reader sees every entry: HAR entries and JSONL lines are one exchange each
                assert row["rows"] == table["records"], where
        assert table["rows"][0]["ratio"] == 1.0
        assert [t["met"] in (True, False) for t in table["targets"]] == [True, True], table["targets"]
    text = run.stdout
    for tool in HAR_TOOLS + JSONL_TOOLS:
        assert tool in text
    assert text.count("target met") + text.count("target NOT MET") == 4
