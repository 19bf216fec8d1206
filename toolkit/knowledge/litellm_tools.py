"""What LiteLLM puts in the ``tools`` array for the ``openai/`` provider with a custom ``api_base``.

Modelled on litellm==1.110.2 (``litellm/llms/openai/chat/gpt_transformation.py``
``_sanitized_tools_update_for_openai`` and ``litellm/llms/openai/responses/transformation.py``
``_sanitized_tool_schemas_for_openai``, both through
``litellm/litellm_core_utils/prompt_templates/json_schema_utils.py`` ``drop_non_python_regex_patterns``),
verified by ``tests/fixtures/litellm/wire.json`` (``lab/record_litellm_tools.py``). Notes:
``docs/upstream.md`` section "litellm-tools".

LiteLLM has no strict transform: a tool's ``strict`` (set, unset or false) and its schema go out as
given, key order kept. The one rewrite is that a ``pattern`` Python's ``re`` cannot compile (an
ECMA-262 ``\\p{L}``) is dropped, because OpenAI's validator refuses it. Not modelled (not reached by a
custom ``api_base`` and a non-OpenAI model name, so unrecorded): top-level combinator flattening (Chat:
api.openai.com hosts only; Responses: model names starting ``gpt-4``, ``gpt-3.5``, ``chatgpt-4o``,
``o1``, ``o3``, ``o4``), ``patternProperties`` keys, ``cache_control`` handling, JSON-string
``parameters`` (Responses decodes them).
"""

from __future__ import annotations

import copy
import re
from typing import Any

__all__ = ["APIS", "DEFAULT_VERSION", "VERSIONS", "convert_tools"]

#: the tool shapes modelled: Chat Completions (``function`` nested) and Responses (flat)
APIS = ("chat", "responses")
VERSIONS = ("1.110.2",)
DEFAULT_VERSION = VERSIONS[0]

_SCHEMA_MAPS = ("properties", "$defs", "definitions")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains", "if", "then", "else")


def _compiles(pattern: str) -> bool:
    try:
        re.compile(pattern)
    except re.error:
        return False
    return True


def _without_bad_patterns(schema: Any) -> Any:
    """Walk schema positions only (a ``pattern`` inside ``default`` or ``examples`` is data)."""
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "pattern" and isinstance(value, str) and not _compiles(value):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            value = {k: _without_bad_patterns(v) for k, v in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            value = [_without_bad_patterns(v) for v in value]
        elif key in _SCHEMA_ONE:
            value = (
                [_without_bad_patterns(v) for v in value] if isinstance(value, list) else _without_bad_patterns(value)
            )
        out[key] = value
    return out


def convert_tools(tools: list[dict[str, Any]], *, api: str, version: str = DEFAULT_VERSION) -> list[dict[str, Any]]:
    """The tools LiteLLM sends for ``tools`` given in ``api``'s OpenAI shape (the input is not changed).
    ``ValueError`` for an api or version that is not modelled."""
    if api not in APIS:
        raise ValueError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
    if version not in VERSIONS:
        raise ValueError(f"litellm {version!r} is not modelled; choose one of {', '.join(VERSIONS)}")
    out = []
    for tool in copy.deepcopy(tools):
        holder = tool.get("function") if api == "chat" else tool
        if isinstance(holder, dict) and isinstance(holder.get("parameters"), dict):
            holder["parameters"] = _without_bad_patterns(holder["parameters"])
        out.append(tool)
    return out
