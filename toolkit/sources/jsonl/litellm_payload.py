"""LiteLLM's ``StandardLoggingPayload`` (``kwargs["standard_logging_object"]``), one per line.

What LiteLLM hands every logging integration (custom callbacks, S3/GCS buckets, Datadog …) after a
call; ``lab/litellm-proxy/log_callback.py`` writes it as JSONL. Field names from litellm 1.110.2
``litellm/types/utils.py`` ``StandardLoggingPayload`` and checked against the lab's real records
(``data/litellm-*/litellm.jsonl``). The fields read: ``id, call_type, status, startTime, endTime,
model, model_group, custom_llm_provider, api_base, messages, model_parameters, response,
prompt_tokens, completion_tokens, error_information`` (``error_code, error_class,
error_message``).

The request body is **rebuilt, not stored** (``body_fidelity = "normalised"``): LiteLLM keeps the
conversation (``messages``) apart from the other parameters it sent upstream (``model_parameters``,
already in the upstream protocol's form: Chat ``function`` tool wrappers when it bridged a Responses
call to Chat Completions), and the model as ``<provider>/<name>``; the body is ``{model: <name>,
input or messages: messages, **model_parameters}``. Which upstream endpoint was called is read from
the response object LiteLLM logged (``object: "response"`` → ``/responses``, ``"chat.completion"`` →
``/chat/completions``), else from ``call_type``; ``url`` is ``api_base`` + that endpoint. A streamed
response is logged assembled, not as SSE. No headers are logged; ``method`` is taken as POST and
``status`` 200 from ``status: "success"``.

What the log loses (measured on the lab's records): every base64 data URI is cut to
``data:<mime>;base64,[base64_data truncated: <size>]`` (litellm ``litellm_core_utils/logging_utils.py:64``),
a ``body-truncated`` Issue here; and for a call bridged to Chat Completions ``messages`` is still the
client's Responses ``input`` (``input_text`` parts, ``function_call_output`` items) beside Chat-form
``model_parameters``, so the conversation is not what the backend got (a ``body-truncated`` Issue too;
tool outputs in it are not read as Chat messages).
"""

from __future__ import annotations

from typing import Any

from toolkit.sources.jsonl.entry import Entry
from toolkit.sources.jsonl.fields import compact, count, json_value, not_stored, str_or_none, timing
from toolkit.sources.jsonl.litellm import ENDPOINTS, _url
from toolkit.wire.json_text import utf8_size
from toolkit.wire.records import BODY_MISSING, BODY_TRUNCATED, GATEWAY_FAILURE, Issue

__all__ = ["BASE64_CUT", "KEYS", "OBJECT_ENDPOINTS", "entry", "matches"]

#: What LiteLLM writes in place of base64 data in its logging payload.
BASE64_CUT = "[base64_data truncated: "

#: A line with ``call_type`` and all of these is a StandardLoggingPayload (a SpendLogs row has ``request_id``).
KEYS = ("model_parameters", "hidden_params", "status_fields")
#: The response object's ``object`` → the endpoint LiteLLM called upstream.
OBJECT_ENDPOINTS = {"response": "/responses", "chat.completion": "/chat/completions", "text_completion": "/completions"}


def matches(obj: dict[str, Any]) -> bool:
    return "call_type" in obj and "request_id" not in obj and all(k in obj for k in KEYS)


def entry(obj: dict[str, Any]) -> Entry:
    e = Entry(method="POST", fidelity="normalised")
    e.log_id = str_or_none(obj.get("id"), e.issues, "id")
    timing(e, obj, "startTime", "endTime", "request_duration_ms")
    e.provider = str_or_none(obj.get("custom_llm_provider"), e.issues, "custom_llm_provider")
    e.model = str_or_none(obj.get("model"), e.issues, "model")
    e.input_tokens = count(obj.get("prompt_tokens"))
    e.output_tokens = count(obj.get("completion_tokens"))
    response = json_value(obj.get("response"))
    endpoint = _endpoint(response, str_or_none(obj.get("call_type"), e.issues, "call_type"))
    e.url = _url(str_or_none(obj.get("api_base"), e.issues, "api_base"), None)
    if e.url and endpoint and not e.url.endswith(endpoint):
        e.url += endpoint
    status = str_or_none(obj.get("status"), e.issues, "status")
    if status == "success":
        e.status = 200
    elif status == "failure":
        info = json_value(obj.get("error_information"))
        if isinstance(info, dict):
            code = str_or_none(info.get("error_code"), e.issues, "error_code")
            e.status = int(code) if code and code.isdigit() else None
            e.error_code = code or None
            e.error_type = str_or_none(info.get("error_class"), e.issues, "error_class") or None
            e.error_message = str_or_none(info.get("error_message"), e.issues, "error_message") or str_or_none(
                obj.get("error_str"), e.issues, "error_str"
            )
        e.issues.append(Issue(GATEWAY_FAILURE, "LiteLLM logged this call as a failure"))

    request = _request(obj, endpoint, e.provider)
    if request is None:
        e.issues.append(Issue(BODY_MISSING, "LiteLLM logged no messages or model_parameters for the request"))
    else:
        text = compact(request)
        e.request_body, e.request_bytes = text, utf8_size(text)
        if BASE64_CUT in text:
            e.issues.append(Issue(BODY_TRUNCATED, "LiteLLM cut the base64 data in the logged request"))
        if endpoint == "/chat/completions" and ENDPOINTS.get(str(obj.get("call_type"))) == "/responses":
            e.issues.append(
                Issue(
                    BODY_TRUNCATED,
                    "LiteLLM bridged this Responses call to Chat Completions and logged the client's Responses "
                    "input as messages: the conversation is not what the backend got",
                )
            )
    if not_stored(response):
        e.issues.append(Issue(BODY_MISSING, "LiteLLM logged no response object"))
    else:
        text = response if isinstance(response, str) else compact(response)
        e.response_body, e.response_bytes = text, utf8_size(text)
    return e


def _endpoint(response: Any, call_type: str | None) -> str | None:
    if isinstance(response, dict) and isinstance(response.get("object"), str):
        found = OBJECT_ENDPOINTS.get(response["object"])
        if found:
            return found
    return ENDPOINTS.get(call_type or "")


def _request(obj: dict[str, Any], endpoint: str | None, provider: str | None) -> dict[str, Any] | None:
    """The upstream request body as LiteLLM describes it: its model name, the conversation, the parameters."""
    messages = json_value(obj.get("messages"))
    params = json_value(obj.get("model_parameters"))
    if not_stored(messages) and not_stored(params):
        return None
    model = str_or_none(obj.get("model"))
    if model and provider and model.startswith(f"{provider}/"):
        model = model[len(provider) + 1 :]
    body: dict[str, Any] = {"model": model}
    if not not_stored(messages):
        body["input" if endpoint == "/responses" else "messages"] = messages
    if isinstance(params, dict):
        body.update(params)
    return body
