"""What the Vercel AI SDK puts in the request's ``tools`` array, per api and per-tool ``strict``.

Modelled on ai@7.0.173 with @ai-sdk/openai@4.0.118 and @ai-sdk/openai-compatible@3.0.92 (the
``dist/index.js`` of each), verified by ``tests/fixtures/ai_sdk`` (``lab/ai-sdk-fixtures/generate.mjs``).
Notes: ``docs/upstream.md#ai-sdk-tools``.

* ``ai`` ``prepareTools`` (ai/dist/index.js:2131) passes a tool's ``strict`` on only when it is set
  (``tool({..., strict})``); ``jsonSchema(schema)`` hands the schema over untouched.
* ``responses`` (``openai.responses``): ``prepareFunctionTool`` (@ai-sdk/openai dist/index.js:7239)
  always writes ``strict: tool.strict ?? false``, after ``parameters``.
* ``chat`` (``openai.chat``): ``prepareChatTools`` (dist/index.js:1956) nests under ``function`` and
  writes ``strict`` only when set.
* Both openai apis first run ``normalizeOpenAIJsonSchema`` (dist/index.js:1839): ``propertyNames`` is
  removed (refused unless a string schema), a ``pattern`` with a regex lookaround is removed, and a
  singleton ``allOf: [{$ref}]`` becomes ``$ref`` (at the root: the local definition merged in).
* ``openai-compatible`` (``createOpenAICompatible``): ``prepareTools`` (@ai-sdk/openai-compatible
  dist/index.js:383) is ``chat`` without the normalisation.
* ``providerOptions.<provider>.strictJsonSchema`` is for ``response_format`` only; tools ignore it.

Not modelled: JavaScript's ordering of integer-like keys (``"1"``) before other keys of an object.
"""

from __future__ import annotations

import re
from typing import Any

from toolkit.errors import InputError

__all__ = [
    "AI_SDK_APIS",
    "DEFAULT_VERSION",
    "RELEASES",
    "AiSdkRefusal",
    "convert_tools",
    "normalize_openai_schema",
    "tool_warnings",
]

#: ``ai`` version -> the package versions whose tool conversion is modelled.
RELEASES: dict[str, dict[str, str]] = {
    "7.0.173": {"ai": "7.0.173", "@ai-sdk/openai": "4.0.118", "@ai-sdk/openai-compatible": "3.0.92"},
}
DEFAULT_VERSION = "7.0.173"
#: responses = ``openai.responses(id)``, chat = ``openai.chat(id)``, openai-compatible = ``createOpenAICompatible(...)(id)``
AI_SDK_APIS = ("responses", "chat", "openai-compatible")

_PROPERTY_NAMES_WARNING = {
    "type": "compatibility",
    "feature": "JSON Schema propertyNames",
    "details": (
        "OpenAI does not support JSON Schema propertyNames. It was removed before sending the schema, "
        "so OpenAI will not enforce property-name constraints."
    ),
}
_LOOKAROUND_WARNING = {
    "type": "compatibility",
    "feature": "JSON Schema pattern with regex lookaround",
    "details": (
        "OpenAI does not support regex lookaround in JSON Schema patterns. The pattern was removed before "
        "sending the schema, so OpenAI will not enforce that constraint."
    ),
}
_LOCAL_REF = re.compile(r"#/(definitions|\$defs)/(.+)")


class AiSdkRefusal(InputError):
    """The AI SDK throws before sending (the text is the SDK's): ``UnsupportedFunctionalityError`` for a
    schema it will not send, or the ``TypeError`` its normaliser hits on a malformed one (``error_name``)."""

    def __init__(self, message: str, error_name: str = "AI_UnsupportedFunctionalityError"):
        super().__init__(message)
        self.error_name = error_name


def _js_entries(value: Any) -> list[tuple[str, Any]]:
    """``Object.entries``: a malformed schema's list or string is read by index, anything else is empty."""
    if isinstance(value, dict):
        return list(value.items())
    if isinstance(value, list | str):
        return [(str(i), v) for i, v in enumerate(value)]
    return []


def _check(version: str, api: str | None = None) -> None:
    if version not in RELEASES:
        raise InputError(f"ai {version!r} is not modelled; choose one of {', '.join(RELEASES)}")
    if api is not None and api not in AI_SDK_APIS:
        raise InputError(f"unknown AI SDK api {api!r}; choose one of {', '.join(AI_SDK_APIS)}")


def _has_lookaround(pattern: str) -> bool:
    """``containsRegexLookaround``: ``(?=``, ``(?!``, ``(?<=``, ``(?<!`` outside a character class."""
    escaped = in_class = False
    for i, ch in enumerate(pattern):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif not in_class and ch == "(" and pattern[i + 1 : i + 2] == "?":
            nxt = pattern[i + 2 : i + 3]
            if nxt in ("=", "!") or (nxt == "<" and pattern[i + 3 : i + 4] in ("=", "!")):
                return True
    return False


