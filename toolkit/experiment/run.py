"""Run an experiment: one captured request, its variants, each sent N times, everything recorded.

Why it is built this way: the request resent is the captured body and nothing else of the capture
(never its headers: they carry the agent's session and key); variants are sent round-robin so drift
in time hits every variant alike; every attempt is written as a line of the toolkit's own JSONL
shape, so the experiment is a capture the toolkit reads; the answers are judged as they came back
(the same lines read in memory before the key is replaced in them), never from what redaction made
of them. Safety first: no endpoint means a dry run, images need ``allow_images``, the budget is
checked before anything is sent, a key never goes over plain http to another machine, the plan is
shown to ``confirm`` before the first request, and the key comes from an environment variable only
and is never written. A broken endpoint stops the run (``send.FATAL``, ``send.FAILURES_IN_A_ROW``)
and is no result (``verdict_of``). A Ctrl-C loses nothing: the record is kept (a temporary folder
too), written whole, with the request in flight, and nothing is sent after it. The Markdown, HTML and
figure are drawn by ``toolkit.present`` (a level above this one).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pandas as pd

from toolkit.capture import Capture, load_capture
from toolkit.capture.progress import Progress
from toolkit.capture.redact import redact_obj, redact_text
from toolkit.errors import InputError
from toolkit.experiment import variants as variants_mod
from toolkit.experiment.frames import ANSWERS, CHANGES, PLAN, SUMMARY
from toolkit.experiment.send import (
    FAILURES_IN_A_ROW,
    Limits,
    Sender,
    is_loopback,
    redact_key,
    redact_url,
    toolkit_version,
)
from toolkit.knowledge.dsh_runtime import DEFAULT_VERSION as DEFAULT_DSH
from toolkit.knowledge.messages import Message

__all__ = [
    "DEFAULT_VARIANTS",
    "FILES",
    "REPORT_FILES",
    "RUN_VERDICTS",
    "ExperimentResult",
    "Interrupted",
    "captured_mode",
    "load",
    "plan_facts",
    "run",
    "verdict_of",
]

#: What ``agent-contract experiment`` sends when ``--variants`` is not given.
DEFAULT_VARIANTS = ("strict-absent", "strict-false")

#: The data files a run writes into its folder (the CLI adds ``REPORT_FILES``).
FILES = ("exchanges.jsonl", "plan.csv", "changes.csv", "answers.csv", "summary.csv", "experiment.json")
#: What ``agent-contract experiment`` writes beside them (``toolkit.present``).
REPORT_FILES = (*(f"experiment.{ext}" for ext in ("md", "html")), "refusals.png")  # (no literal: not a doc link)
#: ``manifest["verdict"]`` (``verdict_of``): measured, inconclusive (nothing judged to compare), or stopped
#: by the endpoint.
RUN_VERDICTS = ("measured", "inconclusive", "stopped")

_OBJECT_COLUMNS = ("filled", "empty_filled", "arguments")  # answers' tuple/dict columns, as JSON text in CSV


@dataclass
class ExperimentResult:
    """What an experiment built, sent and found; ``out`` is the folder it was written to (None: a dry
    run, or nothing kept). ``capture`` is the experiment's own capture (exchanges.jsonl), None in a dry run."""

    variants: list[variants_mod.Variant]
    plan: pd.DataFrame
    capture: Capture | None
    answers: pd.DataFrame
    summary: pd.DataFrame
    comparison: dict[str, Any] | None
    manifest: dict[str, Any]
    out: Path | None

    @property
    def changes(self) -> pd.DataFrame:
        """Every variant's changes in one frame (``experiment.changes``)."""
        frames = [v.changes for v in self.variants if len(v.changes)]
        return pd.concat(frames, ignore_index=True) if frames else CHANGES.empty()

    @property
    def dry_run(self) -> bool:
        return bool(self.manifest.get("dry_run"))


