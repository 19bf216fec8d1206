"""Nothing lost without a word (issue 27 §3): where a damaged part of a file drops a count (a call, an
exchange, an event, a tool result, the tools), a problem row says what was lost and where, and the
summary reconciles only when every record of the file is accounted for.

Each case takes one of the project's own files, applies in code the damage a fuzz campaign found lost
silently, and checks the problem row, the counts of the undamaged parts, and the reconciliation."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import tnet

from toolkit.capture.load import load_capture
from toolkit.errors import CaptureError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _load(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return load_capture(path, progress=False)


def _row(cap) -> dict:
    (row,) = cap.summary().to_dict("records")
    return row


def _problems(cap) -> set[tuple[str, str]]:
    return set(zip(cap.problems["location"], cap.problems["kind"]))


# ---- Chat Completions body: a `message` that is not an object -------------------------------------


def test_chat_message_that_is_a_number_is_a_problem(tmp_path):
    body = json.loads((FIXTURES / "response-body" / "chat_completion.json").read_text())
    whole = _row(_load(tmp_path, "whole.json", json.dumps(body).encode()))
    assert whole["calls"] == 1 and whole["problems"] == 0
    body["choices"][0]["message"] = 7
    cap = _load(tmp_path, "damaged.json", json.dumps(body).encode())
    row = _row(cap)
    assert (row["exchanges"], row["calls"], row["reconciles"]) == (1, 0, True)
    assert _problems(cap) == {("byte 0", "response-body")}
    assert "`message` is a number" in cap.problems["message"].iloc[0]


def test_chat_tool_call_that_is_a_number_is_a_problem(tmp_path):
    body = json.loads((FIXTURES / "response-body" / "chat_completion.json").read_text())
    body["choices"][0]["message"]["tool_calls"].insert(0, 5)
    cap = _load(tmp_path, "damaged.json", json.dumps(body).encode())
    row = _row(cap)
    assert (row["calls"], row["reconciles"]) == (1, True)  # the undamaged call is kept
    assert _problems(cap) == {("byte 0", "response-body")}
    assert "tool_calls[0] is a number" in cap.problems["message"].iloc[0]


# ---- Codex rollout: lines whose meaning is damaged --------------------------------------------------


def _rollout_with(tmp_path: Path, seed: str, ptype: str, damage) -> tuple[dict, object, int]:
    """The seed rollout with the first line whose payload type is ``ptype`` damaged by ``damage(obj)``
    (which returns the new line text); the whole file's summary, the damaged capture, the line number."""
    text = (FIXTURES / "codex" / seed).read_text()
    lines = text.splitlines()
    whole = _row(_load(tmp_path, "whole.jsonl", text.encode()))
    for i, line in enumerate(lines):
        obj = json.loads(line)
        payload = obj.get("payload")
        if ((payload.get("type") if isinstance(payload, dict) else None) or obj["type"]) == ptype:
            lines[i] = damage(obj)
            cap = _load(tmp_path, "damaged.jsonl", ("\n".join(lines) + "\n").encode())
            return whole, cap, i + 1
    raise AssertionError(f"{seed} has no {ptype} line")


def _set(path: tuple, value):
    def damage(obj):
        target = obj
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return json.dumps(obj)

    return damage


def _bad_field_at(cap, line: int) -> str:
    probs = cap.problems
    hit = probs[(probs["location"] == f"line {line}") & (probs["kind"] == "bad-field")]
    assert len(hit) == 1, probs[["location", "kind", "message"]].to_dict("records")
    return hit["message"].iloc[0]


def test_codex_payload_type_null_is_a_problem(tmp_path):
    whole, cap, line = _rollout_with(
        tmp_path, "danger-full-access-legacy.jsonl", "function_call", _set(("payload", "type"), None)
    )
    row = _row(cap)
    assert row["calls"] == whole["calls"] - 1  # the damaged call is lost, and the row says so
    assert "payload type is a null" in _bad_field_at(cap, line)
    assert row["problems"] == whole["problems"] + 1 and row["reconciles"]


def test_codex_unknown_item_type_is_a_problem(tmp_path):
    _whole, cap, line = _rollout_with(
        tmp_path,
        "danger-full-access-legacy.jsonl",
        "function_call_output",
        _set(("payload", "type"), "fution_call_output"),
    )
    assert len(cap.tool_results) == 2  # of 3: the damaged one is lost, the others kept
    assert "'fution_call_output' is not one the reader knows" in _bad_field_at(cap, line)
    assert _row(cap)["reconciles"]


def test_codex_unknown_line_type_is_a_problem(tmp_path):
    whole, cap, line = _rollout_with(
        tmp_path, "workspace-write-approved.jsonl", "reasoning", _set(("type",), "re[ponse_item")
    )
    assert "'re[ponse_item' is not one Codex writes" in _bad_field_at(cap, line)
    assert _row(cap)["events"] == whole["events"]  # the line itself is still an event


