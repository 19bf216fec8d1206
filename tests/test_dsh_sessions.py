"""DSH session logs: the decoder state machine and the file reader, over all 169 real fixtures."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import zstandard

from toolkit.errors import CaptureError, InputError
from toolkit.knowledge import dsh_session as facts
from toolkit.sources.dsh_session import read
from toolkit.wire.dsh_records import SessionDecoder, SessionHeaderError, decode_lines, expand_packed
from toolkit.wire.records import TERMINALS, WIRE_APIS, Decoded, EntryCount, Event, Problem, ToolResult

PACKED = {"tool-call-chunks": "args", "text-chunks": "texts", "reasoning-chunks": "texts"}


def _records(path: Path, source: str | None = None) -> list:
    return list(read(path, source or path.name))


def _split(records):
    kinds = {Event: [], ToolResult: [], Decoded: [], Problem: [], EntryCount: []}
    for r in records:
        kinds[type(r)].append(r)
    return kinds


def _fixture_files(root: Path) -> list[Path]:
    return sorted(root.glob("*.jsonl"))


def _lines(path: Path) -> list[tuple[int, dict]]:
    return [(n, json.loads(ln)) for n, ln in enumerate(path.read_text("utf-8").split("\n"), 1) if ln.strip()]


def _session(*records: dict, header: dict | None = None) -> list[tuple[int, str]]:
    head = header or {"type": "session", "version": 0, "id": "s", "createdAt": 1787000000000}
    return [(n, json.dumps(r)) for n, r in enumerate([head, *records], 1)]


# --------------------------------------------------------------------------------------------
# All real fixtures


def test_every_fixture_reconciles(dsh_sessions):
    files = _fixture_files(dsh_sessions)
    assert len(files) == 169
    totals = Counter()
    for path in files:
        lines = _lines(path)
        got = _split(_records(path))
        assert got[Problem] == [], path.name
        assert [c.entries for c in got[EntryCount]] == [len(lines)], path.name
        # every line became at least one event; packed rows one per member, the rest exactly one
        per_line = Counter(e.location for e in got[Event])
        for n, obj in lines:
            want = len(obj["data"][PACKED[obj["type"]]]) if obj["type"] in PACKED else 1
            assert per_line.pop(f"line {n}") == want, (path.name, n)
        assert not per_line
        # one bundle per (turn, step) seen, each id once
        steps = {
            (o["data"]["turn"], o["data"]["step"])
            for _, o in lines
            if isinstance(o.get("data"), dict) and "turn" in o["data"] and "step" in o["data"]
        }
        ids = [d.exchange.exchange_id for d in got[Decoded]]
        assert sorted(ids) == sorted(f"{path.name}:t{t}s{s}" for t, s in steps), path.name
        # every tool/call is a call of its step's bundle, arguments parsed as the file says
        calls = {(d.exchange.exchange_id, c.call_id): c for d in got[Decoded] for c in d.calls}
        for _, o in lines:
            if o["type"] == "tool/call":
                d = o["data"]
                c = calls[(f"{path.name}:t{d['turn']}s{d['step']}", d["callId"])]
                assert (c.name, c.arguments_raw, c.arguments, c.complete) == (
                    d["name"],
                    d["arguments"],
                    json.loads(d["arguments"]),
                    True,
                )
        assert len(got[ToolResult]) == sum(o["type"] == "tool/result" for _, o in lines)
        assert all(r.exchange_id in ids for r in got[ToolResult])
        assert all(e.exchange_id in ids for e in got[Event] if e.exchange_id)
        totals.update(
            lines=len(lines),
            events=len(got[Event]),
            exchanges=len(ids),
            calls=sum(len(d.calls) for d in got[Decoded]),
            results=len(got[ToolResult]),
        )
    assert totals == Counter(lines=5341, events=15604, exchanges=347, calls=192, results=182)


def test_no_fixture_event_carries_seq_or_time(dsh_sessions):
    # 4 files do carry seq, but inside tool-workflow data, not on the events
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__workflow-run__session.jsonl"
    events = _split(_records(path))[Event]
    assert all(e.seq is None and e.time is None for e in events[1:])
    start = next(e for e in events if e.type == "tool-workflow/agent-start")
    assert start.payload["seq"] == 1 and start.seq is None
    header = _lines(path)[0][1]
    assert events[0].type == "session" and events[0].time == header["createdAt"] / 1000


def test_streamed_call_deltas_match_the_logged_call(dsh_sessions):
    """Across all fixtures the expanded tool-call deltas reassemble to the arguments DSH dispatched."""
    checked = 0
    for path in _fixture_files(dsh_sessions):
        got = _split(_records(path))
        deltas: dict = {}
        for e in got[Event]:
            chunk = e.payload.get("chunk") if isinstance(e.payload, dict) else None
            if e.type == "assistant/chunk" and isinstance(chunk, dict) and chunk.get("type") == "tool-call-delta":
                deltas.setdefault((e.exchange_id, chunk["id"]), []).append(chunk["argumentsDelta"])
        calls = {(d.exchange.exchange_id, c.call_id): c for d in got[Decoded] for c in d.calls}
        for key, parts in deltas.items():
            call = calls[key]
            if call.complete:
                # one fixture (persistent-pwsh-tool-turn) logs the call compacted: compare as JSON
                assert json.loads("".join(parts)) == call.arguments, (path.name, key)
                checked += 1
    assert checked == 174


def test_bash_tool_turn(dsh_sessions):
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__bash-tool-turn__session.jsonl"
    got = _split(_records(path, "bash"))
    s1, s2 = got[Decoded]
    assert s1.exchange.exchange_id == "bash:t1s1" and s1.exchange.location == "line 5"
    assert (s1.exchange.model, s1.exchange.provider, s1.exchange.api) == (
        "deepseek-v4-flash",
        "deepseek-official",
        "other",
    )
    assert (s1.exchange.terminal, s2.exchange.terminal) == ("completed", "completed")
    assert (
        s1.exchange.input_tokens,
        s1.exchange.output_tokens,
        s1.exchange.cache_read_tokens,
        s1.exchange.reasoning_tokens,
    ) == (2877, 90, 0, 18)
    assert s1.exchange.stream is True and s1.exchange.started_at is None  # the snapshots carry no times
    assert s1.tools == [] and [i.kind for i in s1.issues] == ["placeholder"] and s2.issues == []
    (call,) = s1.calls
    assert call.call_id == "call_00_fkbBRJsUrGKd1pWVc4Gn8233" and call.name == "bash"
    assert call.arguments == {
        "command": "echo TERMINAL_OK",
        "description": "Echo TERMINAL_OK to verify terminal access",
    }
    assert (
        call.arguments_raw
        == '{"command": "echo TERMINAL_OK", "description": "Echo TERMINAL_OK to verify terminal access"}'
    )
    assert s2.calls == []
    (result,) = got[ToolResult]
    assert (result.exchange_id, result.call_id, result.is_error, result.text, result.turn, result.step) == (
        "bash:t1s1",
        "call_00_fkbBRJsUrGKd1pWVc4Gn8233",
        False,
        "TERMINAL_OK\n",
        1,
        1,
    )
    # line 14: tool-call-chunks with 31 args and 30 dt, no seq0/time0
    members = [e for e in got[Event] if e.location == "line 14"]
    assert len(members) == 31 and {e.packed for e in members} == {"tool-call-chunks"}
    assert [e.member for e in members] == list(range(31))
    assert all(
        e.type == "assistant/chunk" and e.seq is None and e.time is None and e.exchange_id == "bash:t1s1"
        for e in members
    )
    assert members[1].payload == {
        "turn": 1,
        "step": 1,
        "chunk": {
            "type": "tool-call-delta",
            "index": 1,
            "id": "call_00_fkbBRJsUrGKd1pWVc4Gn8233",
            "name": "bash",
            "argumentsDelta": "{",
        },
    }


def test_flat_tool_result_layout(dsh_sessions):
    path = dsh_sessions / "apps__web__tests__snapshots__fresh-round-trip__session.jsonl"
    (result,) = _split(_records(path, "f"))[ToolResult]
    assert (result.exchange_id, result.call_id, result.is_error, result.text) == (
        "f:t1s1",
        "call_00_BYXlxjFaalMg95YVqEeF2495",
        False,
        "WEB_E2E_OK\n",
    )


def test_tool_result_errors_and_abort(dsh_sessions):
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__cancel-tool-calls__session.jsonl"
    got = _split(_records(path))
    errors = {(r.call_id, r.error_name, r.error_code) for r in got[ToolResult] if r.is_error}
    assert ("call_wait", "AbortError", "ABORTED") in errors
    assert ("call_skipped", "AbortError", "ABORTED_BEFORE_DISPATCH") in errors


def test_error_finish_is_failed(dsh_sessions):
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__error-finish__session.jsonl"
    (d,) = _split(_records(path))[Decoded]
    assert (d.exchange.terminal, d.exchange.error_code, d.exchange.error_message) == (
        "failed",
        "AUTH",
        "simulated provider error (HTTP 401)",
    )


def test_max_tokens_cut_call_and_api_from_replay_state(dsh_sessions):
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__max-tokens-continue__session.jsonl"
    first = _split(_records(path))[Decoded][0]
    assert first.exchange.terminal == "incomplete" and first.exchange.api == "chat"
    (call,) = first.calls
    assert (call.call_id, call.name, call.complete, call.arguments) == ("call-cut", "bash", False, None)
    assert call.arguments_raw == '{"command":"echo demo > ' and call.parse_error.startswith("incomplete: invalid JSON")


def test_retried_step_keeps_the_final_attempt(dsh_sessions):
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__empty-response-retry__session.jsonl"
    (d,) = _split(_records(path))[Decoded]
    assert d.exchange.terminal == "completed" and d.exchange.error_code is None
    assert (d.exchange.input_tokens, d.exchange.output_tokens) == (12, 3)
    (retried,) = [i for i in d.issues if i.kind == "retried"]
    assert "EMPTY_RESPONSE" in retried.message


def test_turn_end_decides_a_step_without_finish(dsh_sessions):
    path = dsh_sessions / "examples__acp-agent__tests__snapshots__cancel__session.jsonl"
    (d,) = _split(_records(path))[Decoded]
    assert d.exchange.terminal == "cut"


def test_header_tool_schemas_and_name_lists(dsh_sessions):
    path = dsh_sessions / "examples__headless-agent__tests__snapshots__advanced-toolchain__session.1.jsonl"
    header = next(o for _, o in _lines(path) if o["type"] == "request/header")["data"]["header"]
    d = _split(_records(path))[Decoded][0]
    assert [t.name for t in d.tools] == [t["name"] for t in header["tools"]]
    assert {t.strict_state for t in d.tools} == {"absent"}
    assert d.tools[0].parameters == header["tools"][0]["parameters"]
    assert not [i for i in d.issues if i.kind == "placeholder"]

    path = dsh_sessions / "scripts__snapshots__python-sdk-single-exe__advanced__session.1.jsonl"
    d = _split(_records(path))[Decoded][0]
    assert "run_code" in [t.name for t in d.tools] and all(t.parameters is None for t in d.tools)
    assert [i.kind for i in d.issues] == ["tool-names-only"]


def test_provenance_form_of_assistant_message(dsh_sessions):
    path = dsh_sessions / "apps__web__tests__snapshots__code-mode-round__session.jsonl"
    got = _split(_records(path))
    assert all(d.exchange.model == "deepseek-v4-flash" for d in got[Decoded])
    # the provenance form alone (no header) still names the model
    lines = [(n, json.dumps(o)) for n, o in _lines(path) if o["type"] != "request/header"]
    ds = [r for r in decode_lines("p", lines) if isinstance(r, Decoded)]
    assert [(d.exchange.model, d.exchange.provider) for d in ds] == [("deepseek-v4-flash", "deepseek-official")] * 2


# --------------------------------------------------------------------------------------------
# zstd


def test_zstd_twins_yield_the_same_records(dsh_sessions):
    zfiles = sorted((dsh_sessions / "zstd").glob("*.zstd"))
    assert len(zfiles) == 6
    for zpath in zfiles:
        twin = dsh_sessions / zpath.name.removesuffix(".zstd")
        assert _records(zpath, "s") == _records(twin, "s"), zpath.name
        # the control: single-shot decompression stops after the first frame (the header alone)
        first_frame = zstandard.ZstdDecompressor().decompress(zpath.read_bytes())
        assert first_frame.count(b"\n") == 1 and json.loads(first_frame)["type"] == "session"
        assert len(_lines(twin)) > 1


def test_small_reads_split_lines_the_same(dsh_sessions, monkeypatch):
    """Lines cut across read (and zstd frame) boundaries are joined exactly."""
    from toolkit.sources import dsh_session

    zpath = dsh_sessions / "zstd" / "examples__acp-agent__tests__snapshots__pty-tools__session.jsonl.zstd"
    twin = dsh_sessions / zpath.name.removesuffix(".zstd")
    want = _records(twin, "s")
    monkeypatch.setattr(dsh_session, "READ_SIZE", 7)
    assert _records(zpath, "s") == want and _records(twin, "s") == want


def test_truncated_zstd_keeps_what_was_decoded(dsh_sessions, tmp_path):
    zpath = dsh_sessions / "zstd" / "apps__web__tests__snapshots__goal-multi-turn-actions__session.jsonl.zstd"
    data = zpath.read_bytes()
    cut = tmp_path / "session.jsonl.zstd"
    cut.write_bytes(data[: len(data) // 2])
    got = _split(_records(cut, "s"))
    (zp,) = [p for p in got[Problem] if p.kind == "bad-compression"]
    assert "truncated" in zp.message and zp.location.startswith("byte ")
    offset = int(zp.location.split()[1])
    assert f"{offset} decompressed bytes" in zp.message
    full = _records(dsh_sessions / zpath.name.removesuffix(".zstd"), "s")
    full_events = [r for r in full if isinstance(r, Event)]
    assert got[Event] == full_events[: len(got[Event])] and 1 < len(got[Event]) < len(full_events)
    # every counted line is an event or one bad-line problem (a half-decoded last line)
    bad = [p for p in got[Problem] if p.kind == "bad-entry"]
    assert len({e.location for e in got[Event]}) + len(bad) == got[EntryCount][0].entries

    corrupt = bytearray(data)
    corrupt[len(data) // 2 : len(data) // 2 + 16] = b"\xff" * 16
    cpath = tmp_path / "corrupt.zstd"
    cpath.write_bytes(bytes(corrupt))
    got = _split(_records(cpath, "c"))
    assert [p.kind for p in got[Problem] if p.kind == "bad-compression"] == ["bad-compression"] and got[Event]


def test_zstd_truncated_inside_the_header_frame(tmp_path):
    path = tmp_path / "s.zstd"
    path.write_bytes(zstandard.ZstdCompressor().compress(b'{"type":"session","version":0}\n')[:-6])
    with pytest.raises(CaptureError, match="zstd"):
        _records(path)


# --------------------------------------------------------------------------------------------
# Bad input


def test_bad_lines_become_problems(tmp_path):
    path = tmp_path / "session.jsonl"
    path.write_text(
        "\n".join(
            [
                '{"type":"session","version":0,"id":"x","createdAt":1}',
                '{"type":"turn/start","data":{"turn":1}}',
                '{"type": "turn/end", oops}',
                "[1, 2]",
                "",
                '{"data":{}}',
                '{"type":"turn/end","data":{"turn":1,"reason":{"kind":"completed"}}}',
            ]
        )
        + "\n",
        "utf-8",
    )
    got = _split(_records(path, "b"))
    assert [(p.location, p.kind) for p in got[Problem]] == [
        ("line 3", "bad-entry"),
        ("line 4", "bad-entry"),
        ("line 6", "bad-entry"),
    ]
    assert "line 3" in got[Problem][0].message and "column 22" in got[Problem][0].message
    assert "array" in got[Problem][1].message and '"type"' in got[Problem][2].message
    assert [e.location for e in got[Event]] == ["line 1", "line 2", "line 7"]
    assert got[EntryCount][0].entries == 6


def test_empty_file_and_non_header_raise(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(CaptureError, match=r"empty\.jsonl.*line 1"):
        _records(empty)
    other = tmp_path / "other.jsonl"
    other.write_text('{"type":"turn/start","data":{"turn":1}}\n')
    with pytest.raises(CaptureError, match=r"other.jsonl \(line 1\).*'turn/start'"):
        _records(other)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("\nnot json\n")
    with pytest.raises(CaptureError, match=r"garbage.jsonl \(line 2\).*invalid JSON"):
        _records(garbage)
    with pytest.raises(SessionHeaderError):
        SessionDecoder("x").read_header(b"[]", 1)


# --------------------------------------------------------------------------------------------
# Synthetic records in the shapes of deepseek-harness packages/core/session/src/types.ts and chunk-rows.ts


def test_v0_packed_rows_timing():
    row = {
        "type": "tool-call-chunks",
        "seq0": 9,
        "time0": 1787000000150,
        "data": {
            "turn": 1,
            "step": 1,
            "index": 0,
            "id": "call_1",
            "name": "bash",
            "dt": [1, 0, 5],
            "args": ['{"command":', '"ls"', "", "}"],
        },
    }
    members, note = expand_packed("tool-call-chunks", row["data"], seq0=9, time0=1787000000150)
    assert note is None
    assert [(s, t) for s, t, _ in members] == [
        (9, 1787000000150),
        (10, 1787000000151),
        (11, 1787000000151),
        (12, 1787000000156),
    ]
    recs = decode_lines(
        "v0",
        _session(
            {"type": "step/start", "seq": 8, "time": 1787000000100, "data": {"turn": 1, "step": 1}},
            row,
            {"type": "text-chunks", "data": {"turn": 1, "step": 1, "index": 1, "dt": [3], "texts": ["a", "b"]}},
            {
                "type": "reasoning-chunks",
                "seq0": 15,
                "time0": 1787000000200,
                "data": {"turn": 1, "step": 1, "index": 2, "dt": [2, 2], "texts": ["x", "y"]},
            },
            {
                "type": "tool/call",
                "seq": 17,
                "time": 1787000000300,
                "data": {"turn": 1, "step": 1, "callId": "call_1", "name": "bash", "arguments": '{"command":"ls"}'},
            },
            {"type": "step/end", "seq": 18, "time": 1787000000400, "data": {"turn": 1, "step": 1}},
        ),
    )
    ev = [r for r in recs if isinstance(r, Event)]
    tc = [e for e in ev if e.packed == "tool-call-chunks"]
    assert [(e.seq, e.time) for e in tc] == [
        (9, 1787000000.15),
        (10, 1787000000.151),
        (11, 1787000000.151),
        (12, 1787000000.156),
    ]
    assert "".join(e.payload["chunk"]["argumentsDelta"] for e in tc) == '{"command":"ls"}'
    text = [e for e in ev if e.packed == "text-chunks"]
    assert [(e.seq, e.time, e.payload["chunk"]) for e in text] == [
        (None, None, {"type": "text-delta", "index": 1, "text": "a"}),
        (None, None, {"type": "text-delta", "index": 1, "text": "b"}),
    ]
    reasoning = [e for e in ev if e.packed == "reasoning-chunks"]
    assert [(e.seq, e.time) for e in reasoning] == [(15, 1787000000.2), (16, 1787000000.202)]
    assert ev[0].time == 1787000000.0 and ev[1].seq == 8
    (d,) = [r for r in recs if isinstance(r, Decoded)]
    assert d.exchange.started_at == 1787000000.1 and d.exchange.duration_ms == 300
    assert d.exchange.terminal == "cut"  # step/end without finish, message or turn end
    assert [c.arguments for c in d.calls] == [{"command": "ls"}]
    # a dt list of the wrong length is an issue on the bundle, and the lost times stay None
    members, note = expand_packed("text-chunks", {"dt": [], "texts": ["a", "b"]}, time0=5)
    assert [t for _, t, _ in members] == [5.0, None] and "0 dt entries for 2 members" in note


def test_v3_embedded_streams():
    header = {"type": "session", "version": 3, "id": "s3", "createdAt": 1787000000000, "isSeeded": False}
    recs = decode_lines(
        "v3",
        _session(
            {
                "type": "system/message",
                "seq": 0,
                "time": 1787000000001,
                "surfaceOp": "append",
                "data": {"content": "sys"},
            },
            {
                "type": "request/header",
                "seq": 1,
                "time": 1787000000002,
                "data": {
                    "header": {
                        "config": {"provider": "p", "model": "m", "api": "openai-responses"},
                        "tools": [{"name": "bash", "description": "d", "parameters": {"type": "object"}}],
                    },
                    "reason": "initial",
                },
            },
            {
                "type": "assistant/attempt",
                "seq": 2,
                "time": 1787000000050,
                "data": {
                    "turn": 1,
                    "step": 1,
                    "stream": [
                        {
                            "type": "chunk",
                            "time": 1787000000010,
                            "chunk": {
                                "type": "finish",
                                "reason": {"kind": "error", "failure": {"message": "boom", "code": "SERVER"}},
                            },
                        }
                    ],
                },
            },
            {
                "type": "assistant/message",
                "seq": 3,
                "time": 1787000000200,
                "surfaceOp": "append",
                "data": {
                    "turn": 1,
                    "step": 1,
                    "usage": {"inputTokens": 7, "outputTokens": 3},
                    "message": {
                        "id": "a1",
                        "role": "assistant",
                        "content": [{"type": "tool-call", "id": "c1", "name": "bash", "arguments": '{"command":"ls"}'}],
                        "source": {"kind": "model", "provider": "p", "model": "m"},
                    },
                    "stream": [
                        {"type": "text-chunks", "time0": 1787000000100, "dt": [4], "index": 0, "texts": ["he", "llo"]},
                        {
                            "type": "tool-call-chunks",
                            "time0": 1787000000120,
                            "dt": [1],
                            "index": 1,
                            "id": "c1",
                            "name": "bash",
                            "args": ['{"command":', '"ls"}'],
                        },
                        {
                            "type": "chunk",
                            "time": 1787000000150,
                            "chunk": {"type": "finish", "reason": {"kind": "tool-calls"}},
                        },
                    ],
                },
            },
            {
                "type": "tool/call",
                "seq": 4,
                "time": 1787000000201,
                "data": {"turn": 1, "step": 1, "callId": "c1", "name": "bash", "arguments": '{"command":"ls"}'},
            },
            {
                "type": "tool/result",
                "seq": 5,
                "time": 1787000000300,
                "surfaceOp": "append",
                "data": {
                    "turn": 1,
                    "step": 1,
                    "error": {"code": "E", "name": "ToolError", "reason": "r"},
                    "message": {
                        "id": "u1",
                        "role": "user",
                        "source": {"kind": "tool", "callId": "c1"},
                        "content": [
                            {
                                "type": "tool-result",
                                "toolCallId": "c1",
                                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                                "isError": True,
                            }
                        ],
                    },
                },
            },
            {"type": "turn/end", "seq": 6, "time": 1787000000400, "data": {"turn": 1, "reason": {"kind": "completed"}}},
            header=header,
        ),
    )
    ev = [r for r in recs if isinstance(r, Event)]
    chunks = [e for e in ev if e.type == "assistant/chunk"]
    assert [(e.location, e.packed, e.time) for e in chunks] == [
        ("line 4", "chunk", 1787000000.01),
        ("line 5", "text-chunks", 1787000000.1),
        ("line 5", "text-chunks", 1787000000.104),
        ("line 5", "tool-call-chunks", 1787000000.12),
        ("line 5", "tool-call-chunks", 1787000000.121),
        ("line 5", "chunk", 1787000000.15),
    ]
    assert all(e.exchange_id == "v3:t1s1" for e in chunks)
    (d,) = [r for r in recs if isinstance(r, Decoded)]
    assert (d.exchange.api, d.exchange.terminal, d.exchange.error_code, d.exchange.input_tokens) == (
        "responses",
        "completed",
        None,
        7,
    )
    assert d.exchange.started_at == 1787000000.01
    assert [i.kind for i in d.issues] == ["retried"] and "SERVER" in d.issues[0].message
    assert [(t.name, t.strict_state) for t in d.tools] == [("bash", "absent")]
    assert [(c.call_id, c.arguments, c.complete) for c in d.calls] == [("c1", {"command": "ls"}, True)]
    (r,) = [r for r in recs if isinstance(r, ToolResult)]
    assert (r.exchange_id, r.call_id, r.is_error, r.text, r.error_name, r.error_code) == (
        "v3:t1s1",
        "c1",
        True,
        "a\nb",
        "ToolError",
        "E",
    )


def test_v4_tool_role_messages():
    header = {"type": "session", "version": 4, "id": "s4", "createdAt": 1787000000000, "isSeeded": True}
    dec = SessionDecoder("v4", provider_apis={"route": "anthropic-messages"})
    recs = []
    for n, line in _session(
        {"type": "developer/message", "data": {"content": [{"type": "text", "text": "dev"}]}},
        {
            "type": "request/header",
            "data": {"header": {"config": {"provider": "route", "model": "m"}}, "reason": "initial"},
        },
        {"type": "step/start", "data": {"turn": 1, "step": 1}},
        {
            "type": "assistant/message",
            "data": {
                "turn": 1,
                "step": 1,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool-call", "id": "t1", "name": "read", "arguments": '{"file_path": "a"'}],
                },
            },
        },
        {
            "type": "tool/call",
            "data": {"turn": 1, "step": 1, "callId": "t1", "name": "read", "arguments": '{"file_path": "a"'},
        },
        {
            "type": "tool/result",
            "data": {
                "turn": 1,
                "step": 1,
                "message": {
                    "role": "tool",
                    "toolCallId": "t1",
                    "isError": True,
                    "content": [{"type": "text", "text": "Error: invalid arguments"}],
                },
            },
        },
        {"type": "step/end", "data": {"turn": 1, "step": 1}},
        {"type": "step/start", "data": {"turn": 1, "step": 2}},
        {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": "forked"}}},
        header=header,
    ):
        recs.extend(dec.read_header(line, n) if n == 1 else dec.feed_line(line, n))
    recs.extend(dec.close())
    assert dec.version == 4
    d1, d2 = [r for r in recs if isinstance(r, Decoded)]
    # an anthropic-messages route speaks the Messages wire API (knowledge.dsh_session.PROVIDER_APIS)
    assert (d1.exchange.terminal, d1.exchange.api, d1.exchange.stream) == ("completed", "messages", None)
    (call,) = d1.calls
    assert call.arguments is None and "invalid JSON" in call.parse_error and call.complete
    assert d1.tools == [] and d1.issues == []
    assert (d2.exchange.exchange_id, d2.exchange.terminal) == ("v4:t1s2", "cut")
    (r,) = [r for r in recs if isinstance(r, ToolResult)]
    assert (r.call_id, r.is_error, r.text, r.exchange_id) == ("t1", True, "Error: invalid arguments", "v4:t1s1")


def test_stream_cut_at_end_of_log():
    recs = decode_lines(
        "cut",
        _session(
            {
                "type": "request/header",
                "data": {
                    "header": {"config": {"provider": "p", "model": "m"}, "tools": "{{tools}}"},
                    "reason": "initial",
                },
            },
            {
                "type": "assistant/chunk",
                "data": {
                    "turn": 1,
                    "step": 1,
                    "chunk": {
                        "type": "tool-call-delta",
                        "index": 0,
                        "id": "c",
                        "name": "bash",
                        "argumentsDelta": '{"comm',
                    },
                },
            },
        ),
    )
    (d,) = [r for r in recs if isinstance(r, Decoded)]
    assert d.exchange.terminal == "cut" and [i.kind for i in d.issues] == ["placeholder"]
    (call,) = d.calls
    assert (call.call_id, call.name, call.arguments_raw, call.complete) == ("c", "bash", '{"comm', False)


# --------------------------------------------------------------------------------------------
# The format's vocabulary (toolkit.knowledge.dsh_session) and malformed values in it


def test_vocabulary_maps_onto_the_record_vocabularies():
    assert set(facts.FINISH_TERMINALS.values()) | set(facts.TURN_END_TERMINALS.values()) <= set(TERMINALS)
    assert set(facts.PROVIDER_APIS.values()) <= set(WIRE_APIS) - {"other"}
    assert set(facts.PACKED_TYPES.values()) == {"tool-call-delta", "text-delta", "reasoning-delta"}
    assert issubclass(SessionHeaderError, InputError)  # bad input, not a bug


def _one_step(*events: dict) -> Decoded:
    steps = [{"type": "step/start", "data": {"turn": 1, "step": 1}}, *events]
    steps.append({"type": "step/end", "data": {"turn": 1, "step": 1}})
    (d,) = [r for r in decode_lines("s", _session(*steps)) if isinstance(r, Decoded)]
    return d


def _chunk(chunk: dict) -> dict:
    return {"type": "assistant/chunk", "data": {"turn": 1, "step": 1, "chunk": chunk}}


def test_unhashable_finish_reason_is_an_issue_not_a_crash():
    d = _one_step(_chunk({"type": "finish", "reason": {"kind": ["stop"]}}))
    assert d.exchange.terminal is None
    assert [i.message for i in d.issues if i.kind == "finish-reason"] == ["unknown finish reason ['stop']"]


def test_unhashable_turn_end_reason_is_an_issue_not_a_crash():
    recs = decode_lines(
        "s",
        _session(
            {"type": "step/start", "data": {"turn": 1, "step": 1}},
            {"type": "turn/end", "data": {"turn": 1, "reason": {"kind": {"nested": True}}}},
        ),
    )
    (d,) = [r for r in recs if isinstance(r, Decoded)]
    assert d.exchange.terminal is None
    assert [i.kind for i in d.issues] == ["finish-reason"]


def test_token_counts_are_json_integers():
    usage = {"inputTokens": "12", "outputTokens": 7.0, "cacheReadTokens": 2.5, "reasoningTokens": True}
    d = _one_step(_chunk({"type": "usage", "usage": usage}), _chunk({"type": "finish", "reason": {"kind": "stop"}}))
    ex = d.exchange
    # 2.5 used to be truncated to 2; text is not a JSON integer
    assert (ex.input_tokens, ex.output_tokens, ex.cache_read_tokens, ex.reasoning_tokens) == (None, 7, None, None)
    assert ex.terminal == "completed"


def test_a_nan_literal_is_not_json():
    usage = {"inputTokens": float("nan")}  # json.dumps writes NaN, which is not JSON
    records = list(decode_lines("s", _session(_chunk({"type": "usage", "usage": usage}))))
    (p,) = [r for r in records if isinstance(r, Problem)]
    assert p.kind == "bad-entry" and "NaN is not JSON" in p.message


# --------------------------------------------------------------------------------------------
# Logs written by the published DSH 0.1.0-rc.8 itself (data/dsh-*, lab/run.py --dsh)

DSH_WRITTEN = sorted((Path(__file__).resolve().parent.parent / "data").glob("dsh-*/session.jsonl.zstd"))


@pytest.mark.parametrize("path", DSH_WRITTEN, ids=lambda p: p.parent.name)
def test_dsh_written_log_packed_rows_and_seqs(path):
    """A real log splits one call's deltas over several packed rows, with other events between them; each
    member takes seq0 + k, and together with the plain events the seqs run 0, 1, 2, … without a gap."""
    got = _split(_records(path))
    assert not got[Problem]
    seqs = sorted(e.seq for e in got[Event] if e.seq is not None)
    assert seqs == list(range(len(seqs)))
    deltas: dict = {}
    for e in got[Event]:
        chunk = e.payload.get("chunk") if isinstance(e.payload, dict) else None
        if e.type == "assistant/chunk" and isinstance(chunk, dict) and chunk.get("type") == "tool-call-delta":
            deltas.setdefault(chunk["id"], []).append(chunk["argumentsDelta"])
    # DSH keeps pi-ai's joined Responses id `call_…|fc_…`; a call row splits it into call_id and item_id
    calls = {f"{c.call_id}|{c.item_id}": c for d in got[Decoded] for c in d.calls}
    assert deltas and set(deltas) == set(calls)
    for joined, parts in deltas.items():
        assert "".join(parts) == calls[joined].arguments_raw  # the exact string DSH dispatched
        assert calls[joined].call_id.startswith("call_") and calls[joined].item_id.startswith("fc_")


@pytest.mark.parametrize("path", DSH_WRITTEN, ids=lambda p: p.parent.name)
def test_dsh_written_log_event_types(path):
    """Every event type the real log holds is one DSH's session package knows (KNOWN_SESSION_EVENT_TYPES)
    or a packed row; the title request is an event, not a model step."""
    got = _split(_records(path))
    types = {e.type for e in got[Event] if e.packed is None}
    assert {facts.REQUEST_HEADER, facts.REQUEST_CONTEXT, facts.TOOL_CALL, facts.TOOL_RESULT} <= types
    assert facts.TITLE_REQUEST in types
    steps = {(e.turn, e.step) for e in got[Event] if e.type == facts.STEP_START}
    assert len(got[Decoded]) == len(steps)
