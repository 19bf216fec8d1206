"""LiteLLM's StandardLoggingPayload JSONL (toolkit/sources/jsonl/litellm_payload.py) and real SpendLogs rows.

The fixtures are lines LiteLLM 1.110.2 wrote in the lab (``lab/litellm-proxy/log_callback.py``), copied from
``data/litellm-after-fix/`` (its Responses route) and ``data/litellm-responses-to-chat/`` (a Responses call it
served from a Chat Completions backend); expected values are read from the same lines, not typed in.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO

import toolkit
from toolkit.sources import jsonl
from toolkit.sources.jsonl import litellm, litellm_payload
from toolkit.wire.records import Decoded, EntryCount, Problem

JSONL = REPO / "tests" / "fixtures" / "jsonl"
RESPONSES = JSONL / "litellm_payload_responses.jsonl"
BRIDGED = JSONL / "litellm_payload_bridged.jsonl"
SPEND_BRIDGED = JSONL / "litellm_spend_bridged.jsonl"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _read(path: Path):
    records = list(jsonl.read(path, path.name))
    return (
        [r for r in records if isinstance(r, Decoded)],
        [r for r in records if isinstance(r, Problem)],
        [r for r in records if isinstance(r, EntryCount)],
    )


@pytest.mark.parametrize("path", [RESPONSES, BRIDGED])
def test_every_record_is_one_exchange(path):
    decoded, problems, (count,) = _read(path)
    raw = _lines(path)
    assert problems == [] and count.entries == len(raw) == len(decoded) >= 2
    for d, r in zip(decoded, raw, strict=True):
        ex = d.exchange
        assert litellm_payload.matches(r) and not litellm.matches(r)
        assert ex.log_id == r["id"] and ex.body_fidelity == "normalised" and ex.method == "POST"
        assert ex.status == 200 and r["status"] == "success"
        assert ex.started_at == pytest.approx(r["startTime"])
        assert ex.duration_ms == pytest.approx((r["endTime"] - r["startTime"]) * 1000)
        assert (ex.input_tokens, ex.output_tokens) == (r["prompt_tokens"], r["completion_tokens"])
        assert ex.provider == r["custom_llm_provider"]
        # the model as sent upstream: LiteLLM's "<provider>/<name>" without the provider
        assert ex.model == r["model"].removeprefix(f"{r['custom_llm_provider']}/")
        assert [t.name for t in d.tools] == [
            t.get("name") or t["function"]["name"] for t in r["model_parameters"]["tools"]
        ]


def test_the_endpoint_comes_from_the_response_object():
    """A Responses call LiteLLM bridged is logged with call_type aresponses but Chat tools and a chat.completion."""
    (native, *_), _, _ = _read(RESPONSES)
    (bridged, *_), _, _ = _read(BRIDGED)
    rn, rb = _lines(RESPONSES)[0], _lines(BRIDGED)[0]
    assert rn["call_type"] == rb["call_type"] == "aresponses"
    # api_base as LiteLLM logs it: the full URL on its Responses route, the base on the bridged one
    assert native.exchange.url == rn["api_base"] and rn["api_base"].endswith("/v1/responses")
    assert native.exchange.api == "responses"
    assert bridged.exchange.url == rb["api_base"] + "/chat/completions" and bridged.exchange.api == "chat"
    assert any("bridged" in i.message for i in bridged.issues) and not any(
        "bridged" in i.message for i in native.issues
    )
    # what LiteLLM sent the Chat backend: the absent strict as false
    assert {t.name: t.strict_state for t in bridged.tools} == {
        t["function"]["name"]: json.dumps(t["function"]["strict"]) for t in rb["model_parameters"]["tools"]
    }
    assert [c.name for c in bridged.calls] == [
        c["function"]["name"] for c in rb["response"]["choices"][0]["message"]["tool_calls"]
    ]


def test_a_partly_bad_file_keeps_the_good_records(tmp_path):
    good = RESPONSES.read_text(encoding="utf-8").splitlines()
    bad = ["{not json", '["a", "list"]', json.dumps({"call_type": "aresponses", "model": "x"})]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good[0], bad[0], good[1], bad[1], bad[2]]) + "\n", encoding="utf-8")
    decoded, problems, (count,) = _read(path)
    assert [d.exchange.location for d in decoded] == ["line 1", "line 3"]
    assert [(p.location, p.kind) for p in problems] == [
        ("line 2", "bad-entry"),
        ("line 4", "bad-entry"),
        ("line 5", "unknown-shape"),
    ]
    assert count.entries == 5


def test_key_like_values_are_redacted(tmp_path):
    row = _lines(RESPONSES)[0]
    key = "sk-lab-FAKE-2222222222222222222222222222"
    row["messages"][-1]["content"][0]["text"] += f" my key is {key}"
    row["model_parameters"]["user"] = key
    path = tmp_path / "litellm.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    cap = toolkit.load_capture(path, keep_bodies=True)
    assert len(cap.exchanges) == 1 and cap.redacted > 0
    for name in ("exchanges", "inputs", "input_parts", "bodies", "tools", "calls", "headers"):
        assert key not in getattr(cap, name).to_csv(), name


def test_the_file_is_recognised_as_jsonl():
    assert jsonl.recognize(RESPONSES.read_bytes())
    assert toolkit.load_capture(BRIDGED).exchanges["api"].tolist() == ["chat"] * len(_lines(BRIDGED))


def test_real_spend_rows_of_a_bridged_call():
    """SpendLogs rows built by LiteLLM's get_logging_payload: the client's Responses request, the backend's
    chat.completion; the response is left out with an Issue that says why."""
    decoded, problems, (count,) = _read(SPEND_BRIDGED)
    raw = _lines(SPEND_BRIDGED)
    assert problems == [] and count.entries == len(raw) == len(decoded)
    for d, r in zip(decoded, raw, strict=True):
        assert isinstance(r["proxy_server_request"], str) and isinstance(r["response"], str)  # JSON text columns
        assert json.loads(r["response"])["object"] == "chat.completion" and r["messages"] == "{}"
        assert d.exchange.api == "responses" and d.exchange.url == r["api_base"] + "/responses"
        assert d.exchange.log_id == r["request_id"] and d.exchange.duration_ms == r["request_duration_ms"]
        assert d.exchange.response_bytes is None
        assert any(i.kind == "body-missing" and "bridged" in i.message for i in d.issues)
        sent = json.loads(r["proxy_server_request"])
        assert [t.name for t in d.tools] == [t["name"] for t in sent["tools"]]
