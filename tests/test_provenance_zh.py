"""The provenance table in Chinese: every answer and every hint in its evidence is a toolkit ``Message``
whose English is the cell's text, rendered in Chinese without an English toolkit word left, while DSH's
refusals, the config source quotes and the places stay verbatim; ``verify --lang zh-CN`` shows it."""

from __future__ import annotations

import pickle
import re
from html import escape

import pytest
from conftest import DEMO_BEFORE, REPO

import toolkit
from toolkit.analysis.provenance import QUESTIONS, TABLE, table
from toolkit.knowledge.messages import Joined, Message, render
from toolkit.knowledge.messages import provenance as catalogue
from toolkit.present import cli, i18n

DATA = REPO / "data"
SETTINGS = DATA / "configs" / "settings.before.yaml"
RUN = DATA / "dsh-before-fix"
#: every data/ input the other provenance tests read, and the paths the table can take on them
INPUTS = {
    "dsh-before-fix": (RUN / "settings.yaml", [RUN / "capture.har"], [RUN / "session.jsonl.zstd"]),
    "dsh-before-fix http only": (RUN / "settings.yaml", [RUN / "capture.har"], []),
    "before-fix": (SETTINGS, [DATA / "before-fix" / "capture.har"], []),
    "before-fix no settings": (None, [DATA / "before-fix" / "capture.har"], []),
    "image-refused": (SETTINGS, [DATA / "image-refused" / "capture.har"], []),
    "two-hop-strict": (SETTINGS, [DATA / "two-hop-strict" / n for n in ("front.har", "back.har")], []),
    "litellm-responses-to-chat": (
        None,
        [DATA / "litellm-responses-to-chat" / n for n in ("front.har", "back.har")],
        [],
    ),
    "litellm-before-fix front": (None, [DATA / "litellm-before-fix" / "front.har"], []),
    "litellm-before-fix both": (None, [DATA / "litellm-before-fix" / n for n in ("front.har", "back.har")], []),
}
#: the Latin-script words a Chinese answer may keep: identifiers, JSON keys, names (I18N terms)
IDENTIFIERS = {
    "DSH",
    "HTTP",
    "Responses",
    "additionalProperties",
    "arguments.",
    "compat.supportsStrictMode",
    "input",
    "keep_bodies",
    "pi-ai",
    "request/header",
    "required",
    "sandbox/mode",
    "schema",
    "settings.yaml",
    "settings=",
    "strict",
    "tools",
    "tools[name=].strict",
}


@pytest.fixture(scope="module")
def tables():
    return {name: table(s, captures=c, sessions=ss) for name, (s, c, ss) in INPUTS.items()}


def _has_message(value) -> bool:
    """Whether ``value`` holds any toolkit words: a Message, or a Joined with a Message among its parts."""
    if isinstance(value, Joined):
        return any(_has_message(p) for p in value.parts)
    return isinstance(value, Message)


def test_every_answer_and_evidence_is_a_message_whose_english_is_the_cell(tables):
    for name, t in tables.items():
        assert len(t) and TABLE.mismatches(t) == [], name
        for r in t.itertuples(index=False):
            assert isinstance(r.answer, Message) and r.answer.key.startswith("provenance."), (name, r.answer)
            assert isinstance(r.evidence, Joined), (name, r.evidence)
            for cell in (r.answer, r.evidence):
                assert cell.render("en") == str(cell) == render(cell, "en"), (name, cell)
                zh = render(cell, "zh-CN")
                if _has_message(cell):  # toolkit words: none of them stays English
                    assert zh != str(cell), (name, cell)
                else:  # only places (file entry or line, JSON path, event): verbatim
                    assert zh == str(cell), (name, cell)
            # the places in the evidence are verbatim in Chinese too
            for part in r.evidence.parts:
                if not isinstance(part, Message):
                    assert part in render(r.evidence, "zh-CN"), (name, part)


def test_the_chinese_catalogue_keeps_only_identifiers_in_latin_script():
    keys = [k for k in catalogue.MESSAGES if k.startswith("provenance.") and not k.startswith("provenance.question.")]
    assert len(keys) > 60
    for key in keys:
        zh = re.sub(r"`[^`]*`", "", re.sub(r"\{[^}]*\}", "", catalogue.MESSAGES[key]["zh-CN"]))
        words = set(re.findall(r"[A-Za-z][\w.\-/=\[\]]*", zh))
        assert words <= IDENTIFIERS, (key, words - IDENTIFIERS)
        assert re.search(r"[\u4e00-\u9fff\uff00-\uffef]", catalogue.MESSAGES[key]["zh-CN"]), key  # or full-width ，


