"""YAML with positions, and edits that change only the lines they must.

``suggest_fix`` has to leave comments, key order and formatting byte for byte, which no YAML dumper
does; so the text is composed once for node positions and edited as lines.

Every YAML the toolkit reads from a user's file (settings, gateway configs, rules, cassettes) is loaded
by ``load`` here, so one set of bounds holds for all of them: the YAML comes from systems the user need
not trust, and a 24 KB file of nested aliases ("billion laughs") expands to hundreds of millions of nodes
when anything walks it, while deep nesting exhausts the stack. The events are scanned first (PyYAML's
parser is a state machine, not recursive) and a document over ``MAX_YAML_ALIAS_NODES`` or
``MAX_YAML_DEPTH`` is refused before anything is composed; a scalar its tag cannot construct
(``!!int 12abc``) is a ``ConstructorError`` at its line, like every other YAML error.

A key repeated in one mapping is a ``DuplicateKeyError`` at the repeat (``UniqueKeys``): PyYAML keeps the
last value and drops the first without a word, which is how a cassette with one ``- request:`` line lost
merges two interactions into one. DSH's YAML parser (the ``yaml`` package) refuses such a settings file
(``DUPLICATE_KEY at line 3, column 1``), so refusing it here says what DSH says. A reader that must read
as a PyYAML-based system does (LiteLLM's ``config.yaml``) passes ``LastKeyWinsLoader``; the cassettes
override ``UniqueKeys.duplicate_key`` to report the damaged interaction and keep the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

__all__ = [
    "MAX_YAML_ALIAS_NODES",
    "MAX_YAML_DEPTH",
    "DuplicateKeyError",
    "Edit",
    "LastKeyWinsLoader",
    "Loc",
    "Path",
    "TypedConstruction",
    "UniqueKeys",
    "YAMLLimitError",
    "apply",
    "block_mapping_indent",
    "compose",
    "delete_key",
    "error_place",
    "insert_keys",
    "last_line",
    "load",
    "path_text",
    "rename_key",
    "replace_value",
]

Path = tuple[str | int, ...]  # ("llm-pi-ai", "providers", "gateway", "models", 0, "input")

#: Nodes that aliases may add to a document, each alias counted as the whole subtree it repeats (nested
#: aliases included). Settings files, gateway configs and cassettes use a handful, if any.
MAX_YAML_ALIAS_NODES = 10_000
#: Nesting of mappings and sequences; real settings and cassettes stay below 30.
MAX_YAML_DEPTH = 100


class YAMLLimitError(yaml.MarkedYAMLError):
    """A document over one of the bounds above (a ``YAMLError``, so every reader reports it as it
    reports bad YAML: file, line and column)."""

    def __init__(self, problem: str, event: yaml.Event):
        super().__init__(None, None, problem, event.start_mark)  # type: ignore[arg-type]  # libyaml's Mark


class TypedConstruction:
    """Mixin for a safe loader: a scalar its tag cannot construct (``!!int 12abc``, ``!!timestamp
    2024-99-99``) raises PyYAML's ``ValueError``/``AttributeError``/``KeyError`` from deep in the
    constructor, which no ``except yaml.YAMLError`` catches; it becomes a ``ConstructorError`` at the
    node."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)  # type: ignore[misc]
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError) as exc:
            value = node.value if isinstance(node, yaml.ScalarNode) else ""
            shown = value if len(value) <= 40 else value[:40] + "..."
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            raise yaml.constructor.ConstructorError(
                None, None, f"{shown!r} is not a valid {tag} ({exc})", node.start_mark
            ) from None


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A key written twice in one mapping (a ``YAMLError`` at the repeated key's line and column)."""


_MERGE = "tag:yaml.org,2002:merge"


class UniqueKeys:
    """Mixin for a safe loader: a scalar key repeated in one mapping goes to ``duplicate_key`` (which
    raises ``DuplicateKeyError``) instead of silently replacing the earlier value. Keys a merge (``<<:``)
    brings in may be overridden, as YAML intends; only keys written in the mapping itself are compared."""

    def repeated_keys(self, node: yaml.MappingNode) -> list[tuple[yaml.Node, Any, yaml.Node]]:
        """Each repeat in ``node`` as (its key node, the key, the key node it repeats)."""
        seen: dict[Any, yaml.Node] = {}
        out: list[tuple[yaml.Node, Any, yaml.Node]] = []
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue
            key = self.construct_object(key_node)  # type: ignore[attr-defined]  # cached by the constructor
            first = seen.setdefault(key, key_node)
            if first is not key_node:
                out.append((key_node, key, first))
        return out

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            for key_node, key, first in self.repeated_keys(node):
                self.duplicate_key(node, key_node, key, first)
        return super().construct_mapping(node, deep)  # type: ignore[misc]

    def duplicate_key(self, node: yaml.MappingNode, key_node: yaml.Node, key: Any, first: yaml.Node) -> None:
        raise DuplicateKeyError(
            "while constructing a mapping",
            node.start_mark,
            f"found duplicate key {key!r} (first at line {first.start_mark.line + 1}); keys must be unique",
            key_node.start_mark,
        )


class _SafeLoader(UniqueKeys, TypedConstruction, yaml.SafeLoader):
    pass


class LastKeyWinsLoader(TypedConstruction, yaml.SafeLoader):
    """PyYAML's own reading, a repeated key's last value kept: for a file whose real reader is
    ``yaml.safe_load`` (LiteLLM's proxy config), so the toolkit reads what that system reads."""


def _check_bounds(text: str, loader: type[Any]) -> None:
    """Refuse a document over ``MAX_YAML_ALIAS_NODES`` or ``MAX_YAML_DEPTH`` from its event stream."""
    size: dict[str, int] = {}  # anchor -> nodes it stands for (its aliases expanded)
    open_: list[tuple[str | None, int]] = []  # the collections being read: (anchor, node count at start)
    count = 0  # nodes so far, an alias counted as what it repeats
    added = 0  # nodes the aliases added
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent):
            if any(anchor == event.anchor for anchor, _ in open_):
                raise YAMLLimitError(f"alias *{event.anchor} inside its own anchor (a structure without end)", event)
            n = size.get(event.anchor or "")
            if n is None:
                continue  # an undefined alias: the composer reports it
            count += n
            added += n
            if added > MAX_YAML_ALIAS_NODES:
                raise YAMLLimitError(
                    f"the aliases expand to more than MAX_YAML_ALIAS_NODES ({MAX_YAML_ALIAS_NODES:,}) nodes", event
                )
        elif isinstance(event, yaml.ScalarEvent):
            count += 1
            if event.anchor is not None:
                size[event.anchor] = 1
        elif isinstance(event, yaml.CollectionStartEvent):
            count += 1
            open_.append((event.anchor, count))
            if len(open_) > MAX_YAML_DEPTH:
                raise YAMLLimitError(f"nested deeper than MAX_YAML_DEPTH ({MAX_YAML_DEPTH}) levels", event)
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, start = open_.pop()
            if anchor is not None:
                size[anchor] = count - start + 1


