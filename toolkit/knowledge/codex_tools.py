"""The tools Codex CLI sends (the request's ``tools``), per sandbox mode, approval policy and tool switch.

Recorded from the published binary (npm ``@openai/codex@0.171.0-linux-x64``, ``codex-cli 0.171.0``) run
with ``codex exec`` against a loopback upstream, ``tests/fixtures/codex/tools-0.171.0.json``
(``lab/record_codex_tools.py``); the schema builder read in ``openai/codex``
``codex-rs/core/src/tools/handlers/shell_spec.rs`` (``create_approval_parameters``). Notes:
``docs/upstream.md#codex-tools``.

* Modelled: a model id Codex has no metadata for (any gateway's own ids; Codex warns and uses its fallback
  model family). A model in Codex's catalogue (``gpt-6.2-sol``) gets no ``tools`` at all: its tools travel
  in an ``additional_tools`` input item under code mode's ``exec``; recorded, not modelled here.
* The approval policy changes nothing: ``codex exec`` runs ``on-failure``/``on-request``/``never`` as
  ``never`` (``--approve-for-me`` as ``on-request``), and the tools are the same in every case.
  ``untrusted`` stops Codex at start-up (``CodexRefusal``, Codex's text).
* The sandbox mode changes only ``web_search``'s ``external_web_access`` (true in ``danger-full-access``).
  ``exec_command`` advertises ``sandbox_permissions`` (``use_default``/``require_escalated``),
  ``justification`` and ``prefix_rule`` in every mode, ``danger-full-access`` too.
* Every function tool carries ``strict: false``; namespaces and ``web_search`` carry no ``strict``.
* Properties are sorted by name (Codex builds them in a ``BTreeMap``).

Switches combine as Codex's builder does; only one switch at a time was recorded.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolkit.errors import InputError
from toolkit.knowledge.codex import SANDBOX_MODES, SHELL_TOOLS

__all__ = [
    "APPROVAL_POLICIES",
    "DEFAULT_VERSION",
    "ESCALATION_PARAMETERS",
    "FEATURES",
    "PARALLEL_TOOL_CALLS",
    "RETIRED_APPROVAL_POLICIES",
    "SANDBOX_MODES",
    "TOOL_CHOICE",
    "VERSIONS",
    "WEB_SEARCH_MODES",
    "CodexRefusal",
    "escalation_fields",
    "sandbox_permission_values",
    "tool_for",
    "tools_for",
]

VERSIONS = ("0.171.0",)
DEFAULT_VERSION = "0.171.0"
#: The approval policies 0.171.0 accepts in config (``-c approval_policy=...``).
APPROVAL_POLICIES = ("on-failure", "on-request", "never")
#: Policies the protocol still names but 0.171.0 refuses to start with: Codex's message (stderr, exit 1).
RETIRED_APPROVAL_POLICIES: dict[str, str] = {
    "untrusted": 'Error: approval_policy = "untrusted" is no longer supported; remove this setting',
}
#: Feature switches that change (or were recorded not to change) the tools, with their 0.171.0 defaults
#: (``codex features list``). ``unified_exec`` off changes nothing for the fallback model family.
FEATURES = {
    "unified_exec": True,
    "shell_tool": True,
    "exec_permission_approvals": False,
    "request_permissions_tool": False,
    "view_image": True,
}
#: ``web_search`` config values; None is Codex's default (``cached``, ``live`` in ``danger-full-access``).
WEB_SEARCH_MODES = ("cached", "live", "disabled")
#: The parameters by which a shell call asks to leave or widen the sandbox (older releases also had
#: ``with_escalated_permissions``). The ``request_permissions`` tool (a switch) asks for permissions as a
#: call of its own and is not counted here.
ESCALATION_PARAMETERS = (
    "additional_permissions",
    "justification",
    "prefix_rule",
    "sandbox_permissions",
    "with_escalated_permissions",
)
#: ``tool_choice`` and ``parallel_tool_calls`` beside ``tools`` (the fallback model family).
TOOL_CHOICE = "auto"
PARALLEL_TOOL_CALLS = True


#: Codex's texts name its ``AGENTS.md`` convention, not a document of this repository: kept apart so the
#: doc-reference check (tests/test_doc_references.py) does not read it as a link.
_AGENTS_MD = "AGENTS" + ".md"


class CodexRefusal(InputError):
    """Codex 0.171.0 refuses the setting before sending anything (the text is Codex's)."""


#: ``exec_command``'s own parameters, as sent (descriptions are Codex's).
_EXEC_COMMAND_BASE: dict[str, Any] = {
    "cmd": {"type": "string", "description": "Shell command to execute."},
    "login": {"type": "boolean", "description": "Request login-shell startup. Omit to inherit."},
    "max_output_tokens": {
        "type": "number",
        "description": "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.",
    },
    "shell": {"type": "string", "description": "Shell binary to launch. Defaults to the user's default shell."},
    "tty": {
        "type": "boolean",
        "description": "True allocates a PTY for the command; false or omitted uses plain pipes.",
    },
    "workdir": {"type": "string", "description": "Working directory for the command. Defaults to the turn cwd."},
    "yield_time_ms": {
        "type": "number",
        "description": "Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms.",
    },
}

#: The approval parameters without ``exec_permission_approvals``.
_EXEC_COMMAND_ESCALATION: dict[str, Any] = {
    "sandbox_permissions": {
        "type": "string",
        "description": "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.",
        "enum": ["use_default", "require_escalated"],
    },
    "justification": {
        "type": "string",
        "description": "User-facing approval question for `require_escalated`; omit otherwise.",
    },
    "prefix_rule": {
        "type": "array",
        "description": 'Reusable approval prefix for `cmd`, only with `sandbox_permissions: "require_escalated"`; for example ["git", "pull"].',
        "items": {"type": "string"},
    },
}

_WRITE_STDIN: dict[str, Any] = {
    "type": "function",
    "name": "write_stdin",
    "description": "Writes characters to an existing unified exec session and returns recent output.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "chars": {
                "type": "string",
                "description": "Bytes to write to stdin. Defaults to empty, which polls without writing.",
            },
            "max_output_tokens": {
                "type": "number",
                "description": "Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy.",
            },
            "session_id": {"type": "number", "description": "Identifier of the running unified exec session."},
            "yield_time_ms": {
                "type": "number",
                "description": "Wait before yielding output. Non-empty writes default to 250 ms and cap at 30000 ms; empty polls wait 5000-300000 ms by default.",
            },
        },
        "required": ["session_id"],
        "additionalProperties": False,
    },
}

