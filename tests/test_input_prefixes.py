"""Repeated inputs stored once per request (issue 17): ``inputs`` past a prefix, ``input_prefixes``, ``expand``.

The narrow view is checked against one built here the old way, one row per part per request straight
from the readers' records; prefixes are checked against a brute-force search over every earlier request.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

import toolkit
from toolkit.capture import dataset, frames, load
from toolkit.capture.inputs import PrefixError, expand
from toolkit.capture.load import part_id
from toolkit.capture.redact import redact_text
from toolkit.sources import detect
from toolkit.wire.records import Decoded

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"
BUSY = DATA / "busy-day" / "gateway.jsonl"

_spec = importlib.util.spec_from_file_location("bench_ingest", REPO / "tests" / "benchmarks" / "ingest.py")
assert _spec is not None and _spec.loader is not None
BENCH = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(BENCH)


def _old_narrow(path: Path, *, redact: bool = True) -> pd.DataFrame:
    """``inputs`` as it was before prefixes: one (request, item, part, part id) row per part per request."""
    rows = []
    for rec in detect.reader_for(detect.detect(path))(path, path.name):
        if not isinstance(rec, Decoded):
            continue
        for p in rec.inputs:
            text = p.text
            preview = None if text is None else text[: frames.TEXT_PREVIEW]
            if redact and preview is not None:
                preview = redact_text(preview)
            values = (p.role, p.item_type, p.part_type, p.call_id, p.name, p.media_type, p.byte_size)
            values += (None if text is None else len(text), preview, p.image_dropped)
            rows.append((rec.exchange.exchange_id, p.item_index, p.part_index, part_id(values)))
    return frames.INPUTS_SENT.from_rows(rows)


@pytest.fixture(scope="module")
def generated(tmp_path_factory, write_conversation) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("generated")
    out = {
        "conversation": folder / "conversation.har",
        "retries": folder / "retries.har",
        "bench": folder / "bench.har",
    }
    write_conversation(out["conversation"], 60)
    write_conversation(out["retries"], 20, retry_every=3)
    BENCH.make_har(out["bench"], 40)
    return out


CASES = [
    BUSY,
    DATA / "dsh-before-fix" / "capture.har",
    DATA / "dsh-before-fix" / "gateway.jsonl",
    DATA / "dsh-before-fix" / "session.jsonl.zstd",
    DATA / "dsh-image" / "session.jsonl.zstd",
    DATA / "two-hop-chat" / "back.har",  # Chat Completions
    DATA / "other-apis" / "capture.har",  # Responses and Chat
    REPO / "tests" / "fixtures" / "messages" / "sdk_capture.jsonl",  # Messages: the system prompt is item -1
]


def _case(request, generated) -> Path:
    return generated[request.param] if isinstance(request.param, str) else request.param


@pytest.fixture(params=[*CASES, "conversation", "retries", "bench"], ids=lambda p: p if isinstance(p, str) else p.name)
def case(request, generated) -> Path:
    return _case(request, generated)


def test_the_narrow_view_is_the_old_inputs_frame_row_for_row(case):
    for redact in (True, False):
        cap = toolkit.load_capture(case, redact=redact)
        sent = cap.inputs_sent()
        pd.testing.assert_frame_equal(sent, _old_narrow(case, redact=redact))
        assert frames.INPUTS_SENT.mismatches(sent) == []
        assert frames.CAPTURE["input_prefixes"].mismatches(cap.input_prefixes) == []
        # what the parts count as used, and the summary's inputs, are still the parts sent
        assert int(cap.input_parts["uses"].sum()) == len(sent) == int(cap.summary()["inputs"].sum())


def _sequences(cap) -> dict[str, list[tuple]]:
    sent = cap.inputs_sent()
    rows = zip(sent["exchange_id"], sent["item_index"], sent["part_index"], sent["part_id"])
    out: dict[str, list[tuple]] = {x: [] for x in cap.exchanges["exchange_id"]}
    for x, *row in rows:
        out[x].append(tuple(row))
    return out


def test_each_prefix_is_the_longest_latest_earlier_whole_input(case):
    cap = toolkit.load_capture(case)
    seqs = _sequences(cap)
    source = dict(zip(cap.exchanges["exchange_id"], cap.exchanges["source"]))
    found = {r.exchange_id: r for r in cap.input_prefixes.itertuples(index=False)}
    order = list(cap.exchanges["exchange_id"])
    for i, x in enumerate(order):
        seq, best = seqs[x], None
        for earlier in order[:i]:  # brute force: every earlier request of the source, whole input at an item end
            prev = seqs[earlier]
            n = len(prev)
            if source[earlier] != source[x] or not n or seq[:n] != prev:
                continue
            if n < len(seq) and seq[n][0] == seq[n - 1][0]:
                continue  # ends inside one of this request's items
            if best is None or n >= len(seqs[best]):
                best = earlier
        if best is None:
            assert x not in found, x
            continue
        row = found[x]
        assert row.prefix_of == best and order.index(row.prefix_of) < i
        assert row.parts == len(seqs[best]) and row.items == len({ii for ii, _, _ in seqs[best]})
        own = cap.inputs[cap.inputs["exchange_id"] == x]
        assert list(zip(own["item_index"], own["part_index"], own["part_id"])) == seq[row.parts :]


def test_inputs_grow_with_the_conversation_not_its_square(generated):
    cap = toolkit.load_capture(generated["conversation"])
    sent = cap.inputs_sent()
    last = int((sent["exchange_id"] == cap.exchanges["exchange_id"].iloc[-1]).sum())
    assert last == 1 + 3 * 60 and len(sent) == 60 + 3 * 60 * 61 // 2  # what was sent: quadratic
    assert len(cap.inputs) <= 2 * last  # what is stored: linear
    assert len(cap.inputs) == last and len(cap.input_prefixes) == 59  # an agent loop: each part once
    prefixes = cap.input_prefixes
    assert list(prefixes["prefix_of"]) == list(cap.exchanges["exchange_id"].iloc[:-1])


def test_a_retry_is_a_prefix_covering_everything(generated):
    cap = toolkit.load_capture(generated["retries"])
    ids = list(cap.exchanges["exchange_id"])
    whole = cap.input_prefixes[~cap.input_prefixes["exchange_id"].isin(cap.inputs["exchange_id"])]
    assert len(whole) == 7  # turns 0, 3, ..., 18 sent twice
    for r in whole.itertuples(index=False):
        assert ids.index(r.prefix_of) == ids.index(r.exchange_id) - 1  # the attempt just before
    # a request after a retry begins with the retry (ties: the latest earlier request)
    after = cap.input_prefixes.set_index("exchange_id")["prefix_of"]
    retried = set(whole["exchange_id"])
    assert all(after[ids[ids.index(x) + 1]] == x for x in retried if ids.index(x) + 1 < len(ids))


def test_a_hash_collision_cannot_join_two_inputs(monkeypatch, case):
    """With every chain hash equal, only the part-by-part check tells inputs apart: same frames."""
    honest = toolkit.load_capture(case)
    monkeypatch.setattr(load, "hash", lambda _value: 0, raising=False)
    colliding = toolkit.load_capture(case)
    for name in ("inputs", "input_prefixes", "input_parts"):
        pd.testing.assert_frame_equal(getattr(colliding, name), getattr(honest, name))


def _from_dataset(out: Path) -> pd.DataFrame:
    ids = dataset.read_frame(out, "exchanges")["exchange_id"]
    return expand(dataset.read_frame(out, "inputs"), dataset.read_frame(out, "input_prefixes"), ids)


@pytest.mark.parametrize("name", ["busy", "conversation", "retries"])
def test_a_chunked_ingest_expands_to_the_same_rows(tmp_path, generated, name):
    path = BUSY if name == "busy" else generated[name]
    cap = toolkit.load_capture(path)
    dataset.ingest(path, tmp_path, chunk=7)
    pd.testing.assert_frame_equal(_from_dataset(tmp_path), cap.inputs_sent())
    stored = dataset.read_frame(tmp_path, "inputs")
    assert len(cap.inputs) <= len(stored) < len(cap.inputs_sent())  # each chunk's first requests store it all


def _narrow_sql() -> str:
    """The README's DuckDB query for today's narrow view (section "Large logs"): the documented one is run."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    (query,) = [b.split("```", 1)[0] for b in text.split("```sql\n")[1:] if "WITH RECURSIVE chain" in b]
    return query


