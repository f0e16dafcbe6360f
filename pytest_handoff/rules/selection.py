"""One decision for a rule code: does it run, is it reported, and at which severity.

``select``/``ignore`` decide whether a code runs (an ignored code never runs, even when
selected), ``severity`` overrides its default (the longest matching prefix wins), and
``threshold`` decides whether a finding of that severity is reported, and ``per-file-ignores``
leaves codes out for the files its globs match. Load findings, schema
findings and rule hits all go through :func:`decision_for`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pytest_handoff.values.findings import Severity

if TYPE_CHECKING:
    from pytest_handoff.values.settings import Settings


def matches_code(code: str, patterns: Iterable[str]) -> bool:
    """True when ``code`` starts with one of ``patterns`` (``NR3`` selects NR301..NR399; ``ALL`` all)."""
    return any(pattern == "ALL" or code.startswith(pattern) for pattern in patterns)


def is_enabled(code: str, settings: Settings) -> bool:
    """A code runs unless ignored, and when ``select`` is given, only if selected."""
    if settings.ignore and matches_code(code, settings.ignore):
        return False
    return not settings.select or matches_code(code, settings.select)


def ignored_in_file(code: str, path: str, settings: Settings) -> bool:
    """True when ``per-file-ignores`` leaves ``code`` out for the file at ``path`` (relative to the
    project, POSIX). A glob matches at any depth unless it starts with ``/``; one starting with
    ``!`` applies to every file it does not match, as ruff reads it."""
    from pytest_handoff.read.globs import glob_regex

    for glob, codes in settings.per_file_ignores:
        if not matches_code(code, codes):
            continue
        negated = glob.startswith("!")
        if (glob_regex(glob[1:] if negated else glob).fullmatch(path) is None) == negated:
            return True
    return False


def severity_of(code: str, default: Severity, settings: Settings) -> Severity:
    """The configured severity of ``code`` (the longest matching prefix wins), else ``default``."""
    best: tuple[int, Severity] | None = None
    for prefix, severity in settings.severities.items():
        if code.startswith(prefix) and (best is None or len(prefix) > best[0]):
            best = (len(prefix), severity)
    return default if best is None else best[1]


def decision_for(code: str, default: Severity, settings: Settings) -> Severity | None:
    """The severity a finding of ``code`` is reported with, or None when it is not reported."""
    if not is_enabled(code, settings):
        return None
    severity = severity_of(code, default, settings)
    return severity if severity >= settings.threshold else None