def test_codex_call_id_that_is_a_number_is_a_problem(tmp_path):
    whole, cap, line = _rollout_with(
        tmp_path, "danger-full-access-legacy.jsonl", "function_call", _set(("payload", "call_id"), 1.5)
    )
    row = _row(cap)
    assert row["calls"] == whole["calls"] and row["events"] == whole["events"] - 1  # its tool/call event
    assert "call_id is a number" in _bad_field_at(cap, line)


def test_codex_turn_context_without_sandbox_policy_is_a_problem(tmp_path):
    def damage(obj):
        obj["payload"]["sa\\udc00xndbox_policy"] = obj["payload"].pop("sandbox_policy")
        return json.dumps(obj)

    whole, cap, line = _rollout_with(tmp_path, "danger-full-access-legacy.jsonl", "turn_context", damage)
    assert _row(cap)["events"] == whole["events"] - 1  # its sandbox/mode event
    assert "turn_context without sandbox_policy" in _bad_field_at(cap, line)


# ---- HAR: a damaged structure that closes "log" before its entries ----------------------------------


def test_har_without_its_creator_line_is_an_error_not_zero_entries(tmp_path):
    lines = (ROOT / "data" / "after-fix" / "capture.har").read_text().splitlines(keepends=True)
    whole = _row(_load(tmp_path, "whole.har", "".join(lines).encode()))
    assert whole["entries"] == 2 and whole["reconciles"]
    creator = next(i for i, line in enumerate(lines) if line.strip() == '"creator": {')
    damaged = "".join(lines[:creator] + lines[creator + 1 :]).encode()
    with pytest.raises(CaptureError, match='"log" ends without an "entries" array') as err:
        _load(tmp_path, "damaged.har", damaged)
    closed = damaged.index(b"}", damaged.index(b'"version": "11.0.2"'))  # creator's brace now closes "log"
    assert err.value.location == f"byte {closed}"


# ---- JSONL exchange log: a request body that is null -------------------------------------------------


def test_jsonl_request_body_null_is_a_problem(tmp_path):
    text = (ROOT / "data" / "litellm-responses-to-chat" / "gateway.jsonl").read_text()
    lines = text.splitlines()
    whole = _row(_load(tmp_path, "whole.jsonl", text.encode()))
    damaged = next(i for i, line in enumerate(lines) if (json.loads(line)["request"].get("body") or {}).get("tools"))
    obj = json.loads(lines[damaged])
    tools = len(obj["request"]["body"]["tools"])
    obj["request"]["body"] = None
    lines[damaged] = json.dumps(obj)
    cap = _load(tmp_path, "damaged.jsonl", ("\n".join(lines) + "\n").encode())
    row = _row(cap)
    assert row["tools"] == whole["tools"] - tools and row["exchanges"] == whole["exchanges"]
    assert _problems(cap) == {(f"line {damaged + 1}", "body-missing")}
    assert "request body is null" in cap.problems["message"].iloc[0]
    assert row["reconciles"] and whole["problems"] == 0  # the GETs before it, which send no body, say nothing


# ---- mitmproxy flows: a response that is not an object ----------------------------------------------


def test_mitm_response_that_is_a_boolean_is_a_problem(tmp_path, monkeypatch):
    from toolkit.wire.tnetstring import parse

    monkeypatch.setitem(sys.modules, "mitmproxy", None)  # the toolkit's own flow reader, as without mitmproxy
    data, pos, flows = (FIXTURES / "mitm" / "mitmproxy-6.0.2.mitm").read_bytes(), 0, []
    while pos < len(data):
        state, pos = parse(data, pos)
        flows.append(state)
    whole = _row(_load(tmp_path, "whole.mitm", b"".join(tnet(f) for f in flows)))
    assert (whole["exchanges"], whole["calls"], whole["problems"]) == (2, 2, 0)
    flows[1]["response"] = False
    cap = _load(tmp_path, "damaged.mitm", b"".join(tnet(f) for f in flows))
    row = _row(cap)
    assert (row["exchanges"], row["calls"], row["reconciles"]) == (2, 1, True)  # flow 0 keeps its call
    assert ("flow 1", "bad-field") in _problems(cap)
    assert "response is a boolean, not an object" in " ".join(cap.problems["message"])


# ---- Ruby VCR cassette: cut off inside an interaction's response headers -----------------------------


