"""Shared test paths. ``../shared`` sits beside the checkout on developer machines and in CI."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DSH_SESSIONS = SHARED / "reference" / "dsh-sessions"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def dsh_sessions() -> Path:
    if not DSH_SESSIONS.is_dir():  # a missing ../shared is a broken checkout, not a reason to skip
        pytest.fail(f"DSH session fixtures not found at {DSH_SESSIONS}")
    return DSH_SESSIONS