_REQUEST_USER_INPUT: dict[str, Any] = {
    "type": "function",
    "name": "request_user_input",
    "description": "Request user input for one to three short questions and wait for the response. This tool is only available in Plan mode.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "description": "Questions to show the user. Prefer 1 and do not exceed 3",
                "items": {
                    "type": "object",
                    "properties": {
                        "header": {
                            "type": "string",
                            "description": "Short header label shown in the UI (12 or fewer chars).",
                        },
                        "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)."},
                        "options": {
                            "type": "array",
                            "description": 'Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with "(Recommended)". Do not include an "Other" option in this list; the client will add a free-form "Other" option automatically.',
                            "items": {
                                "type": "object",
                                "properties": {
                                    "description": {
                                        "type": "string",
                                        "description": "One short sentence explaining impact/tradeoff if selected.",
                                    },
                                    "label": {"type": "string", "description": "User-facing label (1-5 words)."},
                                },
                                "required": ["label", "description"],
                                "additionalProperties": False,
                            },
                        },
                        "question": {"type": "string", "description": "Single-sentence prompt shown to the user."},
                    },
                    "required": ["id", "header", "question", "options"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["questions"],
        "additionalProperties": False,
    },
}

_VIEW_IMAGE: dict[str, Any] = {
    "type": "function",
    "name": "view_image",
    "description": "View a local image file from the filesystem when visual inspection is needed. Use this for images already available on disk.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Local filesystem path to an image file."}},
        "required": ["path"],
        "additionalProperties": False,
    },
}


