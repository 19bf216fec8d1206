"""Fragment matching: a piece of one of DSH's (or pi-ai's) exact texts is triaged to the rule of the full
text it came from, with that full text shown; a piece that fits the texts of several rules gets them all.

The first test is the incident this project was built from. Its three texts are written out here, not
built from the knowledge modules, so that no change elsewhere can move them: never relax it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from toolkit.analysis import triage
from toolkit.knowledge import dsh_images as img
from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge import dsh_settings as dsh
from toolkit.knowledge.messages import Message

JUSTIFICATION = "invalid justification: expected a non-empty sentence"
SAME_MODE = (
    'sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current '
    '"danger-full-access" mode'
)
IMAGE = 'model "gpt-6-astra" does not declare image input'
READ_IMAGE_FULL = (
    'Error: cannot read "<path>" as an image: model "gpt-6-astra" does not declare image input; '
    "switch to an image-capable model to read images"
)
MCP_FULL = (
    '[image unavailable: <media_type>; model "gpt-6-astra" does not declare image input; '
    "raw image data remains available to programmatic callers]"
)


# ---- the incident: never relax -----------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "Error: "])
def test_the_incidents_three_texts_are_triaged_to_their_rules(prefix):
    """The three texts of the incident, as DSH wrote them (and as the model got them, ``Error: ``-prefixed)."""
    found = triage.classify(prefix + JUSTIFICATION)
    assert (found.rule_id, found.layer, found.matched) == ("dsh-invalid-justification", "runtime-policy", "text")

    found = triage.classify(prefix + SAME_MODE)
    assert (found.rule_id, found.layer, found.matched) == ("dsh-escalation-same-mode", "runtime-policy", "text")

    # the tail of read_image's refusal and of the MCP text: both readings, the layer they share, and the
    # full texts; not the ACP rule, whose published text is another one
    found = triage.classify(prefix + IMAGE)
    assert (found.rule_id, found.layer, found.matched) == (
        "dsh-read-image-undeclared|dsh-mcp-image-undeclared",
        "config-capability",
        "fragment",
    )
    assert found.candidates == (
        triage.Candidate(
            "dsh-read-image-undeclared",
            "config-capability",
            "fragment",
            READ_IMAGE_FULL,
            "dsh_images.read_image_refusal",
            "read_image",
        ),
        triage.Candidate(
            "dsh-mcp-image-undeclared", "config-capability", "fragment", MCP_FULL, "dsh_images.mcp_refusal", "mcp"
        ),
    )
    assert found.fix is None and found.source is None  # each candidate names its rule; none is chosen
    assert found.message == prefix + IMAGE


@pytest.mark.parametrize(
    "text, rule_id, layer, matched",
    [
        # pieces of the incident's texts
        ("expected a non-empty sentence", "dsh-invalid-justification", "runtime-policy", "fragment"),
        ("justification: expected a non-empty sentence", "dsh-invalid-justification", "runtime-policy", "fragment"),
        ("invalid justification: expected a non-empty", "dsh-invalid-justification", "runtime-policy", "fragment"),
        (
            '"danger-full-access" is not strictly wider than this call\'s current "danger-full-access" mode',
            "dsh-escalation-same-mode",
            "runtime-policy",
            "fragment",
        ),
        # the requested mode is not in the piece: same-mode and narrower are both possible
        (
            'is not strictly wider than this call\'s current "danger-full-access" mode',
            "dsh-escalation-same-mode|dsh-escalation-not-wider",
            "runtime-policy",
            "fragment",
        ),
        (
            'sandbox escalation to "danger-full-access" is not strictly wider',
            "dsh-escalation-same-mode|dsh-escalation-not-wider",
            "runtime-policy",
            "fragment",
        ),
        (
            '"gpt-6-astra" does not declare image input',
            "dsh-read-image-undeclared|dsh-mcp-image-undeclared",
            "config-capability",
            "fragment",
        ),
        (
            "does not declare image input",
            "dsh-read-image-undeclared|dsh-mcp-image-undeclared",
            "config-capability",
            "fragment",
        ),
        ("as an image: " + IMAGE, "dsh-read-image-undeclared", "config-capability", "fragment"),
        (IMAGE + "; switch to an image-capable model", "dsh-read-image-undeclared", "config-capability", "fragment"),
        (IMAGE + "; raw image data", "dsh-mcp-image-undeclared", "config-capability", "fragment"),
        (f"  {IMAGE}\n", "dsh-read-image-undeclared|dsh-mcp-image-undeclared", "config-capability", "fragment"),
        # the same texts with other model ids and modes
        (
            'model "deepseek-v4-flash" does not declare image input',
            "dsh-read-image-undeclared|dsh-mcp-image-undeclared",
            "config-capability",
            "fragment",
        ),
        (
            'model "openrouter/qwen2.5-vl:free" does not declare image input',
            "dsh-read-image-undeclared|dsh-mcp-image-undeclared",
            "config-capability",
            "fragment",
        ),
        (
            rt.tool_result_text(img.read_image_refusal("docs/diagram 1.png", "claude-x")),
            "dsh-read-image-undeclared",
            "config-capability",
            "text",
        ),
        (
            'sandbox escalation to "workspace-write" is not strictly wider than this call\'s current '
            '"workspace-write" mode',
            "dsh-escalation-same-mode",
            "runtime-policy",
            "text",
        ),
        (
            'sandbox escalation to "workspace-write" is not strictly wider than this call\'s current '
            '"danger-full-access" mode',
            "dsh-escalation-not-wider",
            "runtime-policy",
            "text",
        ),
        (
            '"workspace-write" is not strictly wider than this call\'s current "workspace-write" mode',
            "dsh-escalation-same-mode",
            "runtime-policy",
            "fragment",
        ),
        (
            '"workspace-write" is not strictly wider than this call\'s current "danger-full-access" mode',
            "dsh-escalation-not-wider",
            "runtime-policy",
            "fragment",
        ),
    ],
)
def test_pieces_and_variants_of_the_incidents_texts(text, rule_id, layer, matched):
    found = triage.classify(text)
    assert (found.rule_id, found.layer, found.matched) == (rule_id, layer, matched)
    assert triage.classify(rt.tool_result_text(text)).rule_id == rule_id


def test_a_fragment_shows_the_values_it_holds_and_marks_the_rest():
    found = triage.classify('"danger-full-access" is not strictly wider than this call\'s current')
    assert [(c.rule_id, c.text) for c in found.candidates] == [
        (
            "dsh-escalation-same-mode",
            'sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current '
            '"<effective>" mode',
        ),
        (
            "dsh-escalation-not-wider",
            'sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current '
            '"<effective>" mode',
        ),
    ]
    found = triage.classify('provider "my-route" lists model "m-1" more than once')
    assert (found.rule_id, found.matched) == ("dsh-settings-duplicate-model", "fragment")
    assert found.explanation == next(r for r in triage.load_rules() if r.id == found.rule_id).explain
    assert [c.text for c in found.candidates] == [dsh.duplicate_model("my-route", "m-1")]
    assert found.candidates[0].template == "dsh_settings.duplicate_model"


def test_a_value_cut_by_the_fragment_is_not_shown_as_if_whole():
    found = triage.classify('ull-access" is not strictly wider than this call\'s current "danger-full-access" mode')
    # the piece shows the end of the requested mode only: it may be "danger-full-access" (same mode) or not
    assert found.rule_id == "dsh-escalation-same-mode|dsh-escalation-not-wider"
    assert {c.text for c in found.candidates} == {
        'sandbox escalation to "<target>" is not strictly wider than this call\'s current "danger-full-access" mode'
    }


def test_the_full_text_of_a_known_text_names_its_template_and_entry_point():
    for entry, text in img.refusals("gw-coder", "shot.png", media_type="image/png"):
        found = triage.classify(text)
        assert found.matched == "text" and len(found.candidates) == 1, (entry, found)
        assert found.candidates[0].entry_point == entry and found.candidates[0].text == text


# ---- what is too short to say anything --------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "invalid",
        "not found",
        "is not supported",
        "must be a string",
        "expected a",
        "Error: invalid",
        'model "gpt-6-astra" does not',  # 17 bytes of DSH's wording; the rest is a value
        '"a-very-long-model-identifier-of-forty-characters" does not',
        "不支持图片",  # 15 bytes
    ],
)
def test_short_or_generic_pieces_stay_unknown(text):
    found = triage.classify(text)
    assert (found.rule_id, found.layer, found.matched, found.candidates) == ("unknown", "unknown", None, ())


def test_the_threshold_counts_the_known_texts_own_bytes():
    """One byte below ``MIN_FRAGMENT_BYTES`` of DSH's wording is unknown, at it the piece is read."""
    below, at = img.MARKER[: triage.MIN_FRAGMENT_BYTES - 1], img.MARKER[: triage.MIN_FRAGMENT_BYTES]
    assert triage.classify(below).rule_id == "unknown"
    assert triage.classify(at).rule_ids == ("dsh-read-image-undeclared", "dsh-mcp-image-undeclared")
    # a Chinese character is three bytes: DSH's Chinese toast is read from nine characters
    assert triage.classify("当前模型不支持图片").rule_id == "dsh-web-image-toast"