def test_ruby_vcr_cut_inside_response_headers_is_a_problem(tmp_path):
    lines = (FIXTURES / "ruby-vcr" / "openai.yaml").read_text().splitlines(keepends=True)
    whole = _row(_load(tmp_path, "whole.yaml", "".join(lines).encode()))
    assert (whole["exchanges"], whole["calls"], whole["problems"]) == (2, 2, 0)
    last_response = max(i for i, line in enumerate(lines) if line == "  response:\n")
    headers = next(i for i in range(last_response, len(lines)) if lines[i] == "    headers:\n")
    cap = _load(tmp_path, "cut.yaml", "".join(lines[: headers + 3]).encode())  # inside the headers
    row = _row(cap)
    assert (row["exchanges"], row["calls"], row["reconciles"]) == (2, 1, True)  # interaction 0 is whole
    assert _problems(cap) == {("interaction 1", "body-missing")}
    assert cap.problems["message"].iloc[0].startswith("response has no body")


# ---- DSH session log: a BOM, then a blank line, then the header --------------------------------------


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "zstd"])
def test_dsh_session_with_a_bom_and_a_blank_first_line_reads_whole(tmp_path, compressed):
    import zstandard

    with (ROOT / "data" / "dsh-before-fix" / "session.jsonl.zstd").open("rb") as f:
        raw = zstandard.ZstdDecompressor().stream_reader(f).read()
    pack = zstandard.ZstdCompressor().compress if compressed else bytes
    suffix = ".jsonl.zstd" if compressed else ".jsonl"
    whole = _row(_load(tmp_path, "whole" + suffix, pack(raw)))
    assert whole["entries"] > 0 and whole["reconciles"]
    cap = _load(tmp_path, "bom" + suffix, pack(b"\xef\xbb\xbf\n" + raw))
    assert _row(cap) == {**whole, "source": _row(cap)["source"]}


# ---- go-vcr cassette: a request whose body line is gone ---------------------------------------------


def test_go_vcr_request_without_its_body_line_is_a_problem(tmp_path):
    lines = (FIXTURES / "go-vcr" / "openai.yaml").read_text().splitlines(keepends=True)
    whole = _row(_load(tmp_path, "whole.yaml", "".join(lines).encode()))
    assert (whole["tools"], whole["problems"]) == (2, 0)
    body = next(i for i, line in enumerate(lines) if line.startswith('    body: \'{"model"'))  # the first request's
    cap = _load(tmp_path, "damaged.yaml", "".join(lines[:body] + lines[body + 1 :]).encode())
    row = _row(cap)
    assert (row["exchanges"], row["tools"], row["calls"], row["reconciles"]) == (2, 1, 2, True)
    assert _problems(cap) == {("interaction 0", "body-missing")}
    assert cap.problems["message"].iloc[0].startswith("request has no body")


# ---- VCR.py cassettes: a tool call that is a number, a request without its body ----------------------


def _vcr_py(tmp_path: Path, fixture: str, damage) -> tuple[dict, object]:
    import yaml

    text = (FIXTURES / "vcr" / fixture).read_text()
    whole = _row(_load(tmp_path, "whole.yaml", text.encode()))
    doc = yaml.safe_load(text)
    damage(doc["interactions"])
    return whole, _load(tmp_path, "damaged.yaml", yaml.safe_dump(doc, allow_unicode=True).encode())


def test_vcr_py_parsed_tool_call_that_is_a_number_is_a_problem(tmp_path):
    def damage(items):
        items[1]["response"]["parsed_body"]["choices"][0]["message"]["tool_calls"][0] = 3

    whole, cap = _vcr_py(tmp_path, "openai_parsed_body.yaml", damage)
    row = _row(cap)
    assert (whole["calls"], row["calls"], row["exchanges"], row["reconciles"]) == (2, 1, 2, True)
    assert _problems(cap) == {("interaction 1", "response-body")}


def test_vcr_py_request_without_its_body_is_a_problem(tmp_path):
    def damage(items):
        del items[0]["request"]["body"]

    whole, cap = _vcr_py(tmp_path, "openai_raw.yaml", damage)
    row = _row(cap)
    assert (whole["tools"], row["tools"], row["calls"], row["reconciles"]) == (2, 1, whole["calls"], True)
    assert _problems(cap) == {("interaction 0", "body-missing")}


def test_jsonl_response_body_key_damaged_is_a_problem(tmp_path):
    text = (ROOT / "data" / "litellm-before-fix" / "gateway.jsonl").read_text()
    lines = text.splitlines()
    whole = _row(_load(tmp_path, "whole.jsonl", text.encode()))
    damaged = next(i for i, line in enumerate(lines) if "function_call_arguments.done" in line)
    obj = json.loads(lines[damaged])
    obj["response"]["b2dy"] = obj["response"].pop("body")  # one flipped byte in the key
    lines[damaged] = json.dumps(obj)
    cap = _load(tmp_path, "damaged.jsonl", ("\n".join(lines) + "\n").encode())
    row = _row(cap)
    assert whole["calls"] >= 1 and row["calls"] == whole["calls"] - 1 and row["tools"] == whole["tools"]
    assert _problems(cap) == {(f"line {damaged + 1}", "body-missing")}
    assert "response body is absent" in cap.problems["message"].iloc[0]


