"""Hostile YAML (issue 27): alias bombs, deep nesting and scalars their tag cannot construct are refused
by the one bounded loader (``toolkit.sources.yaml_text.load``) every reader of a user's YAML goes through,
as that reader's clean error: file, line and column; the CLI prints one line and exits 2."""

from __future__ import annotations

import pytest
from conftest import REPO

from toolkit.analysis import triage
from toolkit.capture.load import load_capture
from toolkit.errors import CaptureError
from toolkit.layers.config.gateway import GatewayConfigError, load_gateway_config
from toolkit.present import cli
from toolkit.sources import yaml_text
from toolkit.sources.cassettes import interaction

RUBY = REPO / "tests/fixtures/ruby-vcr/openai.yaml"
VCR = REPO / "tests/fixtures/vcr/openai_raw.yaml"
GATEWAY = REPO / "data/configs/litellm-config.yaml"
SETTINGS = REPO / "data/dsh-image/settings.yaml"
HEADER = "      Accept:\n      - application/json\n"


def laughs(levels: int, fan: int, indent: str = "      ", key: str = "X-Laugh") -> str:
    """A mapping's lines of nested aliases: level n repeats level n-1 ``fan`` times (fan**levels leaves)."""
    lines = [f"{indent}{key}0: &l0 [{', '.join(['lol'] * fan)}]"]
    for n in range(1, levels):
        lines.append(f"{indent}{key}{n}: &l{n} [{', '.join([f'*l{n - 1}'] * fan)}]")
    return "\n".join(lines) + "\n"


def with_header(tmp_path, seed, extra: str, name: str = "c.yaml"):
    text = seed.read_text(encoding="utf-8")
    assert HEADER in text
    out = tmp_path / name
    out.write_text(text.replace(HEADER, HEADER + extra, 1), encoding="utf-8")
    return out


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


# -- alias bombs ---------------------------------------------------------------------------------


def test_a_billion_laughs_cassette_is_refused_naming_the_budget(tmp_path):
    path = with_header(tmp_path, RUBY, laughs(9, 9))  # 9**9 = 387,420,489 leaves in a ~1 KB header
    with pytest.raises(CaptureError) as info:
        interaction.load(path)
    err = info.value
    assert err.path == str(path) and "MAX_YAML_ALIAS_NODES (10,000)" in str(err)
    line = path.read_text().splitlines().index("      X-Laugh4: &l4 [" + ", ".join(["*l3"] * 9) + "]") + 1
    assert err.location == f"line {line}, column 22"  # the alias that passes the budget


def test_a_billion_laughs_cassette_through_the_cli_is_one_line_and_exit_2(tmp_path, capsys):
    path = with_header(tmp_path, RUBY, laughs(9, 9))
    code, out, err = run(capsys, "verify", "--capture", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"agent-contract: error: {path} (line ")
    assert "MAX_YAML_ALIAS_NODES" in err


def test_a_few_aliases_are_still_read(tmp_path):
    """Psych and hand-written cassettes may repeat a value by alias: within the budget it reads as before."""
    path = with_header(tmp_path, RUBY, laughs(3, 9))  # 9 + 81 + 729 leaves: far under the budget
    plain = load_capture(RUBY)
    aliased = load_capture(path)
    assert len(aliased.exchanges) == len(plain.exchanges) and len(aliased.calls) == len(plain.calls)
    assert yaml_text.load("a: &a [1, 2]\nb: *a\nc:\n  <<: {x: 1}\n") == {"a": [1, 2], "b": [1, 2], "c": {"x": 1}}


def test_an_alias_inside_its_own_anchor_is_refused():
    with pytest.raises(yaml_text.YAMLLimitError, match="inside its own anchor"):
        yaml_text.load("a: &a [1, *a]\n")


def test_the_settings_and_gateway_readers_share_the_bound(tmp_path, capsys):
    """100,000 expanded leaves: the old loader finished (slowly); the bound refuses it in every reader."""
    bomb = laughs(5, 10, indent="", key="x-laugh")
    gateway = tmp_path / "gateway.yaml"
    gateway.write_text(GATEWAY.read_text(encoding="utf-8") + bomb, encoding="utf-8")
    with pytest.raises(GatewayConfigError, match="MAX_YAML_ALIAS_NODES"):
        load_gateway_config(gateway)
    settings = tmp_path / "settings.yaml"
    settings.write_text(SETTINGS.read_text(encoding="utf-8") + bomb, encoding="utf-8")
    code, out, err = run(capsys, "verify", "--settings", str(settings))
    line = len(settings.read_text().splitlines()) - 1  # the last but one line holds the alias over the budget
    said = f"error (line {line}): YAML syntax error in settings file {settings}: the aliases expand to more than"
    assert code == 1 and err == "" and said in out  # a settings file's bad YAML is a config finding
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: []\n" + bomb, encoding="utf-8")
    with pytest.raises(triage.RuleError, match="MAX_YAML_ALIAS_NODES"):
        triage.load_rules(rules)


@pytest.mark.parametrize("depth", [150, 100_000])
def test_nesting_deeper_than_the_bound_is_refused(tmp_path, depth):
    """libyaml stops at 1,000 levels by itself; the bound holds below that, and for the pure-Python
    loader the settings readers use (whose composer recursed until ``RecursionError``)."""
    deep = "[" * depth + "]" * depth
    path = with_header(tmp_path, RUBY, f"      X-Deep: {deep}\n")
    with pytest.raises(CaptureError, match=r"MAX_YAML_DEPTH \(100\)" if depth < 1000 else "nesting depth"):
        interaction.load(path)
    with pytest.raises(yaml_text.YAMLLimitError, match=r"MAX_YAML_DEPTH \(100\)"):
        yaml_text.compose(f"a: {deep}\n")
    gateway = tmp_path / "gateway.yaml"
    gateway.write_text(GATEWAY.read_text(encoding="utf-8") + f"x-deep: {deep}\n", encoding="utf-8")
    with pytest.raises(GatewayConfigError, match=r"MAX_YAML_DEPTH \(100\)"):
        load_gateway_config(gateway)


