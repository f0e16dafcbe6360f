"""``handoff-lint mcp``: the MCP server, driven by the SDK's own stdio client."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents import mcp as mcp_server
from pytest_handoff.cli import main
from tests.agent_loop import CHAIN_ID, DEV, TEST, Project
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # end to end: whole pytest sessions, pre-commit or a server process


def test_without_the_sdk_one_line_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "mcp", None)  # what `import mcp` sees when it is not installed
    assert main(["mcp"]) == 2
    assert (
        capsys.readouterr().err
        == "handoff-lint mcp needs the MCP SDK (mcp 2 or later): pip install 'pytest-handoff[mcp]'\n"
    )


def test_the_server_takes_no_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--port", "8000"]) == 2
    assert "takes no arguments" in capsys.readouterr().err


def test_paths_outside_the_working_directory_are_refused(tmp_path: Path) -> None:
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "link").symlink_to(tmp_path)
    root = tmp_path / "inside"
    assert mcp_server.inside(root, "a/b.json") == root / "a" / "b.json"
    for outside in ("../x.json", str(tmp_path / "x.json"), "link/x.json"):
        with pytest.raises(ValueError, match="outside the working directory"):
            mcp_server.inside(root, outside)


# --- over stdio, with the SDK's client ------------------------------------------------

Session = Any


def serve(project: Project, body: Callable[[Session], Awaitable[None]]) -> None:
    """Start ``handoff-lint mcp`` in ``project`` and run ``body`` with a connected client session."""
    mcp = pytest.importorskip(
        "mcp", reason="the MCP SDK is not installed (pip install 'pytest-handoff[mcp]')"
    )
    import anyio

    async def run() -> None:
        # The SDK passes the server only a few variables (HOME, PATH...): name the code under test.
        params = mcp.StdioServerParameters(
            command=sys.executable,
            args=["-m", "pytest_handoff.cli", "mcp"],
            cwd=str(project.root),
            env={"PYTHONPATH": str(REPO)},
        )
        async with mcp.stdio_client(params) as (read, write), mcp.ClientSession(read, write) as session:
            await session.initialize()
            with anyio.fail_after(60):
                await body(session)

    anyio.run(run)


async def call(session: Session, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result, checked against the tool's output schema (fails the test when
    the call is an error or the result does not fit)."""
    import jsonschema

    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert json.loads(result.content[0].text) == result.structured_content
    listed = {t.name: t for t in (await session.list_tools()).tools}
    jsonschema.validate(result.structured_content, listed[tool].output_schema)
    data: dict[str, Any] = result.structured_content
    return data


async def refusal(session: Session, tool: str, **arguments: Any) -> str:
    result = await session.call_tool(tool, arguments)
    assert result.is_error
    text: str = result.content[0].text
    return text


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)


def bad_tokens(data: Any) -> None:
    data["tokens_used"] = "lots"


def test_the_server_lists_its_six_tools(project: Project) -> None:
    async def body(session: Session) -> None:
        listed = (await session.list_tools()).tools
        assert sorted(tool.name for tool in listed) == [
            "check_chain",
            "check_claims",
            "check_handoff",
            "evidence",
            "explain_rule",
            "list_rules",
        ]
        schema = next(tool for tool in listed if tool.name == "check_handoff").input_schema
        assert schema["required"] == ["path"]
        assert schema["properties"]["content"]["type"] == "string"

    serve(project, body)
    assert project.unchanged()


def test_every_tool_is_declared_read_only_idempotent_and_closed_world(project: Project) -> None:
    async def body(session: Session) -> None:
        for tool in (await session.list_tools()).tools:
            assert tool.title
            assert tool.annotations.model_dump(by_alias=True, exclude_none=True) == {
                "title": tool.title,
                "readOnlyHint": True,
                "destructiveHint": False,
                "idempotentHint": True,
                "openWorldHint": False,
            }, tool.name

    serve(project, body)


def test_every_tool_declares_the_fields_of_its_result(project: Project) -> None:
    async def body(session: Session) -> None:
        schemas = {tool.name: tool.output_schema for tool in (await session.list_tools()).tools}
        for name in ("check_handoff", "check_chain", "evidence", "check_claims"):  # as the MCP page says
            assert schemas[name]["title"] == "Report"
            assert schemas[name]["required"] == ["errors", "warnings", "findings"]
            finding = schemas[name]["$defs"]["FindingData"]
            assert {"code", "severity", "pointer", "line", "column", "fix"} <= set(finding["required"])
            assert finding["properties"]["severity"]["enum"] == ["error", "warning", "info"]
        assert schemas["explain_rule"]["title"] == "RuleDoc"
        assert "doc" in schemas["explain_rule"]["required"]
        assert schemas["list_rules"]["$defs"]["RuleData"]["required"] == [
            "code", "name", "severity", "profile", "summary",
        ]  # fmt: skip
        for name, schema in schemas.items():  # no open object anywhere: every object lists its fields
            for part in (schema, *schema.get("$defs", {}).values()):
                assert part["properties"], name
                assert part.get("additionalProperties") is not True, name

    serve(project, body)


