"""Every text DSH shows, by entry point, when an image goes to a model that does not declare image input.

A user searches a report for the message they saw, and DSH words the same cause differently at each
entry point, so all of them are written here, character for character, with where each was read.
Read in the npm packages ``@deepseek-ai/*@0.1.0-rc.8`` (the tree ``npm install @deepseek-ai/dsh@0.1.0-rc.8``
installs); each source is ``(package@version, path:line)`` in ``SOURCES``. The read_image, MCP, web-prompt,
model-switch and pi-ai-adapter texts and gates were also run (``lab/dsh-fixtures/capability.mjs``,
``tests/fixtures/dsh/capability.json``); the toasts, llm-deepseek and headless texts are read from source.

Not a DSH text: ``model "X" does not declare image input`` as an ACP prompt refusal. No published
package has it (``dsh-acp@0.0.1-rc.1``, the only release, refuses every image prompt with
``ACP_PROMPT_REFUSAL`` whatever the model); the substring is the MCP client's reason (``mcp_reason``).
"""

from __future__ import annotations

import re

from toolkit.knowledge.dsh_runtime import tool_result_text

__all__ = [
    "ACP_PROMPT_REFUSAL",
    "DSH",
    "ENTRY_POINTS",
    "GATES",
    "MARKER",
    "MCP_NO_ATTACHMENTS",
    "MCP_ROUTE_UNRESOLVED",
    "MEDIA_TYPE_UNKNOWN",
    "PATH_UNKNOWN",
    "PLACEHOLDER_TOOL",
    "PLACEHOLDER_USER",
    "PRIMARY",
    "SOURCES",
    "WEB_TOAST",
    "WEB_TOAST_ZH",
    "adapter_refusal",
    "deepseek_refusal",
    "gate_refuses",
    "headless_stderr",
    "mcp_diagnostic",
    "mcp_reason",
    "mcp_refusal",
    "model_switch_refusal",
    "model_switch_toast",
    "parse_refusal",
    "primary",
    "read_image_refusal",
    "read_image_unresolved",
    "refusals",
    "web_refusal",
]

DSH = "0.1.0-rc.8"
MARKER = "does not declare image input"  # common to the read_image and MCP texts
PATH_UNKNOWN = "<path>"  # read_image's file_path argument, when the evidence does not give it
MEDIA_TYPE_UNKNOWN = "<media type>"  # the MCP block's mimeType, when the evidence does not give it

ENTRY_POINTS = (
    "read_image",  # tool result the model gets (``Error: `` prefixed); the web UI shows it in the tool row
    "mcp",  # an MCP tool's image content, replaced by text for the model; not an error result
    "web",  # dsh-host-apiproxy's RPC error for a web prompt with an image; the browser does not display it
    "web toast",  # what the browser shows instead (English strings)
    "web toast (zh)",  # the same, Chinese strings
    "web model switch",  # toast when switching a session that already holds images to such a model
    "pi-ai adapter",  # llm-pi-ai's backstop before the LLM call (LlmError UNSUPPORTED_CONTENT)
    "llm-deepseek adapter",  # llm-deepseek's backstop, for routes that adapter serves
    "headless stderr (pi-ai)",  # ``dsh --profile headless`` when the pi-ai backstop ends the turn (exit 1)
    "headless stderr (llm-deepseek)",  # the same, from the llm-deepseek backstop
)

