"""The adapter profiles: every client library whose ``tools`` array the toolkit models, in one registry.

A profile names the library (``pi-ai``, ``ai-sdk``, ``agents-sdk``, ``litellm``, ``codex``), the
versions and apis its module models and the options it is called with, so that layer 2 can ask
"what would this library have sent?" for any of them through one ``convert``. The modules are imported
lazily (a profile whose module is missing is listed, and refused when used). Notes:
``docs/upstream.md`` sections "pi-ai-tool-conversion", "ai-sdk-tools", "litellm-tools".

The apis are named differently by each library; ``WIRE_API`` maps them to the wire's names
(``responses``, ``chat``) and ``ENDPOINTS`` to the path suffix a capture shows, so a caller can start
from what a capture recorded.
"""

from __future__ import annotations

import copy
import importlib
import itertools
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = [
    "ENDPOINTS",
    "PROFILES",
    "WIRE_API",
    "Option",
    "Profile",
    "adapter_apis",
    "available",
    "combinations",
    "convert",
    "describe_options",
    "parse",
    "profile",
    "wire_api",
]

#: the wire's api -> the path suffix a capture shows
ENDPOINTS = {"responses": "/responses", "chat": "/chat/completions"}


@dataclass(frozen=True)
class Option:
    """One option an adapter is called with: the keyword, the label a reader knows it by, the values
    modelled (``None``: not set) and the value when the caller says nothing."""

    keyword: str
    label: str
    values: tuple[Any, ...]
    default: Any = None


@dataclass(frozen=True)
class Profile:
    """One client library: what it is called, where its model lives and what it can be asked."""

    id: str
    name: str
    module: str  # the toolkit.knowledge module modelling it
    apis: tuple[str, ...]  # its own api names
    options: tuple[Option, ...]
    versions_attr: str = "VERSIONS"
    default_attr: str = "DEFAULT_VERSION"
    own_tools: bool = False  # sends its own tools (Codex): matched by name, no input definitions

    def load(self) -> ModuleType:
        """The model's module (``ValueError`` naming it when it is not in this build)."""
        try:
            return importlib.import_module(self.module)
        except ModuleNotFoundError as exc:
            if exc.name != self.module:
                raise
            raise ValueError(f"{self.name} is not modelled in this build ({self.module} is missing)") from None

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(getattr(self.load(), self.versions_attr))

    @property
    def default_version(self) -> str:
        return str(getattr(self.load(), self.default_attr))


_UNSET_TRUE_FALSE = (None, True, False)
_CODEX_MODES = ("SANDBOX_MODES", "APPROVAL_POLICIES")

#: The registry, in the order attribution reports ties.
PROFILES: dict[str, Profile] = {
    p.id: p
    for p in (
        Profile(
            "pi-ai",
            "pi-ai",
            "toolkit.knowledge.pi_ai",
            ("openai-responses", "openai-codex-responses", "openai-completions"),
            (Option("compat", "compat.supportsStrictMode", _UNSET_TRUE_FALSE),),
        ),
        Profile(
            "ai-sdk",
            "Vercel AI SDK",
            "toolkit.knowledge.ai_sdk_tools",
            ("responses", "chat", "openai-compatible"),
            (Option("strict", "strict", _UNSET_TRUE_FALSE),),
            versions_attr="RELEASES",
        ),
        Profile(
            "agents-sdk",
            "OpenAI Agents SDK",
            "toolkit.knowledge.agents_sdk_tools",
            ("responses", "chat"),
            (Option("strict_json_schema", "strict_json_schema", (True, False), True),),
        ),
        Profile(
            "litellm",
            "LiteLLM",
            "toolkit.knowledge.litellm_tools",
            ("chat", "responses"),
            (Option("strict", "strict", _UNSET_TRUE_FALSE),),
        ),
        Profile(
            "codex",
            "Codex CLI",
            "toolkit.knowledge.codex_tools",
            ("responses",),
            (Option("sandbox", "sandbox", ()), Option("approval", "approval", ())),
            own_tools=True,
        ),
    )
}

