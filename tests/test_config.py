"""Layer 1: settings resolve as DSH and pi-ai resolve them; each finding quotes DSH where DSH speaks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import REPO

from toolkit.layers.config import SettingsError, apply_fix, load_settings, suggest_fix

CONFIGS = REPO / "data" / "configs"
BEFORE, AFTER = CONFIGS / "settings.before.yaml", CONFIGS / "settings.after.yaml"


def settings(text: str, **kw):
    return load_settings(textwrap.dedent(text).lstrip("\n"), **{"env": {"KEY": "set"}, **kw})


def codes(s) -> list[str]:
    return sorted(s.findings["code"])


def one(s, code):
    rows = s.findings[s.findings["code"] == code]
    assert len(rows) == 1, (code, s.findings[["code", "message"]])
    return rows.iloc[0]


ROUTE = """
llm-pi-ai:
  providers:
    gw:
      api: openai-responses
      baseURL: http://127.0.0.1:9/v1
      apiKeyEnv: KEY
      compat:
        supportsStrictMode: true
      models:
        - id: m1
          input: [text, image]
"""


def test_lab_before_config_findings_and_sources():
    s = load_settings(BEFORE, env={})
    assert codes(s) == ["api-key-unset", "image-undeclared", "input-modalities-ignored", "strict-absent"]
    assert set(one(s, "strict-absent")[["severity", "layer"]]) == {"warning", "serialization"}
    m = s.model("gateway", "gw-coder")
    assert m["input"] == ("text",) and m["input_source"] == "route defaultInput (default [text])"
    assert (m["context_window"], m["context_window_source"], m["max_tokens_source"]) == (262144, "entry", "entry")
    # the seed's trap: convertResponsesTools defaults to true, but the provider passes its own false
    assert m["strict_mode_local_default"] == True and m["supports_strict_mode"] == False  # noqa: E712 (numpy bools)
    assert m["strict_mode_source"].startswith("pi-ai getCompat default for openai-responses")
    assert m["strict_mode_winner"].startswith("provider's resolved value") and m["tool_strict"] == "absent"
    assert s.default_model == {
        "route": "gateway",
        "model": "gw-coder",
        "source": "agent-default-model",
        "exists": True,
        "line": 2,
    }
    assert (s.default_preset["sandbox_mode"], s.default_preset["approval"]) == ("danger-full-access", "never")
    assert one(s, "image-undeclared")["dsh_message"] == 'pi-ai model "gw-coder" does not support image input'


def test_lab_after_config_is_clean_when_the_key_is_set():
    s = load_settings(AFTER, env={"GATEWAY_API_KEY": "anything"})
    assert codes(s) == []
    m = s.model("gateway", "gw-coder")
    assert (m["input"], m["input_source"], m["supports_strict_mode"], m["strict_mode_source"], m["tool_strict"]) == (
        ("text", "image"),
        "entry",
        True,
        "route compat",
        "false",
    )
    assert s.routes.iloc[0]["api_key_set"]


def test_fix_turns_before_into_after_and_leaves_the_rest_byte_for_byte():
    before, after = BEFORE.read_text(encoding="utf-8"), AFTER.read_text(encoding="utf-8")
    fixed = apply_fix(BEFORE, env={})
    assert fixed.splitlines()[1:] == after.splitlines()[1:]  # all but the header comment, which says "before"
    diff = suggest_fix(BEFORE, env={})
    changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
    assert changed == [
        "+      compat:",
        "+        supportsStrictMode: true",
        "-          inputModalities: [text, image]",
        "+          input: [text, image]",
    ]
    assert diff.startswith(f"--- a/{BEFORE}\n+++ b/{BEFORE}\n")
    assert suggest_fix(AFTER, env={"GATEWAY_API_KEY": "x"}) == ""
    assert BEFORE.read_text(encoding="utf-8") == before  # the file itself is never written


def test_fix_keeps_comments_and_crlf():
    text = (
        "# top\r\nllm-pi-ai:\r\n  providers:\r\n    gw:  # the gateway\r\n      api: openai-responses\r\n"
        "      baseURL: http://x/v1\r\n      models:\r\n        - id: m1  # main\r\n"
    )
    fixed = apply_fix(text, env={})
    assert fixed == (
        "# top\r\nllm-pi-ai:\r\n  providers:\r\n    gw:  # the gateway\r\n      api: openai-responses\r\n"
        "      baseURL: http://x/v1\r\n      compat:\r\n        supportsStrictMode: true\r\n      models:\r\n"
        "        - id: m1  # main\r\n          input: [text, image]\r\n"
    )


@pytest.mark.parametrize(
    "extra, code, dsh",
    [
        (
            "      provider: gw\n",
            "removed-key",
            'llm-pi-ai: provider "gw" sets "provider", which moved to the providers dict key',
        ),
        (
            "      maxRetries: 3\n",
            "removed-key",
            'llm-pi-ai: provider "gw" sets maxRetries or maxRetryDelayMs, which were removed; compose agent recovery with dsh-llm-retry',
        ),
        (
            "      defaultInput: []\n",
            "empty-default-input",
            'llm-pi-ai: provider "gw" defaultInput must name at least one modality',
        ),
        ("      displayName: ''\n", "empty-field", 'llm-pi-ai: provider "gw" has an empty displayName'),
    ],
)
def test_route_level_refusals(extra, code, dsh):
    text = ROUTE.replace("      apiKeyEnv: KEY\n", "      apiKeyEnv: KEY\n" + extra)
    f = one(settings(text), code)
    assert (f["severity"], f["dsh_message"]) == ("error", dsh)
    assert f["line"] == 7  # the line the extra key was written on


def test_removed_keys_and_empty_default_input_are_fixed_by_edits():
    text = ROUTE.replace(
        "      apiKeyEnv: KEY\n", "      apiKeyEnv: KEY\n      maxRetryDelayMs: 10\n      defaultInput: []  # oops\n"
    )
    fixed = apply_fix(textwrap.dedent(text).lstrip("\n"), env={"KEY": "x"})
    assert "maxRetryDelayMs" not in fixed and "      defaultInput: [text]  # oops\n" in fixed
    assert load_settings(fixed, env={"KEY": "x"}).findings.empty


def test_compat_vocabulary_and_api_refusals():
    s = settings(
        ROUTE.replace(
            "        supportsStrictMode: true\n",
            "        supportsStrictMode: true\n        supportsStrict: true\n"
            "        supportsToolSearch: true\n        supportsDeveloperRole:\n",
        ).replace(
            "          input: [text, image]\n",
            "          input: [text, image]\n          compat:\n            supportsStore: false\n",
        )
    )
    assert one(s, "compat-undeclared")["dsh_message"] == (
        'llm-pi-ai: provider "gw" route sets compat "supportsStrict", which no wire protocol declares; the configurable '
        "switches are supportsStore, supportsDeveloperRole, supportsReasoningEffort, supportsUsageInStreaming, "
        "maxTokensField, requiresToolResultName, requiresAssistantAfterToolResult, requiresThinkingAsText, "
        "requiresReasoningContentOnAssistantMessages, thinkingFormat, chatTemplateKwargs, supportsStrictMode, "
        "cacheControlFormat, supportsLongCacheRetention, supportsEagerToolInputStreaming, supportsCacheControlOnTools, "
        "supportsTemperature, forceAdaptiveThinking, allowEmptySignature, supportsStrictTools"
    )
    assert one(s, "compat-withheld")["dsh_message"].endswith(
        'route sets compat "supportsToolSearch", which is not configurable here: pi-ai\'s installed catalog sets it for '
        "the vendors that need it, so name that provider as the route instead"
    )
    assert one(s, "compat-valueless")["dsh_message"].endswith(
        'route sets compat "supportsDeveloperRole" with no value; give it one, or remove the key to leave the field to the '
        "next layer — the installed catalog entry, then pi-ai's own detection"
    )
    assert one(s, "compat-wrong-api")["dsh_message"] == (
        'llm-pi-ai: provider "gw" model "m1" sets compat "supportsStore", but its api is "openai-responses", which does not '
        'take it; that switch exists on openai-completions, and "openai-responses" offers supportsDeveloperRole, '
        "supportsStrictMode, supportsLongCacheRetention"
    )


def test_models_duplicates_missing_api_and_none_listed():
    s = settings(ROUTE + "        - id: m1\n")
    assert one(s, "duplicate-model")["dsh_message"] == 'llm-pi-ai: provider "gw" lists model "m1" more than once'
    s = settings(ROUTE.replace("      api: openai-responses\n", ""))
    assert one(s, "needs-api")["dsh_message"] == (
        'llm-pi-ai: provider "gw" model "m1" needs an api; the installed catalog does not describe it, so set the '
        "route's api to the wire protocol its endpoint speaks"
    )
    s = settings(ROUTE.split("      models:")[0])
    assert one(s, "no-models")["dsh_message"] == (
        'llm-pi-ai: provider "gw" resolves no models; the installed catalog does not describe this route, so its '
        "models must be listed in configuration"
    )


def test_strict_and_image_findings_follow_the_api():
    plain = ROUTE.replace("      compat:\n        supportsStrictMode: true\n", "").replace(
        "          input: [text, image]\n", ""
    )
    assert codes(settings(plain)) == ["image-undeclared", "strict-absent"]
    codex = settings(plain.replace("openai-responses", "openai-codex-responses"))
    assert codes(codex) == ["image-undeclared"] and codex.models.iloc[0]["tool_strict"] == "null"
    chat = settings(plain.replace("openai-responses", "openai-completions"))
    assert codes(chat) == ["image-undeclared"] and chat.models.iloc[0]["tool_strict"] == "absent"
    old = settings(plain, pi_ai_version="0.73.1")
    assert codes(old) == ["image-undeclared"] and old.models.iloc[0]["tool_strict"] == "false"
    wide = settings(
        plain.replace("      apiKeyEnv: KEY\n", "      apiKeyEnv: KEY\n      defaultInput: [text, image]\n")
    )
    assert codes(wide) == ["strict-absent"]
    assert wide.models.iloc[0]["input_source"] == "route defaultInput"


def test_default_model_and_preset_resolution():
    missing_route = settings(ROUTE + "agent-default-model:\n  provider: nowhere\n  model: m1\n")
    f = one(missing_route, "default-route-missing")
    assert "route `nowhere`" in f["message"] and f["line"] == 13
    missing_model = settings(ROUTE + "agent-default-model:\n  provider: gw\n  model: m9\n")
    assert (
        one(missing_model, "default-model-missing")["dsh_message"] == 'pi-ai provider "gw" has no configured model "m9"'
    )
    base = settings(ROUTE)
    assert base.default_model["route"] == "deepseek-official" and base.default_model["source"].startswith(
        "base default"
    )
    assert base.default_preset == {
        "preset": None,
        "sandbox_mode": "workspace-write",
        "approval": "ask",
        "source": "base bundle default (sandbox-policy)",
    }
    env = settings(ROUTE, env={"KEY": "x", "DSH_PERMISSION_MODE": "danger-full-access"})
    assert (env.default_preset["sandbox_mode"], env.default_preset["approval"], env.default_preset["source"]) == (
        "danger-full-access",
        "never",
        "DSH_PERMISSION_MODE",
    )
    assert one(settings(ROUTE + "permission:\n  defaultPreset: yolo\n"), "unknown-preset")["severity"] == "error"


def test_yaml_syntax_error_has_line_and_column():
    s = settings("llm-pi-ai:\n  providers:\n    gw: [unclosed\n")
    f = one(s, "yaml-syntax")
    assert (f["severity"], f["line"], f["column"]) == ("error", 4, 1)
    assert f["message"].startswith("YAML syntax error:")
    assert s.models.empty and s.routes.empty


def test_api_key_value_is_never_read_or_shown(tmp_path, monkeypatch):
    secret = "sk-live-0123456789abcdefghijklmn"
    s = load_settings(AFTER, env={"GATEWAY_API_KEY": secret})
    assert secret not in repr(s) + s.routes.to_csv() + s.models.to_csv() + s.findings.to_csv()
    cred = tmp_path / ".credentials.yaml"
    cred.write_text("GATEWAY_API_KEY: " + secret + "\n")
    opened = []
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: opened.append(self) or "")
    with pytest.raises(SettingsError, match="refusing to read a credential file"):
        load_settings(cred)
    assert opened == []


def test_unreadable_settings_file_is_a_clear_error(tmp_path):
    with pytest.raises(SettingsError, match=r"nope\.yaml: cannot read"):
        load_settings(tmp_path / "nope.yaml")


def test_route_compat_no_model_can_read():
    s = settings(
        ROUTE.replace(
            "        supportsStrictMode: true\n", "        supportsStrictMode: true\n        supportsStore: true\n"
        )
    )
    assert one(s, "compat-unreadable")["dsh_message"] == (
        'llm-pi-ai: provider "gw" sets compat "supportsStore", but no model on the route speaks a protocol that takes '
        "it; it exists on openai-completions"
    )


def test_catalog_values_and_their_source():
    text = ROUTE.replace("          input: [text, image]\n", "")
    s = settings(text, catalog={"gw": {"m1": {"input": ["text", "image"], "contextWindow": 1000}}})
    m = s.model("gw", "m1")
    assert (m["input"], m["input_source"], m["context_window"], m["context_window_source"], m["max_tokens_source"]) == (
        ("text", "image"),
        "catalog",
        1000,
        "catalog",
        "defaultMaxTokens default",
    )
    assert "image-undeclared" not in codes(s)
