"""``toolkit.knowledge.litellm_config`` against what litellm 1.110.2 decided for each fixture config.

``tests/fixtures/litellm/config.json`` is written by ``lab/record_litellm_config.py`` (LiteLLM's
``Router``, ``get_model_group_info``, its image pre-call filter and mock-answered requests); every
recorded cell is compared with the model here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toolkit.knowledge import litellm_config as llc

FIXTURES = Path(__file__).parent / "fixtures" / "litellm"
RECORDED = json.loads((FIXTURES / "config.json").read_text(encoding="utf-8"))
CELLS = {c["file"]: c for c in RECORDED["cells"]}
#: the problem each refused fixture stands for
BAD = {
    "bad-empty.yaml": "empty",
    "bad-missing-model.yaml": "missing-model",
    "bad-missing-name.yaml": "missing-model-name",
    "bad-missing-params.yaml": "missing-litellm-params",
    "bad-model-list-mapping.yaml": "model-list-not-a-list",
    "bad-model-not-string.yaml": "model-not-a-string",
}


def _parsed(name: str):
    return llc.read_model_list(yaml.safe_load((FIXTURES / "config" / name).read_text(encoding="utf-8")))


def test_every_fixture_config_was_recorded_with_the_modelled_version():
    assert sorted(CELLS) == sorted(p.name for p in (FIXTURES / "config").glob("*.yaml"))
    assert RECORDED["litellm"] in llc.VERSIONS
    assert set(BAD) < set(CELLS)


def test_the_cost_map_extract_is_the_bundled_map():
    assert RECORDED["cost_map"] == llc.COST_MAP


@pytest.mark.parametrize("name", sorted(BAD))
def test_refused_configs_raise_what_litellm_raises(name):
    deployments, problems = _parsed(name)
    code = BAD[name]
    assert code in [p.code for p in problems] and not deployments
    cell, refusal = CELLS[name], llc.REFUSALS.get(code, {})
    for key in ("router", "proxy_router"):
        expected = refusal.get(key)
        got = cell.get(key)
        if expected is None:
            assert got == "ok", (key, got)
        else:
            assert got["class"] == expected[0] and got["text"].startswith(expected[1]), (key, got)
    if cell.get("proxy_router") == "ok" and "deployments" in cell:
        assert cell["deployments"] == []  # the proxy's router drops what it cannot build


GOOD = sorted(n for n in CELLS if n not in BAD)


@pytest.mark.parametrize("name", GOOD)
def test_deployments_and_their_image_filter(name):
    cell = CELLS[name]
    deployments, _ = _parsed(name)
    registered = llc.registrations(deployments)
    assert [
        {
            "entry": d.index,
            "model_name": d.model_name,
            "model": d.model,
            "declares_no_vision": llc.declares_no_vision(d, registered),
        }
        for d in deployments
    ] == cell["deployments"]


@pytest.mark.parametrize("name", GOOD)
def test_the_cost_map_before_and_after_the_config_is_registered(name):
    cell = CELLS[name]
    deployments, _ = _parsed(name)
    registered = llc.registrations(deployments)
    for d in deployments:
        entry = llc.COST_MAP.get(d.underlying) or {}
        assert cell["supports_vision_before"][d.model] is (entry.get("supports_vision") is True), d.model
        assert cell["vision_disabled_before"][d.model] is (entry.get("supports_vision") is False), d.model
        after = registered.get(llc.registration_key(d), {}).get("supports_vision", entry.get("supports_vision"))
        assert cell["supports_vision_after"][d.model] is (after is True), d.model


@pytest.mark.parametrize("name", GOOD)
def test_model_group_info_and_routing(name):
    cell = CELLS[name]
    deployments, _ = _parsed(name)
    assert cell["groups"], name
    for requested, recorded in cell["groups"].items():
        g = llc.group(deployments, requested)
        assert g is not None, requested
        info = recorded["info"]
        for key in ("providers", "mode", "max_input_tokens", "supports_vision", "supports_function_calling"):
            assert g.info[key] == info[key], (requested, key, g.info[key], info[key])
        assert recorded["image_request"] == {"deployments": sorted(d.index for d in llc.image_targets(g, deployments))}
        assert recorded["tools_request"] == {"deployments": sorted(d.index for d in g.deployments)}, requested


@pytest.mark.parametrize("name", GOOD)
def test_a_model_the_config_does_not_serve(name):
    cell = CELLS[name]
    deployments, _ = _parsed(name)
    g = llc.group(deployments, "not-in-this-config")
    if g is None:
        err = cell["unknown_model_request"]["error"]
        assert err == {"class": "BadRequestError", "text": llc.unknown_model_text("not-in-this-config")}
    else:  # a catch-all wildcard serves it
        assert cell["unknown_model_request"] == {"deployments": sorted(d.index for d in g.deployments)}


@pytest.mark.parametrize("name", GOOD)
def test_environment_references_are_named_not_resolved(name):
    cell = CELLS[name]
    deployments, _ = _parsed(name)
    refs = [{"entry": d.index, "key": k, "variable": v} for d in deployments for k, v in d.env_refs]
    assert refs == [{k: r[k] for k in ("entry", "key", "variable")} for r in cell["env_refs"]]
    # LiteLLM resolves a reference exactly when the variable is set (the lab sets only its own two)
    assert [r["resolved"] for r in cell["env_refs"]] == [r["variable"] in RECORDED["lab_env"] for r in cell["env_refs"]]


def test_a_flag_that_is_not_a_bool():
    cell = CELLS["bad-vision-not-bool.yaml"]
    deployments, problems = _parsed("bad-vision-not-bool.yaml")
    assert [p.code for p in problems] == ["flag-not-a-bool"]
    # the router's filter takes only `false` as text-only; /model_group/info reads "no" as false
    assert cell["deployments"][0]["declares_no_vision"] is llc.declares_no_vision(deployments[0], {})
    assert (
        cell["groups"]["gw-coder"]["info"]["supports_vision"]
        == llc.group(deployments, "gw-coder").info["supports_vision"]
    )


def test_the_recorded_configs_cover_what_the_model_distinguishes():
    """Each behaviour the docstring claims has a cell that shows it."""
    multi = CELLS["multi.yaml"]["groups"]["gw-coder"]
    assert multi["info"]["supports_vision"] is True and multi["image_request"] == {"deployments": [1]}
    text_only = CELLS["text-only.yaml"]["groups"]["gw-coder"]
    assert text_only["info"]["supports_vision"] is False and text_only["image_request"] == {"deployments": [0]}
    leak = CELLS["leak.yaml"]
    assert (
        leak["deployments"][0]["declares_no_vision"] is True
        and "model_info" not in yaml.safe_load((FIXTURES / "config" / "leak.yaml").read_text())["model_list"][0]
    )
