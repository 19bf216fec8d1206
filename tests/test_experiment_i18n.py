"""The experiment in Chinese: ``compare``'s sentence and its conclusions are ``Message``s, so the English
stays byte-identical (checked against the section rendered before they were translated, and against the
sentence data/experiment-before-fix/experiment.json recorded) while a zh-CN report writes them in
Chinese with the same numbers; the variant names and DSH's refusal stay verbatim."""

from __future__ import annotations

import json
import pickle
import re
from collections import Counter

import pytest
from conftest import DEMO_BEFORE_HTTP, FIXTURES, REPO

from toolkit.analysis.hops import KINDS
from toolkit.experiment.frames import SUMMARY
from toolkit.experiment.judge import CONCLUSIONS, NO_CALLS, SENTENCE, compare
from toolkit.experiment.run import load
from toolkit.knowledge.messages import MESSAGES, Message, render, text
from toolkit.present import cli, report

FOLDER = REPO / "data" / "experiment-before-fix"
GOLDEN = FIXTURES / "experiment"
PNG = re.compile(r'src="data:image/png;base64,[^"]*"')
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: the Latin words a Chinese comparison keeps: the test's name, the p of p-value, the N of the sample size
KEPT_LATIN = {"Fisher", "p", "N"}


@pytest.fixture(scope="module")
def bundled():
    return load(FOLDER)


def _summary(*rows: tuple[str, int, int]):
    return SUMMARY.from_records(
        {c: None for c in SUMMARY.columns} | {"variant": v, "refused": k, "calls": n, "judged": n} for v, k, n in rows
    )


def _latin_words(zh: str, names) -> set[str]:
    for name in names:
        zh = zh.replace(name, "")
    return set(re.findall(r"[A-Za-z]+", zh))


# ---- English: byte-identical ------------------------------------------------------------------------


def test_the_english_section_is_what_it_was_before_the_translation(bundled):
    """The golden files are the section as rendered before the sentence became a Message."""
    md = report.experiment_markdown(bundled, lang="en")
    assert md == (GOLDEN / "before-fix.en.md").read_text(encoding="utf-8")
    html = PNG.sub('src="data:image/png;base64,…"', report.experiment_html(bundled, lang="en"))
    assert html + "\n" == (GOLDEN / "before-fix.en.html").read_text(encoding="utf-8")
    recorded = json.loads((FOLDER / "experiment.json").read_text(encoding="utf-8"))["comparison"]["sentence"]
    assert bundled.comparison["sentence"] == recorded
    assert report.experiment_sentence(bundled, lang="en") == recorded


def test_the_public_templates_still_read_as_before():
    # the templates judge.py had before they moved into the catalogue; {p} is now "p = 0.008" or "p < 0.001"
    # (never "p = < 0.001"), {note} names calls left out as not judged, and a side without judged calls says why
    assert SENTENCE == (
        "{a}: {ka} of {na} calls refused ({la}–{ha}%); {b}: {kb} of {nb} ({lb}–{hb}%). "
        "Difference {d} points (95% interval {lo} to {hi}), Fisher exact {p}: {conclusion}{note}"
    )
    assert NO_CALLS == (
        "{a}: {ka} of {na} calls refused; {b}: {kb} of {nb}: no judged calls to compare on {which}; {because}"
    )
    assert dict(CONCLUSIONS) == {
        "explained": "the change explains the refusals.",
        "unclear": "N is too small to tell these apart; send more samples.",
    }
    assert all(isinstance(c, Message) for c in CONCLUSIONS.values())


# ---- the sentence as a Message ----------------------------------------------------------------------

CASES = {
    "explained": (("x", 20, 20), ("y", 0, 20)),
    "explained, negative": (("x", 0, 20), ("y", 20, 20)),
    "unclear": (("x", 3, 3), ("y", 0, 3)),
    "the same": (("x", 2, 5), ("y", 2, 5)),
    "no calls on a": (("x", 0, 0), ("y", 1, 3)),
    "no calls on b": (("x", 2, 3), ("y", 0, 0)),
    "no calls at all": (("x", 0, 0), ("y", 0, 0)),
}


@pytest.mark.parametrize("case", CASES)
def test_the_chinese_sentence_has_the_same_numbers_and_names(case):
    c = compare(_summary(*CASES[case]), "x", "y")
    en, zh = c["sentence"], render(c["sentence"], "zh-CN")
    assert isinstance(en, Message) and en.render("en") == en
    assert Counter(NUMBER.findall(zh)) == Counter(NUMBER.findall(en))  # counts, bounds, difference, 95, p
    assert "x" in zh and "y" in zh and zh != en
    assert _latin_words(zh, ("x", "y")) <= KEPT_LATIN
    if c["p"] is not None:  # the p-value as the English writes it ("p < 0.001" below a thousandth)
        p = re.search(r"p < 0\.001|p = \d\.\d{3}", en)
        assert p is not None and p.group(0) in zh and "= <" not in en


