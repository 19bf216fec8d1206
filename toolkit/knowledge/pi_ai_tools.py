"""What pi-ai's providers put in the ``tools`` array, per api, compat and version.

Notes: ``docs/upstream.md``, sections "pi-ai-tool-conversion", "pi-ai-constrained-sampling" and
"pi-ai-versions". What differs between versions is a row of ``pi_ai.RELEASES``, not a branch here.

The resolution order is pi-ai's: the provider resolves ``supportsStrictMode`` (``STRICT_MODE_DEFAULT``
unless compat says otherwise), ``resolveJsonSchemaStrictSampling`` decides a tool's ``strict`` from its
``constrainedSampling``, and ``convertResponsesTools`` (or completions' ``convertTools``) writes the
key only when strict mode is supported.
"""

from __future__ import annotations

from typing import Any

from toolkit.errors import InputError
from toolkit.knowledge.pi_ai import DEFAULT_VERSION, release
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


def supports_strict_mode(api: str, compat: dict[str, Any] | None, version: str = DEFAULT_VERSION) -> bool:
    """The provider's resolved ``supportsStrictMode`` (compat's value where the provider reads it, else
    the version's default)."""
    rel = release(version)
    value = (compat or {}).get("supportsStrictMode")
    if value is None or api not in rel.reads_compat:
        return rel.strict_mode_default[api][0]
    return bool(value)


def resolve_strict(
    tool: dict[str, Any], supported: bool, version: str = DEFAULT_VERSION
) -> tuple[bool | None, dict[str, Any] | None]:
    """``resolveJsonSchemaStrictSampling``: ``(True, parameters to send)`` or ``(None, None)`` to fall
    back. Without a transform (0.82.1) the parameters are sent as defined and nothing is refused but
    an unsupported strict mode."""
    rel = release(version)
    cs = tool.get("constrainedSampling")
    if not rel.constrained_sampling or not isinstance(cs, dict) or cs.get("type") != "json_schema":
        return None, None
    mode = cs.get("strict", "prefer")
    if not supported:
        if mode == "require":
            raise PiAiRefusal(require_unmet(tool.get("name"), "strict tools are unsupported"))
        return None, None
    if rel.transform is None:
        return True, tool.get("parameters")
    try:
        return True, make_strict(tool.get("parameters"), version)
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
    rel = release(version)
    opts = options or {}
    default_strict = opts.get("strict", False)
    if not rel.constrained_sampling:  # no supportsStrictMode, no constrainedSampling: `strict ?? false`, null kept
        return [
            {
                "type": "function",
                "name": t.get("name"),
                "description": t.get("description"),
                "parameters": t.get("parameters"),
                "strict": default_strict,
            }
            for t in tools
        ]
    supported = True if opts.get("supportsStrictMode") is None else bool(opts["supportsStrictMode"])
    grammar = bool(opts.get("supportsOpenAIGrammarTools"))
    deferred = bool(rel.defer_option and opts.get(rel.defer_option))
    out = []
    for tool in tools:
        cs = tool.get("constrainedSampling")
        if grammar and isinstance(cs, dict) and cs.get("type") == "grammar":
            out.append(_grammar_tool(tool, cs, deferred))
            continue
        strict, sent = resolve_strict(tool, supported, version)
        if strict is None:
            strict, sent = default_strict, tool.get("parameters")
            if strict is True and rel.transform is not None:  # a direct `strict: true` transforms too, may throw
                sent = make_strict(tool.get("parameters"), version)
        entry: dict[str, Any] = {
            "type": "function",
            "name": tool.get("name"),
            "description": tool.get("description"),
            "parameters": sent,
        }
        if deferred:
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
    Raises ``PiAiRefusal`` with pi-ai's text where pi-ai refuses before sending; ``ValueError`` for an
    api or version that is not modelled."""
    if api not in TOOL_APIS:
        raise ValueError(f"unknown api {api!r}; choose one of {', '.join(TOOL_APIS)}")
    rel = release(pi_ai)
    if api == "openai-completions":
        return [_completions_tool(t, compat, pi_ai) for t in tools]
    options: dict[str, Any] = {}
    if rel.constrained_sampling:
        options["supportsStrictMode"] = supports_strict_mode(api, compat, pi_ai)
    if api == "openai-codex-responses":
        options["strict"] = None
    return convert_responses_tools(tools, options, version=pi_ai)


def _completions_tool(tool: dict[str, Any], compat: dict[str, Any] | None, version: str) -> dict[str, Any]:
    """completions' ``convertTools``: nested under ``function``; ``strict`` only when strict mode is
    supported (``compat.supportsStrictMode !== false`` after the version's detectCompat)."""
    fn: dict[str, Any] = {
        "name": tool.get("name"),
        "description": tool.get("description"),
        "parameters": tool.get("parameters"),
    }
    supported = supports_strict_mode("openai-completions", compat, version)
    strict, sent = resolve_strict(tool, supported, version)
    if strict is True:
        fn["parameters"] = sent
    if supported:
        fn["strict"] = bool(strict)
    return {"type": "function", "function": fn}
