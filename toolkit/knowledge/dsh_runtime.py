"""DSH's runtime validation of tool calls: the mode ladder and the exact texts (dsh.md §5, §6, §8).

Sources: ``deepseek-ai/deepseek-harness`` 0.1.1-rc.2: ``packages/core/tools/src/json-schema.ts`` (stage 1),
``packages/shell/tool-bash/src/index.ts`` (``validateBashArgs``), ``packages/sandbox/sandbox/src/escalation.ts``
(``validateEscalationArgs``, ``approveEscalation``), ``packages/sandbox/sandbox/src/index.ts`` (modes);
``dsh-v0.1.6-alpha.2`` commit 61c548e200 for the same-mode change.
"""
from __future__ import annotations

import json

MODES = ("read-only", "workspace-write", "danger-full-access")
ESCALATION_TARGETS = ("workspace-write", "danger-full-access")
WIDER_MODES = {
    "read-only": ("workspace-write", "danger-full-access"),
    "workspace-write": ("danger-full-access",),
    "danger-full-access": (),
}
SHELL_TOOLS = ("bash", "pwsh")
FS_TOOLS = ("write", "edit")
VERSIONS = ("0.1.1-rc.2", "0.1.6-alpha.2")
SAME_MODE_ACCEPTED_FROM = "0.1.6-alpha.2"
_PRE = {"alpha": 0, "beta": 1, "rc": 2}


def version_order(version: str) -> tuple:
    """Sortable form of a DSH version: ``0.1.1-rc.2`` < ``0.1.6-alpha.1`` < ``0.1.6-alpha.2`` < ``0.1.6``."""
    core, _, pre = version.strip().removeprefix("dsh-").lstrip("v").partition("-")
    nums = tuple(int(x) for x in core.split("."))
    if not pre:
        return nums + (3, 0)
    kind, _, num = pre.partition(".")
    if kind not in _PRE:
        raise ValueError(f"unknown DSH pre-release {pre!r} in {version!r}")
    return nums + (_PRE[kind], int(num or 0))


def accepts_same_mode(version: str) -> bool:
    """From 0.1.6-alpha.2 ``approveEscalation`` accepts a request for the current mode without approval."""
    return version_order(version) >= version_order(SAME_MODE_ACCEPTED_FROM)


def strictly_wider(target: str, current: str) -> bool:
    return target in WIDER_MODES.get(current, ())


# ---- stage 1: the JSON-schema check of the advertised schema (only advertised keys are checked)

def must_be_one_of(prop: str, values) -> str:
    return f'"{prop}" must be one of {json.dumps(list(values), separators=(",", ":"))}'


def must_be_type(prop: str, type_name: str) -> str:
    article = "an" if type_name[:1] in "aeiou" else "a"
    return f'"{prop}" must be {article} {type_name}'


def missing_required(prop: str) -> str:
    return f'missing required property "{prop}"'


def invalid_arguments(violations: list[str]) -> str:
    return "invalid arguments: " + "; ".join(violations)


# ---- stage 2: the tool's own checks (bash / pwsh)

INVALID_COMMAND = "invalid command: expected a non-empty string"
INVALID_DESCRIPTION = "invalid description: expected a non-empty string"


def invalid_timeout(value) -> str:
    return f"invalid timeoutMs: expected a positive number, got {json.dumps(value)}"


# ---- stage 3: validateEscalationArgs

NEEDS_JUSTIFICATION = "invalid escalation: sandbox_permissions requires a justification"
LONE_JUSTIFICATION = "invalid escalation: justification is only valid together with sandbox_permissions"
EMPTY_JUSTIFICATION = "invalid justification: expected a non-empty sentence"

# ---- stage 4: the guard when no confining executor is composed
NO_SHELL_SANDBOX = "sandbox_permissions is not available in this composition (no sandboxing executor to escalate)"
NO_FS_SANDBOX = "sandbox_permissions is not available in this composition (no sandboxing filesystem to escalate)"


# ---- stages 5-8: approveEscalation

def not_strictly_wider(target: str, effective: str) -> str:
    return f'sandbox escalation to "{target}" is not strictly wider than this call\'s current "{effective}" mode'


def no_approval_service(target: str) -> str:
    return f'sandbox escalation to "{target}" requires approval, but no approval service is composed'


def no_agent(target: str) -> str:
    return f'sandbox escalation to "{target}" requires approval, but the call has no agent to route it through'


def rejected(target: str, tool: str) -> str:
    what = "operation" if tool in FS_TOOLS else "command"
    return f'the user rejected escalating this {what} to "{target}"'


def cancelled(target: str) -> str:
    return f'approval for escalating to "{target}" was cancelled'


def no_channel(target: str) -> str:
    return f'sandbox escalation to "{target}" requires approval, but no approval channel is available'


def approval_reason(target: str, justification: str) -> str:
    return f"escalate sandbox to {target}: {justification}"


def tool_result_text(message: str) -> str:
    """A thrown error becomes the tool result ``Error: <message>`` (``packages/core/tools/src/index.ts``)."""
    return f"Error: {message}"
