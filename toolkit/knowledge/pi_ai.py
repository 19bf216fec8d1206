"""pi-ai's compat defaults and what its providers put in a tool's ``strict``, per modelled version.

Notes: ``docs/upstream.md``, sections "pi-ai-compat", "pi-ai-observed-strict" and "pi-ai-versions".

Sources: ``earendil-works/pi`` ``packages/ai/src/api/openai-responses.ts`` (``getCompat``),
``openai-responses-shared.ts`` (``convertResponsesTools``), ``openai-codex-responses.ts``,
``azure-openai-responses.ts``, ``openai-completions.ts`` (``detectCompat``); 0.73.1 from
``@mariozechner/pi-ai`` ``src/providers/*``; 0.82.1 and 0.99.1 from ``@earendil-works/pi-ai`` ``dist/api/*``.
Observed with the lab's client (``lab/client/selftest.mjs``) and ``lab/pi-ai-fixtures``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "CATALOG_STRICT_MODE",
    "CONVERT_TOOLS_LOCAL_DEFAULT",
    "DEFAULT_VERSION",
    "RELEASES",
    "STRICT_MODE_DEFAULT",
    "VERSIONS",
    "Release",
    "plain_tool_strict",
    "release",
    "strict_mode_default",
]

# What each provider resolves supportsStrictMode to when no compat layer sets it (1.6.0).
STRICT_MODE_DEFAULT = {
    "openai-responses": (False, "pi-ai getCompat default for openai-responses (openai-responses.ts:91)"),
    "azure-openai-responses": (True, "pi-ai default for azure-openai-responses (azure-openai-responses.ts:199)"),
    "openai-codex-responses": (True, "pi-ai `compat.supportsStrictMode ?? true` (openai-codex-responses.ts:576)"),
    "openai-completions": (False, "pi-ai detectCompat: never implies strict (openai-completions.ts:1594)"),
}


@dataclass(frozen=True)
class Release:
    """What one pi-ai version does with a tool's ``strict`` (facts read off its dist; one row per version)."""

    package: str  # npm name@version
    #: per api: (supportsStrictMode when no compat sets it, where pi-ai says so)
    strict_mode_default: dict[str, tuple[bool, str]]
    #: the apis whose provider reads ``compat.supportsStrictMode`` (the others ignore it)
    reads_compat: frozenset[str]
    #: the dist file holding ``makeStrictJsonSchema``; None: no strict transform (``strict: true`` sends
    #: the schema as defined)
    transform: str | None
    #: the transform refuses a node with no ``type``/``anyOf``/``enum`` (rule 4, new in 1.6.0)
    refuses_typeless: bool = False
    #: ``constrainedSampling`` is read and ``convertResponsesTools`` takes ``supportsStrictMode``
    constrained_sampling: bool = True
    #: the ``convertResponsesTools`` option that adds ``defer_loading: true``
    defer_option: str | None = "toolSearchResult"
    #: the dist folder holding the providers
    dist: str = field(default="dist/api")


_EW = "@earendil-works/pi-ai"
_ALL_APIS = frozenset(STRICT_MODE_DEFAULT)

#: The modelled versions. Adding one is one row (and its fixtures in ``lab/pi-ai-fixtures``).
RELEASES: dict[str, Release] = {
    "1.6.0": Release(
        package=f"{_EW}@1.6.0",
        strict_mode_default=STRICT_MODE_DEFAULT,
        reads_compat=_ALL_APIS,
        transform="dist/api/constrained-sampling.js",
        refuses_typeless=True,
    ),
    "0.73.1": Release(
        package="@mariozechner/pi-ai@0.73.1",
        strict_mode_default={
            "openai-responses": (
                True,
                "0.73.1 `convertResponsesTools(context.tools)` always writes strict (dist/providers/openai-responses.js:179)",
            ),
            "azure-openai-responses": (
                True,
                "0.73.1 `convertResponsesTools(context.tools)` always writes strict (dist/providers/azure-openai-responses.js:187)",
            ),
            "openai-codex-responses": (True, "0.73.1 Codex passes `{strict: null}` (openai-codex-responses.js:250)"),
            "openai-completions": (
                True,
                "0.73.1 detectCompat: `!isMoonshot && !isCloudflareAiGateway` (openai-completions.js:890)",
            ),
        },
        reads_compat=frozenset({"openai-completions"}),
        transform=None,
        constrained_sampling=False,
        defer_option=None,
        dist="dist/providers",
    ),
    "0.82.1": Release(
        package=f"{_EW}@0.82.1",
        strict_mode_default={
            "openai-responses": (False, "0.82.1 getCompat `?? false` (dist/api/openai-responses.js:55)"),
            "azure-openai-responses": (True, "0.82.1 `?? true` (dist/api/azure-openai-responses.js:211)"),
            "openai-codex-responses": (True, "0.82.1 `?? true` (dist/api/openai-codex-responses.js:366)"),
            "openai-completions": (
                True,
                "0.82.1 detectCompat: `!isMoonshot && !isTogether && !isCloudflareAiGateway && !isNvidia` "
                "(dist/api/openai-completions.js:1171)",
            ),
        },
        reads_compat=_ALL_APIS,
        transform=None,
        defer_option="deferLoading",
    ),
    "0.99.1": Release(
        package=f"{_EW}@0.99.1",
        strict_mode_default={
            "openai-responses": (False, "0.99.1 getCompat `?? false` (dist/api/openai-responses.js:68)"),
            "azure-openai-responses": (True, "0.99.1 `?? true` (dist/api/azure-openai-responses.js:234)"),
            "openai-codex-responses": (True, "0.99.1 `?? true` (dist/api/openai-codex-responses.js:374)"),
            "openai-completions": (
                False,
                "0.99.1 detectCompat: `supportsStrictMode: false` (dist/api/openai-completions.js:1289)",
            ),
        },
        reads_compat=_ALL_APIS,
        transform="dist/api/constrained-sampling.js",
    ),
}
VERSIONS = tuple(RELEASES)
DEFAULT_VERSION = "1.6.0"


def release(version: str) -> Release:
    """The row for ``version``; ``ValueError`` naming the modelled versions for any other."""
    try:
        return RELEASES[version]
    except (KeyError, TypeError):
        raise ValueError(f"pi-ai {version!r} is not modelled; choose one of {', '.join(VERSIONS)}") from None


def strict_mode_default(api: str, version: str = DEFAULT_VERSION) -> tuple[bool, str] | None:
    """``(value, source)`` the provider for ``api`` resolves ``supportsStrictMode`` to without compat
    (None: not a modelled api). For 0.82.1 and 0.73.1 completions this is the generic-URL value:
    their detectCompat turns it off for Moonshot, Cloudflare AI Gateway (and 0.82.1 Together, NVIDIA)."""
    return release(version).strict_mode_default.get(api)


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
    """The ``strict`` an ordinary tool carries on the wire: ``absent`` / ``false`` / ``null`` (``n/a``:
    not a modelled api). ``supports_strict_mode`` is compat's value (None: unset)."""
    rel = release(version)
    if api not in rel.strict_mode_default:
        return "n/a"
    supported = (
        rel.strict_mode_default[api][0]
        if supports_strict_mode is None or api not in rel.reads_compat
        else supports_strict_mode
    )
    if not supported:
        return "absent"
    return "null" if api == "openai-codex-responses" else "false"
