"""Record the tools array the real OpenAI Agents SDK sends (tests/fixtures/agents_sdk/wire.json).

Run it in its own environment (the toolkit does not depend on the SDK; ``make fixtures`` builds it)::

    python3 -m venv lab/.venv-agents && lab/.venv-agents/bin/pip install -r lab/requirements-agents.txt
    lab/.venv-agents/bin/python lab/record_agents_tools.py [--out tests/fixtures/agents_sdk]

It starts an HTTP server on 127.0.0.1 (port 0) that answers a minimal Responses or Chat Completions
reply, then runs a real ``Agent`` through ``Runner.run`` on ``OpenAIResponsesModel`` (api
``responses``) and ``OpenAIChatCompletionsModel`` (api ``chat``), each with an ``AsyncOpenAI`` whose
``base_url`` is the loopback and whose key is fake, tracing disabled. The tools are built the ways a
user builds them: ``FunctionTool(name, description, params_json_schema, on_invoke_tool,
strict_json_schema=True/False)`` for every tool of the pi-ai corpus (``tests/fixtures/pi_ai/corpus.json``,
id ``pi_ai/<id>``) and a few written here (``lab/<name>``), and ``@function_tool`` on Python functions
(``decorated/<name>``, default ``strict_mode`` and ``strict_mode=False``). A cell keeps the neutral
definition (``{name, description, parameters}``; for a decorated function, the schema the SDK derives
with ``function_schema(..., strict_json_schema=False)``), then either the request's method, path and
the body's ``tools`` as sent (key order kept) or the exception the SDK raised before sending (class
and exact text, and where: building the tool or running). Any connection that is not to 127.0.0.1
raises, so nothing reaches the network. The file is 2-space JSON, byte-identical per run.
"""

from __future__ import annotations

from loopback import Recorder, loopback_only, offline, serving

offline({"OPENAI_AGENTS_DISABLE_TRACING": "1"})
loopback_only("lab/record_agents_tools.py")

import argparse  # noqa: E402
import asyncio  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
from collections.abc import Callable  # noqa: E402
from importlib.metadata import version  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Literal  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "pi_ai" / "corpus.json"
API_KEY = "sk-lab-FAKE-agents-tools-0000000000"
MODEL = "gw-coder"
USER_TEXT = "List the workspace files."
APIS = ("responses", "chat")
STRICTS = (True, False)
PATHS = {"responses": "/v1/responses", "chat": "/v1/chat/completions"}

