"""The experiment's only network I/O: one POST per attempt with the standard library's ``http.client``.

Why so plain: what is sent must be exactly the variant's body, and what comes back must be recorded as
the wire carried it. No redirect is ever followed (a 3xx is the answer and is recorded), a 429 is
retried after the wait the server asks for (``retry-after-ms``, ``retry-after`` in seconds or as an
HTTP date; capped), each request has a deadline, and requests are spaced by a rate limit. Every
attempt becomes one line of the toolkit's canonical JSONL shape (``toolkit.sources.jsonl.canonical``),
headers and bodies redacted and the key replaced, so the experiment is itself a capture.
"""

from __future__ import annotations

import base64
import email.utils
import http.client
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from toolkit.capture.redact import REDACTED, redact_header, redact_text
from toolkit.errors import InputError

__all__ = ["MAX_WAIT_S", "Attempt", "Limits", "Sender", "retry_wait", "toolkit_version", "user_agent"]

#: The longest wait a 429 can ask for before the next attempt (longer asks are capped).
MAX_WAIT_S = 60.0

_READ_CHUNK = 65536


def toolkit_version() -> str:
    """The toolkit's ``__version__``, read from the loaded top package (always imported before any of its
    modules) rather than imported: nothing below ``present`` imports the package's lazy face."""
    return str(getattr(sys.modules["toolkit"], "__version__", "unknown"))


def user_agent() -> str:
    """``agent-contract-toolkit/<version> experiment``: the server can tell the replay from the agent."""
    return f"agent-contract-toolkit/{toolkit_version()} experiment"


@dataclass(frozen=True)
class Limits:
    """How hard the experiment may push the endpoint: requests per second, seconds per request,
    retries of a 429, and the most requests (retries included) the whole run may send."""

    rate: float = 1.0
    timeout: float = 60.0
    retries: int = 3
    max_requests: int = 50

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise InputError(f"rate {self.rate!r}: requests per second must be more than 0")
        if not self.timeout > 0:
            raise InputError(f"timeout {self.timeout!r}: seconds must be more than 0")
        if self.retries < 0:
            raise InputError(f"retries {self.retries!r}: must be 0 or more")
        if self.max_requests < 1:
            raise InputError(f"max_requests {self.max_requests!r}: must be 1 or more")


@dataclass
class Attempt:
    """One request sent and what came back: ``record`` is its canonical JSONL line (redacted)."""

    record: dict[str, Any]
    status: int | None  # None: no HTTP answer (timeout, refused connection)
    error: str | None  # why no (whole) answer came back: a timeout, a refused connection
    wait: float | None = None  # for a 429: the seconds the server asked for (capped), else None
    headers: list[tuple[str, str]] = field(default_factory=list, repr=False)  # the response's, as received


def retry_wait(headers: list[tuple[str, str]], now: datetime, *, cap: float = MAX_WAIT_S) -> float | None:
    """The wait a 429 asks for: ``retry-after-ms`` first (OpenAI's SDKs read it first), then
    ``retry-after`` as seconds or an HTTP date (against the response's own ``date`` when it has one);
    capped at ``cap``. None when neither header says anything usable."""
    values = {name.lower(): value.strip() for name, value in headers}
    ms = values.get("retry-after-ms")
    if ms:
        try:
            wait = float(ms) / 1000.0
        except ValueError:
            wait = None
        if wait is not None and wait >= 0:
            return min(wait, cap)
    after = values.get("retry-after")
    if not after:
        return None
    try:
        wait = float(after)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(after)
        except (TypeError, ValueError):
            return None
        base = now
        if values.get("date"):
            try:
                base = email.utils.parsedate_to_datetime(values["date"])
            except (TypeError, ValueError):
                base = now
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        if base.tzinfo is None:
            base = base.replace(tzinfo=UTC)
        wait = (when - base).total_seconds()
    return min(max(wait, 0.0), cap)


