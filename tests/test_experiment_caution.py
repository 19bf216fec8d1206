"""The experiment as a cautious user needs it (issue 26, section 6): what is not judged is no measurement, a
broken endpoint is no result, nothing is sent before the plan is shown and confirmed, credentials never reach
a record, a Ctrl-C never loses or corrupts, and the limits and the wording say only what holds.

Every server here is started by the test on 127.0.0.1; nothing waits on a clock: the sender's sleep is
injected, and a Ctrl-C is a signal the test raises itself (or, for a request in flight, one the test's
server thread sends to the main thread once the request has arrived, gated on the run's own notice).
"""

from __future__ import annotations

import json
import math
import re
import select
import signal
import socket
import sys
import threading
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pandas as pd
import pytest
from conftest import FIXTURES, REPO
from experiment_lab import BEFORE, DSH, MODE, Fixed, experiment, go, serving

from toolkit.capture import load_capture
from toolkit.errors import InputError
from toolkit.experiment import stats
from toolkit.experiment.frames import ANSWERS, PLAN
from toolkit.experiment.judge import compare, judge, judge_without_mode, summarise
from toolkit.experiment.send import Limits, Sender, redact_key, redact_url, retry_wait
from toolkit.experiment.variants import build
from toolkit.knowledge import dsh_runtime as rt
from toolkit.present.cli import main

EXECUTION = json.loads((FIXTURES / "dsh" / "execution.json").read_text(encoding="utf-8"))


# ---- servers on 127.0.0.1 ----------------------------------------------------------------------------


@pytest.fixture
def gw(tmp_path):
    yield from serving(tmp_path)


@pytest.fixture
def serve():
    started: list[Fixed] = []

    def start(*a, **kw) -> Fixed:
        s = Fixed(*a, **kw)
        started.append(s)
        return s

    yield start
    for s in started:
        s.close()


def _cli(url, *more):
    return main(["experiment", str(BEFORE), "--mode", MODE, "--dsh", DSH, "--endpoint", url, "--rate", "1000", *more])


@pytest.fixture
def say_yes(monkeypatch):
    """A terminal on which the user answers "y" to the plan (instead of --yes)."""
    monkeypatch.setattr(sys, "stdin", _Stdin(tty=True))
    monkeypatch.setattr("builtins.input", lambda prompt="": "y")


# ---- not judged is not a measurement -----------------------------------------------------------------


def test_calls_that_were_not_judged_never_enter_a_rate():
    """One refused call and four that could not be judged: 1 of 1 refused, not 1 of 5."""
    rows = [
        dict.fromkeys(ANSWERS.columns)
        | {"variant": "v", "sample": 1, "exchange_id": "x:1", "status": 200, "call_id": f"c{i}", "tool": "bash"}
        | {"filled": (), "empty_filled": (), "arguments": {}}
        | (
            {"verdict": "refused", "rule": rt.EMPTY_JUSTIFICATION}
            if i == 0
            else {"verdict": "not judged", "not_judged": "mode-unknown"}
        )
        for i in range(5)
    ]
    plan = PLAN.from_records(
        [{"variant": "v", "sample": 1, "exchange_id": "x:1", "attempts": 1, "status": 200, "error": None}]
    )
    s = summarise(ANSWERS.from_records({k: r[k] for k in ANSWERS.columns} for r in rows), plan).iloc[0]
    assert s["refused_rate"] == 1.0 and s["refused_low"] == stats.wilson(1, 1)[0]
    assert (s["calls"], s["judged"], s["refused"], s["accepted"]) == (5, 1, 1, 0)


