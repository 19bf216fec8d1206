"""``toolkit.layers.config.gateway``: reading a LiteLLM proxy config.yaml, its errors (file and line),
the findings against DSH's settings, and the capability rows that name the gateway's declaration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import REPO

import toolkit
from toolkit.knowledge import litellm_config as llc
from toolkit.layers.capability import check
from toolkit.layers.config import GatewayConfigError, load_gateway_config, load_settings
from toolkit.layers.config.findings import CODES

CONFIGS = REPO / "tests" / "fixtures" / "litellm" / "config"
RECORDED = {c["file"]: c for c in json.loads((CONFIGS.parent / "config.json").read_text())["cells"]}
DSH_IMAGE = REPO / "data" / "dsh-image"
LAB_CONFIG = REPO / "lab" / "litellm-proxy" / "config.yaml"


def _line_of(path: Path, text: str, nth: int = 1) -> int:
    """1-based line of the nth line holding ``text`` (the fixture's own text, not the reader's answer)."""
    hits = [i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return hits[nth - 1]


@pytest.fixture
def settings():
    return load_settings(DSH_IMAGE / "settings.yaml", env={"GATEWAY_API_KEY": "set"}, dsh="0.1.0-rc.8")


def test_a_path_or_a_text_never_both(tmp_path):
    text = (CONFIGS / "vision.yaml").read_text()
    by_path, by_text = load_gateway_config(CONFIGS / "vision.yaml"), load_gateway_config(text=text)
    assert by_path.deployments == by_text.deployments and by_path.model_names == ["gw-coder"]
    with pytest.raises(TypeError):
        load_gateway_config(CONFIGS / "vision.yaml", text=text)
    with pytest.raises(GatewayConfigError, match="cannot read the gateway config"):
        load_gateway_config(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("name", "anchor", "raised"),
    [
        ("bad-missing-model.yaml", "litellm_params:", "KeyError: 'model'"),
        ("bad-missing-name.yaml", "- litellm_params:", "KeyError: 'model_name'"),
        ("bad-missing-params.yaml", "- model_name:", "KeyError: 'litellm_params'"),
        ("bad-model-not-string.yaml", "model: 42", "ValidationError: 1 validation error for LiteLLM_Params"),
        ("bad-model-list-mapping.yaml", "model_list:", "TypeError: string indices must be integers"),
    ],
)
def test_a_config_litellm_refuses_names_the_file_the_line_and_litellms_error(name, anchor, raised):
    with pytest.raises(GatewayConfigError) as err:
        load_gateway_config(CONFIGS / name)
    text = str(err.value)
    assert text.startswith(f"{CONFIGS / name}: line {_line_of(CONFIGS / name, anchor)} ")
    assert raised in text and "\n" not in text


def test_the_raised_texts_are_the_recorded_ones():
    for name, code in (
        ("bad-missing-name.yaml", "missing-model-name"),
        ("bad-missing-params.yaml", "missing-litellm-params"),
    ):
        recorded = RECORDED[name]["router"]
        assert (recorded["class"], recorded["text"]) == llc.REFUSALS[code]["router"]


def test_yaml_syntax_and_empty_files():
    with pytest.raises(GatewayConfigError, match=r"<gateway config text>: line 3, column \d+: YAML syntax error"):
        load_gateway_config(text="model_list:\n  - model_name: a\n   litellm_params: {model: x}\n")
    with pytest.raises(GatewayConfigError, match=r"bad-empty\.yaml: the document: the file holds no YAML document"):
        load_gateway_config(CONFIGS / "bad-empty.yaml")


def test_text_only_against_a_route_that_declares_images(settings):
    gateway = load_gateway_config(CONFIGS / "text-only.yaml")
    findings = gateway.findings(settings)
    rows = {r.code: r for r in findings.itertuples()}
    assert set(rows) == {"gateway-text-only", "gateway-no-tools"}
    assert set(findings["code"]) <= set(CODES)
    text_only = rows["gateway-text-only"]
    assert text_only.severity == "error" and text_only.layer == "capability"
    assert text_only.line == _line_of(CONFIGS / "text-only.yaml", "supports_vision: false")
    assert text_only.yaml_path == "text-only.yaml:model_list[0].model_info.supports_vision"
    assert "declares `input: ['text', 'image']`" in text_only.message
    assert f"text-only.yaml line {text_only.line}: `model_info.supports_vision: false`" in text_only.message
    no_tools = rows["gateway-no-tools"]
    assert no_tools.line == _line_of(CONFIGS / "text-only.yaml", "supports_function_calling: false")
    # what LiteLLM does with the tools is the recorded answer: routed, not refused
    assert "deployments" in RECORDED["text-only.yaml"]["groups"]["gw-coder"]["tools_request"]


def test_a_route_the_gateway_does_not_list(settings):
    gateway = load_gateway_config(CONFIGS / "cost-map.yaml")
    (row,) = gateway.findings(settings).itertuples()
    assert row.code == "gateway-model-missing" and row.layer == "config" and row.severity == "warning"
    recorded = RECORDED["cost-map.yaml"]["unknown_model_request"]["error"]["text"]
    assert recorded.replace("not-in-this-config", "gw-coder").splitlines()[0] in row.message


def test_vision_declared_and_undeclared(settings):
    assert load_gateway_config(CONFIGS / "vision.yaml").findings(settings).empty
    gateway = load_gateway_config(CONFIGS / "cost-map.yaml")
    said = gateway.vision("gw-unknown")
    assert said.state == "undeclared" and "does not know `gw-coder`" in said.source
    # the state follows what LiteLLM answered for each recorded group
    for requested, recorded in RECORDED["cost-map.yaml"]["groups"].items():
        state = gateway.vision(requested).state
        disabled = all(
            d["declares_no_vision"] for d in RECORDED["cost-map.yaml"]["deployments"] if d["model_name"] == requested
        )
        assert (state == "text-only") is disabled, requested
        assert (state == "image-capable") is recorded["info"]["supports_vision"], requested
    assert "cost map: `o3-mini` has `supports_vision` false" in gateway.vision("text-by-map").source


def test_a_declaration_that_leaks_into_another_model_name():
    gateway = load_gateway_config(CONFIGS / "leak.yaml")
    said = gateway.vision("gpt-4o-plain")
    assert RECORDED["leak.yaml"]["deployments"][0]["declares_no_vision"] is True
    assert said.state == "text-only" and "of `gpt-4o-text`" in said.source and "inherits it" in said.source


def test_a_flag_that_is_not_a_bool_is_a_warning_with_its_line():
    (row,) = load_gateway_config(CONFIGS / "bad-vision-not-bool.yaml").findings().itertuples()
    assert row.code == "gateway-flag-not-bool" and row.severity == "warning"
    assert row.line == _line_of(CONFIGS / "bad-vision-not-bool.yaml", "supports_vision:")


def test_environment_references_are_named_never_resolved(monkeypatch, settings):
    sentinel = "sk-lab-FAKE-must-never-show-up"
    monkeypatch.setenv("LAB_GATEWAY_KEY", sentinel)
    gateway = load_gateway_config(CONFIGS / "env.yaml")
    assert gateway.env_refs == [
        ("gw-coder", "api_base", "LAB_GATEWAY_BASE"),
        ("gw-coder", "api_key", "LAB_GATEWAY_KEY"),
        ("claude", "api_key", "LAB_UNSET_ANTHROPIC_KEY"),
    ]
    shown = repr(gateway) + gateway.findings(settings).to_string() + repr(gateway.deployments)
    assert sentinel not in shown


def test_capability_rows_name_both_sides():
    dsh_settings = load_settings(DSH_IMAGE / "settings.yaml", env={}, dsh="0.1.0-rc.8")
    capture = toolkit.load_capture(DSH_IMAGE / "session.jsonl.zstd")
    plain = check(dsh_settings, capture)
    gateway = load_gateway_config(CONFIGS / "text-only.yaml")
    with_gateway = check(dsh_settings, capture, gateway=gateway)
    assert plain["gateway_vision"].isna().all() and plain["gateway_evidence"].isna().all()
    assert list(with_gateway["verdict"]) == list(plain["verdict"])
    assert set(with_gateway["gateway_vision"]) == {"text-only"}
    for before, after, said in zip(
        plain["evidence"], with_gateway["evidence"], with_gateway["gateway_evidence"], strict=True
    ):
        assert after == f"{before}; and {said}"
        assert "the gateway declares `gw-coder` text-only (text-only.yaml line" in after


def test_before_fix_names_dsh_and_the_gateway():
    """DSH's route does not declare image input, and the gateway declares the model text-only."""
    dsh_settings = load_settings(REPO / "data" / "dsh-before-fix" / "settings.yaml", env={}, dsh="0.1.0-rc.8")
    capture = toolkit.load_capture(REPO / "data" / "dsh-before-fix" / "session.jsonl.zstd")
    rows = check(dsh_settings, capture, gateway=load_gateway_config(CONFIGS / "text-only.yaml"))
    refused = rows[rows["verdict"] == "undeclared-refused-locally"]
    assert len(refused)
    evidence = refused.iloc[0]["evidence"]
    assert "declared ['text']" in evidence and "DSH refused" in evidence and "text-only (text-only.yaml" in evidence


@pytest.mark.skipif(not LAB_CONFIG.exists(), reason="the lab's LiteLLM proxy config is not in this checkout")
def test_the_labs_proxy_config_reads_as_litellm_would():
    gateway = load_gateway_config(LAB_CONFIG)
    entries = yaml.safe_load(LAB_CONFIG.read_text())["model_list"]
    assert [d.model_name for d in gateway.deployments] == [e["model_name"] for e in entries]
    assert [d.model for d in gateway.deployments] == [e["litellm_params"]["model"] for e in entries]
    for e in entries:
        declared = (e.get("model_info") or {}).get("supports_vision")
        if declared is not None:
            assert gateway.vision(e["model_name"]).state == ("image-capable" if declared else "text-only")