# ---- several rules: candidates, never a pick ----------------------------------------------------


def test_candidates_of_different_layers_leave_the_layer_unknown():
    found = triage.classify('escalation to "danger-full-access" requires approval, but no approval')
    assert found.rule_ids == ("dsh-escalation-no-approval-service", "dsh-escalation-no-approval-channel")
    assert {c.layer for c in found.candidates} == {"config-capability", "runtime-policy"}
    assert (found.rule_id, found.layer, found.fix, found.source) == (
        "dsh-escalation-no-approval-service|dsh-escalation-no-approval-channel",
        "unknown",
        None,
        None,
    )
    assert isinstance(found.explanation, Message)
    assert found.explanation == (
        "2 rules could have produced this text (dsh-escalation-no-approval-service, "
        "dsh-escalation-no-approval-channel); the text does not say which: each candidate names its rule "
        "and the full text it fits"
    )
    assert "dsh-escalation-no-approval-service" in found.explanation.render("zh-CN")


def test_a_whole_text_of_one_rule_that_is_a_piece_of_anothers_is_both():
    """A field-report rule's pattern matches this text whole, and it is also the tail of DSH's text."""
    found = triage.classify("justification is only valid together with sandbox_permissions")
    assert found.matched == "text"
    assert [(c.rule_id, c.matched) for c in found.candidates] == [
        ("tool-conditional-argument", "text"),
        ("dsh-escalation-lone-justification", "fragment"),
    ]
    assert found.layer == "runtime-policy"
    assert found.candidates[1].text == rt.LONE_JUSTIFICATION


