"""Record what the real LiteLLM decides for a proxy ``config.yaml`` (tests/fixtures/litellm/config.json).

Run it in LiteLLM's own environment (the toolkit does not depend on LiteLLM; no extras needed)::

    lab/.venv-litellm/bin/python lab/record_litellm_config.py [--out tests/fixtures/litellm]

Each ``tests/fixtures/litellm/config/*.yaml`` goes, in a process of its own (a deployment's
``model_info`` is written into the process-wide ``litellm.model_cost``, so one config would leak into
the next), through what the proxy's ``ProxyConfig.load_config`` does without a database or the network:
``yaml.safe_load``; each ``os.environ/`` value of ``litellm_params`` through ``get_secret`` (the lab sets
``LAB_GATEWAY_BASE`` and ``LAB_GATEWAY_KEY`` to loopback and fake values and leaves every other
variable unset; only whether a reference resolved is kept, never a value); then ``Router(model_list=…)``
as the client library builds it and as the proxy does (``ignore_invalid_deployments=True``). Per model
name: ``router.get_model_group_info`` (what ``/model_group/info`` answers), per deployment the router's
own ``declares_no_vision`` (the pre-call filter for requests that carry an image) and
``litellm.supports_vision`` for its model before and after the router registered the config; then a
request with an image and one with a tool, each answered by ``mock_response`` (nothing is sent), and the
deployments they were routed to, and a request for a model name the config does not list. A refusal is kept as its exception class and text. The cost map is the
bundled one; any connection that is not to 127.0.0.1 raises. 2-space JSON, byte-identical per run.
"""

from __future__ import annotations

import os

from loopback import LITELLM_ENV, loopback_only, offline

offline(LITELLM_ENV)  # before litellm is imported

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "tests" / "fixtures" / "litellm" / "config"
#: what the lab puts in the environment for ``os.environ/`` references (fake, loopback); others stay unset
LAB_ENV = {"LAB_GATEWAY_BASE": "http://127.0.0.1:18787/v1", "LAB_GATEWAY_KEY": "sk-lab-FAKE-litellm-config-0000"}
#: model names a client may ask for that no ``model_name`` spells out (wildcard routes)
EXTRA_QUERIES = {"wildcard.yaml": ("openai/gpt-4o", "openai/o3-mini", "gpt-4o", "gw-coder")}
#: the bundled cost-map entries the toolkit's model carries (toolkit.knowledge.litellm_config.COST_MAP)
COST_MAP_KEYS = ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "o3-mini", "gpt-3.5-turbo", "deepseek-chat", "claude-sonnet-4-5")
COST_MAP_FIELDS = (
    "litellm_provider",
    "mode",
    "max_input_tokens",
    "supports_vision",
    "supports_function_calling",
    "supports_tool_choice",
    "supports_response_schema",
)
GROUP_FIELDS = (
    "providers",
    "mode",
    "max_input_tokens",
    "supports_vision",
    "supports_function_calling",
    "supports_parallel_function_calling",
    "supports_reasoning",
)
IMAGE = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What is in the screenshot?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ],
    }
]
TEXT = [{"role": "user", "content": "List the workspace files."}]
TOOL = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object", "properties": {}}}}
TRIES = 16  # requests per kind: the set of deployments they reached (the router shuffles among candidates)


def _error(exc: BaseException) -> dict[str, str]:
    return {"class": type(exc).__name__, "text": str(exc)}


def _env_refs(model_list: Any) -> tuple[Any, list[dict[str, Any]]]:
    """``model_list`` with its ``litellm_params`` ``os.environ/`` values resolved by LiteLLM's
    ``get_secret`` (as ``load_config`` does), and each reference: key, variable, resolved or not."""
    from litellm.secret_managers.main import get_secret

    refs: list[dict[str, Any]] = []
    if not isinstance(model_list, list):
        return model_list, refs
    out = copy.deepcopy(model_list)
    for i, entry in enumerate(out):
        params = entry.get("litellm_params") if isinstance(entry, dict) else None
        if not isinstance(params, dict):
            continue
        for key, value in list(params.items()):
            if isinstance(value, str) and value.startswith("os.environ/"):
                resolved = get_secret(value)
                refs.append(
                    {
                        "entry": i,
                        "key": key,
                        "variable": value[len("os.environ/") :],
                        "resolved": resolved is not None,
                    }
                )
                params[key] = resolved
    return out, refs


def _group(router: Any, name: str) -> dict[str, Any] | None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        info = router.get_model_group_info(model_group=name)
    if info is None:
        return None
    return {f: getattr(info, f) for f in GROUP_FIELDS}