def test_without_a_mode_dsh_s_pre_mode_rules_still_judge(gw, tmp_path):
    """No --mode and an HTTP capture: the empty justification is refused all the same, because DSH checks
    it before it compares any mode; a call that asks for no escalation runs in any mode."""
    r = go(gw.url(), tmp_path / "out", mode=None)
    assert r.manifest["mode"] is None
    absent = r.answers[r.answers["variant"] == "strict-absent"]
    false = r.answers[r.answers["variant"] == "strict-false"]
    assert absent["verdict"].tolist() == ["refused"] * 3 and absent["rule"].tolist() == [rt.EMPTY_JUSTIFICATION] * 3
    assert false["verdict"].tolist() == ["accepted"] * 3
    s = r.summary.set_index("variant")
    assert s.loc["strict-absent", "judged"] == 3 and s.loc["strict-false", "judged"] == 3
    assert r.manifest["verdict"] == "measured"


def _fixture_groups():
    """The real DSH's decisions (tests/fixtures/dsh/execution.json) approved once, grouped by everything but the
    mode: a group whose decision is the same in every mode is one DSH makes without looking at the mode."""
    defaults = EXECUTION["record_defaults"]
    groups: dict[tuple, list[dict]] = {}
    for rec in EXECUTION["records"]:
        if rec.get("channel", rec.get("approval")) != "allowed-once":
            continue
        tool = rec.get("tool", defaults["tool"])
        comp = rec.get("composition", defaults["composition"])
        key = (tool, comp, json.dumps(rec["arguments"], sort_keys=True))
        groups.setdefault(key, []).append(rec)
    return groups


COMPOSITIONS = {
    "confined": {"confined": True, "jobs": False},
    "confined-jobs": {"confined": True, "jobs": True},
    "background-disabled": {"confined": True, "jobs": True, "background": False},
    "unconfined": {"confined": False, "jobs": True},
}


def test_judging_without_a_mode_follows_the_real_dsh_s_order():
    """The oracle is the published DSH 0.1.0-rc.8 run on every case: where it decides alike in all three modes,
    ``judge_without_mode`` gives that decision and text; where the mode changes the decision, it gives none."""
    same = differs = 0
    for (tool, comp, args), recs in _fixture_groups().items():
        if len({r["mode"] for r in recs}) < len(rt.MODES):
            continue  # not run in every mode: no evidence either way
        outcomes = {(r["dsh"]["ok"], r["dsh"].get("error")) for r in recs}
        v = judge_without_mode(tool, json.loads(args), dsh=EXECUTION["dsh_version"], **COMPOSITIONS[comp])
        if len(outcomes) == 1:
            ok, error = outcomes.pop()
            assert v is not None, (tool, comp, args)
            assert (v.ok, v.message) == (ok, error if not ok else None), (tool, comp, args)
            same += 1
        else:
            assert v is None, (tool, comp, args, v)
            differs += 1
    assert same > 50 and differs > 10
    empty = {"command": "ls", "description": "List files", "sandbox_permissions": MODE, "justification": ""}
    v = judge_without_mode("bash", empty)
    assert v is not None and not v.ok and v.stage == "3c" and v.message == rt.EMPTY_JUSTIFICATION


def test_nothing_judged_exits_non_zero_and_says_why(gw, tmp_path, capsys, say_yes):
    """Every answer a failed response: no rate at all, exit 3 (inconclusive) with the reason, no "pass"."""
    rc = _cli(gw.url("fail"), "--samples", "2", "--out", str(tmp_path / "out"))
    out = capsys.readouterr().out
    assert rc == 3
    assert "INCONCLUSIVE: nothing could be judged to compare (strict-absent: every answer was an error " in out
    assert "The model failed to produce a response." in out
    assert "no judged calls to compare on strict-absent and strict-false" in out
    back = experiment.load(tmp_path / "out")
    assert back.manifest["verdict"] == "inconclusive"
    md = (tmp_path / "out" / "experiment.md").read_text(encoding="utf-8")
    assert "Inconclusive: nothing could be judged to compare." in md
    assert not re.search(r"\bpass", out + md, re.IGNORECASE)  # no word "pass" anywhere


