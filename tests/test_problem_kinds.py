"""One vocabulary of problem kinds (records.PROBLEM_KINDS), the same fault giving the same kind in every reader."""

from __future__ import annotations

import ast
import base64
import gzip
import json
import re
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, tnet
from test_source_mitm import _flow_state

import toolkit
from toolkit.capture import frames
from toolkit.wire.records import BAD_COMPRESSION, BODY_MISSING, PROBLEM_KINDS, Issue, Problem

# gzip's magic and header, then bytes that are not deflate data
CORRUPT_GZIP = gzip.compress(b'{"object":"response","status":"completed","output":[]}')[:10] + b"\xff" * 20
RESPONSES_REQ = {"model": "m", "input": "hi", "stream": False}


def _har(path: Path) -> Path:
    entry = {
        "startedDateTime": "2026-11-30T09:00:00.000Z",
        "time": 1,
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8787/v1/responses",
            "headers": [],
            "postData": {"mimeType": "application/json", "text": json.dumps(RESPONSES_REQ)},
        },
        "response": {
            "status": 200,
            "headers": [{"name": "content-encoding", "value": "gzip"}],
            "content": {
                "size": 60,
                "mimeType": "application/json",
                "encoding": "base64",
                "text": base64.b64encode(CORRUPT_GZIP).decode(),
            },
        },
    }
    path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "t"}, "entries": [entry]}}))
    return path


def _jsonl(path: Path) -> Path:
    line = {
        "request": {"method": "POST", "url": "http://127.0.0.1:8787/v1/responses", "body": RESPONSES_REQ},
        "response": {
            "status": 200,
            "headers": {"content-encoding": "gzip"},
            "body": base64.b64encode(CORRUPT_GZIP).decode(),
            "body_encoding": "base64",
        },
    }
    path.write_text(json.dumps(line) + "\n")
    return path


def _mitm(path: Path) -> Path:
    state = _flow_state()
    state["response"]["content"] = CORRUPT_GZIP
    path.write_bytes(tnet(state))
    return path


@pytest.mark.parametrize(
    "make,name", [(_har, "capture.har"), (_jsonl, "capture.jsonl"), (_mitm, "flows.mitm")], ids=["har", "jsonl", "mitm"]
)
def test_a_corrupt_gzip_body_is_one_bad_compression_problem_in_every_reader(tmp_path, monkeypatch, make, name):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)  # the native .mitm reader, even where mitmproxy is installed
    cap = toolkit.load_capture(make(tmp_path / name))
    assert len(cap.exchanges) == 1
    assert list(cap.problems["kind"]) == [BAD_COMPRESSION]
    assert cap.problems["exchange_id"].iloc[0] == cap.exchanges["exchange_id"].iloc[0]
    assert "response body" in cap.problems["message"].iloc[0]


def test_problems_kind_is_the_fixed_vocabulary():
    dtype = frames.SCHEMAS["problems"]["kind"]
    assert isinstance(dtype, pd.CategoricalDtype) and list(dtype.categories) == list(PROBLEM_KINDS)
    assert frames.CAPTURE["problems"].mismatches(frames.empty("problems")) == []
    with pytest.raises(ValueError, match="not in"):
        frames.from_rows("problems", [("s", "line 1", "no-such-kind", "m", None)])


def test_a_kind_outside_the_vocabulary_is_a_bug():
    with pytest.raises(ValueError, match="PROBLEM_KINDS"):
        Issue("body-decode", "x")
    with pytest.raises(ValueError, match="PROBLEM_KINDS"):
        Problem("s", "line 1", "bad-line", "x")


def test_every_kind_has_a_name_and_a_one_line_meaning():
    for kind, meaning in PROBLEM_KINDS.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", kind), kind
        assert meaning and "\n" not in meaning and not meaning.endswith("."), kind


def _kind_args() -> list[tuple[str, int, ast.expr]]:
    """(file, line, kind argument) of every Issue(...), Problem(...) and _issue(...) call in toolkit/."""
    out = []
    for path in sorted((REPO / "toolkit").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            index = {"Issue": 0, "_issue": 0, "Problem": 2}.get(name or "")
            if index is None:
                continue
            kw = {k.arg: k.value for k in node.keywords}
            arg = node.args[index] if len(node.args) > index else kw.get("kind")
            if arg is not None:
                out.append((str(path.relative_to(REPO)), node.lineno, arg))
    return out


def test_readers_and_decoders_name_kinds_by_their_constants():
    sites = _kind_args()
    assert len(sites) > 50  # the scan finds the call sites
    literal = [f"{f}:{line} {ast.unparse(a)}" for f, line, a in sites if isinstance(a, ast.Constant)]
    assert literal == []


def test_the_readme_documents_every_kind():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### Bad input", 1)[1].split("\n### ", 1)[0]
    rows = dict(re.findall(r"^\| `([a-z0-9-]+)` \| (.+?) \|$", section, re.M))
    assert rows == PROBLEM_KINDS


def _har_streamed_body_not_kept(path: Path) -> Path:
    _har(path)
    doc = json.loads(path.read_text())
    doc["log"]["entries"][0]["response"]["headers"] = [{"name": "content-type", "value": "text/event-stream"}]
    doc["log"]["entries"][0]["response"]["content"] = {"size": 900, "mimeType": "text/event-stream", "text": ""}
    path.write_text(json.dumps(doc))
    return path


def _jsonl_streamed_body_not_kept(path: Path) -> Path:
    line = {
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8787/v1/responses",
            "body": {**RESPONSES_REQ, "stream": True},
        },
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}, "body": ""},
    }
    path.write_text(json.dumps(line) + "\n")
    return path


def _mitm_streamed_body_not_kept(path: Path) -> Path:
    state = _flow_state()
    state["response"]["content"] = None  # flow.response.stream = True without the tee addon
    path.write_bytes(tnet(state))
    return path


@pytest.mark.parametrize(
    "make,name",
    [
        (_har_streamed_body_not_kept, "capture.har"),
        (_jsonl_streamed_body_not_kept, "capture.jsonl"),
        (_mitm_streamed_body_not_kept, "flows.mitm"),
    ],
    ids=["har", "jsonl", "mitm"],
)
def test_a_streamed_body_the_recorder_did_not_keep_is_one_body_missing_problem(tmp_path, monkeypatch, make, name):
    monkeypatch.setitem(sys.modules, "mitmproxy", None)
    cap = toolkit.load_capture(make(tmp_path / name))
    assert len(cap.exchanges) == 1
    assert list(cap.problems["kind"]) == [BODY_MISSING]
