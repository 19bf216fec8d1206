"""Variants of real captured requests: each changes only its own part, in hops.diff's vocabulary."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from toolkit.analysis.hops import KINDS, request_changes
from toolkit.analysis.whatif import prune_schema
from toolkit.capture import load_capture
from toolkit.errors import InputError
from toolkit.experiment.frames import CHANGES, VARIANTS
from toolkit.experiment.variants import build, has_images, image_paths

REPO = Path(__file__).resolve().parents[1]


def _bodies(path: str) -> dict:
    c = load_capture(REPO / path, keep_bodies=True, redact=False)
    api = dict(zip(c.exchanges["exchange_id"], c.exchanges["api"].astype(str), strict=True))
    return {x: (b, api[x]) for x, b in zip(c.bodies["exchange_id"], c.bodies["request"], strict=True)}


@pytest.fixture(scope="module")
def before_fix():
    """DSH before the fix: Responses, 25 function tools, none with strict."""
    return _bodies("data/dsh-before-fix/capture.har")["capture.har:1"]


@pytest.fixture(scope="module")
def chat():
    """The hop behind the rewriting proxy: Chat Completions with function.strict = true and an image."""
    return _bodies("data/two-hop-chat/back.har")["back.har:0"]


@pytest.fixture(scope="module")
def image():
    """DSH's read_image result: an input_image inside a function_call_output."""
    return _bodies("data/dsh-image/capture.har")["capture.har:4"]


@pytest.fixture(scope="module")
def messages():
    """Anthropic Messages from the SDK: strict true, absent, false and null; images in the user turn and in
    a tool result."""
    return _bodies("tests/fixtures/messages/sdk_capture.jsonl")["sdk_capture.jsonl:2"]


def _fn(tool: dict, api: str) -> dict:
    return tool["function"] if api == "chat" else tool


def _without_strict(body: dict, api: str) -> dict:
    body = copy.deepcopy(body)
    for t in body.get("tools") or []:
        _fn(t, api).pop("strict", None)
    return body


def _conforms(v) -> None:
    assert CHANGES.mismatches(v.changes) == []
    assert set(v.changes["kind"].astype(str)) <= set(KINDS)
    assert (v.changes["variant"] == v.name).all()
    assert v.same_as_captured == v.changes.empty


def test_unknown_name_lists_the_variants(before_fix):
    body, api = before_fix
    with pytest.raises(InputError) as e:
        build(body, ["strict-maybe"], api=api)
    assert "strict-maybe" in str(e.value)
    for name in VARIANTS:
        assert name in str(e.value)


def test_bad_api_and_repeated_names(before_fix):
    body, _ = before_fix
    with pytest.raises(InputError, match="'other'"):
        build(body, ["strict-false"], api="other")
    with pytest.raises(InputError, match="strict-false named more than once"):
        build(body, ["strict-false", "strict-false"], api="responses")


def test_as_captured_is_a_deep_copy(before_fix):
    body, api = before_fix
    original = copy.deepcopy(body)
    (v,) = build(body, ["as-captured"], api=api)
    assert v.body == body and v.same_as_captured and v.changes.empty
    v.body["tools"][0]["parameters"]["properties"].clear()
    assert body == original


def test_order_follows_names(before_fix):
    body, api = before_fix
    names = ["strict-false", "as-captured", "strict-absent"]
    assert [v.name for v in build(body, names, api=api)] == names


def test_responses_strict_variants_change_only_strict(before_fix):
    body, api = before_fix
    functions = [t for t in body["tools"] if t.get("type") == "function"]
    assert functions and not any("strict" in t for t in functions)  # the captured bug: strict absent
    absent, false, true = build(body, ["strict-absent", "strict-false", "strict-true"], api=api)
    for v in (absent, false, true):
        _conforms(v)
        assert _without_strict(v.body, api) == _without_strict(body, api)
    assert absent.same_as_captured and absent.body == body
    for v, value in ((false, False), (true, True)):
        assert [t["strict"] for t in v.body["tools"] if t.get("type") == "function"] == [value] * len(functions)
        assert list(v.changes["kind"]) == ["strict added"] * len(functions)
        assert list(v.changes["tool"]) == [t["name"] for t in functions]
        assert set(v.changes["after"]) == {json.dumps(value)}
        assert v.changes["before"].isna().all()


def test_chat_strict_variants_change_function_strict(chat):
    body, api = chat
    assert api == "chat"
    assert all(t["function"]["strict"] is True for t in body["tools"])
    absent, false, true = build(body, ["strict-absent", "strict-false", "strict-true"], api=api)
    for v in (absent, false, true):
        _conforms(v)
        assert _without_strict(v.body, api) == _without_strict(body, api)
    assert not any("strict" in t["function"] for t in absent.body["tools"])
    assert list(absent.changes["kind"]) == ["strict removed", "strict removed"]
    assert list(false.changes["kind"]) == ["strict changed", "strict changed"]
    assert list(false.changes[["before", "after"]].itertuples(index=False, name=None)) == [("true", "false")] * 2
    assert true.same_as_captured


