"""The configuration model against the real DSH 0.1.0-rc.8: every record of ``tests/fixtures/dsh/config.json``.

``lab/dsh-fixtures/config.mjs`` feeds each settings text through DSH's own parse, settings seam and
llm-pi-ai resolution; here ``load_settings(text=..., dsh="0.1.0-rc.8")`` must resolve the same routes and
models, and quote every refusal DSH threw, character for character, and claim none where DSH accepted.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from conftest import REPO

from toolkit.knowledge import dsh_settings
from toolkit.layers.config import load_settings
from toolkit.layers.config.findings import CODES, MOUNT_REFUSALS

FIXTURE = REPO / "tests" / "fixtures" / "dsh" / "config.json"
DOC = json.loads(FIXTURE.read_text(encoding="utf-8"))
RECORDS = DOC["records"]
DSH = DOC["dsh_version"]
ENV = {name: "sk-lab-FAKE-config-0000" for name in DOC["env"]["set"]}


def _load(record: dict[str, Any]):
    return load_settings(text=record["settings"], env=ENV, dsh=DSH)


def _texts(findings) -> list[str]:
    out = []
    for f in findings:
        if f.dsh_message:
            out.append(f.dsh_message)
        out.extend(t for _, t in f.dsh_messages)
    return out


def _none(value: object) -> object:
    return None if value is None or (not isinstance(value, (dict, tuple, list)) and pd.isna(value)) else value


def test_the_fixture_is_the_release_the_model_names():
    assert DSH in dsh_settings.PI_AI_FOR_DSH
    assert DOC["pi_ai"]["installed"] == dsh_settings.PI_AI_FOR_DSH[DSH]
    assert DOC["pi_ai"]["range"] == "^" + dsh_settings.PI_AI_FOR_DSH[DSH]
    assert len(RECORDS) >= 60
    refused = [r for r in RECORDS if not r["dsh"].get("llm_pi_ai", {}).get("ok", False)]
    assert 15 <= len(refused) < len(RECORDS)  # the corpus exercises both outcomes


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_mount_outcome_matches_dsh(record):
    got = _load(record)
    assert got.dsh == DSH and got.pi_ai == DOC["pi_ai"]["installed"]
    assert record["dsh"]["parse"]["ok"], "the corpus holds only texts DSH's YAML reader parses"
    mounted = record["dsh"]["llm_pi_ai"]
    refusals = [f for f in got._findings if f.code in MOUNT_REFUSALS]
    assert all(f.severity == "error" for f in refusals)
    if mounted["ok"]:
        assert refusals == [], f"DSH accepted these settings; the model claims refusals: {refusals}"
        return
    assert refusals, f"DSH refused ({mounted['errorName']}): {mounted['error']}"
    assert mounted["error"] in _texts(refusals), (mounted["error"], _texts(refusals))


ACCEPTED = [r for r in RECORDS if r["dsh"]["llm_pi_ai"]["ok"]]


@pytest.mark.parametrize("record", ACCEPTED, ids=[r["id"] for r in ACCEPTED])
def test_routes_and_models_match_dsh(record):
    got = _load(record)
    routes = record["dsh"]["llm_pi_ai"]["routes"]
    assert list(got.routes["route"]) == [r["provider"] for r in routes]
    assert list(got.routes["route"]) == record["dsh"]["llm_pi_ai"]["registered_routes"]
    for r, row in zip(routes, got.routes.to_dict("records"), strict=True):
        assert row["display_name"] == r["displayName"]
        assert _none(row["api"]) == r.get("api") and _none(row["base_url"]) == r.get("baseURL")
        assert _none(row["api_key_env"]) == r.get("apiKeyEnv")
        assert list(row["default_input"]) == r["defaultInput"]
        assert (row["default_context_window"], row["default_max_tokens"]) == (
            r["defaultContextWindow"],
            r["defaultMaxTokens"],
        )
        models = got.models[got.models["route"] == r["provider"]].to_dict("records")
        assert [m["id"] for m in models] == [m["id"] for m in r["models"]]
        for want, m in zip(r["models"], models, strict=True):
            assert (m["name"], m["api"], m["base_url"]) == (want["name"], want["api"], want["baseUrl"])
            assert list(m["input"]) == want["input"]
            assert (m["context_window"], m["max_tokens"]) == (want["contextWindow"], want["maxTokens"])
            assert _none(m["compat"]) == want.get("compat")
            strict = (want.get("compat") or {}).get("supportsStrictMode")
            if strict is None:  # no compat layer decides: pi-ai's own default does
                assert m["strict_mode_source"] not in ("model compat", "route compat")
            else:
                assert (m["supports_strict_mode"], m["strict_mode_source"]) == (
                    strict,
                    "model compat" if "supportsStrictMode" in (_model_entry_compat(got, m) or {}) else "route compat",
                )


def _model_entry_compat(settings, row) -> dict[str, Any] | None:
    for route, profile in ((settings.data.get("llm-pi-ai") or {}).get("providers") or {}).items():
        if route == row["route"]:
            for entry in profile.get("models") or []:
                if entry.get("id") == row["id"]:
                    return entry.get("compat")
    return None


WITH_KEY = [(r, route) for r in ACCEPTED for route in r["dsh"]["llm_pi_ai"]["routes"] if "credential" in route]


@pytest.mark.parametrize("record,route", WITH_KEY, ids=[f"{r['id']}/{route['provider']}" for r, route in WITH_KEY])
def test_credential_refusal_matches_dsh(record, route):
    got = _load(record)
    unset = [f for f in got._findings if f.code == "api-key-unset" and f.path[2] == route["provider"]]
    if route["credential"]["ok"]:
        assert unset == []
        return
    assert route["credential"]["code"] == "MISSING_CREDENTIAL"
    assert [f.dsh_message for f in unset] == [route["credential"]["error"]]


SELECTIONS = [r for r in RECORDS if "default_model" in r["dsh"]]


@pytest.mark.parametrize("record", SELECTIONS, ids=[r["id"] for r in SELECTIONS])
def test_default_model_matches_dsh(record):
    got = _load(record)
    want = record["dsh"]["default_model"]
    codes = {f.code: f for f in got._findings if f.code.startswith("default-")}
    if not want["ok"]:
        assert want["error"] in _texts(codes.values())
        return
    assert (got.default_model["route"], got.default_model["model"]) == (want["provider"], want["model"])
    resolved = want["resolve"]
    assert got.default_model["exists"] is resolved["ok"]
    if resolved["ok"]:
        assert codes == {}
        row = got.model(want["provider"], want["model"])
        assert row is not None and list(row["input"]) == resolved["inputModalities"]
        assert row["context_window"] == resolved["contextWindow"]
    elif resolved["code"] == "UNKNOWN_MODEL":
        assert codes["default-model-missing"].dsh_message == resolved["error"]
    else:  # the adapter does not own the route: the runtime's own text comes first, so none is claimed
        assert resolved["code"] == "NO_ADAPTER" and "default-route-missing" in codes


def test_mount_refusals_are_finding_codes():
    assert set(CODES) >= MOUNT_REFUSALS