def _input_items() -> dict[str, Any]:
    """The ``items`` parameter ``send_input`` and ``spawn_agent`` share (a fresh copy each time)."""
    return {
        "type": "array",
        "description": "Structured input items. Use this to pass explicit mentions (for example app:// connector paths).",
        "items": {
            "type": "object",
            "properties": {
                "audio_url": {"type": "string", "description": "Audio data URL when type is audio."},
                "image_url": {"type": "string", "description": "Image URL when type is image."},
                "name": {
                    "type": "string",
                    "description": "Display name when type is skill or mention.",
                },
                "path": {
                    "type": "string",
                    "description": "Path when type is local_image/local_audio/skill, or structured mention target such as app://<connector-id> or plugin://<plugin-name>@<marketplace-name> when type is mention.",
                },
                "text": {"type": "string", "description": "Text content when type is text."},
                "type": {
                    "type": "string",
                    "description": "Input item type: text, image, local_image, audio, local_audio, skill, or mention.",
                },
            },
            "additionalProperties": False,
        },
    }


_MULTI_AGENT_V1: dict[str, Any] = {
    "type": "namespace",
    "name": "multi_agent_v1",
    "description": "Tools for spawning and managing sub-agents.",
    "tools": [
        {
            "type": "function",
            "name": "close_agent",
            "description": "Close an agent and any open descendants when they are no longer needed, and return the target agent's previous status before shutdown was requested. Completed agents remain open and count toward the concurrency limit until closed. Don't keep agents open for too long if they are not needed anymore.",
            "strict": False,
            "parameters": {
                "type": "object",
                "properties": {"target": {"type": "string", "description": "Agent id to close (from spawn_agent)."}},
                "required": ["target"],
                "additionalProperties": False,
            },
        },
        {
            "type": "function",
            "name": "resume_agent",
            "description": "Resume a previously closed agent by id so it can receive send_input and wait_agent calls.",
            "strict": False,
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "string", "description": "Agent id to resume."}},
                "required": ["id"],
                "additionalProperties": False,
            },
        },
        {
            "type": "function",
            "name": "send_input",
            "description": "Send a message to an existing agent. Use interrupt=true to redirect work immediately. You should reuse the agent by send_input if you believe your assigned task is highly dependent on the context of a previous task.",
            "strict": False,
            "parameters": {
                "type": "object",
                "properties": {
                    "interrupt": {
                        "type": "boolean",
                        "description": "True interrupts the current task and handles this message immediately; false or omitted queues it.",
                    },
                    "items": _input_items(),
                    "message": {
                        "type": "string",
                        "description": "Legacy plain-text message to send to the agent. Use either message or items.",
                    },
                    "target": {"type": "string", "description": "Agent id to message (from spawn_agent)."},
                },
                "required": ["target"],
                "additionalProperties": False,
            },
        },
        {
            "type": "function",
            "name": "spawn_agent",
            "description": f"\n        \n        Available model overrides (optional; inherited parent model is preferred):\n- `gpt-6.2-sol`: Fast, go-to model for coding and everyday work. Reasoning efforts: low (default), medium, high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-6.2-astra`: Our most capable model for complex coding and professional work. Reasoning efforts: low (default), medium, high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-6.1-terra`: Efficient model that excels at visual understanding and computer use. Reasoning efforts: low (default), medium, high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-6.1-sol`: Previous generation model for coding and everyday work. Reasoning efforts: low (default), medium, high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-6-astra`: Previous generation model for complex coding and professional work. Reasoning efforts: low (default), medium, high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-6-sol`: Legacy model for coding and everyday work. Reasoning efforts: low, medium (default), high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-6-luna`: Fast and affordable model for easier tasks. Reasoning efforts: low, medium (default), high, xhigh, max. Service tiers: priority.\n- `gpt-5.6-sol`: Legacy model for coding and everyday work. Reasoning efforts: low (default), medium, high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-5.6-terra`: Legacy balanced model for agentic coding. Reasoning efforts: low, medium (default), high, xhigh, max, ultra. Service tiers: priority.\n- `gpt-5.6-luna`: Legacy fast model for simpler tasks. Reasoning efforts: low, medium (default), high, xhigh, max. Service tiers: priority.\n- `gpt-5.5`: Legacy coding model. Reasoning efforts: low, medium (default), high, xhigh. Service tiers: priority.\n        Spawn a sub-agent for a well-scoped task. Returns the spawned agent id plus the user-facing nickname when available. Spawned agents inherit your current model by default. Omit `model` to use that preferred default; set `model` only when an explicit override is needed.\nThis spawn_agent tool provides you access to sub-agents that inherit your current model by default. Do not set the `model` field unless the user explicitly asks for a different model. You should follow the rules and guidelines below to use this tool.\n\nDo not spawn sub-agents unless the user or applicable {_AGENTS_MD}/skill instructions explicitly ask for sub-agents, delegation, or parallel agent work.\nRequests for depth, thoroughness, research, investigation, or detailed codebase analysis do not count as permission to spawn.\nAgent-role guidance below only helps choose which agent to use after spawning is already authorized; it never authorizes spawning by itself.\n\n### When to delegate vs. do the subtask yourself\n- First, quickly analyze the overall user task and form a succinct high-level plan. Identify which tasks are immediate blockers on the critical path, and which tasks are sidecar tasks that are needed but can run in parallel without blocking the next local step. As part of that plan, explicitly decide what immediate task you should do locally right now. Do this planning step before delegating to agents so you do not hand off the immediate blocking task to a submodel and then waste time waiting on it.\n- Use a subagent when a subtask is easy enough for it to handle and can run in parallel with your local work. Prefer delegating concrete, bounded sidecar tasks that materially advance the main task without blocking your immediate next local step.\n- Do not delegate urgent blocking work when your immediate next step depends on that result. If the very next action is blocked on that task, the main rollout should usually do it locally to keep the critical path moving.\n- Keep work local when the subtask is too difficult to delegate well and when it is tightly coupled, urgent, or likely to block your immediate next step.\n\n### Designing delegated subtasks\n- Subtasks must be concrete, well-defined, and self-contained.\n- Delegated subtasks must materially advance the main task.\n- Do not duplicate work between the main rollout and delegated subtasks.\n- Avoid issuing multiple delegate calls on the same unresolved thread unless the new delegated task is genuinely different and necessary.\n- Narrow the delegated ask to the concrete output you need next.\n- For coding tasks, prefer delegating concrete code-change worker subtasks over read-only explorer analysis when the subagent can make a bounded patch in a clear write scope.\n- When delegating coding work, instruct the submodel to edit files directly in its forked workspace and list the file paths it changed in the final answer.\n- For code-edit subtasks, decompose work so each delegated task has a disjoint write set.\n\n### After you delegate\n- Call wait_agent very sparingly. Only call wait_agent when you need the result immediately for the next critical-path step and you are blocked until it returns.\n- Do not redo delegated subagent tasks yourself; focus on integrating results or tackling non-overlapping work.\n- While the subagent is running in the background, do meaningful non-overlapping work immediately.\n- Do not repeatedly wait by reflex.\n- When a delegated coding task returns, quickly review the uploaded changes, then integrate or refine them.\n\n### Parallel delegation patterns\n- Run multiple independent information-seeking subtasks in parallel when you have distinct questions that can be answered independently.\n- Split implementation into disjoint codebase slices and spawn multiple agents for them in parallel when the write scopes do not overlap.\n- Delegate verification only when it can run in parallel with ongoing implementation and is likely to catch a concrete risk before final integration.\n- The key is to find opportunities to spawn multiple independent subtasks in parallel within the same round, while ensuring each subtask is well-defined, self-contained, and materially advances the main task.",
            "strict": False,
            "parameters": {
                "type": "object",
                "properties": {
                    "fork_context": {
                        "type": "boolean",
                        "description": "True forks the current thread history into the new agent; false or omitted starts with only the initial prompt.",
                    },
                    "items": _input_items(),
                    "message": {
                        "type": "string",
                        "description": "Initial plain-text task for the new agent. Use either message or items.",
                    },
                    "model": {
                        "type": "string",
                        "description": "Model override for the new agent. Omit unless an explicit override is needed.",
                    },
                    "reasoning_effort": {
                        "type": "string",
                        "description": "Reasoning effort override for the new agent. Omit to inherit the parent effort.",
                    },
                },
                "additionalProperties": False,
            },
        },
        {
            "type": "function",
            "name": "wait_agent",
            "description": "Wait for agents to reach a final status. Completed statuses may include the agent's final message. Returns empty status when timed out. Once the agent reaches a final status, a notification message will be received containing the same completed status.",
            "strict": False,
            "parameters": {
                "type": "object",
                "properties": {
                    "targets": {
                        "type": "array",
                        "description": "Agent ids to wait on. Pass multiple ids to wait for whichever finishes first.",
                        "items": {"type": "string"},
                    },
                    "timeout_ms": {
                        "type": "number",
                        "description": "Timeout in milliseconds. Defaults to 30000, min 10000, max 3600000. Prefer longer waits (minutes) to avoid busy polling.",
                    },
                },
                "required": ["targets"],
                "additionalProperties": False,
            },
        },
    ],
}

