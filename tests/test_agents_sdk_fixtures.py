"""The Agents SDK strict-transform model against what the real ``openai-agents`` did (lab/record_agents_strict.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from toolkit.errors import InputError
from toolkit.knowledge.agents_sdk_strict import SDK_VERSION, USER_ERROR, AgentsStrictError, ensure_strict

FIXTURE = Path(__file__).parent / "fixtures" / "agents_sdk" / "strict.json"
DOC = json.loads(FIXTURE.read_text())
RECORDS = DOC["records"]


def test_fixture_is_of_the_modelled_version() -> None:
    assert DOC["package"] == "openai-agents"
    assert DOC["version"] == SDK_VERSION
    assert [r["id"] for r in RECORDS] == sorted(r["id"] for r in RECORDS)
    assert sum(r["id"].startswith("pi_ai/") for r in RECORDS) == 61


def test_every_user_error_text_is_recorded() -> None:
    """Each refusal of agents/strict_schema.py is reached by at least one record."""
    texts = {r["error"]["message"] for r in RECORDS if not r["ok"]}
    starts = [
        "JSON schema is too deeply nested",
        "JSON schema is too large",
        "additionalProperties should not be set",
        "JSON schema contains an object that permits",
        "JSON schema contains a reference whose target",
        "JSON schema contains a reference owned by",
        "JSON schema contains a `$ref` with incompatible sibling",
        "JSON schema contains a singleton `allOf` entry",
        "JSON schema contains a circular `$ref` chain.",
        "The root of a strict JSON schema must not use `anyOf`.",
        "The root of a strict JSON schema must be a non-nullable object",
    ]
    for start in starts:
        assert any(t.startswith(start) for t in texts), start


@pytest.mark.parametrize("rec", RECORDS, ids=[r["id"] for r in RECORDS])
def test_model_matches_sdk(rec: dict) -> None:
    given = copy.deepcopy(rec["input"])
    before = json.dumps(given)
    reject = rec.get("reject_open_objects", False)
    if rec["ok"]:
        out = ensure_strict(given, reject_open_objects=reject)
        assert json.dumps(out) == json.dumps(rec["output"])  # key order included
        assert out is not given
    else:
        with pytest.raises(AgentsStrictError) as caught:
            ensure_strict(given, reject_open_objects=reject)
        assert str(caught.value) == rec["error"]["message"]
        assert caught.value.sdk_class == rec["error"]["class"]
        assert isinstance(caught.value, InputError)
        assert caught.value.path.startswith("#")
    assert json.dumps(given) == before  # the SDK rewrites its input in place; the model never does


def test_sdk_mutation_is_recorded_and_not_modelled() -> None:
    """The SDK returns its own (rewritten) input; the model returns a new dict, so records say so."""
    ok = [r for r in RECORDS if r["ok"] and r["input"] != {}]
    assert ok and all(r["returns_input"] for r in ok)
    assert any(r["input_mutated"] for r in RECORDS if not r["ok"])


def test_error_path_names_the_node() -> None:
    with pytest.raises(AgentsStrictError) as caught:
        ensure_strict({"type": "object", "properties": {"a/b": {"type": "object", "additionalProperties": True}}})
    assert caught.value.path == "#/properties/a~1b"
    assert caught.value.sdk_class == USER_ERROR