def _one_answer_capture(tmp_path: Path, url: str, request: dict, sse: str) -> tuple:
    rec = {
        "id": "x-a1",
        "started_at": "2026-12-01T00:00:00Z",
        "duration_ms": 1,
        "request": {"method": "POST", "url": url, "headers": [["content-type", "application/json"]], "body": request},
        "response": {"status": 200, "headers": [["content-type", "text/event-stream"]], "body": sse},
    }
    path = tmp_path / "exchanges.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    cap = load_capture(path, progress=False)
    plan = PLAN.from_records(
        [
            {"variant": "as-captured", "sample": 1, "exchange_id": "exchanges.jsonl:1", "attempts": 1, "status": 200}
            | {"error": None}
        ]
    )
    return cap, plan


def _event(etype: str, **fields) -> str:
    return f"event: {etype}\ndata: {json.dumps({'type': etype, **fields})}\n\n"


BASH_SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}, "description": {"type": "string"}}}


def test_a_call_of_a_cut_responses_stream_is_not_judged(tmp_path):
    """The call's item finished, then the stream was cut before response.completed: no call DSH would run."""
    request = {"model": "m", "input": "hi", "stream": True}
    request["tools"] = [{"type": "function", "name": "bash", "parameters": BASH_SCHEMA}]
    item = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "bash"}
    args = json.dumps({"command": "ls", "description": "List files"})
    sse = (
        _event("response.created", response={"id": "resp_1", "status": "in_progress", "output": []})
        + _event("response.output_item.added", output_index=0, item={**item, "arguments": "", "status": "in_progress"})
        + _event("response.function_call_arguments.done", item_id="fc_1", output_index=0, arguments=args)
        + _event("response.output_item.done", output_index=0, item={**item, "arguments": args, "status": "completed"})
    )
    cap, plan = _one_answer_capture(tmp_path, "http://127.0.0.1:1/v1/responses", request, sse)
    answers = judge(cap, plan, build(request, ["as-captured"], api="responses"), mode=MODE)
    (row,) = answers.itertuples(index=False)
    assert row.terminal == "cut" and row.verdict == "not judged" and row.not_judged == "answer-unfinished"
    assert summarise(answers, plan).iloc[0]["judged"] == 0


def test_a_cut_stream_s_empty_arguments_are_not_judged(tmp_path):
    """A Messages tool_use block with its starting ``{}`` and no input delta, then the stream cut: the ``{}`` is
    not what the model meant (judged, it would read as a refused call missing its command)."""
    request = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}], "stream": True}
    request["tools"] = [{"name": "bash", "input_schema": BASH_SCHEMA}]
    start = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None}
    sse = (
        _event("message_start", message={**start, "usage": {"input_tokens": 1, "output_tokens": 1}})
        + _event(
            "content_block_start",
            index=0,
            content_block={"type": "tool_use", "id": "tu_1", "name": "bash", "input": {}},
        )
        + _event("content_block_stop", index=0)
    )
    cap, plan = _one_answer_capture(tmp_path, "http://127.0.0.1:1/v1/messages", request, sse)
    assert cap.calls["arguments"].tolist() == [{}]
    answers = judge(cap, plan, build(request, ["as-captured"], api="messages"), mode=MODE)
    (row,) = answers.itertuples(index=False)
    assert row.verdict == "not judged" and pd.isna(row.rule)


# ---- a broken endpoint is not a result ---------------------------------------------------------------

ERROR = {"error": {"message": "Incorrect API key provided: sk-te***st.", "type": "invalid_request_error"}}


@pytest.mark.parametrize("status", [401, 403, 404])
def test_a_status_every_request_would_get_stops_the_run_at_once(serve, tmp_path, capsys, say_yes, status):
    s = serve(status, {"content-type": "application/json"}, json.dumps(ERROR))
    rc = _cli(s.url, "--samples", "3", "--out", str(tmp_path / "out"))
    out = capsys.readouterr().out
    assert len(s.paths) == 1 and rc == 1
    assert f"STOPPED after 1 of 6 requests: HTTP {status}: Incorrect API key provided: sk-te***st." in out
    m = experiment.load(tmp_path / "out").manifest
    assert m["verdict"] == "stopped" and m["complete"] is False and m["counts"]["sent"] == 1


