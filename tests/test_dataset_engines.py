"""The Parquet dataset one `ingest_with_dask` run writes is read by the other engines a user would
point at it: Polars and pyarrow's hive-partitioned datasets (the layout Spark reads), with the same
rows per source and the same exchange ids as `read_frame`."""

from __future__ import annotations

import polars as pl
import pyarrow.dataset as pads

from toolkit.capture import dataset

PATHS = ["data/busy-day/gateway.jsonl", "data/dsh-before-fix/session.jsonl.zstd", "data/dsh-before-fix/capture.har"]


def test_polars_and_pyarrow_read_the_dataset_dask_wrote(tmp_path):
    entries = dataset.ingest_with_dask(PATHS, tmp_path, scheduler="threads")
    expected = {e["source"]: e["rows"]["tools"] for e in entries}
    assert len(expected) == 3 and all(expected.values())
    tools = pl.scan_parquet(f"{tmp_path}/tools/**/*.parquet", hive_partitioning=True)
    by_source = tools.group_by("source").agg(pl.len().alias("n")).collect()
    assert dict(zip(by_source["source"], by_source["n"])) == expected  # the source= folder decoded back
    ids = pl.scan_parquet(f"{tmp_path}/exchanges/**/*.parquet", hive_partitioning=True).select("exchange_id").collect()
    assert sorted(ids["exchange_id"]) == sorted(dataset.read_frame(tmp_path, "exchanges")["exchange_id"])
    arrow = pads.dataset(tmp_path / "calls", format="parquet", partitioning="hive").to_table()
    assert arrow.num_rows == len(dataset.read_frame(tmp_path, "calls")) == sum(e["rows"]["calls"] for e in entries)
    days = set(arrow.column("day").to_pylist())
    assert days and all(d == "unknown" or len(d) == 10 for d in days)
