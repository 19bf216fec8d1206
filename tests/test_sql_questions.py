"""The DuckDB path (``toolkit.analysis.sql``) gives the pandas answers (``toolkit.analysis.questions``) on
the bundled captures, read from either dataset layout (``export.write_parquet``: a file per frame;
``dataset.ingest``: hive-partitioned, a frame without rows has no files), and the answers are not trivial.

Both paths return their rows sorted by ``questions.KEYS`` (the documented order); the comparison sorts
again by those keys so that a difference in order alone would still be reported as what it is."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.analysis import questions, sql
from toolkit.analysis.triage import errors
from toolkit.capture.dataset import DatasetError, ingest
from toolkit.capture.export import write_parquet
from toolkit.capture.frames import DECLARED

pytest.importorskip("duckdb")  # the scale extra

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURES = {
    "busy-day": ["busy-day/gateway.jsonl"],
    "before-fix": ["before-fix/capture.har"],
    "dsh-before-fix": ["dsh-before-fix/capture.har", "dsh-before-fix/session.jsonl.zstd"],
}
QUESTIONS = ("errors_by_layer_route", "strict_by_endpoint", "filled_optional", "latency_by_terminal")
FRAMES = {
    "errors_by_layer_route": questions.ERRORS_BY_LAYER_ROUTE,
    "strict_by_endpoint": questions.STRICT_BY_ENDPOINT,
    "filled_optional": questions.FILLED_OPTIONAL,
    "latency_by_terminal": questions.LATENCY_BY_TERMINAL,
}


_PREPARED: dict[str, tuple] = {}


def _prepared(name: str, tmp_path_factory) -> tuple:
    """The capture, its dataset in both layouts, and the pandas answers: built once per capture."""
    if name not in _PREPARED:
        cap = toolkit.load_captures([DATA / p for p in CAPTURES[name]])
        flat = tmp_path_factory.mktemp(f"{name}-export")
        write_parquet(cap, flat)
        partitioned = tmp_path_factory.mktemp(f"{name}-ingest")
        for p in CAPTURES[name]:
            ingest(DATA / p, partitioned, progress=False)
        roots = {"export": flat, "ingest": partitioned}
        _PREPARED[name] = cap, roots, {q: getattr(questions, q)(cap) for q in QUESTIONS}
    return _PREPARED[name]


@pytest.fixture(scope="module", params=sorted(CAPTURES))
def datasets(request, tmp_path_factory):
    return _prepared(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def busy_day(tmp_path_factory):
    return _prepared("busy-day", tmp_path_factory)


def _sorted(df: pd.DataFrame, frame) -> pd.DataFrame:
    return df.sort_values(list(questions.KEYS[frame.name]), na_position="last", kind="stable").reset_index(drop=True)


@pytest.mark.parametrize("layout", ["export", "ingest"])
@pytest.mark.parametrize("question", QUESTIONS)
def test_duckdb_answers_equal_the_pandas_answers(datasets, question, layout):
    _, roots, answers = datasets
    frame = FRAMES[question]
    expected = answers[question]
    got = getattr(sql, question)(roots[layout])
    assert frame.mismatches(expected) == [] and frame.mismatches(got) == []
    assert len(expected) > 0
    pd.testing.assert_frame_equal(_sorted(got, frame), _sorted(expected, frame))
    pd.testing.assert_frame_equal(got, expected)  # and the documented order is already there


def test_the_answers_are_declared_frames():
    for frame in FRAMES.values():
        assert DECLARED[frame.name] is frame and frame.name in questions.KEYS


def test_busy_day_answers_are_not_trivial(busy_day):
    cap, roots, _ = busy_day
    root = roots["ingest"]
    errs = sql.errors_by_layer_route(root)
    assert errs["layer"].nunique() > 1 and errs["endpoint"].nunique() > 1
    assert errs["errors"].sum() == len(errors(cap))
    strict = sql.strict_by_endpoint(root)
    assert sum(int(strict[s].sum()) > 0 for s in ("absent", "null", "false", "true")) > 1
    assert strict["tools"].sum() == len(cap.tools)
    filled = sql.filled_optional(root)
    assert (filled["filled"] == 0).any() and (filled["filled"] == filled["calls"]).any()
    assert filled["empty"].sum() > 0
    latency = sql.latency_by_terminal(root)
    assert latency["terminal"].nunique() > 1 and latency["exchanges"].sum() == len(cap.exchanges)


def test_strict_by_endpoint_agrees_with_the_strict_matrix(datasets):
    from toolkit.present.plots import NO_EXCHANGE, strict_counts

    cap, _, answers = datasets
    cells = strict_counts(cap, rows="endpoint", cols="api")
    states = ["absent", "null", "false", "true", "tools"]
    by_plot = cells.groupby(cells["endpoint"].astype(object), sort=True)[states].sum().astype("Int64")
    answer = answers["strict_by_endpoint"]
    mine = answer.assign(endpoint=answer["endpoint"].fillna(NO_EXCHANGE)).set_index("endpoint")[states]
    pd.testing.assert_frame_equal(mine.sort_index(), by_plot.sort_index(), check_names=False, check_index_type=False)


def test_before_fix_errors_sit_in_more_than_one_layer(tmp_path_factory):
    errs = _prepared("before-fix", tmp_path_factory)[2]["errors_by_layer_route"]
    assert errs["layer"].nunique() > 1


def test_a_folder_without_a_dataset_is_refused(tmp_path):
    with pytest.raises(DatasetError, match="holds no frame of a capture"):
        sql.latency_by_terminal(tmp_path)
    with pytest.raises(DatasetError, match="not a dataset folder"):
        sql.latency_by_terminal(tmp_path / "missing")
