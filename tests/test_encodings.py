import gzip
import zlib

import brotli
import pytest
import zstandard

from toolkit.wire.encodings import BodyDecodeError, BodyTooLarge, decode_base64, decode_content, sniff_compression

BODY = b'{"model":"test-model","input":"' + b"x" * 5000 + b'"}'
COMPRESSORS = {
    "gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": brotli.compress,
    "zstd": zstandard.compress,
}


@pytest.mark.parametrize("coding", sorted(COMPRESSORS))
def test_each_content_encoding_round_trips(coding):
    assert decode_content(COMPRESSORS[coding](BODY), coding) == BODY


def test_raw_deflate_and_chains():
    raw = zlib.compressobj(wbits=-15)
    data = raw.compress(BODY) + raw.flush()
    assert decode_content(data, "deflate") == BODY
    assert decode_content(brotli.compress(gzip.compress(BODY)), "gzip, br") == BODY
    assert decode_content(BODY, "identity") == BODY


@pytest.mark.parametrize("coding", sorted(COMPRESSORS))
def test_bomb_stops_at_the_cap(coding):
    bomb = COMPRESSORS[coding](b"\0" * 20_000_000)
    assert len(bomb) < 100_000
    with pytest.raises(BodyTooLarge, match="cap"):
        decode_content(bomb, coding, cap=1_000_000)


def test_corrupt_and_unknown_encodings_say_what_is_wrong():
    with pytest.raises(BodyDecodeError, match="corrupt"):
        decode_content(b"\x1f\x8b not gzip at all", "gzip")
    with pytest.raises(BodyDecodeError, match="unsupported Content-Encoding 'compress'"):
        decode_content(BODY, "compress")


def test_base64():
    assert decode_base64("eyJhIjoxfQ==") == b'{"a":1}'
    assert decode_base64("eyJhIjoxfQ") == b'{"a":1}'  # unpadded, as some exporters write it
    assert decode_base64("eyJh\nIjoxfQ==") == b'{"a":1}'  # wrapped lines
    assert decode_base64("-_8=") == b"\xfb\xff"  # URL-safe alphabet
    with pytest.raises(BodyDecodeError, match="unexpected character '%'"):
        decode_base64("eyJh%IjoxfQ==")
    with pytest.raises(BodyDecodeError, match="truncated"):
        decode_base64("eyJhI")


def test_sniff():
    assert sniff_compression(gzip.compress(b"x")) == "gzip"
    assert sniff_compression(zstandard.compress(b"x")) == "zstd"
    assert sniff_compression(b"{}") is None


def test_each_decode_error_names_its_problem_kind():
    from toolkit.wire.encodings import BadBase64

    with pytest.raises(BadBase64) as e:
        decode_base64("not base64!")
    assert e.value.kind == "bad-base64"
    with pytest.raises(BodyDecodeError) as e:
        decode_content(b"\x1f\x8b\x08\x00" + b"\xff" * 20, "gzip")
    assert e.value.kind == "bad-compression" and not isinstance(e.value, BadBase64)
    with pytest.raises(BodyTooLarge) as e:
        decode_content(gzip.compress(b"x" * 5000), "gzip", cap=100)
    assert e.value.kind == "body-too-large"


def test_a_cut_gzip_body_is_reported_not_returned_as_if_whole():
    whole = gzip.compress(b'{"type":"response.completed"}' * 50)
    assert decode_content(whole, "gzip").startswith(b'{"type"')
    with pytest.raises(BodyDecodeError, match="ends early"):
        decode_content(whole[: len(whole) // 2], "gzip")