def _document(text: str, loader: type[Any]) -> tuple[yaml.Node | None, Any]:
    _check_bounds(text, loader)
    parser = loader(text)
    try:
        node = parser.get_single_node()
        data = parser.construct_document(node) if node is not None else None
    finally:
        parser.dispose()
    return node, data


def load(text: str, loader: type[Any] = _SafeLoader) -> Any:
    """The document's value, within the bounds above; every failure is a ``yaml.YAMLError``.

    ``loader`` is a safe loader class that mixes in ``TypedConstruction`` and, unless the real reader
    keeps a repeated key's last value (``LastKeyWinsLoader``), ``UniqueKeys`` (the cassettes' adds their
    ``!binary`` constructors and reports repeated keys per interaction)."""
    return _document(text, loader)[1]


@dataclass(frozen=True)
class Loc:
    """Where a key and its value sit (0-based lines and columns, as PyYAML marks them)."""

    key_line: int | None
    key_col: int | None
    value: yaml.Node

    @property
    def line(self) -> int:
        """1-based line of the key (or of the value, for sequence items and the root)."""
        return (self.key_line if self.key_line is not None else self.value.start_mark.line) + 1

    @property
    def column(self) -> int:
        return (self.key_col if self.key_col is not None else self.value.start_mark.column) + 1


