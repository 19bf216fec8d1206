"""Shared test paths, and the DSH conformance suite's switch.

The conformance tests compare the readers with DSH's own session logs, which are not part of this
repository. Point ``AGENT_CONTRACT_DSH_SESSIONS`` at a folder of them to run the suite (``.ci/run``
points it at ``../shared/reference/dsh-sessions``); once set, a missing folder fails the run. Unset,
the suite is left out and the run says so in one line.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]
# No test may depend on how fast the machine runs (the suite must pass with every core busy): hypothesis's
# per-example deadline (200 ms by default) is off everywhere, as most property tests already set it.
settings.register_profile("no-deadline", deadline=None)
settings.load_profile("no-deadline")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DSH_SESSIONS_ENV = "AGENT_CONTRACT_DSH_SESSIONS"
#: ``verify``'s inputs for the recorded run before the fix (relative to the repository), as ``make demo`` passes
#: them; ``DEMO_BEFORE_HTTP`` is the same without DSH's session log
DEMO_BEFORE = [
    "--settings",
    "data/dsh-before-fix/settings.yaml",
    "--capture",
    "data/dsh-before-fix/capture.har",
    "--session",
    "data/dsh-before-fix/session.jsonl.zstd",
    "--dsh",
    "0.1.0-rc.8",
]
DEMO_BEFORE_HTTP = [*DEMO_BEFORE[:4], *DEMO_BEFORE[6:]]
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
    ran = (r for reports in terminalreporter.stats.values() for r in reports if hasattr(r, "nodeid"))
    if any(r.nodeid.startswith("tests/test_triage_coverage.py") for r in ran):
        # the triage corpus's coverage per family, as the README shows it (toolkit.analysis.triage_coverage)
        from toolkit.analysis import triage_coverage

        terminalreporter.write_sep("-", "triage coverage (all texts (held-out texts))")
        terminalreporter.write_line(triage_coverage.table(triage_coverage.coverage(triage_coverage.read_corpus())))


@pytest.fixture(scope="session")
def dsh_sessions() -> Path:
    path = dsh_sessions_dir()
    if path is None or not path.is_dir():  # asked for and missing is a broken setup, not a reason to skip
        pytest.fail(f"{DSH_SESSIONS_ENV}={os.environ.get(DSH_SESSIONS_ENV)!r}: no folder of DSH session logs there")
    return path


def _write_conversation(
    path: Path, turns: int, *, retry_every: int = 0, repeat: tuple[int, int] = (5, 10), authorization: str | None = None
) -> None:
    """A HAR of one agent loop: each request resends the previous one's input plus a user turn, a call
    and its output (texts repeated ``repeat`` times); with ``retry_every``, every so many requests are
    sent twice (a retry resends it all)."""
    history: list = [{"role": "system", "content": "You are a coding agent. " * 20}]
    headers = [] if authorization is None else [{"name": "authorization", "value": authorization}]
    entries = []
    for i in range(turns):
        history = history + [
            {"role": "user", "content": [{"type": "input_text", "text": f"turn {i}: fix test_{i}. " * repeat[0]}]},
            {"type": "function_call", "call_id": f"call_{i}", "name": "bash", "arguments": '{"command": "ls"}'},
            {"type": "function_call_output", "call_id": f"call_{i}", "output": f"log of turn {i}\n" * repeat[1]},
        ]
        body = json.dumps({"model": "m", "input": history, "stream": False})
        for _ in range(2 if retry_every and i % retry_every == 0 else 1):
            n = len(entries)
            entries.append(
                {
                    "startedDateTime": f"2026-11-30T10:{n // 60:02d}:{n % 60:02d}.000Z",
                    "time": 10.0,
                    "request": {
                        "method": "POST",
                        "url": "http://127.0.0.1:8080/v1/responses",
                        "headers": headers,
                        "postData": {"mimeType": "application/json", "text": body},
                    },
                    "response": {
                        "status": 200,
                        "headers": [],
                        "content": {"mimeType": "application/json", "text": "{}"},
                    },
                }
            )
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}), encoding="utf-8")


@pytest.fixture(scope="session")
def write_conversation():
    """``write_conversation(path, turns, retry_every=0, repeat=(5, 10), authorization=None)``: a HAR of one agent loop."""
    return _write_conversation


def tnet(value) -> bytes:
    """A typed-netstring writer for test files (the form of .mitm flows): one definition for every test
    that builds a flow, damaged or not; a str is written with ``surrogateescape`` so a lone surrogate
    survives into the bytes under test."""
    if value is None:
        return b"0:~"
    if isinstance(value, bool):
        p = b"true" if value else b"false"
        return b"%d:%s!" % (len(p), p)
    if isinstance(value, int):
        p = str(value).encode()
        return b"%d:%s#" % (len(p), p)
    if isinstance(value, float):
        p = repr(value).encode()
        return b"%d:%s^" % (len(p), p)
    if isinstance(value, bytes):
        return b"%d:%s," % (len(value), value)
    if isinstance(value, str):
        p = value.encode("utf-8", "surrogateescape")
        return b"%d:%s;" % (len(p), p)
    if isinstance(value, list):
        p = b"".join(tnet(v) for v in value)
        return b"%d:%s]" % (len(p), p)
    p = b"".join(tnet(k) + tnet(v) for k, v in value.items())
    return b"%d:%s}" % (len(p), p)
