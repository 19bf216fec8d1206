"""The DSH conformance suite's switch: left out with one line when unset, a failure when set to nothing."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import DSH_SESSIONS_ENV, REPO

TEST = "tests/test_dsh_sessions.py::test_every_fixture_reconciles"


def _pytest(env_value: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != DSH_SESSIONS_ENV}
    if env_value is not None:
        env[DSH_SESSIONS_ENV] = env_value
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST]
    # the timeout bounds a hang only, far above a run on a machine with every core busy
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)


def test_unset_leaves_the_suite_out_and_says_how_to_run_it():
    run = _pytest(None)
    assert run.returncode == 5, run.stdout  # nothing ran: pytest's "no tests" code, never a silent pass
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("DSH conformance suite did not run")]
    assert len(lines) == 1 and f"set {DSH_SESSIONS_ENV}" in lines[0], run.stdout


def test_set_to_a_missing_folder_fails(tmp_path):
    run = _pytest(str(tmp_path / "nowhere"))
    assert run.returncode == 1, run.stdout
    assert "no folder of DSH session logs there" in run.stdout