def test_a_text_that_is_its_rules_own_stays_that_rule():
    """pi-ai's adapter text is also the tail of the headless stderr line, which prints that same text."""
    found = triage.classify(img.adapter_refusal("gw-coder"))
    assert (found.rule_id, found.matched) == ("dsh-pi-ai-adapter-image", "text")


# ---- the templates, and user rules ----------------------------------------------------------------


def test_templates_hold_every_dsh_image_entry_point_and_every_template_rule():
    known = triage.templates()
    assert {t.entry_point for t in known} - {None} == set(img.ENTRY_POINTS)
    refs = {t.ref for t in known}
    assert {r.template.ref for r in triage.load_rules() if r.template is not None} <= refs
    assert {"dsh_runtime.EMPTY_JUSTIFICATION", "dsh_runtime.not_strictly_wider", "dsh_images.mcp_refusal"} <= refs


def test_fragments_follow_user_rules():
    ours = {
        "id": "dsh-invalid-justification",
        "layer": "serialization-protocol",
        "match": "^invalid justification: expected a non-empty sentence$",
        "explain": "Ours.",
        "fix": "Ours.",
        "source": "my notes",
    }
    found = triage.classify("expected a non-empty sentence", rules=triage.load_rules([ours]))
    assert (found.rule_id, found.layer, found.explanation) == (
        "dsh-invalid-justification",
        "serialization-protocol",
        "Ours.",
    )
    assert triage.classify("expected a non-empty sentence").layer == "runtime-policy"  # the packaged rule again


