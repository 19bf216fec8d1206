"""The proxy-log questions, answered from a ``Capture`` in pandas: one definition for the notebook and
the tests, and the reference the DuckDB path (``toolkit.analysis.sql``) must equal on the same data.

Each answer is a declared frame whose rows come in a documented order (``KEYS``; ``answer`` applies
it), so the two paths can be compared with ``pd.testing.assert_frame_equal`` as they are.

- ``errors_by_layer_route``: errors (``triage.errors``) per endpoint, layer and rule.
- ``strict_by_endpoint``: tool definitions per endpoint and strict state.
- ``filled_optional``: per endpoint, tool and optional field of the tool's schema, how many calls
  filled it and how many filled it with an empty value (``EMPTY_FILLS``).
- ``latency_by_terminal``: ``duration_ms`` per endpoint and terminal state.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from toolkit.analysis.triage import EMPTY_FILLS, ERRORS, errors
from toolkit.capture.frames import Frame, declare, fixed
from toolkit.knowledge.dsh_tools import SCHEMAS as DSH_SCHEMAS
from toolkit.wire.records import STRICT_STATES, TERMINALS
from toolkit.wire.schemas import schema_facts

__all__ = [
    "EMPTY_FILLS",
    "ERRORS_BY_LAYER_ROUTE",
    "FILLED_OPTIONAL",
    "KEYS",
    "LATENCY_BY_TERMINAL",
    "STRICT_BY_ENDPOINT",
    "answer",
    "errors_by_layer_route",
    "fallback_optional",
    "filled_optional",
    "latency_by_terminal",
    "strict_by_endpoint",
]


# Endpoints are plain text in the answers (not the capture's categorical), so two paths that saw the
# same values give the same dtype; a row not linked to any exchange has no endpoint (missing).
ERRORS_BY_LAYER_ROUTE = declare(
    "questions.errors_by_layer_route",
    {"endpoint": "string", "layer": ERRORS.columns["layer"], "rule_id": "string", "errors": "Int64"},
)
STRICT_BY_ENDPOINT = declare(
    "questions.strict_by_endpoint",
    {"endpoint": "string", **{state: "Int64" for state in STRICT_STATES}, "tools": "Int64"},
)
FILLED_OPTIONAL = declare(
    "questions.filled_optional",
    {
        "endpoint": "string",
        "tool": "string",
        "field": "string",  # an optional property of the tool's schema as sent (``schema_facts().optional``)
        "calls": "Int64",  # calls of the tool whose arguments are an object and whose schema has the field
        "filled": "Int64",  # of those, calls whose arguments hold the field
        "empty": "Int64",  # of those, calls that filled it with one of ``EMPTY_FILLS``
    },
)
LATENCY_BY_TERMINAL = declare(
    "questions.latency_by_terminal",
    {
        "endpoint": "string",
        "terminal": fixed(*TERMINALS),  # missing: no response
        "exchanges": "Int64",
        "timed": "Int64",  # exchanges with a duration
        "mean_ms": "Float64",
        "min_ms": "Float64",
        "p50_ms": "Float64",  # linear interpolation (pandas ``quantile``, DuckDB ``quantile_cont``)
        "p90_ms": "Float64",
        "max_ms": "Float64",
    },
)

#: The row order of each answer: these columns ascending, a fixed vocabulary in its own order, text by
#: code point, missing values last.
KEYS: dict[str, tuple[str, ...]] = {
    ERRORS_BY_LAYER_ROUTE.name: ("endpoint", "layer", "rule_id"),
    STRICT_BY_ENDPOINT.name: ("endpoint",),
    FILLED_OPTIONAL.name: ("endpoint", "tool", "field"),
    LATENCY_BY_TERMINAL.name: ("endpoint", "terminal"),
}


def answer(frame: Frame, df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as the declared ``frame``, rows in ``KEYS`` order and a fresh index (both paths end here)."""
    out = frame.conform(df)
    return out.sort_values(list(KEYS[frame.name]), na_position="last", kind="stable").reset_index(drop=True)


def _endpoints(capture) -> pd.DataFrame:
    ex = capture.exchanges[["exchange_id", "endpoint"]].drop_duplicates("exchange_id")
    return ex.assign(endpoint=ex["endpoint"].astype(object))


