"""Layer 3: declared input against what went on the wire and what the backend answered."""

from __future__ import annotations

import base64
import json

from conftest import REPO

import toolkit
from toolkit.knowledge import dsh_images
from toolkit.layers.capability import CHECK, check
from toolkit.layers.config import load_settings, search

DATA = REPO / "data"
BEFORE = load_settings(DATA / "configs" / "settings.before.yaml", env={})
AFTER = load_settings(DATA / "configs" / "settings.after.yaml", env={})
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()


def verdicts(frame) -> list[str]:
    return list(frame["verdict"].astype(str))


def test_before_fix_images_never_left_dsh():
    # the pi-ai client's recording (the screenshot attached, replaced by pi-ai's placeholder) and the log the
    # published DSH 0.1.0-rc.8 wrote in the lab's before-fix run (the model's read_image, refused by DSH)
    out = check(BEFORE, toolkit.load_capture(DATA / "before-fix" / "capture.har"))
    assert verdicts(out) == ["undeclared-refused-locally"] * 4
    dsh_run = DATA / "dsh-before-fix"
    in_dsh = check(
        load_settings(dsh_run / "settings.yaml", env={}, dsh="0.1.0-rc.8"),
        toolkit.load_captures([dsh_run / "capture.har", dsh_run / "session.jsonl.zstd"]),
    )
    assert verdicts(in_dsh) == ["undeclared-refused-locally"]  # DSH sent no image, so the HAR has no row
    http, session = out.iloc[0], in_dsh.iloc[0]
    assert (http["route"], http["route_match"], http["declared_input"], http["input_source"]) == (
        "gateway",
        "baseURL path",
        ("text",),
        "route defaultInput (default [text])",
    )
    assert (http["images_sent"], http["placeholder"], http["dsh_before_sending"]) == (0, True, "refuses")
    # no refusal recorded on the wire: the text a DSH user most likely sees, and every other one
    assert http["dsh_message"] == "The current model does not support images; switch to a model that does"
    assert http["dsh_messages"] == dsh_images.refusals("gw-coder")
    assert dict(http["dsh_messages"])["pi-ai adapter"] == 'pi-ai model "gw-coder" does not support image input'
    # the session recorded read_image's refusal: that text, exactly as the model got it, with its path
    read_image = (
        'Error: cannot read "screenshot.png" as an image: model "gw-coder" does not declare image input; '
        "switch to an image-capable model to read images"
    )
    assert session["route_match"] == "session" and session["dsh_message"] == read_image
    assert session["dsh_messages"][0] == ("read_image", read_image)
    assert [e for e, _ in session["dsh_messages"]] == list(dsh_images.ENTRY_POINTS)
    assert list(search(out, "does not support images; switch to a model")["exchange_id"]) == list(out["exchange_id"])
    assert CHECK.mismatches(out) == [] and CHECK.mismatches(in_dsh) == []


def test_after_fix_declared_and_accepted():
    cap = toolkit.load_capture(DATA / "after-fix" / "capture.mitm")
    out = check(AFTER, cap)
    assert verdicts(out) == ["declared-and-accepted"] * 2
    assert CHECK.mismatches(out) == [] and out["dsh_message"].isna().all()
    started = cap.exchanges.set_index("exchange_id")["started_at"]
    assert list(out["started_at"]) == list(started[list(out["exchange_id"])])  # to the microsecond
    row = out.iloc[0]
    assert (row["images_sent"], row["media_types"], row["status"], row["dsh_before_sending"]) == (
        1,
        "image/png",
        200,
        "sends",
    )


def test_declared_but_refused_downstream():
    out = check(AFTER, toolkit.load_capture(DATA / "image-refused" / "gateway.jsonl"))
    assert verdicts(out) == ["declared-but-refused-downstream"]
    row = out.iloc[0]
    assert (row["status"], row["error_code"]) == (400, "unsupported_image_input")
    assert "Image input is not supported by model gw-coder on this gateway." in row["evidence"]


