"""A LiteLLM proxy ``config.yaml`` as a second settings source: what the gateway in front of DSH's route
declares about each model, and where DSH's settings and the gateway's disagree.

DSH's ``settings.yaml`` says what DSH will send (``input: [text, image]``, tools); the gateway's config
says what the gateway thinks its models take (``model_info.supports_vision``, or LiteLLM's cost map).
When the two disagree the request fails mid-turn, and neither file alone shows why. The meaning of a
config is ``toolkit.knowledge.litellm_config``; this module reads the file (with line numbers) and
writes the findings as rows of the ``config.findings`` frame (``yaml_path`` starts with the gateway
file's name, ``line`` is a line of that file).

A config LiteLLM's proxy refuses to load (YAML syntax, not a mapping, ``model_list`` not a list, an
entry without ``model_name``, ``litellm_params`` or ``litellm_params.model``) is a
``GatewayConfigError`` naming the file, the line and what is wrong, with LiteLLM's own exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import yaml

from toolkit.errors import InputError
from toolkit.knowledge import litellm_config as llc
from toolkit.knowledge.messages import Joined, Message
from toolkit.layers.config.findings import Finding, findings_frame
from toolkit.sources.yaml_text import LastKeyWinsLoader, Loc, error_place, path_text
from toolkit.sources.yaml_text import compose as compose_yaml

if TYPE_CHECKING:
    from toolkit.layers.config.settings import Settings

__all__ = [
    "FATAL",
    "GATEWAY_TEXT",
    "GatewayConfig",
    "GatewayConfigError",
    "GatewayVision",
    "gateway_findings",
    "load_gateway_config",
]

#: the source name of a config given as text
GATEWAY_TEXT = "<gateway config text>"
#: problems that stop LiteLLM's proxy from loading the config (``toolkit.knowledge.litellm_config.REFUSALS``)
FATAL = frozenset(
    {
        "empty",
        "not-a-mapping",
        "model-list-not-a-list",
        "entry-not-a-mapping",
        "missing-model-name",
        "missing-litellm-params",
        "missing-model",
        "model-not-a-string",
    }
)


class GatewayConfigError(InputError):
    """A LiteLLM config that cannot be read, or that LiteLLM's proxy refuses to load."""


@dataclass(frozen=True)
class GatewayVision:
    """What the gateway declares about image input for one requested model, and where it says so."""

    model: str
    state: str  # "text-only", "image-capable", "undeclared" or "not-listed"
    source: str  # the file and line, or the cost map, that decided it
    sentence: str  # one line for a verdict's evidence


