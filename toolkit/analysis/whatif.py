"""What-if policies for layer 4: replay the captured calls under a changed policy and show, call by
call, which failures the change would have avoided and which it would not.

Each policy judges a call in the mode the call ran under (``mode``), never in the mode an approved
escalation granted it (``granted_mode``): the grant is the outcome of the escalation, not its premise.
"""

from __future__ import annotations

import copy

import pandas as pd

from toolkit.capture import Capture
from toolkit.capture.frames import declare, fixed
from toolkit.knowledge import dsh_runtime as rt
from toolkit.knowledge.dsh_tools import schema_for
from toolkit.layers.execution import (
    DEFAULT_DSH,
    IMAGE_GATE,
    STAGES,
    advertised_schema,
    check_call,
    distinct_calls,
    replay,
)
from toolkit.layers.serialization import variants

__all__ = ["COLUMNS", "ESCALATION_FIELDS", "OUTCOMES", "POLICIES", "WHATIF", "prune_schema", "whatif"]

ESCALATION_FIELDS = ("sandbox_permissions", "justification")


def prune_schema(schema: dict, mode: str) -> dict:
    """The schema as it should be advertised in ``mode``: the escalation enum cut to strictly wider
    modes, and both fields removed when none is wider (DSH advertises the full enum in every mode)."""
    out = copy.deepcopy(schema)
    props = out.get("properties") or {}
    if "sandbox_permissions" not in props:
        return out
    wider = [m for m in props["sandbox_permissions"].get("enum", rt.ESCALATION_TARGETS) if rt.strictly_wider(m, mode)]
    if wider:
        props["sandbox_permissions"]["enum"] = wider
    else:
        for name in ESCALATION_FIELDS:
            props.pop(name, None)
        out["required"] = [r for r in out.get("required", []) if r not in ESCALATION_FIELDS]
    return out


def _prune(tool, args, mode, dsh, schema):
    pruned = prune_schema(schema, mode)
    sent = {k: v for k, v in args.items() if k in (pruned.get("properties") or {})}
    return sent, pruned, dsh, "the model is offered only wider modes, so it cannot send fields the mode has no use for"


def _same_mode(tool, args, mode, dsh, schema):
    return (
        args,
        schema,
        rt.SAME_MODE_ACCEPTED_FROM,
        f"DSH {rt.SAME_MODE_ACCEPTED_FROM}: a request for the current mode is accepted without approval",
    )


def _strip(tool, args, mode, dsh, schema):
    """The community plugins' ``tools/pre-execute`` hook (zzstar101/dsh-sandbox-noop-escalation)."""
    perm = args.get("sandbox_permissions")
    strip = False
    if "sandbox_permissions" in args and perm in (None, "", "use_default"):
        strip = True
    elif "sandbox_permissions" in args and isinstance(perm, str) and not rt.strictly_wider(perm, mode):
        strip = True  # same or narrower mode, or an unknown value at full access
    elif "justification" in args and "sandbox_permissions" not in args:
        strip = True  # a lone justification
    if not strip:
        return args, schema, dsh, "nothing to strip: the escalation widens the mode"
    kept = {k: v for k, v in args.items() if k not in ESCALATION_FIELDS}
    return kept, schema, dsh, "escalation fields that cannot widen the mode are stripped before validation"


def _strict_false(tool, args, mode, dsh, schema):
    """The configuration fix: ``strict: false`` sent explicitly, so no gateway reads the tool as strict
    and the model is no longer forced to fill optional fields (serialization layer, ``variants``)."""
    row = variants({"name": tool, "parameters": schema}).set_index("strict").loc["false"]
    required = set(row["required"])
    sent = {k: v for k, v in args.items() if k in required}
    return (
        sent,
        schema,
        dsh,
        (
            "the model sends what the non-strict schema requires, as gw-coder does in the lab's "
            "after-fix capture; a model that sets escalation fields unprompted is not helped"
        ),
    )


POLICIES = {
    "prune-schema": _prune,
    "same-mode-noop": _same_mode,
    "strip-non-widening": _strip,
    "explicit-strict-false": _strict_false,
}
OUTCOMES = ("avoided", "still fails", "newly fails", "no failure")

#: ``whatif``: one row per modelled call and policy. ``mode`` is the session's mode the call ran under
#: (the policy is judged in it), ``granted_mode`` what DSH's approval granted the baseline call.
WHATIF = declare(
    "whatif",
    {
        "call_id": "string",
        "tool": "string",
        "mode": "string",
        "granted_mode": "string",
        "baseline": "string",
        "baseline_stage": fixed(*STAGES, IMAGE_GATE),
        "policy": fixed(*POLICIES),
        "outcome": fixed(*OUTCOMES),
        "message": "string",
        "how": "string",
    },
)
COLUMNS = list(WHATIF.columns)


def whatif(capture: Capture, *, mode: str | None = None, dsh: str = DEFAULT_DSH, policies=None) -> pd.DataFrame:
    """For every modelled call and policy: ``avoided``, ``still fails``, ``no failure`` or ``newly fails``.

    A call recorded by several captures of one run (a HAR and DSH's log share its id) is judged once, in the
    first capture that holds it. A call ``replay`` could not judge has no baseline, so no policy can be said
    to avoid or keep its failure: it has no row, and ``attrs["not_judged"]`` counts such calls by the reason
    ``replay`` gives (``execution.NOT_JUDGED``), so a short table is never read as "every call was fine"."""
    base = replay(capture, mode=mode, dsh=dsh)
    unjudged = distinct_calls(base[base["ok"].isna()])
    judged = distinct_calls(base[base["ok"].notna()])
    rows = []
    for call in judged.itertuples(index=False):
        schema = _schema(capture, call)
        for name in policies or POLICIES:
            args, schema2, dsh2, how = POLICIES[name](call.tool, call.arguments, call.mode, dsh, schema)
            approval = call.approval if isinstance(call.approval, str) else "allowed-once"
            v = check_call(call.tool, args, mode=call.mode, dsh=dsh2, approval=approval, schema=schema2)
            outcome = (
                "avoided"
                if not call.ok and v.ok
                else "still fails"
                if not call.ok
                else "newly fails"
                if not v.ok
                else "no failure"
            )
            rows.append(
                {
                    "call_id": call.call_id,
                    "tool": call.tool,
                    "mode": call.mode,
                    "granted_mode": call.granted_mode,
                    "baseline": call.message if isinstance(call.message, str) else "runs",
                    "baseline_stage": call.stage,
                    "policy": name,
                    "outcome": outcome,
                    "message": v.message,
                    "how": how,
                }
            )
    table = WHATIF.from_records(rows)
    counts = unjudged["not_judged"].value_counts()
    table.attrs["not_judged"] = {str(k): int(n) for k, n in counts[counts > 0].items()}
    return table


def _schema(capture: Capture, call) -> dict:
    return advertised_schema(capture, call.exchange_id, call.tool) or schema_for(call.tool)
