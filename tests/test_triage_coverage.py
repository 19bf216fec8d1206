"""The triage corpus (tests/corpus/triage/*.yaml): every entry is well-formed and cited, triage gives each
the rule and layer the corpus expects, coverage is counted per family with held-out texts apart, and the
README's coverage table is the one the corpus gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkit.analysis import triage
from toolkit.analysis import triage_coverage as tc

ENTRIES = tc.read_corpus()
GOOD = {
    "text": "Error: invalid justification: expected a non-empty sentence",
    "stack": "dsh",
    "family": "dsh",
    "source": "data/litellm-before-fix/back.mitm",
    "expect": {"rule": "dsh-invalid-justification", "layer": "runtime-policy"},
}


def _write(tmp_path: Path, entries: list) -> Path:
    import yaml

    (tmp_path / "x.yaml").write_text(yaml.safe_dump(entries, allow_unicode=True), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.where for e in ENTRIES])
def test_every_corpus_text_gets_the_rule_and_layer_it_expects(entry):
    """An entry expected ``unknown`` may get only a generic fallback, never a rule that names a cause: then
    the entry must be updated to name that rule (the corpus records what a correct triage gives)."""
    found = entry.classify()
    assert tc.agrees(entry, found), (
        f"{entry.where} ({entry.source}): expected {entry.rule} ({entry.layer}), got {found.rule_id} "
        f"({found.layer}); fix the rule, or if the rule is right and the entry said unknown, name it in 'expect'"
    )


def test_the_corpus_spans_the_field():
    assert len({e.stack for e in ENTRIES}) >= 15
    assert all(e.source.strip() for e in ENTRIES)
    assert any(e.held_out for e in ENTRIES)
    assert {e.where.split(" entry ")[0] for e in ENTRIES} >= {"dsh-pi-ai.yaml"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"source": None}, r"x\.yaml entry 1: missing key 'source'"),
        ({"source": " "}, r"x\.yaml entry 1: 'source' must be a non-empty string"),
        (
            {"expect": {"rule": "no-such-rule", "layer": "runtime-policy"}},
            r"expected rule 'no-such-rule' does not exist",
        ),
        (
            {"expect": {"rule": "dsh-invalid-justification", "layer": "config-capability"}},
            r"expected layer 'config-capability' is not the layer of rule",
        ),
        ({"expect": {"rule": "unknown", "layer": "runtime-policy"}}, r"'expect\.rule' unknown goes with"),
        ({"expect": {"rule": "unknown"}}, r"'expect' must be a mapping of exactly 'rule' and 'layer'"),
        ({"date": "2026-2-1"}, r"'date' must be YYYY-MM-DD"),
        ({"held_out": "yes"}, r"'held_out' must be true or false"),
        ({"seen_in": "x"}, r"unknown key 'seen_in'"),
    ],
)
def test_a_bad_entry_is_refused_with_its_place(tmp_path, change, message):
    entry = {**GOOD, **change}
    entry = {k: v for k, v in entry.items() if v is not None}
    with pytest.raises(tc.CorpusError, match=message):
        tc.read_corpus(_write(tmp_path, [entry]))


def test_outcomes_are_counted_per_family_with_held_out_texts_apart(tmp_path):
    entries = [
        GOOD,  # the expected rule
        {**GOOD, "held_out": True},
        # the expected rule is another one in the same layer: right layer only
        {**GOOD, "expect": {"rule": "dsh-invalid-command", "layer": "runtime-policy"}, "held_out": True},
        # a rule in another layer
        {**GOOD, "expect": {"rule": "dsh-read-image-undeclared", "layer": "config-capability"}},
        {
            **GOOD,
            "text": "something odd happened",
            "family": "other",
            "expect": {"rule": "unknown", "layer": "unknown"},
        },
        {
            **GOOD,
            "text": "gateway API error (429): {}",
            "family": "other",
            "held_out": True,
            "expect": {"rule": "unknown", "layer": "unknown"},
        },
    ]
    cov = tc.coverage(tc.read_corpus(_write(tmp_path, entries)))
    dsh, other, total = cov.all["dsh"], cov.all["other"], cov.all[tc.TOTAL]
    assert (dsh.texts, dsh.outcomes) == (4, {"specific": 2, "layer": 1, "generic": 0, "unknown": 0, "wrong": 1})
    assert cov.held_out["dsh"].outcomes == {"specific": 1, "layer": 1, "generic": 0, "unknown": 0, "wrong": 0}
    assert (other.outcomes["unknown"], other.outcomes["generic"]) == (1, 1)
    assert cov.held_out["other"].texts == 1 and total.texts == 6 and cov.held_out[tc.TOTAL].texts == 3
    table = tc.table(cov)
    assert "| dsh | 4 (2) | 2 (1) | 1 (1) | 0 (0) | 0 (0) | 1 (0) | 0% |" in table
    assert "| **all families** | 6 (3) |" in table


def test_an_entry_expected_unknown_that_a_rule_now_reads_fails_the_corpus_test(tmp_path):
    [entry] = tc.read_corpus(_write(tmp_path, [{**GOOD, "expect": {"rule": "unknown", "layer": "unknown"}}]))
    assert not tc.agrees(entry, entry.classify())
    assert tc.outcome(entry, entry.classify()) == "layer"  # counted, but not as a right answer it was not given


def test_the_readme_table_is_generated_from_the_corpus():
    readme = tc.README.read_text(encoding="utf-8")
    block = tc.readme_block(tc.coverage(ENTRIES))
    assert tc.with_block(readme, block) == readme, (
        "run `make triage-table` (python -m toolkit.analysis.triage_coverage --readme)"
    )
    assert tc.main(["--check"]) == 0


def test_the_readme_block_needs_its_markers():
    with pytest.raises(tc.CorpusError, match="no <!-- triage-coverage:start -->"):
        tc.with_block("# no markers", "x")


def test_the_corpus_names_only_rules_that_exist():
    ids = {r.id for r in triage.load_rules()}
    named = {i for e in ENTRIES if e.rule != "unknown" for i in e.rule.split("|")}
    assert named <= ids
