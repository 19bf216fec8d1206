"""JSONL exchange logs: one JSON object per line, each holding one request and its response.

The file is read line by line and a record is yielded per line, so memory does not grow with the
file. Each non-blank line becomes exactly one ``Decoded`` (exchange id ``"{source}:{line}"``,
location ``"line {n}"``) or one ``Problem`` with no exchange id (kind ``bad-entry``: not strict JSON
or not an object, with the line, column and byte offset of the error; kind ``unknown-shape``: a JSON
object of none of the shapes below). Blank lines are not entries. Bytes that are not UTF-8 are read as
U+FFFD and reported on the exchange (``bad-utf8``, with the file's byte offset). The reader ends with ``EntryCount(source, "line", n)``. A
file in which not a single line parses as JSON raises ``CaptureError`` naming the first bad line.
``.gz`` and ``.zst`` files are read through transparently; their byte offsets count decompressed
bytes. A ``decoder`` Problem means the decoder itself failed on the line (a bug to report).

One module per log shape, each listing every field name it accepts and where the names come from;
they are tried in this order:

- ``canonical``: the toolkit's own shape (``request`` / ``response`` objects holding the wire bodies);
- ``flat``: ad-hoc logs with ``method``, ``url``, ``status``, ``request_*`` and ``response_*`` side by side;
- ``helicone``: rows of a Helicone ``--format jsonl --include-body`` export;
- ``litellm``: ``LiteLLM_SpendLogs`` rows;
- ``litellm_payload``: LiteLLM's ``StandardLoggingPayload`` (what its logging callbacks receive).

``lines`` streams the file and dispatches each line; ``entry`` turns what a shape read into the
decoded records; ``fields`` holds the value parsers the shapes share.

``request_bytes`` / ``response_bytes`` are the lengths of the bodies as the log holds them (JSON
values re-serialised compactly), not wire sizes, except for string and base64 bodies.
"""

from __future__ import annotations

from toolkit.sources.jsonl.lines import read, recognizes
from toolkit.sources.sniff import first_line_object

__all__ = ["read", "recognize", "recognizes"]


def recognize(head: bytes) -> bool:
    """The first line is a JSON object in one of the exchange-log shapes."""
    obj = first_line_object(head)
    return obj is not None and recognizes(obj)