def test_the_stop_reads_in_chinese_with_the_endpoint_s_text_verbatim(serve, capsys, say_yes):
    s = serve(401, {"content-type": "application/json"}, json.dumps(ERROR))
    assert _cli(s.url, "--samples", "1", "--lang", "zh-CN") == 1
    out = capsys.readouterr().out
    assert "已停止：2 个请求中发送了 1 个：HTTP 401：Incorrect API key provided: sk-te***st." in out


def test_a_redirect_is_an_error_and_stops_the_run(serve, tmp_path):
    s = serve(307, {"location": "http://127.0.0.1:9/elsewhere"})
    r = go(s.url, tmp_path / "out")
    assert len(s.paths) == 1 and r.manifest["verdict"] == "stopped"
    why = r.manifest["stopped"]["why"]
    assert why.startswith("HTTP 307 to http://127.0.0.1:9/elsewhere: a redirect is not an answer")
    assert r.summary.set_index("variant").loc["strict-absent", "errors"] == 1


@pytest.mark.parametrize(
    ("status", "headers", "body", "said"),
    [
        (
            500,
            {"content-type": "application/json"},
            json.dumps({"error": {"message": "upstream broke"}}),
            "HTTP 500: upstream broke",
        ),
        (
            200,
            {"content-type": "text/html"},
            "<html><body>Sign in</body></html>",
            "HTTP 200 without a JSON answer (text/html): <html><body>Sign in</body></html>",
        ),
    ],
)
def test_failures_in_a_row_stop_the_run_with_the_endpoint_s_text(serve, tmp_path, status, headers, body, said):
    s = serve(status, headers, body)
    r = go(s.url, tmp_path / "out")
    assert len(s.paths) == 3  # FAILURES_IN_A_ROW, not the six planned
    assert r.manifest["stopped"]["why"] == f"3 requests in a row without an answer; the last: {said}"
    assert r.plan["error"].dropna().tolist() == [said] * 3
    assert r.summary["errors"].tolist() == [2, 1] and r.summary["judged"].tolist() == [0, 0]


def test_connection_errors_in_a_row_stop_the_run(tmp_path):
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as srv:
        port = srv.server_port  # bound, then closed: nothing listens there
    r = go(f"http://127.0.0.1:{port}/v1/responses", tmp_path / "out")
    assert r.manifest["counts"]["sent"] == 3 and r.manifest["verdict"] == "stopped"
    assert "ConnectionRefusedError" in r.manifest["stopped"]["why"]


# ---- ask before sending ------------------------------------------------------------------------------


def test_without_a_terminal_and_without_yes_nothing_is_sent(gw, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(tty=False))
    rc = _cli(gw.url(), "--samples", "2", "--out", str(tmp_path / "out"))
    captured = capsys.readouterr()
    assert rc == 2 and gw.lines() == [] and not (tmp_path / "out").exists()
    plan = captured.out[captured.out.index("plan: 4 requests") :]
    assert plan.startswith(f"plan: 4 requests to {gw.url()}\n")
    assert (
        "  2 samples × 2 variants, round-robin; request bodies: strict-absent 31,872 B, strict-false 32,247 B" in plan
    )
    assert "  127.0.0.1 is this machine (loopback)" in plan and "  no key is sent" in plan
    assert "standard input is not a terminal" in captured.err and "pass --yes" in captured.err
    assert "strict-false: 25 changes" in captured.out  # the changes come before, with the plan


class _Stdin:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(("answer", "rc", "sent"), [("n", 1, 0), ("", 1, 0), ("y", 0, 4)])
def test_on_a_terminal_the_plan_is_confirmed_before_the_first_request(gw, capsys, monkeypatch, answer, rc, sent):
    asked = []

    def ask(prompt=""):
        asked.append((len(gw.lines()), capsys.readouterr()))  # what had been sent and printed when asked
        return answer

    monkeypatch.setattr(sys, "stdin", _Stdin(tty=True))
    monkeypatch.setattr("builtins.input", ask)
    assert _cli(gw.url(), "--samples", "2") == rc
    ((seen, printed),) = asked
    assert seen == 0 and "plan: 4 requests to" in printed.out
    assert printed.err.endswith("send 4 requests to 127.0.0.1? [y/N] ")
    assert len(gw.lines()) == sent


