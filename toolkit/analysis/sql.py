"""The proxy-log questions of ``toolkit.analysis.questions`` in DuckDB, over a Parquet dataset on disk:
for logs that do not fit in pandas. Each function takes the dataset's root folder and returns the same
declared frame, in the same row order, as its pandas twin on the capture the dataset was written from.

The dataset is either layout the toolkit writes: ``agent-contract ingest`` (``<root>/<frame>/source=…/
day=…/part-….parquet``, hive-partitioned) or ``toolkit.capture.export.write_parquet`` (``<root>/<frame>.parquet``);
object columns (arguments, ``optional``) are JSON text in both. Only the small answers come back to
Python, and the two steps that are Python rules stay Python on distinct values only: the error triage
(``triage.classify``) runs once per distinct error, and the optional fields of a call with no tool
definition in its request come from DSH's tool schemas (``questions.fallback_optional``).

Needs the ``scale`` extra (duckdb); importing this module does not load it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit.analysis import questions
from toolkit.analysis.triage import ERROR_PROBLEM_KINDS, ERROR_TERMINALS, RETRIED, classify, load_rules
from toolkit.capture.dataset import DatasetError
from toolkit.capture.frames import SCHEMAS, UTC_TIME
from toolkit.knowledge.dsh_runtime import ERROR_PREFIX
from toolkit.wire.records import STRICT_STATES

__all__ = [
    "EXTRA",
    "errors_by_layer_route",
    "filled_optional",
    "latency_by_terminal",
    "strict_by_endpoint",
]

EXTRA = "pip install 'agent-contract-toolkit[scale]'"

#: Columns every relation gets besides its own: the file a row came from and its row in that file.
#: Ordered by (filename, file_row_number), rows of one partition come back in the order they were written.
_ORDER = "filename, file_row_number"

# an empty frame (no file written for it) still reads as a relation with its declared columns
_SQL_TYPES = {"string": "VARCHAR", "category": "VARCHAR", "Int64": "BIGINT", "Float64": "DOUBLE", "boolean": "BOOLEAN"}


def _duckdb():
    try:
        import duckdb
    except ImportError:
        raise ImportError(f"toolkit.analysis.sql needs duckdb: {EXTRA}") from None
    return duckdb


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _sql_type(dtype: Any) -> str:
    if dtype is object:
        return "VARCHAR"  # JSON text
    if dtype == UTC_TIME:
        return "TIMESTAMPTZ"
    return _SQL_TYPES.get(str(dtype), "VARCHAR")  # a fixed vocabulary is text


def _relation(con, root: Path, frame: str) -> str:
    """Make view ``frame`` over the frame's files under ``root``, in either layout, and return its name:
    ``<root>/<frame>/**/*.parquet`` (hive-partitioned) if that folder exists, else ``<root>/<frame>.parquet``;
    neither: an empty view with the frame's declared columns (the frame had no rows)."""
    folder, single = root / frame, root / f"{frame}.parquet"
    if folder.is_dir() and any(folder.rglob("*.parquet")):
        source = (
            f"read_parquet({_quoted(str(folder / '**' / '*.parquet'))}, hive_partitioning = true, "
            "union_by_name = true, filename = true, file_row_number = true)"
        )
    elif single.is_file():
        source = f"read_parquet({_quoted(str(single))}, filename = true, file_row_number = true)"
    else:
        columns = [f"NULL::{_sql_type(t)} AS {c}" for c, t in SCHEMAS[frame].items()]
        columns += ["NULL::VARCHAR AS filename", "NULL::BIGINT AS file_row_number"]
        source = f"(SELECT {', '.join(columns)} LIMIT 0)"
    con.execute(f"CREATE OR REPLACE TEMP VIEW {frame} AS SELECT * FROM {source}")
    return frame


