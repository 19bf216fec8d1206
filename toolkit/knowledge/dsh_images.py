"""DSH's image-input gate (dsh.md §7): who refuses an image for a model that does not declare it.

``resolveModelInfo`` refuses when the resolved ``inputModalities`` is undefined or lacks ``image``.
Sources: ``deepseek-ai/deepseek-harness`` 0.1.1-rc.2, the paths named per message.
"""

from __future__ import annotations

MARKER = "does not declare image input"  # common to the read_image, MCP and ACP texts


def adapter_refusal(model: str) -> str:
    """``packages/llm/llm-pi-ai/src/adapter.ts`` (UNSUPPORTED_CONTENT): the last gate before pi-ai."""
    return f'pi-ai model "{model}" does not support image input'


def read_image_refusal(path: str, model: str) -> str:
    """``packages/fs/tool-fs/src/read-image.ts`` (a plain Error; the tool result is ``Error: <this>``)."""
    return (
        f'cannot read "{path}" as an image: model "{model}" does not declare image input; '
        "switch to an image-capable model to read images"
    )


def acp_refusal(model: str) -> str:
    """``packages/acp/acp/src/content.ts`` (AcpContentError, invalid)."""
    return f'model "{model}" does not declare image input'


def web_refusal(model: str) -> str:
    """``packages/host/apiproxy/src/api-proxy.ts`` (MODEL_DOES_NOT_SUPPORT_IMAGES)."""
    return f'Model "{model}" does not support image input.'


# pi-ai's own downgrade when a model's input lacks "image" (transform-messages.ts, pi-ai.md §7)
PLACEHOLDER_USER = "(image omitted: model does not support images)"
PLACEHOLDER_TOOL = "(tool image omitted: model does not support images)"
