"""Every document the toolkit's texts point to (messages, docstrings, rule sources) is in this repository."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import REPO

# a path ending in .md, optionally with #anchor
_REF = re.compile(r"(?<![\w/.-])((?:\.{1,2}/)*[\w.-]+(?:/[\w.-]+)*\.md)(?:#([\w-]+))?")
# ``owner/repo`` right before the path: a file of that upstream repository, cited as such
_UPSTREAM = re.compile(r"[\w-]+/[\w.-]+`*\s+`*$")
# docs/x.md, section "a" / sections "a" and "b"
_SECTIONS = re.compile(r'`*,? sections? ((?:"[\w-]+"(?:,? and |, )?)+)')


def _texts() -> list[tuple[str, str]]:
    """(where, text) of every string literal in toolkit/*.py and every text file under toolkit/."""
    out = []
    for path in sorted((REPO / "toolkit").rglob("*")):
        rel = str(path.relative_to(REPO))
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    out.append((f"{rel}:{node.lineno}", node.value))
        elif path.suffix in (".yaml", ".yml", ".json", ".md", ".txt"):
            out.append((rel, path.read_text(encoding="utf-8")))
    return out


def _headings(doc: Path) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^#+\s+([\w-]+)\s*$", doc.read_text(encoding="utf-8"), re.M)}


def _references(texts: list[tuple[str, str]] | None = None) -> list[tuple[str, str, list[str]]]:
    refs = []
    for where, text in _texts() if texts is None else texts:
        for m in _REF.finditer(text):
            if _UPSTREAM.search(text[max(0, m.start() - 80) : m.start()]):
                continue
            anchors = [m.group(2)] if m.group(2) else []
            if s := _SECTIONS.match(text, m.end()):
                anchors += re.findall(r'"([\w-]+)"', s.group(1))
            refs.append((where, m.group(1), anchors))
    return refs


def test_the_scan_finds_the_references():
    refs = _references()
    assert any(ref == "docs/upstream.md" and anchors for _, ref, anchors in refs)
    assert len(refs) > 5


def _missing(texts: list[tuple[str, str]] | None = None) -> list[str]:
    missing = []
    for where, ref, anchors in _references(texts):
        doc = (REPO / ref).resolve()
        if REPO.resolve() not in doc.parents or not doc.is_file():
            missing.append(f"{where}: {ref}")
            continue
        missing += [f"{where}: {ref}#{a}" for a in anchors if a not in _headings(doc)]
    return missing


def test_every_referenced_document_and_section_exists():
    assert _missing() == []


def test_the_check_flags_documents_outside_the_repository_and_unknown_sections():
    texts = [
        ("a", "see ../shared/reference/dsh.md for the rules"),
        ("b", "docs/upstream.md#no-such-section"),
        ("c", 'docs/upstream.md, sections "har" and "no-such-one"'),
        ("d", "per ``owner/upstream-repo`` ``docs/elsewhere.md`` (their file, cited as theirs)"),
        ("e", "docs/upstream.md#har and README.md"),
    ]
    assert _missing(texts) == [
        "a: ../shared/reference/dsh.md",
        "b: docs/upstream.md#no-such-section",
        "c: docs/upstream.md#no-such-one",
    ]
