"""The experiment's only network I/O: one POST per attempt with the standard library's ``http.client``.

Why so plain: what is sent must be exactly the variant's body, and what comes back must be recorded as
the wire carried it. No redirect is ever followed (a 3xx is the answer and is recorded), a 429 is
retried after the wait the server asks for (``retry-after-ms``, ``retry-after`` in seconds or as an
HTTP date; capped), each request has a deadline, and requests are spaced by a rate limit. Every
attempt becomes one line of the toolkit's canonical JSONL shape (``toolkit.sources.jsonl.canonical``),
headers and bodies redacted and the key replaced, so the experiment is itself a capture.

What is no answer is said so (``Attempt.failure``): a refused connection, a timeout, a 3xx, a 401/403/404,
a 5xx, a 200 that carries no JSON answer. The run stops at once on the statuses that would be the same for
every request (``FATAL``) and after ``FAILURES_IN_A_ROW`` others. The key is replaced in what is written
without breaking its structure (``redact_key``: in JSON and SSE only string values change), so a key that
happens to equal a common word cannot turn a recorded answer into a different one; the run judges the
answer as it came (``Attempt.received``) and writes it redacted.
"""

from __future__ import annotations

import base64
import email.utils
import http.client
import ipaddress
import json
import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import SplitResult, urlsplit, urlunsplit

from toolkit.capture.redact import REDACTED, redact_header, redact_text
from toolkit.errors import InputError
from toolkit.knowledge.messages import Message
from toolkit.wire.envelopes import decode_error_body

__all__ = [
    "FAILURES_IN_A_ROW",
    "FATAL",
    "MAX_WAIT_S",
    "Attempt",
    "Limits",
    "Sender",
    "error_text",
    "is_loopback",
    "redact_key",
    "redact_url",
    "retry_wait",
    "toolkit_version",
    "user_agent",
]

#: The longest wait a 429 can ask for before the next attempt (longer asks are capped).
MAX_WAIT_S = 60.0
#: Statuses that say the endpoint or the key is wrong: every further request would get the same, so the
#: run stops at the first (3xx too: a redirect is never followed).
FATAL = (401, 403, 404)
#: Attempts in a row without an answer (no connection, a timeout, a 5xx, a 200 without a JSON answer)
#: after which the run stops: a broken endpoint is not a result.
FAILURES_IN_A_ROW = 3
#: Query parameters whose value is a credential (``?api-key=``, ``?key=``, ``?access_token=``, ``?sig=``).
_URL_SECRET = re.compile(r"(?i)key|token|secret|passw|sig|auth|credential")
#: Response headers the reader needs verbatim (the key is never replaced in these: it would misread them).
_PROTOCOL_HEADERS = frozenset(
    {"content-type", "content-length", "content-encoding", "transfer-encoding", "connection", "date"}
)

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
        # finite as well as positive: inf requests per second is no pacing at all, an infinite timeout
        # no deadline (and an OverflowError in the socket layer), nan compares false with everything
        if not (math.isfinite(self.rate) and self.rate > 0):
            raise InputError(f"rate {self.rate!r}: requests per second must be a finite number more than 0")
        if not (math.isfinite(self.timeout) and self.timeout > 0):
            raise InputError(f"timeout {self.timeout!r}: seconds must be a finite number more than 0")
        if self.retries < 0:
            raise InputError(f"retries {self.retries!r}: must be 0 or more")
        if self.max_requests < 1:
            raise InputError(f"max_requests {self.max_requests!r}: must be 1 or more")