_GET_GOAL: dict[str, Any] = {
    "type": "function",
    "name": "get_goal",
    "description": "Get the current goal for this thread, including status, budgets, token and elapsed-time usage, and remaining token budget.",
    "strict": False,
    "parameters": {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
}

_CREATE_GOAL: dict[str, Any] = {
    "type": "function",
    "name": "create_goal",
    "description": "Create a goal only when explicitly requested by the user or system/developer instructions; do not infer goals from ordinary tasks.\nSet token_budget only when an explicit token budget is requested. Fails if an unfinished goal exists; use update_goal only for status.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "objective": {
                "type": "string",
                "description": "Required. The concrete objective to start pursuing. This starts a new active goal when no goal exists or replaces the current goal when it is complete.",
            },
            "token_budget": {
                "type": "integer",
                "description": "Positive token budget for the new goal. Omit unless explicitly requested.",
            },
        },
        "required": ["objective"],
        "additionalProperties": False,
    },
}

_UPDATE_GOAL: dict[str, Any] = {
    "type": "function",
    "name": "update_goal",
    "description": "Update the existing goal.\nSet status to `paused` only at the user's explicit request to pause this goal, never on your own initiative. Ask if unclear; a later resume revokes that request. Report the returned status and stop goal work. Budget limits take precedence over pausing.\nSet status to `complete` only when the objective has actually been achieved and no required work remains.\nSet status to `blocked` only when the same blocking condition has repeated for at least three consecutive goal turns, counting the original/user-triggered turn and any automatic continuations, and the agent cannot make meaningful progress without user input or an external-state change.\nIf the user resumes a goal that was previously marked `blocked`, treat the resumed run as a fresh blocked audit. If the same blocking condition then repeats for at least three consecutive resumed goal turns, set status to `blocked` again.\nOnce the blocked threshold is satisfied, do not keep reporting that you are still blocked while leaving the goal active; set status to `blocked`.\nDo not use `blocked` merely because the work is hard, slow, uncertain, incomplete, or would benefit from clarification.\nDo not mark a goal complete merely because its budget is nearly exhausted or because you are stopping work.\nYou cannot use this tool to resume, budget-limit, or usage-limit a goal; those status changes are controlled by the user or system.\nWhen marking a budgeted goal achieved with status `complete`, report the final token usage from the tool result to the user.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "status": {
                "type": "string",
                "description": "Required. `paused` requires an explicit user request. Set to `complete` only when the objective is achieved and no required work remains. Set to `blocked` only after the same blocking condition has recurred for at least three consecutive goal turns and the agent is at an impasse. After a previously blocked goal is resumed, the resumed run starts a fresh blocked audit.",
                "enum": ["complete", "blocked", "paused"],
            }
        },
        "required": ["status"],
        "additionalProperties": False,
    },
}

