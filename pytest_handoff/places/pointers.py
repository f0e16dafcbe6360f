"""JSON pointers (RFC 6901): the one place where their tokens are escaped, joined and resolved.

A module of its own, importing nothing of the package, so that modules on the pre-commit hook's path can use it
without loading the position scanner.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def escape_pointer_token(token: str) -> str:
    """Escape one reference token for a JSON pointer (RFC 6901)."""
    # "~" must go first, otherwise the "~" of a freshly written "~1" would be escaped again.
    return token.replace("~", "~0").replace("/", "~1")


def unescape_pointer_token(token: str) -> str:
    """The raw key of an escaped token."""
    # The reverse order of escape_pointer_token: "~01" means the key "~1", not "/".
    return token.replace("~1", "/").replace("~0", "~")


def pointer_join(parent: str, token: str | int) -> str:
    """Append one token (a raw object key or an array index) to a JSON pointer."""
    if isinstance(token, int):
        return f"{parent}/{token}"
    return f"{parent}/{escape_pointer_token(token)}"


def resolve(data: Any, field: str) -> Iterator[tuple[str, Any]]:
    """Every (pointer, value) ``field`` reaches in ``data``, in document order; ``*`` fans out."""
    tokens = _tokens(field)
    if "*" not in tokens:  # one place at most: no stack
        found = _at(data, tokens)
        if found is not _MISSING:
            yield field, found
        return
    # A stack of (pointer, value, tokens used): children pushed in reverse come out in order.
    pending: list[tuple[str, Any, int]] = [("", data, 0)]
    while pending:
        pointer, value, used = pending.pop()
        if used == len(tokens):
            yield pointer, value
            continue
        token = tokens[used]
        if token == "*":
            if isinstance(value, dict):
                children = [(f"{pointer}/{escape_pointer_token(key)}", item) for key, item in value.items()]
            elif isinstance(value, list):
                children = [(f"{pointer}/{index}", item) for index, item in enumerate(value)]
            else:
                children = []
            pending.extend((child, item, used + 1) for child, item in reversed(children))
            continue
        found = _at(value, (token,))
        if found is not _MISSING:
            pending.append((f"{pointer}/{token}", found, used + 1))


_MISSING = object()
#: Fields' tokens, split once (a run resolves the same few fields in every document).
_SPLIT: dict[str, tuple[str, ...]] = {}


def _tokens(field: str) -> tuple[str, ...]:
    found = _SPLIT.get(field)
    if found is None:
        if len(_SPLIT) > 4096:
            _SPLIT.clear()
        found = _SPLIT[field] = tuple(field[1:].split("/")) if field else ()
    return found


def _at(value: Any, tokens: tuple[str, ...]) -> Any:
    """The value at ``tokens`` (escaped, no ``*``) below ``value``, or ``_MISSING``."""
    for token in tokens:
        if isinstance(value, dict):
            key = unescape_pointer_token(token) if "~" in token else token
            if key not in value:
                return _MISSING
            value = value[key]
        elif isinstance(value, list) and token.isascii() and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return _MISSING
    return value
