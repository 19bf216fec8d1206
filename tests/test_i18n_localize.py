"""``i18n.localize``: a frame as a reader sees it in a language, the way the postmortem and notebook 07
show their tables. The toolkit's sentences are rendered; upstream texts and data are left alone."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit.knowledge.messages import Joined, Message, text
from toolkit.present import i18n

DSH = "invalid justification: expected a non-empty sentence"


@pytest.fixture
def frame():
    return pd.DataFrame(
        {
            "severity": pd.Categorical(["error", None], categories=["error", "warning"]),
            "answer": pd.Series([Message("verify.where.line", line=3), DSH], dtype=object),
            "evidence": pd.Series(
                [Joined("; ", ["capture.har entry 1", Message("verify.where.line", line=9)]), None], dtype=object
            ),
            "calls": [1, 2],
        }
    )


def test_english_is_the_frame_as_it_is(frame):
    out = i18n.localize(frame, lang="en", words={"severity": "severity"})
    assert out["answer"].tolist() == ["line 3", DSH] and out["severity"].iloc[0] == "error"
    assert list(out.columns) == list(frame.columns)


def test_chinese_renders_messages_and_words_and_keeps_upstream_texts(frame):
    out = i18n.localize(frame, ["severity", "answer", "evidence"], words={"severity": "severity"}, lang="zh-CN")
    assert out["severity"].iloc[0] == "错误" and pd.isna(out["severity"].iloc[1])  # a missing value stays missing
    assert out["answer"].tolist() == ["第 3 行", DSH]  # DSH's text verbatim
    assert out["evidence"].iloc[0] == "capture.har entry 1; 第 9 行" and pd.isna(out["evidence"].iloc[1])
    assert isinstance(frame["answer"].iloc[0], Message)  # the frame itself is not changed


def test_labels_translate_the_column_names_and_the_language_defaults_to_the_chosen_one(frame):
    i18n.set_language("zh-CN")
    try:
        out = i18n.localize(frame, ["calls"], labels="postmortem.col")
    finally:
        i18n.set_language(None)
    assert list(out.columns) == [text("postmortem.col.calls", "zh-CN")]
    with pytest.raises(ValueError, match="fr"):
        i18n.localize(frame, lang="fr")


def test_a_missing_word_stays_missing_whatever_kind_of_missing():
    frame = pd.DataFrame({"severity": pd.array(["error", pd.NA], dtype="string"), "x": [None, float("nan")]})
    out = i18n.localize(frame, words={"severity": "severity", "x": "severity"}, lang="zh-CN")
    assert out["severity"].iloc[0] == "错误" and pd.isna(out["severity"].iloc[1])
    assert out["x"].isna().all()