_REQUEST_PERMISSIONS: dict[str, Any] = {
    "type": "function",
    "name": "request_permissions",
    "description": "Request additional filesystem or network permissions from the user and wait for the client to grant a subset of the requested permission profile. Use environment_id to target a specific attached environment; omit it to use the primary environment. Relative filesystem paths resolve against the selected environment cwd. Granted permissions apply automatically to later shell-like commands in the current turn, or for the rest of the session if the client approves them at session scope.",
    "strict": False,
    "parameters": {
        "type": "object",
        "properties": {
            "environment_id": {
                "type": "string",
                "description": "Environment id from <environment_context>. Omit to use the primary environment.",
            },
            "permissions": {
                "type": "object",
                "description": "Filesystem or network access request.",
                "properties": {
                    "file_system": {
                        "type": "object",
                        "description": "Filesystem access request.",
                        "properties": {
                            "read": {
                                "type": "array",
                                "description": "Absolute paths to grant read access; omit when none are needed.",
                                "items": {"type": "string"},
                            },
                            "write": {
                                "type": "array",
                                "description": "Absolute paths to grant write access; omit when none are needed.",
                                "items": {"type": "string"},
                            },
                        },
                        "additionalProperties": False,
                    },
                    "network": {
                        "type": "object",
                        "description": "Network access request.",
                        "properties": {
                            "enabled": {
                                "type": "boolean",
                                "description": "True requests network access; false or omitted requests none.",
                            }
                        },
                        "additionalProperties": False,
                    },
                },
                "additionalProperties": False,
            },
            "reason": {
                "type": "string",
                "description": "Optional short explanation for why additional permissions are needed.",
            },
        },
        "required": ["permissions"],
        "additionalProperties": False,
    },
}


