"""One settings builder: a rule code no rule has, named in ``[tool.handoff]``, is refused alike by
handoff-lint, pytest, the API, the Claude Code hook and the MCP server, with the same message."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pytest_handoff import api
from pytest_handoff.agents import claude_hook
from pytest_handoff.cli import main
from pytest_handoff.values.errors import ConfigError
from tests.agent_loop import DEV, Project
from tests.test_mcp_server import Session, refusal, serve

#: What every entry point says, after the configuration file's path.
REFUSED = "'select': 'NR999' matches no rule code ('handoff-lint rules' lists them)"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    made = Project(tmp_path / "repo")
    (made.root / ".git").mkdir()
    (made.root / "pyproject.toml").write_text('[tool.handoff]\nselect = ["NR999"]\n', encoding="utf-8")
    monkeypatch.chdir(made.root)
    return made


def said(project: Project) -> str:
    return f"{project.root / 'pyproject.toml'}: {REFUSED}"


def test_handoff_lint_refuses_an_unknown_code_in_the_configuration(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([project.relative(DEV)]) == 2
    assert said(project) in capsys.readouterr().err


def test_pytest_refuses_an_unknown_code_in_the_configuration(
    project: Project, pytester: pytest.Pytester
) -> None:
    result = pytester.runpytest_inprocess(
        "--handoffs", "-p", "no:cacheprovider", "--rootdir", str(project.root)
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert said(project) in result.stderr.str()


def test_the_api_refuses_an_unknown_code_in_the_configuration(project: Project) -> None:
    with pytest.raises(ConfigError) as refused:
        api.check(project.path(DEV), root=project.root)
    assert str(refused.value) == said(project)
    with pytest.raises(ConfigError):
        api.check_folder(project.chain, root=project.root)


def test_the_claude_code_hook_refuses_an_unknown_code_in_the_configuration(project: Project) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(project.path(DEV)), "content": project.text(DEV)},
        "cwd": str(project.root),
    }
    stderr = io.StringIO()
    code = claude_hook.main([], io.BytesIO(json.dumps(payload).encode()), io.StringIO(), stderr)
    assert code == 1  # shown to the user, not the agent: a refusal of every write would block it
    assert said(project) in stderr.getvalue()


@pytest.mark.slow
def test_the_mcp_server_refuses_an_unknown_code_in_the_configuration(project: Project) -> None:
    async def body(session: Session) -> None:
        assert said(project) in await refusal(session, "check_handoff", path=project.relative(DEV))
        assert said(project) in await refusal(
            session, "check_chain", chain=project.relative(DEV).rsplit("/", 1)[0]
        )

    serve(project, body)
