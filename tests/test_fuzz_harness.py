"""The fuzz harness itself (tests/fuzz_readers.py, ``make fuzz``): its mutations are reproduced from the seed alone,
and it tells a crash and a hang from the outcomes the contract allows, naming the toolkit frame at fault."""

from __future__ import annotations

import gzip
import random
import time
from pathlib import Path

import fuzz_readers
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
    assert fuzz_readers.FINDINGS == ("CRASH", "HANG", "MEMORY", "SILENT")
