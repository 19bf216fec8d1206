"""The experiment's sender against tiny servers on 127.0.0.1: what is sent, what is recorded (as the
toolkit's canonical JSONL, which the loader reads back), no redirect followed, 429 waits honoured,
timeouts recorded as no answer, the rate limit, and the key never in a record."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from toolkit.capture import load_capture
from toolkit.errors import InputError
from toolkit.experiment.send import MAX_WAIT_S, Limits, Sender, retry_wait, user_agent

KEY = "sk-lab-FAKE-1111111111111111111111111111"
PLAIN_KEY = "plainkey-without-pattern"  # a key no redaction pattern knows: replaced all the same
BODY = {"model": "gw-coder", "input": "hi", "stream": False}
NOW = datetime(2026, 12, 1, 12, 0, 0, tzinfo=UTC)


class Script:
    """A server answering each request with the next scripted reply ``(status, headers, body, delay)``.

    ``delay`` ``"hold"`` answers only once the test is over (``close``), and ``"stall-body"`` sends the
    headers and a first frame, then nothing until then: the client's timeout fires however slowly the
    machine runs, with no race between a sleep and the timeout."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.seen: list[dict] = []
        self.released = threading.Event()
        script = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                data = self.rfile.read(length)
                script.seen.append({"path": self.path, "headers": dict(self.headers.items()), "body": data})
                status, headers, body, delay = script.replies[min(len(script.seen), len(script.replies)) - 1]
                if delay == "stall-body":  # headers, part of the body, then nothing
                    self.send_response_only(status)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("connection", "close")
                    self.end_headers()
                    self.wfile.write(b"event: response.created\ndata: {}\n\n")
                    self.wfile.flush()
                    script.released.wait(60)
                    return
                if delay == "hold":
                    script.released.wait(60)
                else:
                    time.sleep(delay)
                raw = body.encode() if isinstance(body, str) else body
                self.send_response_only(status)
                for k, v in {"content-type": "application/json", "content-length": str(len(raw)), **headers}.items():
                    self.send_header(k, v)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError):  # the client gave up (the timeout tests)
                    self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1/responses"

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve():
    started = []

    def start(*replies):
        s = Script(replies)
        started.append(s)
        return s

    yield start
    for s in started:
        s.close()


class FakeTime:
    def __init__(self):
        self.t = 100.0
        self.slept: list[float] = []

    def clock(self):
        return self.t

    def sleep(self, s):
        self.slept.append(round(s, 6))
        self.t += s


def sender(url, fake=None, key=KEY, **limits):
    fake = fake or FakeTime()
    return Sender(url, api_key=key, limits=Limits(**limits), clock=fake.clock, sleep=fake.sleep, now=lambda: NOW)


def reload(tmp_path, attempts):
    path = tmp_path / "exchanges.jsonl"
    path.write_text("".join(json.dumps(a.record) + "\n" for a in attempts))
    return path, load_capture(path, progress=False)


def test_sends_only_its_own_headers_and_records_a_canonical_line(serve, tmp_path):
    ok = json.dumps({"id": "resp_1", "object": "response", "status": "completed", "output": []})
    s = serve((200, {"x-request-id": "req_1"}, ok, 0))
    [a] = sender(s.url).send(BODY, record_id="strict-false-1")
    seen = s.seen[0]
    assert json.loads(seen["body"]) == BODY
    assert seen["headers"]["authorization"] == f"Bearer {KEY}"
    assert seen["headers"]["user-agent"] == user_agent()
    assert seen["headers"]["accept"] == "application/json"
    assert "accept-encoding" not in {k.lower() for k in seen["headers"]}
    assert a.status == 200 and a.error is None
    rec = a.record
    assert rec["id"] == "strict-false-1-a1" and rec["started_at"] == "2026-12-01T12:00:00.000Z"
    assert dict(rec["request"]["headers"])["authorization"] == "<redacted>"
    assert rec["response"]["body"] == ok
    path, cap = reload(tmp_path, [a])
    assert KEY not in path.read_text()
    row = cap.exchanges.iloc[0]
    assert (row["status"], row["api"], row["terminal"], row["log_id"]) == (200, "responses", "completed", rec["id"])
    assert cap.problems.empty


def test_without_a_key_no_authorization_is_sent(serve):
    s = serve((200, {}, "{}", 0))
    sender(s.url, key=None).send(BODY, record_id="x")
    assert "authorization" not in {k.lower() for k in s.seen[0]["headers"]}


def test_a_stream_is_recorded_as_its_wire_text(serve):
    sse = "event: response.created\ndata: {}\n\nevent: response.completed\ndata: {}\n\n"
    s = serve((200, {"content-type": "text/event-stream"}, sse, 0))
    [a] = sender(s.url).send({**BODY, "stream": True}, record_id="s")
    assert s.seen[0]["headers"]["accept"] == "text/event-stream"
    assert a.record["response"]["body"] == sse


def test_a_redirect_is_the_answer_and_is_not_followed(serve, tmp_path):
    other = serve((200, {}, "{}", 0))
    s = serve((307, {"location": other.url}, "", 0))
    attempts = sender(s.url).send(BODY, record_id="r")
    assert [a.status for a in attempts] == [307]
    assert other.seen == []
    assert dict(attempts[0].record["response"]["headers"])["location"] == other.url
    _, cap = reload(tmp_path, attempts)
    assert cap.exchanges.iloc[0]["status"] == 307


