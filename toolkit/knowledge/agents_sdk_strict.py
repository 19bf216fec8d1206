"""The OpenAI Agents SDK's strict transform, modelled without the SDK (which the toolkit does not depend on).

Source: ``openai-agents==0.24.0`` ``agents/strict_schema.py`` (``ensure_strict_json_schema``), checked
against the real function by ``tests/fixtures/agents_sdk/strict.json`` (``lab/record_agents_strict.py``).
The rules and texts are listed in ``docs/upstream.md``, "openai-agents-strict".

``ensure_strict`` returns what the SDK returns, key order included. The SDK rewrites the dict it is
given in place and returns that same dict (even when it then raises, the input is half rewritten);
the model works on a deep copy and never changes its input. Where the SDK raises ``UserError`` the
model raises ``AgentsStrictError`` with the same text. The SDK also lets a few plain Python errors
escape (a non-dict schema node, a ``$ref`` it cannot follow); those become ``AgentsStrictError`` too,
with the SDK's text and the class it raises in ``sdk_class``, since for the toolkit they are bad input.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import unquote

from toolkit.errors import InputError

__all__ = ["MAX_DEPTH", "MAX_NODES", "SDK_VERSION", "USER_ERROR", "AgentsStrictError", "ensure_strict"]

SDK_VERSION = "0.24.0"
USER_ERROR = "agents.exceptions.UserError"
MAX_NODES = 100_000  # node visits before the "too large" refusal (a `$ref` fan-out)
MAX_DEPTH = 100  # nested containers, and nested visits (inlined `$ref`s count), before "too deeply nested"

_EMPTY = {"additionalProperties": False, "type": "object", "properties": {}, "required": []}

# Keywords that may sit next to a `$ref` (and that a singleton `allOf`'s parent may override).
_HARMLESS = frozenset(
    [
        "$anchor",
        "$comment",
        "$defs",
        "$schema",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "default",
        "definitions",
        "deprecated",
        "description",
        "examples",
        "readOnly",
        "title",
        "writeOnly",
    ]
)

_TEXT_DEPTH = "JSON schema is too deeply nested to process safely. Simplify or flatten the schema."
_TEXT_SIZE = (
    "JSON schema is too large to convert to a strict schema. This can happen when a schema expands "
    "`$ref`s exponentially, which may indicate a malformed or malicious schema."
)
_TEXT_ADDITIONAL = (
    "additionalProperties should not be set for object types. This could be because you're using an "
    "older version of Pydantic, or because you configured additional properties to be allowed. If you "
    "really need this, update the function or output tool to not use a strict schema."
)
_TEXT_OPEN = (
    "JSON schema contains an object that permits undeclared properties and cannot be converted to a "
    "strict schema without changing its accepted values."
)
_TEXT_UNVALIDATED = "JSON schema contains a reference whose target was not validated for strict mode."
_TEXT_RESOURCE = (
    "JSON schema contains a reference owned by or crossing a nested `$id` resource that cannot be "
    "resolved against the document root."
)
_TEXT_CYCLE = "JSON schema contains a circular `$ref` chain."
_TEXT_ROOT_ANYOF = "The root of a strict JSON schema must not use `anyOf`."


def _text_ref_siblings(names: list[str]) -> str:
    return (
        f"JSON schema contains a `$ref` with incompatible sibling keyword(s) ({', '.join(sorted(names))}) "
        "that cannot be merged without changing its accepted values."
    )


def _text_all_of(names: list[str]) -> str:
    return (
        "JSON schema contains a singleton `allOf` entry with incompatible parent keyword(s) "
        f"({', '.join(sorted(names))}) that cannot be merged without changing its accepted values."
    )


def _text_root_type(typ: Any) -> str:
    return (
        f"The root of a strict JSON schema must be a non-nullable object, but its type is {typ}. Make the "
        "root a plain object, or update the function or output tool to not use a strict schema."
    )


class AgentsStrictError(InputError):
    """The SDK refuses this schema. ``str()`` is its exact text; ``path`` is a JSON pointer (``#`` is
    the root) to the node being converted; ``sdk_class`` is what the SDK raises (normally ``UserError``)."""

    def __init__(self, message: str, *, path: str = "#", sdk_class: str = USER_ERROR):
        self.path, self.reason, self.sdk_class = path, message, sdk_class
        super().__init__(message)

    def __repr__(self) -> str:
        return f"AgentsStrictError({self.reason!r}, path={self.path!r}, sdk_class={self.sdk_class!r})"


def ensure_strict(schema: dict[str, Any], *, reject_open_objects: bool = False) -> dict[str, Any]:
    """What ``ensure_strict_json_schema(schema)`` returns; ``schema`` itself is never changed.

    ``reject_open_objects`` is the SDK's private ``_reject_open_objects`` (its comments name MCP tool
    conversion as the caller; no call with it set was found in 0.24.0): it also
    refuses objects that allow undeclared properties and plain ``$ref``s left in the output."""
    if _too_deep(schema):
        raise AgentsStrictError(_TEXT_DEPTH)
    if schema == {}:
        return copy.deepcopy(_EMPTY)
    work = copy.deepcopy(schema)
    out = _Conversion(work, reject_open_objects).visit(work, (), 1, False)
    if isinstance(out.get("anyOf"), list):
        raise AgentsStrictError(_TEXT_ROOT_ANYOF)
    typ = out.get("type")
    if isinstance(typ, list) and "object" in typ:
        if typ != ["object"]:
            raise AgentsStrictError(_text_root_type(typ))
        out["type"] = "object"
    return out


def _too_deep(value: Any) -> bool:
    """Whether dicts and lists nest more than ``MAX_DEPTH`` deep (the root container is level 1)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            return True
        children = (v for c in level for v in (c.values() if isinstance(c, dict) else c))
        level = [v for v in children if isinstance(v, dict | list)]
    return False


