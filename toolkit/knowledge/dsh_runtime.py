"""DSH's runtime validation of tool calls: the mode ladder, the releases it changed in, and the exact texts.

Read at ``deepseek-ai/deepseek-harness`` b150a551 (``dsh-v0.1.1-rc.2``):
``packages/core/tools/src/{schema,json-schema}.ts`` (stage 1: ``ToolArgsError``, ``checkValue``),
``packages/shell/tool-bash/src/index.ts`` and ``tool-pwsh`` (``validateBashArgs``),
``packages/fs/tool-fs/src/{write,edit,sandbox}.ts`` (``parseWriteArgs``, ``parseEditArgs``, ``resolvePolicy``),
``packages/sandbox/sandbox/src/escalation.ts`` (``validateEscalationArgs``, ``approveEscalation``),
``packages/core/tools/src/index.ts`` (``toolErrorResult``). The same-mode change is commit 61c548e200
(first in ``dsh-v0.1.6-alpha.2``); the longer rejection text was read at 0.1.7-rc.2
(``zsagi1368/deepseek-harness-zDSH``), and from which release it applies is not confirmed.
Every text and the order of checks for ``bash``, ``pwsh``, ``write`` and ``edit`` (stages 1-8, the background
checks after them, the approval service's outcomes) are the ones the published npm packages 0.1.0-rc.8
(``@deepseek-ai/dsh-tools``, ``dsh-tool-bash``, ``dsh-tool-pwsh``, ``dsh-tool-fs``, ``dsh-sandbox``,
``dsh-user-approval``) produce when run (``lab/dsh-fixtures/generate.mjs`` -> ``tests/fixtures/dsh/execution.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = [
    "APPROVAL_OUTCOMES",
    "APPROVAL_OUTSIDE_TURN",
    "BACKGROUND_DISABLED",
    "DEFAULT_VERSION",
    "EMPTY_FILE_PATH",
    "EMPTY_JUSTIFICATION",
    "EMPTY_OLD_STRING",
    "ERROR_PREFIX",
    "ESCALATION_TARGETS",
    "FS_TOOLS",
    "INVALID_COMMAND",
    "INVALID_DESCRIPTION",
    "LONE_JUSTIFICATION",
    "LONG_REJECTION_FROM",
    "MODES",
    "NEEDS_JUSTIFICATION",
    "NO_BACKGROUND_JOBS",
    "NO_FS_SANDBOX",
    "NO_SHELL_SANDBOX",
    "RELEASES",
    "SAME_MODE_ACCEPTED_FROM",
    "SAME_STRINGS",
    "SHELL_TOOLS",
    "VERSIONS",
    "WIDER_MODES",
    "accepts_same_mode",
    "approval_outcome",
    "approval_reason",
    "cancelled",
    "error_message",
    "invalid_arguments",
    "invalid_timeout",
    "is_error_text",
    "justification_not_string",
    "missing_required",
    "must_be_const",
    "must_be_finite",
    "must_be_one_of",
    "must_be_type",
    "no_agent",
    "no_approval_service",
    "no_channel",
    "not_strictly_wider",
    "rejected",
    "strictly_wider",
    "tool_result_text",
    "version_order",
]

MODES = ("read-only", "workspace-write", "danger-full-access")
ESCALATION_TARGETS = ("workspace-write", "danger-full-access")
WIDER_MODES = {
    "read-only": ("workspace-write", "danger-full-access"),
    "workspace-write": ("danger-full-access",),
    "danger-full-access": (),
}
SHELL_TOOLS = ("bash", "pwsh")
FS_TOOLS = ("write", "edit")
#: The DSH releases the model of DSH knows, oldest first, and what changes at each: the one list of them.
RELEASES = {
    "0.1.0-rc.8": (
        "the published npm release, run (tests/fixtures/dsh/execution.json): the same checks, order and texts as "
        "0.1.1-rc.2 (git diff dsh-v0.1.0-rc.8..dsh-v0.1.1-rc.2 changes none of the validation sources, only "
        "packages/fs/tool-fs/src/read-image.ts)"
    ),
    "0.1.1-rc.2": "the baseline: every text and the order of checks, read at b150a551",
    "0.1.6-alpha.2": "a request for the current mode is accepted without approval (commit 61c548e200)",
    "0.1.7-rc.2": 'the user\'s rejection adds "; it stays denied, so stop and explain instead of working around it"',
}
VERSIONS = tuple(RELEASES)
DEFAULT_VERSION = "0.1.1-rc.2"
SAME_MODE_ACCEPTED_FROM = "0.1.6-alpha.2"
LONG_REJECTION_FROM = "0.1.7-rc.2"  # the first release the longer rejection text was seen in
_PRE = {"alpha": 0, "beta": 1, "rc": 2}


def version_order(version: str) -> tuple[int, ...]:
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


def _js_json(value: Any) -> str:
    """``JSON.stringify``: compact, and non-ASCII characters as they are."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def must_be_one_of(prop: str, values: Iterable[Any]) -> str:
    return f'"{prop}" must be one of {_js_json(list(values))}'


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


