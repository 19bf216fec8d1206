"""A seeded mutation fuzzer over every reader (issue 27 §4): ``make fuzz`` runs a campaign, ``tests/test_fuzz_brief.py``
a short fixed one inside ``make test``.

Seeds are the project's own files: each registry format's example and the files of data/ and tests/fixtures/ that
detect as that format. Each input is one seed with one mutation of a family the issue names (truncation, flipped
bytes, a JSON value of the wrong type, deep nesting, a huge number, a lone surrogate, a BOM, a small compression
bomb, a YAML alias bomb), chosen by ``random.Random`` from the campaign seed, the file and the input's index, so a
finding is reproduced from those three alone.

The contract: ``load_capture(path)`` returns frames (problem rows allowed) or raises an ``InputError``. Anything else
is a finding: another exception, or a ``decoder`` problem row (a toolkit bug the reader caught) (CRASH), no answer within the time bound (HANG), a peak resident memory past the
bound (MEMORY), or, for a mutation that changes a value without removing anything, fewer exchanges, calls, events or
tools than the seed with not one problem row (SILENT), a summary that does not reconcile (UNRECONCILED: an entry
neither read nor reported), or, for a file refused with an ``InputError``, a CLI that does not say so in one line
with exit 2 (CLI). Each input runs in a forked worker, so a hang or a memory
blow-up ends the worker, not the campaign.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import multiprocessing
import random
import re
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard

ROOT = Path(__file__).resolve().parent.parent
SEED_DIRS = (ROOT / "data", ROOT / "tests" / "fixtures")
MAX_SEED_BYTES = 1 << 20  # bigger seeds make slow inputs and add no new shapes
SEEDS_PER_FORMAT = 8
COUNTED = ("exchanges", "calls", "events", "tools")
BOMB_BYTES = 80 << 20  # past the 64 MiB inflate cap, small enough to build in a moment
HUGE = ("1" + "0" * 5000, "1e400", "-1e400", "1.5e-400", "9" * 400)
WRONG: tuple[Any, ...] = (None, 7, "x", [], {}, True, [1], {"a": 1}, -1.5)
YAML_TAGS = ("!!int 12abc", "!!float x", "!!binary '!!'", "!!timestamp 2020-99-99", "!!python/name:os.system", "!!set")
FAMILIES = ("truncate", "flip", "json_type", "deep", "huge", "surrogate", "bom", "bomb", "yaml_alias")
# Families that change or add a value without removing any part of the file: a count that drops under them with
# no problem row is a silent loss. Truncation and flipped bytes may remove an entry as cleanly as a shorter file.
SILENT_CHECKED = frozenset({"json_type", "deep", "huge", "surrogate", "bom", "yaml_alias"})
# Keys the APIs write as null when there is nothing (openai-python dumps ``"tool_calls": null`` for a message without
# calls; LiteLLM logs ``"tools": null`` for a request without tools): a value of one set to null is a message
# without calls or a request without tools, not a loss.
NULL_MEANS_NONE = frozenset({"tool_calls", "tools", "function_call", "refusal", "audio", "annotations", "logprobs"})
_PLACEHOLDER = "\x00FUZZ\x00"
_YAML_VALUE = re.compile(rb"^(\s*(?:- )?[A-Za-z_][\w-]*: )(\S.*)$", re.M)
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


@dataclass
class Outcome:
    """One input's result: ``kind`` is OK, INPUT_ERROR (both within the contract) or a finding kind."""

    kind: str
    detail: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    problems: int = 0
    peak_mib: float = 0.0


FINDINGS = ("CRASH", "HANG", "MEMORY", "SILENT", "UNRECONCILED", "CLI")


# ---- seeds -------------------------------------------------------------------------------------------


def seeds() -> dict[str, list[Path]]:
    """Per registry format, its example first, then up to ``SEEDS_PER_FORMAT`` project files detected as it."""
    from toolkit.errors import InputError
    from toolkit.sources import detect
    from toolkit.sources.registry import FORMATS

    out: dict[str, list[Path]] = {f.name: [ROOT / f.example] for f in FORMATS}
    for d in SEED_DIRS:
        for p in sorted(d.rglob("*")):
            if not p.is_file() or p.stat().st_size > MAX_SEED_BYTES or p.stat().st_size == 0:
                continue
            try:
                fmt = detect.detect(p)
            except (InputError, OSError):
                continue
            bucket = out.get(fmt)
            if bucket is not None and p not in bucket and len(bucket) < SEEDS_PER_FORMAT:
                bucket.append(p)
    return out


