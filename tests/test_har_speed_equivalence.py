"""The fast HAR path (issue 17) reads exactly what the walk it replaced read.

Two kinds of check. Invariants that need no older code: every bundled HAR read with and without
``keep_bodies`` gives the same frames except ``bodies``, exchanges and problems account for every
entry, and damaged files (cut at every few bytes, bytes overwritten) keep reporting the same way
whichever reading path a byte takes. And, when ``HAR_GOLDEN`` names a pickle written by
``python tests/test_har_speed_equivalence.py OUT.pickle`` with the previous implementation, every
frame and every error message of every case below is compared with it.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import pickle
import sys
import zlib
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit import CaptureError

REPO = Path(__file__).resolve().parents[1]
DATA_HARS = sorted((REPO / "data").rglob("*.har"))
POLLY = REPO / "tests" / "fixtures" / "har" / "polly_gzip.har"


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_HAR_TESTS = _module("_har_tests_for_speed", REPO / "tests" / "test_source_har.py")
_BENCH = _module("_ingest_bench_for_speed", REPO / "tests" / "benchmarks" / "ingest.py")
entry, har = _HAR_TESTS.entry, _HAR_TESTS.har


def _small_doc() -> bytes:
    e2 = entry()
    e2["request"]["headers"] = {"Authorization": "Bearer abcdefghijklmnop1234"}
    return json.dumps(har([entry(), e2]), indent=1).encode()


def damaged_cases() -> dict[str, bytes]:
    """Named raw files: every way a HAR can be broken that the readers distinguish."""
    cases: dict[str, bytes] = {}
    doc3 = json.dumps(har([entry(), entry(), entry()]))
    cases["truncated-third"] = doc3[: doc3.rindex('{"startedDateTime"') + 200].encode()
    cases["bad-entries"] = json.dumps(har([entry(), {"request": "nope"}, 42, entry()]), indent=1).encode()
    cases["nan-entry"] = json.dumps(har([entry(), entry(time=float("nan")), entry()])).encode()
    cases["infinity-entries"] = json.dumps(
        har([entry(time=float("inf")), entry(), entry(time=float("-inf"), note="NaN Infinity")])
    ).encode()
    raw = json.dumps(har([entry(), entry(), entry()])).encode()
    second = raw.index(b"Run the tool once.", raw.index(b"Run the tool once.") + 1)
    cases["bad-byte-in-body"] = raw[:second] + b"\xff" + raw[second + 1 :]
    cases["bad-bytes-two-entries"] = raw[:50] + b"\xfe" + raw[50:second] + b"\xc3(" + raw[second + 2 :]
    one = json.dumps(har([entry()])).encode()
    cases["bad-byte-before-array"] = one[:100] + b"\xff" + one[100:]
    cases["open-entry"] = b'{"log": {"version": "1.2", "entries": [{"startedDateTime"'
    cases["not-log"] = b'{"not_log": {}}'
    cases["entries-object"] = b'{"log": {"entries": {}}}'
    cases["empty"] = b""
    cases["empty-entries"] = b'{"log": {"entries": []}}'
    cases["ws-entries"] = b' \n{ "log" :\t{ "entries" : [ \n ] , "x": 1 } }\n'
    cases["log-not-first"] = json.dumps({"a": [1, {"b": "}]"}], **har([entry()]), "z": None}).encode()
    cases["entries-not-last"] = json.dumps({"log": {"entries": [entry()], "pages": [], "creator": {}}}).encode()
    cases["two-logs"] = (
        b'{"log": {"entries": [' + json.dumps(entry()).encode() + b']}, "log": {"entries": [{"request": {}}]}}'
    )
    cases["trailing-garbage"] = json.dumps(har([entry()])).encode() + b" xyz"
    cases["missing-comma"] = json.dumps(har([entry(), entry()])).replace("}, {", "} {", 1).encode()
    cases["non-dict-entries"] = b'{"log": {"entries": [null, "x", [], {"request": []}, {"request": {}}]}}'
    cases["escaped-strings"] = json.dumps(har([entry(note='a "quoted" \\ ] } [ {')]), ensure_ascii=True).encode()
    cases["unicode"] = json.dumps(har([entry(note="héllo ✓ \U0001f600")]), ensure_ascii=False).encode()
    cases["lone-surrogate-escape"] = json.dumps(har([entry()])).replace('"cache"', '"\\ud800x": 1, "cache"').encode()
    cases["bom"] = b"\xef\xbb\xbf" + one
    cases["bom-bad-byte"] = b"\xef\xbb\xbf" + raw[:second] + b"\xff" + raw[second + 1 :]
    cases["zhar"] = zlib.compress(one)
    cases["gzip"] = gzip.compress(one)
    cases["bad-gzip"] = b"\x1f\x8b" + b"\x00" * 20
    cases["deep"] = b'{"log": {"entries": [' + b"[" * 3000 + b"]" * 3000 + b"]}}"
    small = _small_doc()
    for cut in range(0, len(small), 97):  # a file cut anywhere
        cases[f"cut-{cut}"] = small[:cut]
    for pos in range(3, len(small), 211):  # one byte overwritten anywhere
        for b in (b"}", b'"', b"\xff", b","):
            cases[f"byte-{pos}-{b[0]}"] = small[:pos] + b + small[pos + 1 :]
    return cases


def _frames(cap) -> dict[str, pd.DataFrame]:
    # inputs as its wide view, which holds every value of input_parts (goldens may predate input_parts)
    out = {name: getattr(cap, name) for name in toolkit.capture.load.FRAME_NAMES if name != "input_parts"}
    out["inputs"] = cap.inputs_wide()
    out["entries"] = cap.entries
    out["summary"] = pd.DataFrame(cap.summary())
    return out


def _outcome(path: Path, **kw):
    try:
        return _frames(toolkit.load_capture(path, **kw))
    except (CaptureError, RecursionError) as exc:
        return (type(exc).__name__, str(exc).replace(str(path.parent), "<dir>"))


def all_outcomes(tmp: Path, *, big: Path | None = None) -> dict[str, object]:
    """Every case's frames (or its error), keyed by case and options."""
    out: dict[str, object] = {}
    for p in DATA_HARS:
        name = str(p.relative_to(REPO))
        for keep in (False, True):
            out[f"{name} keep={keep}"] = _outcome(p, keep_bodies=keep)
        out[f"{name} redact=False"] = _outcome(p, redact=False)
    out["polly"] = _outcome(POLLY, keep_bodies=True)
    gen = tmp / "generated.har"
    _BENCH.make_har(gen, 12)
    for keep in (False, True):
        out[f"generated keep={keep}"] = _outcome(gen, keep_bodies=keep)
    for name, raw in damaged_cases().items():
        p = tmp / f"{name}.har"
        p.write_bytes(raw)
        out[f"damaged {name}"] = _outcome(p, format="har")
    if big is not None:
        out["big"] = _outcome(big)
    return out


