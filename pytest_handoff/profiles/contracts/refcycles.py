"""``$ref`` cycles that check no part of the value: a schema whose validation would never end.

A ``$ref`` may lead back to a schema it is inside of when a keyword that looks into the value
lies between (``properties``, ``items``...): each turn then checks a part of the value before,
and the recursion ends where the document does (a tree of nodes). A cycle made only of ``$ref`` s
and keywords that apply to the value itself (``allOf``, ``anyOf``, ``oneOf``, ``not``, ``if``,
``then``, ``else``, ``dependentSchemas``) never ends: JSON Schema leaves such a schema's meaning
undefined, and jsonschema recurses until Python's stack runs out. :func:`ref_cycle` finds one,
without recursion, so that it is a usage error naming the cycle rather than a crash on the first
document the schema checks. (A ``$dynamicRef`` is not followed: where one makes a cycle, the
validation that runs out of stack is a finding, as any schema that cannot be used.)
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_handoff.profiles.contracts.bundle import DRAFT_07, DRAFT_2020_12, draft_of
from pytest_handoff.values.errors import ConfigError

# Keywords that hold schemas: whether they apply to the value itself (True) or to a part of it (an
# item, a property, a key), and what holds them: one schema, a list or an object of them.
_APPLICATORS: tuple[tuple[str, bool, str], ...] = (
    ("not", True, "one"), ("if", True, "one"), ("then", True, "one"), ("else", True, "one"),
    ("allOf", True, "list"), ("anyOf", True, "list"), ("oneOf", True, "list"),
    ("dependencies", True, "map"), ("dependentSchemas", True, "map"),
    ("additionalProperties", False, "one"), ("additionalItems", False, "one"), ("items", False, "one"),
    ("contains", False, "one"), ("propertyNames", False, "one"), ("unevaluatedItems", False, "one"),
    ("unevaluatedProperties", False, "one"), ("items", False, "list"), ("prefixItems", False, "list"),
    ("properties", False, "map"), ("patternProperties", False, "map"),
)  # fmt: skip
_ONLY_IN = {"dependencies": DRAFT_07, "dependentSchemas": DRAFT_2020_12}
# Keywords whose values are data, not schemas: an "$id" inside one names nothing.
_DATA = ("const", "enum", "examples", "default")

#: A schema's place: the URI of its document and the JSON pointer's parts inside it.
Key = tuple[str, tuple[str, ...]]
_MISSING = object()


def ref_cycle(schema: Any, path: str, schema_map: Mapping[str, str]) -> str | None:
    """The first cycle of ``schema`` (read from ``path``) that checks no part of the value, as
    ``#/$defs/a -> #/$defs/b -> #/$defs/a`` (places in other files named by their file); None when
    there is none. Only schemas a document can reach count; an unresolvable ``$ref`` leads nowhere
    (checked elsewhere)."""
    from pytest_handoff.profiles.contracts.files import file_uri

    graph = _Graph(schema, file_uri(Path(path)), schema_map)
    cycle = graph.first_cycle()
    if cycle is None:
        return None
    in_other_files = any(document != graph.root for document, _ in cycle)
    return " -> ".join(graph.label(key, in_other_files) for key in cycle)


def refuse_ref_cycle(schema: Any, path: str, schema_map: Mapping[str, str]) -> None:
    """ConfigError naming ``path`` and the cycle when :func:`ref_cycle` finds one."""
    pending = [schema]
    while pending:  # a schema without $ref (most) has no cycle, and nothing more is read
        node = pending.pop()
        if isinstance(node, dict):
            if "$ref" in node:
                break
            pending.extend(value for value in node.values() if isinstance(value, (dict, list)))
        elif isinstance(node, list):
            pending.extend(value for value in node if isinstance(value, (dict, list)))
    else:
        return
    cycle = ref_cycle(schema, path, schema_map)
    if cycle is not None:
        raise ConfigError(cycle_message(path, cycle))


def cycle_message(path: str, cycle: str) -> str:
    return (
        f"{path}: $ref cycle {cycle} checks the same value at every step, so validation would never "
        "end (recursion must go through a keyword that checks a part of it, such as properties or items)"
    )


class _Graph:
    """A schema's places and what applies after each: the same value (a ``$ref``, ``anyOf``...)
    or a part of it (``properties``...); other files are read when a ``$ref`` leads to them."""

    def __init__(self, schema: Any, root: str, schema_map: Mapping[str, str]) -> None:
        self.root = root
        self.schema_map = schema_map
        self.documents: dict[str, Any] = {}
        self.drafts: dict[str, str] = {}
        self.resources: dict[str, Key] = {}  # absolute URI (an $id, a file) -> its schema's place
        self.anchors: dict[str, Key] = {}  # "uri#name" -> the place of that anchor
        self._add(root, schema, draft_of(schema) or DRAFT_07)

    # --- documents -----------------------------------------------------------------------------

    def _add(self, uri: str, data: Any, draft: str) -> Key:
        """Register a document: its own URI, and the ``$id`` s and anchors inside it."""
        self.documents[uri], self.drafts[uri] = data, draft
        self.resources.setdefault(uri, (uri, ()))
        pending: list[tuple[Any, tuple[str, ...], str]] = [(data, (), uri)]
        while pending:
            node, parts, base = pending.pop()
            if isinstance(node, dict):
                if isinstance(node.get("$id"), str):
                    target, fragment = _join(base, node["$id"])
                    if not target:
                        pass  # no URI: jsonschema says what it makes of it
                    elif fragment and not fragment.startswith("/"):
                        self.anchors.setdefault(f"{target}#{fragment}", (uri, parts))  # draft-07 anchor
                    else:
                        base = target
                        self.resources.setdefault(target, (uri, parts))
                for keyword in ("$anchor", "$dynamicAnchor"):
                    if isinstance(node.get(keyword), str):
                        self.anchors.setdefault(f"{base}#{node[keyword]}", (uri, parts))
                pending.extend(
                    (value, (*parts, str(key)), base)
                    for key, value in node.items()
                    if isinstance(value, (dict, list)) and key not in _DATA
                )
            elif isinstance(node, list):
                pending.extend((value, (*parts, str(index)), base) for index, value in enumerate(node))
        return uri, ()

    def _document(self, uri: str) -> Key | None:
        """The place of the schema at ``uri``: a known ``$id`` or document, or a local file read now."""
        if uri in self.resources:
            return self.resources[uri]
        if not uri:
            return None
        from pytest_handoff.profiles.contracts.files import local_path, read_data_file

        local = local_path(uri, self.schema_map)
        if local is None or not local.is_file():
            return None
        try:
            data = read_data_file(local)
        except ConfigError:
            return None
        draft = draft_of(data) if isinstance(data, dict) and "$schema" in data else self.drafts[self.root]
        return self._add(uri, data, draft or DRAFT_07)

    def value(self, key: Key) -> Any:
        node = self.documents.get(key[0], _MISSING)
        for part in key[1]:
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return _MISSING
        return node

    def _base(self, key: Key) -> str:
        """The base URI at a place: its document's, moved by every ``$id`` on the way down."""
        node, base = self.documents[key[0]], key[0]
        for part in (None, *key[1]):
            if part is not None:
                node = node[int(part)] if isinstance(node, list) else node[part]
            if isinstance(node, dict) and isinstance(node.get("$id"), str):
                target, fragment = _join(base, node["$id"])
                if target and (not fragment or fragment.startswith("/")):
                    base = target
        return base

    def _target(self, base: str, ref: str) -> Key | None:
        """The place a ``$ref`` leads to; None when it leads nowhere (reported elsewhere)."""
        from urllib.parse import unquote

        uri, fragment = _join(base, ref)
        root = self._document(uri)
        if root is None:
            return None
        fragment = unquote(fragment)
        if not fragment:
            return root
        if not fragment.startswith("/"):
            return self.anchors.get(f"{uri}#{fragment}")
        parts = tuple(part.replace("~1", "/").replace("~0", "~") for part in fragment[1:].split("/"))
        key = (root[0], root[1] + parts)
        return None if self.value(key) is _MISSING else key

    # --- edges and cycles ----------------------------------------------------------------------

    def edges(self, key: Key) -> Iterator[tuple[Key, bool]]:
        """The places that apply after ``key``, each with True when it checks the same value."""
        node = self.value(key)
        if not isinstance(node, dict):
            return  # a boolean schema (or not a schema: the meta-schema check says so)
        document, parts = key
        draft = self.drafts[document]
        if isinstance(node.get("$ref"), str):
            target = self._target(self._base(key), node["$ref"])
            if target is not None:
                yield target, True
            if draft == DRAFT_07:
                return  # draft-07 ignores the keywords beside a $ref
        for keyword, same, holds in _APPLICATORS:
            value = node.get(keyword)
            if _ONLY_IN.get(keyword, draft) != draft:
                continue  # not a keyword of this draft
            if holds == "one" and isinstance(value, dict):
                yield (document, (*parts, keyword)), same
            elif holds == "list" and isinstance(value, list):
                for index, sub in enumerate(value):
                    if isinstance(sub, dict):
                        yield (document, (*parts, keyword, str(index))), same
            elif holds == "map" and isinstance(value, dict):
                for name, sub in value.items():
                    if isinstance(sub, dict):  # draft-07's dependencies: also lists of names
                        yield (document, (*parts, keyword, str(name))), same

    def first_cycle(self) -> list[Key] | None:
        """A cycle of same-value steps among the places reachable from the root, first place
        repeated at its end; None when there is none. Iterative: a deep schema costs no stack."""
        start: Key = (self.root, ())
        same: dict[Key, list[Key]] = {}
        order: list[Key] = []
        pending = [start]
        while pending:  # every reachable place, and its same-value steps
            key = pending.pop()
            if key in same:
                continue
            order.append(key)
            same[key] = []
            for target, on_same_value in self.edges(key):
                if on_same_value:
                    same[key].append(target)
                if target not in same:
                    pending.append(target)
        done: set[Key] = set()
        for first in order:
            if first in done:
                continue
            path, on_path = [first], {first}
            stack = [iter(same[first])]
            while stack:  # depth first along same-value steps: a step back onto the path closes a cycle
                step = next(stack[-1], None)
                if step is None:
                    done.add(path[-1])
                    on_path.discard(path.pop())
                    stack.pop()
                elif step in on_path:
                    return [*path[path.index(step) :], step]
                elif step not in done:
                    path.append(step)
                    on_path.add(step)
                    stack.append(iter(same[step]))
        return None

    def label(self, key: Key, with_file: bool) -> str:
        """``#/$defs/a``, or ``common.schema.json#/$defs/a`` (relative to the root schema's folder)."""
        document, parts = key
        pointer = "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in parts)
        if not with_file:
            return f"#{pointer}"
        return f"{self._name(document)}#{pointer}"

    def _name(self, uri: str) -> str:
        from urllib.parse import unquote, urlparse

        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return uri
        folder = os.path.dirname(unquote(urlparse(self.root).path))
        try:
            return os.path.relpath(unquote(parsed.path), folder).replace(os.sep, "/")
        except ValueError:  # another drive
            return unquote(parsed.path)


def _join(base: str, reference: str) -> tuple[str, str]:
    """``reference`` resolved against ``base``: the URI without its fragment, and the fragment
    (a reference that is no URI resolves to nothing: ``("", "")``, which names no schema)."""
    from urllib.parse import urldefrag, urljoin

    try:
        uri, fragment = urldefrag(urljoin(base, reference))
    except ValueError:
        return "", ""
    return uri, fragment
