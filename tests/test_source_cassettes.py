"""HTTP cassettes (VCR.py, go-vcr, Ruby VCR): recorded by lab/record_cassettes.py, read into the same frames.

The VCR.py fixtures were recorded by vcrpy 9.4 with the openai SDK against the lab's stub gateway; the go-vcr
and Ruby VCR ones were written by the same script from the same exchanges (no Go or Ruby here).
"""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path

import pandas as pd
import pytest
import yaml
from conftest import FIXTURES

from toolkit.capture import frames, load_capture
from toolkit.errors import CaptureError
from toolkit.sources import detect, registry, sniff
from toolkit.sources.cassettes import go_vcr, ruby_vcr, vcr
from toolkit.sources.cassettes.go_vcr import go_duration_ms
from toolkit.wire.records import Decoded, EntryCount, Problem

VCR = FIXTURES / "vcr"
GO = FIXTURES / "go-vcr" / "openai.yaml"
RUBY = FIXTURES / "ruby-vcr" / "openai.yaml"

# what the gateway's gw-coder persona sent: only the required fields when the tool is not strict
# (Responses, strict absent), every field, Codex-style, when it is (Chat Completions, strict: true)
LOOSE_ARGS = {"command": "ls -la", "description": "List files in the workspace"}
STRICT_ARGS = {
    **LOOSE_ARGS,
    "timeoutMs": 120000,
    "workdir": ".",
    "run_in_background": False,
    "sandbox_permissions": "danger-full-access",
    "justification": "",
}

# fixture: (format, body_fidelity, chat response bytes as stored, started_at, duration_ms)
VARIANTS = {
    "vcr/openai_raw.yaml": ("vcr", "wire", 363, [None, None], [None, None]),
    "vcr/openai_raw.yaml.gz": ("vcr", "wire", 363, [None, None], [None, None]),
    "vcr/openai_decoded.yaml": ("vcr", "wire", 563, [None, None], [None, None]),
    "vcr/openai_parsed_body.yaml": ("vcr", "json", 563, [None, None], [None, None]),
    "go-vcr/openai.yaml": ("go-vcr", "wire", 563, [None, None], [50.0, 23.0]),
    "ruby-vcr/openai.yaml": ("ruby-vcr", "wire", 363, ["2026-11-30 09:00:00", "2026-11-30 09:00:01"], [None, None]),
}


def _check_frames(cap) -> None:
    for name, frame in frames.CAPTURE.items():
        assert frame.mismatches(getattr(cap, name)) == [], name


@pytest.mark.parametrize("name", list(VARIANTS), ids=lambda n: n.replace("/", ":"))
def test_each_variant_gives_the_recorded_exchanges(name):
    fmt, fidelity, chat_bytes, started, durations = VARIANTS[name]
    path = FIXTURES / name
    assert detect.detect(path) == fmt
    cap = load_capture(path)
    _check_frames(cap)
    ex = cap.exchanges
    assert list(ex["location"]) == ["interaction 0", "interaction 1"]
    assert list(ex["api"]) == ["responses", "chat"]
    assert list(ex["method"]) == ["POST", "POST"]
    assert list(ex["path"]) == ["/passthrough/v1/responses", "/passthrough/v1/chat/completions"]
    assert list(ex["status"]) == [200, 200]
    assert list(ex["stream"]) == [True, False]
    assert list(ex["terminal"]) == ["completed", "completed"]
    assert list(ex["model"]) == ["gw-coder", "gw-coder"]
    assert list(ex["body_fidelity"]) == [fidelity, fidelity]
    assert list(ex["request_bytes"]) == [3370, 3414]
    assert list(ex["response_bytes"]) == [12595, chat_bytes]
    assert [None if pd.isna(t) else str(t.tz_convert(None)) for t in ex["started_at"]] == started
    assert [None if pd.isna(d) else float(d) for d in ex["duration_ms"]] == durations
    tools = cap.tools
    assert list(tools["name"]) == ["bash", "bash"]
    assert list(tools["strict_state"]) == ["absent", "true"]
    calls = cap.calls
    assert list(calls["name"]) == ["bash", "bash"]
    assert list(calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]
    assert list(calls["complete"]) == [True, True]
    assert cap.problems.empty
    summary = cap.summary()
    assert (summary["unit"].tolist(), summary["entries"].tolist()) == (["interaction"], [2])
    assert summary["reconciles"].all() and summary["lost"].tolist() == [0]


