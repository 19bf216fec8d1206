"""What the lab's stdlib servers share (the stub gateway and the rewriting proxy): a threading HTTP
server on 127.0.0.1 that writes one JSON log line per exchange, after its response is sent, and can
wait for the exchanges in flight so that every line is on disk before anyone reads the log."""

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
        self.log_lock = threading.Lock()
        self.log_file = open(log_path, "a", encoding="utf-8") if log_path else None
        self._active = 0
        self._idle = threading.Condition()

    def exchange_started(self) -> None:
        with self._idle:
            self._active += 1

    def end(self) -> None:
        with self._idle:
            self._active -= 1
            self._idle.notify_all()

    def write_log(self, record: dict) -> None:
        if self.log_file is None:
            return
        line = dumps(record) + "\n"
        with self.log_lock:
            if not self.log_file.closed:
                self.log_file.write(line)
                self.log_file.flush()

    def drain(self, timeout: float = 5.0) -> None:
        """Wait for exchanges in flight (not idle keep-alive connections) so their lines are logged."""
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
        with self.log_lock:
            if self.log_file is not None and not self.log_file.closed:
                self.log_file.close()
