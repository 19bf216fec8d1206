"""VCR.py cassettes (``vcrpy``'s YAML serializer, also as ``.yaml.gz`` and its JSON serializer).

Layout (vcrpy ``vcr/serializers``, cassette ``version: 1``)::

    interactions:
    - request:  {body: str | !!binary | null, headers: {name: [value]}, method, uri}
      response: {body: {string: str | !!binary}, headers: {name: [value]}, status: {code, message}}
    version: 1

``!!binary`` bodies are the bytes as received: with ``decode_compressed_response=False`` a gzip or deflate
body stays compressed beside its ``content-encoding`` header and is undone here; with ``True`` vcrpy
stored the decoded text and dropped the header. pydantic-ai's serializer (its ``tests/json_body_serializer.py``)
replaces a JSON body by ``parsed_body``, the parsed value: it is re-serialised here, so such an exchange's
``body_fidelity`` is ``json``; the others' is ``wire``. VCR.py keeps no times: ``started_at`` and
``duration_ms`` stay empty. go-vcr v1 cassettes (also ``version: 1``: ``url``, a plain ``body`` string,
``code``) are read too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from os import PathLike
from typing import Any

from toolkit.sources.cassettes.interaction import (
    BadBinary,
    Interaction,
    bodies_present,
    body_bytes,
    headers,
    read_cassette,
    request_response,
)
from toolkit.wire.json_text import utf8_size
from toolkit.wire.records import BAD_BODY, BAD_FIELD, Decoded, EntryCount, Issue, Problem

__all__ = ["read", "recognize"]


def read(path: str | PathLike[str], source: str) -> Iterator[Decoded | Problem | EntryCount]:
    return read_cassette(path, source, "interactions", _interaction)


def _interaction(item: dict[str, Any]) -> Interaction:
    req, resp = request_response(item)
    it = Interaction(
        method=req.get("method") if isinstance(req.get("method"), str) else None,
        url=next((req[k] for k in ("uri", "url") if isinstance(req.get(k), str)), None),
        request_headers=headers(req.get("headers")),
        response_headers=headers(resp.get("headers")),
    )
    bodies_present(it, req, resp, ("body", "parsed_body"))
    it.request_body, it.request_bytes = _body(req, req.get("body"), it, "request")
    body = resp.get("body")
    it.response_body, it.response_bytes = _body(
        resp, body.get("string") if isinstance(body, dict) else body, it, "response"
    )
    status = resp.get("status")
    code = status.get("code") if isinstance(status, dict) else resp.get("code")
    if isinstance(code, int) and not isinstance(code, bool):
        it.status = code
    else:
        it.issues.append(Issue(BAD_FIELD, f"response status {status!r} has no integer code"))
    return it


def _body(part: dict[str, Any], value: Any, it: Interaction, direction: str) -> tuple[bytes | str | None, int | None]:
    if "parsed_body" in part and value is None:  # pydantic-ai
        try:
            text = json.dumps(part["parsed_body"], separators=(",", ":"), ensure_ascii=False, default=_no_json)
        except _NotJSON as exc:  # a YAML value JSON has no form for (!!binary, !!timestamp, !!set)
            it.issues.append(Issue(BAD_BODY, f"{direction} parsed_body is not JSON: it holds {exc}"))
            return None, None
        except (ValueError, RecursionError) as exc:  # a non-finite float; nesting past json's encoder
            it.issues.append(Issue(BAD_BODY, f"{direction} parsed_body is not JSON: {str(exc)[:200]}"))
            return None, None
        it.fidelity_of("json")
        return text, utf8_size(text)
    if value is not None:
        it.fidelity_of("wire")
    return body_bytes(value, it, direction)


class _NotJSON(TypeError):
    pass


def _no_json(value: Any) -> Any:
    """json's ``default``: a value YAML made that JSON has no form for, named as the cassette spelled it."""
    if isinstance(value, BadBinary):
        raise _NotJSON(f"a bad !!binary value ({value.message})")
    kinds: dict[type, str] = {bytes: "!!binary", set: "!!set"}
    kind = kinds.get(type(value), type(value).__name__)
    raise _NotJSON(f"a {kind} value")


# the top-level "interactions" list (column 0) whose first item starts with its request; go-vcr v2
# cassettes (``version: 2`` first) are claimed by go_vcr, which is tried before this reader
_YAML = re.compile(rb"^interactions:[ \t]*\r?\n(?:[ \t]*(?:#.*)?\r?\n)*[ \t]*- request:", re.M)
_JSON = re.compile(rb'^\{\s*"interactions"\s*:\s*\[\s*\{\s*"re(?:quest|sponse)"\s*:')


def recognize(head: bytes) -> bool:
    return bool(_YAML.search(head) or _JSON.match(head))
