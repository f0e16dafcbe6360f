"""pytest-handoff as a library: check a handoff, or content about to become one, in-process.

An orchestrator that validates before it writes calls :func:`check` with the content it is
about to write; the CLI (``--stdin-filename``), the Claude Code hook and the MCP server are
clients of the same functions. Nothing here writes to disk. For example::

    from pytest_handoff import check

    errors = [f for f in check(path, content=text) if f.severity >= Severity.ERROR]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.pipeline.registry import Registry, default_registry
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.settings import Settings

if TYPE_CHECKING:
    from pytest_handoff.pipeline.cache import ResultCache
    from pytest_handoff.values.groups import GroupResult
    from pytest_handoff.values.rules import Rule

__all__ = [
    "Finding",
    "Severity",
    "check",
    "check_claims",
    "check_file",
    "check_folder",
    "explain",
    "finding_data",
    "page_of",
    "profiles",
    "project_settings",
    "rules",
    "use_instead",
]

StrPath = str | os.PathLike[str]


def check(
    path: StrPath,
    content: str | bytes | None = None,
    *,
    root: StrPath | None = None,
    settings: Settings | None = None,
) -> list[Finding]:
    """The findings of the handoff at ``path``, read from disk or given as ``content``.

    The file is checked in its chain as it stands on disk (its siblings are read, never
    written) and gets what ``handoff-lint PATH`` reports: findings placed in it, findings that
    point at it (a property of the dev handoff it leaves unclassified), and findings about the
    chain as a whole. With ``content``, that content is checked as if it stood at ``path``
    (which need not exist yet). ``root`` is the project folder (default: found from the working
    directory as the CLI finds it), whose ``pyproject.toml`` gives the settings unless
    ``settings`` are passed. Findings come sorted by place.
    """
    return list(check_file(path, content, root=_root(root), settings=settings).findings)


def check_file(
    path: StrPath,
    content: str | bytes | None = None,
    *,
    root: Path,
    settings: Settings | None = None,
    whole_chain: bool = False,
    cache: ResultCache | None = None,
) -> GroupResult:
    """:func:`check`, as the chain result the reporters take (findings, notes, source lines)."""
    from pytest_handoff.pipeline.run import Run

    root = _root(root)
    run = Run.in_project(root, settings=settings)
    target = _absolute(Path(path), root)
    raw = content.encode("utf-8") if isinstance(content, str) else content
    return run.check_file(target, _display(target, root), raw, whole_chain=whole_chain, cache=cache)


def check_claims(
    text: str, *, root: StrPath | None = None, settings: Settings | None = None, shown: str = "report"
) -> list[Finding]:
    """The findings on an agent's report (its last message, a summary it returned) read as a
    Markdown handoff of its own: its claims of work done (files, ``path:line``, commits; "all tests
    pass" with a JUnit report) judged against the project's tree and git, placed at the lines of
    ``text`` and named ``shown``. Nothing is written; sorted by place. ``ValueError`` when they
    cannot be judged (no git repository, evidence turned off)."""
    from pytest_handoff.pipeline.run import Run

    run = Run.in_project(_root(root), settings=settings)
    unjudged = run.claims_unjudged()
    if unjudged:  # an empty list would say the claims hold
        raise ValueError(f"claims are judged against git, but {unjudged}")
    result = run.check_message(text, shown)
    return [] if result is None else sorted(result.findings)


def check_folder(
    folder_or_id: StrPath, *, root: StrPath | None = None, settings: Settings | None = None
) -> list[Finding]:
    """Every finding of the chains in a folder, or of the chain with this id below ``root``."""
    from pytest_handoff.pipeline.run import Run

    base = _root(root)
    run = Run.in_project(base, settings=settings)
    folder = _absolute(Path(folder_or_id), base)
    if folder.is_dir():
        results = run.check_paths([folder], jobs=1)[1]
        if not results:  # as the CLI warns: nothing checked is no verdict
            globs = ", ".join(run.registry.all_globs(run.settings))
            raise LookupError(
                f"no handoff files in {folder_or_id} (handoff files match {globs} below {base})"
            )
    else:
        wanted = str(folder_or_id)
        refs = [ref for ref in run.discover([]).groups if ref.group_id == wanted]
        if not refs:
            raise LookupError(f"no chain folder or chain id {wanted!r} under {base}")
        results = run.check(refs, jobs=1)
    return sorted(f for result in results for f in result.findings)


def rules(profile: str | None = None, *, registry: Registry | None = None) -> list[Rule]:
    """Every rule (of ``profile`` and the profile-independent ones, when given), by code."""
    every = _registry(registry).all_rules().values()
    return [rule for rule in every if profile is None or rule.profile in (None, profile)]


def explain(code: str, *, registry: Registry | None = None) -> Rule:
    """The rule with ``code`` (``KeyError`` naming it when there is none)."""
    rule = _registry(registry).rule(code.strip())
    if rule is None:
        raise KeyError(f"unknown rule {code!r}")
    return rule


def project_settings(root: StrPath | None = None) -> Settings:
    """The settings of the project at ``root`` (found from the working directory when None), as
    every entry point builds them; ``ConfigError`` when they cannot be used."""
    from pytest_handoff.pipeline.run import Run

    return Run.in_project(_root(root)).settings


def profiles(*, registry: Registry | None = None) -> list[str]:
    """The name of every format (profile) installed, built-ins first."""
    return list(_registry(registry).names())


def page_of(code: str, *, registry: Registry | None = None) -> str:
    """The address of the rule's page (its format's documentation; empty when it has none)."""
    return _registry(registry).page_of(code) or ""


def use_instead(code: str, *, registry: Registry | None = None) -> str:
    """What to write instead, from the rule's docs ("Use instead" part); empty when not known."""
    rule = _registry(registry).rule(code)
    if rule is None:
        return ""
    marker = "**Use instead**:"
    _, found, rest = rule.doc.partition(marker)
    if not found:
        return ""
    return " ".join(rest.split("\n\n", 1)[0].split())


def finding_data(finding: Finding) -> dict[str, object]:
    """A finding as plain JSON data for machines (the MCP server): the JSON report's fields and the
    rule's fix hint."""
    from pytest_handoff.reporters.json_format import finding_as_dict

    return {
        **finding_as_dict(finding, _registry(None).modes_of(finding.code)),
        "fix": use_instead(finding.code),
    }


def _root(root: StrPath | None) -> Path:
    from pytest_handoff.pipeline.run import find_project

    return find_project(Path.cwd()) if root is None else Path(os.path.abspath(root))


def _registry(given: Registry | None) -> Registry:
    """The registry a rule is looked up in: the one given, else the installed formats'."""
    return default_registry() if given is None else given


def _absolute(path: Path, root: Path) -> Path:
    """``path`` made absolute against ``root``, normalised but with symbolic links kept."""
    return Path(os.path.normpath(path if path.is_absolute() else root / path))


def _display(path: Path, root: Path) -> str:
    from pytest_handoff.read.files import display_path_for

    return display_path_for(path, root)