#: (adapter, its api) -> the wire's api
WIRE_API: dict[tuple[str, str], str] = {
    ("pi-ai", "openai-responses"): "responses",
    ("pi-ai", "openai-codex-responses"): "responses",
    ("pi-ai", "openai-completions"): "chat",
    ("ai-sdk", "responses"): "responses",
    ("ai-sdk", "chat"): "chat",
    ("ai-sdk", "openai-compatible"): "chat",
    ("agents-sdk", "responses"): "responses",
    ("agents-sdk", "chat"): "chat",
    ("litellm", "chat"): "chat",
    ("litellm", "responses"): "responses",
    ("codex", "responses"): "responses",
}


def profile(adapter: str) -> Profile:
    """The profile of ``adapter`` (an id, or ``id@version``); ``ValueError`` naming the ids."""
    name = adapter.split("@", 1)[0]
    found = PROFILES.get(name)
    if found is None:
        raise ValueError(f"unknown adapter {name!r}; choose one of {', '.join(PROFILES)}")
    return found


def parse(adapter: str) -> tuple[Profile, str]:
    """``"pi-ai@1.6.0"`` -> (profile, version); ``"pi-ai"`` alone is its default version. A bad id or
    version is a ``ValueError`` naming the choices."""
    p = profile(adapter)
    _, at, version = adapter.partition("@")
    if not at:
        return p, p.default_version
    if version not in p.versions:
        raise ValueError(f"{p.name} {version!r} is not modelled; choose one of {', '.join(p.versions)}")
    return p, version


def available() -> tuple[Profile, ...]:
    """The profiles whose model is in this build."""
    out = []
    for p in PROFILES.values():
        try:
            p.load()
        except ValueError:
            continue
        out.append(p)
    return tuple(out)


def _option_values(p: Profile, option: Option) -> tuple[Any, ...]:
    if p.id == "codex":
        return tuple(getattr(p.load(), _CODEX_MODES[0 if option.keyword == "sandbox" else 1]))
    return option.values


def combinations(adapter: str) -> list[dict[str, Any]]:
    """Every modelled option combination of ``adapter``, as the keyword arguments ``convert`` takes
    (pi-ai's ``compat`` as the object the route would carry)."""
    p = profile(adapter)
    grids = [_option_values(p, o) for o in p.options]
    out = []
    for values in itertools.product(*grids):
        kwargs = dict(zip((o.keyword for o in p.options), values, strict=True))
        if p.id == "pi-ai":
            kwargs["compat"] = None if kwargs["compat"] is None else {"supportsStrictMode": kwargs["compat"]}
        out.append(kwargs)
    return out


def _word(value: Any) -> str:
    return "unset" if value is None else {True: "true", False: "false"}.get(value, str(value))


def describe_options(adapter: str, options: dict[str, Any] | None) -> str:
    """The options as a reader names them: ``compat.supportsStrictMode unset``, ``strict true``,
    ``sandbox workspace-write, approval on-request``."""
    p = profile(adapter)
    opts = dict(options or {})
    parts = []
    for o in p.options:
        value = opts.get(o.keyword, o.default)
        if p.id == "pi-ai":
            compat = value or {}
            value = compat.get("supportsStrictMode")
            extra = sorted(k for k in compat if k != "supportsStrictMode")
            parts.append(f"{o.label} {_word(value)}" + (f" (compat also sets {', '.join(extra)})" if extra else ""))
            continue
        parts.append(f"{o.label} {_word(value)}")
    return ", ".join(parts)


def adapter_apis(adapter: str, wire: str) -> tuple[str, ...]:
    """The apis of ``adapter`` that put ``wire`` on the wire (``wire`` as ``wire_api`` accepts it)."""
    p = profile(adapter)
    w = wire_api(wire)
    return tuple(a for a in p.apis if WIRE_API[(p.id, a)] == w)


