"""What a LiteLLM proxy ``config.yaml`` means for a client: per ``model_name``, the deployments behind
it and the capabilities the gateway declares for them, resolved the way LiteLLM resolves them.

Modelled on litellm==1.110.2 and verified by ``tests/fixtures/litellm/config.json``
(``lab/record_litellm_config.py``, which runs each ``tests/fixtures/litellm/config/*.yaml`` through
``Router(model_list=…)``, ``get_model_group_info`` and the router's image pre-call filter). Notes and
source lines: ``docs/upstream.md`` section "litellm-config". Works on the parsed YAML (no I/O).

What the recording shows and this module reproduces:

* A flag a deployment's ``model_info`` declares wins. A flag it leaves out comes from LiteLLM's cost map
  for the underlying model (``litellm_params.model`` without its provider prefix), and a model the map
  does not know reads as ``False`` in ``/model_group/info``.
* A deployment's ``model_info`` is written into the process-wide cost map under its provider and
  underlying model, so another ``model_name`` on the same provider and model without ``model_info``
  inherits it (the last one written wins).
* A group (one ``model_name``) supports a flag when any of its deployments does.
* A request that carries an image goes only to deployments that do not declare
  ``supports_vision: false`` (nor the cost map, explicitly); when every deployment does, LiteLLM
  forwards the image anyway, so the refusal comes from the backend. Tools are forwarded whatever
  ``supports_function_calling`` says.
* ``os.environ/VAR`` values are resolved from the environment when the proxy loads the config; this
  module reports the variable's name only, never a value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "COST_MAP",
    "DEFAULT_VERSION",
    "ENV_PREFIX",
    "FLAGS",
    "INFO_FIELDS",
    "PROBLEMS",
    "PROVIDERS",
    "REFUSALS",
    "SECTIONS",
    "UNKNOWN_MODEL",
    "VERSIONS",
    "Deployment",
    "Group",
    "Problem",
    "declares_no_vision",
    "env_var",
    "group",
    "image_targets",
    "provider_of",
    "read_model_list",
    "registration_key",
    "registrations",
    "resolve",
    "unknown_model_text",
]

VERSIONS = ("1.110.2",)
#: The top-level sections of a LiteLLM proxy ``config.yaml`` (LiteLLM's docs, "Proxy Config.yaml":
#: docs.litellm.ai/docs/proxy/configs; ``proxy_server.load_config`` reads these keys): one of them at
#: column 0 marks a file as a proxy config (``toolkit.sources.kinds``).
SECTIONS = ("model_list", "litellm_settings", "general_settings", "router_settings", "environment_variables")
DEFAULT_VERSION = VERSIONS[0]
ENV_PREFIX = "os.environ/"
#: the ``model_info`` capability flags the toolkit reads (booleans)
FLAGS = ("supports_vision", "supports_function_calling", "supports_tool_choice", "supports_response_schema")
#: every ``model_info`` field the toolkit reads
INFO_FIELDS = (*FLAGS, "mode", "max_input_tokens")
#: provider prefixes of ``litellm_params.model`` (a subset of litellm 1.110.2's ``litellm.provider_list``, 190 names)
PROVIDERS = (
    "openai",
    "azure",
    "azure_ai",
    "anthropic",
    "bedrock",
    "vertex_ai",
    "gemini",
    "deepseek",
    "mistral",
    "groq",
    "xai",
    "ollama",
    "ollama_chat",
    "openrouter",
    "together_ai",
    "fireworks_ai",
    "hosted_vllm",
    "vllm",
    "lm_studio",
    "litellm_proxy",
    "openai_like",
    "custom_openai",
    "text-completion-openai",
    "cohere",
    "cohere_chat",
    "dashscope",
    "moonshot",
    "github_copilot",
    "databricks",
    "watsonx",
)
#: entries of the cost map bundled with litellm 1.110.2 (``model_prices_and_context_window_backup.json``)
#: that the fixtures and the lab use; ``None`` is a flag the map leaves out. Checked against the bundled map.
COST_MAP: dict[str, dict[str, Any]] = {
    "gpt-4o": {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 128000,
        "supports_vision": True,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": True,
    },
    "gpt-4o-mini": {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 128000,
        "supports_vision": True,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": True,
    },
    "gpt-4.1": {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 1047576,
        "supports_vision": True,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": True,
    },
    "o3-mini": {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 200000,
        "supports_vision": False,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": True,
    },
    "gpt-3.5-turbo": {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 16385,
        "supports_vision": None,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": None,
    },
    "deepseek-chat": {
        "litellm_provider": "deepseek",
        "mode": "chat",
        "max_input_tokens": 131072,
        "supports_vision": None,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": True,
    },
    "claude-sonnet-4-5": {
        "litellm_provider": "anthropic",
        "mode": "chat",
        "max_input_tokens": 200000,
        "supports_vision": True,
        "supports_function_calling": True,
        "supports_tool_choice": True,
        "supports_response_schema": True,
    },
}

#: what is wrong with a config, by code: (what, what LiteLLM does with it)
PROBLEMS = {
    "empty": "the file holds no YAML document",
    "not-a-mapping": "the top level is not a mapping",
    "no-model-list": "no `model_list`: the gateway serves no model",
    "model-list-not-a-list": "`model_list` is not a list",
    "entry-not-a-mapping": "a `model_list` entry is not a mapping",
    "missing-model-name": "a `model_list` entry has no `model_name`",
    "missing-litellm-params": "a `model_list` entry has no `litellm_params` mapping",
    "missing-model": "`litellm_params` has no `model`",
    "model-not-a-string": "`litellm_params.model` is not a string",
    "model-info-not-a-mapping": "`model_info` is not a mapping",
    "flag-not-a-bool": "a `model_info` capability flag is not true or false",
}
#: what litellm 1.110.2 raises, by problem code: ``router`` for ``Router(model_list=…)`` (the client
#: library), ``proxy_router`` for the router the proxy builds (``ignore_invalid_deployments=True``);
#: ``(exception class, text)`` where the text is exact, or its first lines for pydantic's (they go on
#: to quote the input); ``None``: no exception. From tests/fixtures/litellm/config.json. ``proxy_load``:
#: what ``ProxyConfig.load_config`` raises before it builds the router, read from proxy_server.py and not
#: recorded (it needs the proxy extra): ``_get_config_from_file`` for an empty file, and its model_list
#: loop, which indexes ``model["litellm_params"]`` and ``["model"]`` (a mapping's keys are strings).
REFUSALS: dict[str, dict[str, tuple[str, str] | None]] = {
    "empty": {"router": None, "proxy_router": None, "proxy_load": ("Exception", "Config cannot be None or Empty.")},
    "model-list-not-a-list": {
        "router": None,
        "proxy_router": None,
        "proxy_load": ("TypeError", "string indices must be integers, not 'str'"),
    },
    "missing-model-name": {"router": ("KeyError", "'model_name'"), "proxy_router": ("KeyError", "'model_name'")},
    "missing-litellm-params": {
        "router": ("KeyError", "'litellm_params'"),
        "proxy_router": ("KeyError", "'litellm_params'"),
    },
    "missing-model": {
        "router": ("ValidationError", "1 validation error for LiteLLM_Params\nmodel\n  Field required [type=missing,"),
        "proxy_router": None,
        "proxy_load": ("KeyError", "'model'"),
    },
    "model-not-a-string": {
        "router": (
            "ValidationError",
            "1 validation error for LiteLLM_Params\nmodel\n  Input should be a valid string [type=string_type,",
        ),
        "proxy_router": None,
    },
}

#: what the router raises for a model name the config does not serve (``{model}``: the name asked for)
UNKNOWN_MODEL = (
    "litellm.BadRequestError: You passed in model={model}. There are no healthy deployments for this model\n\n"
    "LiteLLM: model group '{model}' failed with the error above. No fallback was attempted."
)

_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


@dataclass(frozen=True)
class Problem:
    code: str
    path: tuple[str | int, ...]  # where in the YAML document
    message: str


@dataclass(frozen=True)
class Deployment:
    """One ``model_list`` entry LiteLLM accepts."""

    index: int  # its place in ``model_list``
    model_name: str  # what a client asks for (may hold ``*``)
    model: str  # ``litellm_params.model`` as written
    provider: str | None  # the prefix, or the cost map's provider for a bare name
    underlying: str  # the model without its provider prefix
    api_base: str | None  # as written (an ``os.environ/`` reference stays one)
    env_refs: tuple[tuple[str, str], ...] = ()  # (litellm_params key, variable name)
    declared: Mapping[str, Any] = field(default_factory=dict)  # the INFO_FIELDS ``model_info`` sets, as written

    @property
    def wildcard(self) -> bool:
        return "*" in self.model_name


@dataclass(frozen=True)
class Group:
    """What LiteLLM answers for a requested model name (``/model_group/info``) and why."""

    requested: str
    deployments: tuple[Deployment, ...]  # the deployments the name reaches (wildcards filled in)
    info: Mapping[str, Any]  # flag -> bool, mode, max_input_tokens, providers
    sources: Mapping[str, tuple[str, ...]]  # flag -> where each deployment's value came from


def unknown_model_text(model: str) -> str:
    """The exact text of the router's ``BadRequestError`` for a model it does not serve."""
    return UNKNOWN_MODEL.format(model=model)


