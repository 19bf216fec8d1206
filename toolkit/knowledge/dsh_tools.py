"""DSH's tool schemas as the model sees them, per composition.

Every text here is the one the published ``@deepseek-ai/dsh-tool-bash``, ``dsh-tool-pwsh`` and ``dsh-tool-fs``
0.1.0-rc.8 register (recorded by ``lab/dsh-fixtures/generate.mjs`` into ``tests/fixtures/dsh/schemas.json``;
``tests/test_dsh_fixtures.py`` checks each composition). The ``bash`` base description and first five
parameters are also byte-for-byte those of the ``request/header`` events in DSH's own test snapshots
(``docs/upstream.md``, "dsh-tool-schemas"). What changes with the composition, and only that:

* a sandboxing executor (``ctx.shell.sandboxMode`` defined) / filesystem (``ctx.fs.sandboxMode``) adds
  ``sandbox_permissions`` (the full enum, whatever the mode) and ``justification``, and for bash/pwsh a guide
  appended to the description; the schema is the same in read-only, workspace-write and danger-full-access;
* ``enableRunInBackground: false`` drops ``run_in_background`` and swaps the description's background sentence.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = [
    "BASH_DESCRIPTION",
    "BASH_PARAMETERS",
    "DESCRIPTIONS",
    "EDIT_PARAMETERS",
    "PWSH_DESCRIPTION",
    "PWSH_PARAMETERS",
    "SCHEMAS",
    "WRITE_PARAMETERS",
    "description_for",
    "schema_for",
]

_BASH_BASE = (
    "Execute a bash command (`bash -c`) and return its stdout/stderr. Each call runs in a fresh shell: no state "
    "(cwd, variables, functions) persists between calls — pass `workdir` instead of using `cd`. Non-zero exits are "
    "reported as `[exit code: N]`. Current harness environment facts are exposed through managed `$DSH_*` variables; "
    "inspect them when needed. Commands may run under a file sandbox; a blocked file operation is reported as "
    "`[sandbox: file access denied under <mode> mode]` — a policy denial, not a bug in the command; do not retry "
    "another way. Long output is truncated to its tail; the full output is saved to a file whose path is reported "
    "when available. "
)
_PWSH_BASE = (
    "Execute a PowerShell command (`pwsh -Command`) and return its stdout/stderr. Each call runs in a fresh pwsh "
    "process: no state (cwd, variables, functions) persists between calls — pass `workdir` instead of using `cd`. "
    "Paths use native Windows form (`C:\\...`); read environment variables with `$env:NAME`. Non-zero exits are "
    "reported as `[exit code: N]`. Current harness environment facts are exposed through managed `$env:DSH_*` "
    "variables; inspect them when needed. Commands may run under a file sandbox; a blocked file operation is reported "
    "as `[sandbox: file access denied under <mode> mode]` — a policy denial, not a bug in the command; do not retry "
    "another way. Long output is truncated to its tail; the full output is saved to a file whose path is reported "
    "when available. On Windows a force-killed command settles as `[exit code: 1]` without a signal marker — treat "
    "it as an interruption, not a command failure. "
)
_BACKGROUND_ON = (
    "Set `run_in_background: true` for long-running commands: the call returns a job id immediately; read its output "
    "with `job_output` and stop it with `job_kill`."
)
_BACKGROUND_OFF = "Background execution is not available; long-running commands must finish within the timeout."
_ESCALATION_GUIDE = (
    " Attempting a command the sandbox may deny is safe and expected: run it and read the marker rather than assuming "
    "the denial. When a command is denied and a wider mode would let it succeed, escalate immediately in the same "
    "turn — the one sanctioned exception to a denial: retry the exact same command once with `sandbox_permissions` "
    "(the narrowest wider mode that suffices) plus a one-sentence `justification`. Do not detour through chat to ask "
    "permission first — the approval prompt raised by that retry is how the user consents. If the session states "
    "approval prompts are disabled, there is no exception: a denial is final — do not set `sandbox_permissions`. "
    "Never escalate speculatively: ground the request in a real denial — normally the one this command just hit; "
    "escalating up front is fine only when this session already denied the same access. A rejected escalation is "
    "final for that command — stop and explain, never work around it — but it does not forbid attempting or "
    "escalating other commands later."
)
_PWSH_SANDBOX_GUIDE = (
    " Under the Windows sandbox, read-only pwsh runs in PowerShell ConstrainedLanguage mode, while workspace-write "
    "stays in FullLanguage unless host policy says otherwise. In read-only, prefer cmdlets and core types "
    "(`[string]`, `[datetime]`, `[regex]`, `[guid]`); .NET static calls (`[System.IO.*]::`, `[math]::`), `Add-Type`, "
    'COM objects, and reflection fail with "only core types" errors. `-f` formatting, property access, and core '
    "cmdlets work. In both confined modes, programs cannot open named pipes, so a command that captures another "
    "program's output through piped stdio (Node.js `child_process.spawn`/`exec` with the default `stdio: 'pipe'`) "
    "fails with EPERM, while `stdio: 'inherit'` and `stdio: 'ignore'` spawns work and PowerShell's own pipelines are "
    "unaffected. That EPERM is the documented boundary: do not retry the command another way — escalate the exact "
    "command once or restructure it to avoid capturing output."
)
BASH_DESCRIPTION = _BASH_BASE + _BACKGROUND_ON + _ESCALATION_GUIDE
PWSH_DESCRIPTION = _PWSH_BASE + _BACKGROUND_ON + _PWSH_SANDBOX_GUIDE + _ESCALATION_GUIDE
#: write/edit descriptions do not change with the composition
DESCRIPTIONS = {
    "bash": BASH_DESCRIPTION,
    "pwsh": PWSH_DESCRIPTION,
    "write": "Create or fully replace a UTF-8 text file.",
    "edit": "Edit an existing UTF-8 text file by replacing literal text.",
}
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
        "file_path": {"type": "string", "description": "Path to write, resolved by the filesystem backend."},
        "content": {"type": "string", "description": "Full UTF-8 text content to write."},
        **copy.deepcopy(_FS_ESCALATION),
    },
    "required": ["file_path", "content"],
}
EDIT_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string", "description": "Path to edit, resolved by the filesystem backend."},
        "old_string": {"type": "string", "description": "Literal text to replace. Must match exactly."},
        "new_string": {
            "type": "string",
            "description": "Literal replacement text. Use an empty string to delete the match.",
        },
        "replace_all": {
            "type": "boolean",
            "description": "Replace all matches. Defaults to false; when false, old_string must appear exactly once.",
        },
        **copy.deepcopy(_FS_ESCALATION),
    },
    "required": ["file_path", "old_string", "new_string"],
}
PWSH_PARAMETERS: dict[str, Any] = copy.deepcopy(BASH_PARAMETERS)
PWSH_PARAMETERS["properties"]["command"]["description"] = "The PowerShell command to execute."
PWSH_PARAMETERS["properties"]["description"]["description"] = (
    "Clear, concise description of what this command does in active voice, 5-10 words (shown in the UI). "
    'Examples: "ls" → "List files in current directory"; "git status" → "Show working tree status"; '
    '"Get-Process" → "List running processes".'
)
#: the schemas with a sandboxing executor / filesystem and run_in_background enabled (DSH's usual composition)
SCHEMAS = {"bash": BASH_PARAMETERS, "pwsh": PWSH_PARAMETERS, "write": WRITE_PARAMETERS, "edit": EDIT_PARAMETERS}
_ESCALATION_FIELDS = ("sandbox_permissions", "justification")
_SHELL = ("bash", "pwsh")


def schema_for(tool: str, *, confined: bool = True, background: bool = True) -> dict[str, Any]:
    """A copy of the ``parameters`` DSH's ``tool`` registers: ``confined`` is a sandboxing executor /
    filesystem composed (the escalation fields), ``background`` is ``enableRunInBackground`` (bash/pwsh)."""
    out = copy.deepcopy(SCHEMAS[tool])
    drop = ([] if confined else list(_ESCALATION_FIELDS)) + (
        [] if background or tool not in _SHELL else ["run_in_background"]
    )
    for name in drop:
        del out["properties"][name]
    return out


def description_for(tool: str, *, confined: bool = True, background: bool = True) -> str:
    """The ``description`` DSH's ``tool`` registers in that composition (see ``schema_for``)."""
    if tool not in _SHELL:
        return DESCRIPTIONS[tool]
    base = _BASH_BASE if tool == "bash" else _PWSH_BASE
    text = base + (_BACKGROUND_ON if background else _BACKGROUND_OFF)
    if confined:
        text += (_PWSH_SANDBOX_GUIDE if tool == "pwsh" else "") + _ESCALATION_GUIDE
    return text
