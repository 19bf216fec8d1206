"""Record the tools array the real LiteLLM sends (tests/fixtures/litellm/wire.json).

Run it in its own environment (the toolkit does not depend on LiteLLM)::

    python3.11 -m venv lab/.venv-litellm && lab/.venv-litellm/bin/pip install -r lab/requirements-litellm.txt
    lab/.venv-litellm/bin/python lab/record_litellm_tools.py [--out tests/fixtures/litellm]

It starts an HTTP server on 127.0.0.1 (port 0) that answers a minimal Chat Completions or Responses
reply, then calls ``litellm.completion`` (Chat) and ``litellm.responses`` (Responses) with model
``openai/gw-coder``, ``api_base`` the loopback and a fake key, one tool per call from the pi-ai corpus
(``tests/fixtures/pi_ai/corpus.json``), each in that api's OpenAI tool shape with ``strict`` unset,
``true`` and ``false``. A cell keeps what was passed, the request's method and path and the body's
``tools`` as sent (key order kept). The model cost map is the bundled one, callbacks and telemetry are
off, and any connection that is not to 127.0.0.1 raises, so nothing reaches the network. The file is
2-space JSON, byte-identical per run.
"""

from __future__ import annotations

from loopback import LITELLM_ENV, Recorder, loopback_only, offline, serving

offline(LITELLM_ENV)  # before litellm is imported
loopback_only("lab/record_litellm_tools.py")

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
from importlib.metadata import version  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "pi_ai" / "corpus.json"
#: DSH's bash tool and one of each shape worth watching: nested object, nullable, anyOf, enum, empty object
TOOL_IDS = (
    "bash",
    "nested_object",
    "already_nullable",
    "openapi_nullable",
    "optional_anyof_scalars",
    "optional_enum",
    "empty_object",
    "keywords_kept",
)
#: written here (id ``lab/<name>``): regexes Python's ``re`` cannot compile, which LiteLLM drops
LAB_TOOLS: dict[str, dict[str, Any]] = {
    "lab/ecma_pattern": {
        "name": "label",
        "description": "Label a file.",
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "pattern": "^\\p{L}+$", "description": "letters only"},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^\\p{Lu}"}},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            },
            "required": ["name"],
        },
    },
}
APIS = ("chat", "responses")
STRICTS: tuple[bool | None, ...] = (None, True, False)  # None: the key is not written
MODEL = "openai/gw-coder"
API_KEY = "sk-lab-FAKE-litellm-fixtures-0000000000"
USER_TEXT = "List the workspace files."

import litellm  # noqa: E402

litellm.telemetry = False
litellm.callbacks = []
litellm.success_callback = []
litellm.failure_callback = []


def shaped(api: str, tool: dict[str, Any], strict: bool | None) -> dict[str, Any]:
    """The tool in that api's OpenAI shape, ``strict`` last when given."""
    fn: dict[str, Any] = {
        "name": tool["name"],
        "description": tool.get("description"),
        "parameters": tool.get("parameters"),
    }
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn} if api == "chat" else {"type": "function", **fn}


def call(api: str, tool: dict[str, Any], base: str) -> None:
    if api == "chat":
        litellm.completion(
            model=MODEL,
            api_base=base,
            api_key=API_KEY,
            messages=[{"role": "user", "content": USER_TEXT}],
            tools=[tool],
        )
    else:
        litellm.responses(model=MODEL, api_base=base, api_key=API_KEY, input=USER_TEXT, tools=[tool])


def record() -> dict[str, Any]:
    corpus = {t["id"]: t["tool"] for t in json.loads(CORPUS.read_text(encoding="utf-8"))["tools"]}
    corpus.update(LAB_TOOLS)
    cells = []
    with serving("gw-coder") as base:
        for api in APIS:
            for strict in STRICTS:
                for tool_id in (*TOOL_IDS, *LAB_TOOLS):
                    given = shaped(api, corpus[tool_id], strict)
                    passed = copy.deepcopy(given)
                    Recorder.seen.clear()
                    error = None
                    try:
                        call(api, passed, base)
                    except Exception as exc:  # recorded, not raised: a refusal is a fact too
                        error = f"{type(exc).__name__}: {exc}"
                    requests = list(Recorder.seen)
                    cells.append(
                        {
                            "api": api,
                            "strict": strict,
                            "tool": tool_id,
                            "given": given,
                            "mutated": passed != given,
                            "error": error,
                            "http": [{"method": r["method"], "path": r["path"]} for r in requests],
                            "tools": requests[-1]["body"].get("tools") if requests else None,
                        }
                    )
    return {
        "generator": "lab/record_litellm_tools.py",
        "litellm": version("litellm"),
        "openai": version("openai"),
        "model": MODEL,
        "corpus": "tests/fixtures/pi_ai/corpus.json",
        "cells": cells,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "litellm")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(record(), indent=2, ensure_ascii=False) + "\n"
    (args.out / "wire.json").write_text(text, encoding="utf-8")
    print(f"wrote {args.out / 'wire.json'}")


if __name__ == "__main__":
    main()
