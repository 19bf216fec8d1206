"""The experiment end to end against the lab gateway on 127.0.0.1 (in-process, port 0): the captured
DSH request (data/dsh-before-fix, recorded with the published DSH 0.1.0-rc.8) replayed as variants,
recorded, judged by the model of DSH, and every safety rule: dry run, images, budget, the key, the
host notice, retries, timeouts, redirects, Ctrl-C. Plus the gateway's seeded ``gw-sometimes`` persona."""

from __future__ import annotations

import json
import random
import signal

import pandas as pd
import pytest
from conftest import REPO
from experiment_lab import BEFORE, DSH, EXCHANGE, FAST, MODE, Fixed, Gateway, experiment, gateway, go, serving

from toolkit.capture import load_capture
from toolkit.errors import InputError
from toolkit.experiment import frames
from toolkit.experiment.send import Limits, Sender, user_agent
from toolkit.knowledge import dsh_runtime as rt
from toolkit.present.cli import main

IMAGE = REPO / "data" / "dsh-image" / "capture.har"
KEY = "sk-lab-FAKE-2222222222222222222222222222"


@pytest.fixture
def gw(tmp_path):
    yield from serving(tmp_path)


def recorded_refusal() -> str:
    """The refusal the real DSH sent back to the model in the recorded run (a function_call_output)."""
    cap = load_capture(BEFORE, keep_bodies=True, progress=False)
    for body in cap.bodies["request"]:
        for item in body.get("input") or ():
            if item.get("type") == "function_call_output" and "justification" in str(item.get("output")):
                return str(item["output"])
    raise AssertionError("no refusal in the recorded run")


# --- the experiment against the lab gateway ------------------------------------------------------


def test_strict_absent_is_refused_and_strict_false_is_not(gw, tmp_path):
    out = tmp_path / "out"
    r = go(gw.url(), out)
    assert r.manifest["complete"] is True and r.out == out
    # round-robin: sample 1 of every variant, then sample 2, …
    assert list(zip(r.plan["variant"], r.plan["sample"])) == [
        (v, s) for s in (1, 2, 3) for v in ("strict-absent", "strict-false")
    ]
    assert not frames.PLAN.mismatches(r.plan) and not frames.ANSWERS.mismatches(r.answers)
    assert r.plan["status"].tolist() == [200] * 6 and r.plan["attempts"].tolist() == [1] * 6
    absent = r.answers[r.answers["variant"] == "strict-absent"]
    false = r.answers[r.answers["variant"] == "strict-false"]
    # the gateway's gw-coder fills justification "" under (absent-is-)strict; DSH refuses it with the text
    # the real DSH sent in the recorded run
    assert [a["justification"] for a in absent["arguments"]] == ["", "", ""]
    assert all("justification" in e for e in absent["empty_filled"])
    assert absent["verdict"].tolist() == ["refused"] * 3
    assert absent["rule"].tolist() == [rt.EMPTY_JUSTIFICATION] * 3
    assert rt.EMPTY_JUSTIFICATION in recorded_refusal()
    assert false["verdict"].tolist() == ["accepted"] * 3
    assert all(e == () for e in false["empty_filled"]) and all("justification" not in a for a in false["arguments"])
    s = r.summary.set_index("variant")
    assert s.loc["strict-absent", "refused"] == 3 and s.loc["strict-false", "refused"] == 0
    assert r.comparison["a"] == "strict-absent" and r.comparison["b"] == "strict-false"
    # what the gateway saw: the variants' bodies with only the toolkit's own headers
    seen = gw.lines()
    assert len(seen) == 6
    assert [set(x["gateway"]["strict"].values()) for x in seen] == [{True}, {False}] * 3
    assert all(x["request"]["headers"]["user-agent"] == user_agent() for x in seen)
    assert not any("authorization" in x["request"]["headers"] or "session_id" in x["request"]["headers"] for x in seen)
    # the experiment is itself a capture: every file written, the exchanges read back
    assert sorted(p.name for p in out.iterdir()) == sorted(experiment.FILES)
    cap = load_capture(out / "exchanges.jsonl", progress=False)
    assert len(cap.exchanges) == 6 and cap.problems.empty
    assert set(cap.exchanges["exchange_id"]) == set(r.plan["exchange_id"])
    manifest = json.loads((out / "experiment.json").read_text())
    assert manifest["capture_sha256"] == experiment._sha256(BEFORE)
    assert manifest["counts"] == {"planned": 6, "sent": 6, "answered": 6, "no_answer": 0, "retries": 0}