from agents import (  # noqa: E402
    Agent,
    FunctionTool,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.function_schema import function_schema  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402
from pydantic import BaseModel  # noqa: E402

set_tracing_disabled(True)

#: written here: what a user may leave out of a definition (no description, an empty one), no tools
#: at all, and several tools at once (``lab/three_tools``: their order on the wire)
LAB_TOOLS: dict[str, list[dict[str, Any]]] = {
    "lab/no_tools": [],
    "lab/no_description": [
        {"name": "ping", "parameters": {"type": "object", "properties": {"host": {"type": "string"}}}}
    ],
    "lab/empty_description": [
        {
            "name": "ping",
            "description": "",
            "parameters": {"type": "object", "properties": {"host": {"type": "string"}}},
        }
    ],
}
MULTI = ("bash", "nested_object", "optional_enum")


class Edit(BaseModel):
    old: str
    new: str


def list_files(path: str, depth: int = 1, pattern: str | None = None, kind: Literal["file", "dir"] = "file") -> str:
    """List the files under a directory.

    Args:
        path: Directory to list, relative to the workspace.
        depth: How many levels to descend.
        pattern: Glob the names must match.
        kind: Whether to list files or directories.
    """
    return ""


def apply_edits(file: str, edits: list[Edit]) -> str:
    """Apply text edits to a file.

    Args:
        file: The file to edit.
        edits: Replacements, applied in order.
    """
    return ""


DECORATED: dict[str, Callable[..., str]] = {"decorated/list_files": list_files, "decorated/apply_edits": apply_edits}


async def _never_called(ctx: Any, arguments: str) -> str:
    return ""


def failure(exc: BaseException, stage: str) -> dict[str, str]:
    return {"stage": stage, "class": f"{type(exc).__module__}.{type(exc).__qualname__}", "message": str(exc)}


def build_function_tools(defs: list[dict[str, Any]], strict: bool) -> list[FunctionTool]:
    """``FunctionTool(...)`` as a user writes it; the definition is deep-copied (the SDK copies too)."""
    return [
        FunctionTool(
            name=d["name"],
            description=d.get("description"),  # type: ignore[arg-type]  # a user may leave it out
            params_json_schema=copy.deepcopy(d["parameters"]),
            on_invoke_tool=_never_called,
            strict_json_schema=strict,
        )
        for d in defs
    ]


def model_for(api: str, client: AsyncOpenAI) -> Any:
    if api == "responses":
        return OpenAIResponsesModel(model=MODEL, openai_client=client)
    return OpenAIChatCompletionsModel(model=MODEL, openai_client=client)


async def send(api: str, tools: list[Any], client: AsyncOpenAI) -> tuple[list[dict[str, Any]], Any]:
    """One ``Runner.run``: the requests it made, and what it raised (``None`` when it finished)."""
    Recorder.seen.clear()
    agent = Agent(name="lab", instructions="Be brief.", model=model_for(api, client), tools=tools)
    error = None
    try:
        await Runner.run(agent, USER_TEXT, run_config=RunConfig(tracing_disabled=True))
    except Exception as exc:  # recorded, not raised: a refusal is a fact too
        error = failure(exc, "Runner.run")
    return list(Recorder.seen), error


def cell(
    tool_id: str, api: str, strict: bool, built_with: str, given: list[dict[str, Any]], requests: list[Any], error: Any
) -> dict[str, Any]:
    return {
        "tool": tool_id,
        "api": api,
        "strict_json_schema": strict,
        "built_with": built_with,
        "given": given,
        "error": error,
        "http": [{"method": r["method"], "path": r["path"], "stream": r["body"].get("stream")} for r in requests],
        "tools_key_sent": "tools" in requests[-1]["body"] if requests else None,
        "tools": requests[-1]["body"].get("tools") if requests else None,
    }


async def record_all(base: str) -> list[dict[str, Any]]:
    client = AsyncOpenAI(base_url=base, api_key=API_KEY, max_retries=0)
    corpus = {t["id"]: t["tool"] for t in json.loads(CORPUS.read_text(encoding="utf-8"))["tools"]}
    inputs: list[tuple[str, list[dict[str, Any]]]] = [(f"pi_ai/{tid}", [tool]) for tid, tool in corpus.items()]
    inputs += list(LAB_TOOLS.items())
    inputs.append(("lab/three_tools", [corpus[t] for t in MULTI]))
    cells = []
    for api in APIS:
        for strict in STRICTS:
            for tool_id, defs in inputs:
                given = copy.deepcopy(defs)
                try:
                    tools = build_function_tools(defs, strict)
                except Exception as exc:
                    cells.append(cell(tool_id, api, strict, "FunctionTool", given, [], failure(exc, "FunctionTool")))
                    continue
                requests, error = await send(api, tools, client)
                cells.append(cell(tool_id, api, strict, "FunctionTool", given, requests, error))
            for tool_id, fn in DECORATED.items():
                # the default (strict_mode=True) as a user writes it: the bare decorator
                tool = function_tool(fn) if strict else function_tool(fn, strict_mode=False)
                built = "function_tool" if strict else "function_tool(strict_mode=False)"
                derived = function_schema(fn, strict_json_schema=False)
                given = [{"name": tool.name, "description": tool.description, "parameters": derived.params_json_schema}]
                requests, error = await send(api, [tool], client)
                cells.append(cell(tool_id, api, strict, built, given, requests, error))
    await client.close()
    return cells


def record() -> dict[str, Any]:
    with serving(MODEL) as base:
        cells = asyncio.run(record_all(base))
    return {
        "generator": "lab/record_agents_tools.py",
        "package": "openai-agents",
        "version": version("openai-agents"),
        "openai": version("openai"),
        "pydantic": version("pydantic"),
        "model": MODEL,
        "corpus": "tests/fixtures/pi_ai/corpus.json",
        "cells": cells,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "agents_sdk")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    doc = record()
    (args.out / "wire.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(doc['cells'])} cells -> {args.out / 'wire.json'}")


if __name__ == "__main__":
    main()