def captured_mode(capture: Capture) -> str | None:
    """The sandbox mode a DSH session in the capture started in (its first ``sandbox/mode`` event)."""
    ev = capture.events
    if ev.empty:
        return None
    for row in ev[ev["type"] == "sandbox/mode"].itertuples(index=False):
        if isinstance(row.payload, dict) and isinstance(row.payload.get("mode"), str):
            return str(row.payload["mode"])
    return None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _pick_exchange(capture: Capture, exchange: str | None, path: Path) -> pd.Series:
    ex = capture.exchanges
    if exchange is None:
        with_tools = set(capture.tools["exchange_id"]) if len(capture.tools) else set()
        rows = ex[ex["exchange_id"].isin(with_tools)]
        if rows.empty:
            raise InputError(f"{path}: no exchange sent tools; name one with --exchange")
        return rows.iloc[0]
    rows = ex[ex["exchange_id"] == exchange]
    if rows.empty:
        known = ", ".join(ex["exchange_id"].head(8).tolist())
        more = f" (and {len(ex) - 8} more)" if len(ex) > 8 else ""
        raise InputError(f"{path}: no exchange {exchange!r}; the capture has {known or 'no exchanges'}{more}")
    return rows.iloc[0]


def _body_of(capture: Capture, exchange_id: str, path: Path) -> dict:
    bodies = capture.bodies[capture.bodies["exchange_id"] == exchange_id]
    body = bodies.iloc[0]["request"] if len(bodies) else None
    if not isinstance(body, dict):
        raise InputError(
            f"{path} ({exchange_id}): the request body was not recorded as a JSON object; nothing to resend"
        )
    return body


def _plan_rows(names: Sequence[str], samples: int) -> list[dict[str, Any]]:
    """Round-robin: sample 1 of every variant, then sample 2, … so drift in time hits all alike."""
    return [
        {"variant": v, "sample": s, "exchange_id": None, "attempts": 0, "status": None, "error": None}
        for s in range(1, samples + 1)
        for v in names
    ]


class _Control:
    """What the run's Ctrl-C handler reads and sets: ``stop`` (asked to stop), ``finishing`` (the record is
    being written: a Ctrl-C then only waits for it) and ``pending`` (one came while finishing)."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.finishing = False
        self.pending = False


@contextlib.contextmanager
def _ctrl_c(ctl: _Control, sender: Sender, say: Callable[[Any], None]) -> Iterator[_Control]:
    """A first Ctrl-C asks the run to stop after the current request; another one while a request is on
    the wire ends that request at once (``Sender.attempt`` records it as interrupted); while the record is
    written every Ctrl-C waits for it, so a folder is never left half written. Nothing else raises in the
    middle of the run's own bookkeeping. Off the main thread (a notebook's worker, a test) signals cannot
    be caught: ``stop`` stays unset and the run goes on to its end."""
    if threading.current_thread() is not threading.main_thread():
        yield ctl
        return

    def handler(signum, frame):
        if ctl.finishing:
            if not ctl.pending:
                say(Message("experiment.notice.finishing"))
            ctl.pending = True
            return
        if ctl.stop.is_set() and sender.in_flight:
            raise KeyboardInterrupt
        if not ctl.stop.is_set():
            ctl.stop.set()
            say(Message("experiment.notice.stopping"))

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield ctl
    finally:
        signal.signal(signal.SIGINT, previous)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C ended the run. ``result`` is what was sent, recorded and judged; its folder (``result.out``)
    is kept, a temporary one too, so nothing sent is lost."""

    def __init__(self, result: ExperimentResult):
        super().__init__(str(result.out))
        self.result = result


def _progress_line(bar: Progress, text: str, *, final: bool = False) -> None:
    if bar.enabled:
        print(f"\r{bar.line(state=text)}", end="\n" if final else "", file=sys.stderr, flush=True)


