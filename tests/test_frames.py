"""The frame declaration: every row checked, empty frames typed, one definition per name."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit.capture import frames

DEMO = frames.Frame("demo", {"id": "string", "n": "Int64", "kind": frames.fixed("a", "b"), "obj": object})


def test_every_row_is_checked_not_only_the_first():
    with pytest.raises(ValueError, match=r"demo: row 2 has 3 values for 4 columns"):
        DEMO.from_rows([("x", 1, "a", None), ("y", 2, "b", None), ("z", 3, "a")])


def test_records_must_have_exactly_the_declared_keys():
    with pytest.raises(ValueError, match=r"record 1 is missing \['obj'\] and has unknown \['other'\]"):
        DEMO.from_records([{"id": "x", "n": 1, "kind": "a", "obj": 1}, {"id": "y", "n": 2, "kind": "b", "other": 0}])


def test_empty_frames_carry_the_declared_dtypes():
    empty = DEMO.empty()
    assert DEMO.mismatches(empty) == []
    assert str(empty["n"].dtype) == "Int64" and list(empty["kind"].cat.categories) == ["a", "b"]
    assert empty["obj"].dtype == object


def test_mismatches_name_the_column_and_both_dtypes():
    df = pd.DataFrame({"id": ["x"], "n": [1], "kind": ["a"], "obj": [None]})
    assert DEMO.mismatches(df) == [
        "demo.id: str != declared string",
        "demo.n: int64 != declared Int64",
        "demo.kind: str != declared category",
    ]
    assert DEMO.mismatches(DEMO.conform(df)) == []


def test_a_name_has_one_definition():
    frames.declare("test-demo", {"a": "string"})
    frames.declare("test-demo", {"a": "string"})  # the same declaration again (a module reloaded) is fine
    with pytest.raises(ValueError, match="declared twice"):
        frames.declare("test-demo", {"a": "Int64"})
    del frames.DECLARED["test-demo"]


def test_times_come_from_epoch_seconds_or_timestamps_to_the_microsecond():
    times = frames.Frame("t", {"at": frames.UTC_TIME})
    from_epoch = times.from_columns({"at": [1764583200.123456, None]})
    stamps = list(from_epoch["at"])
    again = times.from_columns({"at": stamps})
    assert times.mismatches(again) == [] and again["at"].equals(from_epoch["at"])
    assert str(again["at"].iloc[0]) == "2025-12-01 10:00:00.123456+00:00" and again["at"].isna().iloc[1]


def test_renamed_and_selected_frames_keep_the_declared_dtypes():
    renamed = DEMO.renamed({"id": "key"})
    assert list(renamed.columns) == ["key", "n", "kind", "obj"] and renamed.columns["key"] == "string"
    with pytest.raises(ValueError, match="makes two columns one"):
        DEMO.renamed({"id": "n"})
    assert list(DEMO.select(["kind", "id"]).columns) == ["kind", "id"]
    with pytest.raises(ValueError, match="unknown"):
        DEMO.select(["id", "nope"])


#: Every public frame of the toolkit. A new one is declared beside the code that builds it and listed here.
EXPECTED_FRAMES = {
    *frames.SCHEMAS,
    "capability.check",
    "capture.entries",
    "capture.summary",
    "config.findings",
    "config.models",
    "config.routes",
    "experiment.answers",
    "experiment.changes",
    "experiment.plan",
    "experiment.summary",
    "hops.align",
    "hops.diff",
    "inputs_sent",
    "inputs_wide",
    "plots.error_counts",
    "plots.recorded_twice",
    "plots.strict_counts",
    "plots.timeline",
    "provenance.table",
    "questions.errors_by_layer_route",
    "questions.filled_optional",
    "questions.latency_by_terminal",
    "questions.strict_by_endpoint",
    "replay",
    "serialization.compare",
    "serialization.attribution",
    "serialization.variants",
    "strict.verdicts",
    "triage.errors",
    "verify.filled_calls",
    "verify.table",
    "whatif",
    "widgets.exchange",
    "widgets.exchanges",
    "widgets.whatif_table",
}


def test_every_public_frame_is_declared_and_listed():
    import importlib
    import pkgutil

    import toolkit

    for mod in pkgutil.walk_packages(toolkit.__path__, "toolkit."):
        importlib.import_module(mod.name)
    assert set(frames.DECLARED) == EXPECTED_FRAMES


def test_a_value_outside_a_fixed_vocabulary_is_refused_not_turned_into_na():
    with pytest.raises(ValueError, match=r"demo.kind: \['c'\] not in \['a', 'b'\]"):
        DEMO.from_rows([("x", 1, "a", None), ("y", 2, "c", None)])
    assert DEMO.from_rows([("x", None, None, None)])["kind"].isna().all()  # a missing value stays missing