def test_a_finished_experiment_loads_back_the_same(gw, tmp_path):
    r = go(gw.url(), tmp_path / "out", variants=["strict-absent", "strict-false", "prune-schema"], samples=2)
    back = experiment.load(tmp_path / "out")
    assert back.summary.equals(r.summary)
    assert back.answers.drop(columns=["arguments"]).equals(r.answers.drop(columns=["arguments"]))
    assert back.plan.equals(r.plan)
    assert [(v.name, len(v.changes), v.same_as_captured) for v in back.variants] == [
        (v.name, len(v.changes), v.same_as_captured) for v in r.variants
    ]
    assert back.changes.equals(r.changes)
    assert back.comparison == r.comparison


def test_the_mode_comes_from_the_capture_or_is_unknown(gw, tmp_path):
    r = go(gw.url(), tmp_path / "out", mode=None, samples=1)
    assert r.manifest["mode"] is None  # an HTTP capture says no mode
    with pytest.raises(InputError, match="prune-schema needs the session's sandbox mode"):
        go(gw.url(), tmp_path / "out2", mode=None, variants=["prune-schema"])


def test_the_key_is_sent_and_never_written(gw, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPERIMENT_TEST_KEY", KEY)
    out = tmp_path / "out"
    go(gw.url(), out, api_key_env="EXPERIMENT_TEST_KEY", samples=1)
    assert [x["request"]["headers"]["authorization"] for x in gw.lines()] == [f"Bearer {KEY}"] * 2
    files = list(out.iterdir())
    assert files and not [p.name for p in files if KEY.encode() in p.read_bytes()]
    assert not [p.name for p in files if b"sk-lab-FAKE-0000" in p.read_bytes()]  # nor the captured one


def test_a_named_key_variable_that_is_not_set_is_refused(gw, tmp_path, monkeypatch):
    monkeypatch.delenv("EXPERIMENT_TEST_KEY", raising=False)
    with pytest.raises(InputError, match="EXPERIMENT_TEST_KEY"):
        go(gw.url(), tmp_path / "out", api_key_env="EXPERIMENT_TEST_KEY")
    assert gw.lines() == []


def test_no_endpoint_is_a_dry_run_that_sends_nothing(gw, tmp_path):
    r = go(None, tmp_path / "out")
    assert r.dry_run and r.out is None and r.capture is None and r.answers.empty
    assert len(r.plan) == 6 and r.plan["exchange_id"].isna().all()
    assert r.changes["variant"].unique().tolist() == ["strict-false"]
    assert not (tmp_path / "out").exists()
    r = go(gw.url(), tmp_path / "out", dry_run=True)
    assert r.dry_run and gw.lines() == []


def test_images_are_sent_only_when_allowed(gw, tmp_path):
    kw = {"exchange": "capture.har:4", "variants": ["strict-false"], "samples": 1}
    with pytest.raises(InputError, match=r"capture\.har:4.*\$\.input\[8\]\.output\[1\].*--allow-images"):
        experiment.run(IMAGE, endpoint=gw.url(), mode=MODE, limits=FAST, notice=lambda t: None, **kw)
    assert gw.lines() == []
    # the no-images variant carries none, so it may go; with --allow-images the image goes too
    experiment.run(
        IMAGE, endpoint=gw.url(), mode=MODE, limits=FAST, notice=lambda t: None, **{**kw, "variants": ["no-images"]}
    )
    experiment.run(IMAGE, endpoint=gw.url(), mode=MODE, limits=FAST, notice=lambda t: None, allow_images=True, **kw)
    assert [gateway.first_image_param("responses", x["request"]["body"]) for x in gw.lines()] == [
        None,
        "input[8].output[1]",
    ]


def test_the_budget_is_checked_before_anything_is_sent(gw, tmp_path):
    with pytest.raises(InputError, match=r"3 samples × 2 variants = 6 requests, more than --max-requests 5"):
        go(gw.url(), tmp_path / "out", limits=Limits(rate=1000.0, max_requests=5))
    assert gw.lines() == []


def test_retries_count_against_the_budget_and_each_attempt_is_recorded(gw, tmp_path):
    slept = []
    r = go(
        gw.url("rate-limit"),
        tmp_path / "out",
        variants=["strict-false"],
        samples=2,
        limits=Limits(rate=1000.0, retries=3, max_requests=5),
        sleep=slept.append,
    )
    # 2 planned, 5 allowed: the first request may retry 3 times (4 attempts), the second only once
    assert r.plan["attempts"].tolist() == [4, 1] and r.plan["status"].tolist() == [429, 429]
    assert r.manifest["counts"]["sent"] == 5 == len(gw.lines())
    assert [s for s in slept if s >= 0.5] == [1.0, 1.0, 1.0]  # the gateway's retry-after-ms: 1000
    ids = [json.loads(x)["id"] for x in (tmp_path / "out" / "exchanges.jsonl").read_text().splitlines()]
    assert ids == [f"strict-false-1-a{n}" for n in (1, 2, 3, 4)] + ["strict-false-2-a1"]
    assert r.summary.iloc[0]["errors"] == 2
    assert set(r.answers["error"].dropna()).pop().startswith("Rate limit reached for gw-coder")


def test_a_redirect_is_recorded_and_not_followed(gw, tmp_path):
    tiny = Fixed(307, {"location": gw.url()})
    try:
        r = go(tiny.url, tmp_path / "out", variants=["strict-false"], samples=1)
    finally:
        tiny.close()
    assert len(tiny.paths) == 1 and gw.lines() == []
    assert r.plan["status"].tolist() == [307]


def test_a_timeout_is_recorded_as_no_answer(tmp_path):
    tiny = Fixed(200, {}, hold_until_close=True)
    try:
        r = go(tiny.url, tmp_path / "out", variants=["strict-false"], samples=1, limits=Limits(timeout=0.2))
    finally:
        tiny.close()
    assert r.plan["status"].isna().all() and r.plan["error"].tolist() == ["timed out after 0.2 s"]
    assert r.capture.problems["kind"].tolist() == ["no-response"]
    assert r.capture.exchanges["log_id"].tolist() == ["strict-false-1-a1"]
    (answer,) = r.answers.itertuples(index=False)  # judged as no answer, with the reason
    assert pd.isna(answer.status) and answer.error == "timed out after 0.2 s"
    assert r.summary["answered"].tolist() == [0] and r.summary["samples"].tolist() == [1]


def test_another_host_is_said_before_sending(gw, tmp_path):
    said = []
    go(gw.url(), tmp_path / "out", samples=1, notice=said.append)
    assert said == [f"sending to 127.0.0.1:{gw.server.server_port}, not the captured host 127.0.0.1:18788"]


def test_ctrl_c_stops_after_the_current_request_and_writes_what_was_done(gw, tmp_path):
    def sleep(seconds):  # Ctrl-C while the second request waits for the rate limit
        signal.raise_signal(signal.SIGINT)

    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        go(gw.url(), out, limits=Limits(rate=0.001), sleep=sleep)
    manifest = json.loads((out / "experiment.json").read_text())
    # the request that was waiting is not sent: nothing goes out after a Ctrl-C
    assert manifest["complete"] is False and manifest["counts"]["sent"] == 1
    assert len(gw.lines()) == 1
    back = experiment.load(out)
    assert back.plan["attempts"].tolist() == [1, 0, 0, 0, 0, 0]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_bad_input(gw, tmp_path):
    with pytest.raises(InputError, match=r"no exchange 'capture\.har:99'"):
        go(gw.url(), tmp_path / "o", exchange="capture.har:99")
    with pytest.raises(InputError, match="unknown variant 'strict-maybe'"):
        go(gw.url(), tmp_path / "o", variants=["strict-maybe"])
    with pytest.raises(InputError, match="samples 0"):
        go(gw.url(), tmp_path / "o", samples=0)
    with pytest.raises(InputError, match="not an experiment folder"):
        experiment.load(tmp_path)
    assert gw.lines() == []


# --- the command ---------------------------------------------------------------------------------


def test_cli_dry_run_prints_the_changes_and_sends_nothing(gw, capsys):
    rc = main(["experiment", str(BEFORE), "--exchange", EXCHANGE, "--mode", MODE, "--endpoint", gw.url(), "--dry-run"])
    text = capsys.readouterr().out
    assert rc == 0 and gw.lines() == []
    assert "strict-absent: 0 changes (same as captured)" in text and "strict-false: 25 changes" in text
    assert f"dry run: nothing sent (10 requests would be sent to {gw.url()})" in text


def test_cli_dry_run_says_what_a_run_would_refuse(capsys):
    rc = main(
        ["experiment", str(IMAGE), "--exchange", "capture.har:4", "--samples", "60", "--variants", "strict-false"]
    )
    text = capsys.readouterr().out
    assert rc == 0
    assert "dry run: nothing sent (60 requests would be sent to no endpoint (give --endpoint URL))" in text
    assert (
        "(variant strict-false carries an image at $.input[8].output[1]: it is sent only with --allow-images)" in text
    )
    assert "(more than --max-requests 50: a run would be refused)" in text


def test_cli_runs_writes_the_reports_and_says_how_sure(gw, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["experiment", str(BEFORE), "--mode", MODE, "--dsh", DSH, "--endpoint", gw.url(), "--rate", "1000"]
    rc = main([*argv, "--samples", "2", "--out", str(out), "--yes"])
    captured = capsys.readouterr()
    assert rc == 0
    assert "not the captured host 127.0.0.1:18788" in captured.err
    result = experiment.load(out)
    assert result.manifest["exchange"] == EXCHANGE  # the first exchange that sent tools
    assert result.comparison["sentence"] in captured.out
    assert {"experiment.md", "experiment.html"} <= {p.name for p in out.iterdir()}


def test_cli_exit_codes(gw, tmp_path, monkeypatch):
    argv = ["experiment", str(BEFORE), "--mode", MODE, "--endpoint", gw.url(), "--yes"]
    assert main([*argv, "--samples", "40"]) == 2  # over the budget
    assert main([*argv, "--variants", "strict-maybe"]) == 2

    real = experiment.Sender

    def interrupted(*a, **kw):
        return real(*a, **{**kw, "sleep": lambda s: signal.raise_signal(signal.SIGINT)})

    monkeypatch.setattr(experiment, "Sender", interrupted)
    assert main([*argv, "--samples", "2", "--out", str(tmp_path / "out")]) == 130
    assert json.loads((tmp_path / "out" / "experiment.json").read_text())["complete"] is False


# --- the lab's seeded persona --------------------------------------------------------------------


def test_gw_sometimes_gives_in_to_strict_as_its_seed_draws(tmp_path):
    g = Gateway(tmp_path / "g2.jsonl", seed=11)
    try:
        cap = load_capture(BEFORE, keep_bodies=True, progress=False)
        body = dict(cap.bodies.set_index("exchange_id").loc[EXCHANGE, "request"], model="gw-sometimes")
        snd = Sender(g.url(), api_key=None, limits=FAST)
        for n in range(20):
            snd.send(body, record_id=f"s{n}")
        lines = g.lines()
    finally:
        g.close()
    draws = random.Random("11:sometimes")
    expected = [draws.random() < gateway.SOMETIMES_P for _ in range(20)]
    assert [x["gateway"]["fills_optional"] for x in lines] == expected
    assert 0 < sum(expected) < 20  # both kinds of answer occur with this seed
    exp_cap = load_capture(tmp_path / "g2.jsonl", progress=False)
    filled = ["justification" in a for a in exp_cap.calls["arguments"]]
    assert filled == expected


def test_without_out_the_run_keeps_nothing_on_disk(gw, tmp_path, monkeypatch):
    monkeypatch.setattr(experiment.tempfile, "tempdir", str(tmp_path))
    r = go(gw.url(), None, samples=1)
    assert r.out is None and len(r.capture.exchanges) == 2 and r.summary["calls"].tolist() == [1, 1]
    assert list(tmp_path.iterdir()) == [tmp_path / "gateway.jsonl"]
