"""The lab's scenarios: what the client sends, how the gateway behaves, what DSH answered.

One place for every fact a scenario is built to show, so the orchestrator (``lab/run.py``) and the
tests read the same definitions. Facts about DSH (``deepseek-ai/deepseek-harness``
@ dsh-v0.1.1-rc.2) are explained in ``docs/upstream.md``: the bash and read_image schemas
(#dsh-tool-schemas), the exact error texts (#dsh-runtime-validation, #dsh-images), the permission
presets (#dsh-namespaces).
"""

from __future__ import annotations

import struct
import zlib
from base64 import b64encode
from dataclasses import dataclass, field

from toolkit.knowledge.dsh_tools import BASH_DESCRIPTION, BASH_PARAMETERS

PROXY_PORT = 18787  # mitmdump listens here; the client talks to it
GATEWAY_PORT = 18788  # the stub gateway, upstream of the recorder
# Two-hop recordings: client → FRONT recorder → rewriter (lab/rewriter.py) → BACK recorder → gateway.
FRONT_PORT = 18789  # mitmdump in front of the rewriter; the client talks to it
REWRITER_PORT = 18790  # the schema-rewriting proxy
BACK_PORT = 18791  # mitmdump between the rewriter and the gateway
# LiteLLM as the gateway: client → FRONT recorder → LiteLLM proxy → BACK recorder → gateway. The proxy's
# routes (lab/litellm-proxy/config.yaml) name BACK_PORT and the gateway behaviour in their api_base.
LITELLM_PORT = 18792
LITELLM_CONFIG = "lab/litellm-proxy/config.yaml"
FAKE_KEY = "sk-lab-FAKE-0000000000000000000000000000"  # never a real key; redaction must remove it

# DSH 0.1.1-rc.2's bash tool with a confining executor: the toolkit's copy (toolkit/knowledge/dsh_tools.py).
READ_IMAGE = {
    "name": "read_image",
    "description": "Read an image file from the workspace and attach it for the model to see.",
    "parameters": {
        "type": "object",
        "properties": {"file_path": {"type": "string", "description": "Path of the image file to read."}},
        "required": ["file_path"],
    },
}
TOOLS = [{"name": "bash", "description": BASH_DESCRIPTION, "parameters": BASH_PARAMETERS}, READ_IMAGE]

SYSTEM_PROMPT = (
    "You are DeepSeek Harness (DSH), a coding agent working in the user's workspace. "
    "Current DSH file policy: danger-full-access."
)
USER_TEXT = "The checkout test fails and I saved a screenshot of it as screenshot.png. List the workspace files first."


