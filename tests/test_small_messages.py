"""Small things a reader meets: the JSON decoder's position kept in its sentence, one thing counted in
the singular, a dataset's dtypes named as pandas names them, the last progress line equal to the count
the manifest keeps."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import REPO

import toolkit
from toolkit import CaptureError
from toolkit.capture import dataset
from toolkit.present import cli

RUN = REPO / "data" / "dsh-before-fix"
BUSY = REPO / "data" / "busy-day" / "gateway.jsonl"


def test_a_har_cut_mid_string_says_where_the_string_starts(tmp_path):
    raw = (RUN / "capture.har").read_bytes()
    assert raw.isascii()  # characters are bytes
    second = raw.index(b'"startedDateTime"', raw.index(b'"startedDateTime"') + 1)
    opening = raw.index(b'"url": "', second) + len(b'"url": ')  # the quote that opens the cut string
    path = tmp_path / "cut.har"
    path.write_bytes(raw[: opening + 12])
    cap = toolkit.load_capture(path)
    (message,) = cap.problems["message"]
    entry = raw.rindex(b"{", 0, second)
    assert message.startswith(
        f"Unterminated string starting at byte {opening} in the entry starting at byte {entry}"
    ), message
    path.write_bytes(raw[: raw.index(b'"url": "') + 20])  # in the first entry: nothing before it to keep
    with pytest.raises(CaptureError, match=r"Unterminated string starting at byte \d+ in the entry starting at byte"):
        toolkit.load_capture(path)


def test_the_manifest_names_each_dtype_as_pandas_reads_it_back(tmp_path):
    dataset.ingest(RUN / "capture.har", tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    names = {t for frame in manifest["frames"].values() for t in frame["columns"].values()}
    assert "object" in names and not any("<class" in t for t in names)
    for t in names:
        pd.api.types.pandas_dtype(t)  # every name reads back as a dtype


def test_the_last_progress_line_is_the_count_the_manifest_keeps(tmp_path, monkeypatch):
    seen: list[int] = []

    class Recorded(dataset.Progress):
        def __exit__(self, *exc):
            seen.append(self.n)  # the count the final line shows
            return super().__exit__(*exc)

    monkeypatch.setattr(dataset, "Progress", Recorded)
    monkeypatch.setattr(dataset, "PARALLEL_MIN_BYTES", 1 << 20)
    for jobs in (1, 3):
        entry = dataset.ingest(BUSY, tmp_path / f"jobs{jobs}", jobs=jobs)
        assert entry["parts"] == jobs
        assert seen[-1] == entry["records"], (jobs, seen[-1], entry["records"])


def test_one_capture_and_one_finding_are_counted_in_the_singular(tmp_path, capsys, monkeypatch):
    assert cli.main(["ingest", str(RUN / "capture.har"), "--out", str(tmp_path / "ds"), "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    assert f"wrote 1 capture and manifest.json to {tmp_path / 'ds'}" in captured.err
    settings = tmp_path / "settings.yaml"
    text = (RUN / "settings.yaml").read_text(encoding="utf-8").replace("inputModalities", "input")
    settings.write_text(text, encoding="utf-8")
    monkeypatch.setenv("GATEWAY_API_KEY", "set")  # checked by name only: one finding is left
    cli.main(["config", str(settings)])
    out = capsys.readouterr().out
    assert "\n1 finding:\n" in out and "1 findings" not in out


def test_summary_counts_one_capture_in_the_singular(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("not a capture\n", encoding="utf-8")
    cli.main(["summary", str(RUN / "capture.har"), str(tmp_path)])
    out = capsys.readouterr().out
    assert "\n1 capture: entries " in out and "1 captures" not in out
    assert "\nskipped 1 file that is not a capture:\n" in out
