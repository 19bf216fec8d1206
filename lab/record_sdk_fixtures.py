"""Record the SDK-fixture and httprr test files with the real openai-python SDK against the lab gateway.

Run it in its own environment (the toolkit does not depend on the SDK)::

    python3 -m venv /tmp/rec2-venv && /tmp/rec2-venv/bin/pip install -r lab/requirements-sdk-fixtures.txt
    /tmp/rec2-venv/bin/python lab/record_sdk_fixtures.py [--out tests/fixtures]

It starts ``lab/gateway.py`` in a thread on 127.0.0.1:18796 with a fixed clock, runs two-turn
conversations with model ``gw-coder`` (the first turn calls ``bash``, the second answers the tool
result with text) through ``openai.OpenAI``, and writes:

* ``sse-chunks/``: each stream event as the SDK parsed it, one JSON object per line (``event.to_json``,
  what SDK test suites save as ``*.chunks.txt``), both responses of a conversation in one file;
  ``partly_bad.chunks.txt`` is the Responses file with one line broken and the last terminal event cut.
* ``response-body/``: non-streamed bodies as the SDK returns them (``to_json``: Responses pretty-printed,
  Chat Completions compact); ``truncated.json`` is the Responses body cut short.
* ``httprr/``: there is no Go toolchain here, so the traces are *written* by this script in httprr's
  format (``httprr trace v1``, then ``<n1> <n2>\\n`` + request + response per round trip) from the raw
  bytes the SDK's HTTP transport sent and received: requests in absolute form with ``Authorization``
  removed (as httprr scrubbers do), response headers sorted as Go writes them. Variants: a stream
  re-framed with ``Transfer-Encoding: chunked`` (one chunk per event), a stream delimited by the end of
  the message (``Connection: close``), a JSON body gzip-compressed by this script with ``Content-Encoding:
  gzip`` (the lab gateway does not compress), the gateway's 429 with its OpenAI error envelope, and a
  Chat Completions stream. ``partly_bad.httprr`` has a record whose request is not HTTP and a last record
  cut short.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import threading
from pathlib import Path

import httpx2 as httpx
import openai

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gateway import make_server

PORT = 18796  # apart from the ports of lab/scenarios.py, lab/old_mitm.py and lab/record_cassettes.py
CLOCK = "2026-11-20T09:00:00Z"
BASH = {
    "type": "function",
    "name": "bash",
    "description": "Execute a bash command and return its stdout/stderr.",
    "parameters": {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The command to run."},
            "description": {"type": "string", "description": "What the command does, in a few words."},
            "sandbox_permissions": {"type": "string", "enum": ["default", "danger-full-access"]},
            "justification": {"type": "string"},
        },
        "required": ["command", "description"],
    },
}
CHAT_BASH = {"type": "function", "function": {k: v for k, v in BASH.items() if k != "type"}}
PROMPT = "List the files in the current directory."
TOOL_OUTPUT = "README.md\nlab\ntoolkit\n"


class Recorder(httpx.HTTPTransport):
    """Keeps the raw bytes of every request and response the SDK exchanges (bodies as on the wire)."""

    def __init__(self) -> None:
        super().__init__()
        self.exchanges: list[tuple[httpx.Request, bytes, httpx.Response, bytes]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        body = request.read()
        response = super().handle_request(request)
        raw = b"".join(response.iter_raw())
        response.close()
        self.exchanges.append((request, body, response, raw))
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=httpx.ByteStream(raw),
            request=request,
            extensions=response.extensions,
        )


def client(recorder: Recorder, behaviour: str) -> openai.OpenAI:
    return openai.OpenAI(
        api_key="lab-not-a-key",
        base_url=f"http://127.0.0.1:{PORT}/{behaviour}/v1",
        http_client=httpx.Client(transport=recorder),
        max_retries=0,
    )


def responses_turns(c: openai.OpenAI, *, stream: bool) -> list[list[str]] | list[str]:
    """Two turns (a bash call, then text): each stream's events as JSON lines, or each body as JSON."""
    inp: list[dict] = [{"role": "user", "content": PROMPT}]
    out: list = []
    for _ in range(2):
        if stream:
            lines, final = [], None
            for event in c.responses.create(model="gw-coder", input=inp, tools=[BASH], stream=True):
                lines.append(event.to_json(indent=None))
                if event.type == "response.completed":
                    final = event.response
            out.append(lines)
        else:
            final = c.responses.create(model="gw-coder", input=inp, tools=[BASH])
            out.append(final.to_json())
        assert final is not None
        calls = [item for item in final.output if item.type == "function_call"]
        if not calls:
            break
        inp = inp + [item.to_dict() for item in calls]
        inp += [{"type": "function_call_output", "call_id": call.call_id, "output": TOOL_OUTPUT} for call in calls]
    return out


