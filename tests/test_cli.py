"""``agent-contract``: exit codes, formats, the JSON schema, a snapshot, errors, and the CLI without the
``notebooks`` extra. The commands run in-process (``cli.main``) so coverage sees the CLI, the report
and the export; subprocesses only where the process itself is the subject (the console script,
start-up imports, blocked imports)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEMO_BEFORE, REPO
from jsonschema import Draft202012Validator

from toolkit.knowledge import dsh_images, dsh_runtime, pi_ai, pi_ai_tools
from toolkit.knowledge.dsh_tools import SCHEMAS as DSH_TOOLS
from toolkit.present import cli
from toolkit.present.report import FIGURE_MISSING, json_schema
from toolkit.sources.detect import FORMATS

SNAPSHOT = REPO / "tests" / "snapshots" / "verify_before.md"
BEFORE = DEMO_BEFORE
AFTER = [
    "--settings",
    "data/dsh-after-fix/settings.yaml",
    "--capture",
    "data/dsh-after-fix/capture.har",
    "--session",
    "data/dsh-after-fix/session.jsonl.zstd",
    "--dsh",
    "0.1.0-rc.8",
]
#: what DSH shows for the before-fix data's undeclared image, at the entry points a user meets
SEEN = [
    dsh_images.web_refusal("gw-coder"),
    dsh_images.WEB_TOAST,
    dsh_images.adapter_refusal("gw-coder"),
    dsh_images.mcp_reason("gw-coder"),
]


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)
    for name in ("GATEWAY_API_KEY", "DSH_PERMISSION_MODE"):
        monkeypatch.delenv(name, raising=False)


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_exit_codes(capsys):
    assert run(capsys, "verify", *BEFORE)[0] == 1
    assert run(capsys, "verify", *AFTER)[0] == 0
    code, _, err = run(capsys, "verify", "--settings", "missing.yaml")
    assert code == 2 and "Traceback" not in err
    assert err.startswith("agent-contract: error: missing.yaml: cannot read: No such file or directory")
    assert len(err.strip().splitlines()) == 1
    assert run(capsys, "verify", "--format", "pdf")[0] == 2
    assert run(capsys, "verify", "--dsh", "0.1.6-omega.1")[0] == 2  # not a version: a usage error
    assert run(capsys, "--help")[0] == 0


def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, _, err = run(capsys, "verify", *AFTER, "--out", str(blocker / "r.md"))
    assert code == 2 and err.startswith(f"agent-contract: error: {blocker / 'r.md'}: cannot write the report")
    code, _, err = run(capsys, "summary", "data/no-such-capture.har")
    assert code == 2 and err.startswith("agent-contract: error: ") and "Traceback" not in err


def test_a_programming_error_keeps_its_traceback(capsys, monkeypatch):
    """A ValueError that is not an InputError is a bug: it propagates, it is not called bad usage (exit 2)."""
    import toolkit.analysis.verify

    def broken(*args, **kwargs):
        raise ValueError("a bug inside verify")

    monkeypatch.setattr(toolkit.analysis.verify, "verify", broken)
    with pytest.raises(ValueError, match="a bug inside verify"):
        cli.main(["verify", *AFTER])
    assert "agent-contract: error" not in capsys.readouterr().err


def test_interrupt_exits_130(capsys, monkeypatch):
    import toolkit.analysis.verify

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(toolkit.analysis.verify, "verify", interrupted)
    code, _, err = run(capsys, "verify", *AFTER)
    assert (code, err.strip()) == (130, "agent-contract: interrupted")


def test_choices_come_from_their_one_definition():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, type(parser._subparsers._group_actions[0])))
    options = {
        (name, opt): action.choices
        for name, p in sub.choices.items()
        for action in p._actions
        for opt in action.option_strings
        if action.choices is not None
    }
    assert options[("verify", "--mode")] == list(dsh_runtime.MODES)
    assert options[("verify", "--format")] == ["text", "markdown", "json", "html"]
    assert options[("summary", "--format")] == options[("ingest", "--format")] == list(FORMATS)
    assert options[("variants", "--api")] == list(pi_ai_tools.TOOL_APIS)
    assert options[("variants", "--pi-ai")] == list(pi_ai.VERSIONS)
    assert options[("variants", "--tool")] == list(DSH_TOOLS)
    verify = sub.choices["verify"]
    assert verify.get_default("dsh") == dsh_runtime.DEFAULT_VERSION


def test_text_names_the_failing_layers_and_the_exact_messages(capsys):
    out = run(capsys, "verify", *BEFORE)[1]
    assert re.findall(r"^(\w+)\s+(PASS|WARN|FAIL)", out, re.M) == [
        ("CONFIG", "WARN"),
        ("SERIALIZATION", "FAIL"),
        ("CAPABILITY", "FAIL"),
        ("EXECUTION", "FAIL"),
    ]
    # one call of each, judged once although the HAR and DSH's session log both hold it
    assert "×1: invalid justification: expected a non-empty sentence" in out
    assert '×1: sandbox escalation to "danger-full-access" is not strictly wider than this call\'s current' in out
    assert "sk-lab-FAKE" not in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "html"])
def test_every_format_lists_each_dsh_text_with_its_entry_point(capsys, tmp_path, fmt):
    """A user searches the report for the message they saw: every format has each of DSH's texts."""
    out = tmp_path / f"r.{fmt}"
    assert run(capsys, "verify", *BEFORE, "--format", fmt, "--out", str(out))[0] == 1
    text = out.read_text(encoding="utf-8")
    if fmt == "json":
        layers = {layer["layer"]: layer for layer in json.loads(text)["layers"]}
        pairs = {(m["entry_point"], m["text"]) for m in layers["capability"]["dsh_messages"]}
        assert ("web", dsh_images.web_refusal("gw-coder")) in pairs
        assert ("pi-ai adapter", dsh_images.adapter_refusal("gw-coder")) in pairs
        text = "\n".join(f"{m['entry_point']}: {m['text']}" for m in layers["capability"]["dsh_messages"])
    elif fmt == "html":
        import html

        text = html.unescape(text)
    for seen in SEEN:
        assert seen in text, (fmt, seen)
    assert "web toast" in text and "pi-ai adapter" in text  # the entry points are named


