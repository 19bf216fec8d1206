"""What pi-ai's providers put in the ``tools`` array, per api, compat and version.

Notes: ``docs/upstream.md``, sections "pi-ai-tool-conversion" and "pi-ai-constrained-sampling".

The resolution order is pi-ai's: the provider resolves ``supportsStrictMode`` (``STRICT_MODE_DEFAULT``
unless compat says otherwise), ``resolveJsonSchemaStrictSampling`` decides a tool's ``strict`` from its
``constrainedSampling``, and ``convertResponsesTools`` (or completions' ``convertTools``) writes the
key only when strict mode is supported.
"""

from __future__ import annotations

from typing import Any

from toolkit.errors import InputError
from toolkit.knowledge.pi_ai import DEFAULT_VERSION, STRICT_MODE_DEFAULT
from toolkit.knowledge.pi_ai_strict import StrictSchemaError, make_strict

__all__ = [
    "TOOL_APIS",
    "PiAiRefusal",
    "convert_responses_tools",
    "convert_tools",
    "require_unmet",
    "resolve_strict",
    "supports_strict_mode",
]

#: The pi-ai apis whose tool conversion is modelled (``convert_tools``), verified by the differential fixtures.
TOOL_APIS = ("openai-responses", "openai-codex-responses", "openai-completions")


class PiAiRefusal(InputError):
    """pi-ai ends the stream with this error before sending anything (``require`` cannot be met)."""


def require_unmet(name: str | None, reason: str) -> str:
    """``constrained-sampling.ts``: the error a ``strict: "require"`` tool raises."""
    return f'Tool "{name}" requires JSON-schema constrained sampling, but {reason}.'


def supports_strict_mode(api: str, compat: dict[str, Any] | None) -> bool:
    """The provider's resolved ``supportsStrictMode`` (1.6.0)."""
    value = (compat or {}).get("supportsStrictMode")
    return STRICT_MODE_DEFAULT[api][0] if value is None else bool(value)


def resolve_strict(tool: dict[str, Any], supported: bool) -> tuple[bool | None, dict[str, Any] | None]:
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


def convert_responses_tools(
    tools: list[dict[str, Any]], options: dict[str, Any] | None = None, *, version: str = DEFAULT_VERSION
) -> list[dict[str, Any]]:
    """``convertResponsesTools`` called directly. A key missing from ``options`` is JavaScript's
    ``undefined``; the local defaults apply only then (``strict`` → ``false``, ``supportsStrictMode``
    → ``true``), and no provider ever leaves ``supportsStrictMode`` undefined."""
    opts = options or {}
    if version == "0.73.1":  # no transform, no constrainedSampling: `strict ?? false`, null kept
        strict = opts.get("strict", False) if "strict" in opts else False
        return [
            {
                "type": "function",
                "name": t.get("name"),
                "description": t.get("description"),
                "parameters": t.get("parameters"),
                "strict": strict,
            }
            for t in tools
        ]
    default_strict = opts.get("strict", False)
    supported = True if opts.get("supportsStrictMode") is None else bool(opts["supportsStrictMode"])
    grammar = bool(opts.get("supportsOpenAIGrammarTools"))
    out = []
    for tool in tools:
        cs = tool.get("constrainedSampling")
        if grammar and isinstance(cs, dict) and cs.get("type") == "grammar":
            out.append(_grammar_tool(tool, cs, bool(opts.get("toolSearchResult"))))
            continue
        strict, transformed = resolve_strict(tool, supported)
        if strict is None:
            strict = default_strict
            if strict is True:  # a direct `strict: true` transforms too, and may throw uncaught
                transformed = make_strict(tool.get("parameters"))
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.get("name"),
            "description": tool.get("description"),
            "parameters": transformed if strict is True else tool.get("parameters"),
        }
        if opts.get("toolSearchResult"):
            entry["defer_loading"] = True
        if supported:
            entry["strict"] = strict
        out.append(entry)
    return out


def _grammar_tool(tool: dict[str, Any], cs: dict[str, Any], deferred: bool) -> dict[str, Any]:
    variants = cs.get("variants") or {}
    syntax, definition = (
        ("lark", variants["openai_lark"]) if "openai_lark" in variants else ("regex", variants.get("openai_regex"))
    )
    entry = {
        "type": "custom",
        "name": tool.get("name"),
        "description": tool.get("description"),
        "format": {"type": "grammar", "syntax": syntax, "definition": definition},
    }
    if deferred:
        entry["defer_loading"] = True
    return entry


def convert_tools(
    tools: list[dict[str, Any]], *, api: str, compat: dict[str, Any] | None = None, pi_ai: str = DEFAULT_VERSION
) -> list[dict[str, Any]]:
    """The tools array pi-ai's provider for ``api`` sends (the module docstring says how it is decided).
    Raises ``PiAiRefusal`` with pi-ai's text where pi-ai refuses before sending."""
    if api not in TOOL_APIS:
        raise ValueError(f"unknown api {api!r}; choose one of {', '.join(TOOL_APIS)}")
    if pi_ai not in ("1.6.0", "0.73.1"):
        raise ValueError(f"pi-ai {pi_ai!r} is not modelled; choose 1.6.0 or 0.73.1")
    if api == "openai-completions":
        return [_completions_tool(t, compat, pi_ai) for t in tools]
    if pi_ai == "0.73.1":
        options: dict[str, Any] = {"strict": None} if api == "openai-codex-responses" else {}
        return convert_responses_tools(tools, options, version=pi_ai)
    options = {"supportsStrictMode": supports_strict_mode(api, compat)}
    if api == "openai-codex-responses":
        options["strict"] = None
    return convert_responses_tools(tools, options)


def _completions_tool(tool: dict[str, Any], compat: dict[str, Any] | None, version: str) -> dict[str, Any]:
    """completions' ``convertTools``: nested under ``function``; ``strict`` only when strict mode is
    supported (1.6.0), or unless compat says ``false`` (0.73.1)."""
    fn: dict[str, Any] = {
        "name": tool.get("name"),
        "description": tool.get("description"),
        "parameters": tool.get("parameters"),
    }
    if version == "0.73.1":
        if (compat or {}).get("supportsStrictMode") is not False:
            fn["strict"] = False
        return {"type": "function", "function": fn}
    supported = supports_strict_mode("openai-completions", compat)
    strict, transformed = resolve_strict(tool, supported)
    if strict is True:
        fn["parameters"] = transformed
    if supported:
        fn["strict"] = bool(strict)
    return {"type": "function", "function": fn}