SOURCES: dict[str, tuple[str, str]] = {
    "read_image": (f"@deepseek-ai/dsh-tool-fs@{DSH}", "lib/index.js:896 (assertImageCapableRoute)"),
    "mcp": (f"@deepseek-ai/dsh-mcp-client@{DSH}", "lib/index.js:330 (reason), lib/index.js:336 (imageDiagnostic)"),
    "web": (f"@deepseek-ai/dsh-host-apiproxy@{DSH}", "lib/index.js:2766 (attachment-error)"),
    "web toast": (
        f"@deepseek-ai/dsh-client-ui-conversation@{DSH}",
        "lib/client.js:2608 (attachmentErrorText), lib/client.js:6239 (image.modelUnsupported)",
    ),
    "web toast (zh)": (
        f"@deepseek-ai/dsh-client-ui-conversation@{DSH}",
        "lib/client.js:2608 (attachmentErrorText), lib/client.js:6066 (image.modelUnsupported)",
    ),
    "web model switch": (
        f"@deepseek-ai/dsh-host-apiproxy@{DSH} lib/index.js:2609 (model-unavailable); "
        f"@deepseek-ai/dsh-client-ui-model-selection@{DSH}",
        "lib/client.js:60 (code: message), lib/client.js:392, lib/client.js:679 (error.action)",
    ),
    "pi-ai adapter": (f"@deepseek-ai/dsh-llm-pi-ai@{DSH}", "lib/index.js:862"),
    "llm-deepseek adapter": (f"@deepseek-ai/dsh-llm-deepseek@{DSH}", "lib/index.js:680"),
    "headless stderr (pi-ai)": (f"@deepseek-ai/dsh-headless@{DSH}", "lib/index.js:97 (run)"),
    "headless stderr (llm-deepseek)": (f"@deepseek-ai/dsh-headless@{DSH}", "lib/index.js:97 (run)"),
}

#: The entry point whose text a DSH user most likely sees for this cause: the shipped CLI has two
#: profiles, and headless takes text only, so images reach a text-only model from the user only in the
#: browser (``dsh web``), where this toast is shown and the server's text is not; the read_image and MCP
#: texts go to the model, and a user sees them only if the model repeats them.
PRIMARY = "web toast"

WEB_TOAST = "The current model does not support images; switch to a model that does"
WEB_TOAST_ZH = "当前模型不支持图片，请切换支持图片的模型"


def read_image_refusal(path: str, model: str) -> str:
    """tool-fs throws a plain Error; the tool runtime hands the model ``Error: <this>`` (``read_image`` entry)."""
    return (
        f'cannot read "{path}" as an image: model "{model}" does not declare image input; '
        "switch to an image-capable model to read images"
    )


def read_image_unresolved(path: str) -> str:
    """read_image when no provider, model or ``llm`` service names the route (also ``Error: `` prefixed)."""
    return f'cannot read "{path}" as an image: the current model route could not be resolved'


def mcp_reason(model: str) -> str:
    return f'model "{model}" does not declare image input'


MCP_ROUTE_UNRESOLVED = "the current model route could not be resolved"  # no provider, model or llm service
MCP_NO_ATTACHMENTS = "no attachment store is mounted"  # checked before the route


def mcp_diagnostic(media_type: str, reason: str) -> str:
    """The text an MCP image block becomes when it is not admitted, for any ``reason``."""
    return f"[image unavailable: {media_type}; {reason}; raw image data remains available to programmatic callers]"


def mcp_refusal(model: str, media_type: str) -> str:
    """Each image block of an MCP result becomes this text (no ``Error: `` prefix: the result is no error)."""
    return mcp_diagnostic(media_type, mcp_reason(model))


def web_refusal(model: str) -> str:
    """The RPC error's message (code ``attachment-error``, reason ``MODEL_DOES_NOT_SUPPORT_IMAGES``)."""
    return f'Model "{model}" does not support image input.'


def model_switch_refusal(model: str) -> str:
    """dsh-host-apiproxy's ``model-unavailable`` message."""
    return (
        f'Model "{model}" does not accept image input, but this session already contains images; '
        "select an image-capable model."
    )


def model_switch_toast(model: str) -> str:
    """What the model picker shows: ``error.action`` around ``<code>: <message>``."""
    return f"Model operation failed: model-unavailable: {model_switch_refusal(model)}"


def adapter_refusal(model: str) -> str:
    """llm-pi-ai's LlmError ``UNSUPPORTED_CONTENT`` (``model`` is pi-ai's ``model.id``)."""
    return f'pi-ai model "{model}" does not support image input'


