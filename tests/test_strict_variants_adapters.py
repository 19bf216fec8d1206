"""The strict-variant comparer's adapter choice: the plain functions (``adapter_choices``,
``option_settings``, ``variant_view(..., adapter=…)``, ``side_value``) and the widget's controls, checked
against what each adapter's model sends (itself checked against the recorded fixtures)."""

from __future__ import annotations

import html
import re

import pytest

from toolkit.knowledge import adapters, ai_sdk_tools
from toolkit.layers.serialization import convert_tools, strict_state
from toolkit.present import widgets as w
from toolkit.present.widgets.strict_variants import (
    ADAPTERS,
    READ_STRICT_AS_SENT,
    adapter_choices,
    option_settings,
    side_value,
)


@pytest.fixture(autouse=True)
def _fresh_memory():
    w.forget_selections()
    yield
    w.forget_selections()


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_the_comparer_offers_every_adapter_that_takes_a_definition():
    assert ADAPTERS == ("pi-ai", "ai-sdk", "agents-sdk", "litellm")  # Codex sends its own tools
    assert adapter_choices("ai-sdk") == {
        "apis": ai_sdk_tools.AI_SDK_APIS,
        "versions": tuple(ai_sdk_tools.RELEASES),
        "options": ("unset", "true", "false"),
        "label": ("strict",),
    }
    assert adapter_choices("pi-ai")["options"] == w.COMPATS
    assert adapter_choices("agents-sdk")["options"] == ("true", "false")
    assert option_settings("pi-ai", "true") == {"compat": {"supportsStrictMode": True}}
    assert option_settings("ai-sdk", "unset") == {"strict": None}
    assert option_settings("agents-sdk", "false") == {"strict_json_schema": False}
    with pytest.raises(ValueError, match="unknown adapter 'codex'; choose one of pi-ai, ai-sdk, agents-sdk, litellm"):
        adapter_choices("codex")
    with pytest.raises(ValueError, match="unknown litellm option 'maybe'; choose one of unset, true, false"):
        option_settings("litellm", "maybe")


@pytest.mark.parametrize("adapter", ["ai-sdk", "agents-sdk", "litellm"])
@pytest.mark.parametrize("gateway", w.GATEWAYS)
def test_variant_view_shows_what_each_adapter_sends(adapter, gateway):
    for api in adapter_choices(adapter)["apis"]:
        for option in adapter_choices(adapter)["options"]:
            view = w.variant_view("bash", api=api, gateway=gateway, adapter=adapter, option=option)
            sent = convert_tools(
                [w.tool_definition("bash")], adapter=adapter, api=api, options=option_settings(adapter, option)
            )[0]
            flat = sent.get("function", sent)
            assert view["sent_strict"] == strict_state(sent)
            assert view["sent"]["parameters"] == flat["parameters"]
            assert view["adapter_name"] == adapters.profile(adapter).name
            if view["sent_strict"] == "true":
                assert view["read_as"] == READ_STRICT_AS_SENT and view["schema"] == flat["parameters"]
            elif gateway == "pass-through" or (view["sent_strict"] == "false" and gateway != "forces strict"):
                assert view["read_as"] == w.READ_NON_STRICT and "justification" in view["optional"]
            else:
                assert view["read_as"] == w.READ_NORMALISED and "justification" in view["required"]


def test_the_ai_sdk_on_responses_always_sends_strict_false():
    view = w.variant_view("bash", api="responses", gateway="reads absent as strict", adapter="ai-sdk")
    assert view["option"] == "strict unset" and view["sent_strict"] == "false"
    assert view["read_as"] == w.READ_NON_STRICT
    chat = w.variant_view("bash", api="chat", gateway="reads absent as strict", adapter="ai-sdk")
    assert chat["sent_strict"] == "absent" and chat["read_as"] == w.READ_NORMALISED


def test_an_adapter_refusal_is_shown_as_not_sent():
    tool = {
        "name": "names",
        "description": "d",
        "parameters": {"type": "object", "propertyNames": {"type": "integer"}, "properties": {}},
    }
    view = w.variant_view(tool, api="chat", gateway="pass-through", adapter="ai-sdk")
    assert view["read_as"] == w.READ_NOT_SENT and view["must_send"].startswith("nothing: Vercel AI SDK refuses")


def test_variant_view_refuses_an_api_or_version_of_another_adapter():
    with pytest.raises(ValueError, match="LiteLLM has no api 'openai-responses'; choose one of chat, responses"):
        w.variant_view("bash", api="openai-responses", gateway="pass-through", adapter="litellm")
    with pytest.raises(ValueError, match=re.escape("Vercel AI SDK '1.0' is not modelled")):
        w.variant_view("bash", api="chat", gateway="pass-through", adapter="ai-sdk", version="1.0")


def test_side_value_keeps_pi_ai_sides_as_before():
    pi = {"adapter": "pi-ai", "api": "openai-responses", "compat": "unset", "gateway": "pass-through", "pi_ai": "1.6.0"}
    assert side_value(pi | {"option": "unset", "version": "1.6.0"}) == {
        "api": "openai-responses",
        "compat": "unset",
        "gateway": "pass-through",
        "pi_ai": "1.6.0",
    }
    other = pi | {"adapter": "litellm", "api": "chat", "option": "true", "version": "1.110.2"}
    assert side_value(other) == {
        "adapter": "litellm",
        "api": "chat",
        "option": "true",
        "version": "1.110.2",
        "gateway": "pass-through",
    }


def test_the_adapter_dropdown_swaps_the_options_control():
    cmp = w.StrictVariantComparer(tool="bash", remember=False)
    assert cmp.left_adapter.value == "pi-ai" and cmp.controls["left"]["option"].layout.display == "none"
    cmp.right_adapter.value = "ai-sdk"
    right = cmp.controls["right"]
    assert list(right["api"].options) == list(ai_sdk_tools.AI_SDK_APIS)
    assert right["api"].value == "responses"  # the wire api kept: openai-responses -> responses
    assert list(right["option"].options) == ["unset", "true", "false"] and right["option"].value == "unset"
    assert right["compat"].layout.display == "none" and right["option"].layout.display is None
    assert cmp.value["right"] == {
        "adapter": "ai-sdk",
        "api": "responses",
        "option": "unset",
        "version": "7.0.173",
        "gateway": "reads absent as strict",
    }
    pane = _text(cmp.right_pane.value)
    assert "Vercel AI SDK 7.0.173 · strict unset" in pane and "sent strict: false" in pane
    assert "sent strict absent → false" in _text(cmp.summary.value)
    right["option"].value = "true"
    assert "sent strict: true" in _text(cmp.right_pane.value)
    cmp.right_adapter.value = "pi-ai"
    assert right["api"].value == "openai-responses" and cmp.value["right"]["compat"] == "true"


def test_an_adapter_side_is_given_and_remembered():
    cmp = w.StrictVariantComparer(tool="bash", right={"adapter": "agents-sdk"})
    assert cmp.value["right"]["option"] == "true" and cmp.value["right"]["api"] == "responses"
    assert "OpenAI Agents SDK" in _text(cmp.right_pane.value)
    cmp.controls["right"]["option"].value = "false"
    again = w.StrictVariantComparer(tool="bash", right={"adapter": "agents-sdk"})
    assert again.value == cmp.value and again.right_pane.value == cmp.right_pane.value
    with pytest.raises(ValueError, match="unknown right option 'maybe'"):
        w.StrictVariantComparer(right={"adapter": "litellm", "option": "maybe"})
