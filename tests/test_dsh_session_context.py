"""What a DSH-written log says a step sent (its ``inputs``), and how its calls line up with the wire.

Inputs: logs the published DSH 0.1.0-rc.8 wrote in the lab (``data/dsh-*``), beside the HAR of the same run.
"""

from __future__ import annotations

import base64
import json

from conftest import REPO

import toolkit
from toolkit.analysis.verify import verify
from toolkit.layers.capability import check
from toolkit.wire.dsh_records import message_parts, split_call_id

DATA = REPO / "data"


def _har_bodies(folder: str) -> list[dict]:
    har = json.loads((DATA / folder / "capture.har").read_text(encoding="utf-8"))
    return [json.loads(e["request"]["postData"]["text"]) for e in har["log"]["entries"]]


def test_split_call_id_is_pi_ai_s_join_undone():
    assert split_call_id("call_0001|fc_0001") == ("call_0001", "fc_0001")
    assert split_call_id("call_abc") == ("call_abc", None)
    assert split_call_id("call_abc|") == ("call_abc", None)
    assert split_call_id(None) == (None, None)


def test_session_call_ids_are_the_wire_call_ids():
    for folder in ("dsh-before-fix", "dsh-after-fix", "dsh-image"):
        session = toolkit.load_capture(DATA / folder / "session.jsonl.zstd")
        on_wire = {
            item["call_id"]
            for body in _har_bodies(folder)
            for item in body.get("input") or ()
            if isinstance(item, dict) and item.get("type") == "function_call"
        }
        assert set(session.calls["call_id"]) <= on_wire and len(session.calls) > 0, folder
        assert set(session.tool_results["call_id"]) == set(session.calls["call_id"]), folder


def test_each_step_s_inputs_are_what_entered_the_context_since_the_step_before():
    cap = toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd")
    steps = list(cap.exchanges["exchange_id"])
    inputs = cap.inputs_wide()
    first = inputs[inputs["exchange_id"] == steps[0]]
    task = json.loads((DATA / "dsh-image" / "dsh-run.json").read_text(encoding="utf-8"))["argv"][-1]
    assert list(first["item_type"]) == ["message", "message"] and first["text"].iloc[0] == task
    for step, result in zip(steps[1:], cap.tool_results.itertuples(), strict=True):
        rows = inputs[(inputs["exchange_id"] == step) & (inputs["part_type"] == "text")]
        assert list(rows["call_id"]) == [result.call_id] and rows["text"].iloc[0] == result.text


def test_an_image_a_tool_read_is_an_input_of_the_next_step_with_its_size():
    cap = toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd")
    inputs = cap.inputs_wide()
    (image,) = inputs[inputs["part_type"] == "image"].itertuples()
    assert image.exchange_id == cap.exchanges["exchange_id"].iloc[-1] and image.media_type == "image/png"
    # the same image, as pi-ai put it on the wire in the same run
    (url,) = [
        part["image_url"]
        for body in _har_bodies("dsh-image")
        for item in body["input"]
        if item.get("type") == "function_call_output" and isinstance(item["output"], list)
        for part in item["output"]
        if part["type"] == "input_image"
    ]
    assert image.byte_size == len(base64.b64decode(url.partition(",")[2]))
    assert image.call_id == cap.calls.loc[cap.calls["name"] == "read_image", "call_id"].iloc[0]


def test_capability_reads_the_refused_image_from_dsh_s_log_as_from_the_har():
    settings = toolkit.load_settings(DATA / "dsh-image" / "settings.yaml", dsh="0.1.0-rc.8")
    session = check(settings, toolkit.load_capture(DATA / "dsh-image" / "session.jsonl.zstd"))
    har = check(settings, toolkit.load_capture(DATA / "dsh-image" / "capture.har"))
    assert list(session["verdict"]) == list(har["verdict"]) == ["declared-but-refused-downstream"]
    assert har["error_message"].iloc[0] in session["error_message"].iloc[0]
    assert "a DSH log keeps no HTTP status" in session["evidence"].iloc[0]


def test_a_call_seen_in_two_captures_of_one_run_counts_once():
    folder = DATA / "dsh-before-fix"
    settings = toolkit.load_settings(folder / "settings.yaml", dsh="0.1.0-rc.8")
    both = toolkit.load_captures([folder / "capture.har", folder / "session.jsonl.zstd"])
    result = verify(settings, both, dsh="0.1.0-rc.8")
    execution = next(r for r in result.results if r.layer == "execution")
    assert execution.summary == "DSH refused 2 of 2 calls"
    assert "(seen 4 times across the captures)" in execution.evidence[0]


def test_message_parts_of_a_user_message_with_an_attachment():
    data = {
        "role": "user",
        "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "attachment": {"attachmentId": "sha256:ab", "mediaType": "image/jpeg", "bytes": 12}},
        ],
    }
    text, image = message_parts("user/message", data)
    assert (text.item_type, text.part_type, text.text) == ("message", "text", "look")
    assert (image.part_type, image.media_type, image.byte_size, image.role) == ("image", "image/jpeg", 12, "user")
    assert message_parts("user/message", "not an object") == []


def test_the_refusal_dsh_recorded_replaces_its_template_in_the_report():
    folder = DATA / "dsh-before-fix"
    settings = toolkit.load_settings(folder / "settings.yaml", dsh="0.1.0-rc.8")
    result = verify(settings, toolkit.load_capture(folder / "session.jsonl.zstd"), dsh="0.1.0-rc.8")
    capability = next(r for r in result.results if r.layer == "capability")
    entries = [entry for entry, _ in capability.dsh_messages]
    assert len(entries) == len(set(entries))  # one text per entry point
    recorded = toolkit.load_capture(folder / "session.jsonl.zstd").tool_results["text"].iloc[-1]
    assert dict(capability.dsh_messages)["read_image"] == recorded


def test_whatif_judges_a_call_seen_in_two_captures_once():
    from toolkit.analysis.whatif import POLICIES, whatif

    folder = DATA / "dsh-before-fix"
    both = toolkit.load_captures([folder / "capture.har", folder / "session.jsonl.zstd"])
    rows = whatif(both, dsh="0.1.0-rc.8")
    session = toolkit.load_capture(folder / "session.jsonl.zstd")
    judged = session.calls[session.calls["name"] == "bash"]
    assert len(rows) == len(POLICIES) * len(judged)
    assert set(rows["call_id"]) == set(judged["call_id"])


def test_provenance_names_dsh_s_local_image_refusal_and_every_value_sent():
    from toolkit.analysis.provenance import table

    folder = DATA / "dsh-before-fix"
    rows = table(folder / "settings.yaml", captures=[folder / "capture.har"], sessions=[folder / "session.jsonl.zstd"])
    session = toolkit.load_capture(folder / "session.jsonl.zstd")
    (image,) = rows[(rows["field"] == "gw-coder.input") & (rows["question"] == "who finally validated the parameters")][
        "answer"
    ]
    assert image == "DSH refused the image before sending: " + session.tool_results["text"].iloc[-1]
    (filled,) = rows[(rows["field"] == "bash.justification") & (rows["question"] == "who filled the value")]["answer"]
    sent = [json.loads(a)["justification"] for a in session.calls.loc[session.calls["name"] == "bash", "arguments_raw"]]
    assert len(set(sent)) == 2 and all(f"justification={v!r} (1 call)" in filled for v in sent)