# ---- mutations ---------------------------------------------------------------------------------------


def _json_nodes(obj: Any, path: tuple = ()) -> list[tuple]:
    nodes = [path] if path else []
    if isinstance(obj, dict):
        for k, v in obj.items():
            nodes += _json_nodes(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            nodes += _json_nodes(v, (*path, i))
    return nodes


def _set(obj: Any, path: tuple, value: Any) -> None:
    for step in path[:-1]:
        obj = obj[step]
    obj[path[-1]] = value


def _get(obj: Any, path: tuple) -> Any:
    for step in path:
        obj = obj[step]
    return obj


def _json_spots(text: str) -> list[tuple[int, int, str]]:
    """The JSON values of a text: the whole document, or each line (JSONL), or each SSE ``data:`` line."""
    try:
        json.loads(text)
        return [(0, len(text), "doc")]
    except ValueError:
        pass
    spots = []
    pos = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        start = pos + (5 if body.startswith("data:") else 0)
        candidate = body[5:] if body.startswith("data:") else body
        if candidate.lstrip().startswith(("{", "[")):
            try:
                json.loads(candidate)
                spots.append((start, pos + len(body), "line"))
            except ValueError:
                pass
        pos += len(line)
    return spots


def _json_mutation(text: str, family: str, rng: random.Random) -> tuple[str, str] | None:
    spots = _json_spots(text)
    if not spots:
        return None
    start, end, what = rng.choice(spots)
    doc = json.loads(text[start:end])
    nodes = _json_nodes(doc)
    if not nodes:
        return None
    path = rng.choice(nodes)
    where = f"{what}@{start}: /" + "/".join(map(str, path))
    if family == "json_type":
        old = _get(doc, path)
        value = rng.choice([w for w in WRONG if type(w) is not type(old)])
        _set(doc, path, value)
        new, desc = json.dumps(doc), f"{where} {type(old).__name__} -> {json.dumps(value)}"
    else:
        if family == "deep":
            depth = rng.choice((1000, 5000, 100000))
            opener, closer = rng.choice((("[", "]"), ('{"a":', "}")))
            literal, desc = opener * depth + "1" + closer * depth, f"{where} -> {depth}-deep {opener}"
        elif family == "huge":
            literal = rng.choice(HUGE)
            desc = f"{where} -> {literal[:12]}... ({len(literal)} chars)"
        else:  # surrogate
            literal = json.dumps(rng.choice(("\ud83d", "\udc00x", "a\ud800")))
            desc = f"{where} -> {literal}"
        _set(doc, path, _PLACEHOLDER)
        new = json.dumps(doc).replace(json.dumps(_PLACEHOLDER), literal)
    return text[:start] + new + text[end:], desc


def _yaml_mutation(data: bytes, family: str, rng: random.Random) -> tuple[bytes, str] | None:
    spots = list(_YAML_VALUE.finditer(data))
    if not spots:
        return None
    m = rng.choice(spots)
    where = f"byte {m.start()} ({m.group(1).strip().decode(errors='replace')})"
    if family == "yaml_alias":
        width = 9
        defs = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]" for i in range(1, 10)]
        level = rng.choice((6, 9))
        head = ("\n".join(defs) + "\n").encode()
        body = data[: m.start(2)] + f"*a{level}".encode() + data[m.end(2) :]
        return head + body, f"{where} -> alias tree of {width}^{level} leaves"
    if family == "json_type":
        value = rng.choice(YAML_TAGS)
    elif family == "deep":
        depth = rng.choice((1000, 5000))
        value = "[" * depth + "1" + "]" * depth
    elif family == "huge":
        value = rng.choice(HUGE)
    else:  # surrogate
        value = rng.choice(('"\\ud83d"', '"\\udc00x"'))
    return data[: m.start(2)] + value.encode() + data[m.end(2) :], f"{where} -> {value[:20]} ({len(value)} chars)"


