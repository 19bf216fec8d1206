"""The Python model of LiteLLM's tool handling against what the real library sent to a loopback server
(``tests/fixtures/litellm/wire.json``, made by ``lab/record_litellm_tools.py``). Every disagreement fails."""

from __future__ import annotations

import copy
import json
import re

import pytest
from conftest import FIXTURES

from toolkit.knowledge import litellm_tools

WIRE = json.loads((FIXTURES / "litellm" / "wire.json").read_text(encoding="utf-8"))
CELLS = WIRE["cells"]
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}


def same(a, b) -> bool:
    """Equal values and equal key order: the wire bytes would be the same."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


@pytest.mark.parametrize("cell", CELLS, ids=[f"{c['api']}-{c['strict']}-{c['tool']}" for c in CELLS])
def test_convert_tools_matches_the_wire(cell):
    assert cell["error"] is None and not cell["mutated"]
    assert cell["http"] == [{"method": "POST", "path": PATHS[cell["api"]]}]
    given = copy.deepcopy(cell["given"])
    assert same(litellm_tools.convert_tools([given], api=cell["api"], version=WIRE["litellm"]), cell["tools"])
    assert same(given, cell["given"])  # the model does not change its input either


def test_the_fixture_covers_the_grid_at_the_modelled_version():
    assert WIRE["litellm"] in litellm_tools.VERSIONS
    grid = {(c["api"], c["strict"]) for c in CELLS}
    assert grid == {(a, s) for a in litellm_tools.APIS for s in (None, True, False)}
    assert any(not same(c["tools"], [c["given"]]) for c in CELLS)  # a rewrite is recorded, not only pass-through


def test_unknown_api_and_version_are_refused():
    with pytest.raises(ValueError, match="unknown api 'x'; choose one of chat, responses"):
        litellm_tools.convert_tools([], api="x")
    with pytest.raises(ValueError, match=re.escape("litellm '0.1' is not modelled; choose one of 1.110.2")):
        litellm_tools.convert_tools([], api="chat", version="0.1")