def test_a_key_is_never_sent_over_plain_http_to_another_machine(tmp_path, monkeypatch):
    tried = []

    class NoNetwork:  # the test never opens a connection off this machine, whatever the code does
        def __init__(self, host, *a, **kw):
            tried.append(host)
            raise ConnectionRefusedError("no network in this test")

    monkeypatch.setattr("http.client.HTTPConnection", NoNetwork)
    monkeypatch.setattr("http.client.HTTPSConnection", NoNetwork)
    monkeypatch.setenv("CAUTION_TEST_KEY", "sk-lab-FAKE-3333333333333333333333333333")
    with pytest.raises(InputError, match=r"would cross the network in plain text to 192\.0\.2\.7; use https://"):
        go("http://192.0.2.7/v1/responses", tmp_path / "out", api_key_env="CAUTION_TEST_KEY")
    assert tried == [] and not (tmp_path / "out").exists()
    said = []
    r = go(
        "https://192.0.2.7/v1/responses",
        None,
        api_key_env="CAUTION_TEST_KEY",
        notice=said.append,
        confirm=lambda *a: False,
    )
    assert tried == [] and r.manifest["declined"] is True
    assert "192.0.2.7 is not this machine: the requests leave it" in said


# ---- credentials in the endpoint URL -----------------------------------------------------------------

SECRETS = ("alice-9f8e", "pw-7d6c5b", "qk-1a2b3c", "kk-4d5e6f")


def test_credentials_in_the_endpoint_url_are_redacted_everywhere(serve, tmp_path, capsys, say_yes):
    ok = json.dumps({"id": "resp_1", "object": "response", "status": "completed", "output": []})
    s = serve(200, {"content-type": "application/json"}, ok)
    url = f"http://alice-9f8e:pw-7d6c5b@127.0.0.1:{s.port}/v1/responses?api-key=qk-1a2b3c&key=kk-4d5e6f&v=1"
    out = tmp_path / "out"
    rc = main(["experiment", str(BEFORE), "--endpoint", url, "--samples", "1", "--out", str(out)])
    captured = capsys.readouterr()
    assert s.paths == ["/v1/responses?api-key=qk-1a2b3c&key=kk-4d5e6f&v=1"] * 2  # sent as given
    assert rc == 3  # the model made no call: nothing judged
    written = {p.name: p.read_text(encoding="utf-8", errors="replace") for p in out.iterdir()}
    assert {"exchanges.jsonl", "experiment.json", "experiment.md", "experiment.html"} <= set(written)
    for where, text in [*written.items(), ("stdout", captured.out), ("stderr", captured.err)]:
        assert not [x for x in SECRETS if x in text], where
    assert main(["experiment", str(BEFORE), "--endpoint", url, "--dry-run"]) == 0  # the dry run's line too
    dry = capsys.readouterr()
    assert "dry run: nothing sent (10 requests would be sent to http://<redacted>@127.0.0.1:" in dry.out
    assert not [x for x in SECRETS if x in dry.out + dry.err]
    m = json.loads(written["experiment.json"])
    assert m["endpoint"] == f"http://<redacted>@127.0.0.1:{s.port}/v1/responses?api-key=<redacted>&key=<redacted>&v=1"
    assert redact_url("https://h/x?token=t1&sig=s2&q=ok") == "https://h/x?token=<redacted>&sig=<redacted>&q=ok"


