"""Shared test paths, and the DSH conformance suite's switch.

The conformance tests compare the readers with DSH's own session logs, which are not part of this
repository. Point ``AGENT_CONTRACT_DSH_SESSIONS`` at a folder of them to run the suite (``.ci/run``
points it at ``../shared/reference/dsh-sessions``); once set, a missing folder fails the run. Unset,
the suite is left out and the run says so in one line.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DSH_SESSIONS_ENV = "AGENT_CONTRACT_DSH_SESSIONS"
_left_out: list[str] = []


def dsh_sessions_dir() -> Path | None:
    value = os.environ.get(DSH_SESSIONS_ENV, "").strip()
    return Path(value).resolve() if value else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if dsh_sessions_dir() is not None:
        return
    keep, drop = [], []
    for item in items:
        (drop if "dsh_sessions" in getattr(item, "fixturenames", ()) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
        _left_out.extend(item.nodeid for item in drop)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if _left_out:
        terminalreporter.write_line(
            f"DSH conformance suite did not run ({len(_left_out)} tests): set {DSH_SESSIONS_ENV} to a folder of "
            "DSH session logs to run it, e.g. "
            f"{DSH_SESSIONS_ENV}=../shared/reference/dsh-sessions make test"
        )


@pytest.fixture(scope="session")
def dsh_sessions() -> Path:
    path = dsh_sessions_dir()
    if path is None or not path.is_dir():  # asked for and missing is a broken setup, not a reason to skip
        pytest.fail(f"{DSH_SESSIONS_ENV}={os.environ.get(DSH_SESSIONS_ENV)!r}: no folder of DSH session logs there")
    return path
