"""DSH's tool schemas as the model sees them, with a confining executor mounted.

``bash``: the base description and the first five parameters are byte-for-byte those of the
``request/header`` events in DSH's own test snapshots (``docs/upstream.md``, "dsh-tool-schemas"); the
escalation fields and the sentence appended to the description are the ones DSH adds when
``ctx.shell.sandboxMode`` is defined (``packages/shell/tool-bash/src/index.ts``, escalation sources).
``pwsh`` takes the same parameters; ``write``/``edit`` get the same escalation fields through
``FsSandboxController.schemaFields()`` (their parameter descriptions here are the lab's wording: the
sources give no exact text, and validation does not read descriptions).
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["BASH_DESCRIPTION", "BASH_PARAMETERS", "EDIT_PARAMETERS", "SCHEMAS", "WRITE_PARAMETERS", "schema_for"]

BASH_DESCRIPTION = (
    "Execute a bash command (`bash -c`) and return its stdout/stderr. Each call runs in a fresh shell: no state "
    "(cwd, variables, functions) persists between calls — pass `workdir` instead of using `cd`. Non-zero exits are "
    "reported as `[exit code: N]`. Current harness environment facts are exposed through managed `$DSH_*` variables; "
    "inspect them when needed. Commands may run under a file sandbox; a blocked file operation is reported as "
    "`[sandbox: file access denied under <mode> mode]` — a policy denial, not a bug in the command; do not retry "
    "another way. Long output is truncated to its tail; the full output is saved to a file whose path is reported "
    "when available. Set `run_in_background: true` for long-running commands: the call returns a job id "
    "immediately; read its output with `job_output` and stop it with `job_kill`. Attempting a command the sandbox "
    "may deny is safe and expected: run it and read the marker rather than assuming the denial. When a command is "
    "denied and a wider mode would let it succeed, escalate immediately in the same turn — the one sanctioned "
    "exception to a denial: retry the exact same command once with `sandbox_permissions` (the narrowest wider mode "
    "that suffices) plus a one-sentence `justification`. Do not detour through chat to ask permission first — the "
    "approval prompt raised by that retry is how the user consents. If the session states approval prompts are "
    "disabled, there is no exception: a denial is final — do not set `sandbox_permissions`. Never escalate "
    "speculatively: ground the request in a real denial — normally the one this command just hit; escalating up "
    "front is fine only when this session already denied the same access. A rejected escalation is final for that "
    "command — stop and explain, never work around it — but it does not forbid attempting or escalating other "
    "commands later."
)
BASH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to execute."},
        "description": {
            "type": "string",
            "description": (
                "Clear, concise description of what this command does in active voice, 5-10 words (shown in the UI). "
                'Examples: "ls" → "List files in current directory"; "git status" → "Show working tree status"; '
                '"npm install" → "Install package dependencies".'
            ),
        },
        "timeoutMs": {
            "type": "number",
            "description": (
                "Timeout in milliseconds. The executor applies its configured default and cap, and kills the command on expiry."
            ),
        },
        "workdir": {
            "type": "string",
            "description": (
                "Working directory for this command. Defaults to the session workspace; a relative path is resolved against it."
            ),
        },
        "run_in_background": {
            "type": "boolean",
            "description": (
                "Run in the background and return a job id immediately (collect with job_output, stop with job_kill). "
                "No timeout applies."
            ),
        },
        "sandbox_permissions": {
            "type": "string",
            "description": (
                "The wider sandbox mode this command needs. Only valid as a one-shot retry of a command the sandbox just "
                "denied; requires justification and user approval."
            ),
            "enum": ["workspace-write", "danger-full-access"],
        },
        "justification": {
            "type": "string",
            "description": (
                "Required with sandbox_permissions: one sentence for the user explaining why this exact command needs the "
                "wider access."
            ),
        },
    },
    "required": ["command", "description"],
}
_ESCALATION = {k: BASH_PARAMETERS["properties"][k] for k in ("sandbox_permissions", "justification")}
_FS_ESCALATION = {
    "sandbox_permissions": {
        **_ESCALATION["sandbox_permissions"],
        "description": (
            "The wider sandbox mode this file operation needs. Only valid as a one-shot retry of an operation the sandbox "
            "just denied; requires justification and user approval."
        ),
    },
    "justification": {
        **_ESCALATION["justification"],
        "description": (
            "Required with sandbox_permissions: one sentence for the user explaining why this exact file operation needs "
            "the wider access."
        ),
    },
}
WRITE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Path of the file to write."},
        "content": {"type": "string", "description": "The full content to write."},
        **copy.deepcopy(_FS_ESCALATION),
    },
    "required": ["file_path", "content"],
}
EDIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Path of the file to edit."},
        "old_string": {"type": "string", "description": "The exact text to replace."},
        "new_string": {"type": "string", "description": "The text to replace it with."},
        "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of exactly one."},
        **copy.deepcopy(_FS_ESCALATION),
    },
    "required": ["file_path", "old_string", "new_string"],
}
SCHEMAS = {"bash": BASH_PARAMETERS, "pwsh": BASH_PARAMETERS, "write": WRITE_PARAMETERS, "edit": EDIT_PARAMETERS}


def schema_for(tool: str) -> dict[str, Any]:
    """A copy of DSH's advertised schema for ``tool`` (with the escalation fields)."""
    return copy.deepcopy(SCHEMAS[tool])
