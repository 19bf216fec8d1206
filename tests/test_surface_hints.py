"""A hint names what the reader can give where they are: the CLI's flags on the command line
(``--mode``), the Python API's keywords in Python (``mode=``), from one definition
(``toolkit.knowledge.messages.surface``)."""

from __future__ import annotations

import copy
import os
import pickle

import pytest
from conftest import REPO

import toolkit
from toolkit.analysis.verify import verify
from toolkit.knowledge.messages import Message, render
from toolkit.knowledge.messages.surface import OPTIONS, current, option, surface
from toolkit.layers.config import SettingsError, load_settings
from toolkit.present.cli import main

HAR = REPO / "data" / "before-fix" / "capture.har"  # an HTTP capture: the sandbox mode is not in it


def test_a_missing_settings_file_on_the_cli_names_no_python_keyword(tmp_path, capsys):
    missing = tmp_path / "settings.yaml"
    assert main(["verify", "--settings", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"agent-contract: error: {missing}: cannot read: ")
    assert "text=" not in err and len(err.strip().splitlines()) == 1


def test_a_missing_settings_file_in_python_says_where_yaml_text_goes(tmp_path):
    with pytest.raises(SettingsError, match=r"\(taken as a path to a settings file; YAML text goes in text=\)$"):
        load_settings(str(tmp_path / "settings.yaml"))


def test_the_execution_layer_names_the_cli_flag_on_the_cli(capsys):
    main(["verify", "--capture", os.path.relpath(HAR)])
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("EXECUTION"))
    assert "(give --mode for HTTP captures)" in line
    assert "mode=" not in out  # no Python keyword anywhere in the CLI's report


def test_the_execution_layer_names_the_keyword_in_python():
    result = verify(None, toolkit.load_capture(HAR))
    execution = next(r for r in result.results if r.layer == "execution")
    assert "(give mode= for HTTP captures)" in execution.summary
    assert str(result.replay["note"].iloc[0]) == "the sandbox mode is unknown: give mode= for an HTTP capture"


def test_every_language_takes_the_spelling_of_the_surface():
    note = Message("execution.note.mode_unknown", option=option("mode"))
    assert note == "the sandbox mode is unknown: give mode= for an HTTP capture"
    assert note.render("zh-CN").endswith("mode=")
    with surface("cli"):
        assert note.render("en") == "the sandbox mode is unknown: give --mode for an HTTP capture"
        assert note.render("zh-CN").endswith("--mode") and "mode=" not in note.render("zh-CN")
        assert render(option("settings")) == "--settings"


def test_the_surface_is_restored_and_checked():
    assert current() == "python"
    with pytest.raises(RuntimeError), surface("cli"):
        assert current() == "cli"
        raise RuntimeError
    assert current() == "python"
    with pytest.raises(ValueError, match="unknown surface"), surface("web"):
        pass
    with pytest.raises(KeyError, match="no option"):
        option("no-such-option")


def test_a_message_with_an_option_survives_pickle_and_copy():
    note = Message("execution.note.mode_unknown", option=option("mode"))
    for again in (pickle.loads(pickle.dumps(note)), copy.deepcopy(note)):
        assert again == note and isinstance(again, Message)
        with surface("cli"):
            assert "--mode" in again.render("en")


def test_every_option_has_a_spelling_for_each_surface():
    for name, forms in OPTIONS.items():
        assert set(forms) == {"python", "cli"}, name
        assert forms["python"] is None or forms["python"].endswith("="), name
        assert forms["cli"] is None or forms["cli"].startswith("--"), name