def deepseek_refusal(model: str) -> str:
    """llm-deepseek's LlmError ``UNSUPPORTED_CONTENT``."""
    return f'DeepSeek model "{model}" does not accept image input.'


def headless_stderr(code: str, message: str) -> str:
    """A turn that ends in an error: headless writes this line to stderr and exits 1."""
    return f"dsh: {code}: {message}"


def refusals(model: str, path: str | None = None, *, media_type: str | None = None) -> tuple[tuple[str, str], ...]:
    """``(entry point, exact text)`` for every DSH text for this cause, in ``ENTRY_POINTS`` order.

    ``path`` (read_image's ``file_path``) and ``media_type`` (the MCP block's) are written as
    ``PATH_UNKNOWN`` / ``MEDIA_TYPE_UNKNOWN`` when not given; every other character is DSH's.
    """
    texts = (
        tool_result_text(read_image_refusal(PATH_UNKNOWN if path is None else path, model)),
        mcp_refusal(model, MEDIA_TYPE_UNKNOWN if media_type is None else media_type),
        web_refusal(model),
        WEB_TOAST,
        WEB_TOAST_ZH,
        model_switch_toast(model),
        adapter_refusal(model),
        deepseek_refusal(model),
        headless_stderr("UNSUPPORTED_CONTENT", adapter_refusal(model)),
        headless_stderr("UNSUPPORTED_CONTENT", deepseek_refusal(model)),
    )
    return tuple(zip(ENTRY_POINTS, texts, strict=True))


#: How each gate judges the input modalities the llm service reports for the routed model: a ``strict`` gate
#: admits an image only when the list names "image" (no list at all refuses too: read_image's
#: ``assertImageCapableRoute``, the MCP client's ``resolveImageAdmission``); a ``permissive`` gate refuses
#: only a list without "image" and lets an adapter that reports none through (dsh-host-apiproxy's prompt and
#: model-switch checks, ``inputModalities !== undefined && ...``). The pi-ai adapter reads pi-ai's
#: ``model.input``, which llm-pi-ai always fills (``defaultInput``), so it never sees "no list".
GATES = {
    "read_image": "strict",
    "mcp": "strict",
    "web": "permissive",
    "web model switch": "permissive",
    "pi-ai adapter": "strict",
}


def gate_refuses(entry: str, input_modalities: tuple[str, ...] | None) -> bool:
    """Whether the gate at ``entry`` (a ``GATES`` key) refuses an image for a model reporting these modalities."""
    if input_modalities is None:
        return GATES[entry] == "strict"
    return "image" not in input_modalities


def primary(messages: tuple[tuple[str, str], ...]) -> str:
    """The ``PRIMARY`` entry's text from ``refusals(...)``."""
    return dict(messages)[PRIMARY]


_READ_IMAGE = re.compile(r'cannot read "(?P<path>.*)" as an image: model "(?P<model>.*)" does not declare image input')
_MCP = re.compile(r'\[image unavailable: (?P<media_type>[^;]*); model "(?P<model>[^"]*)" does not declare image input')


def parse_refusal(text: str) -> dict[str, str] | None:
    """The path, model (and MCP media type) a recorded refusal names, so ``refusals`` can be filled in."""
    hit = _READ_IMAGE.search(text) or _MCP.search(text)
    return hit.groupdict() if hit else None


#: dsh-acp@0.0.1-rc.1 lib/index.js:430 (JSON-RPC -32602, ``RequestError.invalidParams`` of
#: @agentclientprotocol/sdk@0.25.1): every image prompt, whatever the model; not in the dsh@0.1.0-rc.8 tree.
ACP_PROMPT_REFUSAL = "Invalid params: only text and resource_link prompt content is supported"

# pi-ai's own downgrade when a model's input lacks "image" (``@earendil-works/pi-ai@0.82.1``, the
# version dsh@0.1.0-rc.8 installs, dist/api/transform-messages.js:1-2)
PLACEHOLDER_USER = "(image omitted: model does not support images)"
PLACEHOLDER_TOOL = "(tool image omitted: model does not support images)"