@contextmanager
def _dataset(root, *frames: str) -> Iterator[Any]:
    """A DuckDB connection with a view per named frame of the dataset at ``root``."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: not a dataset folder (agent-contract ingest or export.write_parquet writes one)")
    found = [f for f in SCHEMAS if (root / f).is_dir() or (root / f"{f}.parquet").is_file()]
    if not found:
        raise DatasetError(f"{root}: holds no frame of a capture (no exchanges/, exchanges.parquet, …)")
    con = _duckdb().connect()
    try:
        for frame in frames:
            _relation(con, root, frame)
        yield con
    finally:
        con.close()


def _error_rows_sql() -> str:
    """Every error ``triage.errors`` lists, as (exchange_id, kind, problem_kind, status, error_code,
    message): the same four sources in SQL, each chosen as ``errors`` chooses it. A refusal sent back to
    the model is a part of ``input_parts`` (each distinct part once, in the order first sent), placed at
    its ``first_exchange_id``: the big ``inputs`` frame is not read."""
    terminals = ", ".join(map(_quoted, ERROR_TERMINALS))
    kinds = ", ".join(map(_quoted, ERROR_PROBLEM_KINDS))
    return f"""
    WITH cut AS (
        SELECT exchange_id, first(message ORDER BY {_ORDER}) AS message
        FROM problems WHERE kind = 'stream-cut' AND exchange_id IS NOT NULL GROUP BY exchange_id
    ), failed AS (
        SELECT x.exchange_id,
               CASE WHEN x.terminal = 'http-error' OR x.status >= 400 THEN 'http' ELSE 'stream' END AS kind,
               NULL::VARCHAR AS problem_kind, x.status, x.error_code,
               CASE WHEN x.error_message IS NULL AND x.terminal = 'cut' THEN cut.message
                    ELSE x.error_message END AS message
        FROM exchanges x LEFT JOIN cut USING (exchange_id)
        WHERE x.terminal IN ({terminals}) OR x.status >= 400
           OR x.exchange_id IN (SELECT exchange_id FROM problems
                                WHERE kind = 'gateway-failure' AND exchange_id IS NOT NULL)
    ), results AS (
        SELECT exchange_id, 'tool-result' AS kind, NULL::VARCHAR AS problem_kind, NULL::BIGINT AS status,
               error_code, text AS message
        FROM tool_results WHERE is_error
    ), outputs AS (  -- a refusal sent back to the model: once per call, at the first request carrying it
        SELECT first_exchange_id AS exchange_id, 'tool-output' AS kind, NULL::VARCHAR AS problem_kind,
               NULL::BIGINT AS status, NULL::VARCHAR AS error_code, text AS message
        FROM input_parts
        WHERE item_type = 'function_call_output' AND starts_with(text, {_quoted(ERROR_PREFIX)})
          AND call_id IS NOT NULL
          AND call_id NOT IN (SELECT call_id FROM tool_results WHERE call_id IS NOT NULL)
        QUALIFY row_number() OVER (PARTITION BY call_id ORDER BY {_ORDER}) = 1
    ), problem_rows AS (
        SELECT exchange_id, 'problem' AS kind, kind::VARCHAR AS problem_kind, NULL::BIGINT AS status,
               NULL::VARCHAR AS error_code, message
        FROM problems
        WHERE kind IN ({kinds})
          AND (exchange_id IS NULL OR exchange_id NOT IN (SELECT exchange_id FROM failed
                                                          WHERE exchange_id IS NOT NULL))
    )
    SELECT exchange_id, kind, problem_kind, status::BIGINT AS status, error_code, message FROM failed
    UNION ALL SELECT * FROM results
    UNION ALL SELECT * FROM outputs
    UNION ALL SELECT * FROM problem_rows
    """


_KEY = ("kind", "problem_kind", "status", "error_code", "message")


def _triage(kind, problem_kind, status, error_code, message, *, rules) -> tuple[str, str]:
    """(layer, rule_id) of one distinct error, as ``triage.errors`` classifies a row of that kind."""
    if kind == "problem":
        inner = RETRIED.match(message or "") if problem_kind == "retried" else None
        if inner:
            found = classify(inner["message"], rules=rules, error_code=inner["code"].strip())
        else:
            found = classify(message, rules=rules)
    else:
        found = classify(message, rules=rules, error_code=error_code, status=status)
    return found.layer, found.rule_id


def errors_by_layer_route(root, *, rules=None) -> pd.DataFrame:
    """``questions.errors_by_layer_route`` over the dataset at ``root``: the error rows are found in
    SQL, each distinct (kind, status, code, message) is triaged once in Python, and the counts are
    joined and grouped in DuckDB."""
    rules = load_rules() if rules is None else rules
    with _dataset(root, "exchanges", "problems", "tool_results", "input_parts") as con:
        con.execute(f"CREATE TEMP TABLE errs AS {_error_rows_sql()}")
        con.execute(
            "CREATE TEMP TABLE error_keys AS SELECT row_number() OVER () AS k, * "
            f"FROM (SELECT DISTINCT {', '.join(_KEY)} FROM errs)"
        )
        keys = con.execute(f"SELECT k, {', '.join(_KEY)} FROM error_keys").fetchall()
        con.execute("CREATE TEMP TABLE triaged (k BIGINT, layer VARCHAR, rule_id VARCHAR)")
        if keys:
            con.executemany(
                "INSERT INTO triaged VALUES (?, ?, ?)", [(row[0], *_triage(*row[1:], rules=rules)) for row in keys]
            )
        same = " AND ".join(f"e.{c} IS NOT DISTINCT FROM k.{c}" for c in _KEY)
        counts = con.execute(
            f"""
            SELECT x.endpoint::VARCHAR AS endpoint, t.layer, t.rule_id, count(*) AS errors
            FROM errs e JOIN error_keys k ON {same} JOIN triaged t USING (k)
            LEFT JOIN (SELECT DISTINCT ON (exchange_id) exchange_id, endpoint FROM exchanges) x
                   USING (exchange_id)
            GROUP BY ALL
            """
        ).fetchdf()
    return questions.answer(questions.ERRORS_BY_LAYER_ROUTE, counts)


def strict_by_endpoint(root) -> pd.DataFrame:
    """``questions.strict_by_endpoint`` over the dataset at ``root``."""
    states = ", ".join(f'count(*) FILTER (WHERE strict_state = {_quoted(s)}) AS "{s}"' for s in STRICT_STATES)
    with _dataset(root, "exchanges", "tools") as con:
        counts = con.execute(
            f"""
            WITH x AS (SELECT DISTINCT ON (exchange_id) exchange_id, endpoint::VARCHAR AS endpoint FROM exchanges),
            sent AS (
                SELECT x.endpoint, t.strict_state::VARCHAR AS strict_state
                FROM tools t LEFT JOIN x USING (exchange_id)
                UNION ALL SELECT endpoint, NULL FROM x
            )
            SELECT endpoint, {states} FROM sent GROUP BY endpoint
            """
        ).fetchdf()
    counts["tools"] = counts[list(STRICT_STATES)].sum(axis=1)
    return questions.answer(questions.STRICT_BY_ENDPOINT, counts)


def filled_optional(root) -> pd.DataFrame:
    """``questions.filled_optional`` over the dataset at ``root``: a call's optional fields are its tool's
    ``optional`` (the first definition of that name in the same request) or DSH's schema of the tool;
    which were filled, and with what, is read from the arguments with DuckDB's JSON functions."""
    fallback = [(name, json.dumps(list(fields))) for name, fields in questions.fallback_optional().items()]
    empty = ", ".join(_quoted(json.dumps(v)) for v in questions.EMPTY_FILLS)
    with _dataset(root, "exchanges", "tools", "calls") as con:
        con.execute("CREATE TEMP TABLE known (name VARCHAR, optional VARCHAR)")
        if fallback:
            con.executemany("INSERT INTO known VALUES (?, ?)", fallback)
        counts = con.execute(
            f"""
            WITH x AS (SELECT DISTINCT ON (exchange_id) exchange_id, endpoint::VARCHAR AS endpoint FROM exchanges),
            sent AS (
                SELECT exchange_id, name, first(optional ORDER BY position) AS optional
                FROM tools GROUP BY exchange_id, name
            ), c AS (
                SELECT c.exchange_id, c.name, c.arguments::JSON AS args,
                       CASE WHEN s.exchange_id IS NOT NULL THEN s.optional ELSE k.optional END AS optional
                FROM calls c
                LEFT JOIN sent s ON s.exchange_id = c.exchange_id AND s.name = c.name
                LEFT JOIN known k ON k.name = c.name
                WHERE json_valid(c.arguments) AND json_type(c.arguments::JSON) = 'OBJECT'
            ), f AS (
                SELECT exchange_id, name, args, unnest(from_json(optional::JSON, '["VARCHAR"]')) AS field
                FROM c WHERE optional IS NOT NULL
            ), v AS (
                SELECT exchange_id, name, field,
                       json_extract(args, '/' || replace(replace(field, '~', '~0'), '/', '~1')) AS value
                FROM f
            )
            SELECT x.endpoint, v.name AS tool, v.field, count(*) AS calls,
                   count(v.value) AS filled,
                   count(*) FILTER (WHERE v.value::VARCHAR IN ({empty})) AS empty
            FROM v LEFT JOIN x USING (exchange_id)
            GROUP BY ALL
            """
        ).fetchdf()
    return questions.answer(questions.FILLED_OPTIONAL, counts)


def latency_by_terminal(root) -> pd.DataFrame:
    """``questions.latency_by_terminal`` over the dataset at ``root``."""
    with _dataset(root, "exchanges") as con:
        counts = con.execute(
            """
            SELECT endpoint::VARCHAR AS endpoint, terminal::VARCHAR AS terminal, count(*) AS exchanges,
                   count(duration_ms) AS timed, avg(duration_ms) AS mean_ms, min(duration_ms) AS min_ms,
                   quantile_cont(duration_ms, 0.5) AS p50_ms, quantile_cont(duration_ms, 0.9) AS p90_ms,
                   max(duration_ms) AS max_ms
            FROM exchanges GROUP BY ALL
            """
        ).fetchdf()
    return questions.answer(questions.LATENCY_BY_TERMINAL, counts)
