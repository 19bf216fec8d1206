"""Rules that generalise: the wrappers gateways and SDKs put around a provider's text are peeled before
matching, so a rule written for the provider's own text catches it however it is wrapped; every packaged
rule says why it is in its layer; the generic HTTP fallbacks are marked and counted apart.

The wrapped texts below are built the way each wrapper's source builds them (cited in ``triage.WRAPPERS``)
around texts the toolkit knows exactly."""

from __future__ import annotations

import json

import pytest

from toolkit.analysis import triage
from toolkit.knowledge import dsh_images, dsh_runtime, dsh_settings

F17 = (
    "Invalid schema for function 'shell': In context=(), 'additionalProperties' is required to be supplied and to "
    "be false."
)
ITEMS = "Invalid schema for function 'lookup': In context=('properties', 'a'), array schema missing items."
JUSTIFICATION = dsh_runtime.EMPTY_JUSTIFICATION


def _openai_python_1x(status: int, body: dict) -> str:
    """openai-python 1.x ``_make_status_error_from_response``: ``f"Error code: {status} - {body}"``, the body a dict."""
    return f"Error code: {status} - {body}"


def _litellm(cls: str, provider: str, message: str) -> str:
    """litellm 1.110.2: ``f"litellm.{cls}: {exception_provider} - {message}"``."""
    return f"litellm.{cls}: {provider}Exception - {message}"


def test_a_litellm_wrapped_openai_sdk_error_is_peeled_layer_by_layer():
    body = {"error": {"message": F17, "type": "invalid_request_error", "code": "invalid_function_parameters"}}
    text = _litellm("BadRequestError", "OpenAI", _openai_python_1x(400, body))
    layers = triage.peel(text)
    assert [layer.wrapper for layer in layers] == [
        "litellm.BadRequestError",
        "OpenAIException",
        "Error code: 400",
        "dict error.message",
    ]
    assert layers[-1].text == F17 and layers[-1].error_code == "invalid_function_parameters"
    assert layers[2].status == "400"


@pytest.mark.parametrize(
    ("wrapped", "rule_id", "peeled"),
    [
        # an anchored rule of the provider's own text, behind each wrapper
        (
            _litellm("BadRequestError", "OpenAI", ITEMS),
            "openai-strict-array-items",
            ("litellm.BadRequestError", "OpenAIException"),
        ),
        (
            _litellm("BadRequestError", "OpenAI", ITEMS) + " LiteLLM Retried: 2 times, LiteLLM Max Retries: 2",
            "openai-strict-array-items",
            ("litellm.BadRequestError", "OpenAIException"),
        ),
        (
            _openai_python_1x(400, {"error": {"message": ITEMS}}),
            "openai-strict-array-items",
            ("Error code: 400", "dict error.message"),
        ),
        (f"Error code: 400 - {ITEMS}", "openai-strict-array-items", ("Error code: 400",)),  # openai 3.57.0
        # a traceback's last line: the exception's qualified class before its str()
        (
            "litellm.exceptions.BadRequestError: " + _litellm("BadRequestError", "OpenAI", ITEMS),
            "openai-strict-array-items",
            ("litellm.exceptions.BadRequestError", "litellm.BadRequestError", "OpenAIException"),
        ),
        (
            "400 " + json.dumps({"error": {"message": ITEMS}}),
            "openai-strict-array-items",
            ("400", "json error.message"),
        ),
        (
            "API Error: 400 "
            + json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": ITEMS}}),
            "openai-strict-array-items",
            ("API Error: 400", "json error.message"),
        ),
        (f"AI_APICallError: {ITEMS}", "openai-strict-array-items", ("AI_APICallError",)),
        # a JSON error body whose message is JSON text again
        (
            json.dumps({"error": {"message": json.dumps({"error": {"message": ITEMS}})}}),
            "openai-strict-array-items",
            ("json error.message", "json error.message"),
        ),
        (
            dsh_images.headless_stderr("MISSING_CREDENTIAL", dsh_settings.missing_credential("gw", "GW_API_KEY")),
            "dsh-missing-credential",
            ("dsh: MISSING_CREDENTIAL",),
        ),
        (f"AI_APICallError: {JUSTIFICATION}", "dsh-invalid-justification", ("AI_APICallError",)),
        # claude-code-router around OpenRouter, whose "Provider returned error" holds the provider's body in raw
        (
            "API Error: 400 "
            + json.dumps(
                {
                    "error": {
                        "message": "Error from provider(400): "
                        + json.dumps(
                            {
                                "error": {
                                    "message": "Provider returned error",
                                    "code": 400,
                                    "metadata": {
                                        "raw": json.dumps({"error": {"message": ITEMS}}),
                                        "provider_name": "x",
                                    },
                                }
                            }
                        )
                    }
                }
            ),
            "openai-strict-array-items",
            (
                "API Error: 400",
                "json error.message",
                "Error from provider(400)",
                "json error.metadata.raw",
                "json error.message",
            ),
        ),
    ],
)
def test_a_rule_for_the_providers_text_catches_it_however_wrapped(wrapped, rule_id, peeled):
    found = triage.classify(wrapped)
    assert (found.rule_id, found.peeled) == (rule_id, peeled)
    assert found.message == wrapped and not found.generic
    assert found.candidates[0].text == triage.peel(wrapped)[len(peeled) - 1].text


