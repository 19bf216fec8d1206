"""Run an experiment: one captured request, its variants, each sent N times, everything recorded.

Why it is built this way: the request resent is the captured body and nothing else of the capture
(never its headers: they carry the agent's session and key); variants are sent round-robin so drift
in time hits every variant alike; every attempt is written as a line of the toolkit's own JSONL
shape, so the experiment is a capture the toolkit reads, and it is judged from that file, not from
memory. Safety first: no endpoint means a dry run, images need ``allow_images``, the budget is
checked before anything is sent, and the key comes from an environment variable only and is never
written. The Markdown, HTML and figure are drawn by ``toolkit.present`` (a level above this one).
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
from toolkit.capture.redact import REDACTED, redact_text
from toolkit.errors import InputError
from toolkit.experiment import variants as variants_mod
from toolkit.experiment.frames import ANSWERS, CHANGES, PLAN, SUMMARY
from toolkit.experiment.send import Limits, Sender, toolkit_version
from toolkit.knowledge.dsh_runtime import DEFAULT_VERSION as DEFAULT_DSH
from toolkit.knowledge.messages import Message

__all__ = [
    "DEFAULT_VARIANTS",
    "FILES",
    "ExperimentResult",
    "captured_mode",
    "load",
    "run",
]

#: What ``agent-contract experiment`` sends when ``--variants`` is not given.
DEFAULT_VARIANTS = ("strict-absent", "strict-false")

#: The data files a run writes into its folder (the CLI adds experiment.md/.html and refusals.png).
FILES = ("exchanges.jsonl", "plan.csv", "changes.csv", "answers.csv", "summary.csv", "experiment.json")

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


@contextlib.contextmanager
def _stop_on_sigint() -> Iterator[threading.Event]:
    """A first Ctrl-C asks the run to stop after the current request; a second one stops it at once.
    Off the main thread (a notebook's worker, a test) signals cannot be caught: the event stays unset
    and a KeyboardInterrupt simply ends the run where it is."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum, frame):
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        print("\nagent-contract: stopping after the current request (Ctrl-C again to stop now)", file=sys.stderr)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def _progress_line(bar: Progress, text: str, *, final: bool = False) -> None:
    if bar.enabled:
        print(f"\r{bar.line(state=text)}", end="\n" if final else "", file=sys.stderr, flush=True)


def run(
    capture_path: str | os.PathLike[str],
    *,
    exchange: str | None = None,
    endpoint: str | None = None,
    variants: Sequence[str] = DEFAULT_VARIANTS,
    samples: int = 5,
    api_key_env: str | None = None,
    out: str | os.PathLike[str] | None = None,
    dry_run: bool = False,
    allow_images: bool = False,
    limits: Limits | None = None,
    mode: str | None = None,
    dsh: str = DEFAULT_DSH,
    progress: bool | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
    now: Callable[[], datetime] | None = None,
    notice: Callable[[str], None] | None = None,
) -> ExperimentResult:
    """Build ``variants`` of exchange ``exchange`` of the capture, send each ``samples`` times to
    ``endpoint``, record, judge and summarise (see the module docstring for the safety rules).

    ``mode`` defaults to the capture's DSH session mode when it has one. ``clock``/``sleep``/``now``
    are the sender's (tests); ``notice`` receives what is said on stderr (host mismatch)."""
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
    captured_host = urlsplit(captured_url).netloc if captured_url else None
    manifest: dict[str, Any] = {
        "capture": str(capture_path),
        "capture_sha256": _sha256(path) if path.is_file() else None,
        "exchange": exchange_id,
        "api": api,
        "captured_url": redact_text(captured_url) if captured_url else None,
        "endpoint": redact_text(endpoint) if endpoint else None,
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
    sender = Sender(endpoint, api_key=api_key, limits=limits, **_injected(clock, sleep, now))
    target = urlsplit(endpoint).netloc
    if captured_host and target != captured_host:
        say(Message("experiment.notice.other_host", target=target, captured=captured_host))

    keep = out is not None
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
    bar = Progress(f"experiment ({len(plan_rows)} planned)", enabled=progress, unit="requests")
    jsonl = out_dir / "exchanges.jsonl"
    with open(jsonl, "w", encoding="utf-8") as log, _stop_on_sigint() as stop:
        try:
            for n, prow in enumerate(plan_rows):
                if stop.is_set():
                    interrupted = True
                    break
                left_after = len(plan_rows) - n - 1  # planned requests still to send after this one

                def may_retry(left_after: int = left_after) -> bool:
                    # the budget keeps room for every planned request; a Ctrl-C ends the retries too
                    return sender.sent + left_after < limits.max_requests and not stop.is_set()

                rid = f"{prow['variant']}-{prow['sample']}"
                attempts = sender.send(by_name[prow["variant"]].body, record_id=rid, may_retry=may_retry)
                for a in attempts:
                    log.write(json.dumps(a.record, ensure_ascii=False, separators=(",", ":")) + "\n")
                log.flush()
                last = attempts[-1]
                prow.update(exchange_id=last.record["id"], attempts=len(attempts), status=last.status, error=last.error)
                counts["retries"] += len(attempts) - 1
                counts["answered" if last.status is not None else "no_answer"] += 1
                bar.n += 1
                _progress_line(bar, f"{prow['variant']} #{prow['sample']}: {last.status or last.error}")
        except KeyboardInterrupt:
            interrupted = True
    counts["sent"] = sender.sent
    _progress_line(bar, "interrupted" if interrupted else "done", final=True)
    manifest.update(finished=_iso(stamp()), complete=not interrupted, counts=counts)
    if interrupted:
        manifest["interrupted_after"] = sum(1 for p in plan_rows if p["attempts"])
    result = _finish(out_dir, manifest, built, plan_rows, mode, dsh, api_key)
    if not keep:  # everything is in memory by now (the capture was read back): nothing left behind
        shutil.rmtree(out_dir, ignore_errors=True)
        result.out = None
    if interrupted:
        raise KeyboardInterrupt
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
) -> ExperimentResult:
    """Read the recorded exchanges back as a capture, judge them, and write the data files."""
    from toolkit.experiment.judge import judge, summarise

    cap = load_capture(out_dir / "exchanges.jsonl", progress=False)
    ids = dict(zip(cap.exchanges["log_id"].astype(object), cap.exchanges["exchange_id"].astype(object)))
    sent = [dict(p, exchange_id=ids.get(p["exchange_id"])) if p["attempts"] else p for p in plan_rows]
    plan = PLAN.from_records(sent)
    answers = judge(cap, plan, built, mode=mode, dsh=dsh)
    summary = summarise(answers, plan)
    comparison = _comparison(summary, [v.name for v in built])
    manifest["comparison"] = comparison
    result = ExperimentResult(built, plan, cap, answers, summary, comparison, manifest, out_dir)
    _write(out_dir, result, api_key)
    return result


def _comparison(summary: pd.DataFrame, names: list[str]) -> dict[str, Any] | None:
    """strict-absent against strict-false when both ran, else the first two variants."""
    from toolkit.experiment.judge import compare

    if "strict-absent" in names and "strict-false" in names:
        a, b = "strict-absent", "strict-false"
    elif len(names) >= 2:
        a, b = names[0], names[1]
    else:
        return None
    return compare(summary, a, b)


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


def _write(out_dir: Path, result: ExperimentResult, api_key: str | None) -> None:
    def scrub(text: str) -> str:
        return text.replace(api_key, REDACTED) if api_key else text

    files = {
        "plan.csv": result.plan.to_csv(index=False),
        "changes.csv": result.changes.to_csv(index=False),
        "answers.csv": _csv_ready(result.answers).to_csv(index=False),
        "summary.csv": result.summary.to_csv(index=False),
        "experiment.json": json.dumps(result.manifest, indent=2, ensure_ascii=False, default=_jsonable) + "\n",
    }
    for name, text in files.items():
        (out_dir / name).write_text(scrub(text), encoding="utf-8")


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


def load(out_dir: str | os.PathLike[str]) -> ExperimentResult:
    """A finished (or interrupted) experiment read back from its folder: the capture from
    exchanges.jsonl, judged again with the recorded mode and DSH version, so the answers are the
    toolkit's current reading of the same wire evidence."""
    from toolkit.experiment.judge import judge, summarise

    folder = Path(out_dir)
    manifest_path = folder / "experiment.json"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
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
    answers = judge(cap, plan, built, mode=manifest.get("mode"), dsh=manifest.get("dsh") or DEFAULT_DSH)
    summary = summarise(answers, plan)
    comparison = _comparison(summary, [v.name for v in built])
    return ExperimentResult(built, plan, cap, answers, summary, comparison, manifest, folder)