def _pointer(path: tuple[str, ...]) -> str:
    return "#" + "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path)


def _same_json(a: Any, b: Any) -> bool:
    """Equality as JSON sees it: ``true`` is not ``1``, ``1`` is ``1.0``, key order does not count."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same_json, a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or a.keys() != b.keys():
            return False
        return all(_same_json(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _is_resource(node: dict[str, Any]) -> bool:
    return isinstance(node.get("$id"), str)


class _Conversion:
    """One run over a deep copy, rewritten in place in the SDK's order (the order decides what an
    inlined ``$ref`` sees and which error comes first)."""

    def __init__(self, root: dict[str, Any], reject_open: bool):
        self.root, self.reject_open, self.budget = root, reject_open, MAX_NODES

    def spend(self, path: tuple[str, ...]) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise AgentsStrictError(_TEXT_SIZE, path=_pointer(path))

    def resolve(self, ref: str, path: tuple[str, ...]) -> Any:
        """Follow a local ``#/...`` pointer from the root; refuses to enter a nested ``$id`` resource."""
        where = _pointer(path)
        if not ref.startswith("#/"):
            raise AgentsStrictError(
                f"Unexpected $ref format {ref!r}; Does not start with #/", path=where, sdk_class="builtins.ValueError"
            )
        try:
            steps = unquote(ref[2:], errors="strict").split("/")
        except UnicodeDecodeError as e:
            raise AgentsStrictError(str(e), path=where, sdk_class="builtins.UnicodeDecodeError") from None
        here: dict[str, Any] = self.root
        for step in steps:
            key = step.replace("~1", "/").replace("~0", "~")
            if key not in here:
                raise AgentsStrictError(repr(key), path=where, sdk_class="builtins.KeyError")
            nxt = here[key]
            if not isinstance(nxt, dict):
                raise AgentsStrictError(
                    f"encountered non-dictionary entry while resolving {ref} - {here}",
                    path=where,
                    sdk_class="builtins.AssertionError",
                )
            here = nxt
            if _is_resource(here):
                raise AgentsStrictError(_TEXT_RESOURCE, path=where)
        return here

    def visit(self, node: Any, path: tuple[str, ...], depth: int, in_resource: bool) -> dict[str, Any]:
        where = _pointer(path)
        if depth > MAX_DEPTH:
            raise AgentsStrictError(_TEXT_DEPTH, path=where)
        if not isinstance(node, dict):
            raise AgentsStrictError(
                f"Expected {node} to be a dictionary; path={path}", path=where, sdk_class="builtins.TypeError"
            )
        closed_by_author = node.get("additionalProperties") is False
        self.spend(path)
        deeper = depth + 1
        in_resource = in_resource or (node is not self.root and _is_resource(node))

        if "$ref" in node:
            if in_resource:
                raise AgentsStrictError(_TEXT_RESOURCE, path=where)
            allowed = _HARMLESS | {"$id"} if node is self.root else _HARMLESS
            extra = set(node) - {"$ref"} - allowed
            if extra:
                raise AgentsStrictError(_text_ref_siblings(list(extra)), path=where)

        for defs_key in ("$defs", "definitions"):
            defs = node.get(defs_key)
            if isinstance(defs, dict):
                for name, sub in defs.items():
                    self.visit(sub, (*path, defs_key, name), deeper, in_resource)

        self._close_object(node, where)

        props = node.get("properties")
        if isinstance(props, dict):
            node["required"] = list(props)
            node["properties"] = {
                k: self.visit(v, (*path, "properties", k), deeper, in_resource) for k, v in props.items()
            }
        if isinstance(node.get("items"), dict):
            node["items"] = self.visit(node["items"], (*path, "items"), deeper, in_resource)
        if isinstance(node.get("anyOf"), list):
            node["anyOf"] = self._each(node["anyOf"], path, "anyOf", deeper, in_resource)
        if isinstance(node.get("oneOf"), list):
            kept = node.get("anyOf", [])
            kept = kept if isinstance(kept, list) else []
            node["anyOf"] = kept + self._each(node["oneOf"], path, "oneOf", deeper, in_resource)
            del node["oneOf"]

        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            return self._merge_single_all_of(node, all_of[0], closed_by_author, path, deeper, in_resource)
        if isinstance(all_of, list):
            node["allOf"] = self._each(all_of, path, "allOf", deeper, in_resource)

        if "default" in node and node["default"] is None:
            del node["default"]

        ref = node.get("$ref")
        if ref and len(node) > 1:
            return self._inline_ref(node, ref, path, deeper, in_resource)
        if self.reject_open and "$ref" in node:
            raise AgentsStrictError(_TEXT_UNVALIDATED, path=where)
        return node

    def _each(self, items: list[Any], path: tuple[str, ...], key: str, depth: int, in_resource: bool) -> list[Any]:
        return [self.visit(v, (*path, key, str(i)), depth, in_resource) for i, v in enumerate(items)]

    def _close_object(self, node: dict[str, Any], where: str) -> None:
        """Infer ``type: object`` from ``properties``; add ``additionalProperties: false`` or refuse."""
        typ = node.get("type")
        props = node.get("properties")
        if typ is None and isinstance(props, dict):
            typ = node["type"] = "object"
        elif typ is None and node.get("additionalProperties", False) is not False:
            raise AgentsStrictError(_TEXT_ADDITIONAL, path=where)
        if not (typ == "object" or (isinstance(typ, list) and "object" in typ)):
            return
        open_ = node.get("additionalProperties") is not False
        if self.reject_open and open_ and ("properties" not in node or props == {}):
            raise AgentsStrictError(_TEXT_OPEN, path=where)  # checked before the value of additionalProperties
        if "additionalProperties" not in node:
            node["additionalProperties"] = False
        elif open_:
            raise AgentsStrictError(_TEXT_ADDITIONAL, path=where)

    def _merge_single_all_of(
        self,
        node: dict[str, Any],
        entry: Any,
        closed_by_author: bool,
        path: tuple[str, ...],
        depth: int,
        in_resource: bool,
    ) -> dict[str, Any]:
        """``allOf: [one]`` is folded into its parent, which is then converted again."""
        if isinstance(entry, dict) and "$ref" in entry and not set(entry) - {"$ref"} - _HARMLESS:
            if in_resource:
                raise AgentsStrictError(_TEXT_RESOURCE, path=_pointer(path))
            self.spend(path)
            strict_entry = self._follow_bare_refs(entry, path)
        else:
            strict_entry = self.visit(entry, (*path, "allOf", "0"), depth, in_resource)
        del node["allOf"]
        if not closed_by_author:
            node.pop("additionalProperties", None)
        merged = dict(strict_entry)
        clashes = []
        if (
            node.get("additionalProperties") is False
            and node.get("properties", {}) == {}
            and isinstance(strict_entry.get("properties"), dict)
            and strict_entry["properties"] != {}
        ):
            clashes.append("properties")  # additionalProperties does not see properties declared in allOf
        for key, value in node.items():
            if key not in merged or key in _HARMLESS:
                merged[key] = value
            elif _same_json(value, merged[key]) or (key, value) in (("properties", {}), ("required", [])):
                continue
            else:
                clashes.append(key)
        if clashes:
            raise AgentsStrictError(_text_all_of(clashes), path=_pointer(path))
        node.clear()
        node.update(merged)
        return self.visit(node, path, depth, in_resource)

    def _follow_bare_refs(self, entry: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
        """Follow ``$ref``s that carry only harmless siblings; the nearest sibling wins."""
        target: dict[str, Any] = entry
        seen: set[str] = set()
        carried: dict[str, Any] = {}
        while "$ref" in target and not set(target) - {"$ref"} - _HARMLESS:
            ref = target["$ref"]
            if not isinstance(ref, str):
                raise AgentsStrictError(
                    f"Received non-string $ref - {ref}", path=_pointer(path), sdk_class="builtins.AssertionError"
                )
            if ref in seen:
                raise AgentsStrictError(_TEXT_CYCLE, path=_pointer(path))
            seen.add(ref)
            carried = {**{k: v for k, v in target.items() if k != "$ref"}, **carried}
            self.spend(path)
            target = self.resolve(ref, path)
        return {**target, **carried}

    def _inline_ref(
        self, node: dict[str, Any], ref: Any, path: tuple[str, ...], depth: int, in_resource: bool
    ) -> dict[str, Any]:
        """A ``$ref`` with siblings is replaced by its target's keywords (the node's own win, and keep
        their places; the target's new ones follow), then converted again."""
        if not isinstance(ref, str):
            raise AgentsStrictError(
                f"Received non-string $ref - {ref}", path=_pointer(path), sdk_class="builtins.AssertionError"
            )
        target = self.resolve(ref, path)
        del node["$ref"]
        for key, value in target.items():
            node.setdefault(key, value)
        return self.visit(node, path, depth, in_resource)