def test_json_output_follows_the_documented_schema(capsys):
    for args, code in ((BEFORE, 1), (AFTER, 0)):
        doc = json.loads(run(capsys, "verify", *args, "--format", "json")[1])
        Draft202012Validator(json_schema()).validate(doc)
        assert doc["exit_code"] == code and doc["ok"] is (code == 0)
    # the key is unset here (config warns); the screenshot DSH read went out and was accepted
    assert [layer["verdict"] for layer in doc["layers"]] == ["warn", "pass", "pass", "pass"]
    assert all(layer["dsh_messages"] == [] for layer in doc["layers"])  # nothing refused after the fix


def test_markdown_snapshot_for_the_before_fix_data(capsys):
    out = run(capsys, "verify", *BEFORE, "--format", "markdown")[1]
    if os.environ.get("UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(out, encoding="utf-8")
    assert out == SNAPSHOT.read_text(encoding="utf-8"), "set UPDATE_SNAPSHOTS=1 to accept a deliberate change"


def test_html_report_is_one_self_contained_file(capsys, tmp_path):
    out = tmp_path / "r.html"
    code, _, err = run(capsys, "verify", *BEFORE, "--format", "html", "--out", str(out))
    assert code == 1 and err.strip() == f"FAIL: wrote {out}"
    html = out.read_text(encoding="utf-8")
    assert not re.search(r'(src|href)="https?://', html)
    assert 'src="data:image/png;base64,' in html and "invalid justification: expected a non-empty sentence" in html
    assert "sk-lab-FAKE" not in html


def test_summary_and_config(capsys):
    code, out, _ = run(capsys, "summary", "data/before-fix/capture.har")
    assert code == 0 and "capture.har" in out and "exchanges (4 of 4)" in out
    code, out, _ = run(capsys, "config", "data/configs/settings.before.yaml")
    assert code in (0, 1) and "findings:" in out and "DSH says:" in out
    assert f"DSH says (web): {dsh_images.web_refusal('gw-coder')}" in out  # every entry point's text
    assert f"DSH says (web toast): {dsh_images.WEB_TOAST}" in out
    code, out, _ = run(capsys, "config", "data/configs/settings.before.yaml", "--diff")
    assert code == 0 and out.startswith("---")


def test_variants_table(capsys):
    out = run(capsys, "variants", "--tool", "bash", "--api", "openai-responses")[1]
    assert "true, pi-ai's strict transform" in out and "absent, gateway reads absence as strict" in out
    assert "compat.supportsStrictMode unset: strict absent" in out
    assert "compat.supportsStrictMode true : strict false" in out
    assert run(capsys, "variants", "--tool", "nope")[0] == 2


# ---- the process itself --------------------------------------------------------------------------


def test_console_script_and_start_up_imports():
    """The installed ``agent-contract`` script runs, and start-up loads neither plotting nor Jupyter."""
    script = Path(sys.executable).parent / "agent-contract"
    if not script.exists():
        pytest.skip(f"the console script is not installed beside {sys.executable} (pip install -e .)")
    res = subprocess.run([str(script), "verify", *AFTER], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0 and res.stdout.startswith("agent-contract verify: all layers pass"), res.stderr
    code = (
        "import sys, io, contextlib; from toolkit.present import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()): cli.main(['verify'] + sys.argv[1:])\n"
        "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'IPython', 'jupyterlab') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code, *BEFORE], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


BLOCK_EXTRA = """
import contextlib, io, json, sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("matplotlib", "ipywidgets", "IPython", "jupyterlab"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)")
sys.meta_path.insert(0, _Block())
from toolkit.present import cli
results = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    results.append([code, err.getvalue()])
print(json.dumps(results))
"""


def test_cli_works_without_the_notebooks_extra(tmp_path):
    """Every command runs with matplotlib, ipywidgets, IPython and jupyterlab unimportable; the HTML report
    is written without its figure, and both the report and stderr say what the figure needs."""
    out = tmp_path / "r.html"
    runs = [
        ["summary", "data/before-fix/capture.har"],
        ["config", "data/configs/settings.after.yaml"],
        ["variants", "--api", "openai-responses"],
        ["ingest", "data/dsh-after-fix", "--out", str(tmp_path / "parquet")],
        *(["verify", *BEFORE, "--format", fmt] for fmt in ("text", "markdown", "json")),
        ["verify", *BEFORE, "--format", "html", "--out", str(out)],
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_API_KEY", "DSH_PERMISSION_MODE")}
    res = subprocess.run(
        [sys.executable, "-c", BLOCK_EXTRA, json.dumps(runs)], capture_output=True, text=True, cwd=REPO, env=env
    )
    assert res.returncode == 0, res.stderr
    results = json.loads(res.stdout.strip().splitlines()[-1])
    assert [code for code, _ in results] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert all(err == "" for _, err in results[4:7])
    assert results[-1][1].splitlines() == [f"agent-contract: note: {FIGURE_MISSING}", f"FAIL: wrote {out}"]
    html = out.read_text(encoding="utf-8")
    assert "data:image/png" not in html and "agent-contract-toolkit[notebooks]" in html
    assert "invalid justification: expected a non-empty sentence" in html