def test_messages_strict_lives_on_the_tool(messages):
    body, api = messages
    assert api == "messages"
    absent, false = build(body, ["strict-absent", "strict-false"], api=api)
    _conforms(absent)
    _conforms(false)
    assert not any("strict" in t for t in absent.body["tools"])
    removed = [t["name"] for t in body["tools"] if "strict" in t]
    assert removed == ["bash", "write", "read"]  # read_image has none
    assert list(absent.changes[["tool", "kind"]].itertuples(index=False, name=None)) == [
        (n, "strict removed") for n in removed
    ]
    assert all(t["strict"] is False for t in false.body["tools"])
    assert _without_strict(false.body, api) == _without_strict(body, api)


def test_prune_schema_needs_a_mode(before_fix):
    body, api = before_fix
    with pytest.raises(InputError, match=r"prune-schema needs the session's sandbox mode \(--mode\)"):
        build(body, ["prune-schema"], api=api)
    with pytest.raises(InputError, match="'full'"):
        build(body, ["prune-schema"], api=api, mode="full")


@pytest.mark.parametrize("mode", ["danger-full-access", "workspace-write"])
def test_prune_schema_changes_only_the_escalation_schemas(before_fix, mode):
    body, api = before_fix
    (v,) = build(body, ["prune-schema"], api=api, mode=mode)
    _conforms(v)
    escalating = {t["name"] for t in body["tools"] if "sandbox_permissions" in t["parameters"].get("properties", {})}
    assert escalating and not v.same_as_captured
    assert set(v.changes["tool"]) == escalating
    for before, after in zip(body["tools"], v.body["tools"], strict=True):
        if before["name"] in escalating:
            assert after["parameters"] == prune_schema(before["parameters"], mode)
            assert {k: x for k, x in after.items() if k != "parameters"} == {
                k: x for k, x in before.items() if k != "parameters"
            }
        else:
            assert after == before
    assert {k: x for k, x in v.body.items() if k != "tools"} == {k: x for k, x in body.items() if k != "tools"}


def test_prune_schema_at_full_access_drops_both_fields(before_fix):
    body, api = before_fix
    (v,) = build(body, ["prune-schema"], api=api, mode="danger-full-access")
    bash = next(t for t in v.body["tools"] if t["name"] == "bash")["parameters"]
    assert "sandbox_permissions" not in bash["properties"] and "justification" not in bash["properties"]
    rows = v.changes[v.changes["tool"] == "bash"]
    assert set(rows["kind"]) == {"property dropped"}
    assert set(rows["path"]) == {
        "$.tools[0].parameters.properties.sandbox_permissions",
        "$.tools[0].parameters.properties.justification",
    }


def test_no_images_drops_the_image_parts_only(image, chat, messages):
    cases = [(image, ["$.input[8].output[1]"]), (chat, ["$.messages[1].content[1]"])]
    cases.append(
        (messages, ["$.messages[0].content[1]", "$.messages[0].content[3]", "$.messages[2].content[0].content[1]"])
    )
    for (body, api), paths in cases:
        assert has_images(body) and image_paths(body) == paths
        (v,) = build(body, ["no-images"], api=api)
        _conforms(v)
        assert not has_images(v.body) and image_paths(v.body) == []
        expected = copy.deepcopy(body)
        for path in reversed(paths):  # drop by hand at the recorded paths, last first
            *parent, last = path[2:].replace("]", "").replace("[", ".").split(".")
            node = expected
            for k in parent:
                node = node[int(k)] if k.isdigit() else node[k]
            del node[int(last)]
        assert v.body == expected
        assert set(v.changes["kind"]) == {"value changed"}


def test_no_images_without_images_is_the_captured_body(before_fix):
    body, api = before_fix
    assert not has_images(body)
    (v,) = build(body, ["no-images"], api=api)
    assert v.same_as_captured and v.changes.empty


def test_request_changes_is_the_body_part_of_hops_diff():
    """hops.diff's changes of a real two-hop pair, without the headers, are request_changes of the bodies."""
    from toolkit.analysis import hops

    front = load_capture(REPO / "data/two-hop-chat/front.har", keep_bodies=True, redact=False)
    back = load_capture(REPO / "data/two-hop-chat/back.har", keep_bodies=True, redact=False)
    d = hops.diff(front, back)
    body = d[~d["path"].str.startswith("header:")]
    first = body[body["pair_id"] == body["pair_id"].min()]
    xa, xb = first["a_exchange"].iloc[0], first["b_exchange"].iloc[0]
    ra = dict(zip(front.bodies["exchange_id"], front.bodies["request"], strict=True))[xa]
    rb = dict(zip(back.bodies["exchange_id"], back.bodies["request"], strict=True))[xb]
    got = request_changes(ra, rb, api_a="responses", api_b="chat")
    shown = first[["tool", "path", "kind", "before", "after"]].astype(object)
    shown = shown.where(shown.notna(), None)
    assert got == list(shown.itertuples(index=False, name=None))
    assert got[0][2] == "protocol converted"
