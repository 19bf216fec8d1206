"""The strict-variant comparer: what the model receives for one tool on two routes, and what changes.

The logic is plain functions over dicts (``tool_definition``, ``variant_view``, ``compare_views``,
``diff_html``, ``summary_html``, ``adapter_choices``, ``option_settings``), tested without a kernel;
``StrictVariantComparer`` only wires controls. A side's route is pi-ai's by default (api, compat,
pi-ai version); choosing another adapter (``adapters.PROFILES``, Codex aside: it sends its own tools,
not a definition it is given) swaps the compat and version controls for that adapter's option and
versions.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import ipywidgets as W

from toolkit.knowledge import adapters
from toolkit.knowledge.dsh_tools import SCHEMAS, description_for, schema_for
from toolkit.knowledge.messages import Message, render
from toolkit.knowledge.pi_ai import DEFAULT_VERSION
from toolkit.knowledge.pi_ai import VERSIONS as PI_AI_VERSIONS
from toolkit.knowledge.pi_ai_strict import allows_null
from toolkit.knowledge.pi_ai_tools import TOOL_APIS
from toolkit.layers.serialization import PiAiRefusal, adapter_refusals, convert_tools, strict_state, variants
from toolkit.layers.strict import strict_verdict
from toolkit.present.i18n import language, t
from toolkit.present.widgets.base import RememberedWidget, esc, key_json, pane, seq
from toolkit.wire.schemas import flat_tool

__all__ = [
    "ADAPTERS",
    "COMPATS",
    "DSH_TOOLS",
    "GATEWAYS",
    "READ_NON_STRICT",
    "READ_NORMALISED",
    "READ_NOT_SENT",
    "READ_STRICT_AS_SENT",
    "READ_TRANSFORMED",
    "StrictVariantComparer",
    "adapter_choices",
    "compare_views",
    "diff_html",
    "gateway_label",
    "option_settings",
    "side_value",
    "summary_html",
    "tool_definition",
    "variant_view",
    "verdict_html",
]

COMPATS = ("unset", "true", "false")  # compat.supportsStrictMode
GATEWAYS = ("pass-through", "reads absent as strict", "forces strict")
DSH_TOOLS = tuple(SCHEMAS)  # bash, pwsh, write, edit

_COMPAT_OBJ = {"unset": None, "true": {"supportsStrictMode": True}, "false": {"supportsStrictMode": False}}

# the rows of serialization.variants(), by name
_V_PASS = "absent, pass-through gateway"
_V_NORMALISED = "absent, gateway reads absence as strict"
_V_FALSE = "false"
_V_NULL = "null (Codex)"
_V_TRUE = "true, pi-ai's strict transform"

# how the gateway reads what was sent: toolkit Messages (the English str; shown in the notebook's language)
READ_NON_STRICT = Message("widget.read.non_strict")  # "non-strict"
READ_NORMALISED = Message("widget.read.normalised")  # "strict by the gateway's normalisation"
READ_TRANSFORMED = Message("widget.read.transformed")  # "strict (pi-ai's transform)"
READ_NOT_SENT = Message("widget.read.not_sent")  # "not sent"
READ_STRICT_AS_SENT = Message("widget.read.as_sent")  # "strict (as the adapter sent it)"

#: The adapters the comparer offers: each turns a given definition into a tool (Codex does not).
ADAPTERS = tuple(p for p in adapters.PROFILES if not adapters.PROFILES[p].own_tools)
_WORDS = {None: "unset", True: "true", False: "false"}


def adapter_choices(adapter: str) -> dict[str, tuple[str, ...]]:
    """What a side offers for ``adapter``: its ``apis``, ``versions`` and ``options`` (the words of its
    one option: pi-ai's ``compat.supportsStrictMode``, the AI SDK's and LiteLLM's ``strict``, the
    Agents SDK's ``strict_json_schema``), and the option's ``label``."""
    if adapter not in ADAPTERS:
        raise ValueError(f"unknown adapter {adapter!r}; choose one of {', '.join(ADAPTERS)}")
    p = adapters.profile(adapter)
    option = p.options[0]
    return {
        "apis": p.apis,
        "versions": p.versions,
        "options": tuple(_WORDS[v] for v in option.values),
        "label": (option.label,),
    }


def option_settings(adapter: str, option: str) -> dict[str, Any]:
    """The ``options`` ``convert_tools`` takes for the word ``option`` of ``adapter``'s one option."""
    choices = adapter_choices(adapter)
    if option not in choices["options"]:
        raise ValueError(f"unknown {adapter} option {option!r}; choose one of {', '.join(choices['options'])}")
    value = {w: v for v, w in _WORDS.items()}[option]
    keyword = adapters.profile(adapter).options[0].keyword
    if adapter == "pi-ai":
        return {"compat": _COMPAT_OBJ[option]}
    return {keyword: value}


def tool_definition(tool: str | dict) -> dict:
    """The pi-ai tool definition for a DSH tool name (schema and description as DSH 0.1.0-rc.8 advertises
    them in a sandboxed composition, from ``dsh_tools``), or a copy of a given definition
    (a Chat Completions tool nested under ``function`` is flattened)."""
    if isinstance(tool, str):
        if tool not in SCHEMAS:
            raise ValueError(
                f"unknown DSH tool {tool!r}; choose one of {', '.join(DSH_TOOLS)} or pass a definition dict"
            )
        return {
            "name": tool,
            "description": description_for(tool),
            "parameters": schema_for(tool),
        }
    if not isinstance(tool, dict):
        raise TypeError(f"tool must be a DSH tool name or a pi-ai tool definition dict, not {type(tool).__name__}")
    given: dict = copy.deepcopy(tool)
    if isinstance(given.get("function"), dict):
        given = {k: v for k, v in given.items() if k not in ("function", "type")} | given["function"]
    return given


def variant_view(
    tool: str | dict,
    *,
    api: str,
    compat: str = "unset",
    gateway: str,
    pi_ai: str = DEFAULT_VERSION,
    adapter: str = "pi-ai",
    option: str | None = None,
    version: str | None = None,
) -> dict:
    """What the model effectively receives for ``tool`` on a route: what pi-ai sends (``convert_tools``),
    its strict state, how the gateway reads it, and the schema and obligations that follow (the row of
    ``serialization.variants`` that applies).

    ``compat`` is ``compat.supportsStrictMode`` (``"unset"``, ``"true"``, ``"false"``); ``gateway`` is
    ``"pass-through"`` (as sent: strict only when ``strict: true``), ``"reads absent as strict"``
    (absent or null → OpenAI's normalisation: every property required, ``additionalProperties: false``,
    nothing made nullable) or ``"forces strict"`` (as if ``true``: pi-ai's transform when pi-ai made
    one, otherwise the same normalisation). Returns ``sent_strict``, ``read_as``, ``schema``,
    ``required``, ``optional``, ``nullable``, ``additional_properties``, ``must_send``, plus the
    choices, the ``variant`` row used, ``description`` and the ``sent`` tool.

    With another ``adapter`` (``ADAPTERS``), ``option`` is the word of its option (``adapter_choices``;
    default: its default), ``version`` its version (default: its default), ``api`` one of its apis, and
    ``compat``/``pi_ai`` are not used: the rows are read off the schema that adapter sent.
    """
    if adapter != "pi-ai":
        return _adapter_view(tool, api=api, gateway=gateway, adapter=adapter, option=option, version=version)
    if compat not in _COMPAT_OBJ:
        raise ValueError(f"unknown compat {compat!r}; choose one of {', '.join(COMPATS)}")
    if gateway not in GATEWAYS:
        raise ValueError(f"unknown gateway {gateway!r}; choose one of {', '.join(GATEWAYS)}")
    definition = tool_definition(tool)
    base = {
        "tool": definition.get("name"),
        "description": definition.get("description"),
        "api": api,
        "compat": compat,
        "gateway": gateway,
        "pi_ai": pi_ai,
    }
    try:
        sent = flat_tool(convert_tools([definition], api=api, compat=_COMPAT_OBJ[compat], pi_ai=pi_ai)[0])
    except PiAiRefusal as exc:
        return _not_sent(base, Message("widget.refuses", client="pi-ai", error=str(exc)))
    state = strict_state(sent)
    name = _variant_read(state, gateway)
    row = variants(definition).set_index("variant").loc[name]
    read_as = {_V_TRUE: READ_TRANSFORMED, _V_NORMALISED: READ_NORMALISED}.get(name, READ_NON_STRICT)
    # the schema as the gateway passes it on: what was sent, unless the gateway normalised it
    schema = row["schema"] if name == _V_NORMALISED else sent.get("parameters")
    return _sent_view(base, name, sent, state, read_as, schema, row)


def _sent_view(base: dict, name: str, sent: dict, state: str, read_as: str, schema: Any, row: Any) -> dict:
    """The view of a side whose tool went out: the ``variants`` row the gateway's reading lands on."""
    return {
        **base,
        "variant": name,
        "sent": sent,
        "sent_strict": state,
        "read_as": read_as,
        "schema": copy.deepcopy(schema),
        "required": tuple(row["required"]),
        "optional": tuple(row["optional"]),
        "nullable": tuple(row["nullable"]),
        "additional_properties": row["additional_properties"],
        "must_send": row["must_send"],
    }


def _not_sent(base: dict, why: Message) -> dict:
    """The view of a side whose client refuses the tool before sending anything."""
    return {
        **base,
        "variant": None,
        "sent": None,
        "sent_strict": Message("widget.state.not_sent"),
        "read_as": READ_NOT_SENT,
        "schema": None,
        "required": (),
        "optional": (),
        "nullable": (),
        "additional_properties": None,
        "must_send": Message("widget.must.nothing", why=why),
    }


def _variant_read(state: str, gateway: str) -> str:
    """Which row of ``variants`` the model gets for a sent ``strict`` state behind ``gateway``."""
    if gateway == "pass-through":
        return {"absent": _V_PASS, "null": _V_NULL, "false": _V_FALSE, "true": _V_TRUE}[state]
    if gateway == "reads absent as strict":
        return {"absent": _V_NORMALISED, "null": _V_NORMALISED, "false": _V_FALSE, "true": _V_TRUE}[state]
    return _V_TRUE if state == "true" else _V_NORMALISED


def _adapter_view(
    tool: str | dict, *, api: str, gateway: str, adapter: str, option: str | None, version: str | None
) -> dict:
    choices = adapter_choices(adapter)
    p = adapters.profile(adapter)
    option = _WORDS[p.options[0].default] if option is None else option
    settings = option_settings(adapter, option)
    version = p.default_version if version is None else version
    if version not in choices["versions"]:
        raise ValueError(f"{p.name} {version!r} is not modelled; choose one of {', '.join(choices['versions'])}")
    if api not in choices["apis"]:
        raise ValueError(f"{p.name} has no api {api!r}; choose one of {', '.join(choices['apis'])}")
    if gateway not in GATEWAYS:
        raise ValueError(f"unknown gateway {gateway!r}; choose one of {', '.join(GATEWAYS)}")
    definition = tool_definition(tool)
    base = {
        "tool": definition.get("name"),
        "description": definition.get("description"),
        "api": api,
        "adapter": adapter,
        "adapter_name": p.name,
        "option": f"{choices['label'][0]} {option}",
        "version": version,
        "gateway": gateway,
    }
    try:
        sent = flat_tool(convert_tools([definition], adapter=f"{adapter}@{version}", api=api, options=settings)[0])
    except adapter_refusals() as exc:
        return _not_sent(base, Message("widget.refuses", client=p.name, error=str(exc)))
    state = strict_state(sent)
    name = _variant_read(state, gateway)
    params = sent.get("parameters") or {}
    if name == _V_TRUE:  # enforced as the adapter sent it (its transform, if any, applied)
        props = list((params.get("properties") or {}) if isinstance(params, dict) else {})
        required = tuple(r for r in params.get("required") or [] if r in props)
        optional = tuple(x for x in props if x not in required)
        ap = params.get("additionalProperties", "absent")
        ap = {True: "true", False: "false"}.get(ap, ap if ap == "absent" else "schema")
        nullable = tuple(x for x in props if allows_null(params["properties"][x]))
        must = (
            (
                Message("serialization.must.every_field_nullable", fields=", ".join(nullable))
                if nullable
                else Message("serialization.must.every_field")
            )
            if not optional and ap == "false"
            else Message("widget.must.as_sent", adapter=p.name, optional=", ".join(optional) or Message("widget.none"))
        )
        return {
            **base,
            "variant": "true, as the adapter sent it",
            "sent": sent,
            "sent_strict": state,
            "read_as": READ_STRICT_AS_SENT,
            "schema": copy.deepcopy(params),
            "required": required,
            "optional": optional,
            "nullable": nullable,
            "additional_properties": ap,
            "must_send": must,
        }
    row = variants({**definition, "parameters": params}).set_index("variant").loc[name]
    read_as = READ_NORMALISED if name == _V_NORMALISED else READ_NON_STRICT
    schema = row["schema"] if name == _V_NORMALISED else params
    return _sent_view(base, name, sent, state, read_as, schema, row)


def _props(view: dict) -> list[str]:
    schema = view.get("schema") or {}
    return list((schema.get("properties") or {}) if isinstance(schema, dict) else {})


#: ``compare_views``' lists of fields that changed between the two sides, in the order the summary says them
_FIELD_CHANGES = (
    "required_added",
    "required_removed",
    "became_nullable",
    "no_longer_nullable",
    "properties_added",
    "properties_removed",
)


def compare_views(left: dict, right: dict) -> dict:
    """What changes from the ``left`` view to the ``right`` one: per property (``properties``: name →
    list of changes), and as lists (``required_added``, ``required_removed``, ``became_nullable``,
    ``no_longer_nullable``, ``properties_added``, ``properties_removed``); ``additional_properties``,
    ``sent_strict``, ``read_as`` and ``must_send`` are ``{"left", "right"}`` when they differ, else None."""
    lp, rp = _props(left), _props(right)
    names = lp + [p for p in rp if p not in lp]
    lreq, rreq = set(left.get("required") or ()), set(right.get("required") or ())
    lnull, rnull = set(left.get("nullable") or ()), set(right.get("nullable") or ())
    out: dict[str, Any] = {k: [] for k in _FIELD_CHANGES}
    per: dict[str, list[str]] = {}
    for p in names:
        changes = []
        # (left set, right set, key and label when gained, key and label when lost)
        for left_set, right_set, gained, lost in (
            (lp, rp, ("properties_added", "property added"), ("properties_removed", "property removed")),
            (lreq, rreq, ("required_added", "required added"), ("required_removed", "required removed")),
            (lnull, rnull, ("became_nullable", "became nullable"), ("no_longer_nullable", "no longer nullable")),
        ):
            if p in right_set and p not in left_set:
                key, label = gained
            elif p in left_set and p not in right_set:
                key, label = lost
            else:
                continue
            out[key].append(p)
            changes.append(label)
        if changes:
            per[p] = changes
    out["properties"] = per
    for key in ("additional_properties", "sent_strict", "read_as", "must_send"):
        a, b = left.get(key), right.get(key)
        out[key] = None if a == b else {"left": a, "right": b}
    out["changed"] = bool(per) or any(out[k] is not None for k in ("additional_properties", "sent_strict", "read_as"))
    return out


def _json_lines(
    value: Any, path: tuple = (), indent: int = 0, prefix: str = "", comma: str = ""
) -> list[tuple[str, tuple]]:
    """``json.dumps(value, indent=2)`` line by line, each line with the JSON path it belongs to."""
    pad = "  " * indent
    if isinstance(value, dict) and value:
        items = list(value.items())
        lines = [(f"{pad}{prefix}{{", path)]
        for i, (k, v) in enumerate(items):
            lines += _json_lines(
                v,
                path + (k,),
                indent + 1,
                json.dumps(str(k), ensure_ascii=False) + ": ",
                "," if i < len(items) - 1 else "",
            )
        return lines + [(f"{pad}}}{comma}", path)]
    if isinstance(value, list) and value:
        lines = [(f"{pad}{prefix}[", path)]
        for i, v in enumerate(value):
            lines += _json_lines(v, path + (i,), indent + 1, "", "," if i < len(value) - 1 else "")
        return lines + [(f"{pad}]{comma}", path)]
    return [(f"{pad}{prefix}{json.dumps(value, ensure_ascii=False, default=str)}{comma}", path)]


def _schema_html(
    schema: Any,
    *,
    required_marks: dict[str, tuple[str, str]],
    block_marks: dict[str, tuple[str, str]],
    ap_mark: tuple[str, str] | None,
) -> str:
    """Pretty JSON with the lines of changed parts wrapped in ``<mark class=… title=…>``."""
    req = list(schema.get("required") or []) if isinstance(schema, dict) else []
    line_marks: dict[tuple, tuple[str, str]] = {}
    for i, name in enumerate(req):
        if name in required_marks:
            line_marks[("required", i)] = required_marks[name]
    out, seen_key_line = [], set()
    for text, path in _json_lines(schema):
        mark = None
        if len(path) >= 2 and path[0] == "properties" and path[1] in block_marks:
            mark = block_marks[path[1]]
        elif len(path) == 2 and path[0] == "properties" and path[1] in required_marks and path not in seen_key_line:
            seen_key_line.add(path)
            mark = required_marks[path[1]]
        elif path in line_marks:
            mark = line_marks[path]
        elif path[:1] == ("additionalProperties",) and ap_mark:
            mark = ap_mark
        out.append(f'<mark class="{mark[0]}" title="{esc(mark[1])}">{esc(text)}</mark>' if mark else esc(text))
    return "\n".join(out)


def gateway_label(gateway: str) -> str:
    """How a ``GATEWAYS`` choice is shown in the current language (the value code uses stays English)."""
    return t(f"widget.gateway.{gateway}")


def _shown(value: Any) -> str:
    """A view's value as the reader sees it, escaped: a toolkit Message in the current language."""
    return esc(render(value, language()))


def _view_html(view: dict, cmp: dict, side: str) -> str:
    differs = esc(t("widget.mark.differs"))

    def hl(key: str, text: str) -> str:
        return f'<mark class="tk-changed" title="{differs}">{text}</mark>' if cmp.get(key) else text

    ap = view.get("additional_properties")
    gateway = esc(gateway_label(view["gateway"]))
    route = (
        t("widget.route.pi_ai", compat=esc(view["compat"]), gateway=gateway, pi_ai=esc(view["pi_ai"]))
        if "pi_ai" in view
        else t(
            "widget.route.adapter",
            adapter=esc(view["adapter_name"]),
            version=esc(view["version"]),
            option=esc(view["option"]),
            gateway=gateway,
        )
    )
    state = t(
        "widget.head.state",
        sent=hl("sent_strict", "<code>" + _shown(view["sent_strict"]) + "</code>"),
        read=hl("read_as", _shown(view["read_as"])),
        ap=hl("additional_properties", "<code>" + esc(ap) + "</code>"),
    )
    fields = t(
        "widget.head.fields",
        required=esc(seq(view["required"])),
        optional=esc(seq(view["optional"])),
        nullable=esc(seq(view["nullable"])),
    )
    head = [
        f'<div class="tk-head"><b>{esc(view["tool"])}</b> · {esc(view["api"])} · {route}</div>',
        f'<div class="tk-head">{state}</div>',
        f'<div class="tk-head">{t("widget.head.must_send", must=hl("must_send", _shown(view["must_send"])))}</div>',
        f'<div class="tk-head">{fields}</div>',
    ]
    desc = view.get("description")
    head.append(
        f"<details><summary>{esc(t('widget.head.description'))}</summary><div>{esc(desc)}</div></details>"
        if desc
        else f'<div class="tk-head">{esc(t("widget.head.no_description"))}</div>'
    )
    if view.get("schema") is None:
        body = f"<p>{esc(t('widget.no_schema'))}</p>"
    else:
        if side == "right":
            required = {p: ("tk-required-added", t("widget.mark.required_added")) for p in cmp["required_added"]}
            blocks = {p: ("tk-nullable", t("widget.mark.became_nullable")) for p in cmp["became_nullable"]}
        else:
            mark = t("widget.mark.required_this_side")
            required = {p: ("tk-required-removed", mark) for p in cmp["required_removed"]}
            mark = t("widget.mark.nullable_this_side")
            blocks = {p: ("tk-no-longer-nullable", mark) for p in cmp["no_longer_nullable"]}
        ap_mark = ("tk-ap", t("widget.mark.ap_differs")) if cmp.get("additional_properties") else None
        body = (
            '<pre class="tk-schema">'
            + _schema_html(view["schema"], required_marks=required, block_marks=blocks, ap_mark=ap_mark)
            + "</pre>"
        )
    return pane("".join(head) + body, classes=f"tk-{side}")


def diff_html(left: dict, right: dict) -> tuple[str, str]:
    """The two views side by side as HTML: a header (sent strict, read as, additionalProperties, must
    send) and the schema as pretty JSON, with required / nullable / additionalProperties changes marked."""
    cmp = compare_views(left, right)
    return _view_html(left, cmp, "left"), _view_html(right, cmp, "right")


def summary_html(left: dict, right: dict) -> str:
    """One line: what changes from left to right."""
    cmp = compare_views(left, right)
    lang = language()
    parts = []
    for key in ("sent_strict", "read_as", "additional_properties"):
        if cmp[key]:
            a, b = (render(cmp[key][s], lang) for s in ("left", "right"))
            parts.append(t("widget.summary.change", label=t(f"widget.summary.{key}"), left=a, right=b))
    for key in _FIELD_CHANGES:
        if cmp[key]:
            parts.append(t("widget.summary.names", label=t(f"widget.summary.{key}"), names=", ".join(cmp[key])))
    text = t("widget.summary.sep").join(parts) if parts else t("widget.summary.same")
    return f'<div class="tk-summary"><b>{esc(t("widget.left_to_right"))}</b> {esc(text)}</div>'


def verdict_html(tool: str | dict, *, pi_ai: str = DEFAULT_VERSION) -> str:
    """The strict verdict for ``tool`` (``layers.strict.strict_verdict``): accepted by OpenAI strict, or the
    first 400 with its JSON path; the optional fields a strict reading makes the model fill; the risky fills."""
    definition = tool_definition(tool)
    v = strict_verdict(definition, pi_ai=pi_ai)
    first = v.first
    lang = language()
    if first is None:
        head = esc(t("widget.verdict.accepted"))
    else:
        more = t("widget.verdict.more", n=len(v.violations) - 1) if len(v.violations) > 1 else ""
        head = t(
            "widget.verdict.rejected",
            path=f"<code>{esc(first.path)}</code>",
            more=esc(more),
            message=esc(first.message),  # OpenAI's error, verbatim
        )
    must = v.absent_reading.get("must_fill", ())
    fills = "".join(
        f"<li><code>{esc(f['field'])}</code> = <code>{esc(json.dumps(f['filled']))}</code>: "
        f"{esc(render(f['why'], lang))}</li>"
        for f in v.risky_fills
    )
    return (
        f'<div class="tk-verdict"><div class="tk-head"><b>{esc(t("widget.strict_verdict_for", tool=v.tool))}</b> {head}</div>'
        f'<div class="tk-head">{esc(t("widget.must_fill", fields=seq(must)))}</div>'
        + (
            f'<div class="tk-head">{esc(t("widget.risky_fills"))}</div><ul class="tk-risky">{fills}</ul>'
            if fills
            else ""
        )
        + "</div>"
    )


_SIDE_DEFAULTS = {
    "left": {
        "api": "openai-responses",
        "compat": "unset",
        "gateway": "reads absent as strict",
        "pi_ai": DEFAULT_VERSION,
    },
    "right": {
        "api": "openai-responses",
        "compat": "true",
        "gateway": "reads absent as strict",
        "pi_ai": DEFAULT_VERSION,
    },
}
_SIDE_OPTIONS = {"api": TOOL_APIS, "compat": COMPATS, "gateway": GATEWAYS, "pi_ai": PI_AI_VERSIONS}
#: the controls another adapter adds (shown in place of compat and pi_ai)
_ADAPTER_KEYS = ("adapter", "option", "version")


def _checked_side(side: str, given: dict | None) -> dict:
    """A side's choices, complete: pi-ai's four, plus ``adapter``, ``option`` and ``version``."""
    given = dict(given or {})
    unknown = sorted(set(given) - set(_SIDE_OPTIONS) - set(_ADAPTER_KEYS))
    if unknown:
        raise ValueError(
            f"unknown {side} choice {unknown[0]!r}; choose from {', '.join([*_SIDE_OPTIONS, *_ADAPTER_KEYS])}"
        )
    adapter = given.pop("adapter", "pi-ai")
    choices = adapter_choices(adapter)
    p = adapters.profile(adapter)
    out = {**_SIDE_DEFAULTS[side], **given}
    if adapter != "pi-ai" and "api" not in given:
        out["api"] = choices["apis"][0]
    out = {
        "adapter": adapter,
        **out,
        "option": given.get("option", _WORDS[p.options[0].default] if adapter != "pi-ai" else out["compat"]),
        "version": given.get("version", p.default_version if adapter != "pi-ai" else out["pi_ai"]),
    }
    allowed = {
        **_SIDE_OPTIONS,
        "adapter": ADAPTERS,
        "api": choices["apis"],
        "option": choices["options"],
        "version": choices["versions"],
    }
    for k, v in out.items():
        if v not in allowed[k]:
            raise ValueError(f"unknown {side} {k} {v!r}; choose one of {', '.join(allowed[k])}")
    return out


def side_value(choices: dict) -> dict:
    """The choices a side reports: pi-ai's ``api``/``compat``/``gateway``/``pi_ai`` (as before adapters
    were offered), or for another adapter ``adapter``/``api``/``option``/``version``/``gateway``."""
    if choices.get("adapter", "pi-ai") == "pi-ai":
        return {k: choices[k] for k in _SIDE_OPTIONS}
    return {k: choices[k] for k in ("adapter", "api", "option", "version", "gateway")}


def _options(key: str, values: tuple[str, ...]) -> list:
    """A dropdown's options: the values themselves, except the gateways, shown as (label, value) pairs
    when a label differs from its value (another language), so the value code reads stays English."""
    if key == "gateway" and any(gateway_label(g) != g for g in values):
        return [(gateway_label(g), g) for g in values]
    return list(values)


class StrictVariantComparer(RememberedWidget):
    """Two routes side by side: what the model receives for one tool, and what changes between them.

    Defaults: left is the incident (openai-responses, compat unset, a gateway that reads absent as
    strict), right is the fix (``compat.supportsStrictMode: true``, same gateway). Controls:
    ``tool``, and per side ``left_api``/``left_compat``/``left_gateway``/``left_pi_ai`` (and ``right_…``,
    also as ``controls["left"]["api"]``); panes ``left_pane``, ``right_pane``, ``summary``.
    """

    def __init__(
        self, tool: str | dict = "bash", left: dict | None = None, right: dict | None = None, *, remember: bool = True
    ):
        options: list[tuple[str, Any]] = [(t, t) for t in DSH_TOOLS]
        if isinstance(tool, dict):
            definition = tool_definition(tool)
            options.append((t("widget.given_tool", name=definition.get("name")), tool))
        else:
            tool_definition(tool)  # validates the name
        sides = {"left": _checked_side("left", left), "right": _checked_side("right", right)}
        self._memory_key(remember, key_json(tool), key_json(left), key_json(right))
        self.tool = W.Dropdown(options=options, value=tool, description=t("widget.tool"))
        self.controls: dict[str, dict[str, W.Dropdown]] = {}
        for side, choices in sides.items():
            adapter = choices["adapter"]
            own = adapter_choices(adapter)
            offered: dict[str, tuple[str, ...]] = {
                **_SIDE_OPTIONS,
                "api": own["apis"],
                "adapter": ADAPTERS,
                "option": own["options"],
                "version": own["versions"],
            }
            self.controls[side] = {
                k: W.Dropdown(options=_options(k, offered[k]), value=choices[k], description=t(f"widget.side.{k}"))
                for k in (*_SIDE_OPTIONS, *_ADAPTER_KEYS)
            }
        c = self.controls
        self.left_api, self.left_compat, self.left_gateway, self.left_pi_ai = (c["left"][k] for k in _SIDE_OPTIONS)
        self.right_api, self.right_compat, self.right_gateway, self.right_pi_ai = (c["right"][k] for k in _SIDE_OPTIONS)
        self.left_pane, self.right_pane, self.summary, self.verdict = W.HTML(), W.HTML(), W.HTML(), W.HTML()
        # stable selectors for the browser test (tests/e2e); none on ``tool``
        for side, ctl in c.items():
            for k, dd in ctl.items():
                dd.add_class(f"tk-cmp-{side}-{k.replace('_', '-')}")
        self.left_pane.add_class("tk-cmp-left-pane")
        self.right_pane.add_class("tk-cmp-right-pane")
        self.summary.add_class("tk-cmp-summary")
        self.verdict.add_class("tk-cmp-verdict")
        self.left_adapter, self.right_adapter = c["left"]["adapter"], c["right"]["adapter"]
        self._restore()
        for side in c:
            self._show_adapter(side)
        self._update()
        for side in c:
            c[side]["adapter"].observe(lambda change, side=side: self._adapter_changed(side), names="value")
        for dd in [self.tool, *c["left"].values(), *c["right"].values()]:
            dd.observe(self._update, names="value")

        def box(side, pane):
            order = ("adapter", "api", "compat", "option", "gateway", "pi_ai", "version")
            return W.VBox(
                [W.HTML(f"<b>{esc(t(f'widget.{side}'))}</b>"), *(c[side][k] for k in order), pane],
                layout=W.Layout(width="50%"),
            )

        self.widget = W.VBox(
            [
                self.tool,
                self.verdict,
                self.summary,
                W.HBox([box("left", self.left_pane), box("right", self.right_pane)]),
            ]
        )
        self.widget.add_class("tk-cmp")

    @property
    def value(self) -> dict:
        """The current choices: ``{"tool", "left": {api, compat, gateway, pi_ai}, "right": {…}}`` (a side
        on another adapter: ``{adapter, api, option, version, gateway}``, ``side_value``)."""
        return {
            "tool": self.tool.value,
            **{side: side_value({k: dd.value for k, dd in ctl.items()}) for side, ctl in self.controls.items()},
        }

    def _show_adapter(self, side: str) -> None:
        """pi-ai shows compat and pi_ai; another adapter its option and version."""
        ctl = self.controls[side]
        pi = ctl["adapter"].value == "pi-ai"
        for key in ("compat", "pi_ai"):
            ctl[key].layout.display = None if pi else "none"
        for key in ("option", "version"):
            ctl[key].layout.display = "none" if pi else None

    def _adapter_changed(self, side: str) -> None:
        """A new adapter: its apis, option words and versions (the wire api kept where it has it)."""
        ctl = self.controls[side]
        adapter = ctl["adapter"].value
        own = adapter_choices(adapter)
        p = adapters.profile(adapter)
        wire = adapters.wire_api(ctl["api"].value)
        same_wire = [a for a in own["apis"] if adapters.WIRE_API[(adapter, a)] == wire]
        with self._quiet():
            ctl["api"].options = list(own["apis"])
            ctl["api"].value = same_wire[0] if same_wire else own["apis"][0]
            ctl["option"].options = list(own["options"])
            ctl["option"].value = _WORDS[p.options[0].default] if adapter != "pi-ai" else ctl["compat"].value
            ctl["version"].options = list(own["versions"])
            ctl["version"].value = p.default_version if adapter != "pi-ai" else ctl["pi_ai"].value
        self._show_adapter(side)
        self._update()

    def _quiet(self):
        """Suspend ``_update`` while several controls change together."""
        import contextlib

        @contextlib.contextmanager
        def hold():
            self._holding = True
            try:
                yield
            finally:
                self._holding = False

        return hold()

    def views(self) -> tuple[dict, dict]:
        """The two ``variant_view`` dicts for the current choices."""
        v = self.value
        return (variant_view(v["tool"], **v["left"]), variant_view(v["tool"], **v["right"]))

    def _restore(self) -> None:
        saved = self._saved()
        self._restore_controls(saved, {"tool": self.tool})
        for side, ctl in self.controls.items():
            remembered = (saved or {}).get(side) or {}
            adapter = remembered.get("adapter", "pi-ai")  # a remembered pi-ai side names no adapter
            if remembered and adapter != ctl["adapter"].value and adapter in ADAPTERS:
                own = adapter_choices(adapter)
                ctl["api"].options, ctl["option"].options = list(own["apis"]), list(own["options"])
                ctl["version"].options = list(own["versions"])
                ctl["adapter"].value = adapter
            self._restore_controls(remembered, {k: d for k, d in ctl.items() if k != "adapter"})

    _holding = False

    def _update(self, change=None) -> None:
        if self._holding:
            return
        left, right = self.views()
        self.left_pane.value, self.right_pane.value = diff_html(left, right)
        self.summary.value = summary_html(left, right)
        self.verdict.value = verdict_html(self.tool.value, pi_ai=self.controls["left"]["pi_ai"].value)
        self._remember(self.value)
