"""Every DataFrame's columns and dtypes, declared once. Tests check frames against these.

Small vocabularies are categoricals with fixed categories, so filters and plots are predictable;
columns that can be missing use nullable dtypes; times are UTC.
"""

from __future__ import annotations

import pandas as pd

from toolkit.wire.records import APIS, STRICT_STATES, TERMINALS

UTC_TIME = "datetime64[us, UTC]"


def fixed(*values: str) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(list(values))


CAT = "category"  # a categorical whose categories are whatever the data holds

SCHEMAS: dict[str, dict[str, object]] = {
    "exchanges": {
        "exchange_id": "string",
        "source": CAT,
        "location": "string",
        "started_at": UTC_TIME,
        "method": CAT,
        "url": "string",
        "host": CAT,
        "path": "string",
        "endpoint": CAT,  # host and path without the API suffix (a DSH session: its provider route)
        "api": fixed(*APIS),
        "provider": CAT,
        "model": CAT,
        "stream": "boolean",
        "status": "Int64",
        "duration_ms": "Float64",
        "request_bytes": "Int64",
        "response_bytes": "Int64",
        "terminal": fixed(*TERMINALS),
        "error_type": "string",
        "error_code": "string",
        "error_message": "string",
        "input_tokens": "Int64",
        "output_tokens": "Int64",
        "cache_read_tokens": "Int64",  # DSH counts these apart from input_tokens; OpenAI's are inside it
        "reasoning_tokens": "Int64",
        "body_fidelity": fixed("wire", "json", "normalised"),  # how close the bodies are to wire bytes
        "log_id": "string",  # the log's own id for the entry (JSONL exports)
    },
    "tools": {
        "exchange_id": "string",
        "position": "Int64",
        "name": "string",
        "kind": CAT,
        "strict_state": fixed(*STRICT_STATES),
        "required": object,  # tuple of property names, in schema order
        "optional": object,
        "additional_properties": fixed("absent", "true", "false", "schema"),
        "schema_hash": "string",
        # the strict state the backend echoed for this tool in its response object (how it read it)
        "echoed_strict": fixed(*STRICT_STATES),
    },
    "tool_schemas": {
        "schema_hash": "string",
        "schema": object,  # the JSON schema as a dict, stored once however often it was sent
        "n_properties": "Int64",
        "uses": "Int64",
        "first_exchange_id": "string",
    },
    "calls": {
        "exchange_id": "string",
        "call_id": "string",
        "item_id": "string",
        "name": "string",
        "arguments_raw": "string",
        "arguments": object,
        "parse_error": "string",
        "complete": "boolean",
    },
    "inputs": {
        "exchange_id": "string",
        "item_index": "Int64",
        "part_index": "Int64",
        "role": CAT,
        "item_type": CAT,
        "part_type": CAT,
        "call_id": "string",  # links function_call and function_call_output items
        "name": "string",
        "media_type": CAT,
        "byte_size": "Int64",
        "text_chars": "Int64",
        "text": "string",  # the first TEXT_PREVIEW characters
        "image_dropped": "boolean",
    },
    "headers": {
        "exchange_id": "string",
        "direction": fixed("request", "response"),
        "name": "string",
        "value": "string",
    },
    "problems": {
        "source": CAT,
        "location": "string",
        "kind": CAT,
        "message": "string",
        "exchange_id": "string",
    },
    "events": {
        "source": CAT,
        "location": "string",
        "exchange_id": "string",
        "seq": "Int64",
        "time": UTC_TIME,
        "type": CAT,
        "turn": "Int64",
        "step": "Int64",
        "payload": object,
    },
    "bodies": {  # only with load_capture(..., keep_bodies=True): for hop diffs
        "exchange_id": "string",
        "request": object,
    },
    "tool_results": {
        "exchange_id": "string",
        "call_id": "string",
        "turn": "Int64",
        "step": "Int64",
        "is_error": "boolean",
        "text": "string",
        "error_name": "string",
        "error_code": "string",
    },
}

#: How many characters of an input text part the ``inputs`` frame keeps (``text_chars`` has the length).
TEXT_PREVIEW = 500


def empty(name: str) -> pd.DataFrame:
    return to_frame(name, {col: [] for col in SCHEMAS[name]})


def from_rows(name: str, rows: list[tuple]) -> pd.DataFrame:
    """Build frame ``name`` from row tuples in its declared column order."""
    cols = list(SCHEMAS[name])
    if rows and len(rows[0]) != len(cols):
        raise ValueError(f"{name}: rows have {len(rows[0])} values for {len(cols)} columns")
    columns = list(zip(*rows)) if rows else [()] * len(cols)
    return to_frame(name, {c: list(v) for c, v in zip(cols, columns)})


def to_frame(name: str, columns: dict[str, list]) -> pd.DataFrame:
    """Build frame ``name`` from column lists, applying its declared dtypes."""
    schema = SCHEMAS[name]
    data = {}
    for col, dtype in schema.items():
        values = columns[col]
        if dtype == UTC_TIME:
            data[col] = pd.to_datetime(pd.array(values, dtype="Float64"), unit="s", utc=True).astype(UTC_TIME)
        elif dtype is object:
            series = pd.Series(values, dtype=object)
            data[col] = series
        else:
            data[col] = pd.Series(values, dtype=object if dtype != "string" else None).astype(dtype)
    return pd.DataFrame(data, columns=list(schema))