def test_429_waits_for_retry_after_then_retries(serve):
    fake = FakeTime()
    s = serve((429, {"retry-after": "2"}, '{"error": {"message": "slow down"}}', 0), (200, {}, "{}", 0))
    attempts = sender(s.url, fake, rate=1000.0).send(BODY, record_id="q")
    assert [a.status for a in attempts] == [429, 200]
    assert [a.record["id"] for a in attempts] == ["q-a1", "q-a2"]
    assert fake.slept == [2.0]
    assert len(s.seen) == 2


def test_retries_stop_at_the_limit_and_each_attempt_is_recorded(serve):
    fake = FakeTime()
    s = serve((429, {"retry-after-ms": "1500", "retry-after": "9"}, "{}", 0))
    attempts = sender(s.url, fake, rate=1000.0, retries=2).send(BODY, record_id="q")
    assert [a.status for a in attempts] == [429, 429, 429]
    assert fake.slept == [1.5, 1.5]  # retry-after-ms is read before retry-after


def test_retries_stop_when_the_budget_says_so(serve):
    s = serve((429, {"retry-after": "1"}, "{}", 0))
    attempts = sender(s.url, rate=1000.0, retries=3).send(BODY, record_id="q", may_retry=lambda: False)
    assert len(attempts) == 1


def test_retry_wait_reads_seconds_dates_and_caps():
    assert retry_wait([("Retry-After", "3")], NOW) == 3.0
    assert retry_wait([("retry-after-ms", "250")], NOW) == 0.25
    assert retry_wait([("retry-after", "Tue, 01 Dec 2026 12:00:05 GMT")], NOW) == 5.0
    # against the response's own date when it sent one
    when = [("retry-after", "Tue, 01 Dec 2026 12:00:05 GMT"), ("date", "Tue, 01 Dec 2026 12:00:04 GMT")]
    assert retry_wait(when, NOW) == 1.0
    assert retry_wait([("retry-after", "3600")], NOW) == MAX_WAIT_S
    assert retry_wait([("retry-after", "Tue, 01 Dec 2026 11:00:00 GMT")], NOW) == 0.0
    assert retry_wait([("retry-after", "soon")], NOW) is None
    assert retry_wait([], NOW) is None


def test_the_rate_limit_spaces_attempts(serve):
    fake = FakeTime()
    s = serve((200, {}, "{}", 0))
    snd = sender(s.url, fake, rate=0.5)
    snd.send(BODY, record_id="a")
    snd.send(BODY, record_id="b")
    assert fake.slept == [2.0]


def test_a_timeout_is_an_attempt_without_an_answer(serve, tmp_path):
    s = serve((200, {}, "{}", "hold"))
    snd = Sender(s.url, api_key=KEY, limits=Limits(timeout=0.2))
    [a] = snd.send(BODY, record_id="t")
    assert a.status is None and a.error == "timed out after 0.2 s"
    assert a.record["response"] == {"status": 0, "headers": [], "body": None}
    assert a.record["error"] == "timed out after 0.2 s"
    _, cap = reload(tmp_path, [a])
    assert cap.problems["kind"].tolist() == ["no-response"]


def test_a_stream_that_stalls_keeps_what_came(serve):
    s = serve((200, {}, "", "stall-body"))
    snd = Sender(s.url, api_key=KEY, limits=Limits(timeout=0.3))
    [a] = snd.send({**BODY, "stream": True}, record_id="t")
    assert a.status == 200 and a.error == "timed out after 0.3 s reading the answer"
    assert a.record["response"]["body"] == "event: response.created\ndata: {}\n\n"


def test_a_refused_connection_is_recorded(tmp_path):
    with socket.socket() as held:  # bound but not listening: connecting is refused, and no one else can take the port
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        [a] = Sender(f"http://127.0.0.1:{port}/v1/responses", api_key=None, limits=Limits()).send(BODY, record_id="c")
    assert a.status is None and a.error.startswith("ConnectionRefusedError")


def test_the_key_is_replaced_wherever_it_comes_back(serve):
    echo = json.dumps({"output": [{"type": "message", "content": [{"text": f"your key is {PLAIN_KEY}"}]}]})
    s = serve((200, {"x-echo": PLAIN_KEY}, echo, 0))
    [a] = sender(s.url, key=PLAIN_KEY).send({**BODY, "input": f"key {PLAIN_KEY}"}, record_id="k")
    assert s.seen[0]["headers"]["authorization"] == f"Bearer {PLAIN_KEY}"
    assert PLAIN_KEY not in json.dumps(a.record)
    assert "<redacted>" in a.record["response"]["body"]


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("ftp://127.0.0.1/x", "http:// or https://"),
        ("http:///x", "with a host"),
        ("http://h:99999/x", "(?i)port out of range"),
    ],
)
def test_bad_endpoints_are_input_errors(url, needle):
    with pytest.raises(InputError, match=needle):
        Sender(url, api_key=None, limits=Limits())


@pytest.mark.parametrize(
    ("kw", "needle"), [({"rate": 0}, "rate"), ({"timeout": -1}, "timeout"), ({"retries": -1}, "retries")]
)
def test_bad_limits_are_input_errors(kw, needle):
    with pytest.raises(InputError, match=needle):
        Limits(**kw)