def _check_out(out: Path, replace: bool) -> list[Path]:
    """The files ``replace`` would remove from ``out``; refuses a folder that is not empty unless asked to
    replace it, and even then one holding files an experiment does not write (it is not an experiment's)."""
    if not out.exists():
        return []
    if not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder; --out names a folder for the experiment")
    held = sorted(p for p in out.iterdir())
    if not held:
        return []
    names = ", ".join(p.name for p in held[:4]) + (f" (and {len(held) - 4} more)" if len(held) > 4 else "")
    if not replace:
        raise InputError(
            f"{out}: not empty (holds {names}); choose an empty folder, or pass --replace to replace an experiment"
        )
    ours = set(FILES) | set(REPORT_FILES) | {"README.md"}
    other = [p.name for p in held if p.name not in ours or not p.is_file()]
    if other:
        raise InputError(f"{out}: holds {', '.join(other[:4])}, which no experiment writes; not replaced")
    return held


def plan_facts(
    endpoint: str,
    built: Sequence[variants_mod.Variant],
    samples: int,
    limits: Limits,
    api_key_env: str | None,
) -> dict[str, Any]:
    """What a run is about to send, for a person to confirm: the endpoint (redacted), its host and whether
    it is this machine, the variants with the size of each body, the samples, the requests and the limits."""
    parts = urlsplit(endpoint)
    return {
        "endpoint": redact_url(endpoint),
        "host": parts.hostname,
        "loopback": is_loopback(parts.hostname),
        "scheme": parts.scheme,
        "variants": [v.name for v in built],
        "body_bytes": {
            v.name: len(json.dumps(v.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) for v in built
        },
        "samples": samples,
        "requests": samples * len(built),
        "max_requests": limits.max_requests,
        "rate": limits.rate,
        "timeout": limits.timeout,
        "retries": limits.retries,
        "api_key_env": api_key_env,
    }


def run(
    capture_path: str | os.PathLike[str],
    *,
    exchange: str | None = None,
    endpoint: str | None = None,
    variants: Sequence[str] = DEFAULT_VARIANTS,
    samples: int = 5,
    api_key_env: str | None = None,
    out: str | os.PathLike[str] | None = None,
    replace: bool = False,
    dry_run: bool = False,
    allow_images: bool = False,
    limits: Limits | None = None,
    mode: str | None = None,
    dsh: str = DEFAULT_DSH,
    progress: bool | None = None,
    confirm: Callable[[dict[str, Any], list[variants_mod.Variant]], bool] | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
    now: Callable[[], datetime] | None = None,
    notice: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """Build ``variants`` of exchange ``exchange`` of the capture, send each ``samples`` times to
    ``endpoint``, record, judge and summarise (see the module docstring for the safety rules).

    ``mode`` defaults to the capture's DSH session mode when it has one. ``confirm`` is shown the plan
    (``plan_facts``, with the capture, exchange, api and mode) and the variants after every check and
    before anything is sent; when it answers False nothing is
    sent (the result is a dry run, ``manifest["declined"]``). ``out`` must be empty or absent unless
    ``replace``. ``clock``/``sleep``/``now`` are the sender's (tests); ``notice`` receives what is said on
    stderr (another host, a host that is not this machine, Ctrl-C). A Ctrl-C raises ``Interrupted``
    (a ``KeyboardInterrupt``) carrying the result of what was sent, kept on disk."""
    limits = limits or Limits()
    if samples < 1:
        raise InputError(f"samples {samples!r}: send each variant at least once")
    path = Path(capture_path)
    names = list(variants)
    say = notice or (lambda text: print(f"agent-contract: {text}", file=sys.stderr))
    # redact=False only to resend the body as captured; the captured headers are never used
    capture = load_capture(path, keep_bodies=True, redact=False, progress=False)
    row = _pick_exchange(capture, exchange, path)
    exchange_id = str(row["exchange_id"])
    api = str(row["api"]) if pd.notna(row["api"]) else ""
    if api not in variants_mod.APIS:
        raise InputError(
            f"{path} ({exchange_id}): a {api or 'non-API'} request; an experiment resends "
            f"{', '.join(variants_mod.APIS)} requests"
        )
    body = _body_of(capture, exchange_id, path)
    mode_source = "given" if mode else None
    if mode is None:
        mode = captured_mode(capture)
        mode_source = "capture's DSH session" if mode else None
    built = variants_mod.build(body, names, api=api, mode=mode)
    plan_rows = _plan_rows(names, samples)
    captured_url = str(row["url"]) if pd.notna(row["url"]) else None
    captured_host = urlsplit(captured_url).netloc.rpartition("@")[2] if captured_url else None
    manifest: dict[str, Any] = {
        "capture": str(capture_path),
        "capture_sha256": _sha256(path) if path.is_file() else None,
        "exchange": exchange_id,
        "api": api,
        "captured_url": redact_url(captured_url) if captured_url else None,
        "endpoint": redact_url(endpoint) if endpoint else None,
        "variants": names,
        "samples": samples,
        "mode": mode,
        "mode_source": mode_source,
        "dsh": dsh,
        "limits": asdict(limits),
        "api_key_env": api_key_env,
        "toolkit": toolkit_version(),
    }
    images = {v.name: variants_mod.image_paths(v.body)[0] for v in built if variants_mod.has_images(v.body)}
    manifest["images"] = images  # variant → its first image part: sent only with allow_images
    if endpoint is None or dry_run:
        manifest.update(dry_run=True, complete=True, counts={"planned": len(plan_rows), "sent": 0})
        return ExperimentResult(
            built, PLAN.from_records(plan_rows), None, ANSWERS.empty(), SUMMARY.empty(), None, manifest, None
        )

    # -- safety checks, all before anything is sent --
    if images and not allow_images:
        name, where = next(iter(images.items()))
        raise InputError(
            f"{path} ({exchange_id}): variant {name} carries an image at {where}; "
            "it is sent only with --allow-images (or send the no-images variant alone)"
        )
    if len(plan_rows) > limits.max_requests:
        raise InputError(
            f"budget: {samples} samples × {len(names)} variants = {len(plan_rows)} requests, "
            f"more than --max-requests {limits.max_requests}"
        )
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env) or None
        if api_key is None:
            raise InputError(f"--api-key-env {api_key_env}: the environment variable is not set (or empty)")
    ctl = _Control()  # the default sleep ends early on a Ctrl-C: it waits on the stop event
    sender = Sender(endpoint, api_key=api_key, limits=limits, **_injected(clock, sleep or ctl.stop.wait, now))
    if api_key and sender.parts.scheme == "http" and not is_loopback(sender.host):
        raise InputError(
            f"endpoint {redact_url(endpoint)}: the key from --api-key-env {api_key_env} would cross the network "
            f"in plain text to {sender.host}; use https:// (plain http is for this machine only)"
        )
    replaced = _check_out(Path(out), replace) if out is not None else []
    target = sender.host + (f":{sender.parts.port}" if sender.parts.port else "")
    if captured_host and target != captured_host:
        say(Message("experiment.notice.other_host", target=target, captured=captured_host))
    if not is_loopback(sender.host):
        say(Message("experiment.notice.not_loopback", host=sender.host))
    facts = plan_facts(endpoint, built, samples, limits, api_key_env)
    facts.update({k: manifest[k] for k in ("capture", "exchange", "api", "mode")})
    if confirm is not None and not confirm(facts, built):
        manifest.update(dry_run=True, declined=True, complete=True, counts={"planned": len(plan_rows), "sent": 0})
        return ExperimentResult(
            built, PLAN.from_records(plan_rows), None, ANSWERS.empty(), SUMMARY.empty(), None, manifest, None
        )

    keep = out is not None
    for old in replaced:
        old.unlink()
    out_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="agent-contract-experiment-"))
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{out_dir}: cannot create the experiment folder: {exc.strerror or exc}") from None
    stamp = now or _utc_now
    manifest.update(dry_run=False, started=_iso(stamp()))
    by_name = {v.name: v for v in built}
    counts = {"planned": len(plan_rows), "sent": 0, "answered": 0, "no_answer": 0, "retries": 0}
    interrupted = False
    stopped: Any = None  # why the run stopped early: the endpoint's failure (a str or a Message)
    in_a_row = 0
    received: list[dict[str, Any]] = []
    key_replaced: list[str] = []  # records the key had to be replaced in: their written text is not as received
    bar = Progress(f"experiment ({len(plan_rows)} planned)", enabled=progress, unit="requests")
    jsonl = out_dir / "exchanges.jsonl"
    with open(jsonl, "w", encoding="utf-8") as log, _ctrl_c(ctl, sender, say):
        stop = ctl.stop
        for n, prow in enumerate(plan_rows):
            if stop.is_set():
                interrupted = True
                break
            left_after = len(plan_rows) - n - 1  # planned requests still to send after this one

            def may_retry(left_after: int = left_after) -> bool:
                # the budget keeps room for every planned request; a Ctrl-C ends the retries too
                return sender.sent + left_after < limits.max_requests and not stop.is_set()

            rid = f"{prow['variant']}-{prow['sample']}"
            attempts = sender.send(by_name[prow["variant"]].body, record_id=rid, may_retry=may_retry, stop=stop.is_set)
            if not attempts:  # a Ctrl-C during the wait before it: nothing was sent
                interrupted = True
                break
            for a in attempts:
                log.write(json.dumps(a.record, ensure_ascii=False, separators=(",", ":")) + "\n")
                received.append(a.received)
                if a.key_replaced:
                    key_replaced.append(str(a.record["id"]))
            log.flush()
            last = attempts[-1]
            prow.update(
                exchange_id=last.record["id"],
                attempts=len(attempts),
                status=last.status,
                error=sender.scrub(last.failure or last.error or "") or None,
            )
            counts["retries"] += len(attempts) - 1
            counts["answered" if last.status is not None else "no_answer"] += 1
            bar.n += 1
            _progress_line(bar, f"{prow['variant']} #{prow['sample']}: {last.status or last.error}")
            if any(a.interrupted for a in attempts):
                interrupted = True
                break
            if last.fatal:
                stopped = last.failure
                break
            in_a_row = in_a_row + 1 if (last.failure is not None or last.status == 429) else 0
            if in_a_row >= FAILURES_IN_A_ROW:
                stopped = Message("experiment.stopped.in_a_row", n=in_a_row, last=last.failure or last.error)
                break
        ctl.finishing = True
        counts["sent"] = sender.sent
        _progress_line(bar, "interrupted" if interrupted else "stopped" if stopped else "done", final=True)
        manifest.update(finished=_iso(stamp()), complete=not interrupted and stopped is None, counts=counts)
        manifest["key_replaced_in"] = key_replaced
        if interrupted:
            manifest["interrupted_after"] = sum(1 for p in plan_rows if p["attempts"])
        if stopped is not None:
            manifest["stopped"] = {"after": sum(1 for p in plan_rows if p["attempts"]), "why": stopped}
        log.close()
        result = _finish(out_dir, manifest, built, plan_rows, mode, dsh, api_key, received)
        interrupted = interrupted or ctl.pending
    if not keep and not interrupted and stopped is None:
        # a whole run is in memory by now (the capture was read back): nothing left behind
        shutil.rmtree(out_dir, ignore_errors=True)
        result.out = None
    if interrupted:
        raise Interrupted(result)
    return result


