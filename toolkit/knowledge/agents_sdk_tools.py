"""What the OpenAI Agents SDK puts in the request's ``tools`` array for function tools, per api.

Modelled on openai-agents==0.24.0, verified by ``tests/fixtures/agents_sdk/wire.json``
(``lab/record_agents_tools.py``: a real ``Agent`` run by ``Runner.run`` against a loopback server).
Notes: ``docs/upstream.md#openai-agents-tools``.

* ``FunctionTool(..., strict_json_schema=True)`` (the default, ``agents/tool.py:482``) rewrites
  ``params_json_schema`` when the tool is built (``__post_init__``, ``agents/tool.py:635``), so a
  schema the strict transform refuses raises there, before any request; the transform is
  ``toolkit.knowledge.agents_sdk_strict.ensure_strict``. ``strict_json_schema=False`` sends the
  schema exactly as given.
* ``responses`` (``OpenAIResponsesModel``, ``_convert_function_tool``,
  ``agents/models/openai_responses.py:2205``): flat, keys ``name, parameters, strict, type,
  description``; ``strict`` is always sent (``true`` or ``false``); a missing description is ``null``.
  No tools at all still sends ``"tools": []``.
* ``chat`` (``OpenAIChatCompletionsModel``, ``Converter.tool_to_openai``,
  ``agents/models/chatcmpl_converter.py:1018``): ``{"type": "function", "function": {name,
  description, parameters, strict}}``; ``strict`` always sent; a missing description is ``""``.
  No tools at all omits the ``tools`` key (``convert_tools`` then returns ``[]``).

A definition's own ``strict`` key (pi-ai's may carry one) is not read: ``FunctionTool`` has no such
field, ``strict_json_schema`` decides. Not modelled (not reachable from a neutral definition):
``defer_loading``, ``allowed_callers``, ``output_json_schema``, tool namespaces, handoffs, MCP tools.
"""

from __future__ import annotations

import copy
from typing import Any

from toolkit.errors import InputError
from toolkit.knowledge.agents_sdk_strict import AgentsStrictError, ensure_strict

__all__ = ["APIS", "DEFAULT_VERSION", "VERSIONS", "AgentsSdkRefusal", "convert_tools"]

VERSIONS = ("0.24.0",)
DEFAULT_VERSION = VERSIONS[0]
#: responses = ``OpenAIResponsesModel``, chat = ``OpenAIChatCompletionsModel``
APIS = ("responses", "chat")


class AgentsSdkRefusal(InputError):
    """The SDK raises while building the tool (its strict transform refuses the schema), before any
    request. ``str()`` is the SDK's exact text; ``sdk_class`` what it raises (``module.Class``);
    ``tool`` the tool's name; ``index`` its place in the list; ``path`` a JSON pointer into its schema."""

    def __init__(self, message: str, *, sdk_class: str, tool: str, index: int, path: str = "#"):
        self.reason, self.sdk_class, self.tool, self.index, self.path = message, sdk_class, tool, index, path
        super().__init__(message)

    def __repr__(self) -> str:
        return (
            f"AgentsSdkRefusal({self.reason!r}, sdk_class={self.sdk_class!r}, tool={self.tool!r}, path={self.path!r})"
        )


def _check(api: str, version: str) -> None:
    if version not in VERSIONS:
        raise InputError(f"openai-agents {version!r} is not modelled; choose one of {', '.join(VERSIONS)}")
    if api not in APIS:
        raise InputError(f"unknown api {api!r}; choose one of {', '.join(APIS)}")


def _parameters(tool: dict[str, Any], index: int, strict: bool) -> Any:
    if "parameters" not in tool:
        raise InputError(f"tools[{index}] ({tool.get('name')!r}): no 'parameters' (FunctionTool requires a schema)")
    if not strict:
        return copy.deepcopy(tool["parameters"])
    try:
        return ensure_strict(tool["parameters"])
    except AgentsStrictError as e:
        raise AgentsSdkRefusal(
            e.reason, sdk_class=e.sdk_class, tool=str(tool.get("name")), index=index, path=e.path
        ) from None


def convert_tools(
    tools: list[dict[str, Any]], *, api: str, strict_json_schema: bool = True, version: str = DEFAULT_VERSION
) -> list[dict[str, Any]]:
    """The ``tools`` the SDK sends when each definition (``{name, description, parameters}``) is built
    as ``FunctionTool(..., strict_json_schema=...)`` (the input is not changed). Raises
    ``AgentsSdkRefusal`` where the SDK raises before sending; ``InputError`` (a ``ValueError``) for an
    api or version that is not modelled, a definition that is not a dict or has no name or parameters."""
    _check(api, version)
    out: list[dict[str, Any]] = []
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise InputError(f"tools[{index}]: a tool definition is a dict with a string 'name'")
        params = _parameters(tool, index, strict_json_schema)
        description = tool.get("description")
        if api == "responses":
            out.append(
                {
                    "name": tool["name"],
                    "parameters": params,
                    "strict": strict_json_schema,
                    "type": "function",
                    "description": copy.deepcopy(description),
                }
            )
        else:
            fn = {
                "name": tool["name"],
                "description": copy.deepcopy(description) or "",
                "parameters": params,
                "strict": strict_json_schema,
            }
            out.append({"type": "function", "function": fn})
    return out