def wire_api(api: str) -> str:
    """The wire's api (``responses``/``chat``) for a wire name, an endpoint path (``/v1/responses``,
    ``/codex/responses``, ``/chat/completions``) or any adapter's api name; ``ValueError`` otherwise."""
    if api in ENDPOINTS:
        return api
    for wire, suffix in ENDPOINTS.items():
        if api.split("?", 1)[0].rstrip("/").endswith(suffix):
            return wire
    names = {a: w for (_, a), w in WIRE_API.items()}
    if api in names:
        return names[api]
    raise ValueError(
        f"unknown api {api!r}; choose one of {', '.join(ENDPOINTS)}, an endpoint path, or {', '.join(sorted(names))}"
    )


def _check_options(p: Profile, options: dict[str, Any]) -> dict[str, Any]:
    keywords = [o.keyword for o in p.options]
    unknown = sorted(set(options) - set(keywords))
    if unknown:
        raise ValueError(
            f"{p.name} has no option {unknown[0]!r}; choose from {', '.join(keywords) or 'none (it takes no options)'}"
        )
    out = {o.keyword: options.get(o.keyword, o.default) for o in p.options}
    for o in p.options:
        value = out[o.keyword]
        if p.id == "pi-ai":
            if value is not None and not isinstance(value, dict):
                raise ValueError(f"pi-ai's compat is an object or None, not {value!r}")
            continue
        allowed = _option_values(p, o)
        if not any(value is v if v is None or isinstance(v, bool) else value == v for v in allowed):
            raise ValueError(f"{p.name} {o.label} {value!r} is not modelled; choose one of {_choices(allowed)}")
    return out


def _choices(values: tuple[Any, ...]) -> str:
    return ", ".join("None" if v is None else repr(v) for v in values)


def _litellm_given(tool: dict[str, Any], api: str, strict: bool | None) -> dict[str, Any]:
    """The tool in ``api``'s OpenAI shape, as a LiteLLM caller writes it (``strict`` only when set)."""
    body: dict[str, Any] = {k: copy.deepcopy(tool.get(k)) for k in ("name", "description", "parameters")}
    if strict is not None:
        body["strict"] = strict
    return {"type": "function", "function": body} if api == "chat" else {"type": "function", **body}


def convert(
    tools: list[dict[str, Any]], *, adapter: str, api: str, options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The ``tools`` array ``adapter`` (``id`` or ``id@version``) sends on ``api`` (its own api name) for
    the neutral definitions ``tools`` (``{name, description, parameters}``), called with ``options`` (its
    keyword arguments, ``combinations`` lists them). Codex sends its own tools: with no ``tools`` all of
    them, else the ones named (``ValueError`` for a name Codex does not send). The adapter's own refusal
    (``PiAiRefusal``, ``AiSdkRefusal``, ``AgentsSdkRefusal``) propagates; an unknown adapter, version,
    api or option is a ``ValueError`` naming the choices."""
    p, version = parse(adapter)
    if api not in p.apis:
        raise ValueError(f"{p.name} has no api {api!r}; choose one of {', '.join(p.apis)}")
    opts = _check_options(p, dict(options or {}))
    if p.id == "pi-ai":
        from toolkit.knowledge.pi_ai_tools import convert_tools as pi_ai_convert

        return pi_ai_convert(tools, api=api, compat=opts["compat"], pi_ai=version)
    module = p.load()
    if p.id == "ai-sdk":
        return list(module.convert_tools(tools, api=api, strict=opts["strict"], version=version))
    if p.id == "agents-sdk":
        return list(
            module.convert_tools(tools, api=api, strict_json_schema=opts["strict_json_schema"], version=version)
        )
    if p.id == "litellm":
        given = [_litellm_given(t, api, opts["strict"]) for t in tools]
        return list(module.convert_tools(given, api=api, version=version))
    # codex
    kw = {"sandbox": opts["sandbox"], "approval": opts["approval"], "version": version}
    if not tools:
        return list(module.tools_for(**kw))
    out = []
    for t in tools:
        found = module.tool_for(str(t.get("name")), **kw)
        if found is None:
            raise ValueError(f"Codex CLI {version} does not send a tool named {t.get('name')!r}")
        out.append(found)
    return out