def _injected(clock, sleep, now) -> dict[str, Any]:
    return {k: v for k, v in (("clock", clock), ("sleep", sleep), ("now", now)) if v is not None}


def _finish(
    out_dir: Path,
    manifest: dict[str, Any],
    built: list[variants_mod.Variant],
    plan_rows: list[dict[str, Any]],
    mode: str | None,
    dsh: str,
    api_key: str | None,
    received: list[dict[str, Any]],
) -> ExperimentResult:
    """Judge the answers as they came, then write the data files.

    The answers are judged from ``received`` (the records with the answers as received, in memory only:
    replacing the key can change what an answer says, and redaction may rewrite an argument), then the
    judged frames are redacted; the result's capture is the file as written."""
    from toolkit.experiment.judge import judge, summarise

    raw = _capture_of(received)
    cap = load_capture(out_dir / "exchanges.jsonl", progress=False)
    ids = dict(zip(raw.exchanges["log_id"].astype(object), raw.exchanges["exchange_id"].astype(object)))
    sent = [dict(p, exchange_id=ids.get(p["exchange_id"])) if p["attempts"] else p for p in plan_rows]
    plan = PLAN.from_records(sent)
    answers = _redacted_answers(judge(raw, plan, built, mode=mode, dsh=dsh), api_key)
    summary = summarise(answers, plan)
    comparison = _comparison(summary, answers, [v.name for v in built])
    manifest["comparison"] = comparison
    manifest["verdict"] = verdict_of(summary, comparison, manifest)
    result = ExperimentResult(built, plan, cap, answers, summary, comparison, manifest, out_dir)
    _write(out_dir, result)
    return result


