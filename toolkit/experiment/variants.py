"""Variants of one captured request, each changing only its own part of the contract, so a difference
in what the model does can be laid at that part's door. Pure: no I/O.

Where ``strict`` lives: Responses ``tools[i].strict``, Chat Completions ``tools[i].function.strict``,
Anthropic Messages ``tools[i].strict`` next to ``input_schema`` (its strict tool use; the Anthropic SDK
sends it, tests/fixtures/messages/sdk_capture.jsonl). Only function tools are touched; built-in tools
(web search, …) are left as captured. What each variant changed is listed in
``hops.diff``'s vocabulary (``hops.request_changes``), so the two read alike.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolkit.analysis.hops import request_changes
from toolkit.analysis.whatif import prune_schema
from toolkit.errors import InputError
from toolkit.experiment.frames import CHANGES, VARIANTS
from toolkit.knowledge import dsh_runtime as rt

__all__ = ["APIS", "IMAGE_TYPES", "Variant", "build", "has_images", "image_paths"]

#: The request shapes a variant can be built for (``exchanges.api``).
APIS = ("responses", "chat", "messages")

#: Content-part types that carry an image: Responses ``input_image``, Chat ``image_url``, Messages ``image``.
IMAGE_TYPES = ("input_image", "image_url", "image")


@dataclass(frozen=True)
class Variant:
    """One request to send: its name (``VARIANTS``), the body, what it changed against the captured body
    (frame ``experiment.changes``), and whether it is the captured body after all (a variant that had
    nothing to change is still sent, so the comparison keeps its arms)."""

    name: str
    body: dict
    changes: pd.DataFrame
    same_as_captured: bool


def build(body: dict, names: Sequence[str], *, api: str, mode: str | None = None) -> list[Variant]:
    """One ``Variant`` per name, in the order given, each a deep copy of ``body`` with only its part changed:
    ``strict-absent`` deletes ``strict`` on every function tool, ``strict-false``/``strict-true`` set it,
    ``prune-schema`` prunes every schema holding ``sandbox_permissions`` for ``mode``
    (``whatif.prune_schema``), ``no-images`` drops every image part, ``as-captured`` changes nothing."""
    if not isinstance(body, dict):
        raise InputError(f"variants.build: the request body is a {type(body).__name__}, not a JSON object")
    if api not in APIS:
        raise InputError(f"variants.build: api {api!r} is not one of {', '.join(APIS)}")
    if isinstance(names, str):
        names = [names]
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        raise InputError(f"variants: unknown variant {', '.join(map(repr, unknown))}; known: {', '.join(VARIANTS)}")
    twice = sorted({n for n in names if list(names).count(n) > 1})
    if twice:
        raise InputError(f"variants: {', '.join(twice)} named more than once")
    if not names:
        raise InputError(f"variants: no variant named; known: {', '.join(VARIANTS)}")
    out = []
    for name in names:
        new = copy.deepcopy(body)
        _CHANGE[name](new, api, mode)
        rows = [
            {"variant": name, "tool": t, "path": p, "kind": k, "before": b, "after": a}
            for t, p, k, b, a in request_changes(body, new, api_a=api)
        ]
        out.append(Variant(name, new, CHANGES.from_records(rows), new == body))
    return out


def has_images(body: dict) -> bool:
    """Whether the request carries an image part anywhere (a message or a tool output)."""
    return any(True for _ in _image_parts(body, "$"))


def image_paths(body: dict) -> list[str]:
    """The JSON paths of every image part, e.g. ``$.input[1].content[0]``, in document order."""
    return [p for p, _ in _image_parts(body, "$")]


def _is_image(v: Any) -> bool:
    return isinstance(v, dict) and v.get("type") in IMAGE_TYPES


def _image_parts(v: Any, path: str) -> Iterator[tuple[str, Any]]:
    if _is_image(v):
        yield path, v
        return
    if isinstance(v, dict):
        for k, x in v.items():
            if k != "tools":
                yield from _image_parts(x, f"{path}.{k}")
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _image_parts(x, f"{path}[{i}]")


def _functions(body: dict, api: str) -> Iterator[dict]:
    """The function definitions that carry ``strict`` and the schema, as dicts inside ``body``."""
    tools = body.get("tools")
    if not isinstance(tools, list):
        return
    for t in tools:
        if not isinstance(t, dict):
            continue
        if api == "chat":
            if t.get("type", "function") == "function" and isinstance(t.get("function"), dict):
                yield t["function"]
        elif api == "responses":
            if t.get("type") == "function":
                yield t
        elif "input_schema" in t:  # messages: custom tools have an input_schema, built-ins a type
            yield t


def _strict_absent(body: dict, api: str, mode: str | None) -> None:
    for fn in _functions(body, api):
        fn.pop("strict", None)


def _strict_to(value: bool):
    def change(body: dict, api: str, mode: str | None) -> None:
        for fn in _functions(body, api):
            fn["strict"] = value

    return change


def _prune(body: dict, api: str, mode: str | None) -> None:
    if mode is None:
        raise InputError("variants: prune-schema needs the session's sandbox mode (--mode)")
    if mode not in rt.MODES:
        raise InputError(f"variants: prune-schema: mode {mode!r} is not one of {', '.join(rt.MODES)}")
    key = "input_schema" if api == "messages" else "parameters"
    for fn in _functions(body, api):
        schema = fn.get(key)
        if isinstance(schema, dict) and "sandbox_permissions" in (schema.get("properties") or {}):
            fn[key] = prune_schema(schema, mode)


def _drop_images(v: Any) -> None:
    if isinstance(v, dict):
        for k, x in v.items():
            if k != "tools":
                _drop_images(x)
    elif isinstance(v, list):
        v[:] = [x for x in v if not _is_image(x)]
        for x in v:
            _drop_images(x)


def _no_images(body: dict, api: str, mode: str | None) -> None:
    _drop_images(body)


def _as_captured(body: dict, api: str, mode: str | None) -> None:
    return None


_CHANGE = {
    "as-captured": _as_captured,
    "strict-absent": _strict_absent,
    "strict-false": _strict_to(False),
    "strict-true": _strict_to(True),
    "prune-schema": _prune,
    "no-images": _no_images,
}
