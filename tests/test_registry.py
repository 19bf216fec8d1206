"""One registry of readers: each declared format recognises and reads its example, and is documented."""

from __future__ import annotations

import re

import pytest
from conftest import REPO

from toolkit.capture import load_capture
from toolkit.present import cli
from toolkit.sources import detect, registry, sniff


@pytest.mark.parametrize("fmt", registry.FORMATS, ids=lambda f: f.name)
def test_each_format_recognises_and_reads_its_example(fmt):
    example = REPO / fmt.example
    assert example.is_file(), example
    assert detect.detect(example) == fmt.name
    cap = load_capture(example)
    summary = cap.summary()
    assert summary["reconciles"].all() and int(summary["read"].sum()) > 0


def test_no_other_reader_claims_an_example():
    """Detection is by content alone: an example is recognised by its own reader and by none before it."""
    for i, fmt in enumerate(registry.FORMATS):
        head = sniff.head(REPO / fmt.example).lstrip(b"\xef\xbb\xbf").lstrip()
        claimed = [f.name for f in registry.FORMATS[:i] if f.recognizes(head)]
        assert claimed == [], (fmt.name, claimed)


def test_format_choices_come_from_the_registry(capsys):
    assert detect.FORMATS == registry.NAMES
    assert cli.main(["formats"]) == 0
    out = capsys.readouterr().out
    for fmt in registry.FORMATS:
        assert re.search(rf"^{re.escape(fmt.name)}\s+{re.escape(fmt.what)}$", out, re.M), fmt.name


def test_the_readme_format_table_lists_every_format():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("\n| format |") :].split("\n\n", 1)[0]  # the format table alone
    listed = re.findall(r"^\| `([a-z0-9-]+)` \|", table, re.M)
    assert set(registry.NAMES) <= set(listed), set(registry.NAMES) - set(listed)


def test_an_unknown_format_name_is_an_input_error():
    with pytest.raises(ValueError, match="unknown format 'cassette'; choose one of mitm, har"):
        detect.check_format("cassette")