def _bomb(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    cut = rng.randrange(len(data) + 1)
    if rng.random() < 0.5:
        out = io.BytesIO()
        with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:
            gz.write(data[:cut])
            chunk = b" " * (1 << 20)
            for _ in range(BOMB_BYTES >> 20):
                gz.write(chunk)
            gz.write(data[cut:])
        return out.getvalue(), f"gzip: {cut} bytes, then {BOMB_BYTES >> 20} MiB of white space, then the rest"
    cctx = zstandard.ZstdCompressor()
    co = cctx.compressobj()
    parts = [co.compress(data[:cut])]
    chunk = b" " * (1 << 20)
    parts += [co.compress(chunk) for _ in range(BOMB_BYTES >> 20)]
    parts += [co.compress(data[cut:]), co.flush()]
    return b"".join(parts), f"zstd: {cut} bytes, then {BOMB_BYTES >> 20} MiB of white space, then the rest"


def _unzstd(data: bytes) -> bytes:
    # every frame: DSH writes a session log as one zstd frame per flush
    with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as r:
        return r.read()


def mutate(data: bytes, family: str, rng: random.Random) -> tuple[bytes, str] | None:
    """One mutation of ``family`` of a seed's bytes, with a description; None where the family does not apply."""
    zstd = data.startswith(_ZSTD_MAGIC)
    plain = _unzstd(data) if zstd else data
    if family == "truncate":
        cut = rng.randrange(len(plain))
        out, desc = plain[:cut], f"cut at byte {cut} of {len(plain)}"
    elif family == "flip":
        buf = bytearray(plain)
        spots = sorted(rng.randrange(len(buf)) for _ in range(rng.randint(1, 4)))
        for s in spots:
            buf[s] ^= 1 << rng.randrange(8)
        out, desc = bytes(buf), f"bits flipped at {spots}"
    elif family == "bom":
        kind = rng.choice(("utf-8", "utf-8 twice", "utf-16"))
        if kind == "utf-16":
            try:
                out = plain.decode("utf-8").encode("utf-16")
            except UnicodeDecodeError:
                return None
        else:
            out = b"\xef\xbb\xbf" * (2 if kind == "utf-8 twice" else 1) + plain
        desc = f"{kind} BOM"
    elif family == "bomb":
        return _bomb(plain, rng)
    else:
        yamlish = _YAML_VALUE.search(plain) is not None and not plain.lstrip().startswith((b"{", b"["))
        try:
            text = plain.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and family != "yaml_alias" and _json_spots(text):
            done = _json_mutation(text, family, rng)
            if done is None:
                return None
            out, desc = done[0].encode("utf-8", "surrogatepass"), done[1]
        elif yamlish:
            got = _yaml_mutation(plain, family, rng)
            if got is None:
                return None
            out, desc = got
        else:
            return None
    if zstd:
        out, desc = zstandard.ZstdCompressor().compress(out), desc + " (inside zstd)"
    return out, desc


# ---- running -----------------------------------------------------------------------------------------


def _peak_reset() -> None:
    # writing 5 resets VmHWM (Linux), so the peak read after an input is that input's own
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _peak_mib() -> float:
    import resource

    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def read_one(path: Path) -> Outcome:
    """Load one file in this process and classify it: OK, INPUT_ERROR or CRASH (with the innermost frames)."""
    import warnings

    from toolkit.capture.load import load_capture
    from toolkit.errors import InputError
    from toolkit.wire.records import DECODER

    _peak_reset()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cap = load_capture(path, progress=False)
        bugs = cap.problems[cap.problems["kind"] == DECODER]
        if len(bugs):  # a toolkit bug the reader caught and kept as a problem row: a crash all the same
            return Outcome("CRASH", detail=f"decoder problem: {bugs['message'].iloc[0][:200]}", peak_mib=_peak_mib())
        summary = cap.summary()
        counts = {c: int(summary[c].sum()) for c in COUNTED if c in summary}
        if not summary["reconciles"].all():
            bad = summary.loc[~summary["reconciles"].astype(bool), ["entries", "read", "lost"]].iloc[0].to_dict()
            return Outcome("UNRECONCILED", detail=f"summary {bad}: an entry neither read nor reported")
        return Outcome("OK", counts=counts, problems=len(cap.problems), peak_mib=_peak_mib())
    except InputError as e:
        line = str(e).splitlines()[0][:300]
        return _through_the_cli(path) or Outcome("INPUT_ERROR", detail=line, peak_mib=_peak_mib())
    except BaseException as e:  # every other exception is the finding looked for
        frames = traceback.extract_tb(e.__traceback__)
        ours = [f for f in frames if "/toolkit/" in f.filename]
        at = f"{Path(ours[-1].filename).relative_to(ROOT)}:{ours[-1].lineno} {ours[-1].name}" if ours else "?"
        return Outcome("CRASH", detail=f"{type(e).__name__}: {str(e)[:200]} at {at}", peak_mib=_peak_mib())


def _through_the_cli(path: Path) -> Outcome | None:
    """A file the loader refuses, given to the CLI (``agent-contract summary``): one line on stderr and exit 2
    is the contract; anything else (a traceback, several lines, another code) is a CLI finding."""
    from toolkit.present import cli

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = cli.main(["summary", str(path)])
        except SystemExit as e:
            code = e.code
        except BaseException as e:
            return Outcome("CLI", detail=f"{type(e).__name__} escaped the CLI: {str(e)[:200]}")
    lines = err.getvalue().strip("\n").splitlines()
    if code != 2 or len(lines) != 1:
        return Outcome("CLI", detail=f"exit {code} with {len(lines)} line(s) on stderr: {err.getvalue()[:200]!r}")
    return None


def _worker(conn) -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(read_one(Path(job)))


class Runner:
    """A forked worker that reads inputs one at a time; restarted after a hang or a death."""

    def __init__(self, seconds: float, memory_mib: float) -> None:
        self.seconds, self.memory_mib = seconds, memory_mib
        self.ctx = multiprocessing.get_context("fork")
        self.proc: Any = None
        self._start()

    def _start(self) -> None:
        self.conn, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()

    def _restart(self) -> None:
        self.proc.kill()
        self.proc.join()
        self._start()

    def run(self, path: Path) -> Outcome:
        self.conn.send(str(path))
        if not self.conn.poll(self.seconds):
            self._restart()
            return Outcome("HANG", detail=f"no result after {self.seconds:g} s")
        try:
            out: Outcome = self.conn.recv()
        except EOFError:
            code = self.proc.exitcode
            self._restart()
            return Outcome("MEMORY" if code in (-9, None) else "CRASH", detail=f"worker died (exit code {code})")
        if out.peak_mib > self.memory_mib:
            self._restart()  # the high-water mark belongs to this input; start clean
            out = Outcome("MEMORY", detail=f"peak {out.peak_mib:.0f} MiB > {self.memory_mib:g} MiB ({out.kind})")
        return out

    def close(self) -> None:
        self.conn.send(None)
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


@dataclass
class Finding:
    reader: str
    seed_file: str
    index: int
    family: str
    mutation: str
    outcome: Outcome

    def line(self, campaign_seed: int) -> str:
        return (
            f"{self.outcome.kind} reader={self.reader} seed={campaign_seed} file={self.seed_file} "
            f"input={self.index} mutation={self.family}: {self.mutation} :: {self.outcome.detail}"
        )


@dataclass
class Report:
    seed: int
    per_reader: dict[str, Counter] = field(default_factory=dict)
    outcomes: Counter = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)

    def inputs(self) -> int:
        return sum(self.outcomes.values())