def error_place(exc: yaml.YAMLError, text: str) -> tuple[int | None, int | None, str]:
    """Where a YAML error is (1-based line and column, or ``None``) and what it is, in one line.

    PyYAML's own ``str()`` of an error spans several lines (``in "<unicode string>", position 18730``), and
    its ``ReaderError`` (a control character) carries a character offset, not a mark: the readers report one
    line naming the place, so this is where both become a line and a column."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        why = exc.problem or exc.context or str(exc).splitlines()[0]
        return (mark.line + 1 if mark else None), (mark.column + 1 if mark else None), why
    if isinstance(exc, yaml.reader.ReaderError):
        pos = min(max(exc.position, 0), len(text))
        line = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        return line, column, f"unacceptable character #x{char:04x}: {exc.reason}"
    return None, None, " ".join(str(exc).split())[:300]


def path_text(path: Path) -> str:
    """``llm-pi-ai.providers.gateway.models[0].input``"""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def compose(text: str, loader: type[Any] = _SafeLoader) -> tuple[Any, dict[Path, Loc]]:
    """The document's value (``load``) and the location of every mapping key and sequence item."""
    node, data = _document(text, loader)
    locs: dict[Path, Loc] = {}
    if node is not None:
        locs[()] = Loc(None, None, node)
        _walk(node, (), locs)
    return data, locs


def _walk(node: yaml.Node, path: Path, locs: dict[Path, Loc]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                p = path + (key.value,)
                locs[p] = Loc(key.start_mark.line, key.start_mark.column, value)
                _walk(value, p, locs)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            p = path + (i,)
            locs[p] = Loc(None, None, item)
            _walk(item, p, locs)


def last_line(node: yaml.Node) -> int:
    """0-based index of the last line holding any of the node's text."""
    end = node.end_mark
    line: int = end.line - 1 if end.column == 0 and end.line > node.start_mark.line else end.line
    return line


@dataclass(frozen=True)
class Edit:
    """Replace lines ``[start, stop)`` (0-based) with ``lines``; an insertion has ``start == stop``."""

    start: int
    stop: int
    lines: tuple[str, ...]
    why: str = ""


def apply(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits; lines no edit touches stay byte for byte."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
        trailing_newline = False
    else:
        trailing_newline = True
    eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    for edit in sorted(edits, key=lambda e: (e.start, e.stop), reverse=True):
        lines[edit.start : edit.stop] = [line + eol for line in edit.lines]
    out = "".join(lines)
    return out if trailing_newline or not out.endswith(eol) else out[: -len(eol)]


def block_mapping_indent(node: yaml.Node) -> int | None:
    """Column of the keys of a block mapping, or None for a flow mapping (``{...}``) or no mapping."""
    if not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
        return None
    column: int = node.value[0][0].start_mark.column
    return column


def _key(loc: Loc) -> tuple[int, int]:
    """The 0-based line and column of a mapping key (sequence items and the root have none: a bug to ask)."""
    if loc.key_line is None or loc.key_col is None:
        raise TypeError("this location is a sequence item or the document root, not a mapping key")
    return loc.key_line, loc.key_col


def insert_keys(
    locs: dict[Path, Loc], parent: Path, key_lines: list[str], *, before: str | None = None, why: str = ""
) -> Edit | None:
    """Insert ``key_lines`` (written at indent 0) into the block mapping at ``parent``: before the key
    ``before`` when it exists, else after the mapping's last line."""
    node = locs[parent].value
    indent = block_mapping_indent(node)
    if indent is None:
        return None
    pad = " " * indent
    lines = tuple(pad + line if line else line for line in key_lines)
    if before is not None and parent + (before,) in locs:
        at = _key(locs[parent + (before,)])[0]
        return Edit(at, at, lines, why)
    at = last_line(node) + 1
    return Edit(at, at, lines, why)


def rename_key(text: str, locs: dict[Path, Loc], path: Path, new: str, why: str = "") -> Edit:
    row, col = _key(locs[path])
    line = text.splitlines()[row]
    old = str(path[-1])
    assert line[col : col + len(old)] == old, (line, old)
    return Edit(row, row + 1, (line[:col] + new + line[col + len(old) :],), why)


def delete_key(locs: dict[Path, Loc], path: Path, why: str = "") -> Edit:
    loc = locs[path]
    row = _key(loc)[0]
    return Edit(row, max(row, last_line(loc.value)) + 1, (), why)


def replace_value(text: str, locs: dict[Path, Loc], path: Path, value: str, why: str = "") -> Edit | None:
    """Replace a single-line value in place (keeps the key, the indent and any trailing comment)."""
    node = locs[path].value
    if node.start_mark.line != node.end_mark.line:
        return None
    row: int = node.start_mark.line
    line = text.splitlines()[row]
    new = line[: node.start_mark.column] + value + line[node.end_mark.column :]
    return Edit(row, row + 1, (new,), why)
