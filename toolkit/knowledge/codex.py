"""Codex CLI's rollout files and its shell tools' escalation fields: the vocabulary, and Codex's own texts.

Read in ``openai/codex`` (``codex-rs/protocol/src/protocol.rs``: ``RolloutLine``, ``RolloutItem``,
``TurnContextItem``, ``SandboxPolicy``, ``AskForApproval``; ``codex-rs/protocol/src/models.rs``:
``ResponseItem``, ``SandboxPermissions``; the ``exec_command`` handler's refusal and its test
``unified_exec_rejects_escalated_permissions_when_policy_not_on_request``), and checked against what
the published binary writes: npm ``@openai/codex@0.171.0-linux-x64`` (``codex-cli 0.171.0``), run
here with ``codex exec`` against the lab's stub gateway (``tests/fixtures/codex/real-0.171.0-*.jsonl``).
See docs/upstream.md#codex-rollout.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "APPROVAL_DEBUG_NAMES",
    "APPROVAL_POLICIES",
    "ESCALATING_PERMISSIONS",
    "INPUT_ITEMS",
    "LINE_TYPES",
    "LONE_JUSTIFICATION",
    "MESSAGE_ROLES",
    "MODEL_OUTPUT_ITEMS",
    "SANDBOX_MODES",
    "SANDBOX_PERMISSIONS",
    "SHELL_TOOLS",
    "TOOL_OUTPUT_ITEMS",
    "approval_name",
    "escalation_request",
    "is_refusal_text",
    "never_escalate",
    "ran_a_process",
    "sandbox_mode",
]

#: A rollout line is ``{"timestamp", "type", "payload"}`` (``RolloutLine`` flattens ``RolloutItem``,
#: tagged ``type`` with content ``payload``); 0.171.0 also writes ``ordinal`` (the line's index) and
#: two more types, ``world_state`` and ``token_usage_record`` (one per model response, with ``response_id``).
LINE_TYPES = (
    "session_meta",
    "response_item",
    "compacted",
    "turn_context",
    "event_msg",
    "world_state",
    "token_usage_record",
)
#: The roles of a ``message`` response item: the Responses API's message roles, which Codex's ``ResponseItem::Message``
#: carries as text (codex-rs/protocol/src/models.rs); only ``assistant`` is the model's output.
MESSAGE_ROLES = ("user", "assistant", "system", "developer")
#: ``response_item`` payload types the model produces (a ``message`` only with role ``assistant``).
MODEL_OUTPUT_ITEMS = (
    "message",
    "reasoning",
    "function_call",
    "local_shell_call",
    "custom_tool_call",
    "web_search_call",
)
#: ``response_item`` payload types that carry a tool's output back to the model.
TOOL_OUTPUT_ITEMS = ("function_call_output", "custom_tool_call_output")
#: ``response_item`` payload types that are the model's input (a ``message`` with role user/developer/system).
INPUT_ITEMS = ("message", *TOOL_OUTPUT_ITEMS)

#: ``SandboxPolicy`` serialised (kebab-case); tagged ``type`` in 0.171.0, ``mode`` in older releases.
SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
#: ``AskForApproval`` serialised (kebab-case; ``UnlessTrusted`` is renamed ``untrusted``); newer
#: releases add ``{"granular": {...}}``.
APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
#: The Rust ``Debug`` names Codex prints in its refusal text (``{policy:?}``).
APPROVAL_DEBUG_NAMES = {
    "untrusted": "UnlessTrusted",
    "on-failure": "OnFailure",
    "on-request": "OnRequest",
    "never": "Never",
}

#: The shell tools Codex advertises: ``shell`` (``command`` array, older releases), ``shell_command``
#: (``command`` string) and ``exec_command`` (``cmd``; the unified exec tool of 0.171.0).
SHELL_TOOLS = ("shell", "shell_command", "exec_command")
#: ``SandboxPermissions`` (snake_case). ``exec_command`` in 0.171.0 advertises ``use_default`` and
#: ``require_escalated`` in every sandbox mode, ``danger-full-access`` too; older ``shell`` tools had
#: ``with_escalated_permissions: bool`` instead. Both come with a ``justification``.
SANDBOX_PERMISSIONS = ("use_default", "require_escalated", "with_additional_permissions")
#: The values that ask for a sandbox override (``requests_sandbox_override``).
ESCALATING_PERMISSIONS = ("require_escalated", "with_additional_permissions")

#: 0.171.0 binary: the answer to a ``justification`` without an explicit ``sandbox_permissions``.
LONE_JUSTIFICATION = (
    '`justification` requires an explicit `sandbox_permissions`; use `sandbox_permissions: "require_escalated"` '
    "for unsandboxed execution, or omit `justification`."
)


def never_escalate(policy: str) -> str | None:
    """Codex's answer to an escalation asked for under an approval policy other than ``on-request``
    (``approval policy is {policy:?}; reject command — ...``), or None where the ``Debug`` name is not known."""
    name = APPROVAL_DEBUG_NAMES.get(policy)
    if name is None:
        return None
    return (
        f"approval policy is {name}; reject command — you cannot ask for escalated permissions "
        f"if the approval policy is {name}"
    )


def sandbox_mode(policy: Any) -> str | None:
    """The mode of a recorded ``sandbox_policy`` (``{"type": ...}``, older ``{"mode": ...}``, or a bare string)."""
    if isinstance(policy, str):
        return policy
    if isinstance(policy, dict):
        mode = policy.get("type", policy.get("mode"))
        return mode if isinstance(mode, str) else None
    return None


def approval_name(policy: Any) -> str | None:
    """A recorded ``approval_policy`` by name: the string, or the key of ``{"granular": {...}}``."""
    if isinstance(policy, str):
        return policy
    if isinstance(policy, dict) and len(policy) == 1:
        return str(next(iter(policy)))
    return None


def escalation_request(arguments: Any) -> str | None:
    """What a shell call's arguments ask for: ``require_escalated``/``with_additional_permissions``
    (``sandbox_permissions``), ``with_escalated_permissions`` (the older boolean), or None."""
    if not isinstance(arguments, dict):
        return None
    perm = arguments.get("sandbox_permissions")
    if perm in ESCALATING_PERMISSIONS:
        return str(perm)
    if arguments.get("with_escalated_permissions") is True:
        return "with_escalated_permissions"
    return None


#: How a tool output starts when Codex refused the call before running anything.
_REFUSAL_PREFIXES = ("approval policy is ", "failed to parse function arguments: ", "`justification` requires ")
#: How an output starts when a process ran: ``exec_command`` (0.171.0) and the ``shell`` tool's text form.
_RAN_PREFIXES = ("Process exited with code ", "Exit code: ")


def is_refusal_text(text: str) -> bool:
    return text.startswith(_REFUSAL_PREFIXES)


def ran_a_process(text: str) -> bool:
    """The output reports a process that ran (whatever its exit code); ``exec_command`` prefixes a header."""
    head = "\n".join(text.splitlines()[:4])
    return any(p in head for p in _RAN_PREFIXES) or text.startswith('{"output":')
