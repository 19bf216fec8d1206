"""``triage.errors`` from the error back to its cause: the cause_* columns, on recorded data and on
fixtures built from the recorded DSH run (data/dsh-before-fix) by the smallest change that makes the error."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.analysis.triage import errors
from toolkit.knowledge.openai_strict import check
from toolkit.layers.strict import all_keys_required

DATA = Path(__file__).resolve().parent.parent / "data" / "dsh-before-fix"
# OpenAI's 400 texts as reported (toolkit.knowledge.openai_strict RULES[...].report), for the tools below
ADDITIONAL = "Invalid schema for function 'bash': In context=(), 'additionalProperties' is required to be supplied and to be false."
MISSING_PROPS = (
    "Invalid schema for function 'workflow': In context=('properties', 'args'), object schema missing properties."
)
UNANSWERED = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
    "The following tool_call_ids did not have response messages: call_0001"
)


@pytest.fixture(scope="module")
def har() -> dict:
    return json.loads((DATA / "capture.har").read_text(encoding="utf-8"))


def _error_response(entry: dict, message: str) -> None:
    entry["response"]["status"] = 400
    entry["response"]["statusText"] = "Bad Request"
    entry["response"]["headers"] = [{"name": "content-type", "value": "application/json"}]
    body = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}
    entry["response"]["content"] = {"size": 0, "mimeType": "application/json", "text": json.dumps(body)}


def _jsonl_400(har: dict, tools: list[dict], message: str) -> dict:
    """An entry in the JSONL canonical shape: the recorded request with only ``tools`` sent, answered 400."""
    entry = har["log"]["entries"][1]
    body = json.loads(entry["request"]["postData"]["text"]) | {"tools": tools}
    error = {"error": {"message": message, "type": "invalid_request_error", "param": "tools[0].parameters"}}
    return {
        "id": "req-1",
        "started_at": entry["startedDateTime"],
        "duration_ms": 10.0,
        "request": {"method": "POST", "url": entry["request"]["url"], "headers": {}, "body": body},
        "response": {
            "status": 400,
            "headers": [{"name": "content-type", "value": "application/json"}],
            "body": json.dumps(error),
        },
    }


def _recorded_tool(har: dict, name: str) -> dict:
    body = json.loads(har["log"]["entries"][1]["request"]["postData"]["text"])
    return copy.deepcopy(next(t for t in body["tools"] if t["name"] == name))


def _load_jsonl(tmp_path: Path, entries: list[dict]):
    path = tmp_path / "gateway.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return toolkit.load_capture(path)


def test_empty_justification_points_at_the_call_and_its_strict_state():
    capture = toolkit.load_captures([DATA / "capture.har", DATA / "session.jsonl.zstd"])
    frame = errors(capture)
    row = frame[frame["rule_id"] == "dsh-invalid-justification"].iloc[0]
    assert row["cause_calls"] == ("call_0001",)
    assert row["cause_strict_state"] == "absent"
    assert row["cause_path"] == "$.properties.justification"
    # what the capture says about that call: sent over HTTP, justification "" filled, the field optional
    call = capture.calls[
        (capture.calls["call_id"] == "call_0001") & capture.calls["exchange_id"].str.startswith("capture.har")
    ]
    exchange = call.iloc[0]["exchange_id"]
    assert call.iloc[0]["arguments"]["justification"] == ""
    tools = capture.tools[(capture.tools["exchange_id"] == exchange) & (capture.tools["name"] == "bash")]
    schema = capture.tool_schemas.set_index("schema_hash").loc[tools.iloc[0]["schema_hash"], "schema"]
    assert "justification" in schema["properties"] and "justification" not in schema["required"]
    assert str(tools.iloc[0]["strict_state"]) == row["cause_strict_state"]
    where = capture.exchanges.set_index("exchange_id").loc[exchange]
    assert row["cause_location"].startswith(f"{where['source']} {where['location']}")
    # an error that is not a filled optional field gets no cause
    image = frame[frame["rule_id"] == "dsh-read-image-undeclared"].iloc[0]
    assert pd.isna(image["cause"]) and image["cause_calls"] == ()


def test_strict_400_points_at_the_tool_and_path(har, tmp_path):
    bash = _recorded_tool(har, "bash") | {"strict": True}
    workflow = _recorded_tool(har, "workflow") | {"strict": True}
    workflow["parameters"] = all_keys_required(workflow["parameters"])  # a gateway's all-keys-required pass
    second = _jsonl_400(har, [bash, workflow], MISSING_PROPS) | {"id": "req-2"}
    capture = _load_jsonl(tmp_path, [_jsonl_400(har, [bash], ADDITIONAL), second])
    frame = errors(capture).set_index("message")
    first, nested = frame.loc[ADDITIONAL], frame.loc[MISSING_PROPS]
    assert (first["cause_tool"], first["cause_path"], first["cause_strict_state"]) == ("bash", "$", "true")
    # context=('properties', 'args') in OpenAI's text is $.properties.args in the schema
    assert (nested["cause_tool"], nested["cause_path"]) == ("workflow", "$.properties.args")
    assert nested["cause_path"] in [v.path for v in check(workflow["parameters"], name="workflow")]
    assert "request, tool workflow" in nested["cause_location"]


def test_strict_400_the_schema_does_not_explain(har, tmp_path):
    bash = _recorded_tool(har, "bash") | {"strict": True}
    unexplained = (
        "Invalid schema for function 'bash': In context=('properties', 'command'), 'uniqueItems' is not permitted."
    )
    absent = ADDITIONAL.replace("'bash'", "'shell'")
    capture = _load_jsonl(
        tmp_path, [_jsonl_400(har, [bash], unexplained), _jsonl_400(har, [bash], absent) | {"id": "r2"}]
    )
    frame = errors(capture).set_index("message")
    assert pd.isna(frame.loc[unexplained, "cause_path"])
    assert "finds nothing" in frame.loc[unexplained, "cause"]
    assert "did not send" in frame.loc[absent, "cause"] and frame.loc[absent, "cause_tool"] == "shell"


def test_empty_call_id_points_at_the_streamed_call(har, tmp_path):
    first, second = copy.deepcopy(har["log"]["entries"][1:3])
    content = first["response"]["content"]
    content["text"] = content["text"].replace('"call_id":"call_0001"', '"call_id":""')
    body = json.loads(second["request"]["postData"]["text"])
    for item in body["input"]:
        if item.get("call_id") == "call_0001":
            item["call_id"] = ""
    second["request"]["postData"]["text"] = json.dumps(body)
    _error_response(second, "function_call_output missing call_id")
    path = tmp_path / "empty-id.har"
    path.write_text(json.dumps({"log": {**har["log"], "entries": [first, second]}}), encoding="utf-8")
    capture = toolkit.load_capture(path)
    row = errors(capture).set_index("rule_id").loc["responses-output-missing-call-id"]
    blank = capture.calls[capture.calls["call_id"] == ""].iloc[0]
    where = capture.exchanges.set_index("exchange_id").loc[blank["exchange_id"]]
    assert row["cause_location"] == f"{where['source']} {where['location']} response, output item {blank['item_id']}"
    assert row["cause_tool"] == blank["name"]


def test_unanswered_tool_call_id_points_at_the_call_in_the_history(har, tmp_path):
    entry = copy.deepcopy(har["log"]["entries"][2])
    body = json.loads(entry["request"]["postData"]["text"])
    body["input"] = [i for i in body["input"] if i.get("type") != "function_call_output"]
    entry["request"]["postData"]["text"] = json.dumps(body)
    _error_response(entry, UNANSWERED)
    path = tmp_path / "unanswered.har"
    path.write_text(json.dumps({"log": {**har["log"], "entries": [entry]}}), encoding="utf-8")
    row = errors(toolkit.load_capture(path)).set_index("rule_id").loc["history-tool-result-missing"]
    assert row["cause_calls"] == ("call_0001",)  # the id the 400 names
    index = next(i for i, item in enumerate(body["input"]) if item.get("call_id") == "call_0001")
    assert row["cause_location"].endswith(f"request, input[{index}]")