def _png(width: int = 8, height: int = 8) -> bytes:
    """A small real PNG (red/white stripes), made here so the lab needs no binary files."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + (b"\xff\x00\x00" if y % 2 else b"\xff\xff\xff") * width for y in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


SCREENSHOT = _png()
SCREENSHOT_PART = {"type": "image", "data": b64encode(SCREENSHOT).decode(), "mimeType": "image/png"}

# DSH's exact error texts (docs/upstream.md#dsh-runtime-validation stages 3c and 5, #dsh-images read_image), as tool results: "Error: <message>".
EMPTY_JUSTIFICATION = "Error: invalid justification: expected a non-empty sentence"
SAME_MODE = (
    'Error: sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current '
    '"danger-full-access" mode'
)


# docs/upstream.md#dsh-runtime-validation stage 5 for a narrower target: what DSH answers when a converter has made every bash property
# required, so the model fills `sandbox_permissions` with the first enum value and `justification` with a
# placeholder sentence (lab/gateway.py build_arguments: required properties get a value of their type).
NARROWER_MODE = (
    'Error: sandbox escalation to "workspace-write" is not strictly wider than this call\'s current '
    '"danger-full-access" mode'
)


def no_image_input(model: str, path: str = "screenshot.png") -> str:
    return (
        f'Error: cannot read "{path}" as an image: model "{model}" does not declare image input; '
        "switch to an image-capable model to read images"
    )


LS_OUTPUT = (
    "total 24\ndrwxr-xr-x 4 dev dev 4096 Nov 30 09:00 .\n-rw-r--r-- 1 dev dev  812 Nov 30 09:00 package.json\n"
    "-rw-r--r-- 1 dev dev 3301 Nov 30 09:00 screenshot.png\ndrwxr-xr-x 2 dev dev 4096 Nov 30 09:00 src\n"
    "drwxr-xr-x 2 dev dev 4096 Nov 30 09:00 tests"
)


@dataclass
class Run:
    """One client conversation: pi-ai version, api, route and model as DSH would configure them."""

    name: str
    api: str = "openai-responses"
    pi_ai: str = "1.6.0"
    behaviour: str = "absent-is-strict"  # "": the base URL has no behaviour segment (a real gateway's routes)
    model: str = "gw-coder"
    input: list[str] | None = None  # None: the entry declares no `input` (DSH resolves [text])
    compat: dict | None = None
    tool_results: list[dict] = field(default_factory=list)
    max_requests: int = 5
    text: str = USER_TEXT
    image: bool = True  # attach the screenshot to the user message

    def client_spec(self, port: int = PROXY_PORT) -> dict:
        base = f"http://127.0.0.1:{port}" + (f"/{self.behaviour}" if self.behaviour else "")
        model = {"id": self.model, "name": self.model, "contextWindow": 262144, "maxTokens": 32768, "reasoning": False}
        if self.input is not None:
            model["input"] = self.input
        if self.compat is not None:
            model["compat"] = self.compat
        return {
            "name": self.name,
            "piAi": self.pi_ai,
            "api": self.api,
            "provider": "gateway",
            "baseUrl": base if self.api == "openai-codex-responses" else f"{base}/v1",
            "model": model,
            "apiKey": FAKE_KEY,
            "systemPrompt": SYSTEM_PROMPT,
            "tools": TOOLS,
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": self.text}] + ([SCREENSHOT_PART] if self.image else []),
                }
            ],
            "toolResults": self.tool_results,
            "maxRequests": self.max_requests,
        }


@dataclass
class Scenario:
    name: str
    title: str
    runs: list[Run]
    settings: str | None = None  # data/configs/<settings>.yaml
    rewriter: str | None = None  # lab/rewriter.py mode: a two-hop recording (front/back captures)
    litellm: bool = False  # a two-hop recording with the LiteLLM proxy (lab/litellm-proxy/) in the middle


def _result(text: str, is_error: bool) -> dict:
    return {"text": text, "isError": is_error}


SCENARIOS = [
    Scenario(
        "before-fix",
        "Route without compat, model without input, session in danger-full-access",
        [
            Run(
                "before-fix",
                tool_results=[
                    _result(EMPTY_JUSTIFICATION, True),
                    _result(SAME_MODE, True),
                    _result(no_image_input("gw-coder"), True),
                ],
            )
        ],
        settings="settings.before",
    ),
    Scenario(
        "after-fix",
        "compat.supportsStrictMode: true and input: [text, image]",
        [
            Run(
                "after-fix",
                input=["text", "image"],
                compat={"supportsStrictMode": True},
                tool_results=[_result(LS_OUTPUT, False)],
            )
        ],
        settings="settings.after",
    ),
    Scenario(
        "other-apis",
        "The same tools through openai-codex-responses and openai-completions, and pi-ai 0.73.1",
        [
            Run(
                "codex", api="openai-codex-responses", behaviour="passthrough", tool_results=[_result(LS_OUTPUT, False)]
            ),
            Run(
                "completions",
                api="openai-completions",
                behaviour="passthrough",
                tool_results=[_result(LS_OUTPUT, False)],
            ),
            Run(
                "completions-compat",
                api="openai-completions",
                behaviour="passthrough",
                compat={"supportsStrictMode": True},
                tool_results=[_result(LS_OUTPUT, False)],
            ),
            Run("responses-0.73.1", pi_ai="0.73.1", tool_results=[_result(LS_OUTPUT, False)]),
        ],
    ),
    Scenario(
        "image-refused",
        "Image declared by the model entry but refused by the gateway",
        [Run("image-refused", behaviour="no-images", input=["text", "image"], compat={"supportsStrictMode": True})],
    ),
    # Two hops around a converter: the gateway is `passthrough`, so whatever strictness the model sees was
    # put there by the rewriter. The session is in danger-full-access, as in before-fix; the tool results
    # are DSH's answers (docs/upstream.md#dsh-runtime-validation, #dsh-images) to the calls the model makes.
    Scenario(
        "two-hop-strict",
        "Before-fix client through a strict-converter rewriter to a passthrough gateway",
        # strict-converter also lists every property in `required`: the model fills all of them as
        # required ones (`sandbox_permissions: "workspace-write"`, `justification: "example"`)
        [
            Run(
                "two-hop-strict",
                behaviour="passthrough",
                tool_results=[
                    _result(NARROWER_MODE, True),
                    _result(no_image_input("gw-coder"), True),
                ],
            )
        ],
        rewriter="strict-converter",
    ),
    Scenario(
        "two-hop-chat",
        "After-fix client through a to-chat rewriter to a passthrough gateway's Chat Completions",
        # to-chat sets `strict: true` over the client's `strict: false` but keeps `required`: the model fills
        # the optional fields the Codex way, as in before-fix; the screenshot reaches it as an image_url part
        [
            Run(
                "two-hop-chat",
                behaviour="passthrough",
                input=["text", "image"],
                compat={"supportsStrictMode": True},
                tool_results=[_result(EMPTY_JUSTIFICATION, True), _result(SAME_MODE, True)],
            )
        ],
        rewriter="to-chat",
    ),
]
# LiteLLM 1.110.2's proxy as the gateway (lab/litellm-proxy/config.yaml): the before-fix and after-fix clients,
# and the before-fix client on a route LiteLLM serves from a Chat Completions backend. The client's base URL
# names no behaviour: LiteLLM's routes do (absent-is-strict, as in before-fix/after-fix).
SCENARIOS += [
    Scenario(
        "litellm-before-fix",
        "Before-fix client through the LiteLLM proxy to a Responses backend",
        [
            Run(
                "litellm-before-fix",
                behaviour="",
                tool_results=[
                    _result(EMPTY_JUSTIFICATION, True),
                    _result(SAME_MODE, True),
                    _result(no_image_input("gw-coder"), True),
                ],
            )
        ],
        litellm=True,
    ),
    Scenario(
        "litellm-after-fix",
        "After-fix client through the LiteLLM proxy to a Responses backend",
        [
            Run(
                "litellm-after-fix",
                behaviour="",
                input=["text", "image"],
                compat={"supportsStrictMode": True},
                tool_results=[_result(LS_OUTPUT, False)],
            )
        ],
        litellm=True,
    ),
    Scenario(
        "litellm-responses-to-chat",
        "Before-fix Responses client through the LiteLLM proxy to a Chat Completions backend",
        [
            Run(
                "litellm-responses-to-chat",
                behaviour="",
                model="gw-coder-chat",
                # the Chat Completions backend reads the absent `strict` as non-strict: the model sends only
                # the required properties, which DSH runs, and ends the turn with a text reply
                tool_results=[_result(LS_OUTPUT, False)],
            )
        ],
        litellm=True,
    ),
]
BY_NAME = {s.name: s for s in SCENARIOS}


# --- DSH as the client (lab/dsh-headless/: the published `dsh` CLI, `dsh --profile headless "<task>"`) ---
# DSH's headless app takes one text task and no attachment, so the screenshot cannot reach the model with the
# user's message: the task only names the file, and the gateway's persona then tries `read_image` on the
# workspace's screenshot.png (lab/gateway.py `_wants_screenshot`) once its bash calls have been refused.
DSH_VERSION = "0.1.0-rc.8"
DSH_TASK = "The checkout test fails and I saved a screenshot of it as screenshot.png. List the workspace files first."
WORKSPACE_FILES = {
    "package.json": '{\n  "name": "checkout-app",\n  "private": true,\n  "scripts": {"test": "node --test tests"}\n}\n',
    "src/checkout.js": "export function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}\n",
    "tests/checkout.test.js": 'import { test } from "node:test";\n',
}


@dataclass
class DshScenario:
    """One `dsh --profile headless` run: the settings given to DSH, the gateway behaviour its route names."""

    name: str
    title: str
    settings: str  # data/configs/<settings>.yaml, the base of what DSH is given
    behaviour: str = "absent-is-strict"  # replaces the behaviour segment of the route's baseURL
    drop_compat: bool = False  # remove the route's compat block (image declared, strict support not)
    task: str = DSH_TASK


DSH_SCENARIOS = [
    DshScenario("dsh-before-fix", "DSH with the before-fix settings (danger-full-access)", "settings.before"),
    DshScenario("dsh-after-fix", "DSH with the after-fix settings (danger-full-access)", "settings.after"),
    DshScenario(
        "dsh-image",
        "DSH, image declared but no strict support, a gateway that refuses images",
        "settings.after",
        behaviour="no-images",
        drop_compat=True,
    ),
]
DSH_BY_NAME = {s.name: s for s in DSH_SCENARIOS}
# recorded by `lab/run.py --dsh` (lab/README.md, "DSH as the client")
DSH_RECORDED = ("dsh-before-fix", "dsh-after-fix", "dsh-image")