def env_var(value: Any) -> str | None:
    """The variable an ``os.environ/VAR`` value names, else None."""
    return value[len(ENV_PREFIX) :] if isinstance(value, str) and value.startswith(ENV_PREFIX) else None


def provider_of(model: str) -> tuple[str | None, str]:
    """``(provider, underlying model)``: ``openai/gpt-4o`` -> ``("openai", "gpt-4o")``; a bare name takes
    the cost map's provider when the map knows it."""
    prefix, sep, rest = model.partition("/")
    if sep and prefix in PROVIDERS:
        return prefix, rest
    entry = COST_MAP.get(model)
    return (entry["litellm_provider"] if entry else None), model


def _as_bool(value: Any) -> bool | None:
    """How pydantic reads a flag into ``ModelGroupInfo`` (``"no"`` is False); None when it cannot."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    if isinstance(value, int):
        return bool(value) if value in (0, 1) else None
    return None


def read_model_list(data: Any) -> tuple[tuple[Deployment, ...], tuple[Problem, ...]]:
    """The deployments LiteLLM's proxy keeps from a parsed config, and what is wrong with it."""
    problems: list[Problem] = []
    if data is None:
        return (), (Problem("empty", (), PROBLEMS["empty"]),)
    if not isinstance(data, dict):
        return (), (Problem("not-a-mapping", (), f"{PROBLEMS['not-a-mapping']} ({type(data).__name__})"),)
    model_list = data.get("model_list")
    if model_list is None:
        return (), (Problem("no-model-list", (), PROBLEMS["no-model-list"]),)
    if not isinstance(model_list, list):
        return (), (
            Problem(
                "model-list-not-a-list", ("model_list",), f"{PROBLEMS['model-list-not-a-list']} ({_kind(model_list)})"
            ),
        )
    out: list[Deployment] = []
    for i, entry in enumerate(model_list):
        here: tuple[str | int, ...] = ("model_list", i)
        if not isinstance(entry, dict):
            problems.append(Problem("entry-not-a-mapping", here, PROBLEMS["entry-not-a-mapping"]))
            continue
        params = entry.get("litellm_params")
        if not isinstance(params, dict):
            problems.append(Problem("missing-litellm-params", here, PROBLEMS["missing-litellm-params"]))
            continue
        if "model_name" not in entry:
            problems.append(Problem("missing-model-name", here, PROBLEMS["missing-model-name"]))
            continue
        if "model" not in params:
            problems.append(Problem("missing-model", (*here, "litellm_params"), PROBLEMS["missing-model"]))
            continue
        if not isinstance(params["model"], str):
            problems.append(
                Problem("model-not-a-string", (*here, "litellm_params", "model"), PROBLEMS["model-not-a-string"])
            )
            continue
        info = entry.get("model_info")
        if info is not None and not isinstance(info, dict):
            problems.append(
                Problem("model-info-not-a-mapping", (*here, "model_info"), PROBLEMS["model-info-not-a-mapping"])
            )
            info = None
        declared = {k: v for k, v in (info or {}).items() if k in INFO_FIELDS and v is not None}
        for flag in FLAGS:
            if flag in declared and not isinstance(declared[flag], bool):
                problems.append(
                    Problem(
                        "flag-not-a-bool",
                        (*here, "model_info", flag),
                        f"`{flag}: {declared[flag]!r}` is not true or false: LiteLLM's image routing takes only "
                        "`false` as text-only, while /model_group/info reads it as "
                        f"{_as_bool(declared[flag])}",
                    )
                )
        provider, underlying = provider_of(params["model"])
        out.append(
            Deployment(
                index=i,
                model_name=str(entry["model_name"]),
                model=params["model"],
                provider=provider,
                underlying=underlying,
                api_base=params.get("api_base") if isinstance(params.get("api_base"), str) else None,
                env_refs=tuple((str(k), v) for k, val in params.items() if (v := env_var(val)) is not None),
                declared=declared,
            )
        )
    return tuple(out), tuple(problems)


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    return "a string" if isinstance(value, str) else type(value).__name__


