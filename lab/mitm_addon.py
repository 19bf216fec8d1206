"""mitmproxy addon for the lab: stream SSE live *and* keep its body, with the time of every chunk.

mitmproxy buffers ``text/event-stream`` by default (the client then gets the whole stream at once) and
plain streaming mode (``flow.response.stream = True``) records no body. Here the stream is a callable
that passes each chunk on unchanged and keeps a copy; at ``response`` the body is restored through
``raw_content`` (so Content-Encoding is not applied twice). Chunk times stay in ``flow.metadata``,
which ``.mitm`` files keep and HAR drops.
"""

from __future__ import annotations

import time


class TeeEventStreams:
    def responseheaders(self, flow):
        ctype = flow.response.headers.get("content-type", "")
        if not ctype.startswith("text/event-stream"):
            return
        chunks: list[bytes] = []
        times: list[float] = []

        def tee(data: bytes) -> bytes:
            if data:
                chunks.append(data)
                times.append(time.time())
            return data

        flow.metadata["_tee_chunks"] = chunks
        flow.metadata["sse_chunk_times"] = times
        flow.response.stream = tee

    def response(self, flow):
        chunks = flow.metadata.pop("_tee_chunks", None)
        if chunks is not None:
            flow.response.stream = False
            flow.response.raw_content = b"".join(chunks)

    def error(self, flow):
        # a stream cut by the server still keeps what arrived
        chunks = flow.metadata.pop("_tee_chunks", None)
        if chunks is not None and flow.response is not None:
            flow.response.stream = False
            flow.response.raw_content = b"".join(chunks)


addons = [TeeEventStreams()]