@dataclass
class GatewayConfig:
    """A LiteLLM proxy config: its deployments, the problems LiteLLM tolerates, and line numbers."""

    source: str
    text: str
    data: Any
    deployments: tuple[llc.Deployment, ...]
    problems: tuple[llc.Problem, ...]
    litellm: str = llc.DEFAULT_VERSION
    _locs: dict[Any, Loc] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        """The file's name, as findings and verdicts quote it."""
        return Path(self.source).name if self.source != GATEWAY_TEXT else self.source

    @property
    def model_names(self) -> list[str]:
        return list(dict.fromkeys(d.model_name for d in self.deployments))

    @property
    def env_refs(self) -> list[tuple[str, str, str]]:
        """``(model_name, litellm_params key, variable)`` for every ``os.environ/`` value (never resolved)."""
        return [(d.model_name, key, var) for d in self.deployments for key, var in d.env_refs]

    def line(self, path: tuple[Any, ...]) -> int | None:
        """1-based line of a YAML path, or of its nearest parent that has one."""
        while path not in self._locs and path:
            path = path[:-1]
        loc = self._locs.get(path)
        return loc.line if loc is not None else None

    def group(self, model: str) -> llc.Group | None:
        return llc.group(self.deployments, model)

    def where(self, d: llc.Deployment, key: str) -> str:
        """``litellm-config.yaml line 12: `model_info.supports_vision: false``` for a declared field."""
        value = d.declared.get(key)
        shown = str(value).lower() if isinstance(value, bool) else repr(value)
        line = self.line(("model_list", d.index, "model_info", key))
        return Message("config.gateway.where", file=self.name, line=line, name=key, value=shown)

    def _flag_source(self, d: llc.Deployment, key: str) -> str:
        value, source = llc.resolve(d, key, _registered(self))
        if source == "model_info":
            return self.where(d, key)
        shown = Message("config.gateway.left_out") if value is None else str(value).lower()
        if source == "registered":
            other = next(
                o
                for o in reversed(self.deployments)
                if llc.registration_key(o) == llc.registration_key(d) and key in o.declared
            )
            return Message(
                "config.gateway.registered",
                where=self.where(other, key),
                other=other.model_name,
                underlying=d.underlying,
                model=d.model_name,
            )
        if source == "cost map":
            return Message(
                "config.gateway.cost_map", version=self.litellm, underlying=d.underlying, name=key, value=shown
            )
        return Message("config.gateway.unknown_to_cost_map", name=key, version=self.litellm, underlying=d.underlying)

    def _sources(self, deployments: Any, key: str) -> str:
        """Each deployment's source for ``key``, each once, joined by ``; ``."""
        return Joined("; ", dict.fromkeys(self._flag_source(d, key) for d in deployments))

    def vision(self, model: str) -> GatewayVision:
        """What the gateway declares about images for ``model`` (as a client names it)."""
        g = self.group(model)
        if g is None:
            return GatewayVision(
                model,
                "not-listed",
                self.name,
                Message(
                    "config.gateway.not_listed",
                    file=self.name,
                    model=model,
                    litellm_text=llc.unknown_model_text(model).splitlines()[0],
                ),
            )
        registered = _registered(self)
        targets = llc.image_targets(g, self.deployments)
        if all(llc.declares_no_vision(d, registered) for d in targets):
            source = self._sources(targets, "supports_vision")
            return GatewayVision(
                model, "text-only", source, Message("config.gateway.text_only", model=model, source=source)
            )
        if g.info["supports_vision"]:
            capable = [d for d in targets if llc.resolve(d, "supports_vision", registered)[0] is True]
            source = self._sources(capable, "supports_vision")
            return GatewayVision(
                model, "image-capable", source, Message("config.gateway.image_capable", model=model, source=source)
            )
        source = self._sources(targets, "supports_vision")
        return GatewayVision(
            model, "undeclared", source, Message("config.gateway.vision_undeclared", model=model, source=source)
        )

    def findings(self, settings: Settings | None = None) -> pd.DataFrame:
        """The ``config.findings`` rows for this config, checked against DSH's ``settings`` when given."""
        return findings_frame(gateway_findings(self, settings))

    def __repr__(self) -> str:
        return f"<GatewayConfig {self.source}: {len(self.deployments)} deployments, models {self.model_names}>"


def _registered(gateway: GatewayConfig) -> dict[str, dict[str, Any]]:
    return llc.registrations(gateway.deployments)


