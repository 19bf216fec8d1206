"""Input parts stored once (issue 17): ``inputs`` references ``input_parts``; ``inputs_wide()`` is the old shape.

The wide view is checked against a frame built here the way ``inputs`` was built before, from the
readers' records, so a join that lost, reordered or retyped a value fails.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.capture import frames
from toolkit.capture.load import part_id
from toolkit.capture.redact import redact_text
from toolkit.sources import detect

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
SECRET = "sk-lab-FAKE-0123456789abcdefghijklmnop"


def _old_inputs(path: Path, *, redact: bool = True) -> pd.DataFrame:
    """``inputs`` as it was built before parts were stored once: one full row per part per request."""
    fmt = detect.detect(path)
    rows = []
    for rec in detect.reader_for(fmt)(path, path.name):
        if not isinstance(rec, toolkit.wire.records.Decoded):
            continue
        for p in rec.inputs:
            text = p.text
            preview = None if text is None else text[: frames.TEXT_PREVIEW]
            rows.append(
                (
                    rec.exchange.exchange_id,
                    p.item_index,
                    p.part_index,
                    p.role,
                    p.item_type,
                    p.part_type,
                    p.call_id,
                    p.name,
                    p.media_type,
                    p.byte_size,
                    None if text is None else len(text),
                    redact_text(preview) if redact and preview is not None else preview,
                    p.image_dropped,
                )
            )
    return frames.INPUTS_WIDE.from_rows(rows)


def _stored(parts: pd.DataFrame) -> list[tuple]:
    """Each row's ``INPUT_PART`` values as plain Python values (a missing one as None)."""
    cols = parts[list(frames.INPUT_PART)].astype(object)
    return [tuple(None if pd.isna(v) else v for v in row) for row in cols.itertuples(index=False)]


CASES = [
    DATA / "busy-day" / "gateway.jsonl",
    DATA / "before-fix" / "capture.har",
    DATA / "after-fix" / "capture.mitm",
    DATA / "dsh-image" / "session.jsonl.zstd",
]


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_wide_view_is_the_old_inputs_frame_row_for_row(path):
    for redact in (True, False):
        cap = toolkit.load_capture(path, redact=redact)
        wide = cap.inputs_wide()
        pd.testing.assert_frame_equal(wide, _old_inputs(path, redact=redact))
        assert frames.INPUTS_WIDE.mismatches(wide) == []


def test_each_part_is_stored_once_with_its_uses_and_first_request():
    cap = toolkit.load_capture(DATA / "busy-day" / "gateway.jsonl")
    parts, refs = cap.input_parts, cap.inputs_sent()
    assert parts["part_id"].is_unique and set(refs["part_id"]) == set(parts["part_id"])
    counts = refs["part_id"].value_counts()
    assert (parts.set_index("part_id")["uses"] == counts.reindex(parts["part_id"])).all()
    assert int(parts["uses"].sum()) == len(refs) > len(parts)  # the busy day resends its histories
    # first_exchange_id is the first request that sent the part, and parts are in the order first sent
    first = refs.drop_duplicates("part_id")
    assert list(first["part_id"]) == list(parts["part_id"])
    assert list(first["exchange_id"]) == list(parts["first_exchange_id"])
    # the id is the hash of what the row holds, so it is the same in every load and on every machine
    ids = [part_id(row) for row in _stored(parts)]
    assert ids == list(parts["part_id"])


def test_the_wide_view_narrows_to_columns_requests_and_parts():
    cap = toolkit.load_capture(DATA / "busy-day" / "gateway.jsonl")
    wide = cap.inputs_wide()
    some = cap.inputs_wide(["text"])
    assert list(some.columns) == ["exchange_id", "item_index", "part_index", "text"]
    pd.testing.assert_frame_equal(some, wide[list(some.columns)])
    xid = cap.exchanges["exchange_id"].iloc[5]
    only = wide[wide["exchange_id"] == xid].reset_index(drop=True)  # a narrowed view is numbered from 0
    pd.testing.assert_frame_equal(cap.inputs_wide(exchange_ids=[xid]), only)
    outputs = cap.input_parts[cap.input_parts["item_type"] == "function_call_output"]
    assert len(outputs)
    only = wide[wide["item_type"] == "function_call_output"].reset_index(drop=True)
    pd.testing.assert_frame_equal(cap.inputs_wide(parts=outputs), only)
    with pytest.raises(ValueError, match="cannot select"):
        cap.inputs_wide(["part_id"])


def test_an_empty_capture_has_typed_empty_input_frames(tmp_path):
    p = tmp_path / "empty.har"
    p.write_text('{"log": {"version": "1.2", "entries": []}}')
    cap = toolkit.load_capture(p)
    for name in ("inputs", "input_parts"):
        assert frames.CAPTURE[name].mismatches(getattr(cap, name)) == [], name
    assert frames.INPUTS_WIDE.mismatches(cap.inputs_wide()) == [] and cap.inputs_wide().empty


def test_stored_parts_grow_with_the_conversation_not_its_square(tmp_path, write_conversation):
    sizes = {}
    for n in (10, 20, 40):
        p = tmp_path / f"conv-{n}.har"
        write_conversation(p, n, repeat=(10, 30), authorization=f"Bearer {SECRET}")
        cap = toolkit.load_capture(p)
        sizes[n] = (len(cap.inputs_sent()), len(cap.input_parts))
        # the system prompt and the three parts of each turn, each once (and, past each prefix, once in inputs)
        assert len(cap.input_parts) == 1 + 3 * n == len(cap.inputs)
        assert len(cap.inputs_sent()) == n + 3 * n * (n + 1) // 2
        assert cap.input_parts["uses"].iloc[0] == n  # the system prompt, in every request
    assert sizes[40][1] - sizes[20][1] == 2 * (sizes[20][1] - sizes[10][1])  # linear, where inputs is quadratic


def test_a_secret_in_a_part_is_redacted_before_it_is_hashed(tmp_path):
    body = {"model": "m", "input": [{"role": "user", "content": [{"type": "input_text", "text": f"key {SECRET}"}]}]}
    entry = {
        "startedDateTime": "2026-11-30T10:00:00.000Z",
        "time": 1.0,
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8080/v1/responses",
            "headers": [],
            "postData": {"mimeType": "application/json", "text": json.dumps(body)},
        },
        "response": {"status": 200, "headers": [], "content": {"mimeType": "application/json", "text": "{}"}},
    }
    p = tmp_path / "secret.har"
    p.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}), encoding="utf-8")
    red, raw = toolkit.load_capture(p), toolkit.load_capture(p, redact=False)
    assert SECRET not in red.input_parts.astype(str).to_csv() and SECRET in raw.input_parts["text"].iloc[0]
    # the id is the hash of the redacted row: it cannot confirm a guessed secret
    assert [red.input_parts["part_id"].iloc[0]] == [part_id(row) for row in _stored(red.input_parts)]
    assert red.input_parts["part_id"].iloc[0] != raw.input_parts["part_id"].iloc[0]