def campaign(
    *,
    seed: int,
    inputs: int | None,
    seconds: float | None = None,
    per_input_seconds: float = 30.0,
    memory_mib: float = 1024.0,
    workdir: Path,
    readers: list[str] | None = None,
) -> Report:
    """Mutate each reader's seeds in turn, ``inputs`` per reader (or until ``seconds`` of wall time in all).

    Input ``i`` of a reader takes family ``FAMILIES[i % len(FAMILIES)]`` (so a short run still meets every
    family), seed file ``(i + i // len(FAMILIES)) % n`` and its randomness from ``(seed, file, i)``; inapplicable families are skipped
    and counted as such.
    """
    by_format = seeds()
    names = [r for r in by_format if readers is None or r in readers]
    report = Report(seed=seed, per_reader={r: Counter() for r in names})
    runner = Runner(per_input_seconds, memory_mib)
    baselines: dict[Path, Outcome] = {}
    deadline = None if seconds is None else time.monotonic() + seconds
    try:
        i = 0
        while inputs is None or i < inputs:
            for reader in names:
                if deadline is not None and time.monotonic() > deadline:
                    return report
                files = by_format[reader]
                family = FAMILIES[i % len(FAMILIES)]
                src = files[(i + i // len(FAMILIES)) % len(files)]
                rel = str(src.relative_to(ROOT))
                rng = random.Random(f"{seed}:{rel}:{i}")
                got = mutate(src.read_bytes(), family, rng)
                if got is None:
                    report.per_reader[reader]["n/a"] += 1
                    continue
                if src not in baselines:
                    baselines[src] = runner.run(src)
                target = workdir / f"{reader}-{i}{''.join(src.suffixes)}"
                target.write_bytes(got[0])
                out = runner.run(target)
                target.unlink()
                base = baselines[src]
                if (
                    out.kind == "OK"
                    and family in SILENT_CHECKED
                    and not _null_means_none(got[1])
                    and base.kind == "OK"
                    and out.problems == 0
                    and any(out.counts.get(c, 0) < n for c, n in base.counts.items())
                ):
                    out = Outcome("SILENT", detail=f"counts {base.counts} -> {out.counts} with no problem row")
                report.outcomes[out.kind] += 1
                report.per_reader[reader][out.kind] += 1
                if out.kind in FINDINGS:
                    report.findings.append(Finding(reader, rel, i, family, got[1], out))
            i += 1
    finally:
        runner.close()
    return report


def _null_means_none(mutation: str) -> bool:
    """Whether a mutation set one of ``NULL_MEANS_NONE`` to null (``/choices/0/message/tool_calls list -> null``)."""
    m = re.search(r"/([^/ ]+) \w+ -> null$", mutation)
    return m is not None and m.group(1) in NULL_MEANS_NONE


def reproduce(seed: int, reader: str, index: int, out_dir: Path) -> tuple[Path, str]:
    """Write input ``index`` of ``reader`` in the campaign of ``seed`` to ``out_dir`` (the file a finding names, made
    again from its seed, reader and index alone) and return its path and mutation."""
    files = seeds()[reader]
    family = FAMILIES[index % len(FAMILIES)]
    src = files[(index + index // len(FAMILIES)) % len(files)]
    rel = str(src.relative_to(ROOT))
    got = mutate(src.read_bytes(), family, random.Random(f"{seed}:{rel}:{index}"))
    if got is None:
        raise SystemExit(f"input {index} of {reader} is not applicable (family {family} on {rel})")
    target = out_dir / f"{reader}-{index}{''.join(src.suffixes)}"
    target.write_bytes(got[0])
    return target, f"{family}: {got[1]}"


def main(argv: list[str] | None = None) -> int:
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="campaign seed (default 1)")
    ap.add_argument("--inputs", type=int, default=None, help="inputs per reader (default: until --seconds)")
    ap.add_argument("--seconds", type=float, default=600.0, help="wall-clock budget of the campaign (default 600)")
    ap.add_argument("--per-input-seconds", type=float, default=30.0, help="a slower input is a HANG (default 30)")
    ap.add_argument("--memory-mib", type=float, default=1024.0, help="a higher peak RSS is MEMORY (default 1024)")
    ap.add_argument("--reader", action="append", help="only this reader (repeatable)")
    ap.add_argument("--reproduce", metavar="READER:INPUT", help="write that input of the --seed campaign and stop")
    ap.add_argument("--out", type=Path, default=Path("."), help="where --reproduce writes (default: here)")
    args = ap.parse_args(argv)
    if args.reproduce:
        reader, _, index = args.reproduce.rpartition(":")
        path, mutation = reproduce(args.seed, reader, int(index), args.out)
        print(f"{path}  ({mutation})")
        return 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fuzz-readers-") as tmp:
        rep = campaign(
            seed=args.seed,
            inputs=args.inputs,
            seconds=args.seconds,
            per_input_seconds=args.per_input_seconds,
            memory_mib=args.memory_mib,
            workdir=Path(tmp),
            readers=args.reader,
        )
    print(f"fuzz: seed {rep.seed}, {rep.inputs()} inputs in {time.monotonic() - started:.0f} s")
    kinds = ["OK", "INPUT_ERROR", *FINDINGS, "n/a"]
    print(f"{'reader':<16}" + "".join(f"{k:>12}" for k in kinds))
    for reader, c in rep.per_reader.items():
        print(f"{reader:<16}" + "".join(f"{c.get(k, 0):>12}" for k in kinds))
    print(f"{'total':<16}" + "".join(f"{sum(c.get(k, 0) for c in rep.per_reader.values()):>12}" for k in kinds))
    for f in rep.findings:
        print(f.line(rep.seed))
    return 1 if rep.findings else 0


if __name__ == "__main__":
    sys.exit(main())