def errors_by_layer_route(capture, *, rules=None) -> pd.DataFrame:
    """Errors per endpoint, layer and rule: ``triage.errors`` joined to the endpoint of their exchange."""
    errs = errors(capture, rules=rules)[["exchange_id", "layer", "rule_id"]]
    errs = errs.assign(layer=errs["layer"].astype(object), rule_id=errs["rule_id"].astype(object))
    rows = errs.merge(_endpoints(capture), on="exchange_id", how="left")
    counts = rows.groupby(["endpoint", "layer", "rule_id"], dropna=False).size().rename("errors").reset_index()
    return answer(ERRORS_BY_LAYER_ROUTE, counts)


def strict_by_endpoint(capture) -> pd.DataFrame:
    """Tool definitions per endpoint and strict state, for every endpoint with exchanges or tools (the
    plot ``strict_matrix`` shows the same counts split by API too)."""
    tools = capture.tools[["exchange_id", "strict_state"]].merge(_endpoints(capture), on="exchange_id", how="left")
    endpoints = pd.concat([_endpoints(capture)["endpoint"], tools["endpoint"]]).drop_duplicates()
    rows = []
    for endpoint in endpoints:
        here = tools[tools["endpoint"].isna()] if pd.isna(endpoint) else tools[tools["endpoint"] == endpoint]
        n = {state: int((here["strict_state"] == state).sum()) for state in STRICT_STATES}
        rows.append({"endpoint": endpoint, **n, "tools": sum(n.values())})
    return answer(STRICT_BY_ENDPOINT, STRICT_BY_ENDPOINT.from_records(rows))


def fallback_optional() -> dict[str, tuple[str, ...]]:
    """The optional fields of a call whose request carried no definition of its tool (a DSH session logs
    calls of the tools DSH knows): DSH's own schema of that tool, ``toolkit.knowledge.dsh_tools``."""
    return {name: schema_facts(schema).optional for name, schema in DSH_SCHEMAS.items()}


def filled_optional(capture) -> pd.DataFrame:
    """Per endpoint, tool and optional field: the calls whose schema has the field, how many filled it
    and how many with an empty value. A call's schema is its tool's definition in the same request (the
    first of that name), else ``fallback_optional``; calls whose arguments are not an object are left out.
    Every recorded call counts (a HAR and a session of one run are two endpoints, each sees its calls)."""
    tools = capture.tools.sort_values("position", kind="stable").drop_duplicates(["exchange_id", "name"])
    sent = {(t.exchange_id, t.name): tuple(t.optional) for t in tools.itertuples(index=False)}
    fallback = fallback_optional()
    endpoint = dict(_endpoints(capture).itertuples(index=False))
    rows: list[dict[str, Any]] = []
    for c in capture.calls.itertuples(index=False):
        if not isinstance(c.arguments, dict):
            continue
        key = (c.exchange_id, c.name)
        optional = sent[key] if key in sent else fallback.get(c.name, ())
        for f in optional:
            filled = f in c.arguments
            rows.append(
                {
                    "endpoint": endpoint.get(c.exchange_id),
                    "tool": c.name,
                    "field": f,
                    "filled": filled,
                    "empty": filled and _empty(c.arguments[f]),
                }
            )
    if not rows:
        return FILLED_OPTIONAL.empty()
    df = pd.DataFrame(rows)
    counts = df.groupby(["endpoint", "tool", "field"], dropna=False).agg(
        calls=("filled", "size"), filled=("filled", "sum"), empty=("empty", "sum")
    )
    return answer(FILLED_OPTIONAL, counts.reset_index())


def _empty(value) -> bool:
    return any(value is e if e is None else (isinstance(value, str) and value == e) for e in EMPTY_FILLS)


def latency_by_terminal(capture) -> pd.DataFrame:
    """``duration_ms`` per endpoint and terminal state (missing: no response): how many exchanges, how
    many with a duration, and mean, min, median, 90th percentile and max of those."""
    ex = capture.exchanges[["endpoint", "terminal", "duration_ms"]]
    ex = ex.assign(endpoint=ex["endpoint"].astype(object), terminal=ex["terminal"].astype(object))
    d = ex.groupby(["endpoint", "terminal"], dropna=False)["duration_ms"]
    out = pd.DataFrame(
        {
            "exchanges": d.size(),
            "timed": d.count(),
            "mean_ms": d.mean(),
            "min_ms": d.min(),
            "p50_ms": d.quantile(0.5),
            "p90_ms": d.quantile(0.9),
            "max_ms": d.max(),
        }
    )
    return answer(LATENCY_BY_TERMINAL, out.reset_index())
