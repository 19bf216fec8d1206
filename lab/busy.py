"""Scenario 5: a busy day of gateway traffic, recorded as the gateway's own JSONL log.

Many short conversations by the real pi-ai client across routes (API and strict support as DSH users
configure them) and models, against the gateway's ``busy`` behaviour: mostly normal answers, with
429s, cut streams, failed responses and 500s drawn from a seeded generator, and the incident's
refusals wherever a route ends up strict. The gateway's virtual clock spreads the log over a day.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from scenarios import EMPTY_JUSTIFICATION, GATEWAY_PORT, LS_OUTPUT, SAME_MODE, Run, no_image_input

CONVERSATIONS = 150
SEED = 11
DAY_START = "2026-11-29T06:00:00Z"

# (route name, api, compat): the ways the day's users have configured the gateway in DSH
ROUTES = [
    ("gateway", "openai-responses", None),  # no compat: `strict` absent, read as strict by the gateway
    ("gateway-fixed", "openai-responses", {"supportsStrictMode": True}),  # `strict: false`
    ("gateway-chat", "openai-completions", None),  # Chat Completions: absent means non-strict
    ("codex-proxy", "openai-codex-responses", None),  # `strict: null`
]
# (model id, declared input)
MODELS = [("gw-coder", None), ("gw-vision", ["text", "image"]), ("gw-text-mini", None)]
PROMPTS = [
    "List the workspace files first.",
    "Run the unit tests and tell me what fails.",
    "Show me the git status of this repository.",
    "Check which node version is installed.",
]


def _is_strict(api: str, compat: dict | None) -> bool:
    """How the busy gateway will read the tools pi-ai sends on this route (see lab/gateway.py)."""
    if api == "openai-completions":
        return False
    return not (compat or {}).get("supportsStrictMode")  # only an explicit strict:false opts out


def runs(n: int = CONVERSATIONS, seed: int = SEED) -> list[Run]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        route, api, compat = rng.choices(ROUTES, weights=[4, 3, 2, 1])[0]
        strict = _is_strict(api, compat)
        # gw-text-mini answers strict's nullable fields with null; DSH's wording of every resulting schema
        # violation is not confirmed (docs/upstream.md#dsh-runtime-validation row 1), so it only serves routes that stay non-strict
        model, declared = rng.choice(MODELS[:2] if strict else MODELS)
        if strict:
            results = [
                {"text": EMPTY_JUSTIFICATION, "isError": True},
                {"text": SAME_MODE, "isError": True},
                {"text": no_image_input(model), "isError": True},
            ]
        else:
            results = [{"text": LS_OUTPUT, "isError": False}]
        out.append(
            Run(
                f"busy-{i:03d}",
                api=api,
                behaviour=f"busy/{route}",
                model=model,
                input=declared,
                compat=compat,
                tool_results=results,
                max_requests=4,
                text=rng.choice(PROMPTS),
                image=declared is not None and rng.random() < 0.4,
            )
        )
    return out


def record(folder: Path, *, gateway, run_client, log) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    work = Path(__file__).resolve().parent / ".work" / "busy"
    work.mkdir(parents=True, exist_ok=True)
    all_runs = runs()
    log(f"busy-day: {len(all_runs)} conversations through the busy gateway")
    with gateway(folder / "gateway.jsonl", clock=DAY_START, seed=SEED):
        for k, run in enumerate(all_runs, 1):
            run_client(run.client_spec(port=GATEWAY_PORT), work / f"{run.name}.transcript.json")
            if k % 25 == 0:
                log(f"  {k}/{len(all_runs)} conversations")
    lines = sum(1 for _ in open(folder / "gateway.jsonl", encoding="utf-8"))
    log(f"  wrote {lines} exchanges to busy-day/gateway.jsonl")
