"""Capture frames: declared dtypes, counts that reconcile, schemas stored once, nothing secret."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, REPO

import toolkit
from toolkit.capture import FRAME_NAMES, frames, load_captures
from toolkit.capture.load import ENTRIES, SUMMARY

DATA = REPO / "data"
SECRET = "sk-proj-9f8e7d6c5b4a39281726354433221100"


def bundled() -> list[Path]:
    return toolkit.find_captures([DATA])[0]


def _check_dtypes(cap) -> None:
    problems = [m for name in FRAME_NAMES for m in frames.CAPTURE[name].mismatches(getattr(cap, name))]
    assert not problems, problems


def test_every_frame_has_its_declared_columns_and_dtypes():
    cap = load_captures(bundled())
    _check_dtypes(cap)
    assert set(cap.exchanges["api"].cat.categories) == {"responses", "chat", "messages", "other"}
    assert list(cap.tools["strict_state"].cat.categories) == ["absent", "null", "false", "true"]
    assert str(cap.exchanges["started_at"].dtype) == "datetime64[us, UTC]"


def test_empty_capture_still_has_typed_frames(tmp_path):
    p = tmp_path / "empty.har"
    p.write_text('{"log": {"version": "1.2", "entries": []}}')
    cap = toolkit.load_capture(p)
    _check_dtypes(cap)
    assert cap.summary().iloc[0][["entries", "read", "lost", "reconciles"]].tolist() == [0, 0, 0, True]
    none = load_captures([])
    assert none.summary().empty and SUMMARY.mismatches(none.summary()) == [] and ENTRIES.mismatches(none.entries) == []


def test_bundled_data_reads_without_loss():
    files, skipped = toolkit.find_captures([DATA])
    cap = load_captures(files)
    s = cap.summary()
    assert SUMMARY.mismatches(s) == [] and ENTRIES.mismatches(cap.entries) == [] and s["format"].notna().all()
    assert len(s) == len(files) >= 15 and s["reconciles"].all() and (s["lost"] == 0).all()
    # everything else in data/ is a transcript, a settings file or a README, and is said to be skipped
    assert sorted(Path(x.split(": ")[0]).suffix for x in skipped) == sorted(
        p.suffix for p in DATA.rglob("*") if p.is_file() and p not in files
    )
    # the three failures of the incident are visible in the raw frames
    assert "absent" in set(cap.tools["strict_state"])
    assert (cap.calls["arguments"].map(lambda a: isinstance(a, dict) and a.get("justification") == "")).any()
    assert cap.inputs_wide()["image_dropped"].any()
    assert (cap.tool_results["text"] == "Error: invalid justification: expected a non-empty sentence").any()


def test_partly_bad_files_reconcile_across_formats(tmp_path):
    good = (FIXTURES / "jsonl" / "canonical.jsonl").read_text(encoding="utf-8").splitlines()
    bad_jsonl = tmp_path / "log.jsonl"
    bad_jsonl.write_text("\n".join([good[0], '{"broken": ', good[0], "[1, 2]", ""]), encoding="utf-8")
    har = {
        "log": {
            "version": "1.2",
            "entries": [
                {
                    "request": {"method": "GET", "url": "http://127.0.0.1/v1/models"},
                    "response": {"status": 200, "content": {"size": 0, "text": ""}},
                },
                "not an entry",
            ],
        }
    }
    bad_har = tmp_path / "x.har"
    bad_har.write_text(json.dumps(har), encoding="utf-8")
    cap = load_captures([bad_jsonl, bad_har])
    s = cap.summary().set_index("source")
    assert s.loc["log.jsonl", ["entries", "read", "lost", "reconciles"]].tolist() == [4, 2, 2, True]
    assert s.loc["x.har", ["entries", "read", "lost", "reconciles"]].tolist() == [2, 1, 1, True]
    lost = cap.problems[cap.problems["exchange_id"].isna()]
    assert sorted(lost["location"]) == ["entry 1", "line 2", "line 4"]
    assert (lost["message"].str.len() > 10).all()


def test_the_same_schema_is_stored_once():
    har = json.loads((DATA / "before-fix" / "capture.har").read_text(encoding="utf-8"))
    n = len(har["log"]["entries"])
    cap = toolkit.load_capture(DATA / "before-fix" / "capture.har")
    assert len(cap.tools) == 2 * n and len(cap.tool_schemas) == 2  # bash and read_image, in every request
    row = cap.tool_schemas.set_index("n_properties").loc[7]
    assert row["uses"] == n
    assert row["schema"]["properties"]["sandbox_permissions"]["enum"] == ["workspace-write", "danger-full-access"]
    assert set(cap.tools.loc[cap.tools["name"] == "bash", "schema_hash"]) == {row["schema_hash"]}


def _plant_secrets(tmp_path) -> Path:
    body = {
        "model": "m",
        "stream": False,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": f"my key is {SECRET}"}]}],
        "tools": [
            {
                "type": "function",
                "name": "bash",
                "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
            }
        ],
    }
    resp = {
        "id": "r",
        "object": "response",
        "status": "completed",
        "model": "m",
        "output": [
            {
                "type": "function_call",
                "id": "fc",
                "call_id": "c",
                "name": "bash",
                "arguments": json.dumps({"command": f"curl -H 'Authorization: Bearer {SECRET}' https://x"}),
            }
        ],
    }
    line = {
        "request": {
            "method": "POST",
            "url": f"http://127.0.0.1/v1/responses?api_key={SECRET}",
            "headers": {"Authorization": f"Bearer {SECRET}", "Cookie": "session=abc"},
            "body": body,
        },
        "response": {"status": 200, "headers": {"set-cookie": "id=1"}, "body": resp},
    }
    p = tmp_path / "secrets.jsonl"
    p.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return p


def _everything(cap) -> str:
    return "\n".join(getattr(cap, n).astype(str).to_csv() for n in FRAME_NAMES)


def test_no_secret_reaches_any_frame_unless_asked(tmp_path):
    p = _plant_secrets(tmp_path)
    cap = toolkit.load_capture(p)
    assert SECRET not in _everything(cap) and "session=abc" not in _everything(cap)
    assert cap.calls.iloc[0]["arguments"]["command"] == "curl -H 'Authorization: Bearer <redacted>' https://x"
    raw = toolkit.load_capture(p, redact=False)
    assert SECRET in _everything(raw)


def test_cli_summary_and_clean_errors(tmp_path):
    exe = [sys.executable, "-m", "toolkit.present.cli"]
    ok = subprocess.run(exe + ["summary", str(DATA)], capture_output=True, text=True, cwd=REPO)
    assert ok.returncode == 0, ok.stderr
    for p in bundled():
        assert p.name in ok.stdout
    assert "reconciles" in ok.stdout
    png = tmp_path / "shot.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20)
    bad = subprocess.run(exe + ["summary", str(png)], capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert (
        bad.stderr.strip()
        == f"agent-contract: error: {png} (byte 0): this is a PNG image, not a capture (one of the formats `agent-contract formats` lists)"
    )


def test_readme_one_liner_works():
    code = "import toolkit; print(toolkit.load_capture('data/before-fix/capture.har').summary())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert "capture.har" in out and "True" in out
    assert code in (REPO / "README.md").read_text(encoding="utf-8")
