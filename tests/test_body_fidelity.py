"""Every reader says how close its bodies are to the wire (``exchanges.body_fidelity``), for every exchange."""

from __future__ import annotations

import pytest
from conftest import REPO

import toolkit
from toolkit.sources.registry import FORMATS

#: What each reader sets on the exchanges of its example (the value, or the values a mixed file has).
EXPECTED = {
    "mitm": {"wire"},
    "har": {"wire"},
    "dsh-session": {"normalised"},
    "sse": {"wire"},
}


@pytest.mark.parametrize("fmt", FORMATS, ids=[f.name for f in FORMATS])
def test_every_exchange_of_every_reader_has_a_body_fidelity(fmt):
    cap = toolkit.load_capture(REPO / fmt.example, format=fmt.name)
    assert len(cap.exchanges) > 0
    assert not cap.exchanges["body_fidelity"].isna().any(), cap.exchanges.loc[
        cap.exchanges["body_fidelity"].isna(), "exchange_id"
    ].tolist()[:5]
    if fmt.name in EXPECTED:
        assert set(cap.exchanges["body_fidelity"]) == EXPECTED[fmt.name]


def test_every_har_exchange_is_wire():
    """HAR exchanges had no body_fidelity at all: content.text (or its base64) is the body as received."""
    cap = toolkit.load_capture(REPO / "data" / "before-fix" / "capture.har")
    assert len(cap.exchanges) > 1 and set(cap.exchanges["body_fidelity"]) == {"wire"}