def test_the_raw_cassette_keeps_the_gzip_bytes_and_the_decoded_one_does_not():
    """decode_compressed_response=False keeps the bytes (!!binary + content-encoding); both read the same."""
    raw, decoded = (VCR / "openai_raw.yaml").read_text(), (VCR / "openai_decoded.yaml").read_text()
    assert "!!binary" in raw and "content-encoding:\n      - gzip" in raw
    assert "!!binary" not in decoded and "content-encoding" not in decoded
    a, b = load_capture(VCR / "openai_raw.yaml"), load_capture(VCR / "openai_decoded.yaml")
    assert list(a.calls["arguments"]) == list(b.calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]
    assert list(a.exchanges["terminal"]) == list(b.exchanges["terminal"]) == ["completed", "completed"]


def test_the_gz_file_is_the_raw_cassette_compressed():
    assert gzip.decompress((VCR / "openai_raw.yaml.gz").read_bytes()) == (VCR / "openai_raw.yaml").read_bytes()
    assert sniff.head(VCR / "openai_raw.yaml.gz").startswith(b"interactions:")


def _vcr_with(tmp_path: Path, mutate) -> Path:
    doc = yaml.safe_load((VCR / "openai_decoded.yaml").read_text(encoding="utf-8"))
    mutate(doc)
    path = tmp_path / "cassette.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return path


@pytest.mark.parametrize("coding, compress", [("deflate", zlib.compress), ("gzip", gzip.compress)])
def test_compressed_binary_bodies_are_undone_by_their_content_encoding(tmp_path, coding, compress):
    def mutate(doc):
        resp = doc["interactions"][1]["response"]
        resp["body"]["string"] = compress(resp["body"]["string"].encode("utf-8"))
        resp["headers"]["content-encoding"] = [coding]

    path = _vcr_with(tmp_path, mutate)
    assert "!!binary" in path.read_text()
    cap = load_capture(path)
    assert cap.problems.empty
    assert list(cap.calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]


def test_the_json_serializer_is_read_too(tmp_path):
    doc = yaml.safe_load((VCR / "openai_decoded.yaml").read_text(encoding="utf-8"))
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(doc, indent=4), encoding="utf-8")
    assert detect.detect(path) == "vcr"
    assert list(load_capture(path).calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]


def test_psych_binary_strings_in_ruby_cassettes(tmp_path):
    """Ruby's Psych writes bytes that are not UTF-8 as ``!binary``; they are bytes, undone by Content-Encoding."""
    doc = yaml.safe_load(RUBY.read_text(encoding="utf-8"))
    body = doc["http_interactions"][1]["response"]["body"]
    body["string"] = base64.b64decode(body.pop("base64_string"))
    path = tmp_path / "psych.yml"
    path.write_text(yaml.safe_dump(doc).replace("!!binary", "!binary"), encoding="utf-8")
    assert "string: !binary" in path.read_text()
    cap = load_capture(path)
    assert cap.problems.empty
    assert list(cap.calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]


# ---- partly bad cassettes: good interactions read, each bad one a problem, counts reconcile ----------

BAD_VCR = """\
- not an interaction
- request:
    body: null
    headers: {}
    method: GET
    uri: http://127.0.0.1:18795/passthrough/v1/models
- request:
    body: '{"model": "gw-coder", "input": "hi", "stream": false}'
    headers: {}
    method: POST
    uri: http://127.0.0.1:18795/passthrough/v1/responses
  response:
    body:
      string: !!binary |
        @@@ this is not base64 @@@
    headers:
      content-encoding:
      - gzip
    status: {code: 200, message: OK}
- request:
    body: null
    headers: {}
    method: POST
    uri: http://127.0.0.1:18795/passthrough/v1/responses
  response:
    body:
      string: !!binary |
        H4sIAAAAAAAAA/////8=
    headers:
      content-encoding:
      - gzip
    status: {message: OK}
version: 1
"""

BAD_GO = """\
- request:
    body: ""
    form: {}
    headers: {}
    url: http://127.0.0.1:18795/passthrough/v1/models
    method: GET
- request: just text
  response: {}
- request:
    body: ""
    form: {}
    headers: {}
    url: http://127.0.0.1:18795/passthrough/v1/models
    method: GET
  response:
    body: '{"object": "list", "data": []}'
    headers:
      Content-Type:
      - application/json
    status: teapot
    code: teapot
    duration: soon
"""