# ---- Responses body: an output item whose type key is damaged -----------------------------------------


def test_responses_output_item_without_a_type_is_a_problem(tmp_path):
    body = json.loads((FIXTURES / "response-body" / "responses_function_call.json").read_text())
    whole = _row(_load(tmp_path, "whole.json", json.dumps(body).encode()))
    assert whole["calls"] >= 1 and whole["problems"] == 0
    i = next(i for i, item in enumerate(body["output"]) if item["type"] == "function_call")
    body["output"][i]["tyQ;Wpe"] = body["output"][i].pop("type")  # bytes inserted into the key
    cap = _load(tmp_path, "damaged.json", json.dumps(body).encode())
    row = _row(cap)
    assert (row["calls"], row["reconciles"]) == (whole["calls"] - 1, True)
    assert _problems(cap) == {("byte 0", "response-body")}
    assert f"output[{i}] has no type" in cap.problems["message"].iloc[0]


def test_ruby_vcr_body_that_is_a_list_is_a_problem(tmp_path):
    import yaml

    text = (FIXTURES / "ruby-vcr" / "openai.yaml").read_text()
    whole = _row(_load(tmp_path, "whole.yaml", text.encode()))
    doc = yaml.safe_load(text)
    doc["http_interactions"][1]["response"]["body"] = [doc["http_interactions"][1]["response"]["body"]]
    cap = _load(tmp_path, "damaged.yaml", yaml.safe_dump(doc, allow_unicode=True).encode())
    row = _row(cap)
    assert (whole["calls"], row["calls"], row["exchanges"], row["reconciles"]) == (2, 1, 2, True)
    assert ("interaction 1", "bad-body") in _problems(cap)
    assert "response body is a" in " ".join(cap.problems["message"])


@pytest.mark.parametrize(
    ("fmt", "seed", "where_file"),
    [("har", "data/after-fix/capture.har", "byte 9999"), ("jsonl", "data/after-fix/gateway.jsonl", "file")],
)
@pytest.mark.parametrize("said", [False, True], ids=["lost-silently", "lost-with-a-problem"])
def test_a_problem_outside_every_entry_does_not_stand_for_a_lost_entry(fmt, seed, where_file, said):
    """The counts reconcile when every entry is read or has a problem at its own place: a problem about the
    file as a whole (trailing bytes, a cut) is no account of an entry, so with one entry gone without a word
    the file does not reconcile, however many problems the file has elsewhere."""
    from toolkit.capture.load import Builder
    from toolkit.sources import detect
    from toolkit.wire.records import BAD_ENTRY, Decoded, Problem

    records = list(detect.reader_for(fmt)(ROOT / seed, "seed"))
    lost = [r for r in records if isinstance(r, Decoded)][-1]
    b = Builder(redact=True)
    for r in records:
        if r is not lost:
            b.add(r, fmt)
    b.add(Problem("seed", where_file, BAD_ENTRY, "bytes after the end of the document"), fmt)
    if said:
        b.add(Problem("seed", lost.exchange.location, BAD_ENTRY, "this entry could not be read"), fmt)
    row = b.build().summary().iloc[0]
    assert (row["read"], bool(row["reconciles"])) == (row["entries"] - 1, said)


@pytest.mark.parametrize("before_it", ['"x" * 3000', "a value 1,000 levels deep"])
def test_a_response_body_whose_object_key_comes_late_is_read_as_its_api(tmp_path, before_it):
    """A saved response body names its API in ``object``; a long or deep value before it pushed that key past the head
    the decoder sniffs, and the body was read as no API, its call lost without a word (fuzz seed 2701,
    response-body:84). The reader now tells the decoder the API the file names."""
    import re

    seed = FIXTURES / "response-body/responses_function_call.json"
    text = seed.read_text(encoding="utf-8")
    key = re.search(r'"object"\s*:\s*"response"\s*,', text)
    assert key is not None and key.start() < 2000
    value = json.dumps("x" * 3000) if before_it.startswith('"x"') else "[" * 1000 + "]" * 1000
    cap = _load(
        tmp_path, "late.json", (text[: key.start()] + f'"metadata_x": {value}, ' + text[key.start() :]).encode()
    )
    before = load_capture(seed, progress=False)
    assert cap.problems.empty and before.problems.empty
    assert (len(cap.calls), cap.exchanges.api.tolist()) == (len(before.calls), before.exchanges.api.tolist())
