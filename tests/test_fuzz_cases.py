"""The minimised cases of the issue-27 fuzz campaign (``../shared/corpora/fuzz/cases``, when ``../shared`` is beside
the checkout): each read through the fuzz harness's bounded worker must end within the contract — frames or one
clean ``InputError`` — and a case that once lost a count silently must now lose none, or say so in a problem row.

The cases are read where they are (never copied in); ``tests/test_no_silent_loss.py``, ``test_outside_types.py``,
``test_deep_nesting.py``, ``test_yaml_bombs.py`` and ``test_inflate_caps.py`` hold inputs of the same shapes made
from the project's own files, so the suite checks every shape without ``../shared`` too."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import REPO
from fuzz_readers import Runner

CASES = REPO.parent / "shared" / "corpora" / "fuzz" / "cases"
pytestmark = pytest.mark.skipif(
    not (CASES / "manifest.json").is_file(),
    reason="../shared/corpora/fuzz/cases is not beside this checkout (the same shapes are tested from own files)",
)


def test_every_minimised_case_is_within_the_contract(tmp_path):
    cases = json.loads((CASES / "manifest.json").read_text(encoding="utf-8"))["cases"]
    runner = Runner(seconds=300, memory_mib=1024)  # bounds far above any read here: a hang or a blow-up is endless
    broken = []
    try:
        for case in cases:
            path = tmp_path / case["file"]
            shutil.copyfile(CASES / case["file"], path)  # a private copy: a reader never writes beside a case
            got = runner.run(path)
            if got.kind not in ("OK", "INPUT_ERROR"):
                broken.append(f"{case['file']} (was {case['outcome']}): {got.kind} {got.detail}")
                continue
            seed = REPO / case["seed"].removeprefix("main/")
            if case["outcome"] == "SILENT" and got.kind == "OK" and got.problems == 0 and seed.is_file():
                base = runner.run(seed)
                lost = {k: (n, got.counts.get(k, 0)) for k, n in base.counts.items() if got.counts.get(k, 0) < n}
                if lost:
                    broken.append(f"{case['file']} (was SILENT): still loses {lost} with no problem row")
    finally:
        runner.close()
    assert len(cases) >= 40
    assert broken == []
