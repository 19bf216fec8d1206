"""The JSON helpers every decoder shares: one integer reading, one wording for bad JSON."""

from __future__ import annotations

import json

import pytest

from toolkit.wire.json_text import json_int, json_kind, parse_arguments
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