def _approval_parameters(exec_permission_approvals: bool) -> dict[str, Any]:
    """``create_approval_parameters``: ``require_escalated`` (with a justification and prefix rule) in every mode."""
    params = {k: dict(v) for k, v in _EXEC_COMMAND_ESCALATION.items()}
    if exec_permission_approvals:
        params["sandbox_permissions"] = {
            "type": "string",
            "description": (
                "Per-command sandbox override. Defaults to `use_default`; use `with_additional_permissions` with "
                "`additional_permissions`, or `require_escalated` for unsandboxed execution."
            ),
            "enum": ["use_default", "with_additional_permissions", "require_escalated"],
        }
        params["additional_permissions"] = {
            "type": "object",
            "description": (
                "Sandboxed filesystem or network access for this command; only with "
                '`sandbox_permissions: "with_additional_permissions"`.'
            ),
            "properties": _REQUEST_PERMISSIONS["parameters"]["properties"]["permissions"]["properties"],
            "additionalProperties": False,
        }
    return params


def _exec_command(exec_permission_approvals: bool) -> dict[str, Any]:
    properties = {**_EXEC_COMMAND_BASE, **_approval_parameters(exec_permission_approvals)}
    return {
        "type": "function",
        "name": "exec_command",
        "description": "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
        "strict": False,
        "parameters": {
            "type": "object",
            "properties": dict(sorted(properties.items())),
            "required": ["cmd"],
            "additionalProperties": False,
        },
    }


