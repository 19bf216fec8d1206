"""Layer 4, execution: DSH's runtime decision for each tool call, replayed from the evidence, with what-ifs.

``check_call`` follows DSH's order of checks (``toolkit.knowledge.dsh_runtime`` holds the texts);
``replay`` runs every captured call through it under the mode the evidence says the call ran in and
shows, next to each verdict, the tool result DSH really returned where the capture holds one.

Two modes per call, never merged: ``mode`` is the session's sandbox mode the call ran under (what DSH
judges the call against), ``granted_mode`` the wider mode an approved escalation grants that one call
(its command executes in it), null when nothing was granted.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from toolkit.capture import Capture
from toolkit.capture.frames import declare, fixed
from toolkit.errors import InputError
from toolkit.knowledge import codex
from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge.dsh_tools import schema_for
from toolkit.knowledge.messages import Message
from toolkit.knowledge.messages.surface import option
from toolkit.layers.codex_execution import check_codex_call
from toolkit.wire.dsh_records import split_call_id

__all__ = [
    "APPROVALS",
    "DEFAULT_DSH",
    "IMAGE_GATE",
    "NOT_JUDGED",
    "REPLAY",
    "REPLAY_COLUMNS",
    "STAGES",
    "TOOLS",
    "Verdict",
    "advertised_schema",
    "check_call",
    "distinct_calls",
    "replay",
    "schema_violations",
]

DEFAULT_DSH = rt.DEFAULT_VERSION
TOOLS = rt.SHELL_TOOLS + rt.FS_TOOLS
APPROVALS = rt.APPROVAL_OUTCOMES
# stage id -> name, in DSH's order of checks
STAGES = {
    "1": "schema",
    "2": "tool-args",
    "3a": "escalation-pairing",
    "3b": "escalation-pairing",
    "3c": "justification",
    "4": "composition",
    "5": "widening",
    "6": "approval-service",
    "7": "approval-agent",
    "8": "approval",
    "9": "background",
}
IMAGE_GATE = "image-gate"  # the stage of a read_image refusal (the model does not declare image input)
#: why ``replay`` left a call unjudged (``not_judged``): a call without a verdict always says which
NOT_JUDGED = (
    "stream-cut",  # the stream ended before the call's arguments did: what the model meant is not known
    "tool-not-modelled",  # no model of DSH (or Codex) validates this tool
    "arguments-unparsed",  # the arguments are not a JSON object
    "mode-unknown",  # the sandbox mode the call ran in is unknown (an HTTP capture, no mode given)
    "settings-missing",  # read_image is judged from the model's declared input: no settings were given
    "route-not-in-settings",  # read_image: the settings hold no route for the exchange's model
    "policy-unknown",  # Codex: no approval/policy event says what the escalation meets
    "case-not-modelled",  # Codex: an answer the model of Codex does not cover
)


@dataclass(frozen=True)
class Verdict:
    """DSH's decision on one call: ``message`` is DSH's exact text (the tool result is ``Error: <message>``).

    ``mode`` is the sandbox mode the call was judged in (the session's); ``granted_mode`` is the mode an
    approved escalation grants this one call, None when the call runs (or fails) in ``mode``.
    """

    ok: bool
    stage: str | None  # "1", "2", "3a" ... "9" (see STAGES), or None when the call runs
    message: str | None
    mode: str | None
    granted_mode: str | None = None

    @property
    def stage_name(self) -> str | None:
        return STAGES.get(self.stage) if self.stage else None

    @property
    def result_text(self) -> str | None:
        return None if self.ok or self.message is None else rt.tool_result_text(self.message)


def _json_type(value: Any, expected: str) -> bool:
    if expected == "string":
        return isinstance(value, str)
    if expected == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected == "integer":  # a JSON number with no fraction; -0 is not one (``isJsonNumber``)
        if isinstance(value, float):
            return value.is_integer() and not (value == 0 and math.copysign(1, value) < 0)
        return isinstance(value, int) and not isinstance(value, bool)
    if expected == "boolean":
        return isinstance(value, bool)
    if expected == "array":
        return isinstance(value, list)
    if expected == "object":
        return isinstance(value, dict)
    if expected == "null":
        return value is None
    return True


def schema_violations(arguments: dict, schema: dict, path: str = "") -> list[str]:
    """Stage 1 (``json-schema.ts``): missing required properties first, in ``required`` order, then at
    most one violation per present property in declaration order (type, then enum, then const; objects
    recurse); keys the schema does not declare pass unless ``additionalProperties`` is false."""
    props = schema.get("properties") or {}
    out = [rt.missing_required(_join(path, name)) for name in schema.get("required") or [] if name not in arguments]
    for name, prop in props.items():
        if name in arguments and isinstance(prop, dict):
            out += _value_violations(arguments[name], prop, _join(path, name))
    if schema.get("additionalProperties") is False:
        out += [
            f'"{_join(path, k)}" is not a declared property (additionalProperties: false)'
            for k in arguments
            if k not in props
        ]
    return out


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _value_violations(value: Any, prop: dict, path: str) -> list[str]:
    expected = prop.get("type")
    if isinstance(expected, str):
        if not _json_type(value, expected):
            return [rt.must_be_type(path, expected)]
        if expected == "number" and (not math.isfinite(value) or (value == 0 and math.copysign(1, value) < 0)):
            return [rt.must_be_finite(path)]
    if isinstance(prop.get("enum"), list) and value not in prop["enum"]:
        return [rt.must_be_one_of(path, prop["enum"])]
    if "const" in prop and value != prop["const"]:
        return [rt.must_be_const(path, prop["const"])]
    if expected == "object" and isinstance(value, dict):
        return schema_violations(value, prop, path)
    if expected == "array" and isinstance(value, list) and isinstance(prop.get("items"), dict):
        return [v for i, item in enumerate(value) for v in _value_violations(item, prop["items"], f"{path}[{i}]")]
    return []


def check_call(
    tool: str,
    arguments: dict | str,
    *,
    mode: str | None,
    dsh: str = DEFAULT_DSH,
    approval: str = "allowed-once",
    schema: dict | None = None,
    confined: bool = True,
    approval_service: bool = True,
    agent: bool = True,
    open_turn: bool = True,
    background: bool = True,
    jobs: bool = True,
) -> Verdict:
    """DSH's decision for one ``bash``/``pwsh``/``write``/``edit`` call in sandbox ``mode``.

    ``schema`` is the advertised schema (default: the one DSH's tool registers in this composition);
    ``approval`` is what the approval service answers if DSH asks (``allowed-once``, ``rejected``,
    ``cancelled``, ``unavailable``; ``dsh_runtime.approval_outcome`` gives it for a policy and an answerer).
    The composition: ``confined`` a sandboxing executor / filesystem is mounted (``mode`` may then be None
    only for a call that does not escalate), ``approval_service`` one is composed, ``agent`` the call has an
    agent, ``open_turn`` the session has an open turn (the approval service refuses to ask outside one),
    ``background`` is ``enableRunInBackground`` and ``jobs`` a jobs service is mounted (bash/pwsh).
    """
    if tool not in TOOLS:
        raise InputError(f"check_call models {', '.join(TOOLS)}, not {tool!r}")
    if approval not in APPROVALS:
        raise InputError(f"approval must be one of {', '.join(APPROVALS)}")
    if isinstance(arguments, str):
        arguments = json.loads(arguments)
    if not isinstance(arguments, dict):
        raise InputError("arguments must be a JSON object")
    schema = schema_for(tool, confined=confined, background=background) if schema is None else schema
    violations = schema_violations(arguments, schema)
    if violations:
        return Verdict(False, "1", rt.invalid_arguments(violations), mode)
    failure = _shell_args(arguments) if tool in rt.SHELL_TOOLS else _fs_args(tool, arguments)
    if failure:
        return Verdict(False, "2", failure, mode)
    # validateEscalationArgs: part of the tool's own checks, so it runs before any mode comparison (a
    # same-mode request with a blank justification fails here in every modelled version)
    has_perm, has_just = "sandbox_permissions" in arguments, "justification" in arguments
    if has_perm and not has_just:
        return Verdict(False, "3a", rt.NEEDS_JUSTIFICATION, mode)
    if has_just and not has_perm:
        return Verdict(False, "3b", rt.LONE_JUSTIFICATION, mode)
    if not has_perm:
        return _background(tool, arguments, mode, None, background, jobs)
    justification = arguments["justification"]
    if not isinstance(justification, str):  # only reachable where the schema does not declare it
        return Verdict(False, "3c", rt.justification_not_string(justification), mode)
    if not justification.strip():
        return Verdict(False, "3c", rt.EMPTY_JUSTIFICATION, mode)
    if not confined:
        return Verdict(False, "4", rt.NO_FS_SANDBOX if tool in rt.FS_TOOLS else rt.NO_SHELL_SANDBOX, mode)
    target = arguments["sandbox_permissions"]
    if mode is None:
        raise InputError("check_call needs the session's mode to judge an escalation (mode=...)")
    if not rt.strictly_wider(target, mode):
        if target == mode and rt.accepts_same_mode(dsh):
            # from SAME_MODE_ACCEPTED_FROM: the current mode, no approval
            return _background(tool, arguments, mode, None, background, jobs)
        return Verdict(False, "5", rt.not_strictly_wider(target, mode), mode)
    if not approval_service:
        return Verdict(False, "6", rt.no_approval_service(target), mode)
    if not agent:
        return Verdict(False, "7", rt.no_agent(target), mode)
    if not open_turn:
        return Verdict(False, "8", rt.APPROVAL_OUTSIDE_TURN, mode)
    if approval == "allowed-once":
        return _background(tool, arguments, mode, target, background, jobs)
    message = {
        "rejected": rt.rejected(target, tool, dsh),
        "cancelled": rt.cancelled(target),
        "unavailable": rt.no_channel(target),
    }[approval]
    return Verdict(False, "8", message, mode)


def _background(tool: str, args: dict, mode: str | None, granted: str | None, enabled: bool, jobs: bool) -> Verdict:
    """Stage 9, after any approval: ``run_in_background: true`` needs it enabled and a jobs service."""
    if tool in rt.SHELL_TOOLS and args.get("run_in_background") is True:
        if not enabled:
            return Verdict(False, "9", rt.BACKGROUND_DISABLED, mode, granted_mode=granted)
        if not jobs:
            return Verdict(False, "9", rt.NO_BACKGROUND_JOBS, mode, granted_mode=granted)
    return Verdict(True, None, None, mode, granted_mode=granted)


def _fs_args(tool: str, args: dict) -> str | None:
    """Stage 2 for write/edit (``parseWriteArgs`` / ``parseEditArgs``): old_string is not trimmed."""
    if not args["file_path"].strip():
        return rt.EMPTY_FILE_PATH
    if tool == "edit":
        if not args["old_string"]:
            return rt.EMPTY_OLD_STRING
        if args["old_string"] == args["new_string"]:
            return rt.SAME_STRINGS
    return None


def _shell_args(args: dict) -> str | None:
    """Stage 2, ``validateBashArgs``: command and description non-empty after trim, timeoutMs positive."""
    if not isinstance(args.get("command"), str) or not args["command"].strip():
        return rt.INVALID_COMMAND
    if not isinstance(args.get("description"), str) or not args["description"].strip():
        return rt.INVALID_DESCRIPTION
    if "timeoutMs" in args:
        t = args["timeoutMs"]
        if not (isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t) and t > 0):
            return rt.invalid_timeout(t)
    return None


# ---- replay ----------------------------------------------------------------------------------------

#: ``replay``: one row per captured call. ``mode`` is the session's mode the call ran under,
#: ``granted_mode`` the mode an approved escalation granted it (null otherwise).
REPLAY = declare(
    "replay",
    {
        "source": "string",
        "exchange_id": "string",
        "call_id": "string",
        "tool": "string",
        "arguments": object,
        "mode": "string",
        "granted_mode": "string",
        "mode_source": object,  # a toolkit Message: English str, rendered in zh-CN by the widget
        "approval": "string",
        "ok": "boolean",
        "stage": fixed(*STAGES, IMAGE_GATE),
        "message": "string",
        "recorded_result": "string",
        "recorded_is_error": "boolean",
        "agrees": "boolean",
        "note": object,  # a toolkit Message: English str, rendered in zh-CN by the widget
        "not_judged": fixed(*NOT_JUDGED),  # why ``ok`` is null; null for a judged call
    },
)
REPLAY_COLUMNS = list(REPLAY.columns)


def replay(
    capture: Capture, *, mode: str | None = None, dsh: str = DEFAULT_DSH, approval: str = "allowed-once", settings=None
) -> pd.DataFrame:
    """One row per tool call: DSH's verdict under the mode the call ran in, beside DSH's real result.

    The mode comes from a DSH session's ``sandbox/mode`` events (``permission/preset`` pins one), and
    the approval outcome from its ``approval/policy`` (``never`` answers ``rejected``) and
    ``approval/decided`` events; for an HTTP capture, give ``mode`` (and ``approval``) yourself.
    An approved escalation keeps ``mode`` and names what it was granted in ``granted_mode``.
    ``agrees`` is False where the model of DSH and the recorded result differ: shown, never hidden.
    With ``settings`` (``toolkit.layers.config.Settings``), ``read_image`` calls are judged too, from the
    model's declared input. A call with no verdict says why in ``not_judged`` (``NOT_JUDGED``): a cut
    stream's arguments are not what the model meant, so such a call is never judged.
    """
    rows = []
    recorded = _recorded_results(capture)
    contexts = _session_contexts(capture)
    for call in capture.calls.itertuples(index=False):
        source = _source_of(capture, call.exchange_id)
        ctx = contexts.get((source, call.call_id))
        call_mode, mode_source, appr = (
            (ctx["mode"], ctx["mode_source"], ctx["approval"] or approval)
            if ctx
            else (mode, Message("execution.mode_source.given" if mode else "execution.mode_source.unknown"), approval)
        )
        rec_text, rec_error = recorded.get(call.call_id, (None, None))
        row = {
            "source": source,
            "exchange_id": call.exchange_id,
            "call_id": call.call_id,
            "tool": call.name,
            "arguments": call.arguments,
            "mode": call_mode,
            "granted_mode": None,
            "mode_source": mode_source,
            "approval": appr,
            "ok": None,
            "stage": None,
            "message": None,
            "recorded_result": rec_text,
            "recorded_is_error": rec_error,
            "agrees": None,
            "note": None,
            "not_judged": None,
        }
        modelled = call.name in TOOLS or call.name in codex.SHELL_TOOLS or call.name == "read_image"
        if not pd.isna(call.complete) and not call.complete:  # a nullable boolean: NA is not known to be cut
            row.update(not_judged="stream-cut", note=Message("execution.note.stream_cut"))
        elif not modelled:
            row.update(not_judged="tool-not-modelled", note=_not_modelled())
        elif not isinstance(call.arguments, dict):
            row.update(not_judged="arguments-unparsed", note=Message("execution.note.unparsed", error=call.parse_error))
        elif call.name == "read_image":
            v = _read_image(capture, call, settings) if settings is not None else None
            if v is not None:
                row.update(ok=v.ok, stage=v.stage, message=v.message)
                if rec_text is not None:
                    row["agrees"] = (rec_text == v.result_text) if not v.ok else not rt.is_error_text(rec_text)
            elif settings is None:
                row.update(not_judged="settings-missing", note=_not_modelled())
            else:
                row.update(not_judged="route-not-in-settings", note=Message("execution.note.route_not_in_settings"))
        elif call_mode is None:
            row.update(not_judged="mode-unknown", note=Message("execution.note.mode_unknown", option=option("mode")))
        elif call.name in codex.SHELL_TOOLS:
            _codex_row(row, call.arguments, call_mode, ctx.get("policy") if ctx else None)
        else:
            v = check_call(
                call.name,
                call.arguments,
                mode=call_mode,
                dsh=dsh,
                approval=appr,
                schema=advertised_schema(capture, call.exchange_id, call.name),
            )
            row.update(ok=v.ok, stage=v.stage, message=v.message, granted_mode=v.granted_mode)
            if rec_text is not None:
                row["agrees"] = (
                    (rec_text == v.result_text) if not v.ok else not (rec_error or rt.is_error_text(rec_text))
                )
                if not row["agrees"]:
                    row["note"] = Message("execution.note.dsh_disagrees")
        rows.append(row)
    return REPLAY.from_records(rows)


def _codex_row(row: dict, arguments: dict, mode: str, policy: str | None) -> None:
    """A Codex CLI shell call (``toolkit.layers.codex_execution``): its escalation fields against the policy."""
    v = check_codex_call(arguments, mode=mode, policy=policy)
    row.update(ok=v.ok, stage=v.stage, message=v.message, granted_mode=v.granted_mode, note=v.note)
    if v.ok is None:
        unknown = getattr(v.note, "key", None) == "execution.codex.policy_unknown"
        row["not_judged"] = "policy-unknown" if unknown else "case-not-modelled"
    rec_text, rec_error = row["recorded_result"], row["recorded_is_error"]
    if rec_text is not None and v.ok is not None:
        row["agrees"] = (rec_text == v.message) if not v.ok else rec_error is not True
        if not row["agrees"]:
            row["note"] = Message("execution.note.codex_disagrees", note=v.note)


def _not_modelled() -> Message:
    return Message("execution.note.not_modelled", option=option("settings"))


def _read_image(capture: Capture, call, settings) -> Verdict | None:
    """``read_image`` refuses when the current model does not declare image input."""
    from toolkit.knowledge import dsh_images

    ex = capture.exchanges.loc[capture.exchanges["exchange_id"] == call.exchange_id].iloc[0]
    rows = settings.models[settings.models["id"] == ex["model"]]
    if isinstance(ex["provider"], str):
        rows = rows[rows["route"] == ex["provider"]]
    if len(rows) != 1:
        return None
    if "image" in rows.iloc[0]["input"]:
        return Verdict(True, None, None, None)
    path = call.arguments.get("file_path", "")
    return Verdict(False, IMAGE_GATE, dsh_images.read_image_refusal(path, ex["model"]), None)


def _source_of(capture: Capture, exchange_id: str) -> str | None:
    hit = capture.exchanges.loc[capture.exchanges["exchange_id"] == exchange_id, "source"]
    return str(hit.iloc[0]) if len(hit) else None


def advertised_schema(capture: Capture, exchange_id: str, name: str) -> dict | None:
    """The schema of tool ``name`` as the request ``exchange_id`` advertised it, or None."""
    tools = capture.tools[(capture.tools["exchange_id"] == exchange_id) & (capture.tools["name"] == name)]
    if tools.empty:
        return None
    hit = capture.tool_schemas.loc[capture.tool_schemas["schema_hash"] == tools.iloc[0]["schema_hash"], "schema"]
    return hit.iloc[0] if len(hit) and isinstance(hit.iloc[0], dict) else None


def _recorded_results(capture: Capture) -> dict[str, tuple[str, bool | None]]:
    """call id → (result text, is_error): DSH's tool results, else the output sent back in a later request."""
    out: dict[str, tuple[str, bool | None]] = {}
    parts = capture.input_parts  # in the order first sent, so the first output per call comes first
    outputs = parts[parts["item_type"] == "function_call_output"]
    for row in outputs.itertuples(index=False):
        if isinstance(row.call_id, str) and row.call_id not in out and isinstance(row.text, str):
            out[row.call_id] = (row.text, None)
    for row in capture.tool_results.itertuples(index=False):
        if isinstance(row.call_id, str):
            out[row.call_id] = (row.text, None if pd.isna(row.is_error) else bool(row.is_error))
    return out


def _session_contexts(capture: Capture) -> dict[tuple, dict]:
    """(source, call id) → the mode and approval in force when DSH ran that call, from session events."""
    out: dict[tuple, dict] = {}
    ev = capture.events
    if ev.empty:
        return out
    for source, group in ev.groupby("source", observed=True, sort=False):
        mode = mode_source = policy = None
        asked: dict[Any, str] = {}  # approval id -> call id
        decided: dict[str, Any] = {}  # call id -> outcome (as logged)
        for row in group.itertuples(index=False):
            p = row.payload if isinstance(row.payload, dict) else {}
            if row.type == "approval/asked" and p.get("callId"):
                asked[p.get("id")] = _wire_id(p["callId"])
            elif row.type == "approval/decided" and p.get("id") in asked:
                decided[asked[p["id"]]] = p.get("outcome")
        for row in group.itertuples(index=False):
            p = row.payload if isinstance(row.payload, dict) else {}
            if row.type == "sandbox/mode":
                where = p.get("source") or Message("execution.mode_source.event")
                mode, mode_source = (
                    p.get("mode"),
                    Message("execution.mode_source.sandbox_mode", source=where, location=row.location),
                )
            elif row.type == "approval/policy":
                policy = p.get("policy")
            elif row.type == "tool/call" and p.get("callId"):
                call_id = _wire_id(p["callId"])
                outcome = decided.get(call_id) or ("rejected" if policy == "never" else None)
                out[(str(source), call_id)] = {
                    "mode": mode,
                    "policy": policy,
                    "approval": outcome,
                    "mode_source": mode_source or Message("execution.mode_source.no_event", option=option("mode")),
                }
    return out


def _wire_id(value: Any) -> str:
    """The call id the calls frame uses (DSH logs pi-ai's ``call_id|item id``; the frame keeps the first)."""
    return split_call_id(value)[0] or str(value)


def distinct_calls(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per call: the same call recorded by several captures of one run (a HAR and DSH's own log
    carry the same call id) is one call, kept where it was first seen; rows without a call id all stay."""
    if rows.empty or "call_id" not in rows:
        return rows
    return rows[rows["call_id"].isna() | ~rows.duplicated(subset=["call_id", "tool"])]
