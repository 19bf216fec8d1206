"""Settings → routes, models and defaults, the way DSH's llm-pi-ai and then pi-ai resolve them.

Resolution follows llm-pi-ai's ``resolveProfiles`` / ``resolveRouteModels`` (``deepseek-ai/deepseek-harness``
``packages/llm/llm-pi-ai/src/{config,catalog}.ts``) and what pi-ai then does with the result; every
refusal quotes DSH's own text (``toolkit.knowledge.dsh_settings``). The file is read with a safe YAML
loader; for an ``apiKeyEnv`` only whether that variable is set is recorded, never its value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import yaml

from toolkit.capture.frames import declare, fixed
from toolkit.knowledge import dsh_images, pi_ai
from toolkit.knowledge import dsh_settings as dsh
from toolkit.knowledge.messages import Message
from toolkit.layers.config.findings import Finding
from toolkit.sources import yaml_text
from toolkit.sources.yaml_text import Edit, Loc

__all__ = ["MODELS", "ROUTES", "TEXT_SOURCE", "TOOL_STRICT", "ModelContext", "Resolver", "RouteContext"]

TEXT_SOURCE = "<text>"  # the source of settings given as text= (a path is named as given)
TOOL_STRICT = ("absent", "null", "false", "true", "n/a")

ROUTES = declare(
    "config.routes",
    {
        "route": "string",
        "display_name": "string",
        "api": "string",  # as written (a wrong api is data to report, not a category to drop)
        "base_url": "string",
        "api_key_env": "string",
        "api_key_set": "boolean",
        "default_input": object,  # tuple of modalities
        "default_context_window": "Int64",
        "default_max_tokens": "Int64",
        "compat": object,  # the route's compat mapping as declared, or None
        "line": "Int64",
    },
)
MODELS = declare(
    "config.models",
    {
        "route": "string",
        "id": "string",
        "name": "string",
        "api": "string",
        "base_url": "string",
        "input": object,  # tuple of modalities
        "input_source": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "context_window": "Int64",
        "context_window_source": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "max_tokens": "Int64",
        "max_tokens_source": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "supports_strict_mode": "boolean",
        "strict_mode_source": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "strict_mode_local_default": "boolean",
        "strict_mode_winner": object,  # a toolkit Message: English str, rendered in zh-CN by the report
        "tool_strict": fixed(*TOOL_STRICT),
        "compat": object,  # the compat DSH hands pi-ai (offered route switches, then the model's), or None
        "line": "Int64",
    },
)


@dataclass(frozen=True)
class RouteContext:
    """One ``llm-pi-ai.providers.<route>`` profile, with what the route resolves for its models."""

    route: str
    profile: dict[str, Any]
    path: tuple[Any, ...]
    default_input: tuple[str, ...]
    compat: dict[str, Any] | None
    catalog: dict[str, Any]  # the installed catalog's entries for this route, by model id


@dataclass(frozen=True)
class ModelContext:
    """One model entry of a route."""

    route: RouteContext
    entry: dict[str, Any]
    id: str
    api: str
    path: tuple[Any, ...]
    compat: dict[str, Any]  # the entry's own compat
    catalog: dict[str, Any]  # the catalog's entry for this model, or {}


class Resolver:
    """One run over one settings text; fills ``routes``, ``models``, ``findings`` and the defaults."""

    def __init__(
        self,
        text: str,
        env: Mapping[str, str],
        version: str,
        catalog: dict[str, Any],
        source: str = TEXT_SOURCE,
        dsh: str | None = None,
    ):
        self.text, self.env, self.version, self.catalog, self.source = text, env, version, catalog, source
        self.dsh = dsh
        self.findings: list[Finding] = []
        self.routes: list[dict[str, Any]] = []
        self.models: list[dict[str, Any]] = []
        self.locs: dict[tuple[Any, ...], Loc] = {}
        self.data: Any = None
        self.default_model: dict[str, Any] = {}
        self.default_preset: dict[str, Any] = {}

    # -- helpers ---------------------------------------------------------------------------------
    def add(
        self,
        severity: str,
        code: str,
        path: tuple[Any, ...],
        message: str,
        *,
        fix: str | None = None,
        dsh_message: str | None = None,
        dsh_messages: tuple[tuple[str, str], ...] = (),
        edits: Iterable[Edit | None] = (),
        layer: str = "config",
    ) -> None:
        loc = self._nearest(path)
        self.findings.append(
            Finding(
                severity,
                code,
                path,
                message,
                fix=fix,
                dsh_message=dsh_message,
                layer=layer,
                line=loc.line if loc else None,
                column=loc.column if loc else None,
                edits=[e for e in edits if e is not None],
                dsh_messages=dsh_messages,
            )
        )

    def _nearest(self, path: tuple[Any, ...]) -> Loc | None:
        while path not in self.locs and path:
            path = path[:-1]
        return self.locs.get(path)

    def _line(self, path: tuple[Any, ...]) -> int | None:
        return self.locs[path].line if path in self.locs else None

    def _keys_under(self, path: tuple[Any, ...]) -> set[Any]:
        return {p[len(path)] for p in self.locs if len(p) > len(path) and p[: len(path)] == path}

    def _what(self) -> Message:
        return (
            Message("config.what.text")
            if self.source == TEXT_SOURCE
            else Message("config.what.file", source=self.source)
        )

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
                    Message("config.yaml_syntax", what=self._what(), problem=what),
                    line=mark.line + 1 if mark else None,
                    column=mark.column + 1 if mark else None,
                    fix=Message("config.yaml_syntax.fix"),
                )
            )
            return
        except yaml.YAMLError as exc:
            line, column, why = yaml_text.error_place(exc, self.text)
            self.findings.append(
                Finding(
                    "error",
                    "yaml-syntax",
                    (),
                    Message("config.yaml_error", what=self._what(), problem=why),
                    line=line,
                    column=column,
                )
            )
            return
        if self.data is None:
            self.data = {}
        if not isinstance(self.data, dict):
            self.add(
                "error",
                "not-a-mapping",
                (),
                Message("config.not_a_mapping", what=self._what(), kind=type(self.data).__name__),
                fix=Message(
                    "config.not_a_mapping.fix_text" if self.source == TEXT_SOURCE else "config.not_a_mapping.fix"
                ),
            )
            return
        self._providers()
        self._default_model()
        self._preset()

    def _section(self, namespace: str) -> bool:
        """Whether ``namespace`` holds a mapping; a present non-mapping (``key:`` alone too) is refused."""
        section = self.data.get(namespace)
        if namespace in self.data and not isinstance(section, dict):
            self.add(
                "error",
                "section-not-a-mapping",
                (namespace,),
                Message(
                    "config.section_empty" if section is None else "config.section_not_a_mapping", namespace=namespace
                ),
                dsh_message=dsh.section_not_object(namespace),
                fix=Message("config.section.fix", namespace=namespace),
            )
        return isinstance(section, dict)

    def _schema(self, code: str, path: tuple[Any, ...], message: Message, detail: str, fix: Message) -> None:
        """A value the namespace's schemastery schema refuses (``path`` starts at the namespace)."""
        self.add("error", code, path, message, dsh_message=dsh.schema_error(tuple(path[1:]), detail), fix=fix)

    def _size(self, path: tuple[Any, ...], value: object) -> None:
        """``z.number().step(1).min(1)``: contextWindow, maxTokens and the route defaults."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            detail = f"expected number but got {_js(value)}"
        elif value < 1:
            detail = f"expected number >= 1 but got {_js(value)}"
        elif value != int(value):
            detail = f"expected number multiple of 1 but got {_js(value)}"
        else:
            return
        self._schema(
            "invalid-size",
            path,
            Message("config.invalid_size", name=path[-1]),
            detail,
            Message("config.invalid_size.fix"),
        )

    def _modalities(self, path: tuple[Any, ...], value: object) -> None:
        if not isinstance(value, list):
            return
        for i, modality in enumerate(value):
            if modality not in dsh.MODALITIES:
                self._schema(
                    "unknown-modality",
                    path + (i,),
                    Message("config.unknown_modality", modality=modality),
                    f"expected {_union(dsh.MODALITIES)} but got {json.dumps(modality, ensure_ascii=False)}",
                    Message("config.use", choices=_either(dsh.MODALITIES)),
                )

    def _providers(self) -> None:
        if dsh.NAMESPACE not in self.data:
            self.add("info", "no-routes", (), Message("config.no_routes", namespace=dsh.NAMESPACE))
            return
        if not self._section(dsh.NAMESPACE):
            return
        providers = self.data[dsh.NAMESPACE].get("providers")
        base = (dsh.NAMESPACE, "providers")
        if isinstance(providers, list):
            self.add(
                "error",
                "providers-array",
                base,
                Message("config.providers_array"),
                dsh_message=dsh.schema_error(("providers",), f"expected object but got {_js(providers)}"),
                dsh_messages=(("resolveProfiles", dsh.PROVIDERS_ARRAY),),
                fix=Message("config.providers_array.fix"),
            )
            return
        for route, profile in (providers or {}).items():
            self._route(str(route), profile if isinstance(profile, dict) else {}, base + (route,))

    def _route(self, route: str, p: dict[str, Any], path: tuple[Any, ...]) -> None:
        for key in dsh.REMOVED_ROUTE_FIELDS:
            if key in p:
                self.add(
                    "error",
                    "removed-key",
                    path + (key,),
                    Message("config.removed_key", name=key),
                    dsh_message=dsh.removed_field(route, key),
                    fix=Message(
                        "config.removed_key.fix_provider" if key == "provider" else "config.removed_key.fix_retry",
                        name=key,
                    ),
                    edits=[yaml_text.delete_key(self.locs, path + (key,), "removed key")],
                )
        api = p.get("api")
        if api is not None and api not in dsh.SUPPORTED_PROTOCOLS:
            self._schema(
                "unsupported-api",
                path + ("api",),
                Message("config.unsupported_api", api=api),
                f"expected {_union(dsh.SUPPORTED_PROTOCOLS)} but got {json.dumps(api, ensure_ascii=False)}",
                Message("config.use_one_of", choices=", ".join(dsh.SUPPORTED_PROTOCOLS)),
            )
        for key in ("defaultContextWindow", "defaultMaxTokens"):
            if p.get(key) is not None:
                self._size(path + (key,), p[key])
        self._modalities(path + ("defaultInput",), p.get("defaultInput"))
        ref = p.get("apiKeyEnv")
        if isinstance(ref, str) and not _SHELL_NAME.match(ref):
            self.add(
                "error",
                "invalid-credential-ref",
                path + ("apiKeyEnv",),
                Message("config.invalid_credential_ref", ref=ref),
                dsh_message=dsh.credential_ref_invalid(ref),
                fix=Message("config.invalid_credential_ref.fix"),
            )
        for key in ("baseURL", "displayName"):
            if p.get(key) == "":
                self.add(
                    "error",
                    "empty-field",
                    path + (key,),
                    Message("config.empty_field", name=key),
                    dsh_message=dsh.empty_field(route, key),
                    fix=Message("config.empty_field.fix", name=key),
                )
        default_input = p.get("defaultInput", list(dsh.DEFAULT_INPUT))
        if isinstance(default_input, list) and not default_input:
            self.add(
                "error",
                "empty-default-input",
                path + ("defaultInput",),
                Message("config.empty_field", name="defaultInput"),
                dsh_message=dsh.empty_default_input(route),
                fix=Message("config.empty_default_input.fix"),
                edits=[
                    yaml_text.replace_value(self.text, self.locs, path + ("defaultInput",), "[text]", "defaultInput")
                ],
            )
            default_input = list(dsh.DEFAULT_INPUT)
        ctx = RouteContext(
            route=route,
            profile=p,
            path=path,
            default_input=tuple(default_input) if isinstance(default_input, list) else dsh.DEFAULT_INPUT,
            compat=p.get("compat") if isinstance(p.get("compat"), dict) else None,
            catalog=self.catalog.get(route, {}),
        )
        env_name = p.get("apiKeyEnv")
        key_set = bool(env_name) and bool(self.env.get(str(env_name)))
        if env_name and not key_set:
            self.add(
                "warning",
                "api-key-unset",
                path + ("apiKeyEnv",),
                Message("config.api_key_unset", env=env_name),
                dsh_message=dsh.missing_credential(route, env_name, self.dsh),
                fix=Message("config.api_key_unset.fix", env=env_name),
            )
        self.routes.append(
            {
                "route": route,
                "display_name": p.get("displayName") or route,
                "api": p.get("api"),
                "base_url": p.get("baseURL"),
                "api_key_env": env_name,
                "api_key_set": key_set,
                "default_input": ctx.default_input,
                "default_context_window": _whole(p.get("defaultContextWindow", dsh.DEFAULT_CONTEXT_WINDOW)),
                "default_max_tokens": _whole(p.get("defaultMaxTokens", dsh.DEFAULT_MAX_TOKENS)),
                "compat": ctx.compat,
                "line": self._line(path),
            }
        )
        self._compat_vocabulary(route, "route", ctx.compat, path + ("compat",))
        listed = p.get("models")
        entries: list[Any] = listed if isinstance(listed, list) else []
        if not entries and not ctx.catalog:
            self.add(
                "error",
                "no-models",
                path,
                Message("config.no_models"),
                dsh_message=dsh.no_models(route),
                fix=Message("config.no_models.fix"),
            )
        apis_on_route = self._entries(ctx, entries)
        for fieldname in ctx.compat or {}:
            takers = dsh.compat_protocols(fieldname)
            if takers and apis_on_route and not apis_on_route & set(takers):
                self.add(
                    "error",
                    "compat-unreadable",
                    path + ("compat", fieldname),
                    Message("config.compat_unreadable", field=fieldname),
                    dsh_message=dsh.compat_unreadable_on_route(route, fieldname),
                    fix=Message("config.delete", name=fieldname),
                )

    def _entries(self, ctx: RouteContext, entries: list[Any]) -> set[str]:
        """Resolve each model entry of a route; the apis its models speak."""
        route, p = ctx.route, ctx.profile
        seen: set[str] = set()
        apis: set[str] = set()
        for i, entry in enumerate(entries):
            mpath = ctx.path + ("models", i)
            entry = entry if isinstance(entry, dict) else {}
            if entry.get("id") is None:
                self._schema(
                    "missing-model-id",
                    mpath + ("id",),
                    Message("config.model_without_id"),
                    "missing required value",
                    Message("config.model_without_id.fix"),
                )
                continue
            for key in ("contextWindow", "maxTokens"):
                if entry.get(key) is not None:
                    self._size(mpath + (key,), entry[key])
            self._modalities(mpath + ("input",), entry.get("input"))
            mid = str(entry["id"])
            if not mid:
                self.add(
                    "error",
                    "empty-model-id",
                    mpath,
                    Message("config.model_without_id"),
                    dsh_message=dsh.empty_model_id(route),
                    fix=Message("config.model_without_id.fix"),
                )
                continue
            if mid in seen:
                self.add(
                    "error",
                    "duplicate-model",
                    mpath + ("id",),
                    Message("config.duplicate_model", model=mid, route=route),
                    dsh_message=dsh.duplicate_model(route, mid),
                    fix=Message("config.duplicate_model.fix"),
                )
                continue
            seen.add(mid)
            self._compat_vocabulary(route, f'model "{mid}"', entry.get("compat"), mpath + ("compat",))
            cat = ctx.catalog.get(mid) or {}
            model_api = p.get("api") or cat.get("api")
            if model_api is None:
                self.add(
                    "error",
                    "needs-api",
                    ctx.path,
                    Message("config.needs_api", model=mid),
                    dsh_message=dsh.needs_api(route, mid),
                    fix=Message("config.needs_api.fix"),
                )
                continue
            apis.add(model_api)
            if p.get("baseURL") is None and cat.get("baseUrl") is None:
                self.add(
                    "error",
                    "needs-base-url",
                    ctx.path,
                    Message("config.needs_base_url", model=mid),
                    dsh_message=dsh.needs_base_url(route, mid),
                    fix=Message("config.needs_base_url.fix"),
                )
            own = entry.get("compat")
            compat: dict[str, Any] = own if isinstance(own, dict) else {}
            self._model(ModelContext(ctx, entry, mid, model_api, mpath, compat, cat))
        return apis

    def _compat_vocabulary(self, route: str, site: str, compat: object, path: tuple[Any, ...]) -> None:
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
                        Message("config.compat_withheld", field=fieldname),
                        dsh_message=dsh.compat_withheld(route, site, fieldname),
                        fix=Message("config.compat_withheld.fix"),
                        edits=[yaml_text.delete_key(self.locs, fpath, "withheld compat key")],
                    )
                else:
                    self.add(
                        "error",
                        "compat-undeclared",
                        fpath,
                        Message("config.compat_undeclared", field=fieldname),
                        dsh_message=dsh.compat_undeclared(route, site, fieldname),
                        fix=Message("config.compat_undeclared.fix", field=fieldname),
                    )
            elif value is None:
                self.add(
                    "error",
                    "compat-valueless",
                    fpath,
                    Message("config.compat_valueless", field=fieldname),
                    dsh_message=dsh.compat_valueless(route, site, fieldname),
                    fix=Message("config.compat_valueless.fix", field=fieldname),
                )

    def _model(self, m: ModelContext) -> None:
        route, p, entry, cat = m.route.route, m.route.profile, m.entry, m.catalog
        for fieldname in m.compat:
            if dsh.compat_protocols(fieldname) and fieldname not in dsh.COMPAT_OFFERED.get(m.api, ()):
                self.add(
                    "error",
                    "compat-wrong-api",
                    m.path + ("compat", fieldname),
                    Message("config.compat_wrong_api", model=m.id, field=fieldname, api=m.api),
                    dsh_message=dsh.compat_wrong_api(route, m.id, fieldname, m.api),
                    fix=Message("config.delete", name=fieldname),
                )
        if "reasoningEfforts" in entry and entry["reasoningEfforts"] in (None, {}):
            self.add(
                "error",
                "empty-reasoning-efforts",
                m.path + ("reasoningEfforts",),
                Message("config.empty_field", name="reasoningEfforts"),
                dsh_message=dsh.empty_reasoning_efforts(route, m.id),
                fix=Message("config.empty_reasoning_efforts.fix"),
            )
        # input: declaredInput(entry.input) ?? catalog.input ?? [...defaultInput]
        declared = entry.get("input")
        if isinstance(declared, list) and declared:
            model_input, input_source = tuple(declared), Message("config.source.entry")
        elif cat.get("input"):
            model_input, input_source = tuple(cat["input"]), Message("config.source.catalog")
        else:
            model_input = m.route.default_input
            input_source = (
                Message("config.source.route_key", name="defaultInput")
                if "defaultInput" in p
                else Message("config.source.route_default_input")
            )

        def sized(key: str, default_key: str, default: int) -> tuple[int | None, Message]:
            if entry.get(key) is not None:
                value, source = entry[key], Message("config.source.entry")
            elif key in cat:
                value, source = cat[key], Message("config.source.catalog")
            elif p.get(default_key) is not None:
                value, source = p[default_key], Message("config.source.route_key", name=default_key)
            else:
                value, source = default, Message("config.source.key_default", name=default_key)
            return _whole(value), source  # DSH refuses the rest (invalid-size)

        context_window, cw_source = sized("contextWindow", "defaultContextWindow", dsh.DEFAULT_CONTEXT_WINDOW)
        max_tokens, mt_source = sized("maxTokens", "defaultMaxTokens", dsh.DEFAULT_MAX_TOKENS)
        strict, strict_source = self._strict_mode(m)
        local_default = pi_ai.CONVERT_TOOLS_LOCAL_DEFAULT[0] if "responses" in m.api else None
        row = {
            "route": route,
            "id": m.id,
            "name": entry.get("name") or cat.get("name") or m.id,
            "api": m.api,
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
            "strict_mode_winner": Message("config.source.winner") if local_default is not None else pd.NA,
            "tool_strict": pi_ai.plain_tool_strict(m.api, strict, self.version),
            "compat": self._model_compat(m),
            "line": self._line(m.path),
        }
        self.models.append(row)
        self._input_findings(m, row)
        self._strict_findings(m, row)

    def _model_compat(self, m: ModelContext) -> dict[str, Any] | None:
        """resolveModelCompat: the route's switches this api takes, then the model's; empty mappings say nothing;
        when anything is set, the catalog entry's compat (same api) sits underneath."""
        offered = dsh.COMPAT_OFFERED.get(m.api, ())
        configured = {k: v for k, v in (m.route.compat or {}).items() if k in offered and v != {}}
        configured.update({k: v for k, v in m.compat.items() if v != {}})
        if not configured:
            return None
        under = m.catalog.get("compat") if m.catalog.get("api") == m.api else None
        return {**(under or {}), **configured}

    def _strict_mode(self, m: ModelContext) -> tuple[bool | None, str]:
        """supportsStrictMode and where it came from (a ``Message``, or pi-ai's default as the knowledge says it)."""
        route_compat, cat = m.route.compat or {}, m.catalog
        if "supportsStrictMode" in m.compat:
            return bool(m.compat["supportsStrictMode"]), Message("config.source.model_compat")
        if "supportsStrictMode" in route_compat and "supportsStrictMode" in dsh.COMPAT_OFFERED.get(m.api, ()):
            return bool(route_compat["supportsStrictMode"]), Message("config.source.route_compat")
        if "supportsStrictMode" in (cat.get("compat") or {}):
            return bool(cat["compat"]["supportsStrictMode"]), Message("config.source.catalog")
        if m.route.route in pi_ai.CATALOG_STRICT_MODE and not cat:
            return pi_ai.CATALOG_STRICT_MODE[m.route.route], Message(
                "config.source.catalog_models", route=m.route.route
            )
        default = pi_ai.strict_mode_default(m.api, self.version)
        if default is not None:
            return default
        return None, Message("config.source.not_applicable", api=m.api)

    def _input_findings(self, m: ModelContext, row: dict[str, Any]) -> None:
        has_modalities = "inputModalities" in m.entry
        where = m.path + ("inputModalities",)
        if has_modalities:
            rename = (
                yaml_text.rename_key(self.text, self.locs, where, "input", "inputModalities → input")
                if "input" not in m.entry
                else None
            )
            self.add(
                "warning",
                "input-modalities-ignored",
                where,
                Message(
                    "config.input_modalities_ignored",
                    model=m.id,
                    input=str(list(row["input"])),
                    source=row["input_source"],
                ),
                fix=Message(
                    "config.input_modalities_ignored.fix_rename"
                    if rename
                    else "config.input_modalities_ignored.fix_delete"
                ),
                edits=[rename] if rename else [yaml_text.delete_key(self.locs, where, "ignored key")],
            )
        if "image" not in row["input"] and row["input_source"] != "entry":
            texts = dsh_images.refusals(m.id)
            self.add(
                "warning",
                "image-undeclared",
                m.path,
                Message(
                    "config.image_undeclared",
                    model=m.id,
                    route=m.route.route,
                    default_input=str(list(m.route.default_input)),
                    placeholder=dsh_images.PLACEHOLDER_USER,
                ),
                dsh_message=dsh_images.primary(texts),
                dsh_messages=texts,
                layer="capability",
                fix=Message(
                    "config.image_undeclared.fix_misspelled" if has_modalities else "config.image_undeclared.fix"
                ),
                edits=(
                    []
                    if has_modalities
                    else [yaml_text.insert_keys(self.locs, m.path, ["input: [text, image]"], why="declare image input")]
                ),
            )

    def _strict_findings(self, m: ModelContext, row: dict[str, Any]) -> None:
        if m.api != "openai-responses" or row["tool_strict"] != "absent":
            return
        path = m.route.path
        where = path + ("compat",)
        if "supportsStrictMode" in m.compat or "supportsStrictMode" in (m.route.compat or {}):
            edits = []  # declared false on purpose: say so, change nothing
        elif "compat" not in self._keys_under(path):
            edits = [
                yaml_text.insert_keys(
                    self.locs,
                    path,
                    ["compat:", "  supportsStrictMode: true"],
                    before="models",
                    why="declare strict support",
                )
            ]
        else:
            edits = [
                yaml_text.insert_keys(self.locs, where, ["supportsStrictMode: true"], why="declare strict support")
            ]
        self.add(
            "warning",
            "strict-absent",
            where,
            Message("config.strict_absent", route=m.route.route, version=self.version, model=m.id),
            layer="serialization",
            fix=Message("config.strict_absent.fix"),
            edits=edits,
        )

    def _default_model(self) -> None:
        section = self.data.get(dsh.DEFAULT_MODEL_NAMESPACE)
        path = (dsh.DEFAULT_MODEL_NAMESPACE,)
        if dsh.DEFAULT_MODEL_NAMESPACE in self.data and not self._section(dsh.DEFAULT_MODEL_NAMESPACE):
            self.default_model = {"route": None, "model": None, "source": "agent-default-model", "exists": False}
            return
        if not isinstance(section, dict):
            base_route, base_model = dsh.BASE_DEFAULT_MODEL
            self.default_model = {
                "route": base_route,
                "model": base_model,
                "source": Message("config.source.base_default_model"),
                "exists": any(r["route"] == base_route for r in self.routes),
            }
            return
        route, model = section.get("provider"), section.get("model")
        for key in ("provider", "model"):
            if section.get(key) is None:
                self._schema(
                    "default-model-incomplete",
                    path + (key,),
                    Message("config.default_model_incomplete", name=key),
                    "missing required value",
                    Message("config.default_model_incomplete.fix", name=key),
                )
        complete = route is not None and model is not None
        exists = complete and (route, model) in {(m["route"], m["id"]) for m in self.models}
        self.default_model = {
            "route": route,
            "model": model,
            "source": "agent-default-model",
            "exists": exists,
            "line": self.locs[path].line,
        }
        if not complete:
            return
        routes = {r["route"] for r in self.routes}
        if route not in routes:
            self.add(
                "error",
                "default-route-missing",
                path + ("provider",),
                Message("config.default_route_missing", route=route),
                fix=Message(
                    "config.default_route_missing.fix",
                    routes=", ".join(sorted(routes)) or Message("config.no_routes_listed"),
                ),
            )
        elif not exists:
            self.add(
                "error",
                "default-model-missing",
                path + ("model",),
                Message("config.default_model_missing", model=model, route=route),
                dsh_message=dsh.unknown_model(str(route), str(model)),
                fix=Message("config.default_model_missing.fix", model=model),
            )

    def _preset(self) -> None:
        section = self.data.get(dsh.PERMISSION_NAMESPACE)
        preset = section.get("defaultPreset") if isinstance(section, dict) else None
        if preset is not None:
            if preset not in dsh.PRESETS:
                self.add(
                    "error",
                    "unknown-preset",
                    ("permission", "defaultPreset"),
                    Message("config.unknown_preset", preset=preset),
                    fix=Message("config.use_one_of", choices=", ".join(dsh.PRESETS)),
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
            "source": dsh.PERMISSION_MODE_ENV if env_mode else Message("config.source.base_sandbox"),
        }


_SHELL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")  # dsh-credentials REF_PATTERN


def _either(values: tuple[str, ...]) -> str:
    """``a or b`` (``a or b or c``): the choices, with the toolkit's ``or`` in the reader's language."""
    return values[0] if len(values) == 1 else Message("config.or", head=_either(values[:-1]), last=values[-1])


def _union(values: Iterable[str]) -> str:
    """How schemastery names a union of literals: ``"a" | "b"``."""
    return " | ".join(json.dumps(v) for v in values)


def _js(value: object) -> str:
    """JavaScript's ``String(value)`` for parsed YAML, as schemastery interpolates it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    if isinstance(value, list):
        return ",".join("" if v is None else _js(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _whole(value: object) -> int | None:
    """A size as pi-ai gets it: a positive whole number, else None (DSH refuses it: ``invalid-size``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 1 or value != int(value):
        return None
    return int(value)