def _check(sandbox: str, approval: str, version: str, features: Mapping[str, bool] | None) -> dict[str, bool]:
    if version not in VERSIONS:
        raise InputError(f"Codex {version!r} is not modelled; choose one of {', '.join(VERSIONS)}")
    if sandbox not in SANDBOX_MODES:
        raise InputError(f"unknown Codex sandbox mode {sandbox!r}; choose one of {', '.join(SANDBOX_MODES)}")
    if approval in RETIRED_APPROVAL_POLICIES:
        raise CodexRefusal(RETIRED_APPROVAL_POLICIES[approval])
    if approval not in APPROVAL_POLICIES:
        raise InputError(f"unknown Codex approval policy {approval!r}; choose one of {', '.join(APPROVAL_POLICIES)}")
    unknown = sorted(set(features or {}) - set(FEATURES))
    if unknown:
        raise InputError(f"Codex feature(s) not modelled: {', '.join(unknown)}; modelled: {', '.join(FEATURES)}")
    return {**FEATURES, **(features or {})}


def tools_for(
    *,
    sandbox: str,
    approval: str,
    version: str = DEFAULT_VERSION,
    features: Mapping[str, bool] | None = None,
    web_search: str | None = None,
) -> list[dict[str, Any]]:
    """The ``tools`` array ``codex exec`` sends with ``-s sandbox -c approval_policy=approval`` (fresh copies)."""
    on = _check(sandbox, approval, version, features)
    if web_search is not None and web_search not in WEB_SEARCH_MODES:
        raise InputError(f"unknown Codex web_search {web_search!r}; choose one of {', '.join(WEB_SEARCH_MODES)}")
    tools: list[dict[str, Any]] = []
    if on["shell_tool"]:
        tools += [_exec_command(on["exec_permission_approvals"]), _WRITE_STDIN]
    tools.append(_REQUEST_USER_INPUT)
    if on["request_permissions_tool"]:
        tools.append(_REQUEST_PERMISSIONS)
    if on["view_image"]:
        tools.append(_VIEW_IMAGE)
    tools += [_MULTI_AGENT_V1, _GET_GOAL, _CREATE_GOAL, _UPDATE_GOAL]
    if web_search != "disabled":
        live = web_search == "live" or sandbox == "danger-full-access"
        tools.append({"type": "web_search", "external_web_access": live})
    return copy.deepcopy(tools)


def tool_for(
    name: str,
    *,
    sandbox: str,
    approval: str,
    version: str = DEFAULT_VERSION,
    features: Mapping[str, bool] | None = None,
    web_search: str | None = None,
) -> dict[str, Any] | None:
    """One tool of ``tools_for`` by name (``web_search`` by its type), or None where Codex does not send it."""
    tools = tools_for(sandbox=sandbox, approval=approval, version=version, features=features, web_search=web_search)
    return next((t for t in tools if t.get("name", t.get("type")) == name), None)


def escalation_fields(
    *,
    sandbox: str,
    approval: str,
    version: str = DEFAULT_VERSION,
    features: Mapping[str, bool] | None = None,
) -> dict[str, list[str]]:
    """Shell tool name -> the escalation parameters its schema advertises (in schema order), where it has any.

    Non-empty in ``danger-full-access`` as in every other mode: Codex 0.171.0 invites an escalation
    where there is no wider sandbox to escalate to, and refuses it under every policy but ``on-request``."""
    out: dict[str, list[str]] = {}
    for tool in tools_for(sandbox=sandbox, approval=approval, version=version, features=features):
        if tool.get("name") not in SHELL_TOOLS:
            continue
        props = (tool.get("parameters") or {}).get("properties") or {}
        fields = [p for p in props if p in ESCALATION_PARAMETERS]
        if fields:
            out[tool["name"]] = fields
    return out


def sandbox_permission_values(
    *,
    sandbox: str,
    approval: str,
    version: str = DEFAULT_VERSION,
    features: Mapping[str, bool] | None = None,
) -> dict[str, list[str]]:
    """Tool name -> the ``sandbox_permissions`` enum it advertises (``use_default`` first)."""
    out: dict[str, list[str]] = {}
    for tool in tools_for(sandbox=sandbox, approval=approval, version=version, features=features):
        prop = ((tool.get("parameters") or {}).get("properties") or {}).get("sandbox_permissions")
        if isinstance(prop, dict):
            out[tool["name"]] = list(prop.get("enum") or ())
    return out
