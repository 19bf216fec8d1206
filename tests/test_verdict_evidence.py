"""No verdict without evidence: a layer with no evidence is *not checked*, a run that checked nothing is
*inconclusive* (exit 3, no word "pass" in any format or language), and every command that draws a
verdict (``verify``, ``config``, ``summary``, ``attribute``) follows the same rule."""

from __future__ import annotations

import json
import re

import pytest
from conftest import REPO
from jsonschema import Draft202012Validator

from toolkit.analysis.verify import NOT_CHECKED, OVERALL, verify
from toolkit.capture import load_captures
from toolkit.layers.config import load_settings
from toolkit.present import report
from toolkit.present.cli import main

#: "pass" as a word in either language: an inconclusive report holds neither
PASS_WORDS = re.compile(r"\bpass(es|ed)?\b|通过", re.IGNORECASE)


def _har(path, entries):
    path.write_text(
        json.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": entries}})
    )
    return path


def _browser_entry(url="https://example.com/", mime="text/html", body="<html><body>hello</body></html>"):
    return {
        "startedDateTime": "2026-01-01T00:00:00.000Z",
        "time": 5,
        "request": {
            "method": "GET",
            "url": url,
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Accept", "value": "text/html"}],
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": 200,
            "statusText": "OK",
            "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": mime}],
            "cookies": [],
            "content": {"size": len(body), "mimeType": mime, "text": body},
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(body),
        },
        "cache": {},
        "timings": {"send": 0, "wait": 5, "receive": 0},
    }


@pytest.fixture(scope="module")
def empty_inputs(tmp_path_factory):
    """Captures that hold no LLM evidence at all: a HAR of zero entries, and a browser's HAR of a web page."""
    d = tmp_path_factory.mktemp("empty")
    return {
        "zero entries": _har(d / "zero.har", []),
        "browser": _har(
            d / "browser.har",
            [_browser_entry(), _browser_entry("https://example.com/app.js", "text/javascript", "x=1")],
        ),
    }


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_verify_with_no_inputs_is_a_usage_error(capsys):
    code, out, err = _run(capsys, "verify")
    assert code == 2
    assert "nothing to verify: give --settings, --capture, --session or --gateway-config" in err
    assert not PASS_WORDS.search(out + err.split("error:")[-1])


@pytest.mark.parametrize("which", ["zero entries", "browser"])
@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_no_llm_evidence_is_inconclusive_in_every_format(capsys, empty_inputs, which, fmt, lang):
    code, out, err = _run(capsys, "verify", "--capture", str(empty_inputs[which]), "--format", fmt, "--lang", lang)
    assert code == report.EXIT_CODES["inconclusive"] == 3
    assert not PASS_WORDS.search(err)
    assert not PASS_WORDS.search(out), PASS_WORDS.search(out)
    if fmt == "json":
        doc = json.loads(out)
        Draft202012Validator(report.json_schema()).validate(doc)
        assert (doc["ok"], doc["verdict"], doc["exit_code"]) == (False, "inconclusive", 3)
        assert doc["not_checked"] == ["config", "serialization", "capability", "execution"]
        assert all(layer["verdict"] == NOT_CHECKED and layer["needs"] for layer in doc["layers"])
    elif lang == "en":
        assert "INCONCLUSIVE" in out or "Inconclusive" in out
    else:
        assert "无定论" in out


def test_inconclusive_report_names_what_would_check_each_layer(capsys, empty_inputs):
    code, out, _ = _run(capsys, "verify", "--capture", str(empty_inputs["zero entries"]))
    assert code == 3
    assert out.splitlines()[0] == "agent-contract verify: INCONCLUSIVE: no layer could be checked"
    needs = [line.strip() for line in out.splitlines() if line.strip().startswith("- needs:")]
    assert len(needs) == 4
    assert "(--settings, --gateway-config)" in needs[0]
    assert "(--capture)" in needs[1]


def test_the_python_api_draws_the_same_verdict():
    v = verify(None, None)
    assert (v.overall, v.ok, report.exit_code(v)) == ("inconclusive", False, 3)
    assert [r.verdict for r in v.results] == [NOT_CHECKED] * 4
    assert all(r.needs for r in v.results)  # what would check it, for each
    assert "pass" not in repr(v).split()
    assert set(OVERALL) == set(report.EXIT_CODES)


