"""Every refusal text the toolkit knows in toolkit/knowledge is a triage rule: a rendering of each (OpenAI's
strict texts with every dated wording, DSH's runtime, settings and image texts, pi-ai's refusals, Codex's)
is classified to a rule that names a cause, in the layer its family belongs to; taking that rule away is
caught."""

from __future__ import annotations

import string

import pytest

from toolkit.analysis import triage
from toolkit.knowledge import codex, codex_tools, openai_strict
from toolkit.knowledge import dsh_runtime as rt

#: The layer each family of knowledge texts belongs to (``why`` of its rules says why), and the texts of a
#: family that belong elsewhere.
FAMILY_LAYER = {
    "dsh_settings": "config-capability",  # DSH's settings loader, before any request
    "dsh_images": "config-capability",  # the image gates read the model's declared input
    "dsh_runtime": "runtime-policy",  # DSH's tools and sandbox refuse a call when they run it
    "pi_ai_tools": "serialization-protocol",  # pi-ai cannot send the tool in the form it demands
    "openai_strict": "serialization-protocol",  # OpenAI's schema check of the request as serialized
    "codex": "runtime-policy",  # Codex's exec policy on a call
    "codex_tools": "config-capability",  # Codex's own configuration
}
LAYER_OF = {
    "dsh_runtime.BACKGROUND_DISABLED": "config-capability",  # the deployment turns background runs off
    "dsh_runtime.NO_BACKGROUND_JOBS": "config-capability",  # the composition lacks the jobs plugins
    "dsh_runtime.no_approval_service": "config-capability",  # the composition lacks the approval service
}
#: Public names of those modules that are not refusal texts, each with what it is instead.
NOT_REFUSALS = {
    "dsh_images.DSH": "a version",
    "dsh_images.MEDIA_TYPE_UNKNOWN": "a placeholder the toolkit writes",
    "dsh_images.PATH_UNKNOWN": "a placeholder the toolkit writes",
    "dsh_images.PRIMARY": "an entry point's name",
    "dsh_images.headless_stderr": "a wrapper (dsh: CODE: …), peeled by triage.peel",
    "dsh_images.mcp_diagnostic": "the frame of the MCP reasons: each reason is checked in it (MCP_REASONS)",
    "dsh_runtime.DEFAULT_VERSION": "a version",
    "dsh_runtime.LONG_REJECTION_FROM": "a version",
    "dsh_runtime.SAME_MODE_ACCEPTED_FROM": "a version",
    "dsh_runtime.ERROR_PREFIX": "a wrapper (Error: ), ignored by classify",
    "dsh_runtime.tool_result_text": "a wrapper (Error: ), ignored by classify",
    "dsh_runtime.error_message": "the inverse of that wrapper",
    "dsh_runtime.approval_reason": "the reason shown in an approval prompt, not an error",
    "dsh_settings.BASE_SANDBOX_MODE": "a mode",
    "dsh_settings.DEFAULT_MODEL_NAMESPACE": "a settings namespace",
    "dsh_settings.NAMESPACE": "a settings namespace",
    "dsh_settings.PERMISSION_MODE_ENV": "an environment variable's name",
    "dsh_settings.PERMISSION_NAMESPACE": "a settings namespace",
}
#: DSH's argument violations are read in the text that carries them (``invalid arguments: …``).
VIOLATIONS = {"missing_required", "must_be_const", "must_be_finite", "must_be_type", "must_be_one_of"}
#: Sample values for the placeholders of OpenAI's texts (``str.format`` fields), as OpenAI renders them.
SAMPLES = {
    "context": "('properties', 'a')",
    "key": "uniqueItems",
    "value": "[]",
    "names": "{'description'}",
    "got": "11",
    "limit": "10",
    "n": "300",
    "got_json": "null",
    "got_py": "None",
}


def _strict_texts() -> list[tuple[str, str]]:
    out = []
    for key, rule in openai_strict.RULES.items():
        for label, template in tuple(getattr(rule, "dated", ()) or ()) or ((None, rule.template),):
            fields = [f for _, f, _, _ in string.Formatter().parse(template) if f]
            body = template.format(**{f: SAMPLES.get(f, "x") for f in fields})
            ref = f"openai_strict.RULES[{key!r}]" + (f" ({label})" if label else "")
            out.append((ref, f"Invalid schema for function 'lookup': {body}"))
    return out


