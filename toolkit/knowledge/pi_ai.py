"""pi-ai's compat defaults and what its providers put in a tool's ``strict``.

Notes: ``docs/upstream.md``, sections "pi-ai-compat" and "pi-ai-observed-strict".

Sources: ``earendil-works/pi`` ``packages/ai/src/api/openai-responses.ts`` (``getCompat``),
``openai-responses-shared.ts`` (``convertResponsesTools``), ``openai-codex-responses.ts``,
``azure-openai-responses.ts``, ``openai-completions.ts`` (``detectCompat``); 0.73.1 from
``@mariozechner/pi-ai`` ``src/providers/*``. Observed with the lab's client (``lab/client/selftest.mjs``).
"""

from __future__ import annotations

__all__ = [
    "CATALOG_STRICT_MODE",
    "CONVERT_TOOLS_LOCAL_DEFAULT",
    "DEFAULT_VERSION",
    "STRICT_MODE_DEFAULT",
    "VERSIONS",
    "plain_tool_strict",
]

VERSIONS = ("1.6.0", "0.73.1")
DEFAULT_VERSION = "1.6.0"

# What each provider resolves supportsStrictMode to when no compat layer sets it (1.6.0).
STRICT_MODE_DEFAULT = {
    "openai-responses": (False, "pi-ai getCompat default for openai-responses (openai-responses.ts:91)"),
    "azure-openai-responses": (True, "pi-ai default for azure-openai-responses (azure-openai-responses.ts:199)"),
    "openai-codex-responses": (True, "pi-ai `compat.supportsStrictMode ?? true` (openai-codex-responses.ts:576)"),
    "openai-completions": (False, "pi-ai detectCompat: never implies strict (openai-completions.ts:1594)"),
}
# convertResponsesTools' own default, used only when a caller passes nothing; every provider passes
# its resolved value, so this never decides what is sent.
CONVERT_TOOLS_LOCAL_DEFAULT = (
    True,
    "convertResponsesTools `options.supportsStrictMode ?? true` (openai-responses-shared.ts:437)",
)

# Known catalog providers whose generated models set supportsStrictMode (``docs/upstream.md``, "pi-ai-compat").
CATALOG_STRICT_MODE = {
    "openai": True,
    "github-copilot": True,
    "openrouter": True,
    "moonshot": False,
    "kimi": False,
    "together": False,
    "nvidia": False,
}


def plain_tool_strict(api: str, supports_strict_mode: bool | None, version: str = DEFAULT_VERSION) -> str:
    """The ``strict`` an ordinary tool carries on the wire: ``absent`` / ``false`` / ``null``."""
    if version == "0.73.1":
        if api == "openai-codex-responses":
            return "null"
        if api == "openai-completions":
            return "absent" if supports_strict_mode is False else "false"
        return "false"  # openai-responses ignores compat and sends false
    if api not in STRICT_MODE_DEFAULT:
        return "n/a"
    supported = STRICT_MODE_DEFAULT[api][0] if supports_strict_mode is None else supports_strict_mode
    if not supported:
        return "absent"
    return "null" if api == "openai-codex-responses" else "false"
