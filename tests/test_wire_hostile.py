"""The wire decoders under hostile values (issue 27, the seed-27 fuzz findings and their kin): a value of the
wrong JSON type, a huge number or a deeply nested value where the Chat, Responses, error-envelope and DSH
session decoders read a field becomes a problem row naming the field, never a crash, and nothing else of
the file is lost.

Each case takes one of the project's own files (tests/fixtures/wire/*.sse, tests/fixtures/response-body/
*.json, data/*/session.jsonl.zstd), applies in code the damage a fuzz campaign (or a reading of the
decoders) found, and checks the problem row (its kind, the words naming the field) and what is kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import zstandard

from toolkit.capture.load import load_capture
from toolkit.wire import chat, dsh_records, envelopes, responses
from toolkit.wire.records import Decoded, Problem
from toolkit.wire.values import what_is_wrong

ROOT = Path(__file__).resolve().parent.parent
WIRE = ROOT / "tests" / "fixtures" / "wire"
BODIES = ROOT / "tests" / "fixtures" / "response-body"
SESSION = ROOT / "data" / "dsh-before-fix" / "session.jsonl.zstd"

HUGE_INT = "9" * 400  # past int64, and past a float: Python's json reads it as a 400-digit int
HUGE_FLOAT = "1e400"  # infinity to Python's json
DEEP = "[" * 1000 + "]" * 1000  # within MAX_JSON_DEPTH, past what json.dumps / repr recurse through
# how the decoders name a value that does not fit (one wording, toolkit.wire.values.what_is_wrong)
A_LIST, A_DICT = what_is_wrong([]), what_is_wrong({})

_raw: dict[str, str] = {}


def raw(text: str) -> str:
    """A stand-in for JSON text that ``json.dumps`` cannot write (``1e400``, 400 digits, 1,000-deep):
    put it where the value goes, ``dumps`` below writes the text itself there."""
    key = f"\x00RAW{len(_raw)}\x00"
    _raw[key] = text
    return key


def dumps(obj: Any) -> str:
    text = json.dumps(obj, ensure_ascii=False)
    for key, value in _raw.items():
        text = text.replace(json.dumps(key), value)
    return text


def _load(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return load_capture(path, progress=False)


def _sse(name: str, mutate: Callable[[int, dict[str, Any]], None] | None = None) -> bytes:
    """A fixture stream with ``mutate(i, payload)`` applied to the i-th JSON data frame."""
    frames = (WIRE / name).read_text().split("\n\n")
    out, i = [], 0
    for frame in frames:
        lines = frame.split("\n")
        for j, line in enumerate(lines):
            if line.startswith("data: {"):
                payload = json.loads(line[6:])
                if mutate is not None:
                    mutate(i, payload)
                lines[j] = "data: " + dumps(payload)
                i += 1
        out.append("\n".join(lines))
    return "\n\n".join(out).encode()


def _problems(cap) -> list[tuple[str, str]]:
    return list(zip(cap.problems["kind"], cap.problems["message"]))


def _one(cap, kind: str, *words: str) -> str:
    """The one problem row of ``kind``; each of ``words`` is in its message."""
    rows = [m for k, m in _problems(cap) if k == kind]
    assert len(rows) == 1, _problems(cap)
    for w in words:
        assert w in rows[0], (w, rows[0])
    return rows[0]


# ---- Chat Completions stream -------------------------------------------------------------------------


def test_chat_stream_tool_calls_that_are_infinity_are_a_problem_not_a_crash(tmp_path):
    """sse:463: ``choices[0].delta.tool_calls`` = 1e400 raised TypeError in ChatStream.feed."""
    whole = _load(tmp_path, "whole.sse", _sse("chat_call.sse"))
    assert len(whole.calls) == 1 and whole.problems.empty

    def damage(i, p):
        if i == 2:  # the last arguments piece
            p["choices"][0]["delta"]["tool_calls"] = raw(HUGE_FLOAT)

    cap = _load(tmp_path, "damaged.sse", _sse("chat_call.sse", damage))
    _one(cap, "response-body", "choices[0].delta `tool_calls`", "number", "lost")
    (call,) = cap.calls.to_dict("records")
    assert (call["call_id"], call["name"]) == ("call_local_0001", "bash")  # the call and its first piece stay
    ex = cap.exchanges.iloc[0]
    assert (ex["terminal"], ex["input_tokens"], ex["output_tokens"]) == ("completed", 42, 17)


def test_chat_stream_tool_call_index_of_400_digits_is_a_problem(tmp_path):
    """A 400-digit ``tool_calls[].index`` keyed a call of its own, without a word."""

    def damage(i, p):
        if i == 1:
            p["choices"][0]["delta"]["tool_calls"][0]["index"] = raw(HUGE_INT)

    cap = _load(tmp_path, "damaged.sse", _sse("chat_call.sse", damage))
    _one(cap, "bad-field", "tool_calls[0] index", what_is_wrong(int(HUGE_INT)))
    assert len(cap.calls) == 1  # the piece without an index continues the last call, as a client reads it


def test_chat_stream_usage_of_infinity_is_a_problem(tmp_path):
    def damage(i, p):
        if p.get("usage"):
            p["usage"]["prompt_tokens"] = raw(HUGE_FLOAT)

    cap = _load(tmp_path, "damaged.sse", _sse("chat_call.sse", damage))
    _one(cap, "bad-field", "usage prompt_tokens", "inf")
    ex = cap.exchanges.iloc[0]
    assert ex["output_tokens"] == 17 and len(cap.calls) == 1


# ---- Responses stream --------------------------------------------------------------------------------


def _terminal(mutate: Callable[[dict[str, Any]], None]) -> Callable[[int, dict[str, Any]], None]:
    def damage(i, p):
        if p.get("type") == "response.completed":
            mutate(p["response"])

    return damage


def test_responses_stream_output_of_400_digits_is_a_problem_not_a_crash(tmp_path):
    """sse:535: the terminal ``response.output`` = a 400-digit integer raised TypeError in _adopt_output."""
    cap = _load(
        tmp_path, "damaged.sse", _sse("responses_call.sse", _terminal(lambda r: r.update(output=raw(HUGE_INT))))
    )
    _one(cap, "response-body", "terminal response `output`", "not a list")
    (call,) = cap.calls.to_dict("records")  # output_item.done already finished it
    assert (call["call_id"], call["name"], call["complete"]) == ("call_local_0001", "bash", True)
    assert cap.exchanges.iloc[0]["terminal"] == "completed"


def test_responses_stream_usage_of_400_digits_names_the_usage_field(tmp_path):
    cap = _load(
        tmp_path,
        "damaged.sse",
        _sse("responses_call.sse", _terminal(lambda r: r["usage"].update(input_tokens=raw(HUGE_INT)))),
    )
    _one(cap, "bad-field", "usage input_tokens", what_is_wrong(int(HUGE_INT)))
    ex = cap.exchanges.iloc[0]
    assert pd.isna(ex["input_tokens"])
    assert ex["output_tokens"] == 17 and len(cap.calls) == 1


def test_responses_stream_model_that_is_a_list_is_a_problem(tmp_path):
    cap = _load(tmp_path, "damaged.sse", _sse("responses_call.sse", _terminal(lambda r: r.update(model=["x"]))))
    _one(cap, "bad-field", "response model", A_LIST)
    assert len(cap.calls) == 1


def test_responses_stream_item_name_that_is_a_list_is_a_problem(tmp_path):
    def damage(i, p):
        if p.get("type") == "response.output_item.done":
            p["item"]["name"] = ["bash"]

    cap = _load(tmp_path, "damaged.sse", _sse("responses_call.sse", damage))
    _one(cap, "bad-field", "output_item.done item name", A_LIST)
    (call,) = cap.calls.to_dict("records")
    assert call["name"] == "bash"  # the name output_item.added gave it stays


@pytest.mark.parametrize("field", ["code", "message"])
def test_responses_error_event_with_a_deep_field_is_a_problem_not_a_crash(tmp_path, field):
    """sse:93 / sse:597: a 1,000-deep ``code`` or ``message`` raised RecursionError while json-encoding it."""
    whole = _load(tmp_path, "whole.sse", _sse("responses_error_event.sse")).exchanges.iloc[0]

    def damage(i, p):
        if p.get("type") == "error":
            p[field] = raw(DEEP)

    cap = _load(tmp_path, "damaged.sse", _sse("responses_error_event.sse", damage))
    message = _one(cap, "bad-field", f"error field `{field}`", f"{A_LIST} nested deeper than MAX_ERROR_VALUE_DEPTH")
    assert len(message) < 200  # described, not repeated
    ex = cap.exchanges.iloc[0]
    assert ex["terminal"] == "failed"
    assert pd.isna(ex[f"error_{field}"])
    other = "message" if field == "code" else "code"
    assert ex[f"error_{other}"] == whole[f"error_{other}"] and whole[f"error_{other}"]


def test_error_fields_keep_a_small_object_as_its_json():
    """A gateway's nested ``message`` object stays readable as its JSON text, as before."""
    unfit: list[str] = []
    assert envelopes.error_fields({"error": {"code": 429, "message": {"b": 1, "a": [2]}}}, unfit) == (
        None,
        "429",
        '{"a": [2], "b": 1}',
    )
    assert unfit == []


