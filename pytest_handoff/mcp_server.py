"""``handoff-lint mcp``: the checks as an MCP server over stdio, for agents that speak MCP.

Built on the official ``mcp`` SDK (``pip install 'pytest-handoff[mcp]'``). Tools:
``check_handoff`` (a file, or content as if it stood at that path), ``check_chain`` (a chain
folder or chain id), ``explain_rule`` and ``list_rules``. Findings are the engine's, as JSON.
Nothing is written, and paths outside the server's working directory are refused.

Every tool is declared read-only, idempotent and closed-world (:func:`read_only`) and returns
structured content whose output schema the SDK derives from its ``TypedDict`` return type. A
new tool that returns findings annotates ``-> Report`` and returns :func:`report` of them; one
that adds fields returns a ``TypedDict`` that extends ``Report``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

if sys.version_info >= (3, 12) or TYPE_CHECKING:
    from typing import TypedDict
else:
    try:  # below 3.12 pydantic reads a TypedDict nested in another only from typing_extensions
        from typing_extensions import TypedDict
    except ImportError:  # no pydantic, so no SDK: the server does not start anyway
        from typing import TypedDict

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from pytest_handoff.model import Finding, Rule

INSTALL_HINT = "handoff-lint mcp needs the MCP SDK (mcp 2 or later): pip install 'pytest-handoff[mcp]'"

INSTRUCTIONS = (
    "Checks the JSON handoffs AI agents write for each other (NeuralRelay chains under "
    ".neuralrelay/handoffs/) against their contracts. Call check_handoff with the path and the "
    "content you are about to write before writing a handoff, and fix every finding of severity "
    "error; each finding has its place (line, column, JSON pointer) and a fix hint."
)


# The tools' results. Module-level and fully typed: the SDK turns each into the tool's output schema.

SeverityName = Literal["error", "warning", "info"]


class RelatedPlace(TypedDict):
    """Another place a finding points at (the first of two duplicate keys, a classification)."""

    path: str
    line: int
    column: int
    label: str


class FindingData(TypedDict):
    """One finding: where it is, which rule it breaks, what is wrong and how to fix it."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    rule: str
    severity: SeverityName
    message: str
    pointer: str
    chain: str
    related: list[RelatedPlace]
    logical: str
    location: str
    modes: list[str]
    fix: str


class Report(TypedDict):
    """Findings with their counts: what every tool that checks returns."""

    errors: int
    warnings: int
    findings: list[FindingData]


class RuleData(TypedDict):
    """A rule: its code, name, default severity, profile (None: every profile's) and summary."""

    code: str
    name: str
    severity: SeverityName
    profile: str | None
    summary: str


class RuleDoc(RuleData):
    """A rule with its documentation: what it does, why, an example and what to write instead, and
    the address of its page on the documentation site ("" for a rule that has none)."""

    doc: str
    url: str


class RuleList(TypedDict):
    """Rules, by code."""

    rules: list[RuleData]


def main(argv: Sequence[str] = ()) -> int:
    """Serve on stdin/stdout until the client closes them."""
    if argv:
        print(f"handoff-lint mcp: takes no arguments (got {' '.join(argv)})", file=sys.stderr)
        return 2
    try:
        server = build_server(Path.cwd())
    except ImportError:
        print(INSTALL_HINT, file=sys.stderr)
        return 2
    server.run("stdio")
    return 0


