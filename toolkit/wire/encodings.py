"""Body transfer encodings (base64, Content-Encoding) undone with a hard cap on the output size.

A capture is untrusted input: a 1 MB gzip body can inflate to gigabytes. Every decompressor here
stops at ``cap`` bytes and raises ``BodyTooLarge`` instead of allocating more.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from collections.abc import Callable

from toolkit.wire.records import BAD_BASE64, BAD_COMPRESSION, BODY_TOO_LARGE

__all__ = [
    "MAX_BODY_BYTES",
    "BadBase64",
    "BodyDecodeError",
    "BodyTooLarge",
    "decode_base64",
    "decode_content",
    "sniff_compression",
]

#: Default ceiling on a decoded body (documented in the README, "Limits").
MAX_BODY_BYTES = 64 * 1024 * 1024


class BodyDecodeError(ValueError):
    """A body whose declared encoding does not match its bytes; ``kind`` is its problem kind."""

    kind = BAD_COMPRESSION


class BadBase64(BodyDecodeError):
    """A body marked base64 that is not."""

    kind = BAD_BASE64


class BodyTooLarge(BodyDecodeError):
    """A body that would inflate beyond the cap."""

    kind = BODY_TOO_LARGE


def decode_base64(text: str) -> bytes:
    if not _clean_b64(text):
        return b""
    compact = "".join(text.split())
    compact += "=" * (-len(compact.rstrip("=")) % 4 if not compact.endswith("=") else 0)
    altchars = b"-_" if ("-" in compact or "_" in compact) else None
    try:
        return base64.b64decode(compact, altchars=altchars, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise BadBase64(f"invalid base64: {exc}") from None


def _clean_b64(text: str) -> bool:
    # b64decode(validate=False) silently drops junk; refuse text that is visibly not base64.
    stripped = text.strip()
    if not stripped:
        return False
    body = stripped.rstrip("=")
    bad = body.translate(_B64_DELETE)
    if bad.strip():
        raise BadBase64(f"invalid base64: unexpected character {bad.strip()[0]!r}")
    if len(stripped.replace("\n", "").replace("\r", "")) % 4 == 1:
        raise BadBase64("invalid base64: truncated input")
    return True


_B64_DELETE = str.maketrans("", "", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_\r\n")


def decode_content(data: bytes, content_encoding: str | None, *, cap: int = MAX_BODY_BYTES) -> bytes:
    """Undo a Content-Encoding chain (``gzip, br`` is undone right to left), at most ``cap`` bytes."""
    if len(data) > cap:
        raise BodyTooLarge(f"body is {len(data)} bytes, over the {cap}-byte cap")
    codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
    for coding in reversed(codings):
        if coding in ("identity", "none", ""):
            continue
        decoder = _DECODERS.get(coding)
        if decoder is None:
            raise BodyDecodeError(f"unsupported Content-Encoding {coding!r}")
        data = decoder(data, cap)
    return data


def sniff_compression(data: bytes) -> str | None:
    """The encoding a body's magic bytes show (for exporters that kept compressed bytes)."""
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    return None


def _zlib_family(wbits: int) -> Callable[[bytes, int], bytes]:
    def decode(data: bytes, cap: int) -> bytes:
        d = zlib.decompressobj(wbits)
        try:
            out = d.decompress(data, cap + 1)
        except zlib.error as exc:
            raise BodyDecodeError(f"corrupt compressed body: {exc}") from None
        if len(out) > cap:
            raise BodyTooLarge(f"body inflates beyond the {cap}-byte cap")
        if not d.eof:  # zlib hands back what it has of a cut stream without a word
            raise BodyDecodeError(f"compressed body ends early: {len(data)} bytes hold no end of stream")
        return out

    return decode


def _deflate(data: bytes, cap: int) -> bytes:
    # "deflate" is zlib-wrapped per RFC 9110, but many servers send raw deflate.
    try:
        return _zlib_family(zlib.MAX_WBITS)(data, cap)
    except BodyTooLarge:
        raise
    except BodyDecodeError:
        return _zlib_family(-zlib.MAX_WBITS)(data, cap)


def _brotli(data: bytes, cap: int) -> bytes:
    import brotli

    d = brotli.Decompressor()
    try:
        out = bytearray(d.process(data, output_buffer_limit=cap + 1))
        while len(out) <= cap and not d.is_finished() and not d.can_accept_more_data():
            out += d.process(b"", output_buffer_limit=cap + 1 - len(out))
    except brotli.error as exc:
        raise BodyDecodeError(f"corrupt brotli body: {exc}") from None
    if len(out) > cap:
        raise BodyTooLarge(f"body inflates beyond the {cap}-byte cap")
    return bytes(out)


def _zstd(data: bytes, cap: int) -> bytes:
    import io

    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
    try:
        out = reader.read(cap + 1)
    except zstandard.ZstdError as exc:
        raise BodyDecodeError(f"corrupt zstd body: {exc}") from None
    if len(out) > cap:
        raise BodyTooLarge(f"body inflates beyond the {cap}-byte cap")
    return out


_DECODERS = {
    "gzip": _zlib_family(16 + zlib.MAX_WBITS),
    "x-gzip": _zlib_family(16 + zlib.MAX_WBITS),
    "deflate": _deflate,
    "br": _brotli,
    "zstd": _zstd,
}
