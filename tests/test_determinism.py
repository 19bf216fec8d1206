"""The suite must pass with every core busy: nothing in it may depend on how fast the machine runs."""

from __future__ import annotations

import importlib

from conftest import REPO
from hypothesis import settings


def test_hypothesis_has_no_deadline():
    """A property example slowed past hypothesis's default 200 ms on a loaded machine fails as DeadlineExceeded
    (or Flaky when the re-run is fast); the profile in conftest turns the deadline off for every test."""
    assert settings.default.deadline is None


def test_every_property_test_runs_without_a_deadline():
    """Those that set other settings (``@settings(max_examples=...)``) included."""
    modules = [p.stem for p in sorted((REPO / "tests").glob("test_*.py")) if "from hypothesis" in p.read_text()]
    checked = []
    for name in modules:
        for attr, fn in vars(importlib.import_module(name)).items():
            used = getattr(fn, "_hypothesis_internal_use_settings", None)
            if used is not None:
                assert used.deadline is None, f"{name}.{attr}"
                checked.append(f"{name}.{attr}")
    assert len(checked) >= 5, checked
