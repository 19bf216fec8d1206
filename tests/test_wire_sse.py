"""SSE decoding: WHATWG line rules, offsets, and chunking-independence (property tests)."""

from __future__ import annotations

from conftest import FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.wire.responses import decode_stream
from toolkit.wire.sse import BAD_TEXT, SSEDecoder, SSEEvent, decode_events, parse_json_events

WIRE = FIXTURES / "wire"


def feed_all(chunks):
    dec = SSEDecoder()
    out = []
    for c in chunks:
        out += dec.feed(c)
    return out + dec.close()


def test_line_endings_crlf_lf_cr_are_equivalent():
    for eol in (b"\n", b"\r\n", b"\r"):
        body = eol.join([b"event: a", b"data: 1", b"", b"data: 2", b"", b""])
        evs = decode_events(body)
        assert [(e.event, e.data) for e in evs] == [("a", "1"), (None, "2")], eol


def test_multiline_data_comment_space_and_fields():
    body = b": keepalive\n\nid: 7\nretry: 1500\ndata:no-space\ndata:  two spaces\ndata\n\n"
    (ev,) = decode_events(body)
    assert ev.data == "no-space\n two spaces\n"
    assert ev.id == "7" and ev.retry == 1500
    assert ev.offset == body.index(b"id: 7")  # the comment frame before does not count


def test_blank_lines_alone_dispatch_nothing_and_id_persists():
    evs = decode_events(b"\n\n\nid: x\ndata: a\n\n\n\ndata: b\n\n")
    assert [(e.data, e.id) for e in evs] == [("a", "x"), ("b", "x")]


def test_bom_ignored_even_when_split_and_offsets_count_it():
    body = b"\xef\xbb\xbfdata: a\n\n"
    evs = feed_all([body[:1], body[1:2], body[2:]])
    assert [(e.data, e.offset) for e in evs] == [("a", 3)]
    assert decode_events(b"data: \xef\xbb\xbf\n\n")[0].data == "\ufeff"  # not at stream start: kept


def test_cr_at_chunk_end_then_lf_is_one_break():
    evs = feed_all([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"])
    assert [e.data for e in evs] == ["a\nb"]


def test_unfinished_last_frame_is_not_dispatched_but_reported():
    evs = decode_events(b'data: a\n\ndata: {"x":1}')
    assert [(e.data, e.complete) for e in evs] == [("a", True), ('{"x":1}', False)]
    frames = list(parse_json_events(evs))
    assert frames[1][1] is None and "never dispatched" in frames[1][2]


def test_parse_json_events_done_and_malformed_with_offsets():
    body = b'data: {"a":1}\n\ndata: {"a":2,,}\n\ndata: [1]\n\ndata: [DONE]\n\n'
    frames = list(parse_json_events(decode_events(body)))
    assert frames[0] == (0, {"a": 1}, None)
    off, payload, err = frames[1]
    assert off == body.index(b'data: {"a":2') and payload is None
    assert err == "invalid JSON at char 7: Expecting property name enclosed in double quotes"
    assert frames[2][2] == "frame is JSON list, not an object"
    assert frames[3] == (body.index(b"data: [DONE]"), None, None)


def test_fixture_frames_all_parse():
    for name in ("responses_call.sse", "chat_call.sse", "responses_failed.sse"):
        frames = list(parse_json_events(decode_events((WIRE / name).read_bytes())))
        assert frames and all(err is None for _, _, err in frames), name


# ---- any chunking gives the same events ----------------------------------------------------------


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)])]


_field = st.sampled_from(["data", "event", "id", "retry", "", "x"])
_value = st.text(alphabet=st.sampled_from('aé€😀: {}"1\u2028'), max_size=6)
_eol = st.sampled_from(["\n", "\r\n", "\r"])
_lines = st.lists(st.tuples(_field, _value, _eol), max_size=25)


@st.composite
def sse_bodies(draw):
    parts = ["\ufeff"] if draw(st.booleans()) else []
    for name, value, eol in draw(_lines):
        parts.append(("" if name == "" and not value else f"{name}:{value}") + eol)
    return "".join(parts).encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(sse_bodies(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_any_chunking_gives_identical_events(body, cuts):
    whole = feed_all([body])
    assert feed_all(_split(body, cuts)) == whole
    assert feed_all([body[i : i + 1] for i in range(len(body))]) == whole  # every split point at once


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=10))
def test_any_chunking_of_crlf_fixture(cuts):
    body = (WIRE / "responses_call.sse").read_bytes().replace(b"\n", b"\r\n")
    whole = feed_all([body])
    assert len(whole) == 6 and all(isinstance(e, SSEEvent) for e in whole)
    assert feed_all(_split(body, cuts)) == whole


@settings(max_examples=300, deadline=None)
@given(sse_bodies())
def test_whole_body_fast_path_matches_incremental_decoder(body):
    lf_only = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    assert decode_events(lf_only) == feed_all([lf_only[i : i + 1] for i in range(len(lf_only))])


# --- bytes that are not UTF-8: read as U+FFFD and reported, not silently altered -----------------


_BAD = b'data: {"type":"response.created","note":"caf\xe9"}\n\ndata: {"type":"response.completed","response":{"status":"completed","output":[]}}\n\n'


def _reports(events):
    seen = []
    out = list(parse_json_events(events, on_bad_text=lambda offset, message: seen.append((offset, message))))
    return out, seen


def test_bad_utf8_in_a_frame_is_reported_with_its_byte_offset():
    at = _BAD.index(b"\xe9")
    for chunks in ([_BAD], [_BAD[:at], _BAD[at:]], [bytes([b]) for b in _BAD], [_BAD.replace(b"\n", b"\r\n")]):
        events = feed_all(chunks) if len(chunks) > 1 else decode_events(chunks[0])
        out, seen = _reports(events)
        assert events[0].data.endswith('caf\ufffd"}')  # read as a client reads it
        expected = at if b"\r" not in chunks[0] else _BAD.replace(b"\n", b"\r\n").index(b"\xe9")
        assert seen == [(expected, BAD_TEXT)] and events[0].bad_byte == expected
        assert out[0][1]["note"] == "caf\ufffd"


def test_a_stream_decoder_turns_bad_utf8_into_a_bad_utf8_issue():
    info = decode_stream(_BAD)
    at = _BAD.index(b"\xe9")
    assert [(i.kind, i.message) for i in info.issues] == [("bad-utf8", f"byte {at}: {BAD_TEXT}")]
    assert info.terminal == "completed"


def test_clean_frames_report_nothing():
    out, seen = _reports(decode_events(_BAD.replace(b"\xe9", "é".encode())))
    assert seen == [] and len(out) == 2