def _assert_same(a, b, where: str) -> None:
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert a == b, where
        return
    assert a.keys() == b.keys(), where
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name], obj=f"{where}: {name}")


def _reconciles(outcome) -> None:
    s = outcome["summary"]
    assert s["reconciles"].all()


# ---- invariants (no older code needed) ----------------------------------------------------------


@pytest.mark.parametrize("path", DATA_HARS, ids=lambda p: str(p.relative_to(REPO / "data")))
def test_bundled_hars_keep_bodies_changes_only_bodies(path):
    entries = json.loads(path.read_bytes())["log"]["entries"]
    plain, kept = _frames(toolkit.load_capture(path)), _frames(toolkit.load_capture(path, keep_bodies=True))
    for name in plain:
        if name != "bodies":
            pd.testing.assert_frame_equal(plain[name], kept[name], obj=name)
    assert plain["bodies"].empty
    assert int(plain["entries"]["entries"].sum()) == len(entries)
    assert len(plain["exchanges"]) == sum(isinstance(e, dict) and isinstance(e.get("request"), dict) for e in entries)
    with_body = [
        e for e in entries if (e["request"].get("postData") or {}).get("text", "").lstrip().startswith(("{", "["))
    ]
    assert len(kept["bodies"]) <= len(with_body)
    assert set(kept["bodies"]["exchange_id"]) <= set(kept["exchanges"]["exchange_id"])
    _reconciles(plain)