def _read(path: str | os.PathLike[str] | None, text: str | None) -> tuple[str, str]:
    if (path is None) == (text is None):
        raise TypeError("give the gateway config as a path or as YAML text (text=...), not both")
    if text is not None:
        return text, GATEWAY_TEXT
    p = Path(path).expanduser()  # type: ignore[arg-type]
    try:
        return p.read_text(encoding="utf-8"), str(path)
    except OSError as exc:
        raise GatewayConfigError(f"{path}: cannot read the gateway config: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise GatewayConfigError(f"{path}: the gateway config is not UTF-8 text (byte {exc.start})") from None


def load_gateway_config(path: str | os.PathLike[str] | None = None, *, text: str | None = None) -> GatewayConfig:
    """Read a LiteLLM proxy ``config.yaml`` (a path, or its YAML ``text=``) as litellm 1.110.2 reads it."""
    body, source = _read(path, text)
    try:
        data, locs = compose_yaml(
            body, LastKeyWinsLoader
        )  # ProxyConfig.load_config: yaml.safe_load, last value kept (docs/upstream.md)
    except yaml.YAMLError as exc:
        line, column, what = error_place(exc, body)
        where = f"line {line}, column {column}" if line is not None else "the file"
        raise GatewayConfigError(f"{source}: {where}: YAML syntax error: {what}") from None
    deployments, problems = llc.read_model_list(data)
    gateway = GatewayConfig(source, body, data, deployments, problems, _locs=locs)
    fatal = [p for p in problems if p.code in FATAL]
    if fatal:
        first = fatal[0]
        line = gateway.line(first.path)
        where = f"line {line} ({path_text(first.path) or 'the document'})" if line else "the document"
        refusal = llc.REFUSALS.get(first.code, {})
        raised = refusal.get("proxy_load") or refusal.get("router")
        said = f"; LiteLLM {llc.DEFAULT_VERSION} raises {raised[0]}: {raised[1].splitlines()[0]}" if raised else ""
        more = f" (and {len(fatal) - 1} more)" if len(fatal) > 1 else ""
        raise GatewayConfigError(f"{source}: {where}: {first.message}{said}{more}")
    return gateway


#: the layer each gateway finding belongs to (the others are configuration)
_LAYER = {
    "gateway-text-only": "capability",
    "gateway-vision-undeclared": "capability",
    "gateway-no-tools": "capability",
}


def _finding(
    gateway: GatewayConfig, severity: str, code: str, path: tuple[Any, ...], message: str, **kw: Any
) -> Finding:
    line = gateway.line(path) if path else None
    where = f"{gateway.name}:{path_text(path)}" if path else gateway.name
    return Finding(severity, code, (where,), message, line=line, layer=_LAYER.get(code, "config"), **kw)


def gateway_findings(gateway: GatewayConfig, settings: Settings | None = None) -> list[Finding]:
    """What a DSH user trips on: the config's own tolerated problems, and, with ``settings``, every DSH
    model the gateway does not serve, declares text-only while DSH declares images, or declares without
    tool calls (DSH sends its tools on every request)."""
    out: list[Finding] = []
    for p in gateway.problems:
        if p.code == "no-model-list":
            said = Message("config.gateway.problem", file=gateway.name, problem=p.message)
            out.append(_finding(gateway, "warning", "gateway-no-model-list", (), said))
        elif p.code == "flag-not-a-bool":
            out.append(
                _finding(
                    gateway,
                    "warning",
                    "gateway-flag-not-bool",
                    p.path,
                    Message("config.gateway.problem", file=gateway.name, problem=p.message),
                    fix=Message("config.gateway.flag_not_bool.fix"),
                )
            )
    if settings is None:
        return out
    registered = _registered(gateway)
    for m in settings.models.itertuples(index=False):
        model = str(m.id)
        route = Message("config.gateway.route_model", route=m.route, model=model)
        g = gateway.group(model)
        if g is None:
            out.append(
                _finding(
                    gateway,
                    "warning",
                    "gateway-model-missing",
                    ("model_list",),
                    Message(
                        "config.gateway.model_missing",
                        route=route,
                        file=gateway.name,
                        model=model,
                        litellm_text=llc.unknown_model_text(model).splitlines()[0],
                    ),
                    fix=Message("config.gateway.model_missing.fix", model=model, file=gateway.name),
                )
            )
            continue
        declared = tuple(m.input) if isinstance(m.input, (list, tuple)) else ()
        vision = gateway.vision(model)
        first = g.deployments[0]
        if "image" in declared and vision.state == "text-only":
            out.append(
                _finding(
                    gateway,
                    "error",
                    "gateway-text-only",
                    ("model_list", first.index, "model_info", "supports_vision"),
                    Message(
                        "config.gateway.text_only_finding",
                        route=route,
                        input=str(list(declared)),
                        source=m.input_source,
                        sentence=vision.sentence,
                    ),
                    fix=Message("config.gateway.text_only_finding.fix", model=model),
                )
            )
        elif "image" in declared and vision.state == "undeclared":
            out.append(
                _finding(
                    gateway,
                    "info",
                    "gateway-vision-undeclared",
                    ("model_list", first.index),
                    Message(
                        "config.gateway.vision_undeclared_finding",
                        route=route,
                        input=str(list(declared)),
                        source=m.input_source,
                        sentence=vision.sentence,
                    ),
                    fix=Message("config.gateway.vision_undeclared_finding.fix", model=model, file=gateway.name),
                )
            )
        no_tools = [d for d in g.deployments if llc.resolve(d, "supports_function_calling", registered)[0] is False]
        if no_tools and len(no_tools) == len(g.deployments):
            source = gateway._sources(no_tools, "supports_function_calling")
            out.append(
                _finding(
                    gateway,
                    "warning",
                    "gateway-no-tools",
                    ("model_list", no_tools[0].index, "model_info", "supports_function_calling"),
                    Message("config.gateway.no_tools", route=route, model=model, source=source),
                    fix=Message("config.gateway.no_tools.fix", model=model),
                )
            )
    return out
