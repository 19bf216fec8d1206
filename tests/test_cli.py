"""``agent-contract verify``, ``ingest`` and ``variants``: exit codes, formats, the JSON schema, a snapshot."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pandas as pd
from conftest import REPO
from jsonschema import Draft202012Validator

from toolkit.present.report import json_schema

SNAPSHOT = REPO / "tests" / "snapshots" / "verify_before.md"
BEFORE = [
    "--settings",
    "data/configs/settings.before.yaml",
    "--capture",
    "data/before-fix/capture.har",
    "--session",
    "data/before-fix/session.jsonl.zstd",
]
AFTER = [
    "--settings",
    "data/configs/settings.after.yaml",
    "--capture",
    "data/after-fix/capture.har",
    "--session",
    "data/after-fix/session.jsonl.zstd",
]


def run(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_API_KEY", "DSH_PERMISSION_MODE")}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "toolkit.present.cli", *args], capture_output=True, text=True, cwd=REPO, env=env
    )


def test_exit_codes():
    assert run("verify", *BEFORE).returncode == 1
    assert run("verify", *AFTER).returncode == 0
    bad = run("verify", "--settings", "missing.yaml")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip() == "agent-contract: error: missing.yaml: cannot read: No such file or directory"
    assert run("verify", "--format", "pdf").returncode == 2


def test_text_names_the_failing_layers_and_the_exact_messages():
    out = run("verify", *BEFORE).stdout
    assert re.findall(r"^(\w+)\s+(PASS|WARN|FAIL)", out, re.M) == [
        ("CONFIG", "WARN"),
        ("SERIALIZATION", "FAIL"),
        ("CAPABILITY", "FAIL"),
        ("EXECUTION", "FAIL"),
    ]
    assert "×2: invalid justification: expected a non-empty sentence" in out
    assert "sk-lab-FAKE" not in out


def test_json_output_follows_the_documented_schema():
    for args, code in ((BEFORE, 1), (AFTER, 0)):
        doc = json.loads(run("verify", *args, "--format", "json").stdout)
        Draft202012Validator(json_schema()).validate(doc)
        assert doc["exit_code"] == code and doc["ok"] is (code == 0)
    assert [layer["verdict"] for layer in doc["layers"]] == ["warn", "pass", "pass", "pass"]


def test_markdown_snapshot_for_the_before_fix_data():
    out = run("verify", *BEFORE, "--format", "markdown").stdout
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(out, encoding="utf-8")
    assert out == SNAPSHOT.read_text(encoding="utf-8"), "set UPDATE_SNAPSHOTS=1 to accept a deliberate change"


def test_html_report_is_one_self_contained_file(tmp_path):
    out = tmp_path / "r.html"
    res = run("verify", *BEFORE, "--format", "html", "--out", str(out))
    assert res.returncode == 1 and res.stderr.strip() == f"FAIL: wrote {out}"
    html = out.read_text(encoding="utf-8")
    assert not re.search(r'(src|href)="https?://', html)
    assert 'src="data:image/png;base64,' in html and "invalid justification: expected a non-empty sentence" in html
    assert "sk-lab-FAKE" not in html


def test_start_up_does_not_import_plotting_or_jupyter():
    code = (
        "import sys, io, contextlib; from toolkit.present import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()): cli.main(['verify'] + sys.argv[1:])\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'IPython', 'jupyterlab') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code, *BEFORE], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


def test_ingest_writes_parquet_and_a_manifest(tmp_path):
    res = run("ingest", "data/before-fix", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert set(manifest["frames"]) >= {"exchanges", "tools", "calls", "events", "tool_results", "problems"}
    calls = pd.read_parquet(tmp_path / "calls.parquet")
    assert len(calls) == manifest["frames"]["calls"]["rows"] == 12  # har, mitm, gateway log and session: 3 each
    assert "arguments" in manifest["frames"]["calls"]["json_columns"]
    assert json.loads(calls["arguments"].iloc[0])["justification"] == ""
    assert "skipped" in res.stderr and "transcript-before-fix.json" in res.stderr  # not silently dropped
    headers = pd.read_parquet(tmp_path / "headers.parquet")
    assert set(headers.loc[headers["name"] == "authorization", "value"]) == {"<redacted>"}


def test_variants_table():
    out = run("variants", "--tool", "bash", "--api", "openai-responses").stdout
    assert "true, pi-ai's strict transform" in out and "absent, gateway reads absence as strict" in out
    assert "compat.supportsStrictMode unset: strict absent" in out
    assert "compat.supportsStrictMode true : strict false" in out
    assert run("variants", "--tool", "nope").returncode == 2
