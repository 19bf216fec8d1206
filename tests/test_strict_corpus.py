"""OpenAI's real answers to real schemas (``tests/corpus/openai_strict/cases.yaml``) against ``openai_strict.check``.

Each case is a schema a public report (issue, pull request, forum thread, an SDK test recorded against the live
API) says was sent, or a reconstruction the case explains (``reconstructed``, ``how``), with OpenAI's answer:
accepted, or refused with its exact text. The verdict, the first violation's rule and its text (in the wording
of the case's date) must agree with every case.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from toolkit.knowledge.openai_strict import RULES, SURFACES, check

CORPUS = Path(__file__).parent / "corpus" / "openai_strict" / "cases.yaml"
CASES: list[dict[str, Any]] = yaml.safe_load(CORPUS.read_text(encoding="utf-8"))
FIELDS = {"id", "source", "api", "surface", "name", "strict", "schema", "answer"}
OPTIONAL = {"date", "reconstructed", "how", "note"}


def _answer(case: dict[str, Any]) -> tuple[bool, str | None, str | None]:
    """What the model says of one case: accepted, the first violation's rule, its text. ``strict`` null (the
    report does not say what was sent) is read as strict: the answer must then hold under OpenAI's strict rules."""
    strict = case["strict"] is not False
    found = check(case["schema"], name=case["name"], surface=case["surface"], strict=strict, date=case.get("date"))
    return (not found, found[0].rule if found else None, found[0].message if found else None)


def _text_agrees(answer: dict[str, Any], message: str) -> bool:
    """A full reported text must equal the model's; a fragment (the report quotes part of it) must be in it."""
    return answer["text"] in message if answer.get("fragment") else message == answer["text"]


def agreement(cases: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Cases agreeing / cases, by the rule OpenAI's answer is labelled with ("accepted" for acceptances)."""
    total: Counter[str] = Counter()
    agree: Counter[str] = Counter()
    for case in cases:
        accepted, rule, message = _answer(case)
        label = "accepted" if case["answer"]["accepted"] else case["answer"]["rule"]
        total[label] += 1
        if case["answer"]["accepted"]:
            agree[label] += accepted
        else:
            agree[label] += rule == label and message is not None and _text_agrees(case["answer"], message)
    return {k: (agree[k], total[k]) for k in total}


def test_every_case_is_complete_and_cited():
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids))
    for case in CASES:
        assert FIELDS <= set(case) <= FIELDS | OPTIONAL, case["id"]
        assert case["source"].startswith("https://"), case["id"]
        assert case["api"] in ("responses", "chat") and case["surface"] in SURFACES, case["id"]
        assert case["strict"] in (True, False, None), case["id"]
        if case.get("reconstructed"):
            assert case.get("how"), f"{case['id']}: a reconstruction says how it was made"
        answer = case["answer"]
        if not answer["accepted"]:
            assert answer["rule"] in RULES and answer["text"], case["id"]


def test_the_corpus_has_refusals_and_acceptances_on_both_surfaces_and_apis():
    kinds = {(c["answer"]["accepted"], c["surface"]) for c in CASES}
    assert kinds == {(a, s) for a in (True, False) for s in SURFACES}
    assert {c["api"] for c in CASES} == {"responses", "chat"}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_model_gives_openais_answer(case):
    accepted, rule, message = _answer(case)
    answer = case["answer"]
    assert accepted == answer["accepted"], message
    if not answer["accepted"]:
        assert rule == answer["rule"]
        assert message is not None and _text_agrees(answer, message), message


def test_agreement_is_total_for_every_rule():
    table = agreement(CASES)
    assert all(a == n for a, n in table.values()), table