def test_error_body_with_a_value_of_too_many_items_is_left_empty_and_named():
    unfit: list[str] = []
    body = dumps({"error": {"type": "server_error", "message": list(range(5000))}})
    assert envelopes.decode_error_body(body, unfit) == ("server_error", None, None)
    assert unfit == [
        f"error field `error.message`: {A_LIST} of more than MAX_ERROR_VALUE_ITEMS (1000) values; left empty"
    ]


# ---- response bodies ---------------------------------------------------------------------------------


def _body(name: str, mutate: Callable[[dict[str, Any]], None]) -> bytes:
    body = json.loads((BODIES / name).read_text())
    mutate(body)
    return dumps(body).encode()


def test_responses_body_output_that_is_an_object_is_a_problem(tmp_path):
    """response-body:254 (SILENT): ``output`` = ``{}`` lost the call without a problem row."""
    whole = _load(tmp_path, "whole.json", _body("responses_function_call.json", lambda b: None))
    assert len(whole.calls) == 1
    cap = _load(tmp_path, "damaged.json", _body("responses_function_call.json", lambda b: b.update(output={})))
    _one(cap, "response-body", "`output` is a JSON object, not a list", "lost")
    ex, was = cap.exchanges.iloc[0], whole.exchanges.iloc[0]
    assert (ex["terminal"], ex["input_tokens"], ex["model"]) == (was["terminal"], was["input_tokens"], was["model"])