@pytest.mark.parametrize(("name", "chunk"), [("busy", 50), ("conversation", 7)])
def test_duckdb_expands_the_dataset_as_expand_does(tmp_path, generated, name, chunk):
    duckdb = pytest.importorskip("duckdb")
    path = BUSY if name == "busy" else generated[name]
    dataset.ingest(path, tmp_path, chunk=chunk)
    con = duckdb.connect()
    for frame in ("exchanges", "inputs", "input_prefixes"):
        files = str(tmp_path / frame / "**" / "*.parquet")
        con.execute(
            f"CREATE VIEW {frame} AS SELECT * FROM read_parquet('{files}', hive_partitioning = true, "
            "filename = true, file_row_number = true)"
        )
    got = frames.INPUTS_SENT.conform(con.execute(_narrow_sql()).df())
    con.close()
    want = _from_dataset(tmp_path)
    assert len(want) == len(toolkit.load_capture(path).inputs_sent()) == {"busy": 1012, "conversation": 5550}[name]
    pd.testing.assert_frame_equal(got, want)


def test_expand_narrows_before_it_copies_and_keeps_the_order_asked():
    cap = toolkit.load_capture(BUSY)
    sent = cap.inputs_sent()
    ids = list(cap.exchanges["exchange_id"])
    pick = [ids[40], ids[7], ids[40]]  # in exchanges order, each once
    want = sent[sent["exchange_id"].isin(pick)].reset_index(drop=True)
    pd.testing.assert_frame_equal(cap.inputs_sent(pick), want)
    outputs = cap.input_parts[cap.input_parts["item_type"] == "function_call_output"]
    want = sent[sent["part_id"].isin(outputs["part_id"])].reset_index(drop=True)
    pd.testing.assert_frame_equal(cap.inputs_sent(parts=outputs), want)
    # expand itself keeps the order it is given
    got = expand(cap.inputs, cap.input_prefixes, [ids[40], ids[7]])
    assert list(pd.unique(got["exchange_id"])) == [x for x in (ids[40], ids[7]) if x in set(sent["exchange_id"])]