def registration_key(d: Deployment) -> str:
    """Where LiteLLM registers a deployment's ``model_info`` in its cost map: per provider and underlying
    model (an ``azure/x`` declaration does not reach an ``openai/x`` deployment; recorded in multi.yaml)."""
    return f"{d.provider}/{d.underlying}"


def registrations(deployments: tuple[Deployment, ...]) -> dict[str, dict[str, Any]]:
    """What the config writes into the process-wide cost map: per provider and underlying model, the
    fields its deployments declare, the last one written winning."""
    out: dict[str, dict[str, Any]] = {}
    for d in deployments:
        if d.declared:
            out.setdefault(registration_key(d), {}).update(d.declared)
    return out


def _map_value(d: Deployment, key: str, registered: Mapping[str, Mapping[str, Any]]) -> tuple[Any, str]:
    """A field the deployment leaves out: from another deployment's registration, else the cost map."""
    if key in registered.get(registration_key(d), {}):
        return registered[registration_key(d)][key], "registered"
    entry = COST_MAP.get(d.underlying) or COST_MAP.get(d.model)
    if entry is None:
        return None, "unknown"
    return entry.get(key), "cost map"


def resolve(d: Deployment, key: str, registered: Mapping[str, Mapping[str, Any]]) -> tuple[Any, str]:
    """``(value, source)`` of a ``model_info`` field for a deployment: ``model_info`` (declared), the cost
    map, another deployment's ``model_info`` on the same underlying model (``registered``), or unknown."""
    if key in d.declared:
        return d.declared[key], "model_info"
    return _map_value(d, key, registered)


