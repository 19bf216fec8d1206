"""Error triage: every packaged rule has a real message it must catch and a near miss it must not;
unknown stays unknown; user rules come first; the lab's errors land in the right layers."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

import toolkit
from toolkit.analysis import triage
from toolkit.knowledge import dsh_images as img
from toolkit.knowledge import dsh_settings as dsh
from toolkit.knowledge import pi_ai_tools
from toolkit.knowledge.pi_ai_tools import PiAiRefusal

DATA = Path(__file__).resolve().parents[1] / "data"
RULES_FILE = Path(triage.__file__).parents[1] / "knowledge" / triage.RULES_RESOURCE

IMAGE_400 = (
    'gateway API error (400): {"message":"Image input is not supported by model gw-coder on this gateway.",'
    '"type":"invalid_request_error","param":"input[1].content[1]","code":"unsupported_image_input"}'
)
OUTCOME_UNKNOWN = (
    "The tool call was interrupted after it was recorded, but no result was durably recorded. Its "
    "outcome is unknown. Decide whether to retry from the tool semantics: retry only if the operation "
    "is read-only or idempotent; if it may have side effects, first verify external state or ask the "
    "user. Do not retry blindly."
)
NOT_STARTED = "The tool call was interrupted before the Harness recorded it as started. Retry it if it is still needed."
SAME_MODE = 'Error: sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current "danger-full-access" mode'
NARROWER = (
    'sandbox escalation to "workspace-write" is not strictly wider than this call\'s current "danger-full-access" mode'
)
NO_SERVICE = 'sandbox escalation to "danger-full-access" requires approval, but no approval service is composed'
NO_AGENT = 'sandbox escalation to "danger-full-access" requires approval, but the call has no agent to route it through'
NO_CHANNEL = 'sandbox escalation to "danger-full-access" requires approval, but no approval channel is available'
CUT_RESPONSES = "stream ended without a terminal event after 5 events"
CUT_CHAT = "stream ended without finish_reason or [DONE] after 2 chunks"
UNFINISHED_FRAME = "byte 1423: stream ended inside this frame (no blank line), so it was never dispatched"
BAD_FRAME = "byte 1423: invalid JSON at char 17: Expecting ',' delimiter"
INVALID_JSON = "We could not parse the JSON body of your request: Expecting value: line 1 column 1 (char 0)"
INVALID_BODY = "We could not read the body of your request: Error -3 while decompressing data: incorrect header check"
UNKNOWN_BEHAVIOUR = (
    "Unknown behaviour 'slow' in POST /slow/v1/responses; known behaviours: passthrough, "
    "absent-is-strict, force-strict, no-images, rate-limit, cut-stream, fail, busy."
)

# rule id -> (a real full message the rule must catch, a near miss it must not catch).
# A string is the message; a dict is classify()'s keyword arguments (message, error_code, status).
EXAMPLES: dict[str, tuple[object, object]] = {
    # DSH settings refusals (texts from toolkit.knowledge.dsh_settings, the formatters config.py uses)
    "dsh-settings-providers-array": (dsh.PROVIDERS_ARRAY, "llm-pi-ai: providers is now a dict keyed by provider route"),
    "dsh-settings-removed-provider": (
        dsh.removed_provider("gw"),
        'llm-pi-ai: provider "gw" sets "providers", which moved to the providers dict key',
    ),
    "dsh-settings-removed-retries": (
        dsh.removed_retries("gw"),
        dsh.removed_retries("gw").replace("dsh-llm-retry", "dsh-retry"),
    ),
    "dsh-settings-empty-default-input": (
        dsh.empty_default_input("gw"),
        'llm-pi-ai: provider "gw" defaultInput must name at least two modalities',
    ),
    "dsh-settings-empty-model-id": (
        dsh.empty_model_id("gw"),
        'llm-pi-ai: provider "gw" has a model with an empty name',
    ),
    "dsh-settings-empty-field": (dsh.empty_field("gw", "baseURL"), dsh.empty_reasoning_efforts("gw", "gw-coder")),
    "dsh-settings-duplicate-model": (
        dsh.duplicate_model("gw", "gw-coder"),
        'llm-pi-ai: provider "gw" lists model "gw-coder" twice',
    ),
    "dsh-settings-needs-api": (dsh.needs_api("gw", "gw-coder"), dsh.needs_base_url("gw", "gw-coder")),
    "dsh-settings-needs-base-url": (dsh.needs_base_url("gw", "gw-coder"), dsh.needs_api("gw", "gw-coder")),
    "dsh-settings-no-models": (dsh.no_models("gw"), 'llm-pi-ai: provider "gw" resolves no models'),
    "dsh-settings-compat-undeclared": (
        dsh.compat_undeclared("gw", "route", "supportsStrictModes"),
        dsh.compat_withheld("gw", "route", "zaiToolStream"),
    ),
    "dsh-settings-compat-withheld": (
        dsh.compat_withheld("gw", 'model "gw-coder"', "openRouterRouting"),
        dsh.compat_valueless("gw", 'model "gw-coder"', "openRouterRouting"),
    ),
    "dsh-settings-compat-valueless": (
        dsh.compat_valueless("gw", "route", "supportsStrictMode"),
        dsh.compat_undeclared("gw", "route", "supportsStrictMode"),
    ),
    "dsh-settings-compat-wrong-api": (
        dsh.compat_wrong_api("gw", "gw-coder", "thinkingFormat", "openai-responses"),
        dsh.compat_unreadable_on_route("gw", "thinkingFormat"),
    ),
    "dsh-settings-compat-unreadable": (
        dsh.compat_unreadable_on_route("gw", "thinkingFormat"),
        dsh.compat_wrong_api("gw", "gw-coder", "thinkingFormat", "openai-responses"),
    ),
    "dsh-settings-empty-reasoning-efforts": (
        dsh.empty_reasoning_efforts("gw", "gw-coder"),
        dsh.empty_field("gw", "reasoningEfforts"),
    ),
    "dsh-settings-reasoning-effort-needs-wire": (
        'llm-pi-ai: provider "gongsi" model "DeepSeek-V4-Flash" reasoningEfforts.minimal needs the wire value '
        'dispatch should send; only "off" may leave it empty',
        'llm-provider-hub: gateway "gongsi" model "DeepSeek-V4-Flash" reasoningEfforts.minimal needs the wire value '
        'dispatch should send; only "off" may leave it empty (remove the key to not offer the level)',
    ),
    "dsh-settings-reasoning-effort-empty-string": (
        'llm-pi-ai: provider "gw" model "gw-coder" reasoningEfforts.high must not be an empty string',
        'llm-pi-ai: provider "gw" model "gw-coder" reasoningEfforts.high must be a non-empty string or null',
    ),
    "dsh-settings-reasoning-effort-no-level": (
        'llm-pi-ai: provider "gw" model "gw-coder" reasoningEfforts offers no level beyond "off"; declare a thinking '
        "level, or set reasoningEfforts to false for a non-reasoning model",
        'reasoningEfforts offers no level beyond "off"; declare a thinking level, or set false',
    ),
    # DSH runtime
    "dsh-missing-credential": (
        dsh.missing_credential("gw", "GW_API_KEY"),
        dsh.missing_credential("gw", "GW_API_KEY").replace("store GW_API_KEY", "store OTHER_KEY"),
    ),
    "dsh-missing-credential-code": (
        {"message": None, "error_code": "MISSING_CREDENTIAL"},
        {"error_code": "MISSING_CREDENTIALS"},
    ),
    "dsh-unknown-model": (dsh.unknown_model("gw", "gw-coder-2"), 'pi-ai provider "gw" has no model "gw-coder-2"'),
    "dsh-unknown-model-code": ({"error_code": "UNKNOWN_MODEL"}, {"error_code": "UNKNOWN"}),
    # DSH runtime validation (dsh.md §5)
    "dsh-invalid-arguments-filled-optional": (
        'Error: invalid arguments: "workdir" must be a string; "sandbox_permissions" must be one of '
        '["workspace-write","danger-full-access"]; "justification" must be a string',
        'Error: invalid arguments: missing required property "command"',
    ),
    "dsh-invalid-arguments": (
        'Error: invalid arguments: missing required property "description"',
        'invalid argument: missing required property "description"',
    ),
    "dsh-invalid-command": (
        "Error: invalid command: expected a non-empty string",
        "invalid command: expected a string",
    ),
    "dsh-invalid-description": (
        "Error: invalid description: expected a non-empty string",
        "invalid description: expected a non-empty sentence",
    ),
    "dsh-invalid-timeout": (
        "Error: invalid timeoutMs: expected a positive number, got -5",
        "invalid timeoutMs: expected a positive number",
    ),
    "dsh-escalation-needs-justification": (
        "Error: invalid escalation: sandbox_permissions requires a justification",
        "invalid escalation: sandbox_permissions requires approval",
    ),
    "dsh-escalation-lone-justification": (
        "Error: invalid escalation: justification is only valid together with sandbox_permissions",
        "invalid escalation: justification is only valid together with sandbox_permission",
    ),
    "dsh-invalid-justification": (
        "Error: invalid justification: expected a non-empty sentence",
        "invalid justification: expected a non-empty string",
    ),
    "dsh-escalation-not-available": (
        "Error: sandbox_permissions is not available in this composition (no sandboxing filesystem to escalate)",
        "sandbox_permissions is not available in this session",
    ),
    "dsh-escalation-same-mode": (SAME_MODE, NARROWER),
    "dsh-escalation-not-wider": (NARROWER, SAME_MODE),
    "dsh-escalation-no-approval-service": (NO_SERVICE, NO_AGENT),
    "dsh-escalation-no-agent": (NO_AGENT, NO_CHANNEL),
    "dsh-escalation-no-approval-channel": (NO_CHANNEL, NO_SERVICE),
    "dsh-escalation-rejected": (
        'Error: the user rejected escalating this command to "danger-full-access"',
        'the user rejected escalating this file to "danger-full-access"',
    ),
    "dsh-escalation-cancelled": (
        'approval for escalating to "workspace-write" was cancelled',
        'approval for escalating to "workspace-write" was rejected',
    ),
    "dsh-run-in-background-disabled": (
        "Error: run_in_background is disabled for this deployment (enableRunInBackground: false)",
        "run_in_background is disabled for this session",
    ),
    "dsh-background-jobs-unavailable": (
        "Error: background jobs unavailable: load @deepseek-ai/dsh-jobs and @deepseek-ai/dsh-tool-jobs",
        "background jobs unavailable: load @deepseek-ai/dsh-jobs",
    ),
    # DSH image gate (dsh.md §7)
    "dsh-read-image-undeclared": (
        "Error: " + img.read_image_refusal("screenshot.png", "gw-coder"),
        'cannot read "screenshot.png" as an image: the current model route could not be resolved',
    ),
    "dsh-read-image-route-unresolved": (
        'Error: cannot read "shot.png" as an image: the current model route could not be resolved',
        img.read_image_refusal("shot.png", "gw-coder"),
    ),
    "dsh-mcp-image-undeclared": (
        '[image unavailable: image/png; model "gw-coder" does not declare image input; raw image data remains '
        "available to programmatic callers]",
        'image unavailable: image/png; model "gw-coder" does not declare image input',
    ),
    "dsh-acp-image-undeclared": (img.acp_refusal("gw-coder"), img.web_refusal("gw-coder")),
    "dsh-web-image-unsupported": (img.web_refusal("gw-coder"), img.adapter_refusal("gw-coder")),
    "dsh-pi-ai-adapter-image": (img.adapter_refusal("gw-coder"), img.web_refusal("gw-coder")),
    "dsh-pi-ai-attachment-service": (
        "pi-ai image input requires the durable attachment service",
        "pi-ai image input requires the attachment service",
    ),
    "dsh-deepseek-image-model": (
        'DeepSeek model "deepseek-v4-flash" does not accept image input.',
        'DeepSeek model "deepseek-v4-flash" does not accept image input',
    ),
    "dsh-deepseek-chat-image": (
        "The DeepSeek chat-completions adapter does not support image content.",
        "The DeepSeek chat-completions adapter does not support audio content.",
    ),
    # DSH crash recovery and step failures (dsh.md §9.2)
    "dsh-tool-not-started": (NOT_STARTED, OUTCOME_UNKNOWN),
    "dsh-tool-outcome-unknown": (OUTCOME_UNKNOWN, NOT_STARTED),
    "dsh-tool-not-started-code": ({"error_code": "TOOL_NOT_STARTED"}, {"error_code": "TOOL_OUTCOME_UNKNOWN"}),
    "dsh-tool-outcome-unknown-code": ({"error_code": "TOOL_OUTCOME_UNKNOWN"}, {"error_code": "TOOL_NOT_STARTED"}),
    "dsh-context-window-exceeded": (
        {"message": "snapshot request exceeded the model context window", "error_code": "CONTEXT_WINDOW_EXCEEDED"},
        {"message": "snapshot request exceeded the model context window", "error_code": "EMPTY_RESPONSE"},
    ),
    # pi-ai
    "pi-ai-require-strict-unsupported": (
        pi_ai_tools.require_unmet("bash", "strict tools are unsupported"),
        pi_ai_tools.require_unmet("bash", "$ref schemas are unsupported"),
    ),
    "pi-ai-require-schema-unsupported": (
        pi_ai_tools.require_unmet("bash", "schemas without a type are unsupported"),
        'Tool "bash" requires grammar constrained sampling, but none is offered.',
    ),
    "pi-ai-stream-no-terminal": (
        "OpenAI Responses stream ended before a terminal response event",
        "OpenAI Responses stream ended before a terminal response",
    ),
    "pi-ai-unfinished-tool-call": (
        "OpenAI Responses stream completed with an unfinished tool call: bash (call_0001|fc_0001)",
        "OpenAI Responses stream completed with an unfinished tool call",
    ),
    "pi-ai-response-incomplete-no-reason": (
        "Response incomplete without a provider reason",
        "Response incomplete: content_filter",
    ),
    "pi-ai-response-incomplete": (
        "Response incomplete: content_filter",
        "Response incomplete without a provider reason",
    ),
    "pi-ai-failed-incomplete-details": ("incomplete: content_filter", "Response incomplete: max_output_tokens"),
    "pi-ai-failed-no-details": ("Unknown error (no error details in response)", "Unknown error"),
    "pi-ai-chatgpt-usage-limit": (
        "You have hit your ChatGPT usage limit (plus plan). Try again in ~42 min.",
        "You've reached your ChatGPT workspace's usage limit. Ask your workspace admin to "
        "increase it at admin.openai.com → Workspace → Usage limits.",
    ),
    "pi-ai-codex-account-id": ("Failed to extract accountId from token", "Failed to extract accountId"),
    "pi-ai-codex-stream-no-stop": ("Codex stream ended without a stop reason", "Codex stream ended"),
    # the lab gateway's envelopes
    "gateway-unsupported-image-input": (IMAGE_400, "Image input is not supported by model gw-coder."),
    "gateway-rate-limited": (
        "Rate limit reached for gw-coder. Please try again in 1s.",
        "Rate limit reached for gw-coder.",
    ),
    "gateway-server-error": (
        "The server had an error while processing your request. Sorry about that!",
        "The server had an error while processing your request.",
    ),
    "gateway-model-failed": (
        "server_error: The model failed to produce a response.",
        "The model failed to produce a valid response.",
    ),
    "gateway-unknown-behaviour": (UNKNOWN_BEHAVIOUR, "Invalid URL (POST /absent-is-strict/v2/responses)"),
    "gateway-unknown-url": ("Invalid URL (POST /absent-is-strict/v2/responses)", UNKNOWN_BEHAVIOUR),
    "gateway-invalid-json": (INVALID_JSON, INVALID_BODY),
    "gateway-invalid-body": (INVALID_BODY, INVALID_JSON),
    # OpenAI / Codex codes
    "openai-context-length-exceeded": (
        "Error Code context_length_exceeded: Your input exceeds the context window of this model. Please adjust your "
        "input and try again.",
        "context length exceeded",
    ),
    "openai-insufficient-quota": (
        {
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "error_code": "insufficient_quota",
        },
        {"message": "You exceeded your current quota, please check your plan and billing details."},
    ),
    "codex-usage-not-included": (
        {"message": "Codex is not included in your plan.", "error_code": "usage_not_included"},
        {"message": "Codex is not included in your plan.", "error_code": "usage_included"},
    ),
    "codex-usage-limit-reached": (
        {"message": "The usage limit has been reached", "error_code": "usage_limit_reached"},
        {"message": "The usage limit has been reached", "error_code": "usage_limit"},
    ),
    "openai-rate-limit-exceeded": (
        "Error Code rate_limit_exceeded: Scripted error event.",
        "Error Code rate_limit: Scripted error event.",
    ),
    "openai-server-error": ("server_error: The model failed (scripted).", "internal_server_error: The model failed."),
    "openai-invalid-prompt": (
        {
            "message": "Invalid prompt: your prompt was flagged as potentially violating our usage policy.",
            "error_code": "invalid_prompt",
        },
        {"message": "Invalid prompt: your prompt was flagged as potentially violating our usage policy."},
    ),
    "openai-invalid-image": (
        {"message": "You uploaded an unsupported image.", "error_code": "invalid_image_format"},
        {"message": "You uploaded an unsupported image.", "error_code": "image_invalid"},
    ),
    "dsh-auth-code": (
        {"message": "simulated provider error (HTTP 401)", "error_code": "AUTH"},
        {"message": "simulated provider error (HTTP 401)", "error_code": "AUTHZ"},
    ),
    # HTTP error forms (pi-ai 1.6.0 formatProviderError, openai SDK in 0.73.1)
    "http-auth-message": (
        'gateway API error (401): {"message":"Incorrect API key provided: <redacted>.","type":"invalid_request_error",'
        '"param":null,"code":"invalid_api_key"}',
        'gateway API error (402): {"message":"Payment required"}',
    ),
    "http-not-found-message": ("404 status code (no body)", "405 Method Not Allowed"),
    "http-rate-limit-message": ("429 status code (no body)", "428 Precondition Required"),
    "http-server-error-message": ("502: <html><body>Bad Gateway</body></html>", "502"),
    "http-client-error-message": (
        'gateway API error (400): {"message":"Unsupported parameter: \'reasoning\'","type":"invalid_request_error",'
        '"param":"reasoning","code":"unsupported_parameter"}',
        "API error (400) bad",
    ),
    "pi-ai-error-event": (
        "Error Code unknown_error: Scripted error event.",
        "Error code unknown_error: Scripted error event.",
    ),
    "pi-ai-codex-error": ("Codex error: Something went wrong upstream", "Codex error"),
    "pi-ai-codex-response-failed": ("Codex response failed", "Codex response failed: see logs"),
    "pi-ai-response-failed": (
        "vector_store_timeout: The vector store timed out.",
        "Error: invalid justification: expected a non-empty sentence",
    ),
    # status alone
    "http-auth-status": ({"status": 401}, {"status": 402}),
    "http-not-found-status": ({"status": 404}, {"status": 405}),
    "http-rate-limit-status": ({"status": 429}, {"status": 428}),
    "http-server-error-status": ({"status": 503}, {"status": 499}),
    # the toolkit's own problem texts
    "toolkit-stream-cut-responses": (CUT_RESPONSES, CUT_CHAT),
    "toolkit-stream-cut-chat": (CUT_CHAT, CUT_RESPONSES),
    "toolkit-sse-unfinished-frame": (UNFINISHED_FRAME, BAD_FRAME),
    "toolkit-sse-bad-frame": (BAD_FRAME, UNFINISHED_FRAME),
    "toolkit-flow-error": ("mitmproxy recorded an error: Connection killed.", "mitmproxy recorded no error"),
}


def _classify(example, rules=None) -> triage.Finding:
    kwargs = dict(example) if isinstance(example, dict) else {"message": example}
    return triage.classify(kwargs.pop("message", None), rules=rules, **kwargs)


def _packaged_ids() -> list[str]:
    return [r["id"] for r in yaml.safe_load(RULES_FILE.read_text(encoding="utf-8"))]


# ---- the rule table ----------------------------------------------------------------------------


def test_every_rule_has_examples_and_no_example_is_stale():
    ids = _packaged_ids()
    assert len(ids) == len(set(ids))
    assert sorted(set(ids) - set(EXAMPLES)) == [], "rules without a positive and a negative example"
    assert sorted(set(EXAMPLES) - set(ids)) == [], "examples for rules that no longer exist"


@pytest.mark.parametrize("rule_id", sorted(EXAMPLES))
def test_rule_catches_its_message(rule_id):
    positive, _ = EXAMPLES[rule_id]
    finding = _classify(positive)
    assert finding.rule_id == rule_id, f"{positive!r} went to {finding.rule_id}"
    assert finding.layer in triage.LAYERS
    assert finding.explanation and finding.fix and finding.source


@pytest.mark.parametrize("rule_id", sorted(EXAMPLES))
def test_rule_refuses_its_near_miss(rule_id):
    _, negative = EXAMPLES[rule_id]
    assert _classify(negative).rule_id != rule_id


def test_rules_are_ordered_specific_before_general():
    ids = _packaged_ids()
    for specific, general in [
        ("dsh-escalation-same-mode", "dsh-escalation-not-wider"),
        ("dsh-invalid-arguments-filled-optional", "dsh-invalid-arguments"),
        ("pi-ai-require-strict-unsupported", "pi-ai-require-schema-unsupported"),
        ("gateway-unknown-behaviour", "gateway-unknown-url"),
        ("gateway-unsupported-image-input", "http-client-error-message"),
        ("openai-rate-limit-exceeded", "pi-ai-error-event"),
        ("http-rate-limit-message", "http-client-error-message"),
    ]:
        assert ids.index(specific) < ids.index(general)


def test_packaged_rules_load_through_package_data():
    rules = triage.load_rules()
    assert [r.id for r in rules] == _packaged_ids()
    assert {r.layer for r in rules} == set(triage.LAYERS)


def test_template_rules_reuse_the_knowledge_texts():
    raw = {r["id"]: r for r in yaml.safe_load(RULES_FILE.read_text(encoding="utf-8"))}
    assert raw["dsh-read-image-undeclared"]["template"] == "dsh_images.read_image_refusal"
    assert raw["dsh-missing-credential"]["template"] == "dsh_settings.missing_credential"
    rule = next(r for r in triage.load_rules() if r.id == "dsh-missing-credential")
    assert "(?P=ref)" in rule.pattern.pattern  # the repeated reference must be the same name


def test_pi_ai_refusal_from_the_serialization_model_is_classified():
    bash = {
        "name": "bash",
        "description": "run",
        "parameters": {"type": "object", "properties": {"command": {}}},
        "constrainedSampling": {"type": "json_schema", "strict": "require"},
    }
    for compat, rule_id in [
        (None, "pi-ai-require-strict-unsupported"),
        ({"supportsStrictMode": True}, "pi-ai-require-schema-unsupported"),
    ]:
        with pytest.raises(PiAiRefusal) as exc:
            pi_ai_tools.convert_tools([bash], api="openai-responses", compat=compat)
        assert triage.classify(str(exc.value)).rule_id == rule_id


# ---- classify ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "something odd happened",
        "Error: bash is disabled by policy in this session",  # a real DSH text no rule covers
        "",
        None,
        "gateway API error (400) without a body",
    ],
)
def test_unknown_stays_unknown(message):
    finding = triage.classify(message)
    assert (finding.rule_id, finding.layer, finding.fix, finding.source) == ("unknown", "unknown", None, None)
    assert finding.message == message


def test_dsh_prefix_is_ignored_for_matching_but_kept():
    finding = triage.classify("Error: invalid justification: expected a non-empty sentence")
    assert finding.rule_id == "dsh-invalid-justification"
    assert finding.message == "Error: invalid justification: expected a non-empty sentence"
    assert triage.classify("invalid justification: expected a non-empty sentence").rule_id == finding.rule_id


def test_missing_values_from_frames_are_ignored():
    assert triage.classify(pd.NA, error_code=pd.NA, status=pd.NA).rule_id == "unknown"
    assert triage.classify(pd.NA, status=pd.array([429], dtype="Int64")[0]).rule_id == "http-rate-limit-status"


# ---- user rules --------------------------------------------------------------------------------


def _user_rule(**over) -> dict:
    rule = {
        "id": "my-rule",
        "layer": "runtime-policy",
        "match": "^bash is disabled by policy in this session$",
        "explain": "A policy plugin disables bash.",
        "fix": "Enable bash in the policy.",
        "source": "my notes",
    }
    rule.update(over)
    return rule


def test_user_rules_extend_the_packaged_ones():
    rules = triage.load_rules([_user_rule()])
    assert rules[0].id == "my-rule" and rules[0].origin == "user rules"
    assert triage.classify("Error: bash is disabled by policy in this session", rules=rules).rule_id == "my-rule"
    assert len(rules) == len(triage.load_rules()) + 1


def test_user_rules_override_packaged_ones(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text(
        yaml.safe_dump(
            [
                _user_rule(
                    id="dsh-invalid-justification",
                    layer="serialization-protocol",
                    match="^invalid justification: ",
                    explain="Ours.",
                    fix="Ours.",
                ),
                _user_rule(id="catch-escalations", layer="config-capability", match="^sandbox escalation to "),
            ]
        ),
        encoding="utf-8",
    )
    rules = triage.load_rules(path)
    assert [r.id for r in rules].count("dsh-invalid-justification") == 1
    finding = triage.classify("Error: invalid justification: expected a non-empty sentence", rules=rules)
    assert (finding.rule_id, finding.layer, finding.explanation) == (
        "dsh-invalid-justification",
        "serialization-protocol",
        "Ours.",
    )
    # tried first: it wins over the packaged, more specific same-mode rule
    assert triage.classify(SAME_MODE, rules=rules).rule_id == "catch-escalations"
    assert rules[0].origin == str(path)


@pytest.mark.parametrize(
    "rule, expected",
    [
        ({k: v for k, v in _user_rule().items() if k != "fix"}, r"rule 1 \('my-rule'\): missing key 'fix'"),
        (
            _user_rule(match="^(unclosed"),
            r"rule 1 \('my-rule'\): bad regex at position 1: missing \), unterminated subpattern",
        ),
        (
            _user_rule(layer="execution"),
            r"rule 1 \('my-rule'\): unknown layer 'execution'; choose one of config-capability",
        ),
        (_user_rule(fields=["message", "body"]), r"unknown field 'body' in 'fields'"),
        (_user_rule(template="dsh_images.web_refusal"), r"needs exactly one of 'match' .* or 'template'"),
        (
            {k: v for k, v in _user_rule(template="dsh_images.nothing").items() if k != "match"},
            r"template 'dsh_images.nothing' does not name anything in toolkit.knowledge",
        ),
        (
            {k: v for k, v in _user_rule(template="os.system").items() if k != "match"},
            r"template 'os.system' does not name anything in toolkit.knowledge",
        ),
        (_user_rule(explain=""), r"'explain' must be a non-empty string"),
        (_user_rule(severity="high"), r"unknown key 'severity'"),
        ("not a rule", r"rule 1: a rule must be a mapping, not a str"),
    ],
)
def test_bad_user_rules_say_which_rule_and_what_is_wrong(rule, expected):
    with pytest.raises(triage.RuleError, match=expected):
        triage.load_rules([rule])


def test_bad_user_rule_files(tmp_path):
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("- id: x\n  match: [unclosed\n", encoding="utf-8")
    with pytest.raises(triage.RuleError, match=r"bad.yaml \(line \d+, column \d+\): not valid YAML"):
        triage.load_rules(bad_yaml)
    not_list = tmp_path / "map.yaml"
    not_list.write_text("id: x\n", encoding="utf-8")
    with pytest.raises(triage.RuleError, match="expected a list of rules"):
        triage.load_rules(not_list)
    with pytest.raises(triage.RuleError, match="cannot read rules file"):
        triage.load_rules(tmp_path / "missing.yaml")
    with pytest.raises(triage.RuleError, match=r"rule 2 \('my-rule'\): duplicate id 'my-rule'"):
        triage.load_rules([_user_rule(), _user_rule()])


# ---- errors() on the lab data ------------------------------------------------------------------


def _errors(path: str) -> tuple[toolkit.Capture, pd.DataFrame]:
    cap = toolkit.load_capture(DATA / path)
    return cap, triage.errors(cap)


def test_errors_frame_columns_and_dtypes():
    _, err = _errors("before-fix/session.jsonl.zstd")
    assert list(err.columns) == [
        "source",
        "exchange_id",
        "location",
        "call_id",
        "kind",
        "status",
        "error_code",
        "message",
        "layer",
        "rule_id",
        "explanation",
        "fix",
    ]
    assert list(err["layer"].cat.categories) == [*triage.LAYERS, "unknown"]
    assert list(err["kind"].cat.categories) == ["http", "stream", "tool-result", "tool-output", "problem"]
    assert str(err["status"].dtype) == "Int64" and str(err["message"].dtype) == "string"


def test_errors_before_fix_session_tool_results():
    cap, err = _errors("before-fix/session.jsonl.zstd")
    assert len(err) == int(cap.tool_results["is_error"].sum()) == 3
    assert set(err["kind"]) == {"tool-result"}
    got = dict(zip(err["call_id"], zip(err["layer"], err["rule_id"])))
    assert got == {
        "call_0001": ("runtime-policy", "dsh-invalid-justification"),
        "call_0002": ("runtime-policy", "dsh-escalation-same-mode"),
        "call_0003": ("config-capability", "dsh-read-image-undeclared"),
    }
    assert err["message"].str.startswith("Error: ").all()  # the text as DSH logged it
    assert set(err["source"]) == {"session.jsonl.zstd"}


@pytest.mark.parametrize(
    "path", ["image-refused/capture.har", "image-refused/gateway.jsonl", "image-refused/capture.mitm"]
)
def test_errors_image_refused(path):
    _, err = _errors(path)
    assert len(err) == 1
    row = err.iloc[0]
    assert (row["kind"], row["status"], row["error_code"]) == ("http", 400, "unsupported_image_input")
    assert row["layer"] == "config-capability" and row["rule_id"] == "gateway-unsupported-image-input"
    assert row["message"] == "Image input is not supported by model gw-coder on this gateway."


def test_errors_busy_day_every_error_classified():
    cap, everything = _errors("busy-day/gateway.jsonl")
    ex = cap.exchanges
    terminal = ex["terminal"].astype(str)
    assert (everything["layer"] != "unknown").all() and (everything["rule_id"] != "unknown").all()
    # DSH's refusals reach a gateway log only as outputs sent back in later requests: one row per call
    outputs = everything[everything["kind"] == "tool-output"]
    sent_back = cap.inputs[
        (cap.inputs["item_type"] == "function_call_output") & cap.inputs["text"].str.startswith("Error: ")
    ]
    assert len(outputs) == sent_back["call_id"].nunique() and outputs["call_id"].is_unique
    assert set(outputs["layer"]) == {"runtime-policy"}
    assert set(outputs["rule_id"]) == {"dsh-invalid-justification", "dsh-escalation-same-mode"}
    err = everything[everything["kind"].isin(["http", "stream"])]
    assert set(err["layer"]) == {"transport-gateway"}
    # one row per failing exchange; the cut streams' stream-cut problems are not counted twice
    assert len(err) == int((terminal.isin(["http-error", "failed", "cut"]) | (ex["status"] >= 400)).sum()) == 48
    assert err["exchange_id"].is_unique
    by_status = err[err["kind"] == "http"].groupby("status").size().to_dict()
    assert (
        by_status == {429: int((ex["status"] == 429).sum()), 500: int((ex["status"] == 500).sum())} == {429: 19, 500: 9}
    )
    stream = err[err["kind"] == "stream"]
    cut_ids = set(ex.loc[terminal == "cut", "exchange_id"])
    failed_ids = set(ex.loc[terminal == "failed", "exchange_id"])
    assert set(stream["exchange_id"]) == cut_ids | failed_ids and len(cut_ids) == len(failed_ids) == 10
    cut = stream[stream["exchange_id"].isin(cut_ids)]
    assert set(cut["rule_id"]) == {"toolkit-stream-cut-responses", "toolkit-stream-cut-chat"}
    problems = cap.problems.set_index("exchange_id")["message"]
    assert all(problems[x] == m for x, m in zip(cut["exchange_id"], cut["message"]))
    assert set(stream[stream["exchange_id"].isin(failed_ids)]["rule_id"]) == {"gateway-model-failed"}
    assert set(err.loc[err["status"] == 429, "rule_id"]) == {"gateway-rate-limited"}
    assert set(err.loc[err["status"] == 500, "rule_id"]) == {"gateway-server-error"}


def test_errors_on_a_clean_capture_is_empty():
    _, err = _errors("after-fix/capture.har")
    assert err.empty and list(err.columns)[-1] == "fix"


def test_errors_lists_problems_not_already_represented():
    cap = toolkit.load_capture(DATA / "busy-day" / "gateway.jsonl")
    before = len(triage.errors(cap))
    extra = pd.DataFrame(
        {
            "source": ["x.mitm", "x.mitm", "x.mitm"],
            "location": ["flow 3", "flow 4", "line 9"],
            "kind": ["flow-error", "sse-frame", "retried"],
            "message": [
                "mitmproxy recorded an error: Connection killed.",
                BAD_FRAME,
                "an attempt finished 'error' (PROVIDER_ERROR: OpenAI Responses stream ended "
                "before a terminal response event) and the step was retried",
            ],
            "exchange_id": [None, None, None],
        }
    )
    probs = pd.concat([cap.problems.astype(object), extra], ignore_index=True)
    cap.problems = probs.astype({c: str(t) for c, t in cap.problems.dtypes.items()})
    err = triage.errors(cap)
    rows = err[err["kind"] == "problem"]
    assert list(rows["rule_id"]) == ["toolkit-flow-error", "toolkit-sse-bad-frame", "pi-ai-stream-no-terminal"]
    assert (
        rows["message"].iloc[2].startswith("an attempt finished")
    )  # the toolkit's sentence, triaged by its inner text
    assert len(err) == before + 3