def test_a_pass_is_only_for_the_layers_checked(capsys):
    settings = "data/dsh-after-fix/settings.yaml"
    code, out, _ = _run(capsys, "verify", "--settings", settings, "--dsh", "0.1.0-rc.8")
    assert code == 0
    head = out.splitlines()[0]
    assert head == (
        "agent-contract verify: the checked layers pass (config); not checked: serialization, capability, execution"
    )
    assert "all layers pass" not in out
    _, js, _ = _run(capsys, "verify", "--settings", settings, "--dsh", "0.1.0-rc.8", "--format", "json")
    doc = json.loads(js)
    assert (doc["verdict"], doc["ok"], doc["not_checked"]) == (
        "pass",
        True,
        ["serialization", "capability", "execution"],
    )
    assert doc["layers"][0]["needs"] is None and doc["layers"][1]["needs"].endswith("(--capture)")
    _, md, _ = _run(capsys, "verify", "--settings", settings, "--dsh", "0.1.0-rc.8", "--format", "markdown")
    assert "**Not checked:**" in md and "- serialization: needs: " in md
    _, html, _ = _run(capsys, "verify", "--settings", settings, "--dsh", "0.1.0-rc.8", "--format", "html")
    assert "The checked layers pass (config); not checked: serialization, capability, execution." in html


def test_a_failing_layer_fails_the_run_and_still_names_the_unchecked(capsys):
    code, out, _ = _run(capsys, "verify", "--capture", "data/dsh-before-fix/capture.har")
    assert code == 1 and out.startswith("agent-contract verify: FAIL")
    assert out.count("- needs:") >= 1  # config (no settings) at least


def test_the_write_line_says_inconclusive(capsys, empty_inputs, tmp_path):
    code, _, err = _run(capsys, "verify", "--capture", str(empty_inputs["browser"]), "--out", str(tmp_path / "r.txt"))
    assert code == 3 and err.startswith("INCONCLUSIVE: wrote ")


def test_settings_without_routes_check_nothing(capsys, tmp_path):
    path = tmp_path / "settings.yaml"
    path.write_text("permission:\n  defaultPreset: read-only\n")
    code, out, _ = _run(capsys, "config", str(path))
    assert code == 3
    assert out.rstrip().endswith(f"INCONCLUSIVE: {path} defines no routes, so there was nothing to check")
    v = verify(load_settings(path), None)
    assert v.results[0].verdict == NOT_CHECKED and v.overall == "inconclusive"


def test_summary_of_nothing_is_inconclusive(capsys, empty_inputs, tmp_path):
    code, out, _ = _run(capsys, "summary", str(empty_inputs["zero entries"]))
    assert code == 3 and out.rstrip().endswith("INCONCLUSIVE: no capture held an entry, so nothing was read")
    (tmp_path / "empty").mkdir()
    assert _run(capsys, "summary", str(tmp_path / "empty"))[0] == 3
    assert _run(capsys, "summary", "data/dsh-before-fix/capture.har")[0] == 0  # a real capture still reconciles


def test_attribute_with_no_tools_is_inconclusive(capsys, empty_inputs):
    code, out, _ = _run(capsys, "attribute", str(empty_inputs["browser"]))
    assert code == 3 and "sent no tools, so there is nothing to attribute" in out


def test_verify_of_the_same_capture_loaded_in_python():
    """The browser HAR read as a capture really has no exchanges: the verdict is about evidence, not paths."""
    cap = load_captures([REPO / "data/dsh-before-fix/capture.har"])
    assert verify(None, cap).overall == "fail"


#: the only sentences that may say "pass": the pass verdicts themselves, the settings' own findings (shown only
#: when a settings file was read, so the config layer was checked), and the widgets' labels (never in a report)
MAY_SAY_PASS = re.compile(
    r"^(verdict\.pass|overall\.pass|report\.(html\.)?(all|partial)_pass|report\.(failing|html\.some_fail)"
    r"|cli\.verify\.wrote_pass|config\..*|widget\..*)$"
)


def test_no_sentence_of_an_unchecked_layer_can_say_pass():
    """An inconclusive report holds no word "pass": so no sentence that can appear in one may hold it (a
    hint to "pass --mode" in a session-only run would have been one)."""
    from toolkit.knowledge.messages import MESSAGES

    saying = [k for k, v in MESSAGES.items() if PASS_WORDS.search(v["en"]) or PASS_WORDS.search(v["zh-CN"])]
    assert saying and [k for k in saying if not MAY_SAY_PASS.match(k)] == []