def test_responses_body_function_call_name_that_is_a_list_is_a_problem(tmp_path):
    def damage(b):
        b["output"][0]["name"] = ["bash"]

    cap = _load(tmp_path, "damaged.json", _body("responses_function_call.json", damage))
    _one(cap, "bad-field", "output[0] name", A_LIST)
    (call,) = cap.calls.to_dict("records")
    assert call["call_id"] == "call_0003" and call["arguments"] is not None


def test_responses_body_model_that_is_a_list_is_a_problem(tmp_path):
    cap = _load(tmp_path, "damaged.json", _body("responses_function_call.json", lambda b: b.update(model=["m"])))
    _one(cap, "bad-field", "response model", A_LIST)
    assert len(cap.calls) == 1


@pytest.mark.parametrize("value", [HUGE_FLOAT, HUGE_INT])
def test_chat_body_usage_that_does_not_fit_names_the_usage_field(tmp_path, value):
    """Usage of ``1e400`` was emptied without a word; 400 digits were named only as the column."""
    cap = _load(
        tmp_path,
        "damaged.json",
        _body("chat_completion.json", lambda b: b["usage"].update(prompt_tokens=raw(value))),
    )
    _one(cap, "bad-field", "usage prompt_tokens", "not an integer; left empty")
    ex = cap.exchanges.iloc[0]
    assert (
        ex["output_tokens"] == json.loads((BODIES / "chat_completion.json").read_text())["usage"]["completion_tokens"]
    )
    assert len(cap.calls) == 1


def test_chat_body_tool_calls_that_are_infinity_are_a_problem_not_a_crash(tmp_path):
    def damage(b):
        b["choices"][0]["message"]["tool_calls"] = raw(HUGE_FLOAT)

    cap = _load(tmp_path, "damaged.json", _body("chat_completion.json", damage))
    _one(cap, "response-body", "`tool_calls` is a JSON number, not a list")
    assert cap.exchanges.iloc[0]["terminal"] == "completed"


# ---- request bodies (the decoders themselves) --------------------------------------------------------


