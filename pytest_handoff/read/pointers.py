"""JSON pointers (RFC 6901): the one place where their tokens are escaped and joined.

A module of its own, without imports, so that modules on the pre-commit hook's path can use it
without loading the position scanner.
"""

from __future__ import annotations


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
