"""DSH's session-log format: the record types, versions and field names the session decoder relies on.

Sources: ``deepseek-ai/deepseek-harness`` ``packages/core/session/src/types.ts`` (``SessionEventMap``,
``TurnEndReasonMap``), ``packages/core/session/src/chunk-rows.ts`` (packed rows) and
``packages/llm/llm/src/types.ts`` (``FinishReasonMap``, ``TokenUsage``), V0 as of 0.1.1-rc.2; checked
against the npm build ``@deepseek-ai/dsh-session@0.1.0-rc.8`` (``lib/index.js``: ``SESSION_FORMAT_VERSION``,
``KNOWN_SESSION_EVENT_TYPES``, ``packChunkRuns``/``expandRow``) and ``@deepseek-ai/dsh-llm@0.1.0-rc.8``
(``lib/types/types.d.ts``). V3/V4 (``assistant/attempt``, embedded streams, the tool-role result, the
``forked`` turn end) per ``zsagi1368/deepseek-harness-zDSH`` ``docs/session-format-status.md``.
Checked against logs the published ``dsh --profile headless`` 0.1.0-rc.8 wrote itself (``data/dsh-*``,
``lab/run.py --dsh``): they hold only the types and fields below, plus events the decoder passes through
(``agent/inbox/spliced``, ``session/title``, ``TITLE_REQUEST``).
What each fact means for a reader: ``docs/upstream.md``, section "dsh-session-log".
"""

from __future__ import annotations

__all__ = [
    "ASSISTANT_ATTEMPT",
    "ASSISTANT_CHUNK",
    "ASSISTANT_MESSAGE",
    "FINISH_TERMINALS",
    "HEADER_TYPE",
    "KNOWN_VERSIONS",
    "PACKED_TYPES",
    "PROVIDER_APIS",
    "REQUEST_CONTEXT",
    "REQUEST_HEADER",
    "STEP_END",
    "STEP_START",
    "TITLE_REQUEST",
    "TOOLS_PLACEHOLDER",
    "TOOL_CALL",
    "TOOL_RESULT",
    "TURN_END",
    "TURN_END_TERMINALS",
    "TURN_START",
    "USAGE_FIELDS",
    "USER_MESSAGE",
]

#: The first line's ``type`` (``HeaderLine``, ``packages/session/session-persistence-jsonl/src/format.ts``).
HEADER_TYPE = "session"

#: Header ``version`` values the decoder reads. 0.1.0-rc.8 writes and accepts only 0
#: (``SESSION_FORMAT_VERSION``); V1/V2 were never released as defaults and are read like V0.
KNOWN_VERSIONS = (0, 3, 4)

# Event ``type`` tags the decoder acts on (``SessionEventMap`` keys; all but ``assistant/attempt`` are in
# 0.1.0-rc.8's ``KNOWN_SESSION_EVENT_TYPES``).
TURN_START = "turn/start"
TURN_END = "turn/end"
STEP_START = "step/start"
STEP_END = "step/end"
REQUEST_HEADER = "request/header"
REQUEST_CONTEXT = "request/context"
ASSISTANT_CHUNK = "assistant/chunk"
ASSISTANT_MESSAGE = "assistant/message"
ASSISTANT_ATTEMPT = "assistant/attempt"  # V3: one failed attempt's embedded stream
TOOL_CALL = "tool/call"
TOOL_RESULT = "tool/result"
#: A user message entering the context: the task, and DSH's own runtime-context message after it (real logs).
USER_MESSAGE = "user/message"
#: The session-title model call (``dsh-session-title-first-prompt-llm``): it goes to the same route as the
#: turn's steps, so it is one more request on the wire, but the log records it as this one event (route,
#: system, messages) and its answer as ``session/title``, never as a step (real logs: data/dsh-*).
TITLE_REQUEST = "session/title-llm-request"

#: Packed row type → the ``assistant/chunk`` type each member stands for (``chunk-rows.ts``). A row is
#: ``{type, seq0, time0, data: {turn, step, index, dt, texts | args, id?, name?}}``.
PACKED_TYPES = {
    "tool-call-chunks": "tool-call-delta",
    "text-chunks": "text-delta",
    "reasoning-chunks": "reasoning-delta",
}

#: Snapshot placeholder in the 0.1.1-rc.2 test fixtures' ``request/header.header.tools``.
TOOLS_PLACEHOLDER = "{{tools}}"

#: ``assistant/chunk`` finish ``reason.kind`` (``FinishReasonMap``) → terminal state.
FINISH_TERMINALS = {
    "stop": "completed",
    "tool-calls": "completed",
    "max-tokens": "incomplete",
    "error": "failed",
    "aborted": "cut",
}

#: ``turn/end`` ``reason.kind`` (``TurnEndReasonMap``) → terminal state of a step that has no finish
#: chunk of its own. ``blocked`` (a hook stopped the turn), ``interrupted`` (a crash-orphaned turn
#: closed on reload) and V4 ``forked`` end the step without an answer: cut.
TURN_END_TERMINALS = {
    "completed": "completed",
    "max-tokens": "incomplete",
    "error": "failed",
    "aborted": "cut",
    "interrupted": "cut",
    "blocked": "cut",
    "forked": "cut",
}

#: pi-ai ``api`` of an llm-pi-ai route (``packages/llm/llm-pi-ai/src/catalog.ts``) → the wire API it
#: speaks (``toolkit.wire.records.WIRE_APIS``); every other api is ``other``.
PROVIDER_APIS = {
    "openai-completions": "chat",
    "openai-responses": "responses",
    "azure-openai-responses": "responses",
    "openai-codex-responses": "responses",
    "anthropic-messages": "messages",
}

#: ``TokenUsage`` field → the exchange column it fills (counts are disjoint: ``inputTokens`` is uncached).
USAGE_FIELDS = {
    "inputTokens": "input_tokens",
    "outputTokens": "output_tokens",
    "cacheReadTokens": "cache_read_tokens",
    "reasoningTokens": "reasoning_tokens",
}
