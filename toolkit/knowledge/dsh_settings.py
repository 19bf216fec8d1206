"""DSH ``settings.yaml``: the llm-pi-ai schema, defaults, and the exact texts DSH refuses with.

Sources (``deepseek-ai/deepseek-harness`` 0.1.1-rc.2, wording as in its sources):
``packages/llm/llm-pi-ai/src/config.ts`` (``rejectRemovedFields``, ``resolveProfiles``),
``packages/llm/llm-pi-ai/src/catalog.ts`` (``resolveRouteModels``, compat gates),
``packages/core/agent-default-model/src/index.ts``, ``packages/interaction/permission-presets``.
Checked by running the published ``@deepseek-ai/dsh-llm-pi-ai@0.1.0-rc.8`` (``lab/dsh-fixtures/config.mjs``,
``tests/fixtures/dsh/config.json``): the texts below are what that release throws; where rc.8 words a
text differently from the source reading, the function takes ``dsh=`` (``missing_credential``). The
settings seam validates a section with its schemastery schema before llm-pi-ai's own checks run, so
shape errors come back as schemastery's ``ValidationError`` (``schema_error``).
"""

from __future__ import annotations

__all__ = [
    "BASE_DEFAULT_MODEL",
    "BASE_SANDBOX_MODE",
    "COMPAT_OFFERED",
    "COMPAT_WITHHELD",
    "CREDENTIAL_FILES",
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_INPUT",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL_NAMESPACE",
    "MODALITIES",
    "NAMESPACE",
    "PERMISSION_MODE_ENV",
    "PERMISSION_NAMESPACE",
    "PI_AI_FOR_DSH",
    "PRESETS",
    "PROVIDERS_ARRAY",
    "REMOVED_ROUTE_FIELDS",
    "ROUTE_APIS",
    "SECTIONS",
    "SUPPORTED_PROTOCOLS",
    "all_offered_compat",
    "compat_protocols",
    "compat_undeclared",
    "compat_unreadable_on_route",
    "compat_valueless",
    "compat_withheld",
    "compat_wrong_api",
    "credential_ref_invalid",
    "duplicate_model",
    "empty_default_input",
    "empty_field",
    "empty_model_id",
    "empty_reasoning_efforts",
    "missing_credential",
    "needs_api",
    "needs_base_url",
    "no_models",
    "refused",
    "removed_field",
    "removed_provider",
    "removed_retries",
    "schema_error",
    "section_not_object",
    "unknown_model",
]

NAMESPACE = "llm-pi-ai"
DEFAULT_MODEL_NAMESPACE = "agent-default-model"
PERMISSION_NAMESPACE = "permission"
#: The top-level sections of settings.yaml the toolkit reads: one of them at column 0 marks a file as DSH
#: settings (``toolkit.sources.kinds``), so a settings file given where a capture belongs is named as such.
SECTIONS = (NAMESPACE, DEFAULT_MODEL_NAMESPACE, PERMISSION_NAMESPACE)

#: The pi-ai each DSH release loads. Evidence for 0.1.0-rc.8: ``@deepseek-ai/dsh-llm-pi-ai@0.1.0-rc.8``
#: package.json ``"dependencies": {"@earendil-works/pi-ai": "^0.82.1"}``, and npm resolves that range to
#: 0.82.1 (``lab/dsh-fixtures/package-lock.json``; ``config.json`` records range and installed version).
PI_AI_FOR_DSH = {"0.1.0-rc.8": "0.82.1"}
DEFAULT_CONTEXT_WINDOW = 262_144
DEFAULT_MAX_TOKENS = 32_768
DEFAULT_INPUT = ("text",)
MODALITIES = ("text", "image")
REMOVED_ROUTE_FIELDS = ("provider", "maxRetries", "maxRetryDelayMs")  # config.ts rejectRemovedFields

