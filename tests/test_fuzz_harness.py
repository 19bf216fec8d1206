"""The fuzz harness itself (tests/fuzz_readers.py, ``make fuzz``): its mutations are reproduced from the seed alone,
and it tells a crash and a hang from the outcomes the contract allows, naming the toolkit frame at fault."""

from __future__ import annotations

import gzip
import random
import time
from pathlib import Path

import fuzz_readers
import pandas as pd
from fuzz_readers import FAMILIES, ROOT, Runner, mutate

SEED_FILE = ROOT / "tests" / "fixtures" / "response-body" / "responses_function_call.json"


def test_a_mutation_is_reproduced_from_seed_file_and_index():
    data = SEED_FILE.read_bytes()
    for family in FAMILIES:
        first = mutate(data, family, random.Random("3:x:5"))
        assert first == mutate(data, family, random.Random("3:x:5"))
    assert mutate(data, "flip", random.Random("3:x:5")) != mutate(data, "flip", random.Random("3:x:6"))


def test_a_bomb_inflates_past_the_64_mib_cap():
    out, desc = mutate(SEED_FILE.read_bytes(), "bomb", random.Random("1:b:0")) or (b"", "")
    inflated = gzip.decompress(out) if out.startswith(b"\x1f\x8b") else fuzz_readers._unzstd(out)
    assert len(inflated) > 64 << 20
    assert len(out) < 1 << 20  # small on disk
    assert "MiB of white space" in desc


def _boom(*args, **kwargs):
    from toolkit.capture import redact

    return redact.redact_obj({"a": "s"}, text=lambda s: str(1 / 0))  # a ZeroDivisionError raised inside the toolkit


def _forever(*args, **kwargs):
    while True:
        time.sleep(3600)


def test_a_crash_and_a_hang_are_findings(monkeypatch, tmp_path: Path):
    import toolkit.capture.load as load

    path = tmp_path / "x.json"
    path.write_bytes(SEED_FILE.read_bytes())
    runner = Runner(seconds=600, memory_mib=1 << 20)
    try:
        assert runner.run(path).kind == "OK"
    finally:
        runner.close()
    monkeypatch.setattr(load, "load_capture", _boom)
    runner = Runner(seconds=600, memory_mib=1 << 20)  # forked after the patch: the worker reads with it
    try:
        crash = runner.run(path)
    finally:
        runner.close()
    assert crash.kind == "CRASH"
    assert crash.detail.startswith("ZeroDivisionError") and "toolkit/capture/redact.py" in crash.detail
    monkeypatch.setattr(load, "load_capture", _forever)
    runner = Runner(seconds=1, memory_mib=1 << 20)  # the read never ends, so any bound is passed
    try:
        assert runner.run(path).kind == "HANG"
    finally:
        runner.close()
    assert fuzz_readers.FINDINGS == ("CRASH", "HANG", "MEMORY", "SILENT", "UNRECONCILED", "CLI")


def test_an_unreconciled_summary_and_a_cli_traceback_are_findings(monkeypatch, tmp_path: Path):
    """Read in this process (``read_one``): a summary that leaves an entry unaccounted for, and a refused file the
    CLI does not report in one line with exit 2, are findings; the real CLI on a refused file is not."""
    import toolkit.capture.load as load
    from toolkit.errors import CaptureError
    from toolkit.present import cli

    path = tmp_path / "x.json"
    path.write_bytes(SEED_FILE.read_bytes())
    real_summary = load.Capture.summary

    def short(self):
        out = real_summary(self)
        out["reconciles"] = False
        return out

    monkeypatch.setattr(load.Capture, "summary", short)
    assert fuzz_readers.read_one(path).kind == "UNRECONCILED"
    monkeypatch.undo()

    real_load = load.load_capture

    def with_a_caught_bug(*args, **kwargs):
        cap = real_load(*args, **kwargs)
        row = {
            "source": "x.json",
            "location": "byte 0",
            "kind": "decoder",
            "message": "failed (KeyError)",
            "exchange_id": None,
        }
        cap.problems = pd.concat([cap.problems, pd.DataFrame([row]).astype(cap.problems.dtypes)], ignore_index=True)
        return cap

    monkeypatch.setattr(load, "load_capture", with_a_caught_bug)
    got = fuzz_readers.read_one(path)
    assert got.kind == "CRASH" and "decoder problem" in got.detail
    monkeypatch.undo()

    refused = tmp_path / "refused.json"
    refused.write_bytes(b"{")
    got = fuzz_readers.read_one(refused)
    assert got.kind == "INPUT_ERROR", got  # the real CLI: one line, exit 2

    def loud(argv):
        raise CaptureError(refused, "said twice\nacross two lines")

    monkeypatch.setattr(cli, "main", loud)
    assert fuzz_readers.read_one(refused).kind == "CLI"


def test_null_where_an_api_writes_null_for_nothing_is_not_a_silent_loss():
    """openai-python dumps ``"tool_calls": null`` for a message without calls: a mutation to that is an answer
    without calls; null where a list of outputs must be is still checked."""
    assert fuzz_readers._null_means_none("doc@0: /choices/0/message/tool_calls list -> null")
    assert fuzz_readers._null_means_none("line@0: /request/body/tools list -> null")
    assert not fuzz_readers._null_means_none("doc@0: /output list -> null")
    assert not fuzz_readers._null_means_none("doc@0: /choices/0/message/tool_calls list -> {}")
