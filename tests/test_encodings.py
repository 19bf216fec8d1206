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
