"""Words that messages and outputs share: a count that agrees with its noun, and the known value
a misspelt one was probably meant to be (one helper each, so that every format says it alike)."""

from __future__ import annotations

from collections.abc import Iterable


def counted(count: int, noun: str, plural: str = "") -> str:
    """``1 chain``, ``2 chains``, ``0 chains``; ``plural`` for a noun that takes more than an s
    (``counted(n, "entry", "entries")``)."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def did_you_mean(name: object, known: Iterable[str], cutoff: float = 0.6) -> str:
    """``; did you mean 'x'?`` naming the value of ``known`` closest to ``name``, or "" when none is
    close enough (``cutoff``: difflib's ratio, from 0 to 1) to be worth suggesting, or ``name`` is
    no string (a handoff may hold anything where a name belongs)."""
    if not isinstance(name, str):
        return ""
    import difflib  # only on the path of an unknown value

    close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=cutoff)
    return f"; did you mean {close[0]!r}?" if close else ""
