"""A key written twice in one YAML mapping is never dropped without a word.

PyYAML keeps a repeated key's last value. In a cassette, deleting one interaction's ``- request:`` line
turns its request keys into repeats of the previous response's and its ``response:`` into a repeat of the
previous interaction's: the file then reads as one interaction fewer, a request paired with the wrong
response, and nothing said. The damaged interaction must be a ``bad-entry`` problem naming the line and
the key while the rest is read. A DSH settings file with a repeated key is refused by DSH's own YAML
parser (the ``yaml`` package: run through ``lab/dsh-fixtures``' DSH 0.1.0-rc.8 parse, ``llm-pi-ai:`` twice
gives ``settings-file: invalid document at settings.yaml: DUPLICATE_KEY at line 3, column 1``), so it is a
``yaml-syntax`` error at that line and column. LiteLLM reads its config with ``yaml.safe_load``, which keeps
the last value, and the gateway reader keeps reading it so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES

from toolkit.capture.load import load_capture
from toolkit.errors import CaptureError
from toolkit.layers.config import load_gateway_config, load_settings
from toolkit.sources import yaml_text

CASSETTES = [
    FIXTURES / "vcr" / "openai_raw.yaml",
    FIXTURES / "vcr" / "openai_decoded.yaml",
    FIXTURES / "go-vcr" / "openai.yaml",
]


def _load(tmp_path: Path, name: str, lines: list[str]):
    path = tmp_path / name
    path.write_text("".join(lines))
    return load_capture(path, progress=False)


def _row(cap) -> dict:
    (row,) = cap.summary().to_dict("records")
    return row


def _second_request(lines: list[str]) -> int:
    return [i for i, line in enumerate(lines) if line.startswith("- request:")][1]


@pytest.mark.parametrize("fixture", CASSETTES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_lost_request_line_is_a_problem_for_the_merged_interaction(tmp_path, fixture):
    lines = fixture.read_text().splitlines(keepends=True)
    whole = _row(_load(tmp_path, "whole.yaml", lines))
    assert (whole["exchanges"], whole["problems"]) == (2, 0)
    at = _second_request(lines)
    response_again = next(i for i in range(at, len(lines)) if lines[i].startswith("  response:"))
    cap = _load(tmp_path, "damaged.yaml", lines[:at] + lines[at + 1 :])
    row = _row(cap)
    assert (row["exchanges"], row["calls"], row["reconciles"]) == (0, 0, True)
    (problem,) = cap.problems.to_dict("records")
    assert (problem["location"], problem["kind"]) == ("interaction 0", "bad-entry")
    # the repeated interaction key, at its line in the damaged file (one line up from the original)
    assert problem["message"].startswith(f"duplicate key 'response' at line {response_again} (first at line ")


def test_the_other_interactions_are_kept(tmp_path):
    """Three interactions, the third's ``- request:`` lost: the first is read, the merged one is a problem."""
    lines = (FIXTURES / "go-vcr" / "openai.yaml").read_text().splitlines(keepends=True)
    first = [i for i, line in enumerate(lines) if line.startswith("- request:")]
    one = lines[first[0] : first[1]]  # the first interaction, repeated as the new last one
    tripled = lines + one
    whole = _row(_load(tmp_path, "whole.yaml", tripled))
    assert (whole["exchanges"], whole["problems"]) == (3, 0)
    at = len(lines)
    cap = _load(tmp_path, "damaged.yaml", tripled[:at] + tripled[at + 1 :])
    row = _row(cap)
    assert (row["exchanges"], row["reconciles"]) == (1, True)
    assert list(zip(cap.problems["location"], cap.problems["kind"])) == [("interaction 1", "bad-entry")]


def test_ruby_vcr_lost_request_line_is_refused_and_a_merge_is_a_problem(tmp_path):
    """Ruby VCR writes ``recorded_at`` after the response, so a lost ``- request:`` alone is already a YAML
    error at its line; losing ``recorded_at`` too merges the interactions, which is the silent case."""
    lines = (FIXTURES / "ruby-vcr" / "openai.yaml").read_text().splitlines(keepends=True)
    at = _second_request(lines)
    assert lines[at - 1].startswith("  recorded_at:")
    with pytest.raises(CaptureError, match=r"\(line \d+, column \d+\): not YAML"):
        _load(tmp_path, "cut.yaml", lines[:at] + lines[at + 1 :])
    cap = _load(tmp_path, "merged.yaml", lines[: at - 1] + lines[at + 1 :])
    row = _row(cap)
    assert (row["exchanges"], row["reconciles"]) == (0, True)
    (problem,) = cap.problems.to_dict("records")
    assert (problem["location"], problem["kind"]) == ("interaction 0", "bad-entry")
    assert problem["message"].startswith("duplicate key ")


def test_a_repeated_top_level_key_refuses_the_cassette(tmp_path):
    lines = (FIXTURES / "go-vcr" / "openai.yaml").read_text().splitlines(keepends=True)
    version = next(i for i, line in enumerate(lines) if line.startswith("version:"))
    doubled = lines[: version + 1] + [lines[version]] + lines[version + 1 :]
    with pytest.raises(CaptureError) as exc:
        _load(tmp_path, "doubled.yaml", doubled)
    assert exc.value.location == f"line {version + 2}"
    assert exc.value.reason == f"duplicate key 'version' at the top level (first at line {version + 1})"


def test_a_repeated_settings_key_is_a_yaml_error_where_dsh_says():
    text = "llm-pi-ai:\n  providers: {}\nllm-pi-ai:\n  providers: {}\n"  # DSH: DUPLICATE_KEY at line 3, column 1
    s = load_settings(text=text)
    (f,) = [f for f in s._findings if f.code == "yaml-syntax"]
    assert (f.severity, f.line, f.column) == ("error", 3, 1)
    after = (Path(__file__).resolve().parent.parent / "data" / "configs" / "settings.after.yaml").read_text()
    lines = after.splitlines(keepends=True)
    api = next(i for i, line in enumerate(lines) if line.strip().startswith("api: "))
    s = load_settings(text="".join(lines[: api + 1] + [lines[api]] + lines[api + 1 :]))
    (f,) = [f for f in s._findings if f.code == "yaml-syntax"]
    assert (f.line, f.column) == (api + 2, lines[api].index("api") + 1)
    assert s.routes.empty


def test_the_gateway_config_keeps_the_last_value_as_litellm_does():
    text = "model_list:\n  - model_name: a\n    litellm_params: {model: openai/x}\n    model_name: b\n"
    assert yaml.safe_load(text)["model_list"][0]["model_name"] == "b"  # what LiteLLM's proxy reads
    assert load_gateway_config(text=text).model_names == ["b"]


def test_merge_keys_may_be_overridden():
    assert yaml_text.load("base: &b {k: 1, j: 2}\nuse:\n  <<: *b\n  k: 3\n")["use"] == {"k": 3, "j": 2}
    with pytest.raises(yaml_text.DuplicateKeyError, match="found duplicate key 'k' \\(first at line 1\\)"):
        yaml_text.load("k: 1\nk: 2\n")