def declares_no_vision(d: Deployment, registered: Mapping[str, Mapping[str, Any]]) -> bool:
    """The router's image pre-call filter: ``model_info.supports_vision`` is ``false`` (only the bool),
    or, left out, the cost map (with the config's registrations) says ``false`` explicitly."""
    if "supports_vision" in d.declared:
        return d.declared["supports_vision"] is False
    value, _ = _map_value(d, "supports_vision", registered)
    return value is False


def _filled(d: Deployment, requested: str) -> Deployment:
    """A wildcard deployment as it serves ``requested``: the ``*`` of ``litellm_params.model`` filled
    with what the ``*`` of ``model_name`` matched."""
    if not d.wildcard:
        return d
    head, _, tail = d.model_name.partition("*")
    matched = requested[len(head) : len(requested) - len(tail) if tail else None]
    model = d.model.replace("*", matched, 1)
    provider, underlying = provider_of(model)
    return Deployment(d.index, d.model_name, model, provider, underlying, d.api_base, d.env_refs, d.declared)


def _matches(pattern: str, requested: str) -> bool:
    head, star, tail = pattern.partition("*")
    if not star:
        return pattern == requested
    return requested.startswith(head) and requested.endswith(tail) and len(requested) >= len(head) + len(tail)


def group(deployments: tuple[Deployment, ...], requested: str) -> Group | None:
    """What LiteLLM resolves ``requested`` to: the deployments whose ``model_name`` is exactly it, else
    those of the most specific wildcard ``model_name`` that matches it; None when nothing does."""
    exact = tuple(d for d in deployments if d.model_name == requested)
    if not exact:
        patterns = [d for d in deployments if d.wildcard and _matches(d.model_name, requested)]
        if not patterns:
            return None
        best = max(len(d.model_name.replace("*", "")) for d in patterns)
        exact = tuple(_filled(d, requested) for d in patterns if len(d.model_name.replace("*", "")) == best)
    registered = registrations(deployments)
    info: dict[str, Any] = {}
    sources: dict[str, tuple[str, ...]] = {}
    for key in INFO_FIELDS:
        values = [resolve(d, key, registered) for d in exact]
        sources[key] = tuple(s for _, s in values)
        if key in FLAGS:
            info[key] = any(_as_bool(v) is True for v, _ in values)
        else:
            info[key] = next((v for v, _ in values if v is not None), None)
    info["providers"] = list(dict.fromkeys(d.provider for d in exact if d.provider))
    return Group(requested, exact, info, sources)


def image_targets(g: Group, deployments: tuple[Deployment, ...]) -> tuple[Deployment, ...]:
    """The deployments a request with an image can be routed to: those that do not declare no vision,
    or all of them when every one does (LiteLLM then forwards the image to a text-only deployment)."""
    registered = registrations(deployments)
    capable = tuple(d for d in g.deployments if not declares_no_vision(d, registered))
    return capable or g.deployments