def knowledge_texts() -> list[tuple[str, str, str]]:
    """``(ref, rendered text, expected layer)`` for every refusal text of the knowledge."""
    out = []
    for _, template in triage._knowledge_templates():
        ref = template.ref
        if ref in NOT_REFUSALS:
            continue
        module, name = ref.split(".")
        text = template.fill({n: f"x{n}" for n in template.pieces[1::2]})
        if module == "dsh_runtime" and name in VIOLATIONS:
            text = rt.invalid_arguments([text])
        entry = f"{ref} ({template.entry_point})" if template.entry_point else ref
        out.append((entry, text, LAYER_OF.get(ref, FAMILY_LAYER[module])))
    out += [(ref, text, FAMILY_LAYER["openai_strict"]) for ref, text in _strict_texts()]
    out.append(("codex.LONE_JUSTIFICATION", codex.LONE_JUSTIFICATION, FAMILY_LAYER["codex"]))
    for policy, text in codex_tools.RETIRED_APPROVAL_POLICIES.items():
        out.append((f"codex_tools.RETIRED_APPROVAL_POLICIES[{policy!r}]", text, FAMILY_LAYER["codex_tools"]))
    return out


def misread(rules=None) -> list[str]:
    """The knowledge texts that do not get a rule naming a cause in their layer, each with what they got."""
    bad = []
    for ref, text, layer in knowledge_texts():
        found = triage.classify(text, rules=rules)
        if found.rule_id == triage.UNKNOWN or found.generic or found.layer != layer:
            bad.append(f"{ref}: {text!r} -> {found.rule_id} ({found.layer}), expected a rule in {layer}")
    return bad


def test_every_knowledge_refusal_text_is_a_rule_in_its_layer():
    assert misread() == []


def test_the_enumeration_covers_every_family_and_every_dated_wording():
    refs = [ref for ref, _, _ in knowledge_texts()]
    assert {r.split(".")[0] for r in refs} == set(FAMILY_LAYER)
    for key, rule in openai_strict.RULES.items():
        wordings = tuple(getattr(rule, "dated", ()) or ())
        assert sum(r.startswith(f"openai_strict.RULES[{key!r}]") for r in refs) == max(1, len(set(wordings)))
    # every public name of the DSH/pi-ai text modules is either a text checked here or said not to be one
    for module in triage.TEXT_MODULES:
        for _, template in triage._knowledge_templates():
            if template.ref.startswith(module + "."):
                assert template.ref in NOT_REFUSALS or any(r.startswith(template.ref) for r in refs)


@pytest.mark.parametrize(
    "ref",
    [
        "openai_strict.RULES['array-items']",  # generated from the template alone
        "openai_strict.RULES['additional-properties']",  # caught first by a field report's rule
        "dsh_runtime.EMPTY_FILE_PATH",
        "codex.LONE_JUSTIFICATION",
    ],
)
def test_taking_a_texts_rule_away_is_caught(ref):
    text = next(t for r, t, _ in knowledge_texts() if r == ref)
    rules, removed = triage.load_rules(), []
    while True:  # every rule that reads the text, until only a fallback or nothing is left
        found = triage.classify(text, rules=rules)
        if found.rule_id == triage.UNKNOWN or found.generic:
            break
        removed += found.rule_ids
        rules = [r for r in rules if r.id not in found.rule_ids]
    assert removed
    assert any(line.startswith(ref + ":") for line in misread(rules)), (ref, removed)


def test_a_strict_text_without_its_field_rule_falls_to_the_rule_generated_from_it():
    text = next(t for r, t, _ in knowledge_texts() if r == "openai_strict.RULES['additional-properties']")
    assert triage.classify(text).rule_id == "openai-strict-schema-additional-properties"
    rules = [r for r in triage.load_rules() if r.id != "openai-strict-schema-additional-properties"]
    assert triage.classify(text, rules=rules).rule_id == "openai-strict-additional-properties"


def test_the_strict_texts_reach_triage_with_their_subject_and_as_quoted():
    # OpenAI's full text, the text a gateway wraps, and the piece a report quotes all reach the rule
    full = "Invalid schema for function 'lookup': In context=('properties', 'a'), array schema missing items."
    assert triage.classify(full).rule_id == "openai-strict-array-items"
    piece = triage.classify("In context=('properties', 'a'), array schema missing items.")
    assert (piece.rule_id, piece.matched) == ("openai-strict-array-items", "fragment")
    # an older wording is its own rule, named by its period
    old = openai_strict.RULES["root-combinator"]
    if getattr(old, "dated", ()):
        ids = {triage.classify(f"Invalid schema for function 'f': {t}").rule_id for _, t in old.dated}
        assert len(ids) == len(set(old.dated))
