"""The JSON helpers every decoder shares: one integer reading, one wording for bad JSON."""

from __future__ import annotations

import json

import pytest

from toolkit.wire.http import decode_exchange
from toolkit.wire.json_text import StrictDecoder, describe_json_error, json_int, json_kind, loads, parse_arguments
from toolkit.wire.records import Exchange
from toolkit.wire.responses import decode_response


@pytest.mark.parametrize(
    "value, expected",
    [
        (3, 3),
        (3.0, 3),  # JSON has one number type: 3.0 is the integer 3
        (-0.0, 0),
        (2.5, None),
        (float("nan"), None),
        (float("inf"), None),
        (True, None),
        ("3", None),
        (None, None),
        ([3], None),
    ],
)
def test_json_int(value, expected):
    assert json_int(value) == expected
    assert json_int(value) is None or type(json_int(value)) is int


def test_integral_float_usage_is_counted():
    # json.loads("3.0") is a float; the Responses decoder used to drop it
    body = json.loads('{"status":"completed","output":[],"usage":{"input_tokens":3.0,"output_tokens":4}}')
    r = decode_response(body)
    assert (r.input_tokens, r.output_tokens) == (3, 4)


def test_arguments_wording():
    assert parse_arguments('{"a": 1}') == ({"a": 1}, None)
    assert parse_arguments("[1]") == (None, "arguments are a JSON array, not an object")
    assert parse_arguments('{"a": }')[1] == "invalid JSON at char 6: Expecting value"
    assert json_kind({}) == "object" and json_kind(False) == "boolean"


# --- strict JSON: NaN, Infinity and -Infinity are not JSON (RFC 8259) ----------------------------


@pytest.mark.parametrize(
    "text, literal, pos",
    [
        ("[1, NaN]", "NaN", 4),
        ('{"a": Infinity}', "Infinity", 6),
        ('{"s": "NaN -Infinity \\" NaN", "v": -Infinity}', "-Infinity", 35),
        ("NaN", "NaN", 0),
    ],
)
def test_non_finite_literals_are_json_errors_at_the_literal(text, literal, pos):
    assert json.loads(text) is not None  # Python's json takes them
    with pytest.raises(json.JSONDecodeError) as err:
        loads(text)
    assert (err.value.msg, err.value.pos) == (f"{literal} is not JSON", pos)
    assert text[pos:].startswith(literal)
    assert describe_json_error(err.value) == f"invalid JSON at char {pos}: {literal} is not JSON"


def test_strict_loads_keeps_everything_else():
    assert loads('{"a": "NaN", "b": [1.5, -2, 1e400], "c": null}') == {
        "a": "NaN",
        "b": [1.5, -2, float("inf")],
        "c": None,
    }
    assert loads(b'{"x": 1}') == {"x": 1}
    assert StrictDecoder().raw_decode('{"a":1} tail') == ({"a": 1}, 7)


def test_arguments_with_nan_are_a_parse_error():
    assert parse_arguments('{"n": NaN}') == (None, "invalid JSON at char 6: NaN is not JSON")


def _ex():
    return Exchange("e", "s", "entry 0", url="http://h/v1/responses", path="/v1/responses", status=200)


def test_a_request_or_response_body_with_nan_is_a_problem_not_a_value():
    req, resp = b'{"model": "m", "input": "x", "temperature": NaN}', b'{"object": "response", "x": Infinity}'
    d = decode_exchange(_ex(), req, resp)
    assert [(i.kind, i.message) for i in d.issues] == [
        ("request-body", f"invalid JSON at char {req.index(b'NaN')}: NaN is not JSON"),
        ("response-body", f"invalid JSON at char {resp.index(b'Infinity')}: Infinity is not JSON"),
    ]
    assert d.request is None


def test_sse_data_with_nan_is_a_bad_frame():
    body = b'data: {"type":"response.created","response":{"x":NaN}}\n\n'
    d = decode_exchange(_ex(), b'{"input":"x","stream":true}', body)
    assert [(i.kind, i.message) for i in d.issues if i.kind == "sse-frame"] == [
        ("sse-frame", f"byte 0: invalid JSON at char {body.index(b'NaN') - len(b'data: ')}: NaN is not JSON")
    ]


@pytest.mark.parametrize("sign", ["", "-"])
def test_an_integer_past_pythons_digit_limit_is_bad_json_at_its_place(sign):
    """Python's json raises ValueError (not JSONDecodeError) for 4,301 digits: ``loads`` makes it bad JSON at the
    number, so every reader that reports bad JSON reports this too (issue 27: 21 crashes in the fuzz campaign)."""
    text = '{"digits": "' + "9" * 5000 + '", "n": ' + sign + "9" * 4350 + "}"
    with pytest.raises(json.JSONDecodeError) as e:
        loads(text)
    assert e.value.pos == text.index(": " + sign + "9") + 2
    assert "more digits than Python converts" in describe_json_error(e.value)
    assert loads('{"n": ' + "9" * 4300 + "}")["n"] == int("9" * 4300)  # at the limit it is still a number


def test_compact_deep_writes_what_json_writes_at_any_depth():
    from toolkit.wire.json_text import compact_deep

    values = [{"a": [1, 2.5, None, True, 'é"x'], "b": {}, "c": []}, [], {}, "x", 1e300, {"k": {"j": [[], [{}]]}}]
    for v in values:
        assert compact_deep(v) == json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    deep: list = []
    cursor = deep
    for _ in range(5000):  # past json's stack and orjson's 255 levels
        cursor.append({"k": []})
        cursor = cursor[0]["k"]
    assert compact_deep(deep) == '[{"k":' * 5000 + "[]" + "}]" * 5000
