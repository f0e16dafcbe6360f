"""``handoff-lint mcp``: the checks as an MCP server over stdio, for agents that speak MCP.

Built on the official ``mcp`` SDK (``pip install 'pytest-handoff[mcp]'``). Tools:
``check_handoff`` (a file, or content as if it stood at that path), ``check_chain`` (a chain
folder or chain id), ``explain_rule`` and ``list_rules``. Findings are the engine's, as JSON.
Nothing is written, and paths outside the server's working directory are refused.

Every tool is declared read-only, idempotent and closed-world (:func:`read_only`) and returns
structured content whose output schema the SDK derives from its ``TypedDict`` return type. A
new tool that returns findings annotates ``-> Report`` and returns :func:`report` of them; one
that adds fields returns a ``TypedDict`` that extends ``Report``.

The SDK's stdio transport drops every line it cannot read as a JSON-RPC message, so a client that
sent one would wait forever; :func:`serve_stdio` answers each with a JSON-RPC error instead
(:func:`unreadable_answer`).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, ParamSpec, Protocol, TypeVar, cast

if sys.version_info >= (3, 12) or TYPE_CHECKING:
    from typing import TypedDict
else:
    try:  # below 3.12 pydantic reads a TypedDict nested in another only from typing_extensions
        from typing_extensions import TypedDict
    except ImportError:  # no pydantic, so no SDK: the server does not start anyway
        from typing import TypedDict

if TYPE_CHECKING:
    import contextvars

    from mcp.server.lowlevel import Server
    from mcp.server.mcpserver import MCPServer
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, RequestId, ToolAnnotations
    from typing_extensions import Self

    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.rules import Rule

INSTALL_HINT = "handoff-lint mcp needs the MCP SDK (mcp 2 or later): pip install 'pytest-handoff[mcp]'"

INSTRUCTIONS = (
    "Checks the JSON handoffs AI agents write for each other (NeuralRelay chains under "
    ".neuralrelay/handoffs/) against their contracts. Call check_handoff with the path and the "
    "content you are about to write before writing a handoff, and fix every finding of severity "
    "error; each finding has its place (line, column, JSON pointer) and a fix hint. Call "
    "check_claims with an agent's report (its final message) to learn whether the files, lines "
    "and commits it says it made exist."
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
    import anyio

    anyio.run(serve_stdio, server)
    return 0


_P = ParamSpec("_P")
_R = TypeVar("_R")


def refused_as_tool_error(tool: Callable[_P, _R]) -> Callable[_P, _R]:
    """``tool`` answering a configuration it cannot use (an unknown rule code in ``[tool.handoff]``)
    with an error result that says why, as handoff-lint's usage error does."""
    from mcp.server.mcpserver.exceptions import ToolError

    from pytest_handoff.values.errors import ConfigError

    @functools.wraps(tool)
    def answer(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return tool(*args, **kwargs)
        except ConfigError as error:
            raise ToolError(str(error)) from None

    return answer


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
    @refused_as_tool_error
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
    @refused_as_tool_error
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
    @refused_as_tool_error
    def evidence(
        path: str,
        junit: str = Field(  # type: ignore[assignment]
            default=None,
            description="a JUnit XML report (below the working directory) to reconcile test claims with",
        ),
    ) -> Report:
        """Check one handoff's claims against the repository: the files it names exist and changed when it says,
        its commits exist and precede it, its cited lines exist, its test files and counts hold (with `junit`,
        its test results agree with the run). Returns only the evidence findings (codes EV...).
        """
        from pytest_handoff.api import check, project_settings
        from pytest_handoff.rules.evidence.repository import forget_repositories

        forget_repositories()  # the working tree may have changed since the last call
        target = inside(root, path, ToolError)
        settings = project_settings(root)._replace(evidence=True)
        if junit is not None:
            report_path = inside(root, junit, ToolError)
            if not report_path.is_file():
                raise ToolError(f"{junit}: no such JUnit report")
            settings = settings._replace(evidence_junit=str(report_path))
        return report([f for f in check(target, root=root, settings=settings) if f.code.startswith("EV")])

    @server.tool(title="Check an agent's report", annotations=read_only("Check an agent's report"))
    @refused_as_tool_error
    def check_claims(text: str) -> Report:
        """Check the claims of work done in an agent's report (its final message, a summary it returned) against
        the repository: files it says it created or changed exist, its `path:line` citations exist, its commits
        exist. Only claims of work done are judged, not plans ("next I will add x.py"). Nothing is written.
        """
        from pytest_handoff.api import check_claims as claims_in
        from pytest_handoff.rules.evidence.repository import forget_repositories

        forget_repositories()  # the working tree may have changed since the last call
        return report(claims_in(text, root=root, shown="report"))

    @server.tool(title="Explain a rule", annotations=read_only("Explain a rule"))
    @refused_as_tool_error
    def explain_rule(code: str) -> RuleDoc:
        """The documentation of a rule: what it does, why it matters, an example and what to write instead."""
        from pytest_handoff.api import explain

        try:
            rule = explain(code)
        except KeyError:
            raise ToolError(f"unknown rule {code!r}; list_rules lists them") from None
        from pytest_handoff.api import page_of

        return {**rule_data(rule), "doc": rule.doc, "url": page_of(rule.code)}

    @server.tool(title="List the rules", annotations=read_only("List the rules"))
    @refused_as_tool_error
    def list_rules(profile: str | None = None) -> RuleList:
        """Every rule code with its name, default severity and summary (of one profile, when given)."""
        from pytest_handoff.api import profiles, rules

        known = profiles()
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
    from pytest_handoff.values.findings import Severity

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


# --- lines the SDK's stdio transport cannot read ----------------------------------------------
# Its reader parses each line into a message and puts what it cannot parse on the read stream as an
# exception, which the SDK's dispatcher only logs: the client gets no answer. These answer them.

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602  # JSON-RPC 2.0's codes


async def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve ``server`` over stdin/stdout as ``server.run("stdio")`` does, answering each line
    that is no JSON-RPC message the SDK reads with a JSON-RPC error (:class:`AnsweringReader`)."""
    from mcp.server.stdio import stdio_server

    # MCPServer.run_stdio_async serves its low-level server over stdio_server()'s streams, with no
    # way to put a reader between them; without that server (another SDK), serve as it does.
    lowlevel: Server[Any] | None = getattr(server, "_lowlevel_server", None)
    if lowlevel is None:
        await server.run_stdio_async()
        return
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(
            AnsweringReader(read_stream, write_stream), write_stream, lowlevel.create_initialization_options()
        )


if TYPE_CHECKING:

    class Received(Protocol):
        """The read side of the SDK's stdio transport: messages, and exceptions for unread lines."""

        async def receive(self) -> SessionMessage | Exception: ...
        async def aclose(self) -> None: ...

    class Sent(Protocol):
        async def send(self, item: SessionMessage, /) -> None: ...


class AnsweringReader:
    """The messages of ``received``; each line it could not read is answered on ``answers`` (the
    write stream) with :func:`unreadable_answer`, before the next line is read, and left out."""

    def __init__(self, received: Received, answers: Sent) -> None:
        self.received = received
        self.answers = answers

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the last message, which the SDK reads from its own stream."""
        context: contextvars.Context | None = getattr(self.received, "last_context", None)
        return context

    async def receive(self) -> SessionMessage | Exception:
        import anyio
        from mcp.shared.message import SessionMessage

        while True:
            item = await self.received.receive()
            if not isinstance(item, Exception):
                return item
            answer = unreadable_answer(item)
            if answer is not None:
                with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):  # the server stopped
                    await self.answers.send(SessionMessage(answer))

    async def aclose(self) -> None:
        await self.received.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.aclose()


class Unreadable(NamedTuple):
    """Why a line is no message: a JSON-RPC error code and message, and the request's id if known."""

    code: int
    message: str
    id: RequestId | None = None


def unreadable_answer(error: Exception) -> JSONRPCError | None:
    """The JSON-RPC error that answers the line the SDK failed to read with ``error``; ``None`` for
    a blank line, for a notification or a response (JSON-RPC answers neither) and for an exception
    that is not about a line (the SDK puts none such on the stream; it would only log it)."""
    from mcp.types import ErrorData, JSONRPCError

    if not isinstance(error, ValueError):  # pydantic's ValidationError is one, as is json's error
        return None
    why = unreadable(unread_line(error))
    if why is None:
        return None
    return JSONRPCError(jsonrpc="2.0", id=why.id, error=ErrorData(code=why.code, message=why.message))


def unread_line(error: ValueError) -> str | None:
    """The line the SDK's reader failed to read with ``error``, when it failed as JSON; ``None``
    when it failed as a JSON-RPC message."""
    from pydantic import ValidationError

    if isinstance(error, json.JSONDecodeError):
        return error.doc
    if isinstance(error, ValidationError):
        for detail in error.errors(include_url=False):
            if detail["type"] == "json_invalid" and isinstance(detail["input"], str):
                return detail["input"]
    return None


def unreadable(line: str | None) -> Unreadable | None:
    """Why ``line`` (``None``: JSON, but no JSON-RPC message) is no message the SDK reads.

    Not JSON (truncated, not UTF-8...): -32700 Parse error, id null. JSON that is no
    message: -32600 Invalid Request, id null. A request with a lone surrogate (``"\\ud800"``,
    valid JSON but not Unicode text), which the SDK takes for a JSON syntax error: -32602 Invalid
    params with its id when the surrogate is in ``params``, else -32600.
    """
    if line is None:
        return Unreadable(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
    line = line.strip()
    if not line:
        return None
    try:
        message = json.loads(line)
    except ValueError as error:  # not JSON, or an integer of too many digits
        return Unreadable(PARSE_ERROR, f"Parse error: {error}")
    except RecursionError:
        return Unreadable(PARSE_ERROR, "Parse error: nested too deeply")
    place = lone_surrogate(message)
    if place is None:  # JSON to the standard library, not to the SDK's parser
        return Unreadable(PARSE_ERROR, "Parse error")
    pointer, surrogate = place
    if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
        return None  # a response
    if isinstance(message, dict) and "method" in message and "id" not in message:
        return None  # a notification
    given = message.get("id") if isinstance(message, dict) else None
    request_id = (
        given if type(given) is int or (isinstance(given, str) and lone_surrogate(given) is None) else None
    )
    what = f"{pointer or 'the line'} holds a lone surrogate ({surrogate}), which is not Unicode text"
    if request_id is not None and pointer.startswith("/params/"):
        return Unreadable(INVALID_PARAMS, f"Invalid params: {what}", request_id)
    return Unreadable(INVALID_REQUEST, f"Invalid Request: {what}", request_id)


def lone_surrogate(value: object) -> tuple[str, str] | None:
    """The JSON pointer of the first string or key in ``value`` that holds a lone surrogate, and
    that surrogate as a JSON escape (a pair, once parsed, is one character: what remains is lone)."""
    pending: list[tuple[str, object]] = [("", value)]
    while pending:
        pointer, item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as error:
                return pointer, f"\\u{ord(item[error.start]):04x}"
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                part = key.encode("utf-8", "backslashreplace").decode().replace("~", "~0").replace("/", "~1")
                pending.extend([(f"{pointer}/{part}", inner), (f"{pointer}/{part}", key)])
        elif isinstance(item, list):
            pending.extend((f"{pointer}/{index}", inner) for index, inner in reversed(list(enumerate(item))))
    return None
