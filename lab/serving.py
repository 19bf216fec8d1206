"""What the lab's stdlib servers share (the stub gateway and the rewriting proxy): a threading HTTP
server on 127.0.0.1 that writes one JSON log line per exchange and can wait for the exchanges in flight
so that every line is on disk before anyone reads the log.

A line records the response as it was sent (a stream cut by the client is logged as far as it got), so
it can only be complete once the response is; but the lines are written in the order the exchanges
*started*, not the order their handler threads happened to finish: each exchange takes a sequence
number when it starts and its line waits until every earlier exchange's line is written. Two sequential
requests therefore log in request order by construction, however the threads are scheduled."""

from __future__ import annotations

import gzip
import json
import threading
import time
import zlib
from http.server import ThreadingHTTPServer

HOST = "127.0.0.1"


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def decode_content(data: bytes, coding: str | None) -> bytes:
    """A body with its ``Content-Encoding`` (gzip or deflate) undone; other codings pass through."""
    coding = (coding or "").lower().strip()
    if coding == "gzip":
        return gzip.decompress(data)
    if coding == "deflate":
        return zlib.decompress(data)
    return data


def read_body(handler) -> bytes:
    """A request body as sent: de-chunked when ``Transfer-Encoding: chunked``, else ``Content-Length`` bytes."""
    if handler.headers.get("transfer-encoding", "").lower() == "chunked":
        data = bytearray()
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return bytes(data)
            data += handler.rfile.read(size)
            handler.rfile.readline()
    length = int(handler.headers.get("content-length") or 0)
    return handler.rfile.read(length) if length > 0 else b""


class LoggingServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, handler, log_path=None):
        super().__init__((HOST, port), handler)
        self.log_file = open(log_path, "a", encoding="utf-8") if log_path else None
        self._idle = threading.Condition()  # guards the counters, the held lines and the log file
        self._active = 0
        self._started = 0  # the sequence number of the latest exchange to start
        self._written = 0  # every exchange up to this number has its line written (or had none)
        self._held: dict[int, str | None] = {}  # finished exchanges waiting for an earlier one

    def exchange_started(self) -> int:
        """Count a new exchange in flight and give it its sequence number (1, 2, …)."""
        with self._idle:
            self._active += 1
            self._started += 1
            return self._started

    def exchange_finished(self, seq: int, record: dict | None) -> None:
        """The exchange ``seq`` is over: log ``record`` (``None``: no line) in sequence order."""
        line = None if record is None else dumps(record) + "\n"
        with self._idle:
            self._held[seq] = line
            self._write_in_order()
            self._active -= 1
            self._idle.notify_all()

    def _write_in_order(self, *, gaps: bool = False) -> None:
        """Write the held lines whose earlier exchanges are all written (``gaps``: every held line)."""
        while self._held:
            nxt = self._written + 1
            if nxt not in self._held:
                if not gaps:
                    return
                nxt = min(self._held)
            line = self._held.pop(nxt)
            self._written = nxt
            if line is not None and self.log_file is not None and not self.log_file.closed:
                self.log_file.write(line)
        if self.log_file is not None and not self.log_file.closed:
            self.log_file.flush()

    def drain(self, timeout: float = 60.0) -> None:
        """Wait for exchanges in flight (not idle keep-alive connections) so their lines are logged.

        The timeout only bounds a hung exchange (a handler's socket times out after 30 s); no caller
        relies on an exchange finishing within it."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._active > 0 and time.monotonic() < deadline:
                self._idle.wait(deadline - time.monotonic())

    def serve_until_signalled(self) -> int:
        """Serve until SIGTERM or SIGINT, announcing the port on stdout; then close cleanly (log flushed)."""
        import signal

        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        thread.start()
        print(f"listening on {HOST}:{self.server_port}", flush=True)
        while not stop.wait(0.2):
            pass
        self.shutdown()
        self.server_close()  # waits for exchanges in flight, then closes the log
        thread.join(timeout=2)
        return 0

    def server_close(self) -> None:
        super().server_close()
        self.drain()
        with self._idle:
            self._write_in_order(gaps=True)  # an exchange still hung after the drain: keep the others' lines
            if self.log_file is not None and not self.log_file.closed:
                self.log_file.close()