def must_be_const(prop: str, value: Any) -> str:
    return f'"{prop}" must be {_js_json(value)}'


def missing_required(prop: str) -> str:
    return f'missing required property "{prop}"'


def invalid_arguments(violations: list[str]) -> str:
    return "invalid arguments: " + "; ".join(violations)


# ---- stage 2: the tool's own checks (bash / pwsh)

INVALID_COMMAND = "invalid command: expected a non-empty string"
INVALID_DESCRIPTION = "invalid description: expected a non-empty string"


def invalid_timeout(value: Any) -> str:
    return f"invalid timeoutMs: expected a positive number, got {_js_json(value)}"


def justification_not_string(value: Any) -> str:
    """Stage 3c on a justification that is not a string: ``justification.trim()`` throws a TypeError (V8's text).

    Reachable only where the schema does not declare ``justification`` (no sandboxing executor / filesystem):
    ``@deepseek-ai/dsh-sandbox@0.1.0-rc.8 lib/index.js:53``."""
    if value is None:
        return "Cannot read properties of null (reading 'trim')"
    return "justification.trim is not a function"


# write / edit (parseWriteArgs, parseEditArgs)
EMPTY_FILE_PATH = "file_path must be a non-empty string"
EMPTY_OLD_STRING = "old_string must be a non-empty string"
SAME_STRINGS = "old_string and new_string must differ"
BACKGROUND_DISABLED = "run_in_background is disabled for this deployment (enableRunInBackground: false)"
NO_BACKGROUND_JOBS = "background jobs unavailable: load @deepseek-ai/dsh-jobs and @deepseek-ai/dsh-tool-jobs"


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


def rejected(target: str, tool: str, version: str = DEFAULT_VERSION) -> str:
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


#: What the approval service can answer (``@deepseek-ai/dsh-user-approval@0.1.0-rc.8 lib/index.js:29``); only
#: ``allowed-once`` grants.
APPROVAL_OUTCOMES = ("allowed-once", "rejected", "cancelled", "unavailable")
#: ``ApprovalService.request`` outside an open turn throws this instead of answering (``lib/index.js:146``).
APPROVAL_OUTSIDE_TURN = (
    "approval.request() outside an open turn: the approval/asked + approval/decided audit pair must be "
    "turn-enclosed (a bare event between turns is crash-tail garbage on reload). Ask from inside the turn that "
    "needs the decision."
)


def approval_outcome(*, policy: str = "ask", answer: object = None, aborted: bool = False) -> str:
    """The outcome DSH's ``ApprovalService.decide`` gives: an aborted call is ``cancelled``, policy ``never`` is
    ``rejected`` (no answerer is asked), and a missing or throwing answerer (``answer=None``) or one answering
    anything outside ``APPROVAL_OUTCOMES`` is ``unavailable`` (``dsh-user-approval@0.1.0-rc.8 lib/index.js:185``)."""
    if aborted:
        return "cancelled"
    if policy == "never":
        return "rejected"
    return answer if isinstance(answer, str) and answer in APPROVAL_OUTCOMES else "unavailable"


#: What DSH puts before a thrown error's message in the tool result the model reads: ``toolErrorResult``
#: in ``packages/core/tools/src/index.ts`` (deepseek-ai/deepseek-harness b150a551, dsh-v0.1.1-rc.2; the same
#: in the published ``@deepseek-ai/dsh-tools`` 0.1.0-rc.8, ``lib/index.js``).
ERROR_PREFIX = "Error: "


def tool_result_text(message: str) -> str:
    """A thrown error becomes the tool result ``Error: <message>``."""
    return ERROR_PREFIX + message


def is_error_text(text: object) -> bool:
    """Whether a tool result's text is a thrown error, by DSH's prefix."""
    return isinstance(text, str) and text.startswith(ERROR_PREFIX)


def error_message(text: str) -> str:
    """The thrown error's message in a tool result's text (the text itself when it has no prefix)."""
    return text.removeprefix(ERROR_PREFIX)
