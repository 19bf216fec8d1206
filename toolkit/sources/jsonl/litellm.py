"""LiteLLM ``LiteLLM_SpendLogs`` rows (``BerriAI/litellm`` ``schema.prisma``), e.g. from ``/spend/logs`` or SQL.

Bodies are there only with ``general_settings: store_prompts_in_spend_logs: true``. The fields read:
``request_id, call_type, startTime, endTime, request_duration_ms, model, custom_llm_provider,
api_base, status, messages, response, proxy_server_request, prompt_tokens, completion_tokens,
metadata`` (``metadata.error_information``: ``error_code, error_class, error_message``). JSON
columns may arrive as JSON text; they are parsed.

These bodies are **LiteLLM-normalised, not wire bytes** (``body_fidelity = "normalised"``):
``proxy_server_request`` is the request body the proxy received
(``litellm/proxy/spend_tracking/spend_tracking_utils.py``
``_get_proxy_server_request_for_spend_logs_payload``) and ``response`` is LiteLLM's response object
(a stream is stored assembled, not as SSE). ``method`` is taken as POST, ``url`` is inferred as
``api_base`` + the endpoint ``call_type`` implies, and ``status`` 200 is inferred from
``status: "success"`` (a failure row takes ``metadata.error_information``). ``{}`` bodies mean
"not stored" (prompt storage off, or LiteLLM v1.77.2, litellm#15641) and become a
``body-missing`` Issue; strings cut at ``MAX_STRING_LENGTH_PROMPT_IN_DB`` (marked
``litellm_truncated``) become a ``body-truncated`` Issue.

Checked against real rows built by litellm 1.110.2's own ``get_logging_payload`` (the lab's
``data/litellm-*/litellm-spend.jsonl``): ``proxy_server_request`` is the request body itself as JSON text
(no ``url``/``method``/``headers`` wrapper; the wrapper is still read), ``messages`` is ``"{}"`` for
``aresponses`` calls even with prompt storage on, ``metadata``/``request_tags``/``response`` are JSON
text, times are ISO 8601 with ``+00:00``. When LiteLLM served a Responses call from a Chat Completions
backend, the row pairs the client's Responses request with the backend's ``chat.completion``: that
response is not what the client got, so it is left out with a ``body-missing`` Issue that says so.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from toolkit.sources.jsonl.entry import Entry
from toolkit.sources.jsonl.fields import compact, count, headers, json_value, not_stored, str_or_none, timing
from toolkit.wire.json_text import utf8_size
from toolkit.wire.records import BODY_MISSING, BODY_TRUNCATED, GATEWAY_FAILURE, Issue

__all__ = ["ENDPOINTS", "KEYS", "TRUNCATED", "entry", "matches"]

#: LiteLLM ``call_type`` → the OpenAI-style endpoint it implies (litellm ``CallTypes``).
ENDPOINTS = {
    "completion": "/chat/completions",
    "acompletion": "/chat/completions",
    "responses": "/responses",
    "aresponses": "/responses",
    "text_completion": "/completions",
    "atext_completion": "/completions",
    "embedding": "/embeddings",
    "aembedding": "/embeddings",
    "anthropic_messages": "/messages",
}
#: The marker LiteLLM leaves in a cut string (``litellm/constants.py`` ``LITELLM_TRUNCATED_PAYLOAD_FIELD``).
TRUNCATED = "litellm_truncated"
#: A line with ``request_id`` and any of these is a spend-log row.
KEYS = ("startTime", "call_type", "proxy_server_request", "api_base", "spend")


def matches(obj: dict[str, Any]) -> bool:
    return "request_id" in obj and any(k in obj for k in KEYS)


def entry(obj: dict[str, Any]) -> Entry:
    e = Entry(method="POST", fidelity="normalised")
    e.log_id = str_or_none(obj.get("request_id"), e.issues, "request_id")
    timing(e, obj, "startTime", "endTime", "request_duration_ms")
    call_type = str_or_none(obj.get("call_type"), e.issues, "call_type")
    e.url = _url(str_or_none(obj.get("api_base"), e.issues, "api_base"), call_type)
    e.provider = str_or_none(obj.get("custom_llm_provider"), e.issues, "custom_llm_provider")
    e.model = str_or_none(obj.get("model"), e.issues, "model")
    e.input_tokens = count(obj.get("prompt_tokens"))
    e.output_tokens = count(obj.get("completion_tokens"))
    status = str_or_none(obj.get("status"), e.issues, "status")
    metadata = json_value(obj.get("metadata"))
    if status == "success":
        e.status = 200
    elif status == "failure":
        info = metadata.get("error_information") if isinstance(metadata, dict) else None
        if isinstance(info, dict):
            code = str_or_none(info.get("error_code"), e.issues, "error_code")
            e.status = int(code) if code and code.isdigit() else None
            e.error_code = code
            e.error_type = str_or_none(info.get("error_class"), e.issues, "error_class")
            e.error_message = str_or_none(info.get("error_message"), e.issues, "error_message")
        e.issues.append(Issue(GATEWAY_FAILURE, "LiteLLM logged this call as a failure"))

    request = json_value(obj.get("proxy_server_request"))
    if isinstance(request, dict) and "body" in request and ({"url", "method", "headers"} & request.keys()):
        e.request_headers = headers(request.get("headers"), "request", e.issues)
        request = json_value(request.get("body"))
    response = json_value(obj.get("response"))
    messages = json_value(obj.get("messages"))

    if not_stored(request) and not_stored(response):
        e.issues.append(
            Issue(
                BODY_MISSING,
                "LiteLLM stored {} for the request and response: store_prompts_in_spend_logs is off, "
                "or LiteLLM v1.77.2 dropped them (litellm#15641)",
            )
        )
    elif not_stored(request):
        what = "request body (proxy_server_request is empty)"
        if not not_stored(messages):
            what += "; only its normalised messages survive, so tools and parameters are unknown"
        e.issues.append(Issue(BODY_MISSING, f"LiteLLM stored no {what}"))
    elif not_stored(response):
        e.issues.append(Issue(BODY_MISSING, "LiteLLM stored no response body"))
    if not not_stored(request):
        request_text = request if isinstance(request, str) else compact(request)
        e.request_body, e.request_bytes = request_text, utf8_size(request_text)
    if _bridged(call_type, response):
        e.issues.append(
            Issue(
                BODY_MISSING,
                "LiteLLM bridged this Responses call to Chat Completions: the row's response is the backend's "
                "chat.completion, not the Responses object the client got, so it is left out",
            )
        )
        response = None
    if not not_stored(response):
        response_text = response if isinstance(response, str) else compact(response)
        e.response_body, e.response_bytes = response_text, utf8_size(response_text)
    for direction, body in (("request", e.request_body), ("response", e.response_body)):
        if isinstance(body, str) and TRUNCATED in body:
            e.issues.append(
                Issue(
                    BODY_TRUNCATED,
                    f"LiteLLM truncated strings in the {direction} (MAX_STRING_LENGTH_PROMPT_IN_DB)",
                )
            )
    return e


def _bridged(call_type: str | None, response: Any) -> bool:
    """A Responses call whose logged response is a Chat Completions object (litellm's chat bridge)."""
    return (
        ENDPOINTS.get(call_type or "") == "/responses"
        and isinstance(response, dict)
        and response.get("object") == "chat.completion"
    )


def _url(api_base: str | None, call_type: str | None) -> str | None:
    if not api_base:
        return None
    endpoint = ENDPOINTS.get(call_type or "")
    base = api_base.rstrip("/")
    if endpoint and not urlsplit(base).path.endswith(endpoint):
        return base + endpoint
    return base
