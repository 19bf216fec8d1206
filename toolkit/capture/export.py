"""Frames to Parquet, for logs too large for a notebook (DuckDB, Spark): one file per frame and a manifest.

Parquet has no column of arbitrary Python objects, so the object columns (parsed arguments, schemas,
payloads, tuples of names) are written as JSON text; the manifest says which.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from toolkit.capture import FRAME_NAMES, Capture, frames

__all__ = [
    "write_parquet",
]


def write_parquet(capture: Capture, out: Path, *, inputs: list[str] | None = None) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict = {
        "format": "agent-contract-toolkit frames",
        "version": 1,
        "redacted": capture.redacted,
        "inputs": inputs or [],
        "summary": _records(capture.summary()),
        "frames": {},
    }
    for name in FRAME_NAMES:
        df = getattr(capture, name).copy()
        json_columns = [c for c, t in frames.SCHEMAS[name].items() if t is object]
        for col in json_columns:
            df[col] = df[col].map(lambda v: None if v is None else json.dumps(v, ensure_ascii=False, default=list))
        path = out / f"{name}.parquet"
        df.to_parquet(path, index=False)
        manifest["frames"][name] = {
            "file": path.name,
            "rows": len(df),
            "json_columns": json_columns,
            "columns": {c: str(t) for c, t in getattr(capture, name).dtypes.items()},
        }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return manifest


def _records(df: pd.DataFrame) -> list[dict]:
    return json.loads(df.to_json(orient="records"))