def chat_turns(c: openai.OpenAI, *, stream: bool) -> list:
    messages: list[dict] = [{"role": "user", "content": PROMPT}]
    out: list = []
    for _ in range(2):
        calls: dict[int, dict] = {}
        if stream:
            lines = []
            for chunk in c.chat.completions.create(
                model="gw-coder",
                messages=messages,
                tools=[CHAT_BASH],
                stream=True,
                stream_options={"include_usage": True},
            ):
                lines.append(chunk.to_json(indent=None))
                for choice in chunk.choices:
                    for tc in choice.delta.tool_calls or []:
                        slot = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                        slot["id"] = tc.id or slot["id"]
                        slot["name"] += (tc.function.name or "") if tc.function else ""
                        slot["arguments"] += (tc.function.arguments or "") if tc.function else ""
            out.append(lines)
        else:
            completion = c.chat.completions.create(model="gw-coder", messages=messages, tools=[CHAT_BASH])
            out.append(completion.to_json(indent=None))
            for i, tc in enumerate(completion.choices[0].message.tool_calls or []):
                calls[i] = {"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments}
        if not calls:
            break
        tool_calls = [
            {"id": s["id"], "type": "function", "function": {"name": s["name"], "arguments": s["arguments"]}}
            for s in calls.values()
        ]
        messages = messages + [{"role": "assistant", "content": None, "tool_calls": tool_calls}]
        messages += [{"role": "tool", "tool_call_id": s["id"], "content": TOOL_OUTPUT} for s in calls.values()]
    return out


# ---- httprr ------------------------------------------------------------------------------------


def _canonical(name: str) -> str:
    return "-".join(part[:1].upper() + part[1:].lower() for part in name.split("-"))


def http_request(request: httpx.Request, body: bytes) -> bytes:
    """As Go's Request.WriteProxy writes it: absolute URL, Host, then the other fields."""
    lines = [f"{request.method} {request.url} HTTP/1.1", f"Host: {request.url.netloc.decode()}"]
    for name, value in request.headers.multi_items():
        if name.lower() not in ("host", "authorization", "content-length", "connection", "accept-encoding"):
            lines.append(f"{_canonical(name)}: {value}")
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def http_response(response: httpx.Response, raw: bytes, framing: str) -> bytes:
    """As Go's Response.Write writes it, with the body framed as ``length``, ``chunked``, ``close`` or ``gzip``."""
    drop = {"content-length", "transfer-encoding", "connection", "content-encoding"}
    fields = [(_canonical(n), v) for n, v in response.headers.multi_items() if n.lower() not in drop]
    body = raw
    if framing == "chunked":
        events = [e + b"\n\n" for e in raw.split(b"\n\n") if e.strip()]
        body = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events) + b"0\r\n\r\n"
        fields.append(("Transfer-Encoding", "chunked"))
    elif framing == "close":
        fields.append(("Connection", "close"))
    else:
        if framing == "gzip":
            body = gzip.compress(raw, mtime=0)
            fields.append(("Content-Encoding", "gzip"))
        fields.append(("Content-Length", str(len(body))))
    reason = response.reason_phrase or {200: "OK", 429: "Too Many Requests"}.get(response.status_code, "")
    head = [f"HTTP/1.1 {response.status_code} {reason}"] + [f"{n}: {v}" for n, v in sorted(fields)]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def httprr(records: list[tuple[bytes, bytes]]) -> bytes:
    out = bytearray(b"httprr trace v1\n")
    for req, resp in records:
        out += b"%d %d\n" % (len(req), len(resp)) + req + resp
    return bytes(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "tests" / "fixtures")
    args = parser.parse_args(argv)
    server = make_server(PORT, clock=CLOCK)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        rec = Recorder()
        c = client(rec, "absent-is-strict")
        resp_streams = responses_turns(c, stream=True)
        chat_streams = chat_turns(c, stream=True)
        resp_bodies = responses_turns(c, stream=False)
        chat_bodies = chat_turns(c, stream=False)
        try:
            client(rec, "rate-limit").responses.create(model="gw-coder", input=PROMPT, tools=[BASH], stream=True)
        except openai.RateLimitError:
            pass
        else:
            raise SystemExit("the rate-limit behaviour did not answer 429")
    finally:
        server.shutdown()
        server.server_close()
    assert len(resp_streams) == 2 and len(chat_streams) == 2, "a conversation did not take two turns"

    chunks = args.out / "sse-chunks"
    bodies = args.out / "response-body"
    traces = args.out / "httprr"
    for d in (chunks, bodies, traces):
        d.mkdir(parents=True, exist_ok=True)
    write = _writer()
    write(chunks / "responses_two.chunks.txt", "".join(line + "\n" for s in resp_streams for line in s))
    write(chunks / "chat_two.chunks.txt", "".join(line + "\n" for s in chat_streams for line in s))
    bad = [list(s) for s in resp_streams]
    bad[0].insert(3, bad[0][3][: len(bad[0][3]) // 2])  # a line cut in half (a bad line)
    bad[1] = [line for line in bad[1] if '"type":"response.completed"' not in line]  # cut before its end
    write(chunks / "partly_bad.chunks.txt", "".join(line + "\n" for s in bad for line in s))
    write(bodies / "responses_function_call.json", resp_bodies[0] + "\n")
    write(bodies / "chat_completion.json", chat_bodies[0] + "\n")
    write(bodies / "truncated.json", resp_bodies[0][: len(resp_bodies[0]) // 2])

    ex = [(http_request(req, body), resp, raw) for req, body, resp, raw in rec.exchanges]
    # order: 2 Responses streams, 2 Chat streams, 2 Responses bodies, 2 Chat bodies, the 429
    (s1, s2, c1, _c2, b1, _b2, _cb1, _cb2, limited) = ex
    variants = [
        (s1[0], http_response(s1[1], s1[2], "chunked")),
        (s2[0], http_response(s2[1], s2[2], "close")),
        (b1[0], http_response(b1[1], b1[2], "gzip")),
        (limited[0], http_response(limited[1], limited[2], "length")),
        (c1[0], http_response(c1[1], c1[2], "chunked")),
    ]
    write(traces / "lab_variants.httprr", httprr(variants))
    garbage = b"not an http request\r\n\r\n"
    cut = httprr([variants[2]])[len(b"httprr trace v1\n") :]
    partly_bad = httprr([variants[2], (garbage, variants[3][1]), variants[3]]) + cut[: len(cut) // 2]
    write(traces / "partly_bad.httprr", partly_bad)
    return 0


def _writer():
    def write(path: Path, data: str | bytes) -> None:
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        print(f"wrote {path} ({path.stat().st_size} bytes)")

    return write


if __name__ == "__main__":
    raise SystemExit(main())