BAD_RUBY = """\
- 42
- request:
    method: get
    uri: http://127.0.0.1:18795/passthrough/v1/models
    body: {encoding: UTF-8, string: ''}
    headers: {}
  response:
    status: {code: 200, message: OK}
    headers:
      Content-Encoding:
      - gzip
    body:
      encoding: ASCII-8BIT
      base64_string: '%%% not base64 %%%'
  recorded_at: yesterday
recorded_with: VCR 6.3.1
"""


def _partly_bad(tmp_path: Path, good: Path, bad: str, cut: str) -> Path:
    text = good.read_text(encoding="utf-8")
    assert text.endswith(cut) or cut == ""
    path = tmp_path / f"partly-bad-{good.parent.name}.yaml"
    path.write_text(text[: len(text) - len(cut)] + bad, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "good, bad, cut, fmt, expected",
    [
        (
            VCR / "openai_decoded.yaml",
            BAD_VCR,
            "version: 1\n",
            "vcr",
            [
                ("interaction 2", "bad-entry", "interaction is a string, not a mapping", False),
                ("interaction 3", "bad-entry", "interaction has no response mapping", False),
                ("interaction 4", "bad-base64", "response body: invalid base64: unexpected character '@'", True),
                ("interaction 5", "bad-compression", "response body (gzip): corrupt compressed body", True),
                ("interaction 5", "bad-field", "response status {'message': 'OK'} has no integer code", True),
            ],
        ),
        (
            GO,
            BAD_GO,
            "",
            "go-vcr",
            [
                ("interaction 2", "bad-entry", "interaction has no response mapping", False),
                ("interaction 3", "bad-entry", "interaction has no request mapping", False),
                ("interaction 4", "bad-field", "response code 'teapot' is not an integer", True),
                ("interaction 4", "bad-field", "duration 'soon' is not a Go duration", True),
            ],
        ),
        (
            RUBY,
            BAD_RUBY,
            "recorded_with: VCR 6.3.1\n",
            "ruby-vcr",
            [
                ("interaction 2", "bad-entry", "interaction is a number, not a mapping", False),
                ("interaction 3", "bad-base64", "response body: invalid base64: unexpected character '%'", True),
                ("interaction 3", "bad-field", "recorded_at 'yesterday' is not an RFC 2822 date", True),
            ],
        ),
    ],
    ids=["vcr", "go-vcr", "ruby-vcr"],
)
def test_a_partly_bad_cassette_keeps_its_good_interactions(tmp_path, good, bad, cut, fmt, expected):
    path = _partly_bad(tmp_path, good, bad, cut)
    assert detect.detect(path) == fmt
    cap = load_capture(path)
    _check_frames(cap)
    probs = cap.problems
    got = [
        (p.location, p.kind, p.message, isinstance(p.exchange_id, str))
        for p in probs.itertuples(index=False)
        if p.location not in ("interaction 0", "interaction 1")
    ]
    assert [(loc, kind, ok) for loc, kind, _, ok in got] == [(loc, kind, ok) for loc, kind, _, ok in expected]
    for (_, _, message, _), (_, _, prefix, _) in zip(got, expected, strict=True):
        assert message.startswith(prefix), (message, prefix)
    read = {p.location for p in probs.itertuples(index=False) if isinstance(p.exchange_id, str)}
    assert read <= set(cap.exchanges["location"])  # a problem with an exchange id belongs to a read exchange
    lost = {loc for loc, _, _, ok in expected if not ok}
    assert not lost & set(cap.exchanges["location"])
    summary = cap.summary()
    n = 2 + bad.count("\n- ") + bad.startswith("- ")
    assert summary["entries"].tolist() == [n]
    assert summary["lost"].tolist() == [len(lost)]
    assert summary["read"].tolist() == [n - len(lost)]
    assert summary["reconciles"].all()
    good_calls = cap.calls[cap.calls["exchange_id"].isin(cap.exchanges["exchange_id"][:2])]
    assert list(good_calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]


def test_reader_records_end_with_the_entry_count(tmp_path):
    path = _partly_bad(tmp_path, RUBY, BAD_RUBY, "recorded_with: VCR 6.3.1\n")
    records = list(ruby_vcr.read(path, "r"))
    assert records[-1] == EntryCount("r", "interaction", 4)
    assert [type(r).__name__ for r in records[:-1]] == ["Decoded", "Decoded", "Problem", "Decoded"]
    lost = records[2]
    assert isinstance(lost, Problem) and (lost.location, lost.exchange_id) == ("interaction 2", None)
    assert isinstance(records[3], Decoded) and records[3].exchange.exchange_id == "r:3"