def test_responses_request_tool_name_and_model_that_are_lists_are_issues():
    body = json.loads((WIRE / "responses_request.json").read_text())
    before = responses.decode_request(body)
    assert before.issues == [] and before.tools
    body["model"], body["tools"][0]["name"] = ["m"], ["bash"]
    info = responses.decode_request(body)
    assert [(i.kind, i.message) for i in info.issues] == [
        ("bad-field", f"request model: {A_LIST}, not text; left empty"),
        ("bad-field", f"tools[0] name: {A_LIST}, not text; left empty"),
    ]
    assert len(info.tools) == len(before.tools) and len(info.inputs) == len(before.inputs)


def test_chat_request_function_name_that_is_a_list_is_an_issue():
    body = json.loads((WIRE / "chat_request.json").read_text())
    before = chat.decode_request(body)
    assert before.issues == [] and before.tools
    body["tools"][0]["function"]["name"] = {"a": 1}
    info = chat.decode_request(body)
    assert [(i.kind, i.message) for i in info.issues] == [
        ("bad-field", f"tools[0] name: {A_DICT}, not text; left empty")
    ]
    assert len(info.tools) == len(before.tools)


# ---- DSH session logs --------------------------------------------------------------------------------


def _session(mutate: Callable[[dict[str, Any]], bool]) -> bytes:
    """The session log with ``mutate`` applied to the first line it accepts (returns True for)."""
    with zstandard.ZstdDecompressor().stream_reader(SESSION.open("rb"), read_across_frames=True) as r:
        lines = r.read().split(b"\n")  # DSH writes a frame per flush: read across them
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        obj = json.loads(line)
        if mutate(obj):
            lines[n] = dumps(obj).encode()
            break
    else:
        raise AssertionError("no line to damage")
    return zstandard.ZstdCompressor().compress(b"\n".join(lines))


def _counts(cap) -> tuple[int, int, int]:
    return len(cap.exchanges), len(cap.calls), len(cap.events)


def test_dsh_tool_call_id_that_is_an_object_is_a_problem_not_a_crash(tmp_path):
    """dsh-session:92: ``data.callId`` an object raised TypeError (unhashable) in _on_event."""
    whole = _load(tmp_path, "whole.jsonl.zstd", SESSION.read_bytes())

    def damage(obj):
        if obj.get("type") == "tool/call":
            obj["data"]["callId"] = {"a": 1}
            return True
        return False

    cap = _load(tmp_path, "damaged.jsonl.zstd", _session(damage))
    rows = [m for k, m in _problems(cap) if k == "bad-field"]
    assert len(rows) == 1 and f"tool/call callId: {A_DICT}, not text" in rows[0]
    exchanges, calls, events = _counts(cap)
    assert (exchanges, events) == _counts(whole)[::2]
    assert calls >= len(whole.calls)  # the logged call is kept (without its id)


def test_dsh_usage_of_infinity_is_a_problem(tmp_path):
    whole = _load(tmp_path, "whole.jsonl.zstd", SESSION.read_bytes())

    def damage(obj):
        if obj.get("type") == "assistant/message":  # its usage is the step's (it follows the usage chunk)
            obj["data"]["usage"]["inputTokens"] = raw(HUGE_FLOAT)
            return True
        return False

    cap = _load(tmp_path, "damaged.jsonl.zstd", _session(damage))
    _one(cap, "bad-field", "usage inputTokens", "the number inf")
    assert _counts(cap) == _counts(whole)
    assert cap.exchanges["output_tokens"].tolist() == whole.exchanges["output_tokens"].tolist()


def test_dsh_model_call_id_that_is_an_object_is_a_problem_not_a_crash(tmp_path):
    whole = _load(tmp_path, "whole.jsonl.zstd", SESSION.read_bytes())

    def damage(obj):
        if obj.get("type") == "assistant/message":
            for part in obj["data"]["message"]["content"]:
                if part.get("type") == "tool-call":
                    part["id"] = [1]
                    return True
        return False

    cap = _load(tmp_path, "damaged.jsonl.zstd", _session(damage))
    assert any(k == "bad-field" and f"assistant/message tool-call id: {A_LIST}" in m for k, m in _problems(cap))
    exchanges, calls, events = _counts(cap)
    assert (exchanges, events) == _counts(whole)[::2]
    assert calls >= len(whole.calls)  # no call is lost (the model's, without its id, no longer joins DSH's)