@dataclass
class Attempt:
    """One request sent and what came back: ``record`` is its canonical JSONL line (redacted), ``received``
    the same line with the answer as it came (judged in memory, never written)."""

    record: dict[str, Any]
    status: int | None  # None: no HTTP answer (timeout, refused connection)
    error: str | None  # why no (whole) answer came back: a timeout, a refused connection
    wait: float | None = None  # for a 429: the seconds the server asked for (capped), else None
    headers: list[tuple[str, str]] = field(default_factory=list, repr=False)  # the response's, as received
    received: dict[str, Any] = field(default_factory=dict, repr=False)
    failure: str | None = None  # why this is no answer to judge (a Message, the endpoint's text in it), else None
    fatal: bool = False  # the failure would repeat on every request (3xx, 401, 403, 404)
    interrupted: bool = False  # Ctrl-C came while the request was in flight
    key_replaced: bool = False  # the key occurred in what was sent or received, and was replaced in ``record``


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is this machine (127.0.0.0/8, ::1, ``localhost``): only there may a key go over http."""
    if not host:
        return False
    if host.lower().rstrip(".") == "localhost" or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def redact_url(url: str | None) -> str | None:
    """``url`` as it may be written or shown: a ``user:password@`` replaced, and the value of every query
    parameter that names a credential (``api-key``, ``key``, ``token``, ``sig``, …), then the usual secret
    patterns. The request itself goes to the URL as given."""
    if not url:
        return url
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{REDACTED}@{netloc.rpartition('@')[2]}"
    query = "&".join(_redact_param(p) for p in parts.query.split("&")) if parts.query else ""
    return redact_text(urlunsplit(SplitResult(parts.scheme, netloc, parts.path, query, parts.fragment))) or ""


def _redact_param(pair: str) -> str:
    name, eq, value = pair.partition("=")
    return f"{name}={REDACTED}" if eq and value and _URL_SECRET.search(name) else pair


def redact_key(text: str, key: str | None) -> str:
    """``text`` with ``key`` replaced by ``<redacted>`` without changing what the text says otherwise.

    A plain replace would rewrite JSON itself when the key is a word the wire also uses (``false``,
    ``command``, ``type``): here, in a JSON text or the ``data:`` lines of an SSE stream only string values
    change (object keys and event names are the protocol's words and stay); other text is replaced as is.
    What a string value says can still change (a call's arguments are a string): the run judges the
    answers as received, and says which records had the key replaced (``key_replaced_in``). A key split
    across two stream deltas is in neither whole and is not found.
    Text without the key comes back unchanged, byte for byte."""
    if not key or key not in text:
        return text
    try:
        return _dumps(_strings_without(json.loads(text), key))
    except ValueError:
        pass
    if text.lstrip().startswith(("event:", "data:", ":", "id:")):
        return "\n".join(_sse_line(line, key) for line in text.split("\n"))
    return text.replace(key, REDACTED)


def _sse_line(line: str, key: str) -> str:
    if not line.startswith("data:") or key not in line:
        return line
    payload = line[len("data:") :].lstrip(" ")
    try:
        return "data: " + _dumps(_strings_without(json.loads(payload), key))
    except ValueError:
        return line.replace(key, REDACTED)


def _strings_without(value: Any, key: str) -> Any:
    if isinstance(value, str):
        return value.replace(key, REDACTED)
    if isinstance(value, dict):
        return {k: _strings_without(v, key) for k, v in value.items()}
    if isinstance(value, list):
        return [_strings_without(v, key) for v in value]
    return value


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def error_text(body: str | None, *, limit: int = 300) -> str:
    """What an error answer says, for a person, on one line: the envelope's message as
    ``toolkit.wire.envelopes`` reads it (the one reading of error bodies: OpenAI's, Anthropic's, a
    gateway's ``detail`` or bare ``error``), else the body itself; at most ``limit`` characters."""
    message = decode_error_body(body)[2]
    flat = " ".join((message or body or "").split())
    return flat[:limit] + ("…" if len(flat) > limit else "")


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
        if wait is not None and wait >= 0:  # nan is not >= 0: unusable, as text is
            return min(wait, cap)
    after = values.get("retry-after")
    if not after:
        return None
    try:
        wait = float(after)
        if math.isnan(wait):  # "nan" parses as a float; it asks for nothing usable
            return None
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
        self.in_flight = False  # True while a request is on the wire (the run's Ctrl-C handler reads it)
        self._last_start: float | None = None

    # -- what is recorded --

    def scrub(self, text: str) -> str:
        """A string as it may be written: the key replaced without changing its structure
        (``redact_key``), other secrets redacted."""
        return redact_text(redact_key(text, self.api_key)) or ""

    def _headers_for_record(self, pairs: list[tuple[str, str]]) -> list[list[str]]:
        return [
            [name, value if name.lower() in _PROTOCOL_HEADERS else self.scrub(redact_header(name, value) or "")]
            for name, value in pairs
        ]

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
        wait = at_least if math.isfinite(at_least) else 0.0
        if self._last_start is not None:
            wait = max(wait, self._last_start + 1.0 / self.limits.rate - self.clock())
        if wait > 0:
            self.sleep(wait)

    def attempt(
        self, body: dict[str, Any], *, record_id: str, wait: float = 0.0, stop: Callable[[], bool] = lambda: False
    ) -> Attempt | None:
        """One POST of ``body``: the answer read whole (a stream until the server closes it). None when
        ``stop`` says so once the wait is over: nothing is sent after a Ctrl-C, not even a retry."""
        self._pace(wait)
        if stop():
            return None
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        pairs = self.request_headers(body)
        started_wall = self.now()
        start = self._last_start = self.clock()
        self.sent += 1
        status: int | None = None
        resp_pairs: list[tuple[str, str]] = []
        chunks: list[bytes] = []
        error: str | None = None
        cut: str | None = None
        interrupted = False
        deadline = start + self.limits.timeout
        conn_cls = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
        path = self.parts.path or "/"
        if self.parts.query:
            path += "?" + self.parts.query
        self.in_flight = True  # a second Ctrl-C now ends this request (and it is recorded as interrupted)
        try:
            conn = conn_cls(self.host, self.parts.port, timeout=self.limits.timeout)
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
                got = sum(len(c) for c in chunks)
                cut = f"the answer was cut after {got} of {got + (exc.expected or 0)} bytes"
            except (OSError, http.client.HTTPException) as exc:
                error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            finally:
                conn.close()
        except KeyboardInterrupt:  # the second Ctrl-C: what came so far is recorded, then the run stops
            interrupted = True
            error = "interrupted (Ctrl-C) before the answer was read whole"
        finally:
            self.in_flight = False
        raw = b"".join(chunks)
        duration_ms = round((self.clock() - start) * 1000.0, 1)
        received: dict[str, Any] = {
            "id": record_id,
            "started_at": _iso(started_wall),
            "duration_ms": duration_ms,
            "request": {
                "method": "POST",
                "url": redact_url(self.url),
                "headers": [[n, redact_header(n, v) or ""] for n, v in pairs]
                + [["content-length", str(len(data.encode("utf-8")))]],
                "body": data,
            },
        }
        text: str | None = None
        if error is not None and status is None:
            # status 0 is how the canonical reader is told no answer came (problem `no-response`)
            received["response"] = {"status": 0, "headers": [], "body": None}
            received["error"] = error
        else:
            response: dict[str, Any] = {"status": status, "headers": [list(p) for p in resp_pairs]}
            coding = next((v for n, v in resp_pairs if n.lower() == "content-encoding"), "")
            try:
                if coding and coding.lower() != "identity":
                    raise UnicodeDecodeError("utf-8", raw, 0, 0, "content-encoded")
                text = raw.decode("utf-8")
                response["body"] = text
            except UnicodeDecodeError:
                response["body"] = base64.b64encode(raw).decode("ascii")
                response["body_encoding"] = "base64"
            received["response"] = response
            if error is not None:  # an answer began and then failed (e.g. timed out mid-stream)
                received["error"] = error
        record = self._redacted(received)
        failure, fatal = self._failure(status, error, cut, text, resp_pairs, body.get("stream") is True)
        wait_s = retry_wait(resp_pairs, self.now()) if status == 429 else None
        return Attempt(
            record,
            status,
            error,
            wait_s,
            resp_pairs,
            received=received,
            failure=failure,
            fatal=fatal,
            interrupted=interrupted,
            key_replaced=self.api_key is not None and self.api_key in json.dumps(received, ensure_ascii=False),
        )

    def _redacted(self, received: dict[str, Any]) -> dict[str, Any]:
        """The line as written: every string redacted, the key replaced (``redact_key``) in bodies and headers."""
        out = json.loads(json.dumps(received))
        req, resp = out["request"], out["response"]
        req["headers"] = self._headers_for_record([(n, v) for n, v in req["headers"]])
        req["body"] = self.scrub(req["body"])
        resp["headers"] = self._headers_for_record([(n, v) for n, v in resp["headers"]])
        if isinstance(resp.get("body"), str) and resp.get("body_encoding") != "base64":
            resp["body"] = self.scrub(resp["body"])
        if "error" in out:
            out["error"] = self.scrub(out["error"])
        return out

    def _failure(
        self,
        status: int | None,
        error: str | None,
        cut: str | None,
        text: str | None,
        headers: list[tuple[str, str]],
        stream: bool,
    ) -> tuple[str | None, bool]:
        """(why this attempt is no answer to judge, whether every request would get the same), or (None, False).

        The why is a ``Message`` (English as a str, the endpoint's own text verbatim in it, the key
        replaced); a connection's error is the socket's text, as recorded."""
        if status is None:
            return self.scrub(error or "no answer"), False
        said = self.scrub(error_text(text))
        text_of = Message("experiment.failure.said", said=said) if said else ""
        if 300 <= status < 400:
            where = next((v for n, v in headers if n.lower() == "location"), "")
            if where:
                return Message("experiment.failure.redirect_to", status=status, where=redact_url(where)), True
            return Message("experiment.failure.redirect", status=status), True
        if status in FATAL or status >= 500:
            return Message("experiment.failure.status", status=status, said=text_of), status in FATAL
        if 200 <= status < 300 and error is None:
            kind = next((v for n, v in headers if n.lower() == "content-type"), "").lower()
            if cut:
                return cut, False
            if not _is_json_answer(text, kind, stream):
                key = "experiment.failure.not_json_kind" if kind else "experiment.failure.not_json"
                return Message(key, status=status, kind=kind, said=text_of), False
        return None, False

    def send(
        self,
        body: dict[str, Any],
        *,
        record_id: str,
        may_retry: Callable[[], bool] = lambda: True,
        stop: Callable[[], bool] = lambda: False,
    ) -> list[Attempt]:
        """``body`` sent until it is answered with something other than 429, or the retries (or
        ``may_retry``: the run's budget) run out. Every attempt is returned, in order; none is made once
        ``stop`` is true (checked after each wait, right before sending), and none after an interrupted one."""
        first = self.attempt(body, record_id=f"{record_id}-a1", stop=stop)
        if first is None:
            return []
        attempts = [first]
        backoff = 1.0
        while (
            attempts[-1].status == 429
            and not attempts[-1].interrupted
            and len(attempts) <= self.limits.retries
            and may_retry()
        ):
            asked = attempts[-1].wait
            wait = asked if asked is not None else min(backoff, MAX_WAIT_S)
            backoff *= 2
            nxt = self.attempt(body, record_id=f"{record_id}-a{len(attempts) + 1}", wait=wait, stop=stop)
            if nxt is None:
                break
            attempts.append(nxt)
        return attempts


def _is_json_answer(text: str | None, content_type: str, stream: bool) -> bool:
    """Whether a 2xx body is an answer the toolkit reads: a JSON object, or (for a stream) an SSE body."""
    if text is None:
        return False
    if stream and ("event-stream" in content_type or text.lstrip().startswith(("event:", "data:", ":"))):
        return True
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
