"""Long reads show progress on stderr and stop cleanly on Ctrl-C."""

from __future__ import annotations

import itertools
import json

import pytest

import toolkit
from toolkit.capture import load as capture
from toolkit.capture import progress


def _log(tmp_path, n=600):
    line = {
        "request": {"method": "POST", "url": "http://127.0.0.1/v1/responses", "body": {"model": "m", "input": "hi"}},
        "response": {"status": 200, "body": {"id": "r", "object": "response", "status": "completed", "output": []}},
    }
    p = tmp_path / "log.jsonl"
    p.write_text("".join(json.dumps(line) + "\n" for _ in range(n)), encoding="utf-8")
    return p


@pytest.fixture
def fast_clock(monkeypatch):
    ticks = itertools.count(0, 1.0)  # every reading of the clock is one second later
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(ticks))


def test_progress_is_shown_when_asked(tmp_path, capsys, fast_clock):
    cap = toolkit.load_capture(_log(tmp_path), progress=True)
    err = capsys.readouterr().err
    assert "\rlog.jsonl: 256 records" in err and "\rlog.jsonl: 512 records" in err
    assert err.rstrip().endswith("done") and len(cap.exchanges) == 600


def test_progress_is_silent_when_not_asked(tmp_path, capsys, fast_clock):
    toolkit.load_capture(_log(tmp_path), progress=False)
    assert capsys.readouterr().err == ""


def test_interrupt_stops_cleanly(tmp_path, capsys, monkeypatch, fast_clock):
    real_add = capture.Builder.add
    seen = itertools.count()

    def add(self, rec, fmt):
        if next(seen) == 300:
            raise KeyboardInterrupt
        real_add(self, rec, fmt)

    monkeypatch.setattr(capture.Builder, "add", add)
    with pytest.raises(KeyboardInterrupt):
        toolkit.load_capture(_log(tmp_path), progress=True)
    assert capsys.readouterr().err.rstrip().endswith("interrupted")


def test_cli_exit_code_on_interrupt(tmp_path, monkeypatch, capsys):
    from toolkit.present import cli

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("toolkit.capture.load_captures", boom)
    assert cli.main(["summary", str(_log(tmp_path, 1))]) == 130
    assert capsys.readouterr().err.strip() == "agent-contract: interrupted"


def test_in_a_notebook_progress_is_a_widget_view_nbval_does_not_compare(monkeypatch, fast_clock):
    """Whether a load was slow enough to show progress must not change a notebook's outputs: the line
    is a widget view only (no text/plain), whose value follows the reading and ends with "done"."""
    import IPython.display

    from toolkit.capture import progress

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False, **kw: shown.append((obj, raw)))
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    bar = progress.Progress("log.jsonl", enabled=True, total_bytes=1000, position=lambda: 500, interval=0.0)
    with bar:
        for _ in range(3 * progress.EVERY):
            bar.tick()
    (bundle, raw) = shown[0]
    assert raw and list(bundle) == [progress.WIDGET_VIEW] and len(shown) == 1
    assert bar._handle.value.startswith("log.jsonl: 768 records") and bar._handle.value.endswith("done")
