"""The image-gate model against the real DSH 0.1.0-rc.8: every record of ``tests/fixtures/dsh/capability.json``.

``lab/dsh-fixtures/capability.mjs`` ran each gate (read_image, the MCP image rewrite, the web prompt and
model switch, the pi-ai adapter) for a model declaring [text], [text, image], nothing (route default), and
an adapter reporting no modalities. Here ``toolkit.knowledge.dsh_images`` must produce the same texts and
the same decisions, and the capability layer must judge those models the way DSH did.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from conftest import REPO

import toolkit
from toolkit.knowledge import dsh_images
from toolkit.layers.capability import check
from toolkit.layers.config import load_settings

FIXTURE = REPO / "tests" / "fixtures" / "dsh" / "capability.json"
DOC = json.loads(FIXTURE.read_text(encoding="utf-8"))
RECORDS = DOC["records"]
PATH, MEDIA = DOC["image_path"], DOC["mcp_media_type"]
NODE_MODULES = REPO / "lab" / "dsh-fixtures" / "node_modules"
GATE_ENTRY = {  # fixture gate -> dsh_images entry point
    "read_image": "read_image",
    "mcp": "mcp",
    "web_prompt": "web",
    "web_model_switch": "web model switch",
    "pi_ai_adapter": "pi-ai adapter",
}
SETTINGS = load_settings(
    text=json.dumps(DOC["settings"]), env={n: "sk-lab-FAKE" for n in DOC["env"]["set"]}, dsh=DOC["dsh_version"]
)


def _modalities(record) -> tuple[str, ...] | None:
    got = record["model"]["inputModalities"]
    return None if got is None else tuple(got)


def _refused(gate: str, result: dict) -> bool:
    """What DSH did at this gate: refused the image, or let it through."""
    assert "thrown" not in result, result
    if gate == "read_image":  # through the gate, the harness's filesystem answers with its sentinel
        return not (result["isError"] and result["error"]["message"].startswith(DOC["past_gate"]))
    if gate == "mcp":
        return [b["type"] for b in result["content"]] != ["text", "image", "text"]
    if gate == "pi_ai_adapter":  # through the guard, the next check asks for the attachment service
        return result["error"] != "pi-ai image input requires the durable attachment service"
    return not result["ok"]


def test_the_fixture_covers_every_modality_shape():
    assert DOC["dsh_version"] == dsh_images.DSH
    assert {_modalities(r) for r in RECORDS} == {("text",), ("text", "image"), None}
    assert set(GATE_ENTRY.values()) == set(dsh_images.GATES)


CELLS = [(r, gate) for r in RECORDS for gate in r["gates"]]


@pytest.mark.parametrize("record,gate", CELLS, ids=[f"{r['id']}/{g}" for r, g in CELLS])
def test_gate_decision_and_text_match_dsh(record, gate):
    cell = record["gates"][gate]
    assert cell["stub_touches"] == [] or all(t.startswith("ctx.userQuestions") for t in cell["stub_touches"]), (
        "the gate ran into a package the lab does not install"
    )
    entry, model, result = GATE_ENTRY[gate], record["id"], cell["result"]
    refused = _refused(gate, result)
    assert refused is dsh_images.gate_refuses(entry, _modalities(record))
    if not refused:
        return
    texts = dict(dsh_images.refusals(model, PATH, media_type=MEDIA))
    if gate == "read_image":
        assert result["isError"] and [b["text"] for b in result["content"]] == [texts["read_image"]]
        assert result["error"]["message"] == dsh_images.read_image_refusal(PATH, model)
    elif gate == "mcp":  # the image becomes text in place; no error, no prefix
        assert not result["isError"]
        assert [b["text"] for b in result["content"]] == ["before", texts["mcp"], "after"]
    elif gate == "web_prompt":
        assert result["error"] == {
            "code": "attachment-error",
            "message": dsh_images.web_refusal(model),
            "details": {"reason": "MODEL_DOES_NOT_SUPPORT_IMAGES"},
        }
    elif gate == "web_model_switch":
        err = result["error"]
        assert (err["code"], err["message"]) == ("model-unavailable", dsh_images.model_switch_refusal(model))
        assert texts["web model switch"] == f"Model operation failed: {err['code']}: {err['message']}"
    else:
        assert (result["errorName"], result["code"]) == ("LlmError", "UNSUPPORTED_CONTENT")
        assert result["error"] == texts["pi-ai adapter"]
        assert texts["headless stderr (pi-ai)"] == f"dsh: {result['code']}: {result['error']}"


ROUTE_REFUSALS = {
    "read_image/no-llm": lambda: dsh_images.tool_result_text(dsh_images.read_image_unresolved(PATH)),
    "mcp/no-llm": lambda: dsh_images.mcp_diagnostic(MEDIA, dsh_images.MCP_ROUTE_UNRESOLVED),
    "mcp/no-attachments": lambda: dsh_images.mcp_diagnostic(MEDIA, dsh_images.MCP_NO_ATTACHMENTS),
}


@pytest.mark.parametrize("record", DOC["route_refusals"], ids=[r["id"] for r in DOC["route_refusals"]])
def test_route_refusals_match_dsh(record):
    assert record["stub_touches"] == []
    texts = [b["text"] for b in record["result"]["content"]]
    want = ROUTE_REFUSALS[record["id"]]()
    assert texts == ([want] if record["gate"] == "read_image" else ["before", want, "after"])


def test_sources_name_the_packages_that_ran():
    for gate, entry in GATE_ENTRY.items():
        package = dsh_images.SOURCES[entry][0].split(" ")[0]
        name, version = package.rsplit("@", 1)
        assert (version, DOC["packages"][name]) == (DOC["dsh_version"], DOC["dsh_version"]), gate


_LINE = re.compile(r"lib/index\.js:(\d+)")


@pytest.mark.skipif(
    not NODE_MODULES.exists() and not os.environ.get("CI"),
    reason="lab/dsh-fixtures is not installed (make test installs it; CI always runs this)",
)
@pytest.mark.parametrize("entry", list(GATE_ENTRY.values()))
def test_source_lines_hold_the_text(entry):
    package, where = dsh_images.SOURCES[entry]
    if entry == "web model switch":  # the server half names its line inside the package field
        package, where = package.split(" lib/index.js")[0], "lib/index.js" + package.split(" lib/index.js")[1]
    name = package.rsplit("@", 1)[0]
    lines = (NODE_MODULES / name / "lib" / "index.js").read_text(encoding="utf-8").splitlines()
    marker = {
        "read_image": "does not declare image input; switch to an image-capable model",
        "mcp": "does not declare image input",
        "web": "does not support image input.",
        "web model switch": "does not accept image input, but this session already contains images",
        "pi-ai adapter": "does not support image input",
    }[entry]
    assert marker in lines[int(_LINE.search(where).group(1)) - 1]


def _line(model: str, content: list) -> dict:
    body = {"model": model, "stream": False, "input": [{"role": "user", "content": content}]}
    resp = {"id": "r", "object": "response", "status": "completed", "model": model, "output": []}
    url = DOC["settings"]["llm-pi-ai"]["providers"][DOC["route"]]["baseURL"] + "/responses"
    return {"request": {"method": "POST", "url": url, "body": body}, "response": {"status": 200, "body": resp}}


def test_capability_layer_judges_the_models_as_dsh_did(tmp_path: Path):
    """One request per configured model, shaped by what DSH did: an image where its gates admit one, pi-ai's
    placeholder where they refused (a wire capture holds no tool refusal, so the texts are the templates)."""
    configured = [r for r in RECORDS if r["model"]["inputModalities"] is not None]
    lines = []
    for r in configured:
        refused = _refused("pi_ai_adapter", r["gates"]["pi_ai_adapter"]["result"])
        image = {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,iVBORw0KGgo="}
        placeholder = {"type": "input_text", "text": dsh_images.PLACEHOLDER_USER}
        lines.append(_line(r["id"], [{"type": "input_text", "text": "see"}, placeholder if refused else image]))
    log = tmp_path / "gates.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = check(SETTINGS, toolkit.load_capture(log))
    assert list(out["model"]) == [r["id"] for r in configured]
    for r, row in zip(configured, out.to_dict("records"), strict=True):
        assert tuple(row["declared_input"]) == _modalities(r)
        refused = {g: _refused(g, c["result"]) for g, c in r["gates"].items()}
        assert len(set(refused.values())) == 1  # a declared list: every gate agrees
        assert row["dsh_before_sending"] == ("refuses" if refused["pi_ai_adapter"] else "sends")
        if refused["pi_ai_adapter"]:
            assert row["verdict"] == "undeclared-refused-locally" and row["placeholder"]
            messages = dict(row["dsh_messages"])
            assert row["dsh_message"] == messages[dsh_images.PRIMARY]
            recorded_read = r["gates"]["read_image"]["result"]["content"][0]["text"]
            assert messages["read_image"] == recorded_read.replace(f'"{PATH}"', f'"{dsh_images.PATH_UNKNOWN}"')
            recorded_mcp = r["gates"]["mcp"]["result"]["content"][1]["text"]
            assert messages["mcp"] == recorded_mcp.replace(MEDIA, dsh_images.MEDIA_TYPE_UNKNOWN, 1)
            assert messages["pi-ai adapter"] == r["gates"]["pi_ai_adapter"]["result"]["error"]
            assert messages["web"] == r["gates"]["web_prompt"]["result"]["error"]["message"]
        else:
            assert row["verdict"] == "declared-and-accepted" and row["dsh_messages"] == ()