def test_upstream_texts_stay_verbatim_in_the_chinese_answers(tables):
    t = tables["dsh-before-fix"]
    session = toolkit.load_capture(RUN / "session.jsonl.zstd")
    zh = {(r.field, r.question): render(r.answer, "zh-CN") for r in t.itertuples(index=False)}
    # DSH's refusals of the bash calls, each verbatim, in the "who finally validated" answer
    bash = set(session.calls.loc[session.calls["name"] == "bash", "call_id"])
    results = session.tool_results
    refusals = set(results.loc[results["is_error"].fillna(False).astype(bool) & results["call_id"].isin(bash), "text"])
    assert len(refusals) == 2
    validated = zh[("bash.justification", QUESTIONS[4])]
    assert validated.startswith("DSH 拒绝了这些调用：") and all(text in validated for text in refusals)
    # DSH's image refusal, verbatim
    image = zh[("gw-coder.input", QUESTIONS[4])]
    assert image == "DSH 在发送前拒绝了该图片：" + session.tool_results["text"].iloc[-1]
    # the config source quote pi-ai's resolution cites, verbatim
    settings = toolkit.load_settings(RUN / "settings.yaml")
    source = str(settings.models["strict_mode_source"].iloc[0])
    defined = zh[("bash.strict", QUESTIONS[0])]
    assert defined.startswith("pi-ai 省略了该键，因为 compat.supportsStrictMode 解析为 False") and source in defined
    # every value the model sent, as sent, and no English plural left
    filled = zh[("bash.justification", QUESTIONS[6])]
    sent = {a.get("justification") for a in session.calls.loc[session.calls["name"] == "bash", "arguments"]}
    assert all(f"justification={v!r}（1 次调用）" in filled for v in sent) and "call" not in filled


def test_hops_and_the_gateway_named_in_chinese(tables):
    t = tables["litellm-responses-to-chat"]
    changed = t[(t["field"] == "bash.strict") & (t["question"] == QUESTIONS[1])].iloc[0]
    assert str(changed["answer"]) == "LiteLLM 1.110.2, the hop between front.har and back.har (strict added)"
    assert changed["answer"].render("zh-CN") == "LiteLLM 1.110.2，即 front.har 与 back.har 之间的这一跳（新增 strict）"
    zh = changed["evidence"].render("zh-CN")
    assert "front.har entry 0 响应头 x-litellm-version: 1.110.2" in zh and "response header" not in zh
    unknown = tables["before-fix"]
    row = unknown[(unknown["field"] == "bash.strict") & (unknown["question"] == QUESTIONS[1])].iloc[0]
    assert row["evidence"].render("zh-CN") == "仅有 capture.har; 在代理或网关之后抓包（用 keep_bodies 加载）即可定论"


def test_the_table_pickles_with_its_messages(tables):
    t = tables["two-hop-strict"]
    back = pickle.loads(pickle.dumps(t))
    assert [render(a, "zh-CN") for a in back["answer"]] == [render(a, "zh-CN") for a in t["answer"]]
    assert [render(e, "zh-CN") for e in back["evidence"]] == [render(e, "zh-CN") for e in t["evidence"]]


ARGS = ["verify", *DEMO_BEFORE]


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_verify_in_chinese_shows_chinese_answers(capsys, monkeypatch, fmt):
    monkeypatch.chdir(REPO)
    for var in (i18n.ENV, "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    cli.main([*ARGS, "--format", fmt, "--lang", "zh-CN"])
    zh = capsys.readouterr().out
    cli.main([*ARGS, "--format", fmt, "--lang", "en"])
    en = capsys.readouterr().out
    i18n.set_language(None)
    # the table as the CLI builds it: the settings read for the DSH version given
    t = table(toolkit.load_settings(ARGS[2], dsh="0.1.0-rc.8"), captures=ARGS[4:5], sessions=ARGS[6:7])

    def shown(s: str) -> str:
        if fmt == "markdown":  # as report._md writes a cell
            return s.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
        return escape(s) if fmt == "html" else s

    for r in t.itertuples(index=False):
        assert shown(render(r.answer, "zh-CN")) in zh, r.answer
        assert shown(str(r.answer)) in en
        if fmt == "html":
            assert shown(render(r.evidence, "zh-CN")) in zh, r.evidence
    for english in ("unknown beyond the recorder", "DSH advertised it", "the DSH session: mode", "the model sent"):
        assert english in en and english not in zh