# catalog.ts compat gates: per api, the offered fields in gate order (withheld ones are refused).
_COMPLETIONS = (
    "supportsStore",
    "supportsDeveloperRole",
    "supportsReasoningEffort",
    "supportsUsageInStreaming",
    "maxTokensField",
    "requiresToolResultName",
    "requiresAssistantAfterToolResult",
    "requiresThinkingAsText",
    "requiresReasoningContentOnAssistantMessages",
    "thinkingFormat",
    "chatTemplateKwargs",
    "supportsStrictMode",
    "cacheControlFormat",
    "supportsLongCacheRetention",
)
_RESPONSES = ("supportsDeveloperRole", "supportsStrictMode", "supportsLongCacheRetention")
_ANTHROPIC = (
    "supportsEagerToolInputStreaming",
    "supportsLongCacheRetention",
    "supportsCacheControlOnTools",
    "supportsTemperature",
    "forceAdaptiveThinking",
    "allowEmptySignature",
    "supportsStrictTools",
)
COMPAT_OFFERED: dict[str, tuple[str, ...]] = {
    "openai-completions": _COMPLETIONS,
    "openai-responses": _RESPONSES,
    "azure-openai-responses": _RESPONSES,
    "openai-codex-responses": _RESPONSES,
    "anthropic-messages": _ANTHROPIC,
    "bedrock-converse-stream": ("supportsStrictMode",),
}
COMPAT_WITHHELD = frozenset(
    {
        "openRouterRouting",
        "vercelGatewayRouting",
        "zaiToolStream",
        "supportsOpenAIGrammarTools",
        "sendSessionAffinityHeaders",
        "deferredToolsMode",
        "sessionAffinityFormat",
        "supportsToolSearch",
        "supportsExplicitPromptCacheMode",
        "supportsToolReferences",
    }
)
# The `api:` values an llm-pi-ai route may name: the profile schema's ``z.union(supportedProtocols())``
# (dsh-llm-pi-ai@0.1.0-rc.8 lib/index.js, ``PROTOCOLS``); the other compat gates serve catalog routes only.
SUPPORTED_PROTOCOLS = ("openai-completions", "openai-responses", "anthropic-messages")
ROUTE_APIS = SUPPORTED_PROTOCOLS


def all_offered_compat() -> list[str]:
    """``allOfferedCompatFields()``: every offered field, deduplicated, in gate order."""
    seen: dict[str, None] = {}
    for fields in COMPAT_OFFERED.values():
        seen.update(dict.fromkeys(fields))
    return list(seen)


def compat_protocols(field: str) -> list[str]:
    return [api for api, fields in COMPAT_OFFERED.items() if field in fields]


# ---- the texts DSH refuses a settings section with (each prefixed by ``llm-pi-ai: provider "<p>" ``)


def refused(route: str, detail: str) -> str:
    return f'llm-pi-ai: provider "{route}" {detail}'


# resolveProfiles' text; settings.yaml never reaches it in 0.1.0-rc.8: the section schema refuses an array
# first (``schema_error(("providers",), "expected object but got ...")``).
PROVIDERS_ARRAY = "llm-pi-ai: providers is now a dict keyed by provider route, not an array of profiles"


def removed_provider(route: str) -> str:
    return refused(route, 'sets "provider", which moved to the providers dict key')


def removed_retries(route: str) -> str:
    return refused(
        route, "sets maxRetries or maxRetryDelayMs, which were removed; compose agent recovery with dsh-llm-retry"
    )


def removed_field(route: str, field: str) -> str:
    """The refusal for one of ``REMOVED_ROUTE_FIELDS`` (the two retry fields share one text)."""
    return removed_provider(route) if field == "provider" else removed_retries(route)


def empty_default_input(route: str) -> str:
    return refused(route, "defaultInput must name at least one modality")


def empty_field(route: str, field: str) -> str:
    return refused(route, f"has an empty {field}")


def duplicate_model(route: str, model: str) -> str:
    return refused(route, f'lists model "{model}" more than once')


def empty_model_id(route: str) -> str:
    return refused(route, "has a model with an empty id")


def needs_api(route: str, model: str) -> str:
    return refused(
        route,
        f'model "{model}" needs an api; the installed catalog does not describe it, so set the '
        "route's api to the wire protocol its endpoint speaks",
    )


def needs_base_url(route: str, model: str) -> str:
    return refused(route, f'model "{model}" needs a baseURL; the installed catalog does not describe this route')


def no_models(route: str) -> str:
    return refused(
        route,
        "resolves no models; the installed catalog does not describe this route, so its models "
        "must be listed in configuration",
    )


