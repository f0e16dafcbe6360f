"""Reporters turn chain results into one output format; looked up by name from one table.

Every reporter has the same small lifecycle: ``start()``, ``handle(result)`` for
each checked chain, and ``finish(summary)``. Reporters import their heavy
dependencies (rich) lazily, so the hook path stays fast.
"""

from __future__ import annotations

import importlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.groups import GroupResult
    from pytest_handoff.values.rules import Rule
    from pytest_handoff.values.settings import Settings

#: Finds the rule of a code (the registry's ``rule``); reporters that describe rules ask it.
RuleLookup = Callable[[str], "Rule | None"]


#: The address of a rule's page on the documentation site, "" for a code with none (the registry's ``page_of``).
PageLookup = Callable[[str], str]


def _no_rules(code: str) -> Rule | None:
    return None


def _no_pages(code: str) -> str:
    return ""


class ReportContext(NamedTuple):
    """What every reporter may need besides the findings."""

    root: Path  # finding paths are relative to this folder (the working directory)
    tool_version: str = ""
    color: bool = False
    # GitHub Actions: paths in annotations are relative to this folder.
    workspace: Path | None = None
    # Where the full report can be read (named in truncation notices).
    summary_hint: str = ""
    # GitHub Actions: the start of a link to a file of the checked commit ("https://github.com/o/r/blob/SHA/").
    blob_url: str = ""
    # The rule of a code, for reporters that describe the rules they report (SARIF).
    rule_of: RuleLookup = _no_rules
    # The address of a rule's page on the documentation site (SARIF's helpUri).
    page_of: PageLookup = _no_pages

    def modes_of(self, code: str) -> tuple[str, ...]:
        """The failure modes the rule of ``code`` declares (none when the rule is not known here)."""
        rule = self.rule_of(code)
        return rule.modes if rule is not None else ()


class Summary:
    """Counts over a whole run, filled in as results are handled."""

    def __init__(self) -> None:
        self.files = 0
        self.chains = 0
        self.errors = 0
        self.warnings = 0
        self.infos = 0
        self.findings: list[Finding] = []
        self.claims = 0  # claims judged against the repository
        self.judging = False  # whether the run judged claims (evidence on)
        #: What the run says of its claims (see :func:`claims_note`); empty: nothing.
        self.evidence = ""
        self.baselined = 0  # findings a baseline knew, left out of every count above

    def add(self, result: GroupResult) -> None:
        from pytest_handoff.values.findings import Severity

        self.chains += 1
        self.files += len(result.ref.paths)
        self.claims += result.claims_judged
        self.baselined += result.baselined
        for finding in result.findings:
            self.findings.append(finding)
            if finding.severity >= Severity.ERROR:
                self.errors += 1
            elif finding.severity == Severity.WARNING:
                self.warnings += 1
            else:
                self.infos += 1


def baselined_note(count: int) -> str:
    """What a run says of the findings its baseline left out."""
    from pytest_handoff.values.wording import counted

    return f"{counted(count, 'known finding')} left out (in the baseline)"


class Reporter(ABC):
    """One output format written to ``stream``."""

    def __init__(self, stream: TextIO, context: ReportContext) -> None:
        self.stream = stream
        self.context = context

    def start(self) -> None:  # noqa: B027 (optional step of the lifecycle)
        """Called once before any result."""

    def handle(self, result: GroupResult) -> None:  # noqa: B027 (optional step of the lifecycle)
        """Called once per checked chain, in order (reporters that stream output override it)."""

    @abstractmethod
    def finish(self, summary: Summary) -> None:
        """Called once after the last result; ``summary.findings`` holds every finding, in order."""


#: Format name -> "module:Class", imported on first use.
REPORTERS: dict[str, str] = {
    "text": "pytest_handoff.reporters.text:TextReporter",
    "json": "pytest_handoff.reporters.json_format:JsonReporter",
    "sarif": "pytest_handoff.reporters.sarif:SarifReporter",
    "github": "pytest_handoff.reporters.github:GithubReporter",
    "markdown": "pytest_handoff.reporters.markdown:MarkdownReporter",
}