def test_a_key_that_is_a_common_word_does_not_change_what_was_judged(gw, tmp_path, monkeypatch):
    """The key "command" is a word of every call's arguments: a plain replace turned {"command": …} into
    {"<redacted>": …}, a call missing its command. The answers are judged as received and written
    redacted (JSON stays JSON); the folder says which records had the key replaced, and reading it back
    keeps the answers judged as received."""
    plain = go(gw.url(), tmp_path / "plain", samples=2)
    monkeypatch.setenv("CAUTION_TEST_KEY", "command")
    keyed = go(gw.url(), tmp_path / "keyed", samples=2, api_key_env="CAUTION_TEST_KEY")
    cols = ["variant", "calls", "judged", "accepted", "refused"]
    assert keyed.summary[cols].equals(plain.summary[cols])
    assert keyed.summary.set_index("variant").loc["strict-false", "accepted"] == 2
    back = experiment.load(tmp_path / "keyed")
    assert back.manifest["key_replaced_in"] == [
        f"{v}-{n}-a1" for n in (1, 2) for v in ("strict-absent", "strict-false")
    ]
    assert back.summary[cols].equals(plain.summary[cols])
    assert load_capture(tmp_path / "keyed" / "exchanges.jsonl", progress=False).problems.empty
    assert experiment.load(tmp_path / "plain").manifest["key_replaced_in"] == []
    assert redact_key('{"command":"ls","description":"command line"}', "command") == (
        '{"command":"ls","description":"<redacted> line"}'
    )


# ---- Ctrl-C never loses or corrupts ------------------------------------------------------------------


def _ctrl_c_on_wait(seconds):
    signal.raise_signal(signal.SIGINT)


def test_without_out_an_interrupted_run_is_kept_and_says_where(gw, tmp_path, monkeypatch, capsys, say_yes):
    monkeypatch.setattr(experiment.tempfile, "tempdir", str(tmp_path))
    with pytest.raises(experiment.Interrupted) as caught:
        go(gw.url(), None, limits=Limits(rate=0.001), sleep=_ctrl_c_on_wait)
    kept = caught.value.result.out
    assert kept is not None and kept.parent == tmp_path and (kept / "experiment.json").is_file()
    back = experiment.load(kept)
    assert back.manifest["complete"] is False and back.plan["attempts"].tolist() == [1, 0, 0, 0, 0, 0]
    monkeypatch.setattr(experiment, "Sender", _interrupting_sender())
    argv = ["experiment", str(BEFORE), "--mode", MODE, "--endpoint", gw.url(), "--samples", "2"]
    assert main(argv) == 130  # the default rate, 1 per second: the second request waits, and the wait is cut
    assert "interrupted; what was sent is kept in " + str(tmp_path) in capsys.readouterr().err


def _interrupting_sender():
    real = experiment.Sender

    def make(*a, **kw):
        return real(*a, **{**kw, "sleep": _ctrl_c_on_wait})

    return make


def test_a_ctrl_c_while_the_record_is_written_waits_for_it(gw, tmp_path, monkeypatch):
    real = experiment._csv_ready
    hits = []

    def ctrl_c_then_go_on(df):
        if not hits:
            hits.append(1)
            signal.raise_signal(signal.SIGINT)  # in the middle of writing the files
        return real(df)

    monkeypatch.setattr(experiment, "_csv_ready", ctrl_c_then_go_on)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        go(gw.url(), out, samples=1)
    assert hits and set(experiment.FILES) <= {p.name for p in out.iterdir()}
    assert not [p.name for p in out.iterdir() if p.name.endswith(".partial")]
    back = experiment.load(out)
    assert back.manifest["complete"] is True and back.summary["judged"].tolist() == [1, 1]


