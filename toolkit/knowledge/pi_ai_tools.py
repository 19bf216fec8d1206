"""What pi-ai's providers put in the ``tools`` array, per api, compat and version (pi-ai.md §2, §4-§6, §10).

The resolution order is pi-ai's: the provider resolves ``supportsStrictMode`` (``STRICT_MODE_DEFAULT``
unless compat says otherwise), ``resolveJsonSchemaStrictSampling`` decides a tool's ``strict`` from its
``constrainedSampling``, and ``convertResponsesTools`` (or completions' ``convertTools``) writes the
key only when strict mode is supported.
"""
from __future__ import annotations

from typing import Any

from .pi_ai import DEFAULT_VERSION, STRICT_MODE_DEFAULT
from .pi_ai_strict import StrictSchemaError, make_strict

APIS = ("openai-responses", "openai-codex-responses", "openai-completions")


class PiAiRefusal(ValueError):
    """pi-ai ends the stream with this error before sending anything (``require`` cannot be met)."""


def require_unmet(name: str, reason: str) -> str:
    """``constrained-sampling.ts``: the error a ``strict: "require"`` tool raises."""
    return f'Tool "{name}" requires JSON-schema constrained sampling, but {reason}.'


def supports_strict_mode(api: str, compat: dict | None) -> bool:
    """The provider's resolved ``supportsStrictMode`` (1.6.0)."""
    value = (compat or {}).get("supportsStrictMode")
    return STRICT_MODE_DEFAULT[api][0] if value is None else bool(value)


def resolve_strict(tool: dict, supported: bool) -> tuple[bool | None, dict | None]:
    """``resolveJsonSchemaStrictSampling``: ``(True, transformed schema)`` or ``(None, None)`` to fall back."""
    cs = tool.get("constrainedSampling")
    if not isinstance(cs, dict) or cs.get("type") != "json_schema":
        return None, None
    mode = cs.get("strict", "prefer")
    if not supported:
        if mode == "require":
            raise PiAiRefusal(require_unmet(tool.get("name"), "strict tools are unsupported"))
        return None, None
    try:
        return True, make_strict(tool.get("parameters"))
    except StrictSchemaError as exc:
        if mode == "require":
            raise PiAiRefusal(require_unmet(tool.get("name"), str(exc))) from None
        return None, None


def convert_tools(tools: list[dict], *, api: str, compat: dict | None = None, pi_ai: str = DEFAULT_VERSION) -> list[dict]:
    """The tools array pi-ai sends for ``api`` (see module docstring). Raises ``PiAiRefusal`` with pi-ai's
    text where pi-ai refuses before sending."""
    if api not in APIS:
        raise ValueError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")
    if pi_ai == "0.73.1":
        return [_convert_0_73(t, api, compat) for t in tools]
    if pi_ai != DEFAULT_VERSION:
        raise ValueError(f"pi-ai {pi_ai!r} is not modelled; choose 1.6.0 or 0.73.1")
    supported = supports_strict_mode(api, compat)
    default_strict: bool | None = None if api == "openai-codex-responses" else False
    out = []
    for tool in tools:
        strict, transformed = resolve_strict(tool, supported)
        strict = default_strict if strict is None else strict
        parameters = transformed if strict is True else tool.get("parameters")
        if api == "openai-completions":
            fn: dict[str, Any] = {"name": tool.get("name"), "description": tool.get("description"), "parameters": parameters}
            if supported:
                fn["strict"] = False if strict is None else strict
            out.append({"type": "function", "function": fn})
        else:
            entry: dict[str, Any] = {"type": "function", "name": tool.get("name"), "description": tool.get("description"),
                                     "parameters": parameters}
            if supported:
                entry["strict"] = strict
            out.append(entry)
    return out


def _convert_0_73(tool: dict, api: str, compat: dict | None) -> dict:
    """0.73.1: no transform, no constrainedSampling; Responses always ``false``, Codex ``null``, and
    completions ``false`` unless compat says ``supportsStrictMode: false`` (pi-ai.md §10)."""
    if api == "openai-completions":
        fn: dict[str, Any] = {"name": tool.get("name"), "description": tool.get("description"), "parameters": tool.get("parameters")}
        if (compat or {}).get("supportsStrictMode") is not False:
            fn["strict"] = False
        return {"type": "function", "function": fn}
    return {"type": "function", "name": tool.get("name"), "description": tool.get("description"),
            "parameters": tool.get("parameters"), "strict": None if api == "openai-codex-responses" else False}