def _iso(dt: datetime) -> str:
    return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Sender:
    """Sends bodies to one endpoint, spacing attempts by ``limits.rate`` and retrying 429s.

    ``clock`` (monotonic seconds), ``sleep`` and ``now`` (wall time, for records and HTTP dates) are
    injectable so tests neither wait nor depend on the time of day. ``api_key`` goes into
    ``authorization: Bearer`` and nowhere else: every recorded string has it replaced.
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None,
        limits: Limits,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ):
        parts = urlsplit(url)
        try:
            parts.port  # noqa: B018  (a bad port raises here, not at the first request)
        except ValueError as exc:
            raise InputError(f"endpoint {url!r}: {exc}") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError(f"endpoint {url!r}: an http:// or https:// URL with a host is needed")
        self.url = url
        self.parts = parts
        self.host: str = parts.hostname
        self.api_key = api_key or None
        self.limits = limits
        self.clock, self.sleep, self.now = clock, sleep, now
        self.sent = 0  # attempts made
        self._last_start: float | None = None

    # -- what is recorded --

    def scrub(self, text: str) -> str:
        """A string as it may be written: the key replaced wherever it occurs, other secrets redacted."""
        if self.api_key:
            text = text.replace(self.api_key, REDACTED)
        return redact_text(text) or ""

    def _headers_for_record(self, pairs: list[tuple[str, str]]) -> list[list[str]]:
        return [[name, self.scrub(redact_header(name, value) or "")] for name, value in pairs]

    def request_headers(self, body: dict[str, Any]) -> list[tuple[str, str]]:
        """Only these headers are sent; never the captured ones (they carry the agent's session and key)."""
        stream = body.get("stream") is True
        pairs = [
            ("content-type", "application/json"),
            ("accept", "text/event-stream" if stream else "application/json"),
            ("user-agent", user_agent()),
        ]
        if self.api_key:
            pairs.append(("authorization", f"Bearer {self.api_key}"))
        return pairs

    # -- sending --

    def _pace(self, at_least: float = 0.0) -> None:
        """Wait until the rate limit (and ``at_least`` seconds, for a 429) allow the next attempt."""
        wait = at_least
        if self._last_start is not None:
            wait = max(wait, self._last_start + 1.0 / self.limits.rate - self.clock())
        if wait > 0:
            self.sleep(wait)

    def attempt(self, body: dict[str, Any], *, record_id: str, wait: float = 0.0) -> Attempt:
        """One POST of ``body``: the answer read whole (a stream until the server closes it)."""
        self._pace(wait)
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        pairs = self.request_headers(body)
        started_wall = self.now()
        start = self._last_start = self.clock()
        self.sent += 1
        status: int | None = None
        resp_pairs: list[tuple[str, str]] = []
        chunks: list[bytes] = []
        error: str | None = None
        deadline = start + self.limits.timeout
        conn_cls = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(self.host, self.parts.port, timeout=self.limits.timeout)
        path = self.parts.path or "/"
        if self.parts.query:
            path += "?" + self.parts.query
        try:
            conn.putrequest("POST", path, skip_accept_encoding=True)  # identity: the body as the wire carries it
            encoded = data.encode("utf-8")
            for name, value in pairs:
                conn.putheader(name, value)
            conn.putheader("content-length", str(len(encoded)))
            conn.endheaders(encoded)
            resp = conn.getresponse()
            status, resp_pairs = resp.status, list(resp.getheaders())
            while True:
                left = deadline - self.clock()
                if left <= 0:
                    raise TimeoutError
                if conn.sock is not None:  # the whole answer shares one deadline, not each read
                    conn.sock.settimeout(left)
                chunk = resp.read1(_READ_CHUNK)
                if not chunk:
                    break
                chunks.append(chunk)
        except TimeoutError:  # socket.timeout is TimeoutError
            error = f"timed out after {self.limits.timeout:g} s" + (" reading the answer" if status else "")
        except http.client.IncompleteRead as exc:
            chunks.append(bytes(exc.partial))  # the part that came: a cut answer is evidence too
        except (OSError, http.client.HTTPException) as exc:
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        finally:
            conn.close()
        raw = b"".join(chunks)
        duration_ms = round((self.clock() - start) * 1000.0, 1)
        record: dict[str, Any] = {
            "id": record_id,
            "started_at": _iso(started_wall),
            "duration_ms": duration_ms,
            "request": {
                "method": "POST",
                "url": self.url,
                "headers": self._headers_for_record(pairs + [("content-length", str(len(data.encode("utf-8"))))]),
                "body": self.scrub(data),
            },
        }
        if error is not None and status is None:
            # status 0 is how the canonical reader is told no answer came (problem `no-response`)
            record["response"] = {"status": 0, "headers": [], "body": None}
            record["error"] = self.scrub(error)
        else:
            response: dict[str, Any] = {"status": status, "headers": self._headers_for_record(resp_pairs)}
            coding = next((v for n, v in resp_pairs if n.lower() == "content-encoding"), "")
            try:
                if coding and coding.lower() != "identity":
                    raise UnicodeDecodeError("utf-8", raw, 0, 0, "content-encoded")
                response["body"] = self.scrub(raw.decode("utf-8"))
            except UnicodeDecodeError:
                response["body"] = base64.b64encode(raw).decode("ascii")
                response["body_encoding"] = "base64"
            record["response"] = response
            if error is not None:  # an answer began and then failed (e.g. timed out mid-stream)
                record["error"] = self.scrub(error)
        wait_s = retry_wait(resp_pairs, self.now()) if status == 429 else None
        return Attempt(record, status, error, wait_s, resp_pairs)

    def send(
        self,
        body: dict[str, Any],
        *,
        record_id: str,
        may_retry: Callable[[], bool] = lambda: True,
    ) -> list[Attempt]:
        """``body`` sent until it is answered with something other than 429, or the retries (or
        ``may_retry``: the run's budget) run out. Every attempt is returned, in order."""
        attempts = [self.attempt(body, record_id=f"{record_id}-a1")]
        backoff = 1.0
        while attempts[-1].status == 429 and len(attempts) <= self.limits.retries and may_retry():
            asked = attempts[-1].wait
            wait = asked if asked is not None else min(backoff, MAX_WAIT_S)
            backoff *= 2
            attempts.append(self.attempt(body, record_id=f"{record_id}-a{len(attempts) + 1}", wait=wait))
        return attempts
