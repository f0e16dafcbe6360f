"""A user's regular expressions, run in linear time whatever they are (RE2, never backtracking).

A contract's ``re:`` placeholders come from the project's configuration, which a handoff's author
may write too: ``re:^(a+)+$`` against ``"a" * 40 + "!"`` would never return under Python's
backtracking engine. They run on google-re2 (``pip install 'pytest-handoff[re2]'``); a pattern
RE2 cannot compile is a configuration error that names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from pytest_handoff.validation.schemas import additional_properties
from pytest_handoff.values.errors import ConfigError

#: What finds the first placeholder in a text: its matched text, or None.
Finder = Callable[[str], "str | None"]


def user_pattern(pattern: str, where: str, *, case_sensitive: bool = False) -> Any:
    """``pattern`` compiled by RE2 (case-insensitive unless asked); ConfigError naming it (and
    ``where``) if it cannot be."""
    try:
        import re2  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise ConfigError(
            f"{where}: the placeholder pattern {pattern!r} needs google-re2, which runs user patterns in "
            "linear time: pip install 'pytest-handoff[re2]'"
        ) from None
    options = re2.Options()
    options.log_errors = False  # the error is ours to report, once
    options.case_sensitive = case_sensitive
    try:
        return re2.compile(pattern, options)
    except re2.error as error:
        detail = (
            error.args[0].decode("utf-8", "replace")
            if error.args and isinstance(error.args[0], bytes)
            else error
        )
        raise ConfigError(
            f"{where}: placeholder {'re:' + pattern!r} is not a regular expression RE2 runs: {detail}"
        ) from None


def schema_pattern(pattern: str) -> Any:
    """A ``pattern`` of a user's JSON Schema, compiled by RE2 as JSON Schema means it (case-sensitive)."""
    return _schema_pattern(pattern)


@cache
def _schema_pattern(pattern: str) -> Any:
    return user_pattern(pattern, "a contract schema's 'pattern'", case_sensitive=True)


def check_schema_patterns(schema: Any, where: str) -> None:
    """Every ``pattern`` of a user's schema is one RE2 runs; ConfigError naming ``where`` otherwise."""
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            pattern = node.get("pattern")
            if isinstance(pattern, str):
                user_pattern(pattern, where, case_sensitive=True)
            keyed = node.get("patternProperties")
            for key in keyed if isinstance(keyed, dict) else ():
                user_pattern(key, where, case_sensitive=True)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)


@cache
def placeholder_finder(words: tuple[str, ...], patterns: tuple[str, ...], trusted: tuple[str, ...]) -> Finder:
    """A finder for literal ``words`` (whole words, any case), user ``patterns`` (RE2) and our own
    ``trusted`` patterns (Python's engine, written to run in linear time): the earliest match wins."""
    literal = [rf"(?<!\w){re.escape(word)}(?!\w)" for word in words] + list(trusted)
    ours = re.compile("|".join(f"(?:{part})" for part in literal), re.IGNORECASE) if literal else None
    theirs = [user_pattern(pattern, "[tool.handoff.contracts]") for pattern in patterns]

    def find(text: str) -> str | None:
        best: tuple[int, str] | None = None
        found = ours.search(text) if ours is not None else None
        if found is not None:
            best = (found.start(), found.group())
        for compiled in theirs:
            match = compiled.search(text)
            if match is not None and (best is None or match.start() < best[0]):
                best = (match.start(), match.group())
        return None if best is None else best[1]

    return find


# --- JSON Schema's keywords that take patterns, run by RE2 (jsonschema's own use Python's engine) ---


def linear_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    """JSON Schema's ``pattern``, run by RE2 (a user's schema may hold any regular expression)."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "string") and schema_pattern(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def linear_pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """JSON Schema's ``patternProperties``, its keys run by RE2."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        compiled = schema_pattern(pattern)
        for key, value in instance.items():
            if compiled.search(key) is not None:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def linear_additional_properties(validator: Any, allowed: Any, instance: Any, schema: Any) -> Iterator[Any]:
    """JSON Schema's ``additionalProperties``, ``patternProperties`` keys run by RE2."""
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = additional_properties(instance, schema, schema_pattern)
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif allowed is False and extras:
        yield ValidationError(f"unexpected properties: {', '.join(map(repr, sorted(extras)))}")