def test_dsh_finish_reason_that_is_deep_is_described_not_repeated():
    lines = [
        (1, '{"type":"session","version":0}'),
        (2, '{"type":"step/start","data":{"turn":1,"step":1}}'),
        (
            3,
            '{"type":"assistant/chunk","data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":'
            + DEEP
            + "}}}}",
        ),
        (4, '{"type":"step/end","data":{"turn":1,"step":1}}'),
    ]
    (step,) = [r for r in dsh_records.decode_lines("s", lines) if isinstance(r, Decoded)]
    assert [i.message for i in step.issues if i.kind == "finish-reason"] == [f"unknown finish reason {A_LIST}"]


def test_dsh_turn_of_400_digits_is_a_problem():
    lines = [
        (1, '{"type":"session","version":0}'),
        (2, '{"type":"user/message","data":{"turn":' + HUGE_INT + ',"step":1,"content":"hi"}}'),
    ]
    problems = [r for r in dsh_records.decode_lines("s", lines) if isinstance(r, Problem)]
    assert [(p.kind, p.message) for p in problems] == [
        ("bad-field", f"data.turn: {what_is_wrong(int(HUGE_INT))}, not an integer; left empty")
    ]


def test_chat_request_message_fields_of_the_wrong_type_are_issues():
    """A message whose content is a number was dropped without a word; a call's name or id that is no text
    was emptied without one."""
    body = json.loads((WIRE / "chat_request.json").read_text())
    before = chat.decode_request(body)
    i = next(n for n, m in enumerate(body["messages"]) if isinstance(m.get("content"), str))
    body["messages"][i]["content"] = 7
    body["messages"].append(
        {
            "role": "assistant",
            "tool_calls": [{"id": ["c"], "type": "function", "function": {"name": {}, "arguments": "{}"}}],
        }
    )
    info = chat.decode_request(body)
    assert [(x.kind, x.message) for x in info.issues] == [
        ("request-body", f"message {i} `content` is a JSON number: not read"),
        ("bad-field", f"message {len(body['messages']) - 1} tool_calls[0] id: {A_LIST}, not text; left empty"),
        ("bad-field", f"message {len(body['messages']) - 1} tool_calls[0] name: {A_DICT}, not text; left empty"),
    ]
    assert len(info.inputs) == len(before.inputs)  # the number is not read, the call's row is kept


def test_responses_request_function_call_item_of_the_wrong_type_is_an_issue():
    body = json.loads((WIRE / "responses_request.json").read_text())
    body["input"].append({"type": "function_call", "call_id": "call_1", "name": ["bash"], "arguments": "{}"})
    body["input"].append({"type": "function_call_output", "call_id": 5, "output": "ok"})
    info = responses.decode_request(body)
    n = len(body["input"])
    assert [(x.kind, x.message) for x in info.issues] == [
        ("bad-field", f"input[{n - 2}] name: {A_LIST}, not text; left empty"),
        ("bad-field", f"input[{n - 1}] call_id: {what_is_wrong(5)}, not text; left empty"),
    ]
    call, result = info.inputs[-2], info.inputs[-1]
    assert (call.item_type, call.call_id, call.name, call.text) == ("function_call", "call_1", None, "{}")
    assert (result.item_type, result.call_id, result.text) == ("function_call_output", None, "ok")


def test_chat_body_choices_that_are_an_object_is_named(tmp_path):
    cap = _load(tmp_path, "damaged.json", _body("chat_completion.json", lambda b: b.update(choices={"a": 1})))
    messages = [m for k, m in _problems(cap) if k == "response-body"]
    assert "`choices` is a JSON object, not a list" in messages


def test_chat_stream_finish_reason_that_is_a_list_is_a_problem(tmp_path):
    def damage(i, p):
        if p["choices"] and p["choices"][0].get("finish_reason"):
            p["choices"][0]["finish_reason"] = ["tool_calls"]

    cap = _load(tmp_path, "damaged.sse", _sse("chat_call.sse", damage))
    _one(cap, "bad-field", "choices[0] finish_reason", A_LIST)
    assert len(cap.calls) == 1