def test_frames_that_do_not_fit_are_refused_with_the_request_named():
    cap = toolkit.load_capture(BUSY)
    ids = cap.exchanges["exchange_id"]
    pre = cap.input_prefixes
    row = pre[pre["prefix_of"].isin(cap.inputs["exchange_id"])].iloc[-1]
    missing = cap.inputs[cap.inputs["exchange_id"] != row["prefix_of"]]  # as if a source were not read
    with pytest.raises(PrefixError, match=f"request '{row['exchange_id']}' begins with the {row['parts']} parts"):
        expand(missing, cap.input_prefixes, ids)
    looped = cap.input_prefixes.copy()
    looped.loc[looped.index[0], "prefix_of"] = looped.iloc[0]["exchange_id"]
    with pytest.raises(PrefixError, match="prefixes loop"):
        expand(cap.inputs, looped, ids)
    twice = pd.concat([cap.input_prefixes, cap.input_prefixes.iloc[:1]])
    with pytest.raises(PrefixError, match="more than one row"):
        expand(cap.inputs, twice, ids)
    assert issubclass(PrefixError, toolkit.errors.InputError)


def test_an_empty_capture_has_typed_empty_prefix_frames(tmp_path):
    p = tmp_path / "empty.har"
    p.write_text('{"log": {"version": "1.2", "entries": []}}')
    cap = toolkit.load_capture(p)
    assert frames.CAPTURE["input_prefixes"].mismatches(cap.input_prefixes) == []
    assert frames.INPUTS_SENT.mismatches(cap.inputs_sent()) == [] and cap.inputs_sent().empty
