"""Layer 1, configuration: what a DSH ``settings.yaml`` resolves to, and where each value came from.

Resolution follows DSH's llm-pi-ai (``resolveProfiles`` / ``resolveRouteModels``) and what pi-ai then
does with the result; every refusal quotes DSH's own text (``toolkit.knowledge.dsh_settings``). The
file is read with a safe YAML loader; credential files and key values are never read: for an
``apiKeyEnv`` only whether that variable is set is recorded.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from toolkit.errors import InputError
from toolkit.knowledge import dsh_settings as dsh
from toolkit.knowledge import pi_ai
from toolkit.sources import yaml_text
from toolkit.sources.yaml_text import Edit, Loc, path_text

SEVERITIES = ("error", "warning", "info")


class SettingsError(InputError):
    """A settings source that cannot be read at all (missing file, a credential file)."""


@dataclass
class Finding:
    severity: str
    code: str
    path: tuple
    message: str
    fix: str | None = None
    dsh_message: str | None = None  # DSH's own text for this problem, when DSH has one
    layer: str = "config"
    line: int | None = None
    column: int | None = None
    edits: list[Edit] = field(default_factory=list, repr=False)


@dataclass
class Settings:
    """A resolved settings file: ``routes``, ``models`` and ``findings`` frames, plus the defaults."""

    source: str
    text: str
    data: Any
    routes: pd.DataFrame
    models: pd.DataFrame
    findings: pd.DataFrame
    default_model: dict
    default_preset: dict
    pi_ai: str
    _findings: list[Finding] = field(default_factory=list, repr=False)

    def model(self, route: str, model: str) -> pd.Series | None:
        rows = self.models[(self.models["route"] == route) & (self.models["id"] == model)]
        return None if rows.empty else rows.iloc[0]

    def __repr__(self) -> str:
        counts = self.findings["severity"].value_counts().to_dict() if len(self.findings) else {}
        return (
            f"<Settings {self.source}: {len(self.routes)} routes, {len(self.models)} models, "
            f"findings {counts or 'none'}>"
        )


def _read(path_or_text) -> tuple[str, str]:
    if isinstance(path_or_text, Path) or (
        isinstance(path_or_text, str)
        and "\n" not in path_or_text
        and path_or_text.rstrip().endswith((".yaml", ".yml", ".json"))
    ):
        path = Path(path_or_text)
        if path.name in dsh.CREDENTIAL_FILES:
            raise SettingsError(f"{path}: refusing to read a credential file; pass settings.yaml")
        try:
            return path.read_text(encoding="utf-8"), str(path)
        except OSError as exc:
            raise SettingsError(f"{path}: cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise SettingsError(f"{path}: not UTF-8 text (byte {exc.start}): {exc.reason}") from None
    return str(path_or_text), "<text>"


def load_settings(
    path_or_text, *, env=None, pi_ai_version: str = pi_ai.DEFAULT_VERSION, catalog: dict | None = None
) -> Settings:
    """Resolve a DSH ``settings.yaml`` (a path, or its text) the way DSH and pi-ai do.

    ``env`` (default ``os.environ``) is only asked whether an ``apiKeyEnv`` name is set. ``catalog``
    maps a route id to ``{model id: {input, contextWindow, maxTokens, api, baseUrl, compat}}`` for
    routes pi-ai's installed catalog describes (the toolkit does not ship that catalog).
    """
    text, source = _read(path_or_text)
    env = os.environ if env is None else env
    r = _Resolver(text, env, pi_ai_version, catalog or {})
    r.run()
    return Settings(
        source=source,
        text=text,
        data=r.data,
        routes=pd.DataFrame(r.routes, columns=ROUTE_COLUMNS),
        models=_models_frame(r.models),
        findings=_findings_frame(r.findings),
        default_model=r.default_model,
        default_preset=r.default_preset,
        pi_ai=pi_ai_version,
        _findings=r.findings,
    )


ROUTE_COLUMNS = [
    "route",
    "display_name",
    "api",
    "base_url",
    "api_key_env",
    "api_key_set",
    "default_input",
    "default_context_window",
    "default_max_tokens",
    "compat",
    "line",
]
MODEL_COLUMNS = [
    "route",
    "id",
    "name",
    "api",
    "base_url",
    "input",
    "input_source",
    "context_window",
    "context_window_source",
    "max_tokens",
    "max_tokens_source",
    "supports_strict_mode",
    "strict_mode_source",
    "strict_mode_local_default",
    "strict_mode_winner",
    "tool_strict",
    "line",
]


def _models_frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=MODEL_COLUMNS)
    for col in ("context_window", "max_tokens", "line"):
        df[col] = df[col].astype("Int64")
    df["supports_strict_mode"] = df["supports_strict_mode"].astype("boolean")
    df["tool_strict"] = df["tool_strict"].astype(pd.CategoricalDtype(["absent", "null", "false", "true", "n/a"]))
    return df


def _findings_frame(findings: list[Finding]) -> pd.DataFrame:
    order = {s: i for i, s in enumerate(SEVERITIES)}
    rows = [
        {
            "severity": f.severity,
            "layer": f.layer,
            "code": f.code,
            "yaml_path": path_text(f.path),
            "line": f.line,
            "column": f.column,
            "message": f.message,
            "dsh_message": f.dsh_message,
            "fix": f.fix,
        }
        for f in sorted(findings, key=lambda f: (order[f.severity], f.line or 0))
    ]
    df = pd.DataFrame(
        rows, columns=["severity", "layer", "code", "yaml_path", "line", "column", "message", "dsh_message", "fix"]
    )
    df["severity"] = df["severity"].astype(pd.CategoricalDtype(list(SEVERITIES), ordered=True))
    df["line"] = df["line"].astype("Int64")
    df["column"] = df["column"].astype("Int64")
    for col in ("layer", "code", "yaml_path", "message", "dsh_message", "fix"):
        df[col] = df[col].astype("string")
    return df


class _Resolver:
    def __init__(self, text: str, env, version: str, catalog: dict):
        self.text, self.env, self.version, self.catalog = text, env, version, catalog
        self.findings: list[Finding] = []
        self.routes: list[dict] = []
        self.models: list[dict] = []
        self.locs: dict[tuple, Loc] = {}
        self.data: Any = None
        self.default_model: dict = {}
        self.default_preset: dict = {}

    # -- helpers ---------------------------------------------------------------------------------
    def add(
        self,
        severity: str,
        code: str,
        path: tuple,
        message: str,
        *,
        fix: str | None = None,
        dsh_message: str | None = None,
        edits=(),
        layer: str = "config",
    ) -> None:
        loc = self._nearest(path)
        self.findings.append(
            Finding(
                severity,
                code,
                path,
                message,
                fix,
                dsh_message,
                layer,
                loc.line if loc else None,
                loc.column if loc else None,
                [e for e in edits if e is not None],
            )
        )

    def _nearest(self, path: tuple) -> Loc | None:
        while path not in self.locs and path:
            path = path[:-1]
        return self.locs.get(path)

    # -- the run ---------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            self.data, self.locs = yaml_text.compose(self.text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            what = " ".join(x for x in (exc.context, exc.problem) if x)
            self.findings.append(
                Finding(
                    "error",
                    "yaml-syntax",
                    (),
                    f"YAML syntax error: {what}",
                    line=mark.line + 1 if mark else None,
                    column=mark.column + 1 if mark else None,
                    fix="correct the YAML at that line",
                )
            )
            return
        except yaml.YAMLError as exc:
            self.findings.append(Finding("error", "yaml-syntax", (), f"YAML error: {exc}"))
            return
        if self.data is None:
            self.data = {}
        if not isinstance(self.data, dict):
            self.add("error", "not-a-mapping", (), "settings.yaml must be a mapping of namespaces")
            return
        self._providers()
        self._default_model()
        self._preset()

    def _providers(self) -> None:
        section = self.data.get(dsh.NAMESPACE)
        if section is None:
            self.add("info", "no-routes", (), f"no `{dsh.NAMESPACE}:` section: llm-pi-ai mounts with zero routes")
            return
        providers = section.get("providers") if isinstance(section, dict) else None
        base = (dsh.NAMESPACE, "providers")
        if isinstance(providers, list):
            self.add(
                "error",
                "providers-array",
                base,
                "providers must be a dict keyed by route id",
                dsh_message=dsh.PROVIDERS_ARRAY,
                fix="write each profile under its route id",
            )
            return
        for route, profile in (providers or {}).items():
            self._route(str(route), profile if isinstance(profile, dict) else {}, base + (route,))

    def _route(self, route: str, p: dict, path: tuple) -> None:
        for key in ("provider",):
            if key in p:
                self.add(
                    "error",
                    "removed-key",
                    path + (key,),
                    f"`{key}` was removed from llm-pi-ai profiles",
                    dsh_message=dsh.removed_provider(route),
                    fix=f"delete `{key}` (the dict key names the route)",
                    edits=[yaml_text.delete_key(self.locs, path + (key,), "removed key")],
                )
        for key in ("maxRetries", "maxRetryDelayMs"):
            if key in p:
                self.add(
                    "error",
                    "removed-key",
                    path + (key,),
                    f"`{key}` was removed from llm-pi-ai profiles",
                    dsh_message=dsh.removed_retries(route),
                    fix=f"delete `{key}`; compose agent recovery with dsh-llm-retry",
                    edits=[yaml_text.delete_key(self.locs, path + (key,), "removed key")],
                )
        for key in ("baseURL", "displayName"):
            if p.get(key) == "":
                self.add(
                    "error",
                    "empty-field",
                    path + (key,),
                    f"`{key}` is empty",
                    dsh_message=dsh.empty_field(route, key),
                    fix=f"give `{key}` a value or delete it",
                )
        default_input = p.get("defaultInput", list(dsh.DEFAULT_INPUT))
        if isinstance(default_input, list) and not default_input:
            self.add(
                "error",
                "empty-default-input",
                path + ("defaultInput",),
                "`defaultInput` is empty",
                dsh_message=dsh.empty_default_input(route),
                fix="set `defaultInput: [text]` or delete it",
                edits=[
                    yaml_text.replace_value(self.text, self.locs, path + ("defaultInput",), "[text]", "defaultInput")
                ],
            )
            default_input = list(dsh.DEFAULT_INPUT)
        default_input = tuple(default_input) if isinstance(default_input, list) else dsh.DEFAULT_INPUT
        catalog = self.catalog.get(route, {})
        api = p.get("api")
        compat = p.get("compat") if isinstance(p.get("compat"), dict) else None
        env_name = p.get("apiKeyEnv")
        key_set = bool(env_name) and bool(self.env.get(env_name))
        if env_name and not key_set:
            self.add(
                "warning",
                "api-key-unset",
                path + ("apiKeyEnv",),
                f"`{env_name}` is not set in this environment (checked by name only; the value is never read): "
                "every request on this route fails before it is sent",
                dsh_message=dsh.missing_credential(route, env_name),
                fix=f"set {env_name} through DSH's credentials service or export it where DSH starts",
            )
        self.routes.append(
            {
                "route": route,
                "display_name": p.get("displayName") or route,
                "api": api,
                "base_url": p.get("baseURL"),
                "api_key_env": env_name,
                "api_key_set": key_set,
                "default_input": default_input,
                "default_context_window": p.get("defaultContextWindow", dsh.DEFAULT_CONTEXT_WINDOW),
                "default_max_tokens": p.get("defaultMaxTokens", dsh.DEFAULT_MAX_TOKENS),
                "compat": compat,
                "line": self.locs[path].line if path in self.locs else None,
            }
        )
        self._compat_vocabulary(route, "route", compat, path + ("compat",))
        entries = p.get("models") if isinstance(p.get("models"), list) else []
        if not entries and not catalog:
            self.add(
                "error",
                "no-models",
                path,
                "the route lists no models and is not in the installed catalog",
                dsh_message=dsh.no_models(route),
                fix="list the route's models under `models:`",
            )
        seen: set[str] = set()
        apis_on_route: set[str] = set()
        for i, entry in enumerate(entries):
            mpath = path + ("models", i)
            entry = entry if isinstance(entry, dict) else {}
            mid = str(entry.get("id") or "")
            if not mid:
                self.add(
                    "error",
                    "empty-model-id",
                    mpath,
                    "a model entry has no id",
                    dsh_message=dsh.empty_model_id(route),
                    fix="give the entry an `id`",
                )
                continue
            if mid in seen:
                self.add(
                    "error",
                    "duplicate-model",
                    mpath + ("id",),
                    f"model `{mid}` is listed twice on route `{route}`",
                    dsh_message=dsh.duplicate_model(route, mid),
                    fix="delete or rename one of the entries",
                )
                continue
            seen.add(mid)
            self._compat_vocabulary(route, f'model "{mid}"', entry.get("compat"), mpath + ("compat",))
            model_api = api or (catalog.get(mid) or {}).get("api")
            if model_api is None:
                self.add(
                    "error",
                    "needs-api",
                    path,
                    f"model `{mid}` has no api",
                    dsh_message=dsh.needs_api(route, mid),
                    fix="set the route's `api` (e.g. openai-responses)",
                )
                continue
            apis_on_route.add(model_api)
            if not (p.get("baseURL") or (catalog.get(mid) or {}).get("baseUrl")):
                self.add(
                    "error",
                    "needs-base-url",
                    path,
                    f"model `{mid}` has no baseURL",
                    dsh_message=dsh.needs_base_url(route, mid),
                    fix="set the route's `baseURL`",
                )
            self._model(route, p, entry, mid, model_api, default_input, compat, catalog.get(mid) or {}, path, mpath)
        for fieldname in compat or {}:
            takers = dsh.compat_protocols(fieldname)
            if takers and apis_on_route and not apis_on_route & set(takers):
                self.add(
                    "error",
                    "compat-unreadable",
                    path + ("compat", fieldname),
                    f"route compat `{fieldname}` is taken by no model's api on this route",
                    dsh_message=dsh.compat_unreadable_on_route(route, fieldname),
                    fix=f"delete `{fieldname}`",
                )

    def _compat_vocabulary(self, route: str, site: str, compat, path: tuple) -> None:
        if not isinstance(compat, dict):
            return
        for fieldname, value in compat.items():
            fpath = path + (fieldname,)
            if not dsh.compat_protocols(fieldname):
                if fieldname in dsh.COMPAT_WITHHELD:
                    self.add(
                        "error",
                        "compat-withheld",
                        fpath,
                        f"compat `{fieldname}` cannot be configured on a route",
                        dsh_message=dsh.compat_withheld(route, site, fieldname),
                        fix="name the catalog provider as the route instead",
                        edits=[yaml_text.delete_key(self.locs, fpath, "withheld compat key")],
                    )
                else:
                    self.add(
                        "error",
                        "compat-undeclared",
                        fpath,
                        f"compat `{fieldname}` is not a pi-ai switch",
                        dsh_message=dsh.compat_undeclared(route, site, fieldname),
                        fix=f"delete `{fieldname}` or correct its spelling",
                    )
            elif value is None:
                self.add(
                    "error",
                    "compat-valueless",
                    fpath,
                    f"compat `{fieldname}` has no value",
                    dsh_message=dsh.compat_valueless(route, site, fieldname),
                    fix=f"give `{fieldname}` a value",
                )

    def _model(self, route, p, entry, mid, api, default_input, route_compat, cat, path, mpath) -> None:
        m_compat = entry.get("compat") if isinstance(entry.get("compat"), dict) else {}
        for fieldname in m_compat:
            if dsh.compat_protocols(fieldname) and fieldname not in dsh.COMPAT_OFFERED.get(api, ()):
                self.add(
                    "error",
                    "compat-wrong-api",
                    mpath + ("compat", fieldname),
                    f"model `{mid}` sets compat `{fieldname}`, which api `{api}` does not take",
                    dsh_message=dsh.compat_wrong_api(route, mid, fieldname, api),
                    fix=f"delete `{fieldname}`",
                )
        if "reasoningEfforts" in entry and entry["reasoningEfforts"] in (None, {}):
            self.add(
                "error",
                "empty-reasoning-efforts",
                mpath + ("reasoningEfforts",),
                "`reasoningEfforts` is empty",
                dsh_message=dsh.empty_reasoning_efforts(route, mid),
                fix="declare levels, set false, or delete it",
            )
        # input: declaredInput(entry.input) ?? catalog.input ?? [...defaultInput]
        declared = entry.get("input")
        if isinstance(declared, list) and declared:
            model_input, input_source = tuple(declared), "entry"
        elif cat.get("input"):
            model_input, input_source = tuple(cat["input"]), "catalog"
        else:
            model_input = default_input
            input_source = "route defaultInput" if "defaultInput" in p else "route defaultInput (default [text])"

        def _sized(key: str, default_key: str, default: int) -> tuple[int, str]:
            if key in entry:
                return entry[key], "entry"
            if key in cat:
                return cat[key], "catalog"
            return p.get(default_key, default), (
                "route " + default_key
            ) if default_key in p else f"{default_key} default"

        context_window, cw_source = _sized("contextWindow", "defaultContextWindow", dsh.DEFAULT_CONTEXT_WINDOW)
        max_tokens, mt_source = _sized("maxTokens", "defaultMaxTokens", dsh.DEFAULT_MAX_TOKENS)
        strict, strict_source = self._strict_mode(api, route, route_compat or {}, m_compat, cat)
        local_default = pi_ai.CONVERT_TOOLS_LOCAL_DEFAULT[0] if "responses" in api else None
        winner = (
            "provider's resolved value (it always passes one, so convertResponsesTools' `?? true` never applies)"
            if local_default is not None
            else None
        )
        tool_strict = pi_ai.plain_tool_strict(api, strict, self.version)
        self.models.append(
            {
                "route": route,
                "id": mid,
                "name": entry.get("name") or cat.get("name") or mid,
                "api": api,
                "base_url": p.get("baseURL") or cat.get("baseUrl"),
                "input": model_input,
                "input_source": input_source,
                "context_window": context_window,
                "context_window_source": cw_source,
                "max_tokens": max_tokens,
                "max_tokens_source": mt_source,
                "supports_strict_mode": strict,
                "strict_mode_source": strict_source,
                "strict_mode_local_default": local_default,
                "strict_mode_winner": winner,
                "tool_strict": tool_strict,
                "line": self.locs[mpath].line if mpath in self.locs else None,
            }
        )
        self._model_findings(
            route,
            api,
            entry,
            mid,
            model_input,
            input_source,
            default_input,
            tool_strict,
            route_compat,
            m_compat,
            path,
            mpath,
        )

    def _strict_mode(self, api, route, route_compat, m_compat, cat) -> tuple[bool | None, str]:
        if "supportsStrictMode" in m_compat:
            return bool(m_compat["supportsStrictMode"]), "model compat"
        if "supportsStrictMode" in route_compat and "supportsStrictMode" in dsh.COMPAT_OFFERED.get(api, ()):
            return bool(route_compat["supportsStrictMode"]), "route compat"
        if "supportsStrictMode" in (cat.get("compat") or {}):
            return bool(cat["compat"]["supportsStrictMode"]), "catalog"
        if route in pi_ai.CATALOG_STRICT_MODE and not cat:
            return pi_ai.CATALOG_STRICT_MODE[route], f"catalog ({route} models, pi-ai.md §1.1)"
        if api in pi_ai.STRICT_MODE_DEFAULT:
            value, why = pi_ai.STRICT_MODE_DEFAULT[api]
            return value, why
        return None, f"not applicable to {api}"

    def _model_findings(
        self,
        route,
        api,
        entry,
        mid,
        model_input,
        input_source,
        default_input,
        tool_strict,
        route_compat,
        m_compat,
        path,
        mpath,
    ) -> None:
        has_modalities = "inputModalities" in entry
        if has_modalities:
            edit = None
            if "input" not in entry:
                edit = yaml_text.rename_key(
                    self.text, self.locs, mpath + ("inputModalities",), "input", "inputModalities → input"
                )
            self.add(
                "warning",
                "input-modalities-ignored",
                mpath + ("inputModalities",),
                f"`inputModalities` on llm-pi-ai model `{mid}` is silently ignored (unknown keys pass through); "
                f"the key is `input`, so the model resolves to {list(model_input)} from {input_source}",
                fix="rename `inputModalities` to `input`" if edit else "delete `inputModalities` (`input` is set)",
                edits=[edit]
                if edit
                else [yaml_text.delete_key(self.locs, mpath + ("inputModalities",), "ignored key")],
            )
        if "image" not in model_input and input_source != "entry":
            edits = (
                []
                if has_modalities
                else [yaml_text.insert_keys(self.locs, mpath, ["input: [text, image]"], why="declare image input")]
            )
            self.add(
                "warning",
                "image-undeclared",
                mpath,
                f"model `{mid}` declares no `input` and route `{route}` defaults to {list(default_input)}: DSH "
                "refuses images for it before sending, and pi-ai replaces any that reach it with "
                "`(image omitted: model does not support images)`",
                dsh_message=f'pi-ai model "{mid}" does not support image input',
                layer="capability",
                fix="if the endpoint accepts images, declare `input: [text, image]` on the model"
                + (" (the misspelled `inputModalities` already says so: rename it)" if has_modalities else ""),
                edits=edits,
            )
        if api == "openai-responses" and tool_strict == "absent":
            where = path + ("compat",)
            edits = (
                [
                    yaml_text.insert_keys(
                        self.locs,
                        path,
                        ["compat:", "  supportsStrictMode: true"],
                        before="models",
                        why="declare strict support",
                    )
                ]
                if "compat" not in self.locs_keys(path)
                else [
                    yaml_text.insert_keys(self.locs, where, ["supportsStrictMode: true"], why="declare strict support")
                ]
            )
            if "supportsStrictMode" in m_compat or "supportsStrictMode" in (route_compat or {}):
                edits = []  # declared false on purpose: say so, change nothing
            self.add(
                "warning",
                "strict-absent",
                where,
                f"route `{route}` (openai-responses) does not declare `compat.supportsStrictMode`, so pi-ai "
                f"{self.version} omits `strict` from every tool sent to `{mid}`; what an absent `strict` means "
                "is left to the gateway (OpenAI Responses reads it as strict: every field required, optional "
                "ones nullable)",
                layer="serialization",
                fix="declare `compat: {supportsStrictMode: true}` on the route so tools go out with `strict: false`",
                edits=edits,
            )

    def locs_keys(self, path: tuple) -> set:
        return {p[len(path)] for p in self.locs if len(p) > len(path) and p[: len(path)] == path}

    def _default_model(self) -> None:
        section = self.data.get("agent-default-model")
        path = ("agent-default-model",)
        if not isinstance(section, dict):
            route, model = dsh.BASE_DEFAULT_MODEL
            self.default_model = {
                "route": route,
                "model": model,
                "source": "base default (agent-default-model row)",
                "exists": any(r["route"] == route for r in self.routes),
            }
            return
        route, model = section.get("provider"), section.get("model")
        routes = {r["route"] for r in self.routes}
        exists = (route, model) in {(m["route"], m["id"]) for m in self.models}
        self.default_model = {
            "route": route,
            "model": model,
            "source": "agent-default-model",
            "exists": exists,
            "line": self.locs[path].line,
        }
        if route not in routes:
            self.add(
                "error",
                "default-route-missing",
                path + ("provider",),
                f"agent-default-model names route `{route}`, which is not configured under llm-pi-ai providers",
                fix=f"name one of: {', '.join(sorted(routes)) or '(no routes)'}",
            )
        elif not exists:
            self.add(
                "error",
                "default-model-missing",
                path + ("model",),
                f"agent-default-model names model `{model}`, which route `{route}` does not list",
                dsh_message=dsh.unknown_model(route, model),
                fix=f"list `{model}` under the route's models",
            )

    def _preset(self) -> None:
        section = self.data.get("permission")
        preset = section.get("defaultPreset") if isinstance(section, dict) else None
        if preset is not None:
            if preset not in dsh.PRESETS:
                self.add(
                    "error",
                    "unknown-preset",
                    ("permission", "defaultPreset"),
                    f"unknown permission preset `{preset}`",
                    fix=f"use one of {', '.join(dsh.PRESETS)}",
                )
                self.default_preset = {
                    "preset": preset,
                    "sandbox_mode": None,
                    "approval": None,
                    "source": "permission.defaultPreset",
                }
                return
            mode, approval = dsh.PRESETS[preset]
            self.default_preset = {
                "preset": preset,
                "sandbox_mode": mode,
                "approval": approval,
                "source": "permission.defaultPreset",
                "line": self.locs[("permission", "defaultPreset")].line,
            }
            return
        env_mode = self.env.get(dsh.PERMISSION_MODE_ENV)
        mode = env_mode or dsh.BASE_SANDBOX_MODE
        self.default_preset = {
            "preset": None,
            "sandbox_mode": mode,
            "approval": "never" if env_mode == "danger-full-access" else "ask",
            "source": dsh.PERMISSION_MODE_ENV if env_mode else "base bundle default (sandbox-policy)",
        }


def suggest_fix(path_or_text, **kwargs) -> str:
    """The minimal fix for every finding that has one, as a unified diff against the original text.

    The text is edited line by line, so comments, key order and formatting stay byte for byte.
    """
    settings = load_settings(path_or_text, **kwargs)
    edits: list[Edit] = []
    taken: set[tuple[int, int]] = set()
    for f in settings._findings:
        for e in f.edits:
            if (e.start, e.stop) not in taken:  # two findings may propose the same edit
                taken.add((e.start, e.stop))
                edits.append(e)
    fixed = yaml_text.apply(settings.text, edits)
    name = settings.source if settings.source != "<text>" else "settings.yaml"
    return "".join(
        difflib.unified_diff(
            settings.text.splitlines(keepends=True),
            fixed.splitlines(keepends=True),
            fromfile=f"a/{name}",
            tofile=f"b/{name}",
        )
    )


def apply_fix(path_or_text, **kwargs) -> str:
    """The fixed text itself (what ``suggest_fix``'s diff produces)."""
    settings = load_settings(path_or_text, **kwargs)
    edits, taken = [], set()
    for f in settings._findings:
        for e in f.edits:
            if (e.start, e.stop) not in taken:
                taken.add((e.start, e.stop))
                edits.append(e)
    return yaml_text.apply(settings.text, edits)