def normalize_openai_schema(schema: Any, version: str = DEFAULT_VERSION) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """``normalizeOpenAIJsonSchema``: ``(schema as sent, warnings)``; raises ``AiSdkRefusal`` for a
    ``propertyNames`` that is not a string schema. The input is not changed."""
    _check(version)
    found = {"propertyNames": False, "lookaround": False}

    def definition(d: Any) -> Any:
        return d if isinstance(d, bool) else node(d)

    def record(m: Any) -> dict[str, Any]:
        return {k: definition(v) for k, v in _js_entries(m)}

    def mapped(out: dict[str, Any], key: str) -> list[Any]:
        if not isinstance(out[key], list):  # JS calls .map on it
            raise AiSdkRefusal(f"normalizedSchema.{key}.map is not a function", "TypeError")
        return [definition(i) for i in out[key]]

    def node(s: Any, root: bool = False) -> dict[str, Any]:
        if s is None:
            raise AiSdkRefusal("Cannot read properties of null (reading 'propertyNames')", "TypeError")
        names = s.get("propertyNames") if isinstance(s, dict) else None
        if names is not None:
            kind = names.get("type") if isinstance(names, dict) else None
            if isinstance(names, bool) or (kind is not None and kind != "string"):
                raise AiSdkRefusal(
                    "'JSON Schema propertyNames that does not use a string schema' functionality not supported."
                )
            found["propertyNames"] = True
        out = dict(_js_entries(s))  # `{ ...schema }`
        out.pop("propertyNames", None)
        pattern = out.get("pattern")
        if isinstance(pattern, str) and _has_lookaround(pattern):
            del out["pattern"]
            found["lookaround"] = True
        for key in ("properties", "patternProperties", "definitions", "$defs"):
            if out.get(key) is not None:
                out[key] = record(out[key])
        for key in ("additionalProperties", "additionalItems", "contains", "not", "if", "then", "else"):
            if out.get(key) is not None:
                out[key] = definition(out[key])
        if out.get("items") is not None:
            items = out["items"]
            out["items"] = [definition(i) for i in items] if isinstance(items, list) else definition(items)
        for key in ("allOf", "anyOf", "oneOf"):
            if out.get(key) is not None:
                out[key] = mapped(out, key)
        if out.get("dependencies") is not None:
            out["dependencies"] = {
                k: v if isinstance(v, list) else definition(v) for k, v in _js_entries(out["dependencies"])
            }
        ref = _singleton_ref(out)
        if ref is None:
            return out
        without = {k: v for k, v in out.items() if k != "allOf"}
        if not root:
            return {**without, "$ref": ref}
        target = _local_definition(ref, out)
        return out if target is None else {**target, **without}

    # JS assigns into a spread copy, so a reassigned key keeps its place (as in a Python dict).
    result = node(schema, root=True)
    warnings = [
        w
        for w, hit in ((_PROPERTY_NAMES_WARNING, found["propertyNames"]), (_LOOKAROUND_WARNING, found["lookaround"]))
        if hit
    ]
    return result, [dict(w) for w in warnings]


def _singleton_ref(s: dict[str, Any]) -> str | None:
    all_of = s.get("allOf")
    if not isinstance(all_of, list) or len(all_of) != 1:
        return None
    only = all_of[0]
    if isinstance(only, dict) and list(only) == ["$ref"] and isinstance(only["$ref"], str):
        return only["$ref"]
    return None


def _local_definition(ref: str, s: dict[str, Any]) -> dict[str, Any] | None:
    match = _LOCAL_REF.fullmatch(ref)
    if match is None:
        return None
    keyword, name = match.group(1), match.group(2).replace("~1", "/").replace("~0", "~")
    found = (s.get(keyword) or {}).get(name)
    return found if isinstance(found, dict) else None


def convert_tools(
    tools: list[dict[str, Any]], *, api: str, strict: bool | None = None, version: str = DEFAULT_VERSION
) -> list[dict[str, Any]]:
    """The ``tools`` array the AI SDK sends for ``api`` when every tool (``{name, description,
    parameters}``) is defined with ``strict`` (``None`` = not set on ``tool()``). Raises
    ``AiSdkRefusal`` where the SDK throws before sending, ``InputError`` for an unknown api or version."""
    _check(version, api)
    out: list[dict[str, Any]] = []
    for t in tools:
        params = t.get("parameters")
        if api != "openai-compatible":
            params, _ = normalize_openai_schema(params or {}, version)
        if api == "responses":
            entry: dict[str, Any] = {"type": "function", "name": t.get("name")}
            if t.get("description") is not None:
                entry["description"] = t["description"]
            entry["parameters"] = params
            entry["strict"] = False if strict is None else strict
            out.append(entry)
            continue
        fn: dict[str, Any] = {"name": t.get("name")}
        if t.get("description") is not None:
            fn["description"] = t["description"]
        fn["parameters"] = params
        if strict is not None:
            fn["strict"] = strict
        out.append({"type": "function", "function": fn})
    return out


def tool_warnings(tools: list[dict[str, Any]], *, api: str, version: str = DEFAULT_VERSION) -> list[dict[str, str]]:
    """The warnings the tools add to ``result.warnings`` (the openai apis' schema normalisation; the
    compatible provider adds none), in tool order."""
    _check(version, api)
    if api == "openai-compatible":
        return []
    return [w for t in tools for w in normalize_openai_schema(t.get("parameters") or {}, version)[1]]