def test_nesting_at_the_bound_is_read():
    data = yaml_text.load("a: " + "[" * 99 + "]" * 99)  # the mapping and 99 sequences: 100 levels
    for _ in range(98):
        data = data["a"] if isinstance(data, dict) else data[0]
    assert data == [[]]


# -- constructor errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scalar", "why"),
    [
        ("!!int 12abc", "'12abc' is not a valid !!int"),
        ("!!timestamp 2024-99-99", "'2024-99-99' is not a valid !!timestamp"),
    ],
)
def test_a_scalar_its_tag_cannot_construct_is_a_clean_cassette_error(tmp_path, capsys, scalar, why):
    path = with_header(tmp_path, RUBY, f"      X-Typed: {scalar}\n")
    line = path.read_text().splitlines().index(f"      X-Typed: {scalar}") + 1
    with pytest.raises(CaptureError) as info:
        interaction.load(path)
    assert info.value.location == f"line {line}, column 16" and why in str(info.value)
    code, out, err = run(capsys, "verify", "--capture", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"agent-contract: error: {path} (line {line}, column 16): not YAML: {why}")


def test_a_scalar_its_tag_cannot_construct_in_settings_files(tmp_path, capsys):
    gateway = tmp_path / "gateway.yaml"
    gateway.write_text(GATEWAY.read_text(encoding="utf-8") + "x-typed: !!int 12abc\n", encoding="utf-8")
    line = len(gateway.read_text().splitlines())
    code, out, err = run(capsys, "verify", "--settings", str(SETTINGS), "--gateway-config", str(gateway))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"agent-contract: error: {gateway}: line {line}, column 10: YAML syntax error: '12abc'")
    settings = tmp_path / "settings.yaml"
    settings.write_text(SETTINGS.read_text(encoding="utf-8") + "x-typed: !!timestamp 2024-99-99\n", encoding="utf-8")
    code, out, err = run(capsys, "verify", "--settings", str(settings))
    line = len(settings.read_text().splitlines())
    said = (
        f"error (line {line}): YAML syntax error in settings file {settings}: '2024-99-99' is not a valid !!timestamp"
    )
    assert code == 1 and err == "" and said in out  # a settings file's bad YAML is a config finding
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: !!int 12abc\n", encoding="utf-8")
    with pytest.raises(triage.RuleError, match=r"line 1, column 8.*'12abc' is not a valid !!int"):
        triage.load_rules(rules)


def test_a_vcr_parsed_body_of_laughs_is_refused_before_it_is_re_serialised(tmp_path):
    """VCR.py's pydantic-ai cassettes keep a ``parsed_body`` that the reader writes back as JSON, which
    walks every alias: the bound refuses the file first."""
    seed = REPO / "tests/fixtures/vcr/openai_parsed_body.yaml"
    text = seed.read_text(encoding="utf-8")
    at = text.index("    parsed_body:\n")
    path = tmp_path / "laughs.yaml"
    path.write_text(text[:at] + "    x-laughs:\n" + laughs(9, 9, indent="      ") + text[at:], encoding="utf-8")
    with pytest.raises(CaptureError, match=r"MAX_YAML_ALIAS_NODES \(10,000\)"):
        load_capture(path)


def test_a_control_character_is_one_line_at_its_line_and_column(tmp_path, capsys):
    """PyYAML refuses a control character with a ReaderError whose text spans two lines and gives a character
    offset, not a line (a flipped byte in the fuzz campaign printed two lines on the CLI): every YAML reader
    names the line and column in one line."""
    cassette = tmp_path / "c.yaml"
    cassette.write_text("interactions:\n- request:\n    body: a\x02b\n", encoding="utf-8")
    code, out, err = run(capsys, "summary", str(cassette))
    assert code == 2 and out == "" and err.count("\n") == 1
    why = "not YAML: unacceptable character #x0002: control characters are not allowed"
    assert err == f"agent-contract: error: {cassette} (line 3, column 12): {why}\n"
    gateway = tmp_path / "gateway.yaml"
    gateway.write_text(GATEWAY.read_text(encoding="utf-8") + "x-odd: a\x7fb\n", encoding="utf-8")
    line = len(gateway.read_text().splitlines())
    code, out, err = run(capsys, "verify", "--settings", str(SETTINGS), "--gateway-config", str(gateway))
    assert code == 2 and err.count("\n") == 1
    assert f"{gateway}: line {line}, column 9: YAML syntax error: unacceptable character #x007f" in err
    settings = tmp_path / "settings.yaml"
    settings.write_text(SETTINGS.read_text(encoding="utf-8") + "x-odd: a\x00b\n", encoding="utf-8")
    code, out, err = run(capsys, "verify", "--settings", str(settings))
    line = len(settings.read_text().splitlines())
    assert code == 1 and err == "" and f"error (line {line}): " in out and "unacceptable character #x0000" in out
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules:\n- id: a\x02\n", encoding="utf-8")
    with pytest.raises(triage.RuleError, match=r"line 2, column 8\): not valid YAML: unacceptable character #x0002"):
        triage.load_rules(rules)
