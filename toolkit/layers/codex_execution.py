"""Layer 4 for Codex CLI: its shell tools' escalation fields judged against the recorded sandbox and approval policy.

What Codex itself does is modelled only where its source and a real run agree (``toolkit.knowledge.codex``):
an escalation (``sandbox_permissions: require_escalated`` / ``with_additional_permissions``, or the older
``with_escalated_permissions: true``) under any approval policy but ``on-request`` is refused with
Codex's text (``never_escalate``), in every sandbox mode, ``danger-full-access`` too. Beyond that the
toolkit adds one verdict of its own, labelled as such: an escalation asked for in ``danger-full-access``,
where no wider mode exists (the trap DSH's stage 5 refuses; Codex still advertises the field there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkit.knowledge import codex
from toolkit.knowledge.messages import Message

__all__ = ["NO_WIDER_MODE", "CodexVerdict", "check_codex_call"]

#: The toolkit's own verdict text (Codex has no such check): never shown as Codex's.
NO_WIDER_MODE = (
    'toolkit verdict, not a Codex text: escalation requested in "danger-full-access", '
    "where no wider sandbox mode exists"
)
#: The mode an unsandboxed (escalated) command runs in.
_UNSANDBOXED = "danger-full-access"


@dataclass(frozen=True)
class CodexVerdict:
    """One call judged: ``ok`` (None where Codex's answer is not modelled), ``stage`` ("8" approval,
    "5" widening, as ``toolkit.layers.execution.STAGES``), ``message`` the text the model gets back
    (Codex's exact text for stage 8), ``granted_mode`` the mode an escalation runs the command in."""

    ok: bool | None
    stage: str | None = None
    message: str | None = None
    granted_mode: str | None = None
    note: str | None = None


def check_codex_call(arguments: dict[str, Any], *, mode: str | None, policy: str | None) -> CodexVerdict:
    """Codex's answer to one shell call under sandbox ``mode`` and approval ``policy`` (as recorded)."""
    asked = codex.escalation_request(arguments)
    if asked is None:
        return CodexVerdict(True, note=Message("execution.codex.no_escalation"))
    trap = mode == _UNSANDBOXED
    also = Message("execution.codex.also", text=NO_WIDER_MODE) if trap else ""
    if policy is not None and policy != "on-request":
        text = codex.never_escalate(policy)
        if text is None:
            return CodexVerdict(
                False, "8", None, note=Message("execution.codex.refuses_unknown_text", policy=repr(policy), also=also)
            )
        return CodexVerdict(
            False, "8", text, note=Message("execution.codex.refuses", asked=asked, policy=repr(policy), also=also)
        )
    if trap:
        return CodexVerdict(None, "5", NO_WIDER_MODE, note=Message("execution.codex.trap_not_modelled"))
    if policy is None:
        return CodexVerdict(None, note=Message("execution.codex.policy_unknown"))
    granted = None if asked == "with_additional_permissions" else _UNSANDBOXED
    return CodexVerdict(True, granted_mode=granted, note=Message("execution.codex.asks", asked=asked))
