"""YAML documents with places: data as ``yaml.safe_load`` would give it, and where every value stands.

The YAML parser's events are composed here, without recursion, into plain data (JSON's types:
timestamps and binary stay the text they are) and a tree of nodes that remembers each value's
and key's place. Composing it ourselves is what makes untrusted files safe to read:

- only the safe tags are accepted (no ``!!python/...``): anything else is a finding at the tag;
- an alias is not copied: its node is shared, and the nodes aliases bring in are counted as
  they appear, so a "billion laughs" file is refused after :data:`MAX_ALIAS_NODES` of them,
  without building anything of the expansion;
- a key given twice in one mapping is a finding (PyYAML keeps the last one silently);
- nesting deeper than :data:`~pytest_handoff.documents.MAX_DEPTH` is a finding;
- a syntax error is a finding at the parser's mark, never an exception.

``yaml`` is imported only when a YAML file is read (the C loader when libyaml is present).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from pytest_handoff.places.lines import byte_position
from pytest_handoff.places.pointers import unescape_pointer_token
from pytest_handoff.values.documents import MAX_DEPTH, Anchor, Document, Loaded
from pytest_handoff.values.findings import Finding, Region, Severity

#: Nodes that aliases may bring into one file (counted with everything below them) before it is
#: refused: a real file repeats a few anchored blocks, a "billion laughs" file billions of nodes.
MAX_ALIAS_NODES = 10_000

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_SCALAR_TAGS = frozenset(_TAG + name for name in ("null", "bool", "int", "float", "str"))
_TEXT_TAGS = frozenset({_TAG + "timestamp", _TAG + "binary"})
_MAPPING_TAGS = frozenset({_TAG + "map", _TAG + "set"})
_SEQUENCE_TAGS = frozenset({_TAG + "seq", _TAG + "omap", _TAG + "pairs"})


class Node:
    """Where one value stands in the file (0-based marks), its data, and its children."""

    __slots__ = ("data", "end", "entries", "items", "size", "start")

    def __init__(self, start: tuple[int, int], end: tuple[int, int], data: Any) -> None:
        self.start = start
        self.end = end
        self.data = data
        #: A mapping's members: key -> (key start, key end, value node); the last of a repeated key.
        self.entries: dict[str, tuple[tuple[int, int], tuple[int, int], Node]] | None = None
        self.items: list[Node] | None = None
        #: Values at or below this node, counted through aliases (what an alias to it brings in).
        self.size = 1


def _region(start: tuple[int, int], end: tuple[int, int], whole: bool = True) -> Region:
    line, column = start[0] + 1, start[1] + 1
    if not whole:
        return Region(line, column, line, column)
    if end[0] == start[0]:
        return Region(line, column, line, max(column, end[1]))
    if end[1] == 0:  # the mark after a block scalar sits at the start of the next line
        return Region(line, column, end[0], column)
    return Region(line, column, end[0] + 1, end[1])


class YamlDocument(Document):
    """A document of a YAML file: places come from its node tree, not from JSON text."""

    def __init__(
        self, path: Path, display_path: str, source: str, data: Any, root: Node, *, label: str = ""
    ) -> None:
        # ``text`` is the file's text, for the secret scan's quick look; positions come from ``root``.
        super().__init__(path, display_path, source, data, source_text=source, label=label)
        self.root = root

    def _walk(self, pointer: str) -> tuple[str, Node, tuple[tuple[int, int], tuple[int, int]] | None]:
        """The node at ``pointer`` or its nearest ancestor: (pointer found, node, its key's marks)."""
        node, found, key = self.root, "", None
        if not pointer.startswith("/"):
            return found, node, key
        for raw in pointer[1:].split("/"):
            if node.entries is not None:
                entry = node.entries.get(unescape_pointer_token(raw))
                if entry is None:
                    break
                key, node = (entry[0], entry[1]), entry[2]
            elif node.items is not None and raw.isdigit() and int(raw) < len(node.items):
                key, node = None, node.items[int(raw)]
            else:
                break
            found = f"{found}/{raw}"
        return found, node, key

    def locate(self, pointer: str, anchor: Anchor = "value") -> tuple[Region, str]:
        found, node, key = self._walk(pointer)
        if anchor == "key" and key is not None and found == pointer:
            return _region(*key), found
        return _region(node.start, node.end, whole=node.entries is None and node.items is None), found

    def missing_pointer_note(self, pointer: str, found: str) -> str:
        shown = f"shown at {found}" if found else "shown at the document root"
        if pointer.startswith("/"):
            return f"pointer {pointer} does not exist: {shown}"
        guess = "/" + pointer
        hint = f" did you mean {guess!r}?" if self._walk(guess)[0] == guess else ""
        return f"{pointer!r} is not a JSON pointer, which starts with '/':{hint} {shown}"


class _Problem(Exception):
    """A reason to stop reading the file, at a 0-based mark."""

    def __init__(self, code: str, message: str, mark: tuple[int, int]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.mark = mark


def _mark(mark: Any) -> tuple[int, int]:
    return (mark.line, mark.column) if mark is not None else (0, 0)


class _Frame:
    __slots__ = ("anchor", "explicit", "key", "merges", "node")

    def __init__(self, node: Node, anchor: str | None) -> None:
        self.node = node
        self.anchor = anchor
        self.key: tuple[str, tuple[int, int], tuple[int, int]] | None = None  # a mapping's pending key
        self.merges: list[Node] = []
        self.explicit: dict[str, Any] = {}


class _Composer:
    """Builds documents from a loader's events (see the module's docstring)."""

    def __init__(self, loader: Any, yaml: Any) -> None:
        self.loader = loader
        self.yaml = yaml
        self.anchors: dict[str, Node] = {}
        self.open_anchors: set[str] = set()
        self.aliased = 0
        #: Documents composed so far (those before a syntax error are kept).
        self.roots: list[Node] = []
        self.duplicates: list[
            tuple[str, tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]
        ] = []

    def documents(self) -> list[Node]:
        """Every document of the stream, as its root node; raises _Problem or a YAMLError."""
        events = self.yaml.events
        loader = self.loader
        roots = self.roots
        stack: list[_Frame] = []
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, events.DocumentStartEvent):
                self.anchors = {}
                stack = []
            elif isinstance(event, (events.MappingStartEvent, events.SequenceStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    raise _Problem(
                        "UC001", f"YAML nests deeper than {MAX_DEPTH} levels", _mark(event.start_mark)
                    )
                is_mapping = isinstance(event, events.MappingStartEvent)
                self._check_tag(event, _MAPPING_TAGS if is_mapping else _SEQUENCE_TAGS)
                node = Node(_mark(event.start_mark), _mark(event.end_mark), {} if is_mapping else [])
                if is_mapping:
                    node.entries = {}
                else:
                    node.items = []
                if event.anchor:
                    self.anchors[event.anchor] = node
                    self.open_anchors.add(event.anchor)
                stack.append(_Frame(node, event.anchor))
            elif isinstance(event, (events.MappingEndEvent, events.SequenceEndEvent)):
                frame = stack.pop()
                node = frame.node
                node.end = _mark(event.end_mark)
                if frame.merges:
                    self._merge(node, frame)
                if frame.anchor:
                    self.open_anchors.discard(frame.anchor)
                self._add(stack, roots, node, event)
            elif isinstance(event, events.ScalarEvent):
                self._add(stack, roots, self._scalar(event), event)
            elif isinstance(event, events.AliasEvent):
                self._add(stack, roots, self._alias(event), event)
        return roots

    def _check_tag(self, event: Any, allowed: frozenset[str]) -> None:
        tag = event.tag
        if tag is not None and tag != "!" and tag not in allowed:
            raise _Problem(
                "UC001",
                f"unsupported YAML tag {tag!r} (only the standard safe tags are read)",
                _mark(event.start_mark),
            )

    def _scalar(self, event: Any) -> Node:
        yaml = self.yaml
        tag = event.tag
        if tag is None or tag == "!":
            tag = (
                _TAG + "str"
                if tag == "!"
                else self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
            )
        start, end = _mark(event.start_mark), _mark(event.end_mark)
        if tag == _STR:
            data: Any = event.value  # the common case, without a node for the constructor
        elif tag in _TEXT_TAGS:
            data = event.value  # JSON has no timestamps or bytes: the text as written
        elif tag in _SCALAR_TAGS:
            scalar = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
            try:
                data = self.loader.yaml_constructors[tag](self.loader, scalar)
            except (ValueError, KeyError, yaml.YAMLError):  # `!!int x`, an integer of 5,000 digits
                kind = tag.rsplit(":", 1)[-1]
                raise _Problem("UC001", f"{_shown(event.value)} cannot be read as {kind}", start) from None
        elif tag == _TAG + "merge":
            data = _MERGE
        else:
            raise _Problem(
                "UC001", f"unsupported YAML tag {tag!r} (only the standard safe tags are read)", start
            )
        node = Node(start, end, data)
        if event.anchor:
            self.anchors[event.anchor] = node
        return node

    def _alias(self, event: Any) -> Node:
        name = event.anchor
        where = _mark(event.start_mark)
        if name in self.open_anchors:
            raise _Problem(
                "UC001", f"alias *{name} refers to a node that contains it (a recursive structure)", where
            )
        node = self.anchors.get(name)
        if node is None:
            raise _Problem("UC001", f"alias *{name} refers to no anchor defined before it", where)
        self.aliased += node.size
        if self.aliased > MAX_ALIAS_NODES:
            raise _Problem(
                "UC002",
                f"aliases bring in more than {MAX_ALIAS_NODES:,} values (*{name} alone {node.size:,}): "
                "refused unexpanded, as an alias bomb",
                where,
            )
        return node

    def _add(self, stack: list[_Frame], roots: list[Node], node: Node, event: Any) -> None:
        """Put a finished node into its parent (as a key, a value or an item), or make it a document."""
        if not stack:
            roots.append(node)
            return
        frame = stack[-1]
        parent = frame.node
        parent.size += node.size
        if parent.items is not None:
            parent.items.append(node)
            parent.data.append(node.data)
            return
        if frame.key is None:
            if node.entries is not None or node.items is not None:
                raise _Problem(
                    "UC001", "a mapping key must be a scalar, not a mapping or a sequence", node.start
                )
            text = node.data if node.data is _MERGE else _key_text(node, event)
            frame.key = (text, node.start, node.end)
            parent.size -= node.size  # a key is not a value
            return
        key, key_start, key_end = frame.key
        frame.key = None
        if key is _MERGE:
            frame.merges.extend(node.items if node.items is not None else [node])
            return
        assert parent.entries is not None
        first = parent.entries.get(key)
        if first is not None and key in frame.explicit:
            self.duplicates.append((key, first[0], first[1], key_start, key_end))
        frame.explicit[key] = True
        parent.entries[key] = (key_start, key_end, node)
        parent.data[key] = node.data

    def _merge(self, node: Node, frame: _Frame) -> None:
        """``<<: *base``: the merged mappings' members first, the node's own ones over them."""
        assert node.entries is not None
        merged: dict[str, tuple[tuple[int, int], tuple[int, int], Node]] = {}
        for source in reversed(frame.merges):  # earlier mappings win over later ones
            if source.entries is None:
                raise _Problem(
                    "UC001", "a merge key '<<' takes a mapping or a list of mappings", source.start
                )
            merged.update(source.entries)
        own_entries, own_data = dict(node.entries), dict(node.data)
        node.entries.clear()
        node.data.clear()
        for key, entry in {**merged, **own_entries}.items():
            node.entries[key] = entry
            node.data[key] = own_data[key] if key in own_data else entry[2].data


_MERGE: Any = object()


def _shown(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:37] + "...")


def _key_text(node: Node, event: Any) -> str:
    """A key as text: JSON keys are strings, so ``1:`` and ``true:`` are the keys "1" and "true"."""
    data = node.data
    if isinstance(data, str):
        return data
    value = getattr(event, "value", None)  # an alias to a scalar has no text of its own
    return value if isinstance(value, str) else str(data)


def _loader(text: str) -> tuple[Any, Any]:
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    return loader_class(text), yaml


def _decode(raw: bytes) -> tuple[str | None, str, tuple[int, int]]:
    """The text of YAML bytes (UTF-8, a BOM allowed), or why not and where (1-based)."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, "file is UTF-16 or UTF-32 encoded; contract documents must be UTF-8", (1, 1)
    try:
        return raw.decode("utf-8"), "", (0, 0)
    except UnicodeDecodeError as error:
        line, column = byte_position(raw, error.start)
        return (
            None,
            f"invalid UTF-8 byte 0x{raw[error.start]:02x} at byte offset {error.start}",
            (line, column),
        )


class _Read(NamedTuple):
    roots: list[Node]
    findings: list[tuple[str, str, Region, tuple[int, int] | None]]  # code, message, region, related


def _compose(text: str) -> _Read:
    loader, yaml = _loader(text)
    composer = _Composer(loader, yaml)
    findings: list[tuple[str, str, Region, tuple[int, int] | None]] = []
    try:
        composer.documents()
    except _Problem as problem:
        findings.append((problem.code, problem.message, _region(problem.mark, problem.mark, False), None))
    except yaml.YAMLError as error:
        findings.append(("UC001", *_syntax(error, text)))
    finally:
        loader.dispose()
    for key, first_start, _, start, end in composer.duplicates:
        message = (
            f"duplicate key {key!r}: first defined at line {first_start[0] + 1}, column {first_start[1] + 1}; "
            "YAML readers keep only the last value"
        )
        findings.append(("HF003", message, _region(start, end), (first_start[0] + 1, first_start[1] + 1)))
    return _Read(composer.roots, findings)


def _syntax(error: Any, text: str) -> tuple[str, Region, None]:
    """A YAML error's message and place."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    problem = getattr(error, "problem", None)
    context = getattr(error, "context", None)
    if mark is None and hasattr(error, "position"):  # a ReaderError: a character YAML does not allow
        from pytest_handoff.values.documents import line_index

        line, column = line_index(text).position(min(error.position, len(text)))
        return (
            f"invalid YAML: character {error.character!r} is not allowed",
            Region(line, column, line, column),
            None,
        )
    where = _mark(mark)
    # The parser may mark the end of the text a line past its last: keep the place in the file
    # (a text ending in a line break has an empty last line, as editors show it).
    lines = re.split(r"\r\n|\r|\n", text)
    if where[0] >= len(lines):
        where = (len(lines) - 1, len(lines[-1]))
    detail = f"{problem}" + (f" ({context})" if context else "") if problem else str(error).splitlines()[0]
    return f"invalid YAML: {detail}", _region(where, where, False), None


def read_yaml(raw: bytes, path: Path, display_path: str) -> Loaded:
    """A YAML file's documents (``---`` separates them; labels ``document 2``...) and its findings."""
    text, problem, (line, column) = _decode(raw)

    def finding(code: str, message: str, region: Region, related: tuple[int, int] | None = None) -> Finding:
        return Finding(
            path=display_path, line=region.line, column=region.column, end_line=region.end_line,
            end_column=region.end_column, code=code, severity=Severity.ERROR, message=message,
            related=((display_path, *related, "first definition"),) if related else (),
        )  # fmt: skip

    if text is None:
        return Loaded((), (finding("HF001", problem, Region(line, column, line, column)),))
    read = _compose(text)
    findings = [finding(*found) for found in read.findings]
    if not read.roots and not findings:
        findings.append(finding("UC001", "file holds no YAML document", Region(1, 1, 1, 1)))
    many = len(read.roots) > 1
    documents = tuple(
        YamlDocument(path, display_path, text, root.data, root, label=f"document {index}" if many else "")
        for index, root in enumerate(read.roots, 1)
    )
    return Loaded(documents, tuple(findings))


def read_yaml_data(raw: bytes) -> tuple[Any, str]:
    """The first document of YAML bytes, and ``line:column: problem`` when they cannot be used ("" if fine)."""
    text, problem, (line, column) = _decode(raw)
    if text is None:
        return None, f"{line}:{column}: {problem}"
    read = _compose(text)
    if read.findings:
        _, message, region, _ = read.findings[0]
        return None, f"{region.line}:{region.column}: {message}"
    return (read.roots[0].data if read.roots else None), ""


Reader = Callable[[bytes, Path, str], Loaded]
