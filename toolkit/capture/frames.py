"""Every public DataFrame's columns and dtypes, declared once, and built only through the declaration.

A ``Frame`` is a name and its columns; ``declare`` registers it so a test can check every public frame
(its dtypes, also when it is empty). The capture frames are declared here; each layer and analysis
declares its own result frames beside the code that fills them.

Small vocabularies are categoricals with fixed categories, so filters and plots are predictable;
columns that can be missing use nullable dtypes; times are UTC.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from toolkit.wire.records import ADDITIONAL_PROPERTIES, PROBLEM_KINDS, STRICT_STATES, TERMINALS, WIRE_APIS

__all__ = [
    "CAPTURE",
    "CAT",
    "DECLARED",
    "INPUTS_SENT",
    "INPUTS_WIDE",
    "INPUT_PART",
    "SCHEMAS",
    "TEXT_PREVIEW",
    "UTC_TIME",
    "Frame",
    "declare",
    "empty",
    "fixed",
    "from_rows",
]


UTC_TIME = "datetime64[us, UTC]"
CAT = "category"  # a categorical whose categories are whatever the data holds


def fixed(*values: str) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(list(values))


@dataclass(frozen=True)
class Frame:
    """One public DataFrame: its name, and its columns in order with their dtypes."""

    name: str
    columns: Mapping[str, Any]

    def empty(self) -> pd.DataFrame:
        return self.from_columns({col: [] for col in self.columns})

    def renamed(self, names: Mapping[str, str]) -> Frame:
        """The same frame with columns renamed, for a column named by the caller (``by="model"``);
        not registered: the declaration stays the one of the default names."""
        cols = {names.get(c, c): d for c, d in self.columns.items()}
        if len(cols) != len(self.columns):
            raise ValueError(f"{self.name}: renaming {dict(names)} makes two columns one")
        return Frame(self.name, cols)

    def select(self, names: Iterable[str]) -> Frame:
        """The frame with only the named declared columns, in the order given (a caller's subset)."""
        names = list(names)
        unknown = [n for n in names if n not in self.columns]
        if unknown or len(set(names)) != len(names):
            raise ValueError(f"{self.name}: cannot select {names} (unknown {unknown})")
        return Frame(self.name, {n: self.columns[n] for n in names})

    def from_rows(self, rows: Iterable[tuple]) -> pd.DataFrame:
        """From row tuples in column order; every row is checked, not only the first."""
        rows = list(rows)
        width = len(self.columns)
        if set(map(len, rows)) - {width}:  # the widths at C speed; the first bad row named when one is found
            i, n = next((i, len(row)) for i, row in enumerate(rows) if len(row) != width)
            raise ValueError(f"{self.name}: row {i} has {n} values for {width} columns")
        # a column at a time: zip(*rows) would make an iterator per row, slower on long frames
        return self.from_columns({c: list(map(itemgetter(i), rows)) for i, c in enumerate(self.columns)})

    def from_records(self, records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
        """From dicts keyed by column; a missing or unknown key is a bug in the caller, not data."""
        cols: dict[str, list] = {c: [] for c in self.columns}
        for i, rec in enumerate(records):
            if rec.keys() != cols.keys():
                missing, extra = sorted(cols.keys() - rec.keys()), sorted(rec.keys() - cols.keys())
                raise ValueError(f"{self.name}: record {i} is missing {missing} and has unknown {extra}")
            for c in cols:
                cols[c].append(rec[c])
        return self.from_columns(cols)

    def from_columns(self, columns: Mapping[str, list]) -> pd.DataFrame:
        """From column lists, applying the declared dtypes."""
        data = {}
        for col, dtype in self.columns.items():
            values = columns[col]
            if dtype == UTC_TIME:
                data[col] = _utc(values)
            elif dtype is object:
                data[col] = pd.Series(values, dtype=object)
            else:
                if isinstance(dtype, pd.CategoricalDtype):  # astype would turn an unknown value into a silent NA
                    known = set(dtype.categories)
                    try:  # each distinct value once (a column holds few), not every row
                        distinct: Iterable[Any] = set(values)
                    except TypeError:  # an unhashable value: it is reported below all the same
                        distinct = values
                    odd = sorted({str(v) for v in distinct if not pd.isna(v) and v not in known})
                    if odd:
                        raise ValueError(f"{self.name}.{col}: {odd} not in {list(dtype.categories)}")
                    if isinstance(distinct, set):  # codes by one lookup per row, not astype's hashing of objects
                        data[col] = pd.Series(_categorical(values, dtype, distinct))
                        continue
                data[col] = pd.Series(values, dtype=object).astype(dtype)
        return pd.DataFrame(data, columns=list(self.columns))

    def conform(self, df: pd.DataFrame) -> pd.DataFrame:
        """An existing frame with exactly the declared columns, in order, cast to the declared dtypes."""
        missing, extra = sorted(set(self.columns) - set(df.columns)), sorted(set(df.columns) - set(self.columns))
        if missing or extra:
            raise ValueError(f"{self.name}: missing columns {missing}, unknown columns {extra}")
        return self.from_columns({c: list(df[c]) for c in self.columns})

    def mismatches(self, df: pd.DataFrame) -> list[str]:
        """What differs between ``df`` and the declaration (empty when it conforms); for tests."""
        if list(df.columns) != list(self.columns):
            return [f"{self.name}: columns {list(df.columns)} != declared {list(self.columns)}"]
        out = []
        for col, dtype in self.columns.items():
            actual = df[col].dtype
            if dtype == CAT:
                ok = isinstance(actual, pd.CategoricalDtype)
            elif dtype is object:
                ok = actual == np.dtype(object)
            else:
                ok = actual == pd.api.types.pandas_dtype(dtype)
            if not ok:
                out.append(f"{self.name}.{col}: {actual} != declared {dtype}")
        return out


def _categorical(values: list, dtype: pd.CategoricalDtype, distinct: set) -> pd.Categorical:
    """``values`` (each a category or missing, as checked) as a categorical of ``dtype``."""
    code = {c: i for i, c in enumerate(dtype.categories)}
    code.update((v, -1) for v in distinct if v not in code)  # the missing values
    codes = np.fromiter(map(code.__getitem__, values), dtype=np.int32, count=len(values))
    return pd.Categorical.from_codes(codes, dtype=dtype)


def _utc(values: list) -> pd.Series:
    """UTC times from epoch seconds (the readers' form) or from timestamps (a frame's own values)."""
    if any(isinstance(v, datetime | np.datetime64) for v in values):
        return pd.Series(pd.to_datetime(pd.Series(values, dtype=object), utc=True)).astype(UTC_TIME)
    return pd.Series(pd.to_datetime(pd.array(values, dtype="Float64"), unit="s", utc=True).astype(UTC_TIME))


#: Every declared public frame, by name (filled by ``declare`` as modules load).
DECLARED: dict[str, Frame] = {}


def declare(name: str, columns: Mapping[str, Any]) -> Frame:
    """Register a public frame; one name, one definition."""
    if name in DECLARED and dict(DECLARED[name].columns) != dict(columns):
        raise ValueError(f"frame {name!r} is declared twice, differently")
    DECLARED[name] = frame = Frame(name, dict(columns))
    return frame


#: What ``input_parts`` keeps of a request's content part: everything about the part itself, nothing
#: about where it sat. A conversation resends its history in every request, so storing this per request
#: (as ``inputs`` once did) grows with the square of the conversation's length; stored once, it does not.
INPUT_PART: dict[str, object] = {
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
}

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
        "api": fixed(*WIRE_APIS),
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
        "additional_properties": fixed(*ADDITIONAL_PROPERTIES),
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
    # one row per part a request sent past the input of the earlier request it begins with (its row of
    # ``input_prefixes``; no such row: every part it sent): where it sat, and which part it was
    "inputs": {
        "exchange_id": "string",
        "item_index": "Int64",
        "part_index": "Int64",
        "part_id": "string",  # the row of ``input_parts``
    },
    # one row per request whose input begins with the whole input of an earlier request of its source: the
    # longest such (ties: the latest). A retry resends it all; an agent loop adds a few items each step.
    "input_prefixes": {
        "exchange_id": "string",
        "prefix_of": "string",  # the earlier request
        "items": "Int64",  # how many leading input items the two share
        "parts": "Int64",  # how many parts those items hold: the earlier request's whole input
    },
    "input_parts": {  # one row per distinct part, however many requests resent it
        "part_id": "string",
        **INPUT_PART,
        "uses": "Int64",  # how many times requests sent it (its rows of ``inputs_sent``)
        "first_exchange_id": "string",
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
        "kind": fixed(*PROBLEM_KINDS),  # one vocabulary for every reader (records.PROBLEM_KINDS)
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

#: The capture frames, declared.
CAPTURE: dict[str, Frame] = {name: declare(name, cols) for name, cols in SCHEMAS.items()}

#: ``Capture.inputs_sent()``: one row per part each request sent, prefix included (``inputs`` expanded
#: through ``input_prefixes``; the rows ``inputs`` held before repeated parts were stored once).
INPUTS_SENT = declare("inputs_sent", SCHEMAS["inputs"])

#: ``Capture.inputs_wide()``: ``inputs_sent`` joined to ``input_parts``, one row per part sent with all it
#: was (the shape ``inputs`` had before parts were stored once).
INPUTS_WIDE = declare(
    "inputs_wide", {**{c: SCHEMAS["inputs"][c] for c in ("exchange_id", "item_index", "part_index")}, **INPUT_PART}
)


def empty(name: str) -> pd.DataFrame:
    return CAPTURE[name].empty()


def from_rows(name: str, rows: list[tuple]) -> pd.DataFrame:
    """Build capture frame ``name`` from row tuples in its declared column order."""
    return CAPTURE[name].from_rows(rows)