def test_a_second_ctrl_c_ends_the_request_in_flight_and_it_is_recorded(serve, tmp_path):
    main_thread = threading.main_thread().ident
    first_seen, release = threading.Event(), threading.Event()

    def hold(connection):  # in the server's thread, with the request read: Ctrl-C, then Ctrl-C again
        signal.pthread_kill(main_thread, signal.SIGINT)
        first_seen.wait(30)  # the run said it will stop after this request
        # the second Ctrl-C, sent until the client gives the request up (its end of the connection closes):
        # one that lands while the first one's handler is still returning is only seen when the socket
        # wait ends, so each is sent into the wait; the loop ends on the client's close, not on a clock
        for _ in range(600):
            signal.pthread_kill(main_thread, signal.SIGINT)
            readable, _, _ = select.select([connection], [], [], 0.05)
            if readable and not connection.recv(1, socket.MSG_PEEK):
                break
        release.wait(30)

    s = serve(200, {"content-type": "application/json"}, "{}", hold=hold)

    def notice(text):
        if text == experiment.Message("experiment.notice.stopping"):
            first_seen.set()

    out = tmp_path / "out"
    try:
        with pytest.raises(KeyboardInterrupt):
            go(s.url, out, limits=Limits(rate=1000.0, timeout=60), notice=notice)
    finally:
        release.set()
    lines = [json.loads(x) for x in (out / "exchanges.jsonl").read_text().splitlines()]
    assert [x["id"] for x in lines] == ["strict-absent-1-a1"] and len(s.paths) == 1
    assert lines[0]["error"] == "interrupted (Ctrl-C) before the answer was read whole"
    back = experiment.load(out)
    assert back.plan["attempts"].tolist() == [1, 0, 0, 0, 0, 0] and back.manifest["counts"]["sent"] == 1


def test_no_retry_is_sent_after_a_ctrl_c_during_a_429_wait(gw, tmp_path):
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while waiting out the 429's retry-after

    with pytest.raises(KeyboardInterrupt):
        go(gw.url("rate-limit"), tmp_path / "out", limits=Limits(rate=1000.0, retries=3), sleep=sleep)
    assert waits == [1.0] and len(gw.lines()) == 1
    assert experiment.load(tmp_path / "out").plan["attempts"].tolist() == [1, 0, 0, 0, 0, 0]


def test_a_folder_that_did_not_finish_writing_says_so(tmp_path):
    (tmp_path / "exchanges.jsonl").write_text("")
    with pytest.raises(InputError, match="did not finish writing its record"):
        experiment.load(tmp_path)


# ---- the output folder -------------------------------------------------------------------------------


def test_a_non_empty_out_is_refused_unless_replaced(gw, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "experiment.md").write_text("an older run's report")
    with pytest.raises(InputError, match=r"not empty \(holds experiment\.md\).*--replace"):
        go(gw.url(), out, samples=1)
    assert gw.lines() == []
    go(gw.url(), out, samples=1, replace=True)
    assert sorted(p.name for p in out.iterdir()) == sorted(experiment.FILES)  # the old report is gone
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=r"holds notes\.txt, which no experiment writes"):
        go(gw.url(), out, samples=1, replace=True)
    assert (out / "notes.txt").read_text() == "mine" and len(gw.lines()) == 2


# ---- the limits --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kw", [{"rate": math.inf}, {"timeout": math.inf}])
def test_limits_must_be_finite_and_positive(kw):
    with pytest.raises(InputError, match="finite number more than 0"):
        Limits(**kw)


def test_the_cli_refuses_an_infinite_timeout_in_one_line(gw, capsys, say_yes):
    assert _cli(gw.url(), "--timeout", "inf") == 2
    err = capsys.readouterr().err
    assert (
        err.strip() == ("agent-contract: error: timeout inf: seconds must be a finite number more than 0")
        and gw.lines() == []
    )


class FakeTime:
    def __init__(self):
        self.t, self.slept = 100.0, []

    def clock(self):
        return self.t

    def sleep(self, s):
        self.slept.append(s)
        self.t += s


