"""Inputs in the wrong role are refused: every option names what a file *is* (``toolkit.sources.kinds``)
and refuses a file of another kind in one line naming the option that takes it; a file given twice is
read once, and said."""

from __future__ import annotations

import os
import shutil
import warnings
from pathlib import Path

import pytest
from conftest import REPO

from toolkit.capture import find_captures, load_captures
from toolkit.present.cli import ROLES, main
from toolkit.sources import registry
from toolkit.sources.kinds import DSH_SETTINGS, EXPERIMENT, LITELLM_CONFIG, UNKNOWN, kind_of

BEFORE = "data/dsh-before-fix"
SHARED = REPO.parent / "shared"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", registry.FORMATS, ids=lambda f: f.name)
def test_every_format_is_named_by_its_noun(fmt):
    kind = kind_of(REPO / fmt.example)
    assert (kind.name, kind.noun) == (fmt.name, fmt.noun) and fmt.noun


@pytest.mark.parametrize(
    "path",
    sorted(str(p.relative_to(REPO)) for p in [*REPO.glob("data/**/settings*.yaml")]),
)
def test_dsh_settings_are_named(path):
    assert kind_of(REPO / path) == DSH_SETTINGS


@pytest.mark.parametrize(
    "path",
    sorted(
        str(p.relative_to(REPO))
        for p in [REPO / "data/configs/litellm-config.yaml", REPO / "lab/litellm-proxy/config.yaml"]
        + list((REPO / "tests/fixtures/litellm/config").glob("*.yaml"))
    ),
)
def test_litellm_configs_are_named_or_left_to_their_reader(path):
    """Every LiteLLM config the lab and the fixtures hold, valid or not, is a proxy config or (an empty or
    broken one) of no kind: never taken for DSH settings or a capture."""
    kind = kind_of(REPO / path)
    assert kind in (LITELLM_CONFIG, UNKNOWN)
    if (REPO / path).read_text().lstrip().startswith("model_list:"):
        assert kind == LITELLM_CONFIG


def test_recordings_from_the_wild_are_never_taken_for_settings():
    """Real recordings from other projects (../shared/corpora, when it is beside the clone): none is named a
    settings file or a proxy config, so none is ever refused as one."""
    corpora = SHARED / "corpora"
    if not corpora.is_dir():
        pytest.skip("../shared/corpora is not beside this clone (CI has it)")
    files = [p for p in corpora.rglob("*") if p.is_file() and p.name != "PROVENANCE.tsv"]
    assert len(files) > 50
    wrong = [str(p) for p in files if kind_of(p) in (DSH_SETTINGS, LITELLM_CONFIG)]
    assert wrong == []


@pytest.mark.parametrize(
    ("option", "path", "line"),
    [
        (
            "--settings",
            f"{BEFORE}/capture.har",
            f"{BEFORE}/capture.har is a HAR capture, not a DSH settings file; pass it with --capture",
        ),
        (
            "--settings",
            f"{BEFORE}/session.jsonl.zstd",
            f"{BEFORE}/session.jsonl.zstd is a DSH session log, not a DSH settings file; pass it with --session",
        ),
        (
            "--settings",
            "data/configs/litellm-config.yaml",
            "data/configs/litellm-config.yaml is a LiteLLM proxy config, not a DSH settings file; "
            "pass it with --gateway-config",
        ),
        (
            "--gateway-config",
            f"{BEFORE}/settings.yaml",
            f"{BEFORE}/settings.yaml is a DSH settings file, not a LiteLLM proxy config; pass it with --settings",
        ),
        (
            "--session",
            f"{BEFORE}/capture.har",
            f"{BEFORE}/capture.har is a HAR capture, not a DSH session log; pass it with --capture",
        ),
        (
            "--capture",
            f"{BEFORE}/session.jsonl.zstd",
            f"{BEFORE}/session.jsonl.zstd is a DSH session log, not an HTTP capture; pass it with --session",
        ),
        (
            "--capture",
            f"{BEFORE}/settings.yaml",
            f"{BEFORE}/settings.yaml is a DSH settings file, not an HTTP capture; pass it with --settings",
        ),
        (
            "--capture",
            "data/experiment-before-fix",
            "data/experiment-before-fix is a folder written by `agent-contract experiment`, not an HTTP capture; "
            "pass it with --experiment",
        ),
    ],
)
def test_verify_refuses_a_file_in_the_wrong_role(capsys, option, path, line):
    argv = ["verify", option, path]
    if option in ("--gateway-config", "--experiment"):
        argv += ["--capture", f"{BEFORE}/capture.har"]
    code, out, err = _run(capsys, *argv)
    assert (code, out) == (2, "")
    assert err == f"agent-contract: error: {line}\n"