def test_hs001_check_handoff_gives_structured_findings_for_content_and_for_the_file(project: Project) -> None:
    async def body(session: Session) -> None:
        broken = await call(
            session, "check_handoff", path=project.relative(DEV), content=project.changed(DEV, bad_tokens)
        )
        assert broken["errors"] == 1
        (finding,) = [f for f in broken["findings"] if f["severity"] == "error"]
        line = project.changed(DEV, bad_tokens).splitlines().index('  "tokens_used": "lots",') + 1
        assert finding == {
            "code": "HS001",
            "rule": "schema-violation",
            "severity": "error",
            "message": 'expected integer, got string "lots"',
            "path": project.relative(DEV),
            "pointer": "/tokens_used",
            "line": line,
            "column": 18,
            "end_line": line,
            "end_column": 23,
            "chain": CHAIN_ID,
            "related": [],
            "logical": "",
            "location": f"{project.relative(DEV)}:{line}:18",
            "modes": ["FM-1.1"],
            "fix": "add the missing fields, fix types and values as the message says.",
        }
        on_disk = await call(session, "check_handoff", path=str(project.path(DEV)))
        assert on_disk == {"errors": 0, "warnings": 0, "findings": []}
        # Content that is JSON text stays text: the SDK must not parse it into an object.
        empty = await call(session, "check_handoff", path=project.relative(DEV), content="{}")
        assert empty["errors"] > 0

    serve(project, body)
    assert project.unchanged()


def test_nr301_check_handoff_reports_what_content_breaks_in_the_chain(project: Project) -> None:
    async def body(session: Session) -> None:
        dropped = project.changed(TEST, lambda d: d["property_verification"]["confirmed"].pop(0))
        result = await call(session, "check_handoff", path=project.relative(TEST), content=dropped)
        assert [(f["code"], f["path"]) for f in result["findings"]] == [("NR301", project.relative(DEV))]

    serve(project, body)
    assert project.unchanged()


def test_check_chain_takes_a_folder_or_an_id(project: Project) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))

    async def body(session: Session) -> None:
        by_folder = await call(session, "check_chain", chain=f".neuralrelay/handoffs/{CHAIN_ID}")
        by_id = await call(session, "check_chain", chain=CHAIN_ID)
        assert by_folder == by_id
        assert [f["code"] for f in by_id["findings"]] == ["HS001"]
        assert (by_id["errors"], by_id["warnings"]) == (1, 0)
        assert "no chain folder or chain id '19990101-000000'" in await refusal(
            session, "check_chain", chain="19990101-000000"
        )

    serve(project, body)
    assert project.unchanged()


def test_paths_outside_the_working_directory_are_refused_over_the_wire(
    project: Project, tmp_path: Path
) -> None:
    async def body(session: Session) -> None:
        for path in ("/etc/passwd", "../outside.json"):
            assert "outside the working directory" in await refusal(session, "check_handoff", path=path)
        assert "outside the working directory" in await refusal(session, "check_chain", chain="/etc")

    serve(project, body)


def test_explain_rule_and_list_rules(project: Project) -> None:
    async def body(session: Session) -> None:
        explained = await call(session, "explain_rule", code="nr202")
        assert (explained["code"], explained["name"], explained["severity"]) == (
            "NR202",
            "vague-coverage-gap",
            "error",
        )
        assert "**Use instead**" in explained["doc"]
        # the page `handoff-lint explain` prints
        assert explained["url"] == "https://pytest-handoff.github.io/pytest-handoff/rules/NR202/"
        assert "unknown rule 'XX1'" in await refusal(session, "explain_rule", code="XX1")
        every = (await call(session, "list_rules"))["rules"]
        assert {"HS001", "NR202", "NR307"} <= {rule["code"] for rule in every}
        own = (await call(session, "list_rules", profile="neuralrelay"))["rules"]
        assert all(rule["profile"] in (None, "neuralrelay") for rule in own)
        assert "unknown profile 'other'; known: neuralrelay" in await refusal(
            session, "list_rules", profile="other"
        )

    serve(project, body)


def test_the_evidence_tool_reports_a_claimed_file_that_exists_nowhere(project: Project) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(project.root)], check=True)
    dev = project.root / ".neuralrelay" / "handoffs" / "20261103-091500" / "02-dev-agent.json"
    data = json.loads(dev.read_text(encoding="utf-8"))
    data["files_changed"] = data["files_changed"][:1]
    dev.write_text(json.dumps(data, indent=2), encoding="utf-8")
    claimed = data["files_changed"][0]["path"]
    (project.root / claimed).unlink()  # the project holds every file its chain claims: not this one

    async def body(session: Session) -> None:
        result = await call(session, "evidence", path=str(dev.relative_to(project.root)))
        assert {(f["code"], f["pointer"]) for f in result["findings"]} >= {("EV101", "/files_changed/0/path")}
        assert all(f["code"].startswith("EV") for f in result["findings"])
        message = next(f["message"] for f in result["findings"] if f["pointer"] == "/files_changed/0/path")
        assert claimed in message
        refused = await refusal(session, "evidence", path=str(dev), junit="../x.xml")
        assert "outside the working directory" in refused

    serve(project, body)