def test_a_text_that_matches_as_given_is_not_peeled():
    found = triage.classify(_litellm("BadRequestError", "OpenAI", F17))
    assert (found.rule_id, found.peeled) == ("openai-strict-schema-additional-properties", ())


def test_a_generic_fallback_gives_way_to_the_specific_rule_inside():
    text = "400 " + json.dumps({"error": {"message": ITEMS}})
    assert triage._classify_one(text, text, None, None, triage.load_rules()).rule_id == "http-client-error-message"
    assert triage.classify(text).rule_id == "openai-strict-array-items"


def test_the_status_a_wrapper_carries_reaches_the_status_rules():
    found = triage.classify(_openai_python_1x(429, {"error": {"message": "slow down"}}))
    assert (found.rule_id, found.generic, found.peeled) == ("http-rate-limit-status", True, ("Error code: 429",))


@pytest.mark.parametrize(
    "text",
    ["something odd happened", "{not json", "{'error': {'code': 3}}", "[]", "litellm.BadRequestError: "],
)
def test_what_no_layer_names_stays_unknown(text):
    found = triage.classify(text)
    assert (found.rule_id, found.layer) == ("unknown", "unknown")


def test_peeling_is_bounded():
    text = ITEMS
    for _ in range(10):
        text = json.dumps({"error": {"message": text}})
    assert len(triage.peel(text)) == 8
    assert triage.classify(text).rule_id == "unknown"


# ---- why, and the generic fallbacks ---------------------------------------------------------------


def test_every_packaged_rule_says_why_it_is_in_its_layer():
    missing = [r.id for r in triage.load_rules() if not (r.why and r.why.strip())]
    assert missing == []


def test_a_packaged_rule_without_why_is_refused_and_a_user_rule_may_leave_it_out():
    rule = {
        "id": "x-rule",
        "layer": "runtime-policy",
        "match": "^x$",
        "explain": "x.",
        "fix": "x.",
        "source": "x",
    }
    with pytest.raises(triage.RuleError, match=r"triage_rules/99-x\.yaml: rule 1 \('x-rule'\): missing key 'why'"):
        triage._compile_all([rule], origin="triage_rules/99-x.yaml", packaged=True)
    assert triage.load_rules([rule])[0].why is None
    with pytest.raises(triage.RuleError, match=r"'why' must be a non-empty string"):
        triage.load_rules([{**rule, "why": " "}])
    with pytest.raises(triage.RuleError, match=r"'generic' must be true or false"):
        triage.load_rules([{**rule, "generic": "yes"}])


GENERIC = {
    "http-auth-status",
    "http-not-found-status",
    "http-rate-limit-status",
    "http-server-error-status",
    "http-auth-message",
    "http-not-found-message",
    "http-rate-limit-message",
    "http-server-error-message",
    "http-client-error-message",
}


def test_the_http_fallbacks_are_the_generic_rules():
    assert {r.id for r in triage.load_rules() if r.generic} == GENERIC


def test_a_classification_says_whether_its_rule_is_generic_and_why():
    generic = triage.classify("gateway API error (400): {}")
    assert (generic.rule_id, generic.generic) == ("http-client-error-message", True)
    specific = triage.classify(JUSTIFICATION)
    assert (specific.generic, specific.why) == (
        False,
        next(r.why for r in triage.load_rules() if r.id == specific.rule_id),
    )


# ---- a family of knowledge texts ------------------------------------------------------------------


def _family(**over) -> dict:
    rule = {
        "id": "mine",
        "layer": "serialization-protocol",
        "templates": "openai_strict.RULES",
        "subject": "Invalid schema for function '{name}': ",
        "explain": "x.",
        "fix": "x.",
        "source": "x",
    }
    rule.update(over)
    return rule


def test_a_templates_entry_makes_one_rule_per_knowledge_text():
    from toolkit.knowledge import openai_strict

    rules = triage.load_rules([_family()])
    mine = [r for r in rules if r.family == "mine"]
    wordings = sum(max(1, len(set(getattr(r, "dated", ()) or ()))) for r in openai_strict.RULES.values())
    assert len(mine) == wordings and rules[: len(mine)] == mine  # a user's family is tried first
    assert triage.classify(ITEMS, rules=rules).rule_id == "mine-array-items"
    assert triage.classify("In context=(), array schema missing items.", rules=rules).rule_id == "mine-array-items"


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"templates": "dsh_runtime.MODES"}, r"is not a mapping of entries with a 'template' text"),
        ({"templates": "nowhere.RULES"}, r"does not name anything in toolkit\.knowledge"),
        ({"subject": 3}, r"'subject' must be a format text or a list of them"),
        ({"subject": "for {context}: "}, r"'subject' and openai_strict\.RULES\[.*\] use the same placeholder name"),
        ({"match": "^x$"}, r"needs exactly one of 'match'"),
        ({"fields": "status"}, r"'args', 'until' and 'fields' do not go with 'templates'"),
    ],
)
def test_a_bad_templates_entry_is_refused(over, message):
    with pytest.raises(triage.RuleError, match=message):
        triage.load_rules([_family(**over)])