def test_generated_har_reads_every_entry(tmp_path):
    p = tmp_path / "gen.har"
    _BENCH.make_har(p, 25)
    cap = toolkit.load_capture(p, keep_bodies=True)
    assert len(cap.exchanges) == 25 and len(cap.bodies) == 25 and cap.problems.empty
    assert list(cap.exchanges["location"]) == [f"entry {i}" for i in range(25)]
    assert set(cap.exchanges["terminal"]) == {"completed"} and cap.summary()["reconciles"].all()
    expected = [b for b in (json.loads(e["request"]["postData"]["text"]) for e in _entries(p))]
    assert [b["model"] for b in cap.bodies["request"]] == [b["model"] for b in expected]
    assert [len(b["input"]) for b in cap.bodies["request"]] == [len(b["input"]) for b in expected]


def _entries(p: Path) -> list:
    return json.loads(p.read_bytes())["log"]["entries"]


def test_damaged_files_reconcile_or_raise_with_the_path(tmp_path):
    for name, raw in damaged_cases().items():
        p = tmp_path / f"{name}.har"
        p.write_bytes(raw)
        out = _outcome(p, format="har")
        if isinstance(out, tuple):
            assert out[0] == "CaptureError", (name, out)  # never a bare RecursionError or other crash
            assert f"<dir>/{p.name}" in out[1], name
            assert "byte" in out[1] or "not a HAR" in out[1] or "corrupt" in out[1], (name, out[1])
        else:
            _reconciles(out)
            for loc in out["problems"]["location"]:
                assert loc.startswith("entry "), (name, loc)


def test_byte_offsets_point_at_the_bad_byte(tmp_path):
    """A problem's byte offset is the offset in the file on disk, also after a BOM and multi-byte text."""
    raw = json.dumps(har([entry(note="é✓"), entry(), entry()]), ensure_ascii=False).encode()
    second = raw.index(b"Run the tool once.", raw.index(b"Run the tool once.") + 1)
    raw = b"\xef\xbb\xbf" + raw[:second] + b"\xff" + raw[second + 1 :]
    p = tmp_path / "x.har"
    p.write_bytes(raw)
    (msg,) = toolkit.load_capture(p).problems["message"]
    assert msg.startswith(f"byte {second + 3}: ")
    nan = json.dumps(har([entry(note="é✓"), entry(time=float("nan"))]), ensure_ascii=False).encode()
    p.write_bytes(nan)
    (msg,) = toolkit.load_capture(p).problems["message"]
    assert msg == f"NaN is not JSON (byte {nan.index(b'NaN')})"


# ---- the previous implementation's results: a script, run by hand around a change to the reader ------
#   python tests/test_har_speed_equivalence.py write golden.pickle [big.har]    (before the change)
#   python tests/test_har_speed_equivalence.py compare golden.pickle [big.har]  (after it)


def compare_with(golden_path: Path, tmp: Path, big: Path | None) -> int:
    with open(golden_path, "rb") as f:
        golden = pickle.load(f)
    now = all_outcomes(tmp, big=big)
    if big is None:
        golden.pop("big", None)
    assert now.keys() == golden.keys(), sorted(now.keys() ^ golden.keys())
    for key in golden:
        _assert_same(now[key], golden[key], key)
    return len(golden)


if __name__ == "__main__":
    import tempfile

    mode, target = sys.argv[1], Path(sys.argv[2])
    big_har = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    with tempfile.TemporaryDirectory() as d:
        if mode == "compare":
            print(compare_with(target, Path(d), big_har), "cases identical")
        else:
            result = all_outcomes(Path(d), big=big_har)
            with open(target, "wb") as f:
                pickle.dump(result, f)
            print(len(result), "cases written")
