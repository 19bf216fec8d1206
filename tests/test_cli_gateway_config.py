"""``agent-contract verify --gateway-config``: the LiteLLM proxy config as a second settings source, on
the bundled data (``data/configs/litellm-config.yaml`` in front of the dsh-image route), in every format."""

from __future__ import annotations

import json

import pytest
from conftest import REPO
from jsonschema import Draft202012Validator

from toolkit.present import cli
from toolkit.present.report import json_schema

GATEWAY = "data/configs/litellm-config.yaml"
DSH_IMAGE = [
    "--settings",
    "data/dsh-image/settings.yaml",
    "--capture",
    "data/dsh-image/capture.har",
    "--session",
    "data/dsh-image/session.jsonl.zstd",
    "--dsh",
    "0.1.0-rc.8",
]


def _vision_line() -> int:
    lines = (REPO / GATEWAY).read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if "supports_vision:" in line)


#: what the report must say: the gateway's declaration, with the file and line that made it
SAID = f"the gateway declares `gw-coder` text-only (litellm-config.yaml line {_vision_line()}: `model_info.supports_vision: false`)"


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)
    for name in ("GATEWAY_API_KEY", "DSH_PERMISSION_MODE"):
        monkeypatch.delenv(name, raising=False)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_data_config_matches_the_labs_model_names():
    import yaml

    settings = yaml.safe_load((REPO / "data" / "dsh-image" / "settings.yaml").read_text())
    ids = {m["id"] for p in settings["llm-pi-ai"]["providers"].values() for m in p["models"]}
    names = {e["model_name"] for e in yaml.safe_load((REPO / GATEWAY).read_text())["model_list"]}
    assert ids <= names


def test_text_names_the_gateways_declaration_beside_the_backends_refusal(capsys):
    code, out, _ = run(capsys, "verify", *DSH_IMAGE, "--gateway-config", GATEWAY)
    assert code == 1
    assert f"gateway config {GATEWAY}" in out.splitlines()[1]
    capability = out.split("CAPABILITY", 1)[1].split("EXECUTION", 1)[0]
    assert SAID in capability
    assert "declared-but-refused-downstream" in capability and "Image input is not supported" in capability
    assert f"error (litellm-config.yaml line {_vision_line()}): route `gateway` model `gw-coder`" in capability


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_markdown_and_html_show_it(capsys, tmp_path, fmt):
    out = tmp_path / f"report.{fmt}"
    code, _, _ = run(capsys, "verify", *DSH_IMAGE, "--gateway-config", GATEWAY, "--format", fmt, "--out", str(out))
    assert code == 1
    text = out.read_text()
    assert SAID in text  # html.escape leaves backticks and this text has nothing it escapes
    assert GATEWAY in text


def test_json_names_the_config_and_follows_the_schema(capsys):
    code, out, _ = run(capsys, "verify", *DSH_IMAGE, "--gateway-config", GATEWAY, "--format", "json")
    doc = json.loads(out)
    Draft202012Validator(json_schema()).validate(doc)
    assert code == 1 and doc["inputs"]["gateway_config"] == GATEWAY
    (capability,) = [layer for layer in doc["layers"] if layer["layer"] == "capability"]
    assert any(SAID in e for e in capability["evidence"])
    assert any("declare `input: [text]`" in f for f in capability["fix"])


def test_without_the_option_nothing_names_a_gateway(capsys):
    code, out, _ = run(capsys, "verify", *DSH_IMAGE)
    assert code == 1 and "gateway config" not in out and "the gateway declares" not in out
    _, doc, _ = run(capsys, "verify", *DSH_IMAGE, "--format", "json")
    assert json.loads(doc)["inputs"]["gateway_config"] is None


def test_a_bad_gateway_config_is_one_line_and_exit_2(capsys, tmp_path):
    bad = tmp_path / "config.yaml"
    bad.write_text("model_list:\n  - model_name: gw-coder\n    litellm_params:\n      api_base: http://127.0.0.1:1\n")
    code, out, err = run(capsys, "verify", *DSH_IMAGE, "--gateway-config", str(bad))
    assert code == 2 and out == ""
    assert err.startswith(f"agent-contract: error: {bad}: line 3 ") and "KeyError: 'model'" in err
    assert len(err.strip().splitlines()) == 1