def test_no_calls_names_the_side_without_calls_in_both_languages():
    both = compare(_summary(("x", 0, 0), ("y", 0, 0)), "x", "y")["sentence"]
    assert both == "x: 0 of 0 calls refused; y: 0 of 0: no judged calls to compare on x and y; send more samples."
    assert "x 和 y 没有已判定的调用可比较" in both.render("zh-CN")
    one = compare(_summary(("x", 2, 3), ("y", 0, 0)), "x", "y")["sentence"]
    assert one.endswith("no judged calls to compare on y; send more samples.")
    assert "：y 没有已判定的调用可比较" in one.render("zh-CN")


def test_the_bundled_sentence_in_chinese(bundled):
    en = bundled.comparison["sentence"]
    zh = render(en, "zh-CN")
    c = bundled.comparison
    assert zh.startswith(f"{c['a']}：{c['judged_a']} 次调用中 {c['refused_a']} 次被拒")
    assert Counter(NUMBER.findall(zh)) == Counter(NUMBER.findall(en))
    assert zh.endswith(text("experiment.compare.explained", "zh-CN"))
    assert _latin_words(zh, (c["a"], c["b"])) <= KEPT_LATIN


def test_the_sentence_survives_pickling_and_the_manifest(bundled, tmp_path):
    """A deep copy or a notebook's pickle keeps the Message; experiment.json holds the English text."""
    again = pickle.loads(pickle.dumps(bundled.comparison))
    assert isinstance(again["sentence"], Message) and again["sentence"].render("zh-CN") == render(
        bundled.comparison["sentence"], "zh-CN"
    )
    dumped = json.loads(json.dumps(bundled.comparison, ensure_ascii=False))
    assert dumped["sentence"] == str(bundled.comparison["sentence"]) and type(dumped["sentence"]) is str


# ---- the change kinds -------------------------------------------------------------------------------


def test_every_change_kind_has_a_chinese_name_and_keeps_its_english_value():
    for kind in KINDS:
        assert text(f"hops.kind.{kind}", "en") == kind  # the English table (and changes.csv) unchanged
        zh = text(f"hops.kind.{kind}", "zh-CN")
        assert zh != kind and re.search(r"[\u4e00-\u9fff]", zh)
    extra = {k for k in MESSAGES if k.startswith("hops.kind.")} - {f"hops.kind.{k}" for k in KINDS}
    assert extra == set()


# ---- the zh-CN report -------------------------------------------------------------------------------


def _english_fragments() -> set[str]:
    """The fixed English words of every experiment message that reads differently in Chinese (the parts
    between placeholders, long enough not to occur by chance in an upstream text)."""
    out = set()
    for key, entry in MESSAGES.items():
        if key.startswith("experiment.") and entry["en"] != entry["zh-CN"]:
            for part in re.split(r"\{[^}]*\}", entry["en"]):
                part = part.strip(" .;:()…")
                if len(part) >= 8 and re.search(r"[a-z]{3}", part):
                    out.add(part)
    return out


def test_the_chinese_section_has_no_english_toolkit_sentence(bundled, capsys, monkeypatch):
    en_sentence = bundled.comparison["sentence"]
    zh_sentence = render(en_sentence, "zh-CN")
    md = report.experiment_markdown(bundled, lang="zh-CN")
    html = report.experiment_html(bundled, lang="zh-CN")
    assert f"**{zh_sentence}**" in md and f"<b>{zh_sentence}</b>" in html
    assert report.experiment_sentence(bundled, lang="zh-CN") == zh_sentence
    upstream = "invalid justification: expected a non-empty sentence"  # DSH's refusal, recorded in the run
    assert f"`{upstream}`" in md and upstream in html
    # the values the variants changed are upstream (DSH's tool schemas): out of the check, kept verbatim
    before = {str(c.before) for v in bundled.variants for c in v.changes.itertuples() if isinstance(c.before, str)}
    for value in before:
        assert value.replace("|", "\\|") in md
    prose = md
    for value in sorted(before, key=len, reverse=True):
        prose = prose.replace(value.replace("|", "\\|"), "")
    left = sorted(f for f in _english_fragments() if f in prose)
    assert left == []
    assert en_sentence not in md and en_sentence not in html
    monkeypatch.chdir(REPO)
    code = cli.main(
        [
            "verify",
            *DEMO_BEFORE_HTTP,
            "--experiment",
            "data/experiment-before-fix",
            "--lang",
            "zh-CN",
        ]
    )
    out = capsys.readouterr().out
    assert code == 1 and out.endswith(text("report.text.experiment", "zh-CN", sentence=zh_sentence))