def _capture_of(records: list[dict[str, Any]]) -> Capture:
    """The records read as the JSONL reader reads ``exchanges.jsonl`` (the same exchange ids), unredacted."""
    from toolkit.capture.load import Builder
    from toolkit.sources.jsonl.lines import records as jsonl_records
    from toolkit.wire.records import EntryCount

    builder = Builder(redact=False)
    lines, offset = [], 0
    for n, rec in enumerate(records, start=1):
        raw = (json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        lines.append((n, offset, raw))
        offset += len(raw)
    counted = [0]
    for item in jsonl_records(lines, "exchanges.jsonl", counted):
        builder.add(item, "jsonl")
    builder.add(EntryCount("exchanges.jsonl", "line", counted[0]), "jsonl")
    return builder.build()


def _redacted_answers(answers: pd.DataFrame, api_key: str | None) -> pd.DataFrame:
    """The judged answers as they may be kept: the key replaced (``redact_key``) and secrets redacted in
    the arguments and the texts, as the capture reader redacts what it reads."""
    out = answers.copy()

    def text(v: Any) -> Any:
        return v if not isinstance(v, str) else redact_text(redact_key(v, api_key))

    def obj(v: Any) -> Any:
        if not isinstance(v, (dict, list)):
            return v
        return redact_obj(json.loads(redact_key(json.dumps(v, ensure_ascii=False), api_key)))

    for col in ("error", "rule"):
        out[col] = [text(v) for v in out[col]]
    out["arguments"] = [obj(v) for v in out["arguments"]]
    return ANSWERS.conform(out)


def verdict_of(summary: pd.DataFrame, comparison: dict[str, Any] | None, manifest: dict[str, Any]) -> str:
    """The run's verdict, defined once: ``stopped`` when the endpoint ended it (3xx, 401/403/404, failures
    in a row), ``inconclusive`` when nothing could be judged on a side of the comparison (or, with one
    variant, on it), else ``measured`` (whatever the comparison says)."""
    if manifest.get("stopped"):
        return "stopped"
    if comparison is not None:
        return "measured" if comparison.get("p") is not None else "inconclusive"
    judged = summary["judged"].fillna(0)
    return "measured" if len(judged) and bool((judged > 0).all()) else "inconclusive"


def _comparison(summary: pd.DataFrame, answers: pd.DataFrame, names: list[str]) -> dict[str, Any] | None:
    """strict-absent against strict-false when both ran, else the first two variants; a side without a
    judged call says why (``judge.nothing_judged``)."""
    from toolkit.experiment.judge import compare, nothing_judged

    if "strict-absent" in names and "strict-false" in names:
        a, b = "strict-absent", "strict-false"
    elif len(names) >= 2:
        a, b = names[0], names[1]
    else:
        return None
    return compare(summary, a, b, why={x: nothing_judged(answers, x) for x in (a, b)})


def _csv_ready(df: pd.DataFrame) -> pd.DataFrame:
    out = df.copy()
    for col in _OBJECT_COLUMNS:
        if col in out.columns:
            out[col] = [
                None if v is None or (not isinstance(v, (tuple, list, dict)) and pd.isna(v)) else _json(v)
                for v in out[col]
            ]
    return out


def _json(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False, sort_keys=False)


def _write(out_dir: Path, result: ExperimentResult) -> None:
    """Each data file written whole (a temporary file renamed over it), experiment.json last: a folder
    with experiment.json is a finished record, one without it is a run that did not get to the end."""
    files = {
        "plan.csv": result.plan.to_csv(index=False),
        "changes.csv": result.changes.to_csv(index=False),
        "answers.csv": _csv_ready(result.answers).to_csv(index=False),
        "summary.csv": result.summary.to_csv(index=False),
        "experiment.json": json.dumps(result.manifest, indent=2, ensure_ascii=False, default=_jsonable) + "\n",
    }
    for name, text in files.items():
        tmp = out_dir / f".{name}.partial"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out_dir / name)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (pd.Timestamp, datetime)):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if value is pd.NA:
        return None
    return str(value)