def test_a_capture_from_another_configuration_is_called_out():
    out = check(BEFORE, toolkit.load_capture(DATA / "after-fix" / "capture.har"))
    assert verdicts(out) == ["config-does-not-match-capture"] * 2


def _line(path: str, model: str, content: list, status: int = 200) -> dict:
    body = {"model": model, "stream": False, "input": [{"role": "user", "content": content}]}
    resp = {"id": "r", "object": "response", "status": "completed", "model": model, "output": []}
    return {
        "request": {"method": "POST", "url": f"http://127.0.0.1:9{path}/responses", "body": body},
        "response": {"status": status, "body": resp},
    }


def test_undeclared_but_capable_and_unknown_routes(tmp_path):
    settings = load_settings(
        text="""
llm-pi-ai:
  providers:
    text-gw:
      api: openai-responses
      baseURL: http://127.0.0.1:9/a/v1
      models:
        - id: m1
    vision-gw:
      api: openai-responses
      baseURL: http://127.0.0.1:9/b/v1
      models:
        - id: m1
          input: [text, image]
""",
        env={},
    )
    placeholder = [
        {"type": "input_text", "text": "see"},
        {"type": "input_text", "text": "(image omitted: model does not support images)"},
    ]
    image = [
        {"type": "input_text", "text": "see"},
        {"type": "input_image", "detail": "auto", "image_url": f"data:image/png;base64,{PNG}"},
    ]
    lines = [_line("/a/v1", "m1", placeholder), _line("/b/v1", "m1", image), _line("/c/v1", "m7", image)]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = check(settings, toolkit.load_capture(log))
    assert verdicts(out) == ["undeclared-but-capable", "declared-and-accepted", "route-not-in-settings"]
    assert "accepted images on route `vision-gw` (log.jsonl:2)" in out.iloc[0]["evidence"]
    assert out.iloc[1]["image_bytes"] == 48
    # only the undeclared row names DSH's texts; a declared model and an unknown route have none
    assert list(out["dsh_messages"]) == [dsh_images.refusals("m1"), (), ()]
    assert out["dsh_message"].isna().tolist() == [False, True, True]
    assert CHECK.mismatches(out) == []


def test_requests_without_images_are_not_rows(tmp_path):
    log = tmp_path / "text.jsonl"
    log.write_text(
        json.dumps(_line("/x/v1", "gw-coder", [{"type": "input_text", "text": "hi"}])) + "\n", encoding="utf-8"
    )
    out = check(AFTER, toolkit.load_capture(log))
    assert out.empty and CHECK.mismatches(out) == []
    assert check(None, toolkit.load_captures([])).pipe(CHECK.mismatches) == []


def test_other_apis_placeholders_against_the_after_config():
    # those runs used models without `input`, so pi-ai dropped the screenshot: the after settings disagree
    out = check(AFTER, toolkit.load_capture(DATA / "other-apis" / "capture.har"))
    assert verdicts(out) == ["config-does-not-match-capture"] * 8 and out["placeholder"].all()


def test_every_entry_point_has_a_source_and_recorded_refusals_fill_in_their_details():
    assert list(dsh_images.SOURCES) == list(dsh_images.ENTRY_POINTS)
    mcp = dsh_images.mcp_refusal("m1", "image/png")
    assert mcp == (
        '[image unavailable: image/png; model "m1" does not declare image input; '
        "raw image data remains available to programmatic callers]"
    )
    assert dsh_images.parse_refusal("before\n" + mcp) == {"media_type": "image/png", "model": "m1"}
    assert dict(dsh_images.refusals("m1", media_type="image/png"))["mcp"] == mcp
    read = dsh_images.parse_refusal(dict(dsh_images.refusals("m1", "a b.png"))["read_image"])
    assert read == {"path": "a b.png", "model": "m1"}
    assert dsh_images.parse_refusal(dsh_images.WEB_TOAST) is None
