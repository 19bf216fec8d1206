"""DSH's runtime validation of tool calls: the mode ladder and the exact texts (dsh.md §5, §6, §8).

Read at ``deepseek-ai/deepseek-harness`` b150a551 (``dsh-v0.1.1-rc.2``):
``packages/core/tools/src/{schema,json-schema}.ts`` (stage 1: ``ToolArgsError``, ``checkValue``),
``packages/shell/tool-bash/src/index.ts`` and ``tool-pwsh`` (``validateBashArgs``),
``packages/fs/tool-fs/src/{write,edit,sandbox}.ts`` (``parseWriteArgs``, ``parseEditArgs``, ``resolvePolicy``),
``packages/sandbox/sandbox/src/escalation.ts`` (``validateEscalationArgs``, ``approveEscalation``),
``packages/core/tools/src/index.ts`` (``toolErrorResult``). The same-mode change is commit 61c548e200
(first in ``dsh-v0.1.6-alpha.2``); the longer rejection text was read at 0.1.7-rc.2
(``zsagi1368/deepseek-harness-zDSH``), and from which release it applies is not confirmed.
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


_TYPE_PHRASE = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def must_be_type(prop: str, type_name: str) -> str:
    return f'"{prop}" must be {_TYPE_PHRASE.get(type_name, type_name)}'


def must_be_finite(prop: str) -> str:
    return f'"{prop}" must be a finite JSON number'


def must_be_const(prop: str, value) -> str:
    return f'"{prop}" must be {json.dumps(value, separators=(",", ":"))}'


def missing_required(prop: str) -> str:
    return f'missing required property "{prop}"'


def invalid_arguments(violations: list[str]) -> str:
    return "invalid arguments: " + "; ".join(violations)


# ---- stage 2: the tool's own checks (bash / pwsh)

INVALID_COMMAND = "invalid command: expected a non-empty string"
INVALID_DESCRIPTION = "invalid description: expected a non-empty string"


def invalid_timeout(value) -> str:
    return f"invalid timeoutMs: expected a positive number, got {json.dumps(value)}"


# write / edit (parseWriteArgs, parseEditArgs)
EMPTY_FILE_PATH = "file_path must be a non-empty string"
EMPTY_OLD_STRING = "old_string must be a non-empty string"
SAME_STRINGS = "old_string and new_string must differ"
BACKGROUND_DISABLED = "run_in_background is disabled for this deployment (enableRunInBackground: false)"
NO_BACKGROUND_JOBS = "background jobs unavailable: load @deepseek-ai/dsh-jobs and @deepseek-ai/dsh-tool-jobs"
LONG_REJECTION_FROM = "0.1.7-rc.2"  # the first release the longer rejection text was seen in


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


def rejected(target: str, tool: str, version: str = "0.1.1-rc.2") -> str:
    what = "operation" if tool in FS_TOOLS else "command"
    text = f'the user rejected escalating this {what} to "{target}"'
    if version_order(version) >= version_order(LONG_REJECTION_FROM):
        text += "; it stays denied, so stop and explain instead of working around it"
    return text


def cancelled(target: str) -> str:
    return f'approval for escalating to "{target}" was cancelled'


def no_channel(target: str) -> str:
    return f'sandbox escalation to "{target}" requires approval, but no approval channel is available'


def approval_reason(target: str, justification: str) -> str:
    return f"escalate sandbox to {target}: {justification}"


def tool_result_text(message: str) -> str:
    """A thrown error becomes the tool result ``Error: <message>`` (``packages/core/tools/src/index.ts``)."""
    return f"Error: {message}"