def test_retry_after_nan_keeps_the_pacing(serve):
    """``retry-after: nan`` is no usable wait: the default backoff and the rate limit still apply."""
    assert retry_wait([("retry-after", "nan")], None) is None
    assert retry_wait([("retry-after-ms", "nan"), ("retry-after", "2")], None) == 2.0
    s = serve(429, {"retry-after": "nan", "content-type": "application/json"}, "{}")
    fake = FakeTime()
    snd = Sender(s.url, api_key=None, limits=Limits(rate=0.25, retries=1), clock=fake.clock, sleep=fake.sleep)
    assert [a.status for a in snd.send({"model": "m", "input": "x"}, record_id="n")] == [429, 429]
    assert fake.slept == [4.0]  # the rate's 4 s, not nothing


# ---- the wording ---------------------------------------------------------------------------------------


def test_a_tiny_p_reads_p_below_a_thousandth():
    from toolkit.experiment.frames import SUMMARY

    rows = [
        dict.fromkeys(SUMMARY.columns) | {"variant": v, "calls": 20, "judged": 20, "refused": k}
        for v, k in (("a", 20), ("b", 0))
    ]
    summary = SUMMARY.from_records({c: r[c] for c in SUMMARY.columns} for r in rows)
    sentence = compare(summary, "a", "b")["sentence"]
    assert "Fisher exact p < 0.001: the change explains the refusals." in sentence and "= <" not in sentence


def test_the_readme_says_how_the_verdict_reads():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Prove the fix") : readme.index("## Layout")]
    assert "excludes 0 and Fisher's p < 0.05" in section
    assert "as if the user approved its escalation once" in section
    assert "treated as independent" in section
    assert "not judged" in section and "--yes" in section and "--replace" in section


# ---- Fisher's test in log space ----------------------------------------------------------------------


def _exact(k1, n1, k2, n2) -> float:
    """The two-sided p as an exact fraction (the big-integer computation the toolkit had), then a float."""
    t = k1 + k2
    w = {x: math.comb(n1, x) * math.comb(n2, t - x) for x in range(max(0, t - n2), min(n1, t) + 1)}
    extreme = sum(v for v in w.values() if v * 10_000_000 <= w[k1] * 10_000_001)
    return min(1.0, float(Fraction(extreme, math.comb(n1 + n2, t))))


def test_fisher_in_log_space_agrees_with_the_exact_value():
    worst = 0.0
    for n1 in range(1, 13):
        for n2 in range(1, 13):
            for k1 in range(n1 + 1):
                for k2 in range(n2 + 1):
                    exact = _exact(k1, n1, k2, n2)
                    worst = max(worst, abs(stats.fisher_exact(k1, n1, k2, n2) - exact) / exact)
    assert worst < 5e-15
    for table in [(1, 200, 30, 200), (0, 500, 20, 500), (250, 500, 260, 500), (3, 1000, 40, 900)]:
        assert stats.fisher_exact(*table) == pytest.approx(_exact(*table), rel=5e-15)


def test_fisher_at_ten_thousand_per_arm_needs_no_big_integers(monkeypatch):
    """69 s before (math.comb of 20,000): now no binomial is computed at all; checked against the
    hypergeometric probabilities from lgamma (a different route to the same numbers)."""

    def no_comb(*a):
        raise AssertionError("math.comb called")

    def lgamma_p(k1, n1, k2, n2):
        t = k1 + k2

        def logw(x):
            lc = math.lgamma
            return lc(n1 + 1) - lc(x + 1) - lc(n1 - x + 1) + lc(n2 + 1) - lc(t - x + 1) - lc(n2 - t + x + 1)

        xs = range(max(0, t - n2), min(n1, t) + 1)
        top = max(logw(x) for x in xs)
        w = {x: math.exp(logw(x) - top) for x in xs}
        return math.fsum(v for v in w.values() if v <= w[k1] * (1 + 1e-7)) / math.fsum(w.values())

    monkeypatch.setattr(math, "comb", no_comb)
    p = stats.fisher_exact(4000, 10_000, 4200, 10_000)
    assert p == pytest.approx(lgamma_p(4000, 10_000, 4200, 10_000), rel=1e-9)
    assert 0.001 < p < 0.01
    assert stats.fisher_exact(0, 10_000, 10_000, 10_000) == 0.0  # below the smallest float
