"""JSON and typed netstrings nested 100,000 deep (issue 27): every reader ends with a problem row or a
clean ``CaptureError``, never ``RecursionError``; the CLI prints one line and exits 2 for a file it
cannot read. The inputs are made here from the project's own data and fixtures."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, tnet

from toolkit.capture.load import load_capture
from toolkit.errors import CaptureError
from toolkit.present import cli
from toolkit.sources.sniff import first_line_object
from toolkit.wire import json_text
from toolkit.wire.tnetstring import TNetStringError, parse

DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH
HAR = REPO / "data/dsh-image/capture.har"
SSE = REPO / "tests/fixtures/sse/chat_tool_call.sse"
JSONL = REPO / "data/dsh-image/gateway.jsonl"
MITM = REPO / "tests/fixtures/mitm/mitmproxy-6.0.2.mitm"
BODY = REPO / "tests/fixtures/response-body/chat_completion.json"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def problems(capture) -> list[tuple[str, str]]:
    return [(p.kind, p.message) for p in capture.problems.itertuples()] if len(capture.problems) else []


# -- json_text -----------------------------------------------------------------------------------


def test_json_nested_past_the_limit_is_a_json_error_at_the_bracket():
    with pytest.raises(json.JSONDecodeError) as info:
        json_text.loads('{"a": ' + DEEP + "}")
    assert info.value.msg == "nested deeper than MAX_JSON_DEPTH (1024) levels"
    assert info.value.pos == 5 + json_text.MAX_JSON_DEPTH  # the opening bracket of level 1,025 (the object is 1)
    nested = "[" * json_text.MAX_JSON_DEPTH + "]" * json_text.MAX_JSON_DEPTH
    assert json_text.loads(nested)  # at the limit: read


def test_json_python_parses_past_its_stack_is_a_json_error_too():
    """A text orjson refuses for another reason (a lone surrogate) goes to Python's parser, which
    recurses: past its stack, the same JSON error."""
    with pytest.raises(json.JSONDecodeError, match=r"^nested deeper than MAX_JSON_DEPTH \(1024\) levels"):
        json_text.loads('["\\ud800", ' + DEEP + "]")
    shallower = "[" * 1020 + "]" * 1020
    with pytest.raises(json.JSONDecodeError, match=r"^nested 1021 levels deep, past the stack of Python's JSON parser"):
        json_text.loads('["\\ud800", ' + shallower + "]")


def test_sniffing_a_deep_first_line_is_not_json_lines():
    assert first_line_object(('{"a": ' + DEEP + "}\n").encode()) is None


# -- readers -------------------------------------------------------------------------------------


def test_a_har_entry_nested_deep_is_refused_on_one_line(tmp_path, capsys):
    """The HAR reader cannot tell where such an entry ends, so the file is refused (har.py's own rule)."""
    text = HAR.read_text(encoding="utf-8")
    at = text.index('"startedDateTime"')
    path = tmp_path / "deep.har"
    path.write_text(text[:at] + f'"x-deep": {DEEP}, ' + text[at:], encoding="utf-8")
    with pytest.raises(CaptureError, match="nested too deeply") as info:
        load_capture(path)
    assert info.value.path == str(path)
    code, out, err = run(capsys, "verify", "--capture", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1 and "nested too deeply" in err


NEITHER = 'a JSON document that is neither HAR (no top-level "log") nor JSON Lines'
DEEPER = "nested deeper than MAX_JSON_DEPTH (1024) levels (the rest of the file cannot be read)"


@pytest.mark.parametrize(
    ("seed", "where", "said"), [(HAR, "byte 1035", DEEPER), (BODY, "byte 0", NEITHER)], ids=["har", "response-body"]
)
def test_a_json_file_that_opens_nested_deep_is_refused_on_one_line(tmp_path, capsys, seed, where, said):
    """A HAR (named so) walks its top-level keys and cannot skip this one; a ``.json`` body is judged by
    its head (64 KiB of brackets), whose parse in sniffing recursed until ``RecursionError``."""
    text = json.dumps(json.loads(seed.read_text(encoding="utf-8")))
    path = tmp_path / f"deep{seed.suffix}"
    path.write_text('{"x-deep": ' + DEEP + ", " + text[1:], encoding="utf-8")
    with pytest.raises(CaptureError) as info:
        load_capture(path)
    assert str(info.value) == f"{path} ({where}): {said}"
    code, out, err = run(capsys, "verify", "--capture", str(path))
    assert (code, out, err) == (2, "", f"agent-contract: error: {path} ({where}): {said}\n")


def test_an_sse_data_line_nested_deep_is_a_problem_row(tmp_path):
    lines = SSE.read_text(encoding="utf-8").split("\n")
    n = next(i for i, line in enumerate(lines) if line.startswith("data: {"))
    lines.insert(n, "data: " + DEEP + "\n")
    path = tmp_path / "deep.sse"
    path.write_text("\n".join(lines), encoding="utf-8")
    capture = load_capture(path)
    said = "byte 0: invalid JSON at char 1024: nested deeper than MAX_JSON_DEPTH (1024) levels"
    assert ("sse-frame", said) in problems(capture)


def test_a_jsonl_line_nested_deep_is_a_problem_row_and_the_rest_is_kept(tmp_path):
    lines = JSONL.read_text(encoding="utf-8").splitlines(keepends=True)
    plain = load_capture(JSONL)
    path = tmp_path / "deep.jsonl"
    path.write_text(lines[0] + '{"x-deep": ' + DEEP + "}\n" + "".join(lines[1:]), encoding="utf-8")
    capture = load_capture(path)
    assert len(capture.exchanges) == len(plain.exchanges)
    said = "line 2: not JSON: nested deeper than MAX_JSON_DEPTH (1024) levels (column 1035, byte "
    assert [(k, m[: len(said)]) for k, m in problems(capture)] == [("bad-entry", said)]


# -- mitmproxy's typed netstrings ----------------------------------------------------------------


def deep_tnet(depth: int) -> bytes:
    """A list nested ``depth`` deep as a typed netstring, built outside in (no recursion, linear time)."""
    sizes = [3]  # b"0:]"
    for _ in range(depth - 1):
        sizes.append(len(str(sizes[-1])) + 2 + sizes[-1])
    prefixes = b"".join(b"%d:" % size for size in reversed(sizes[:-1]))
    return prefixes + b"0:]" + b"]" * (depth - 1)


def test_the_tnetstring_parser_is_iterative():
    data = deep_tnet(DEPTH)
    value, end = parse(data)
    assert end == len(data)
    for _ in range(DEPTH - 1):
        assert len(value) == 1
        value = value[0]
    assert value == []
    with pytest.raises(TNetStringError, match=r"^byte 2: dictionary key is a list, not text"):
        parse(b"7:0:]1:1#}")  # {[]: 1}: the recursive parser raised TypeError (unhashable type)


def test_a_mitm_flow_nested_deep_is_read(tmp_path, capsys):
    data = MITM.read_bytes()
    first, end = parse(data)
    marker = "@@deep@@"
    first["client_conn"]["cipher"] = marker  # where the campaign's mutant put it
    grown = _tnet_grown(first, marker, deep_tnet(DEPTH))
    path = tmp_path / "deep.mitm"
    path.write_bytes(grown + data[end:])
    plain = load_capture(MITM)
    capture = load_capture(path)  # the cipher is not read: the flow is kept whole
    assert len(capture.exchanges) == len(plain.exchanges) and problems(capture) == problems(plain)
    code, _, err = run(capsys, "verify", "--capture", str(path))
    assert "Traceback" not in err and code == run(capsys, "verify", "--capture", str(MITM))[0]


def _tnet_grown(value, marker: str, deep: bytes) -> bytes:
    """``tnet`` with the string ``marker`` written as ``deep`` (the flow itself is shallow)."""
    if value == marker:
        return deep
    if isinstance(value, list):
        p = b"".join(_tnet_grown(v, marker, deep) for v in value)
        return b"%d:%s]" % (len(p), p)
    if isinstance(value, dict):
        p = b"".join(tnet(k) + _tnet_grown(v, marker, deep) for k, v in value.items())
        return b"%d:%s}" % (len(p), p)
    return tnet(value)


def test_a_small_json_document_nested_deep_is_refused_at_the_bracket(tmp_path, capsys):
    """Under the head's size detection parses the document to say why no reader takes it (it recursed)."""
    path = tmp_path / "deep.txt"
    path.write_text('{"a": ' + "[" * 2000 + "]" * 2000 + "}", encoding="utf-8")
    said = f"{path} (byte 1029): not valid JSON: nested deeper than MAX_JSON_DEPTH (1024) levels"
    with pytest.raises(CaptureError) as info:
        load_capture(path)
    assert str(info.value) == said
    assert run(capsys, "verify", "--capture", str(path)) == (2, "", f"agent-contract: error: {said}\n")


# -- values as deep as the parser accepts -------------------------------------------------------------------

ACCEPTED = 1000  # as the fuzz campaign nested: within what loads accepts (MAX_JSON_DEPTH), so readers must cope


def _deep_value(bottom):
    value = bottom
    for i in range(ACCEPTED):
        value = {"a": value} if i % 2 else [value]
    return value


def _deep_text(bottom: str) -> str:
    """``_deep_value`` as JSON text, written without json's encoder (which recurses)."""
    opens = "".join('{"a": ' if i % 2 else "[" for i in reversed(range(ACCEPTED)))
    closes = "".join("}" if i % 2 else "]" for i in range(ACCEPTED))
    return opens + bottom + closes


def test_redaction_reaches_the_bottom_of_a_value_as_deep_as_json_allows():
    """A secret 1,020 levels down is still redacted, and walking there does not meet Python's stack (the recursive
    walk raised RecursionError on codex and DSH session lines in the fuzz campaign)."""
    from toolkit.capture.redact import REDACTED, redact_obj

    key = "sk-proj-" + "abcd1234" * 5
    out = redact_obj(_deep_value({"api_key": key, "note": f"Bearer {key}", "keep": [1, None, True]}))
    while not (isinstance(out, dict) and "api_key" in out):
        out = out["a"] if isinstance(out, dict) else out[0]
    assert out["api_key"] == REDACTED and out["note"] == f"Bearer {REDACTED}" and out["keep"] == [1, None, True]


@pytest.mark.parametrize(
    ("seed", "compress", "inside"),
    [
        (REPO / "tests/fixtures/codex/real-0.171.0-escalation-never.jsonl", False, b'"payload":{'),
        (REPO / "data/dsh-image/session.jsonl.zstd", True, b'"data":{'),
    ],
    ids=["codex-rollout", "dsh-session"],
)
def test_a_line_holding_a_value_as_deep_as_json_allows_is_read(tmp_path, seed, compress, inside):
    """A deep value inside the part of a line the reader redacts and keeps (the record's payload)."""
    import zstandard

    raw = seed.read_bytes()
    if compress:
        raw = zstandard.ZstdDecompressor().stream_reader(raw).read()
    lines = raw.split(b"\n")
    deep = inside + b'"deep": ' + _deep_text('"x"').encode() + b","
    lines[1:] = [line.replace(inside, deep, 1) for line in lines[1:]]  # the first line stays plain for detection
    data = b"\n".join(lines)
    path = tmp_path / seed.name
    path.write_bytes(zstandard.ZstdCompressor().compress(data) if compress else data)
    cap, before = load_capture(path), load_capture(seed)
    assert (len(cap.exchanges), len(cap.calls), len(cap.events)) == (
        len(before.exchanges),
        len(before.calls),
        len(before.events),
    )


def test_a_jsonl_request_body_holding_a_value_as_deep_as_json_allows_is_read(tmp_path):
    """A JSON Lines record's parsed body is written back as compact JSON for the wire decoder: orjson's writer stops
    at 255 levels and json's meets Python's stack, so a 1,000-deep value became a ``decoder`` problem (a toolkit
    bug) and its request was lost; now its request and tools are read."""
    seed = REPO / "tests/fixtures/jsonl/canonical.jsonl"
    lines = seed.read_text(encoding="utf-8").split("\n")
    at = 2  # not the first line, which format detection reads
    assert '"body": {' in lines[at]
    lines[at] = lines[at].replace('"body": {', '"body": {"deep": ' + _deep_text('"x"') + ", ", 1)
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    cap, before = load_capture(path), load_capture(seed)
    assert problems(cap) == problems(before)
    assert (len(cap.exchanges), len(cap.tools), len(cap.calls)) == (
        len(before.exchanges),
        len(before.tools),
        len(before.calls),
    )


def test_a_schema_as_deep_as_json_allows_has_a_hash():
    """Tools are stored once per schema hash: a schema past orjson's 255 levels was keyed on ``repr``, which meets
    Python's stack (fuzz seed 6, jsonl:30); its hash is the same whatever the order of its keys."""
    from toolkit.wire.schemas import canonical_json, schema_hash

    deep = _deep_value({"type": "string", "description": "x"})
    other = _deep_value({"description": "x", "type": "string"})
    assert schema_hash({"type": "object", "properties": {"p": deep}}) == schema_hash(
        {"properties": {"p": other}, "type": "object"}
    )
    assert canonical_json(deep).endswith('{"description":"x","type":"string"}' + "]}" * (ACCEPTED // 2))
