"""HAR entries whose fields hold another JSON type, or a value 1,000 levels deep (issue 27, fuzz seed 27).

Each case takes a HAR file of data/, puts one hostile value at one place of one entry the way the fuzz campaign
did, and reads it. The promise checked: no exception, a problem row at that entry naming the field and what it
holds instead, what else of the entry can be read still read, and every other entry read as in the original.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolkit.capture.load import load_capture
from toolkit.wire.records import PROBLEM_KINDS

ROOT = Path(__file__).resolve().parent.parent

DEEP_OBJECT = '{"a": ' * 1000 + "1" + "}" * 1000  # its repr alone passes Python's recursion limit
DEEP_ARRAY = "[" * 1000 + "1" + "]" * 1000
_HERE = "@@hostile@@"


def _damaged(tmp_path: Path, original: str, entry: int, where: list, json_text: str) -> Path:
    """``original`` with the JSON text ``json_text`` as the value at ``where`` in entry ``entry`` (a key an object
    lacks is added)."""
    doc = json.loads((ROOT / original).read_text("utf-8"))
    value = doc["log"]["entries"][entry]
    for key in where[:-1]:
        value = value[key]
    assert isinstance(value, dict) or where[-1] < len(value)  # the seed has that place
    value[where[-1]] = _HERE
    path = tmp_path / "damaged.har"
    path.write_text(json.dumps(doc, indent=1).replace(json.dumps(_HERE), json_text), "utf-8")
    return path


def _counts(cap, entry: int) -> tuple[dict[str, int], dict[str, int]]:
    """Rows of each frame of the entry at ``entry``, and of all the others."""
    place = f"entry {entry}"
    mine = set(cap.exchanges.loc[cap.exchanges.location == place, "exchange_id"])
    others = set(cap.exchanges.loc[cap.exchanges.location != place, "exchange_id"])
    out: tuple[dict[str, int], dict[str, int]] = ({"exchanges": len(mine)}, {"exchanges": len(others)})
    for name in ("calls", "tools", "headers"):
        ids = getattr(cap, name).exchange_id
        out[0][name], out[1][name] = int(ids.isin(mine).sum()), int(ids.isin(others).sum())
    return out


def _read(path: Path, original: str, entry: int, kind: str, words: str):
    """Read the damaged file; check its problem row and the other entries; return (damaged, original) counts of
    the damaged entry."""
    cap = load_capture(path)
    before = load_capture(ROOT / original)
    assert before.problems.empty
    here = cap.problems[cap.problems.location == f"entry {entry}"]
    assert set(cap.problems.location) == {f"entry {entry}"}, cap.problems.to_dict("records")
    assert set(here.kind) <= set(PROBLEM_KINDS)
    said = here[here.message.str.contains(words, regex=False)]
    assert not said.empty, here.message.tolist()
    assert set(said.kind) == {kind}
    assert len(said.message.iloc[0]) < 200  # the value is described, never repeated
    assert cap.summary().reconciles.all()
    mine, others = _counts(cap, entry)
    mine_before, others_before = _counts(before, entry)
    assert others == others_before
    return mine, mine_before


# ---- the findings of the seed-27 campaign ------------------------------------------------------------


@pytest.mark.parametrize(
    ("original", "entry", "where", "json_text", "words"),
    [
        pytest.param(
            "data/image-refused/capture.har",
            0,
            ["request", "headers", 2, "value"],
            DEEP_OBJECT,
            "request header 'accept': value is an object, not text",
            id="har:12-request-header-deep-object",
        ),
        pytest.param(
            "data/image-refused/capture.har",
            0,
            ["response", "headers", 0, "value"],
            DEEP_OBJECT,
            "response header 'content-type': value is an object, not text",
            id="har:48-response-header-deep-object",
        ),
        pytest.param(
            "data/litellm-after-fix/front.har",
            0,
            ["request", "headers", 12, "value"],
            DEEP_ARRAY,
            "value is an array, not text",
            id="har:165-request-header-deep-array",
        ),
        pytest.param(
            "data/after-fix/capture.har",
            1,
            ["response", "headers", 0, "value"],
            DEEP_OBJECT,
            "value is an object, not text",
            id="har:570-response-header-deep-object",
        ),
    ],
)
def test_a_header_value_that_is_not_text_is_one_problem_and_the_header_alone_is_left_out(
    original, entry, where, json_text, words, tmp_path
):
    mine, before = _read(_damaged(tmp_path, original, entry, where, json_text), original, entry, "bad-field", words)
    assert mine == {**before, "headers": before["headers"] - 1}


def test_a_response_that_is_a_number_is_a_problem_and_the_request_is_kept(tmp_path):
    original = "data/before-fix/capture.har"  # har:22
    path = _damaged(tmp_path, original, 1, ["response"], "-1e400")
    mine, before = _read(path, original, 1, "bad-field", "response: the number -inf, not an object")
    assert before["calls"] == 1 and mine["calls"] == 0  # the call was in the response
    assert mine["tools"] == before["tools"] > 0 and mine["exchanges"] == 1
    ex = load_capture(path).exchanges.set_index("location").loc["entry 1"]
    assert ex.error_message == "no readable status in the capture"  # not "no response": there was one


def test_a_response_that_is_a_deep_array_is_a_problem_and_the_request_is_kept(tmp_path):
    original = "data/after-fix/capture.har"  # har:426
    path = _damaged(tmp_path, original, 0, ["response"], DEEP_ARRAY)
    mine, before = _read(path, original, 0, "bad-field", "response: an array, not an object")
    assert (before["calls"], mine["calls"]) == (1, 0)
    assert mine["tools"] == before["tools"] > 0


def test_a_null_response_content_is_a_problem_and_the_rest_of_the_entry_is_kept(tmp_path):
    original = "data/dsh-after-fix/capture.har"  # har:290
    path = _damaged(tmp_path, original, 1, ["response", "content"], "null")
    mine, before = _read(path, original, 1, "bad-field", "response content: null, not an object")
    assert (before["calls"], mine["calls"]) == (1, 0)
    assert mine["tools"] == before["tools"] > 0 and mine["headers"] == before["headers"]
    assert load_capture(path).exchanges.set_index("location").loc["entry 1"].status == 200


def test_a_request_that_is_a_deep_object_names_the_fields_it_lacks_and_the_response_is_kept(tmp_path):
    original = "data/dsh-before-fix/capture.har"  # har:399: an object, but none of a request's fields
    path = _damaged(tmp_path, original, 1, ["request"], DEEP_OBJECT)
    mine, before = _read(path, original, 1, "bad-field", "url: not in the request object")
    here = load_capture(path).problems
    assert "method: not in the request object; left empty" in here.message.tolist()
    assert before["tools"] > 0 and mine["tools"] == 0
    assert mine["calls"] == before["calls"]


def test_a_request_of_another_type_beside_a_response_keeps_the_response(tmp_path):
    original = "data/after-fix/capture.har"
    path = _damaged(tmp_path, original, 0, ["request"], DEEP_ARRAY)
    mine, before = _read(path, original, 0, "bad-field", "request: an array, not an object")
    assert (mine["exchanges"], mine["calls"], mine["tools"]) == (1, before["calls"], 0)


# ---- every field the reader uses ---------------------------------------------------------------------

ORIGINAL = "data/after-fix/capture.har"


@pytest.mark.parametrize(
    ("where", "json_text", "words"),
    [
        (["request", "postData"], DEEP_OBJECT, "request postData: no text, params, size or comment"),
        (["request", "postData"], "null", "request postData: null, not an object"),
        (["request", "postData", "mimeType"], DEEP_OBJECT, "request postData mimeType: an object, not text"),
        (["response", "content"], DEEP_OBJECT, "response content: no text, size or comment"),
        (["response", "content"], "{}", "response content: no text, size or comment"),
        (["response", "content", "mimeType"], "7", "response content mimeType: an integer of 1 digits, not text"),
        (["response", "content", "size"], DEEP_ARRAY, "response body size: an array, not a number of bytes"),
        (["response", "content", "encoding"], DEEP_OBJECT, "response body encoding: an object, not text"),
        (["request", "headers"], DEEP_ARRAY, "request header 0: an array, not a name and a value"),
        (["request", "headers", 0], "7", "request header 0: an integer of 1 digits, not a name and a value"),
        (["request", "headers", 0, "name"], DEEP_OBJECT, "request header 0: name is an object, not text"),
        (["response", "headers", 0, "value"], "true", "value is the boolean true, not text"),
        (["response", "headers", 0, "value"], "-1e400", "value is the number -inf, not text"),
        (["request", "url"], "null", "url: null, not text"),
        (["request", "url"], '"http://[::1/v1/responses"', "url: not a URL (Invalid IPv6 URL)"),
        (["request", "method"], DEEP_ARRAY, "method: an array, not text"),
        (["request", "bodySize"], '"12"', "request bodySize: the text '12', not a number of bytes"),
        (["response", "status"], "null", "status: null, not an integer"),
        (["response", "status"], '"200"', "status: the text '200', not an integer"),
        (["response", "status"], "true", "status: the boolean true, not an integer"),
        (["response", "status"], "1" + "0" * 400, "status: an integer of 401 digits, not an integer"),
        (["startedDateTime"], "null", "startedDateTime: null, not text"),
        (["startedDateTime"], json.dumps("x" * 5000), "startedDateTime 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'..."),
        (["startedDateTime"], '"0001-01-01T00:00:00+05:00"', "outside the times a timestamp holds"),
        (["time"], DEEP_OBJECT, "time: an object, not a number of milliseconds"),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 60 else None,
)
def test_a_field_of_another_type_is_a_problem_naming_it(where, json_text, words, tmp_path):
    mine, before = _read(_damaged(tmp_path, ORIGINAL, 0, where, json_text), ORIGINAL, 0, "bad-field", words)
    assert mine["exchanges"] == 1
    if where[0] == "response" and where[-1] != "headers":  # what the request holds is still read
        assert mine["tools"] == before["tools"]
    if where[0] == "request" and where[1] != "postData":  # and what the response holds
        assert mine["calls"] == before["calls"]


@pytest.mark.parametrize(
    ("json_text", "words"),
    [("null", "request body text is null, not a string"), (DEEP_ARRAY, "request body text is list")],
)
def test_a_request_body_text_that_is_not_a_string_is_a_body_problem(json_text, words, tmp_path):
    path = _damaged(tmp_path, ORIGINAL, 0, ["request", "postData", "text"], json_text)
    mine, before = _read(path, ORIGINAL, 0, "bad-body", words)
    assert (mine["tools"], mine["calls"]) == (0, before["calls"])


def test_many_bad_headers_are_one_problem_row(tmp_path):
    doc = json.loads((ROOT / ORIGINAL).read_text("utf-8"))
    headers = doc["log"]["entries"][0]["request"]["headers"]
    headers += [{"name": f"x-{i}", "value": {"a": i}} for i in range(5000)]
    path = tmp_path / "many.har"
    path.write_text(json.dumps(doc), "utf-8")
    cap = load_capture(path)
    assert cap.problems.message.tolist() == [
        "request header 'x-0': value is an object, not text; left out, with 4999 more that are not a name and a text value"
    ]
    assert len(cap.headers) == len(load_capture(ROOT / ORIGINAL).headers)


def test_a_header_value_that_is_a_number_is_its_json_text_as_polly_writes_content_length(tmp_path):
    cap = load_capture(ROOT / "tests/fixtures/har/polly_gzip.har")
    assert cap.problems.empty
    lengths = cap.headers[(cap.headers.direction == "request") & (cap.headers.name == "content-length")]
    assert list(lengths.value) == ["337", "338"]
