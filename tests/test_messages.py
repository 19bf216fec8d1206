"""The one store of the toolkit's translated strings (toolkit.knowledge.messages) and the language choice
(toolkit.present.i18n): both languages everywhere, no upstream text translated, the resolution order."""

from __future__ import annotations

import importlib
import string

import pytest

from toolkit.knowledge import dsh_images
from toolkit.knowledge.messages import LANGUAGES, MESSAGES, Message, text
from toolkit.present import i18n

#: the knowledge modules whose constants hold exact upstream texts (DSH, pi-ai, OpenAI, LiteLLM)
UPSTREAM_MODULES = ("dsh_runtime", "dsh_images", "pi_ai", "openai_strict", "dsh_settings", "litellm_config")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _strings(v)


def _upstream_texts() -> set[str]:
    """Every sentence-like constant of the upstream knowledge modules, and DSH's image refusals as filled
    for a model and path."""
    out: set[str] = set()
    for name in UPSTREAM_MODULES:
        mod = importlib.import_module(f"toolkit.knowledge.{name}")
        for key, value in vars(mod).items():
            if key.lstrip("_").isupper():
                out.update(s for s in _strings(value) if " " in s.strip() and len(s) > 12)
    out.update(t for _, t in dsh_images.refusals("gw-coder", "screenshot.png"))
    out.update({dsh_images.PLACEHOLDER_USER, dsh_images.PLACEHOLDER_TOOL, dsh_images.WEB_TOAST_ZH})
    return out


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}


def test_every_key_has_both_languages_with_the_same_placeholders():
    for key, entry in MESSAGES.items():
        assert set(entry) == set(LANGUAGES), key
        assert all(entry[lang].strip() for lang in LANGUAGES), key
        assert _fields(entry["en"]) == _fields(entry["zh-CN"]), key


def test_the_upstream_set_is_real():
    texts = _upstream_texts()
    assert len(texts) > 40
    assert "invalid justification: expected a non-empty sentence" in texts
    assert "当前模型不支持图片，请切换支持图片的模型" in texts


def test_no_upstream_text_is_in_the_catalogue():
    texts = _upstream_texts()
    hits = [
        (key, lang, t) for key, entry in MESSAGES.items() for lang, value in entry.items() for t in texts if t in value
    ]
    assert hits == []


def test_text_fills_and_refuses_unknowns():
    assert text("verify.execution.refused", "en", failed=1, n=2) == "DSH refused 1 of 2 calls"
    assert text("verify.execution.refused", "zh-CN", failed=1, n=2) == "DSH 拒绝了 2 次调用中的 1 次"
    with pytest.raises(KeyError, match="no-such-key"):
        text("no-such-key")
    with pytest.raises(ValueError, match="fr"):
        text("report.title", "fr")


def test_message_is_its_english_text_and_renders_nested_messages_and_verbatim_params():
    dsh = "invalid justification: expected a non-empty sentence"
    inner = Message("verify.where.line", line=3)
    m = Message("verify.finding_dsh", severity=Message("severity.error"), where=inner, message="m", dsh_text=dsh)
    assert m == f"error (line 3): m — DSH: {dsh}"
    assert isinstance(m, str)
    zh = m.render("zh-CN")
    assert zh.startswith("错误（第 3 行）") and dsh in zh


@pytest.fixture
def clean_env(monkeypatch):
    for var in (i18n.ENV, "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    i18n.set_language(None)
    yield monkeypatch
    i18n.set_language(None)


def test_library_language_order(clean_env):
    clean_env.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language() == "en"  # the library never reads the locale
    clean_env.setenv(i18n.ENV, "zh-CN")
    assert i18n.language() == "zh-CN"
    i18n.set_language("en")
    assert i18n.language() == "en"  # set_language wins over the environment
    assert i18n.t("verdict.fail") == "fail"
    i18n.set_language("zh-CN")
    assert i18n.t("verdict.fail") == "失败"
    with pytest.raises(ValueError):
        i18n.set_language("de")


def test_cli_language_order(clean_env):
    assert i18n.cli_language(None) == "en"
    clean_env.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.cli_language(None) == "zh-CN"
    clean_env.setenv("LC_MESSAGES", "en_US.UTF-8")
    assert i18n.cli_language(None) == "en"  # LC_MESSAGES before LANG
    clean_env.setenv("LC_ALL", "zh_TW.UTF-8")
    assert i18n.cli_language(None) == "zh-CN"  # LC_ALL first
    clean_env.setenv(i18n.ENV, "en")
    assert i18n.cli_language(None) == "en"  # AGENT_CONTRACT_LANG before the locale
    assert i18n.cli_language("zh-CN") == "zh-CN"  # --lang first
    with pytest.raises(ValueError, match="--lang"):
        i18n.cli_language("xx")


def test_joined_renders_its_messages_and_keeps_verbatim_parts():
    import copy
    import pickle

    from toolkit.knowledge.messages import Joined, render

    place = "capture.har entry 3 $.tools[0].strict"
    j = Joined("; ", [place, "", Message("verify.where.line", line=7)])
    assert j == f"{place}; line 7"  # empty parts are left out, as "; ".join(e for e in … if e) did
    assert j.render("zh-CN") == f"{place}; 第 7 行"
    assert pickle.loads(pickle.dumps(j)).render("zh-CN") == j.render("zh-CN")
    assert copy.deepcopy(j).render("zh-CN") == j.render("zh-CN")
    assert render("plain upstream text", "zh-CN") == "plain upstream text"
    with pytest.raises(ValueError, match="fr"):
        Message("verify.where.line", line=1).render("fr")


def test_a_key_defined_in_two_areas_is_refused():
    import types

    from toolkit.knowledge import messages

    a = types.SimpleNamespace(__name__="a", MESSAGES={"k": {"en": "x", "zh-CN": "x"}})
    b = types.SimpleNamespace(__name__="b", MESSAGES={"k": {"en": "y", "zh-CN": "y"}})
    with pytest.raises(ValueError, match="'k' is defined twice"):
        messages._merge(a, b)


def test_every_provenance_question_has_a_message():
    from toolkit.analysis.provenance import QUESTIONS

    for q in QUESTIONS:
        assert text(f"provenance.question.{q}", "en") == q
        assert text(f"provenance.question.{q}", "zh-CN") != q