# ---- files that are not cassettes -----------------------------------------------------------------


@pytest.mark.parametrize("reader", [vcr, go_vcr, ruby_vcr], ids=lambda m: m.__name__.rsplit(".", 1)[1])
@pytest.mark.parametrize(
    "content, message, location",
    [
        (b"interactions:\n- request: [\n  unclosed\n", "not YAML: ", "line 4, column 1"),
        (b"interactions: []\nhttp_interactions: []\n", "no interactions: ", "key "),
        (b"- just\n- a list\n", "not a cassette: a YAML array at the top level", "line 1"),
        (b'{"interactions": [}', "not JSON: ", "line 1, column 19"),
        (b"\x1f\x8b\x08\x00garbage", "corrupt gzip data", "byte 0"),
    ],
    ids=["not-yaml", "empty", "not-a-mapping", "bad-json", "bad-gzip"],
)
def test_a_file_that_is_no_cassette_raises_capture_error(tmp_path, reader, content, message, location):
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    with pytest.raises(CaptureError) as info:
        list(reader.read(path, "s"))
    err = info.value
    assert err.path == str(path)
    assert err.reason.startswith(message), err.reason
    assert err.location is not None and err.location.startswith(location), err.location
    assert str(err).startswith(f"{path} ({err.location}): ")


def test_a_cassette_without_its_list_names_the_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("version: 2\ninteractions:\n", encoding="utf-8")
    with pytest.raises(CaptureError, match=r"c\.yaml \(key 'interactions'\): no interactions: 'interactions' is empty"):
        load_capture(path)
    with pytest.raises(CaptureError, match=r"not a cassette: no 'http_interactions' key at the top level"):
        load_capture(path, format="ruby-vcr")


# ---- recognition and durations ------------------------------------------------------------------


def test_each_recogniser_claims_only_its_own_layout():
    """go-vcr's files also look like VCR.py's (both start their list with ``- request:``): the registry tries
    go-vcr first, and go-vcr claims only ``version: 2``."""
    heads = {"vcr": sniff.head(VCR / "openai_raw.yaml"), "go-vcr": sniff.head(GO), "ruby-vcr": sniff.head(RUBY)}
    modules = {"vcr": vcr, "go-vcr": go_vcr, "ruby-vcr": ruby_vcr}
    claims = {head: {name for name, m in modules.items() if m.recognize(heads[head])} for head in heads}
    assert claims == {"vcr": {"vcr"}, "go-vcr": {"go-vcr", "vcr"}, "ruby-vcr": {"ruby-vcr"}}
    assert {head: registry.recognize(h) for head, h in heads.items()} == {n: n for n in heads}
    # a VCR.py cassette small enough that its closing "version: 1" is in the head is still not go-vcr
    assert not go_vcr.recognize(b"interactions:\n- request:\n    body: null\nversion: 1\n")
    assert not vcr.recognize(b"# interactions:\n- request:\n")
    assert not ruby_vcr.recognize(b"notes:\n  http_interactions: []\n")


@pytest.mark.parametrize(
    "value, ms",
    [("50ms", 50.0), ("1m2.5s", 62500.0), ("12µs", 0.012), ("1h", 3_600_000.0), ("0", 0.0), ("0s", 0.0)]
    + [(1_500_000, 1.5), ("soon", None), ("", None), ("5", None), (True, None)],
)
def test_go_durations(value, ms):
    assert go_duration_ms(value) == ms


def test_go_vcr_version_1_cassettes_are_read_as_vcr(tmp_path):
    """go-vcr v1 wrote ``version: 1`` too (``url``, plain string bodies, ``code``): the VCR.py reader takes them."""
    path = tmp_path / "v1.yaml"
    path.write_text(GO.read_text(encoding="utf-8").replace("version: 2\n", "version: 1\n", 1), encoding="utf-8")
    assert detect.detect(path) == "vcr"
    cap = load_capture(path)
    assert cap.problems.empty
    assert list(cap.exchanges["status"]) == [200, 200]
    assert list(cap.exchanges["path"]) == ["/passthrough/v1/responses", "/passthrough/v1/chat/completions"]
    assert list(cap.calls["arguments"]) == [LOOSE_ARGS, STRICT_ARGS]