def _routes(router: Any, name: str, ids: dict[str, int], **kwargs: Any) -> dict[str, Any]:
    reached: set[int] = set()
    for _ in range(TRIES):
        try:
            resp = router.completion(model=name, mock_response="ok", **kwargs)
        except Exception as exc:  # recorded, not raised: a refusal is a fact too
            return {"error": _error(exc)}
        reached.add(ids.get(str(resp._hidden_params.get("model_id")), -1))
    return {"deployments": sorted(reached)}


def record_one(path: Path) -> dict[str, Any]:
    """Everything LiteLLM decides for one config file (run in a fresh process)."""
    import yaml

    loopback_only("lab/record_litellm_config.py")
    import litellm
    from litellm import Router
    from litellm.router_rust.steps.precall import declares_no_vision
    from litellm.utils import is_vision_explicitly_disabled

    litellm.telemetry = False
    litellm.callbacks = []
    os.environ.update(LAB_ENV)
    cell: dict[str, Any] = {"file": path.name}
    try:
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        cell["yaml_error"] = _error(exc)
        return cell
    cell["config_type"] = type(config).__name__
    model_list = config.get("model_list") if isinstance(config, dict) else None
    model_list, cell["env_refs"] = _env_refs(model_list)
    models = [e["litellm_params"].get("model") for e in model_list or [] if _has_params(e)]
    cell["supports_vision_before"] = {str(m): _call(litellm.supports_vision, m) for m in models}
    cell["vision_disabled_before"] = {str(m): _call(is_vision_explicitly_disabled, m) for m in models}
    try:
        Router(model_list=copy.deepcopy(model_list))
        cell["router"] = "ok"
    except Exception as exc:
        cell["router"] = _error(exc)
    try:
        router = Router(model_list=copy.deepcopy(model_list), ignore_invalid_deployments=True)
    except Exception as exc:
        cell["proxy_router"] = _error(exc)
        return cell
    cell["proxy_router"] = "ok"
    deployments = router.get_model_list() or []
    # each deployment's place in the config (model_info.id is a hash of its parameters): the router keeps
    # the entries it accepted in config order, so match them in order by name and model
    ids: dict[str, int] = {}
    entries = [(i, e) for i, e in enumerate(model_list or []) if _has_params(e)]
    for d in deployments:
        while entries and (entries[0][1].get("model_name"), entries[0][1]["litellm_params"].get("model")) != (
            d["model_name"],
            d["litellm_params"].get("model"),
        ):
            entries.pop(0)
        ids[str(d["model_info"]["id"])] = entries.pop(0)[0] if entries else -1
    cell["deployments"] = [
        {
            "entry": ids[str(d["model_info"]["id"])],
            "model_name": d["model_name"],
            "model": d["litellm_params"].get("model"),
            "declares_no_vision": declares_no_vision(d, d["model_name"]),
        }
        for d in deployments
    ]
    cell["supports_vision_after"] = {str(m): _call(litellm.supports_vision, m) for m in models}
    names = list(dict.fromkeys([d["model_name"] for d in deployments] + list(EXTRA_QUERIES.get(path.name, ()))))
    cell["unknown_model_request"] = _routes(router, "not-in-this-config", ids, messages=TEXT)
    cell["groups"] = {}
    for name in names:
        cell["groups"][name] = {
            "info": _group(router, name),
            "image_request": _routes(router, name, ids, messages=IMAGE),
            "tools_request": _routes(router, name, ids, messages=TEXT, tools=[TOOL]),
        }
    return cell


def _has_params(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("litellm_params"), dict)


def _call(fn: Any, model: Any) -> Any:
    try:
        return fn(model=model)
    except Exception as exc:
        return _error(exc)


def cost_map() -> dict[str, Any]:
    loopback_only("lab/record_litellm_config.py")
    import litellm

    return {k: {f: litellm.model_cost.get(k, {}).get(f) for f in COST_MAP_FIELDS} for k in COST_MAP_KEYS}


def _child(*args: str) -> Any:
    out = subprocess.run(
        [sys.executable, __file__, *args], check=True, capture_output=True, text=True, env=_child_env()
    ).stdout
    return json.loads(out)


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAB_")}
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "litellm")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # the child: one config, JSON on stdout
    parser.add_argument("--cost-map", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(record_one(args.one)))
        return
    if args.cost_map:
        print(json.dumps(cost_map()))
        return
    from importlib.metadata import version

    cells = [_child("--one", str(p)) for p in sorted(CONFIGS.glob("*.yaml"))]
    data = {
        "generator": "lab/record_litellm_config.py",
        "litellm": version("litellm"),
        "configs": "tests/fixtures/litellm/config",
        "lab_env": sorted(LAB_ENV),
        "tries": TRIES,
        "cost_map": _child("--cost-map"),
        "cells": cells,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "config.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out / 'config.json'} ({len(cells)} configs)")


if __name__ == "__main__":
    main()