def build_server(root: Path) -> MCPServer[Any]:
    """The MCP server for the project at ``root`` (``ImportError`` when the SDK is missing)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from pydantic import Field

    from pytest_handoff.version import __version__

    server: MCPServer[Any] = MCPServer(
        "handoff-lint", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    @server.tool(title="Check a handoff", annotations=read_only("Check a handoff"))
    def check_handoff(
        path: str,
        # Typed plain `str` (default None): the SDK would parse a `str | None` argument that holds
        # JSON text into an object, and handoffs are JSON text.
        content: str = Field(default=None, description="the content to check instead of the file on disk"),  # type: ignore[assignment]
    ) -> Report:
        """Check one handoff file in its chain, as it is on disk or, with `content`, as if `content` stood at `path` (nothing is written).

        Returns the findings (code, rule, severity, message, path, pointer, line, column, fix hint);
        with `content`, also findings it brings about in the chain's other files.
        """
        from pytest_handoff.api import check

        return report(check(inside(root, path, ToolError), content, root=root))

    @server.tool(title="Check a handoff chain", annotations=read_only("Check a handoff chain"))
    def check_chain(chain: str) -> Report:
        """Check a whole handoff chain: its folder (relative to the working directory) or its chain id."""
        from pytest_handoff.api import check_folder

        given = Path(chain)
        if given.is_absolute() or len(given.parts) > 1 or (root / given).is_dir():
            return report(check_folder(inside(root, chain, ToolError), root=root))
        try:
            return report(check_folder(chain, root=root))
        except LookupError as error:
            raise ToolError(str(error)) from None

    @server.tool(title="Check a handoff's claims", annotations=read_only("Check a handoff's claims"))
    def evidence(
        path: str,
        junit: str = Field(default=None, description="a JUnit XML report (below the working directory) to reconcile test claims with"),  # type: ignore[assignment]
    ) -> Report:
        """Check one handoff's claims against the repository: the files it names exist and changed when it says,
        its commits exist and precede it, its cited lines exist, its test files and counts hold (with `junit`,
        its test results agree with the run). Returns only the evidence findings (codes EV...).
        """
        from pytest_handoff.api import check
        from pytest_handoff.config import load_settings
        from pytest_handoff.evidence.repository import forget_repositories
        from pytest_handoff.registry import default_registry

        forget_repositories()  # the working tree may have changed since the last call
        target = inside(root, path, ToolError)
        settings = load_settings(root, tables=default_registry())._replace(evidence=True)
        if junit is not None:
            report_path = inside(root, junit, ToolError)
            if not report_path.is_file():
                raise ToolError(f"{junit}: no such JUnit report")
            settings = settings._replace(evidence_junit=str(report_path))
        return report([f for f in check(target, root=root, settings=settings) if f.code.startswith("EV")])

    @server.tool(title="Explain a rule", annotations=read_only("Explain a rule"))
    def explain_rule(code: str) -> RuleDoc:
        """The documentation of a rule: what it does, why it matters, an example and what to write instead."""
        from pytest_handoff.api import explain

        try:
            rule = explain(code)
        except KeyError:
            raise ToolError(f"unknown rule {code!r}; list_rules lists them") from None
        from pytest_handoff.registry import default_registry

        return {**rule_data(rule), "doc": rule.doc, "url": default_registry().page_of(rule.code)}

    @server.tool(title="List the rules", annotations=read_only("List the rules"))
    def list_rules(profile: str | None = None) -> RuleList:
        """Every rule code with its name, default severity and summary (of one profile, when given)."""
        from pytest_handoff.api import rules
        from pytest_handoff.registry import default_registry

        known = list(default_registry().names())
        if profile is not None and profile not in known:
            raise ToolError(f"unknown profile {profile!r}; known: {', '.join(known)}")
        return {"rules": [rule_data(rule) for rule in rules(profile)]}

    return server


def inside(root: Path, path: str, refusal: type[Exception] = ValueError) -> Path:
    """``path`` (relative to ``root``) when it is inside ``root``; ``refusal`` is raised otherwise."""
    from pytest_handoff.read.files import nameable

    if not nameable(path):
        raise refusal(f"{path.encode('utf-8', 'backslashreplace').decode()}: not a path this system can name")
    given = Path(path)
    target = given if given.is_absolute() else root / given
    real, base = os.path.realpath(target), os.path.realpath(root)
    if not Path(real).is_relative_to(base):
        raise refusal(f"{path}: outside the working directory {root}; only files below it are checked")
    return Path(os.path.normpath(target))


def read_only(title: str) -> ToolAnnotations:
    """What every tool here is: it reads and writes nothing outside the project, changes nothing,
    and gives the same answer for the same files."""
    from mcp.types import ToolAnnotations

    return ToolAnnotations(
        title=title, read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )


def report(findings: Sequence[Finding]) -> Report:
    """Findings as a tool returns them: counted by severity, each as :class:`FindingData`."""
    from pytest_handoff.api import finding_data
    from pytest_handoff.model import Severity

    return {
        "errors": sum(f.severity >= Severity.ERROR for f in findings),
        "warnings": sum(f.severity == Severity.WARNING for f in findings),
        # finding_data() holds the JSON report's fields; the SDK checks each result against the schema.
        "findings": [cast("FindingData", finding_data(f)) for f in findings],
    }


def rule_data(rule: Rule) -> RuleData:
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": cast("SeverityName", rule.severity.label),
        "profile": rule.profile,
        "summary": rule.summary,
    }