def reporter_class(name: str) -> type[Reporter]:
    """The reporter class registered under ``name``."""
    try:
        target = REPORTERS[name]
    except KeyError:
        raise ValueError(f"unknown format {name!r} (choose from {', '.join(REPORTERS)})") from None
    module_name, _, class_name = target.partition(":")
    cls: type[Reporter] = getattr(importlib.import_module(module_name), class_name)
    return cls


def claims_note(claims: int, evidence: bool | None, off: str) -> str:
    """What a run's summary says of the claims it judged: how many, that none was, or why evidence
    is off though nobody turned it off (``off``); empty when it was turned off."""
    if evidence:
        from pytest_handoff.values.wording import counted

        return f"{counted(claims, 'claim')} checked against git" if claims else "no claim checked against git"
    return f"claims not checked: {off}" if off else ""


def write_reports(
    results: Sequence[GroupResult],
    streams: list[tuple[str, TextIO]],
    root: Path,
    rule_of: RuleLookup = _no_rules,
    page_of: PageLookup = _no_pages,
    settings: Settings | None = None,
) -> None:
    """Run each requested reporter (format name, stream) over the same results.

    ``rule_of`` finds the rule of a code (the registry's ``rule``) and ``page_of`` the address of
    its page (the registry's ``page_of``), for reporters that describe the rules of their findings.
    ``settings``: the run's, for what the summary says of the claims judged.
    """
    from pytest_handoff.version import __version__

    workspace = os.environ.get("GITHUB_WORKSPACE")
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    summary = Summary()
    for result in results:
        summary.add(result)
    if settings is not None:
        summary.evidence = claims_note(summary.claims, settings.evidence, settings.evidence_off)
        summary.judging = bool(settings.evidence)
    for name, stream in streams:
        if name == "markdown":  # never the summary it is itself
            hint = "the job log" if in_actions else "handoff-lint's text output"
        else:
            hint = "the job summary" if os.environ.get("GITHUB_STEP_SUMMARY") else "handoff-lint's output"
        context = ReportContext(
            root=root,
            tool_version=__version__,
            color=name == "text" and _wants_color(stream),
            workspace=Path(workspace) if workspace else None,
            summary_hint=hint,
            blob_url=_blob_url(),
            rule_of=rule_of,
            page_of=page_of,
        )
        reporter = reporter_class(name)(stream, context)
        reporter.start()
        for result in results:
            reporter.handle(result)
        reporter.finish(summary)


def append_step_summary(
    results: Sequence[GroupResult], root: Path, warn: Callable[[str], None], rule_of: RuleLookup = _no_rules
) -> None:
    """The Markdown summary appended to ``$GITHUB_STEP_SUMMARY``, when set.

    A summary that cannot be written costs only the summary: ``warn`` says why and the run
    (and its result) goes on. The CLI and the pytest plugin both come here.
    """
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8") as stream:
            write_reports(results, [("markdown", stream)], root, rule_of)
    except OSError as error:
        warn(f"cannot write the step summary {target}: {error.strerror or error}")


def workspace_path(path: str, context: ReportContext) -> str:
    """``path`` (relative to the root) relative to the workspace, as GitHub resolves it.

    Absolute (POSIX slashes) when the file is outside the workspace.
    """
    workspace = context.workspace
    if workspace is None:
        return path
    absolute = Path(os.path.normpath(context.root / path))
    for base, target in (
        (Path(os.path.normpath(workspace)), absolute),
        (workspace.resolve(), absolute.resolve()),
    ):
        try:
            return target.relative_to(base).as_posix()
        except ValueError:
            continue
    return absolute.as_posix()


def _blob_url() -> str:
    """``$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/$GITHUB_SHA/``, or "" unless all three are set."""
    server, repository, sha = (
        os.environ.get(name, "") for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_SHA")
    )
    if not (server and repository and sha):
        return ""
    from urllib.parse import quote

    return f"{server.rstrip('/')}/{quote(repository, safe='/')}/blob/{quote(sha, safe='')}/"


def _wants_color(stream: TextIO) -> bool:
    """Colour only on a terminal; ``NO_COLOR`` wins over ``FORCE_COLOR``."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()
