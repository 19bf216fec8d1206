"""Layer 1: settings resolve as DSH and pi-ai resolve them; each finding quotes DSH where DSH speaks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO

from toolkit.knowledge import dsh_settings as dsh
from toolkit.layers.config import (
    FINDINGS,
    MODELS,
    ROUTES,
    SettingsError,
    apply_fix,
    load_settings,
    search,
    suggest_fix,
)

CONFIGS = REPO / "data" / "configs"
BEFORE, AFTER = CONFIGS / "settings.before.yaml", CONFIGS / "settings.after.yaml"


def test_dsh_release_sets_the_pi_ai_version():
    s = load_settings(BEFORE, env={}, dsh="0.1.0-rc.8")
    assert (s.dsh, s.pi_ai) == ("0.1.0-rc.8", dsh.PI_AI_FOR_DSH["0.1.0-rc.8"])
    assert load_settings(BEFORE, env={}, dsh="0.1.0-rc.8", pi_ai_version=s.pi_ai).pi_ai == s.pi_ai
    with pytest.raises(ValueError, match=r"loads pi-ai 0\.82\.1"):
        load_settings(BEFORE, env={}, dsh="0.1.0-rc.8", pi_ai_version="1.6.0")
    with pytest.raises(ValueError, match="unknown DSH release"):
        load_settings(BEFORE, env={}, dsh="9.9.9")
    assert load_settings(BEFORE, env={}).dsh is None
    # the release's wording reaches suggest_fix's findings too: the missing-credential text differs by release
    texts = {
        release: next(
            f.dsh_message for f in load_settings(BEFORE, env={}, dsh=release)._findings if f.code == "api-key-unset"
        )
        for release in (None, "0.1.0-rc.8")
    }
    assert texts[None] != texts["0.1.0-rc.8"] and texts["0.1.0-rc.8"].endswith("environment discovery")
    assert suggest_fix(BEFORE, env={}, dsh="0.1.0-rc.8") == suggest_fix(BEFORE, env={})


def settings(text: str, **kw):
    return load_settings(text=textwrap.dedent(text).lstrip("\n"), **{"env": {"KEY": "set"}, **kw})


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
    image = one(s, "image-undeclared")
    assert image["dsh_message"] == "The current model does not support images; switch to a model that does"
    assert dict(image["dsh_messages"])["pi-ai adapter"] == 'pi-ai model "gw-coder" does not support image input'


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
    fixed = apply_fix(text=text, env={})
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
    fixed = apply_fix(text=textwrap.dedent(text).lstrip("\n"), env={"KEY": "x"})
    assert "maxRetryDelayMs" not in fixed and "      defaultInput: [text]  # oops\n" in fixed
    assert load_settings(text=fixed, env={"KEY": "x"}).findings.empty


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
    # A hand-declared route may not name openai-codex-responses (DSH's profile schema offers three
    # protocols, tests/fixtures/dsh/config.json "api-unsupported-azure"); the model is still resolved, since
    # a catalog route reaches that api and its tools go out the same way.
    codex = settings(plain.replace("openai-responses", "openai-codex-responses"))
    assert codes(codex) == ["image-undeclared", "unsupported-api"] and codex.models.iloc[0]["tool_strict"] == "null"
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
    assert f["message"].startswith("YAML syntax error in the settings text (text=):")
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


# ---- a path and a text are told apart by the caller


def test_a_path_without_a_suffix_is_read_as_a_file(tmp_path):
    # regression: the path string used to be parsed as YAML text and reported as `not-a-mapping`
    plain = tmp_path / "settings"
    plain.write_text(textwrap.dedent(ROUTE).lstrip("\n"), encoding="utf-8")
    for given in (str(plain), plain):
        s = load_settings(given, env={"KEY": "set"})
        assert (s.source, list(s.routes["route"]), codes(s)) == (str(plain), ["gw"], [])
    assert apply_fix(str(plain), env={"KEY": "set"}) == plain.read_text(encoding="utf-8")


def test_a_str_that_is_no_file_is_an_error_that_says_it_was_taken_as_a_path(tmp_path):
    missing = str(tmp_path / "path" / "without-a-suffix")
    for call in (load_settings, suggest_fix, apply_fix):
        with pytest.raises(SettingsError) as err:
            call(missing)
        assert str(err.value) == (
            f"{missing}: cannot read: No such file or directory "
            "(taken as a path to a settings file; YAML text goes in text=)"
        )
    with pytest.raises(SettingsError, match=r"^'llm-pi-ai:\\n  providers:.*…': cannot read: .*YAML text goes in text="):
        load_settings(textwrap.dedent(ROUTE).lstrip("\n"))


def test_exactly_one_of_path_and_text():
    with pytest.raises(TypeError, match="not both"):
        load_settings()
    with pytest.raises(TypeError, match="not both"):
        load_settings(AFTER, text="{}")
    with pytest.raises(TypeError, match=r"str or os\.PathLike, not bytes"):
        load_settings(b"settings.yaml")


def test_text_that_is_not_a_mapping_says_it_was_taken_as_text():
    f = one(load_settings(text="path/without-a-suffix"), "not-a-mapping")
    assert (f["severity"], f["line"], f["yaml_path"]) == ("error", 1, "")
    assert f["message"] == "the settings text (text=) is a YAML str, not a mapping of namespaces"
    assert f["fix"].endswith("(to read a file, pass its path, not text=)")


def test_a_file_that_is_not_a_mapping_names_the_file(tmp_path):
    listed = tmp_path / "settings.yaml"
    listed.write_text("- llm-pi-ai\n", encoding="utf-8")
    f = one(load_settings(listed), "not-a-mapping")
    assert f["message"] == f"settings file {listed} is a YAML list, not a mapping of namespaces"


# ---- the codes no other test reaches


def test_providers_array():
    s = settings("llm-pi-ai:\n  providers:\n    - id: gw\n      api: openai-responses\n")
    f = one(s, "providers-array")
    assert (f["severity"], f["yaml_path"], f["line"]) == ("error", "llm-pi-ai.providers", 2)
    # The settings seam's schema refuses the array before llm-pi-ai's own text could (config.json records it).
    assert f["dsh_message"] == "$.providers expected object but got [object Object]"
    assert ("resolveProfiles", dsh.PROVIDERS_ARRAY) in f["dsh_messages"]
    assert s.routes.empty and s.models.empty


def test_needs_base_url():
    s = settings(ROUTE.replace("      baseURL: http://127.0.0.1:9/v1\n", ""))
    f = one(s, "needs-base-url")
    assert (f["severity"], f["yaml_path"], f["line"]) == ("error", "llm-pi-ai.providers.gw", 3)
    assert f["dsh_message"] == (
        'llm-pi-ai: provider "gw" model "m1" needs a baseURL; the installed catalog does not describe this route'
    )
    assert s.models["base_url"].isna().all()  # the model still resolves, without a baseURL


def test_no_routes():
    s = settings("permission:\n  defaultPreset: read-only\n")
    f = one(s, "no-routes")
    assert (f["severity"], f["layer"], f["yaml_path"]) == ("info", "config", "") and pd.isna(f["dsh_message"])
    assert f["message"] == "no `llm-pi-ai:` section: llm-pi-ai mounts with zero routes"
    assert s.default_model["exists"] is False and s.default_preset["sandbox_mode"] == "read-only"


# ---- frames: declared once, dtypes also when empty


@pytest.mark.parametrize(
    "text",
    [
        "llm-pi-ai:\n  providers: {}\n",  # no routes at all
        "llm-pi-ai:\n  providers:\n    gw:\n      api: openai-responses\n      baseURL: http://x/v1\n",  # no models
        "llm-pi-ai: [\n",  # YAML that does not parse
        "",
    ],
)
def test_frames_keep_their_dtypes_when_empty(text):
    s = load_settings(text=text, env={})
    assert s.models.empty
    assert MODELS.mismatches(s.models) == [] and ROUTES.mismatches(s.routes) == []
    assert FINDINGS.mismatches(s.findings) == []


def test_frames_match_their_declarations_on_the_lab_settings():
    for path in (BEFORE, AFTER):
        s = load_settings(path, env={})
        assert MODELS.mismatches(s.models) == [] and ROUTES.mismatches(s.routes) == []
        assert FINDINGS.mismatches(s.findings) == []


# ---- the image finding names every text DSH shows for it

GW_CODER = (
    (
        "read_image",
        'Error: cannot read "<path>" as an image: model "gw-coder" does not declare image input; '
        "switch to an image-capable model to read images",
    ),
    (
        "mcp",
        '[image unavailable: <media type>; model "gw-coder" does not declare image input; '
        "raw image data remains available to programmatic callers]",
    ),
    ("web", 'Model "gw-coder" does not support image input.'),
    ("web toast", "The current model does not support images; switch to a model that does"),
    ("web toast (zh)", "当前模型不支持图片，请切换支持图片的模型"),
    (
        "web model switch",
        'Model operation failed: model-unavailable: Model "gw-coder" does not accept image input, but this '
        "session already contains images; select an image-capable model.",
    ),
    ("pi-ai adapter", 'pi-ai model "gw-coder" does not support image input'),
    ("llm-deepseek adapter", 'DeepSeek model "gw-coder" does not accept image input.'),
    ("headless stderr (pi-ai)", 'dsh: UNSUPPORTED_CONTENT: pi-ai model "gw-coder" does not support image input'),
    (
        "headless stderr (llm-deepseek)",
        'dsh: UNSUPPORTED_CONTENT: DeepSeek model "gw-coder" does not accept image input.',
    ),
)


def test_image_finding_has_every_dsh_text_exactly():
    s = load_settings(BEFORE, env={})
    f = one(s, "image-undeclared")
    assert f["dsh_messages"] == GW_CODER
    assert f["dsh_message"] == dict(GW_CODER)["web toast"]
    others = s.findings[s.findings["code"] != "image-undeclared"]
    assert list(others["dsh_messages"]) == [()] * len(others)


@pytest.mark.parametrize(
    "seen",
    [
        "The current model does not support images; switch to a model that does",
        'Model "gw-coder" does not support image input.',
        'cannot read "screenshot.png" as an image: model "gw-coder" does not declare image input',
        'pi-ai model "gw-coder" does not support image input',
        "model-unavailable",
        "当前模型不支持图片",
    ],
)
def test_a_user_finds_the_finding_by_the_message_they_saw(seen):
    s = load_settings(BEFORE, env={})
    # a read_image path is unknown to the settings: the text around it is DSH's, so its tail is found
    needle = seen.split('" as an image: ')[-1] if seen.startswith("cannot read") else seen
    assert list(search(s.findings, needle)["code"]) == ["image-undeclared"]
    assert search(s.findings, "no DSH text says this").empty