# ---- pieces the tests were not written from: every known text a rule catches ------------------

_VALUE = st.from_regex(r"[a-z][a-z0-9.-]{0,14}", fullmatch=True)


def _owned_templates() -> list[triage.Template]:
    rules = triage.load_rules()
    return [
        t
        for t in triage.templates(rules)
        if triage.classify(t.text, rules=rules).matched == "text" and _size_of_wording(t) >= triage.MIN_FRAGMENT_BYTES
    ]


def _size_of_wording(t: triage.Template) -> int:
    return sum(len(p.encode()) for p in t.pieces[::2])


OWNED = _owned_templates()


def test_the_property_below_runs_over_every_rule_with_a_known_text():
    owners = {triage.classify(t.text).candidates[0].rule_id for t in OWNED}
    assert {r.id for r in triage.load_rules() if r.template is not None} <= owners
    assert {"dsh-invalid-justification", "dsh-escalation-not-wider", "dsh-read-image-undeclared"} <= owners
    assert len(OWNED) >= 50


@st.composite
def _piece(draw):
    """A known text filled with random values, and a contiguous piece of it holding at least
    ``MIN_FRAGMENT_BYTES`` of the text's own wording (after the ``Error: `` prefix and white space)."""
    template = draw(st.sampled_from(OWNED))
    names = list(dict.fromkeys(template.pieces[1::2]))
    pool = draw(st.lists(_VALUE, min_size=1, max_size=3))  # placeholders often share a value (a same-mode request)
    values = {n: draw(st.sampled_from(pool)) for n in names}
    chars, wording = [], []
    for i, piece in enumerate(template.pieces):
        text = piece if i % 2 == 0 else values[piece]
        chars.append(text)
        wording.extend([i % 2 == 0] * len(text))
    full = "".join(chars)
    start = draw(st.integers(0, len(full) - 1))
    end = draw(st.integers(start + 1, len(full)))
    piece = full[start:end]
    skip = len(rt.ERROR_PREFIX) if piece.startswith(rt.ERROR_PREFIX) else 0
    body = piece[skip:]
    lead = len(body) - len(body.lstrip())
    body = body.strip()
    first = start + skip + lead
    own = sum(len(full[k].encode()) for k in range(first, first + len(body)) if wording[k])
    assume(own >= triage.MIN_FRAGMENT_BYTES)
    return template, full, piece


@settings(
    max_examples=400,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(_piece())
def test_random_pieces_of_every_known_text_are_triaged_to_its_rule(drawn):
    """The rule that catches the full text is among the piece's readings. The one allowance: a piece that
    is itself the complete text of another rule's own known text contained in this one (pi-ai's adapter
    text inside the headless stderr line) is that rule's."""
    template, full, piece = drawn
    expected = triage.classify(full).candidates[0].rule_id
    found = triage.classify(piece)
    if expected in found.rule_ids:
        return
    assert found.matched == "text" and len(found.candidates) == 1, (template.ref, piece, found)
    ref = found.candidates[0].template
    assert any(t.ref == ref and t.text in template.text for t in triage.templates()), (template.ref, piece, found)


def test_a_piece_cut_inside_the_last_value_before_the_final_stop_is_read():
    """``… exceeds limit of 1.5`` of ``… exceeds limit of 1.5.``: the piece ends inside the last value, whose own
    ``.`` is the character the text's final stop starts with (the property test above drew it as
    ``a000000000000.0``); a value swallowing more wording than that is still refused."""
    piece = "Invalid schema for function 'f': 14 levels of nesting exceeds limit of 1.5"
    assert triage.classify(piece).rule_ids == ("openai-strict-nesting-depth",)