# --- over stdio, line by line: lines the SDK's client never sends -----------------------

NEXT = b'{"jsonrpc":"2.0","id":"next","method":"tools/list"}'


class Wire:
    """``handoff-lint mcp`` in a subprocess, initialized, spoken to one raw line at a time."""

    def __init__(self, root: Path, errors: Path) -> None:
        import queue
        import subprocess
        import threading

        self.errors = errors
        with errors.open("wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pytest_handoff.cli", "mcp"],
                cwd=root,
                env={**os.environ, "PYTHONPATH": str(REPO)},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()
        self.send(json.dumps({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        }).encode())  # fmt: skip
        assert self.answers_up_to(0)[-1]["result"]["serverInfo"]["name"] == "handoff-lint"
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def read(self) -> None:
        for line in self.process.stdout or ():
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def answers_up_to(self, request_id: object) -> list[dict[str, Any]]:
        """Every answer the server writes until the one to ``request_id``, in the order it writes them."""
        answers = [json.loads(self.lines.get(timeout=60))]
        while answers[-1].get("id") != request_id:
            answers.append(json.loads(self.lines.get(timeout=60)))
        return answers

    def exchange(self, *lines: bytes) -> list[dict[str, Any]]:
        """The answers to ``lines``: those the server writes before its answer to a request sent
        after them, which must come (the server reads on after the lines)."""
        for line in lines:
            self.send(line)
        self.send(NEXT)
        *answers, last = self.answers_up_to("next")
        assert [tool["name"] for tool in last["result"]["tools"]], last
        return answers

    def close(self) -> tuple[int, str]:
        """The server's exit status and what it wrote to stderr, once the client has closed stdin."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            status = self.process.wait(timeout=60)
        finally:
            self.process.kill()
        return status, self.errors.read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def wire(project: Project, tmp_path: Path) -> Iterator[Wire]:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'pytest-handoff[mcp]')")
    server = Wire(project.root, tmp_path / "stderr.txt")
    yield server
    status, errors = server.close()
    assert (status, "Traceback" in errors) == (0, False), errors


def error(code: int, message: str, request_id: object = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def test_a_lone_surrogate_in_a_tool_argument_gets_invalid_params_with_the_request_id(wire: Wire) -> None:
    value = rb'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"explain_rule","arguments":{"code":"\ud800"}}}'
    key = rb'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"check_handoff","arguments":{"pa\udfffth":"a.json"}}}'
    assert wire.exchange(value, key) == [
        error(-32602, r"Invalid params: /params/arguments/code holds a lone surrogate (\ud800), which is not Unicode text", 1),
        error(-32602, r"Invalid params: /params/arguments/pa\udfffth holds a lone surrogate (\udfff), which is not Unicode text", 2),
    ]  # fmt: skip


def test_a_lone_surrogate_outside_params_gets_invalid_request_with_the_id_when_it_is_one(wire: Wire) -> None:
    method = rb'{"jsonrpc":"2.0","id":3,"method":"tools/\udc00"}'
    in_the_id = rb'{"jsonrpc":"2.0","id":"\ud800","method":"tools/list"}'
    assert wire.exchange(method, in_the_id) == [
        error(-32600, r"Invalid Request: /method holds a lone surrogate (\udc00), which is not Unicode text", 3),
        error(-32600, r"Invalid Request: /id holds a lone surrogate (\ud800), which is not Unicode text"),
    ]  # fmt: skip


def test_a_truncated_json_line_gets_a_parse_error(wire: Wire) -> None:
    assert wire.exchange(b'{"jsonrpc":"2.0","id":4,"method":"tools/li') == [
        error(-32700, "Parse error: Unterminated string starting at: line 1 column 34 (char 33)")
    ]


def test_a_line_that_is_not_utf8_gets_a_parse_error(wire: Wire) -> None:
    assert wire.exchange(b"\xff\xfe\xfd") == [
        error(-32700, "Parse error: Expecting value: line 1 column 1 (char 0)")
    ]


def test_json_that_is_no_json_rpc_message_gets_invalid_request(wire: Wire) -> None:
    assert (
        wire.exchange(b"[1, 2]", b'{"jsonrpc":"2.0","id":5,"method":7}')
        == [error(-32600, "Invalid Request: not a JSON-RPC 2.0 message")] * 2
    )


def test_blank_lines_and_unreadable_notifications_get_no_answer_and_the_next_request_does(wire: Wire) -> None:
    notification = rb'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"\ud800"}}'
    assert wire.exchange(b"", b"  \r", notification) == []
