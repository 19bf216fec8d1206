"""The fuzz target's short run inside ``make test`` (issue 27 §4): a fixed seed and a fixed number of inputs per
reader (one of each mutation family), so it is the same run every time and bounded by count, not by the clock.

Every outcome must be frames (problem rows allowed) or an ``InputError``; a crash, a hang, a memory peak past the
bound or a silent loss fails the test with the seed, the mutation and the exception. ``make fuzz`` runs the long
campaign (tests/fuzz_readers.py)."""

from __future__ import annotations

from fuzz_readers import FAMILIES, campaign

from toolkit.sources.registry import NAMES

SEED = 27
INPUTS_PER_READER = len(FAMILIES)


def test_brief_fuzz_run_finds_nothing(tmp_path):
    # the per-input bound is far above any real read (a hang is endless), so a busy machine cannot fail it
    rep = campaign(seed=SEED, inputs=INPUTS_PER_READER, per_input_seconds=300, memory_mib=1024, workdir=tmp_path)
    assert set(rep.per_reader) == set(NAMES)  # every reader was fuzzed
    assert all(sum(c.values()) == INPUTS_PER_READER for c in rep.per_reader.values())
    assert rep.inputs() > 0
    assert [f.line(SEED) for f in rep.findings] == []