def test_experiment_option_refuses_a_capture(capsys):
    code, _, err = _run(capsys, "verify", "--capture", f"{BEFORE}/capture.har", "--experiment", f"{BEFORE}/capture.har")
    assert code == 2
    assert err == (
        f"agent-contract: error: {BEFORE}/capture.har is a HAR capture, not a folder written by "
        "`agent-contract experiment`; pass it with --capture\n"
    )


def test_the_roles_cover_every_capture_format_once():
    taken = [k for option in ("--capture", "--session") for k in ROLES[option][1]]
    assert sorted(taken) == sorted(registry.NAMES)
    assert kind_of(REPO / "data/experiment-before-fix") == EXPERIMENT


@pytest.mark.parametrize("command", ["summary", "ingest", "attribute", "experiment"])
def test_capture_commands_refuse_settings(capsys, tmp_path, command):
    argv = [command, f"{BEFORE}/settings.yaml"] + (["--out", str(tmp_path / "ds")] if command == "ingest" else [])
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert err == (
        f"agent-contract: error: {BEFORE}/settings.yaml is a DSH settings file, not a capture; give it to "
        "`agent-contract config` or `agent-contract verify --settings`\n"
    )
    assert not (tmp_path / "ds").exists()


def test_the_same_file_twice_is_read_once_and_said(capsys, tmp_path):
    har = f"{BEFORE}/capture.har"
    once = _run(capsys, "verify", "--capture", har, "--format", "json")
    twice = _run(capsys, "verify", "--capture", har, "--capture", "./" + har, "--format", "json")
    assert twice[0] == once[0] == 1
    assert twice[1] == once[1]
    assert twice[2] == f"agent-contract: ./{har}: given more than once; read once\n"
    link = tmp_path / "same.har"
    os.symlink(REPO / har, link)
    code, _, err = _run(capsys, "verify", "--capture", har, "--capture", str(link))
    assert code == 1 and err == f"agent-contract: {link}: given more than once; read once\n"


def test_load_captures_reads_a_repeated_file_once():
    har = REPO / BEFORE / "capture.har"
    with pytest.warns(UserWarning, match="given more than once; read once"):
        twice = load_captures([har, har])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        once = load_captures([har])
    assert len(twice.exchanges) == len(once.exchanges) and len(twice.calls) == len(once.calls)


def test_find_captures_lists_a_repeated_file_as_skipped(tmp_path):
    shutil.copy(REPO / BEFORE / "capture.har", tmp_path / "a.har")
    found, skipped = find_captures([tmp_path / "a.har", tmp_path])
    assert found == [tmp_path / "a.har"]
    assert skipped == [f"{tmp_path / 'a.har'}: given more than once; read once"]


def test_ingest_of_a_file_twice_reads_it_once(capsys, tmp_path):
    har = f"{BEFORE}/capture.har"
    code, _, err = _run(capsys, "ingest", har, har, "--out", str(tmp_path / "ds"), "--jobs", "1")
    assert code == 0
    assert f"skipped {har}: given more than once; read once" in err
    assert Path(tmp_path / "ds" / "manifest.json").is_file()