def _read_csv(path: Path, frame) -> pd.DataFrame:
    """A CSV the run wrote, every column read as its declared type (text stays text: ``true`` is no bool)."""
    dtypes = {c: ("Int64" if d == "Int64" else "string") for c, d in frame.columns.items()}
    return frame.conform(pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=[""]))


def _read_answers(path: Path) -> pd.DataFrame:
    """answers.csv as the run judged it: its tuple and dict columns parsed back from their JSON text."""
    dtypes = {c: "string" for c in ANSWERS.columns if c not in _OBJECT_COLUMNS}
    dtypes.update({c: "Int64" for c, d in ANSWERS.columns.items() if d == "Int64"})
    df = pd.read_csv(path, dtype=dtypes, keep_default_na=False, na_values=[""])
    for col in _OBJECT_COLUMNS:
        values = [None if pd.isna(v) else json.loads(v) for v in df[col].astype(object)]
        df[col] = values if col == "arguments" else [tuple(v) if isinstance(v, list) else () for v in values]
    return ANSWERS.conform(df)


def load(out_dir: str | os.PathLike[str]) -> ExperimentResult:
    """A finished (or interrupted) experiment read back from its folder: the capture from
    exchanges.jsonl, judged again with the recorded mode and DSH version, so the answers are the
    toolkit's current reading of the same wire evidence. When the key had to be replaced in some
    records (``key_replaced_in``: a key that is also a word of the answers), their written text is not
    what came back, so the answers are the ones judged as received, from answers.csv."""
    from toolkit.experiment.judge import judge, summarise

    folder = Path(out_dir)
    manifest_path = folder / "experiment.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if (folder / "exchanges.jsonl").is_file():
            raise InputError(
                f"{folder}: an experiment that did not finish writing its record (no experiment.json); "
                "exchanges.jsonl holds what was sent and reads as a capture"
            ) from None
        raise InputError(f"{folder}: not an experiment folder (no experiment.json)") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{manifest_path}: cannot read the manifest: {exc}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("variants"), list):
        raise InputError(f"{manifest_path}: not an experiment manifest (no variants list)")
    try:
        plan = _read_csv(folder / "plan.csv", PLAN)
        changes = _read_csv(folder / "changes.csv", CHANGES)
    except FileNotFoundError as exc:
        raise InputError(f"{folder}: {Path(str(exc.filename)).name} is missing") from None
    except ValueError as exc:
        raise InputError(f"{folder}: a data file does not have its declared columns: {exc}") from None
    cap = load_capture(folder / "exchanges.jsonl", keep_bodies=True, progress=False)
    bodies = dict(zip(cap.bodies["exchange_id"], cap.bodies["request"]))
    built = []
    for name in manifest["variants"]:
        rows = plan[(plan["variant"] == name) & plan["exchange_id"].notna()]
        body = bodies.get(rows.iloc[0]["exchange_id"]) if len(rows) else None
        ch = changes[changes["variant"] == name].reset_index(drop=True)
        built.append(variants_mod.Variant(name, body if isinstance(body, dict) else {}, ch, ch.empty))
    if manifest.get("key_replaced_in"):
        answers = _read_answers(folder / "answers.csv")
    else:
        answers = judge(cap, plan, built, mode=manifest.get("mode"), dsh=manifest.get("dsh") or DEFAULT_DSH)
    summary = summarise(answers, plan)
    comparison = _comparison(summary, answers, [v.name for v in built])
    manifest["verdict"] = verdict_of(summary, comparison, manifest)
    return ExperimentResult(built, plan, cap, answers, summary, comparison, manifest, folder)