def compat_undeclared(route: str, site: str, field: str) -> str:
    return refused(
        route,
        f'{site} sets compat "{field}", which no wire protocol declares; the configurable '
        f"switches are {', '.join(all_offered_compat())}",
    )


def compat_withheld(route: str, site: str, field: str) -> str:
    return refused(
        route,
        f'{site} sets compat "{field}", which is not configurable here: pi-ai\'s installed '
        "catalog sets it for the vendors that need it, so name that provider as the route instead",
    )


def compat_valueless(route: str, site: str, field: str) -> str:
    return refused(
        route,
        f'{site} sets compat "{field}" with no value; give it one, or remove the key to leave '
        "the field to the next layer — the installed catalog entry, then pi-ai's own detection",
    )


def compat_wrong_api(route: str, model: str, field: str, api: str) -> str:
    offered = COMPAT_OFFERED.get(api, ())
    return refused(
        route,
        f'model "{model}" sets compat "{field}", but its api is "{api}", which does not take it; '
        f'that switch exists on {", ".join(compat_protocols(field))}, and "{api}" offers '
        f"{', '.join(offered) if offered else 'no configurable compat'}",
    )


def compat_unreadable_on_route(route: str, field: str) -> str:
    return refused(
        route,
        f'sets compat "{field}", but no model on the route speaks a protocol that takes it; it '
        f"exists on {', '.join(compat_protocols(field))}",
    )


def empty_reasoning_efforts(route: str, model: str) -> str:
    return refused(
        route,
        f'model "{model}" has an empty reasoningEfforts; declare the offered levels, set false '
        "for a non-reasoning model, or omit the field to keep the installed catalog's capability",
    )


# ---- runtime texts (catalog.ts; the credential text as DSH's credential resolution writes it)


def missing_credential(route: str, ref: str, dsh: str | None = None) -> str:
    """The ``MISSING_CREDENTIAL`` text; its ending differs by release (``dsh=None``: the source reading)."""
    head = (
        f'llm-pi-ai: no credential for provider route "{route}"; its profile resolves {ref}, which is not set — '
        f"store {ref} through the credentials service (the web Models page writes it) or export it"
    )
    if dsh == "0.1.0-rc.8":
        return (
            head + ", and remove apiKeyEnv only if this provider should authenticate from pi-ai's own "
            "environment discovery"
        )
    return head + " in the launching environment"


# ---- texts of the settings seam (dsh-settings, dsh-credentials, schemastery), read at 0.1.0-rc.8


def schema_error(path: tuple[str | int, ...], detail: str) -> str:
    """schemastery's ``ValidationError``: ``$.a.b[0].c <detail>`` (the path is the section's)."""
    prefix = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return f"{prefix} {detail}" if path else detail


def section_not_object(namespace: str) -> str:
    """dsh-settings ``SettingsProvider#section``: a namespace whose value is not a mapping (``key:`` alone too)."""
    return f'settings section "{namespace}" must be an object of keys'


def credential_ref_invalid(ref: str) -> str:
    """dsh-credentials ``credentialRef``: an ``apiKeyEnv`` that is not a shell variable name."""
    return f'credential ref "{ref}" must match /^[A-Za-z_][A-Za-z0-9_]*$/'


def unknown_model(route: str, model: str) -> str:
    return f'pi-ai provider "{route}" has no configured model "{model}"'


# ---- other namespaces (packages/core/agent-default-model, packages/interaction/permission-presets)

BASE_DEFAULT_MODEL = ("deepseek-official", "deepseek-v4-flash")  # agent-default-model's base row
# preset -> (sandbox mode, approval policy); permission-presets
PRESETS = {
    "read-only": ("read-only", "ask"),
    "workspace-write": ("workspace-write", "ask"),
    "danger-full-access": ("danger-full-access", "never"),
}
# base bundle: sandbox-policy mode `DSH_PERMISSION_MODE ?? 'workspace-write'`
PERMISSION_MODE_ENV = "DSH_PERMISSION_MODE"
BASE_SANDBOX_MODE = "workspace-write"
CREDENTIAL_FILES = (".credentials.yaml", ".credentials.yml", ".env")  # never read by the toolkit