def test_http_error_body_with_a_deep_message_is_a_problem_not_a_crash(tmp_path):
    """An HTTP error body (here a 400 in a HAR) whose ``message`` is 1,000 deep raised RecursionError in
    the envelope decoder; now it is left empty with a problem, and its type and code are kept."""
    har = json.loads((ROOT / "data" / "image-refused" / "capture.har").read_text())
    whole = _load(tmp_path, "whole.har", json.dumps(har).encode())
    entry = next(e for e in har["log"]["entries"] if e["response"]["status"] == 400)
    body = json.loads(entry["response"]["content"]["text"])
    body["error"]["message"] = raw(DEEP)
    entry["response"]["content"]["text"] = dumps(body)
    cap = _load(tmp_path, "damaged.har", json.dumps(har).encode())
    _one(cap, "bad-field", "error field `error.message`", "nested deeper than MAX_ERROR_VALUE_DEPTH")
    assert len(cap.exchanges) == len(whole.exchanges) and len(cap.calls) == len(whole.calls)
    ex = cap.exchanges[cap.exchanges["status"] == 400].iloc[0]
    assert (ex["terminal"], ex["error_type"], ex["error_code"]) == (
        "http-error",
        "invalid_request_error",
        "unsupported_image_input",
    )
    assert pd.isna(ex["error_message"])


def test_dsh_tool_result_fields_of_the_wrong_type_are_problems(tmp_path):
    """``isError`` that is text and a ``content`` that is an object were emptied without a word."""
    whole = _load(tmp_path, "whole.jsonl.zstd", SESSION.read_bytes())

    def damage(obj):
        if obj.get("type") == "tool/result":
            block = obj["data"]["message"]["content"][0]
            block["isError"], block["content"] = "yes", {"type": "text", "text": "x"}
            return True
        return False

    cap = _load(tmp_path, "damaged.jsonl.zstd", _session(damage))
    rows = sorted(m for k, m in _problems(cap) if k == "bad-field")
    assert len(rows) == 2, rows
    assert "tool/result content: " + what_is_wrong({}) in rows[0]
    assert "tool/result isError: " + what_is_wrong("yes") + ", not a boolean" in rows[1]
    assert (len(cap.tool_results), _counts(cap)) == (len(whole.tool_results), _counts(whole))


def test_dsh_packed_row_turn_of_400_digits_is_a_problem(tmp_path):
    whole = _load(tmp_path, "whole.jsonl.zstd", SESSION.read_bytes())

    def damage(obj):
        if obj.get("type") == "tool-call-chunks":
            obj["data"]["turn"] = raw(HUGE_INT)
            return True
        return False

    cap = _load(tmp_path, "damaged.jsonl.zstd", _session(damage))
    assert any(
        k == "bad-field" and m == f"data.turn: {what_is_wrong(int(HUGE_INT))}, not an integer; left empty"
        for k, m in _problems(cap)
    )
    assert len(cap.events) == len(whole.events) and len(cap.exchanges) == len(whole.exchanges)


def test_dsh_tool_description_that_is_a_list_is_a_problem(tmp_path):
    whole = _load(tmp_path, "whole.jsonl.zstd", SESSION.read_bytes())

    def damage(obj):
        if obj.get("type") == "request/header" and isinstance(obj["data"]["header"].get("tools"), list):
            obj["data"]["header"]["tools"][0]["description"] = ["d"]
            return True
        return False

    cap = _load(tmp_path, "damaged.jsonl.zstd", _session(damage))
    assert any(k == "bad-field" and f"tools[0] description: {A_LIST}, not text" in m for k, m in _problems(cap))
    assert len(cap.tools) == len(whole.tools) and _counts(cap) == _counts(whole)


def test_request_content_part_text_that_is_not_text_is_an_issue():
    """A content part whose ``text`` is a number was read as a part without text, without a word."""
    body = json.loads((WIRE / "responses_request.json").read_text())
    i = next(n for n, item in enumerate(body["input"]) if isinstance(item.get("content"), list) and item["content"])
    before = responses.decode_request(body)
    body["input"][i]["content"][0]["text"] = raw(HUGE_FLOAT)
    info = responses.decode_request(json.loads(dumps(body)))
    assert [(x.kind, x.message) for x in info.issues] == [
        ("bad-field", f"item {i} part 0 text: {what_is_wrong(float('inf'))}, not text; left empty")
    ]
    assert len(info.inputs) == len(before.inputs)


def test_schema_facts_of_an_enum_that_is_not_a_list():
    """``enum`` holding text (``"\\ud83d"`` in a fuzzed tool) is no list of values: no value of it is null, and the
    facts are read (``None in "x"`` raised TypeError, fuzz seed 5, jsonl:149)."""
    from toolkit.wire.schemas import schema_facts

    facts = schema_facts({"type": "object", "properties": {"a": {"enum": "x"}, "b": {"enum": [None, 1]}}})
    assert facts.nullable == ("b",)
