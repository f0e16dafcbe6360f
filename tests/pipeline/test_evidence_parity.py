"""Evidence is on by default in a git repository, in every entry point, with the same verdict: a
dev handoff that claims it created a file no commit, index or tree holds gets EV101 from
handoff-lint, the API, pytest, the Claude Code hooks (a write, a Bash command, Stop) and MCP alike;
``--no-evidence`` and ``evidence = false`` turn it off, and a run outside git says it judged nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff import api
from pytest_handoff.agents import claude_hook
from pytest_handoff.cli import main
from tests.agent_loop import DEV, Project, Transcript, bash_payload, git, in_git, stop_payload
from tests.test_mcp_server import Session, call, serve

pytestmark = pytest.mark.slow  # real git repositories

#: The file the dev handoff claims it created, which the work never made.
MADE_UP = "billing/export/never_written.py"
#: Where the claim is, in the dev handoff.
CLAIM = "/files_changed/0/path"


def fabricated(data: Any) -> None:
    data["files_changed"][0]["path"] = MADE_UP


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for variable in ("CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GITHUB_ACTIONS"):
        monkeypatch.delenv(variable, raising=False)
    made = in_git(Project(tmp_path / "repo"))
    monkeypatch.chdir(made.root)
    return made


def claims_of(found: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {
        (f["code"], f["path"].rsplit("/", 1)[-1], f["pointer"]) for f in found if f["code"].startswith("EV")
    }


EXPECTED = {("EV101", DEV, CLAIM)}


def written(project: Project) -> None:
    project.replace(DEV, project.changed(DEV, fabricated))


def test_ev101_handoff_lint_judges_claims_by_default_in_a_git_repository(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    written(project)
    assert main(["--format", "json", project.relative(DEV)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert claims_of(report["findings"]) == EXPECTED
    assert report["summary"]["claims_judged"] > 0
    message = next(f["message"] for f in report["findings"] if f["code"] == "EV101")
    assert message == f"{MADE_UP} exists nowhere: not in the tree, the index or any commit"


def test_the_summary_line_says_how_many_claims_were_checked(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([project.relative(DEV)]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("no broken contracts; ")
    assert last.endswith(" claims checked against git")


def test_no_evidence_and_evidence_false_turn_it_off(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    written(project)
    assert main(["--format", "json", "--no-evidence", project.relative(DEV)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert claims_of(report["findings"]) == set()
    assert "claims_judged" not in report["summary"]
    (project.root / "pyproject.toml").write_text("[tool.handoff]\nevidence = false\n", encoding="utf-8")
    assert main([project.relative(DEV)]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1] == "no broken contracts"
    # The old switch still turns it on, over the configuration.
    assert main(["--format", "json", "--evidence", project.relative(DEV)]) == 1
    assert claims_of(json.loads(capsys.readouterr().out)["findings"]) == EXPECTED


def test_outside_git_the_summary_says_no_claim_was_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = Project(tmp_path / "plain")
    plain.replace(DEV, plain.changed(DEV, fabricated))
    monkeypatch.chdir(plain.root)
    assert main([plain.relative(DEV)]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last == "no broken contracts; claims not checked: not a git repository"


def test_ev101_the_api_judges_claims_by_default(project: Project) -> None:
    written(project)
    found = [f.to_wire() for f in api.check(project.path(DEV), root=project.root)]
    assert claims_of(found) == EXPECTED  # type: ignore[arg-type]


def test_ev101_pytest_judges_claims_by_default(project: Project, pytester: pytest.Pytester) -> None:
    written(project)
    result = pytester.runpytest_inprocess(
        "--handoffs", "-p", "no:cacheprovider", "--rootdir", str(project.root), str(project.path(DEV))
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([f"*{DEV}:*: EV101 claimed-path-missing [[]error[]] at {CLAIM}"])
    off = pytester.runpytest_inprocess(
        "--handoffs", "--handoff-no-evidence", "-p", "no:cacheprovider", "--rootdir", str(project.root),
        str(project.path(DEV)),
    )  # fmt: skip
    assert off.ret == pytest.ExitCode.OK


def hook(sent: dict[str, Any]) -> str:
    stdout = io.StringIO()
    claude_hook.main([], io.BytesIO(json.dumps(sent).encode("utf-8")), stdout, io.StringIO())
    return stdout.getvalue()


def test_ev101_the_claude_code_write_hook_blocks_a_fabricated_claim(project: Project) -> None:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(project.path(DEV)), "content": project.changed(DEV, fabricated)},
        "cwd": str(project.root),
    }
    answer = json.loads(hook(payload))
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "EV101 claimed-path-missing" in reason
    assert MADE_UP in reason


def test_ev101_the_claude_code_bash_hook_blocks_a_fabricated_claim(project: Project) -> None:
    project.path(DEV).write_text(project.changed(DEV, fabricated), encoding="utf-8")
    answer = json.loads(hook(bash_payload(project, f"python write.py > {project.relative(DEV)}")))
    assert answer["decision"] == "block"
    assert "EV101 claimed-path-missing" in answer["reason"]
    assert MADE_UP in answer["reason"]


def test_ev101_the_stop_hook_keeps_the_agent_working_on_a_fabricated_claim(project: Project) -> None:
    project.replace(DEV, project.changed(DEV, fabricated))
    transcript = Transcript(project.root.parent / "abc123.jsonl", project.root).prompt("Hand off.")
    answer = json.loads(hook(stop_payload(project, transcript.path)))
    assert answer["decision"] == "block"
    assert "EV101 claimed-path-missing" in answer["reason"]
    assert MADE_UP in answer["reason"]


def test_the_stop_hook_lets_a_committed_true_chain_stop(project: Project) -> None:
    transcript = Transcript(project.root.parent / "abc123.jsonl", project.root).prompt("Hand off.")
    assert hook(stop_payload(project, transcript.path)) == ""


def test_ev101_the_mcp_server_judges_claims_by_default(project: Project) -> None:
    written(project)
    git(project.root, "add", "-A")  # staged: the index is the tree, as in a commit hook

    async def body(session: Session) -> None:
        result = await call(session, "check_handoff", path=project.relative(DEV))
        assert claims_of(result["findings"]) == EXPECTED

    serve(project, body)


def test_ev301_a_process_checking_twice_sees_the_work_tree_as_it_is_now(project: Project) -> None:
    # The MCP server and the API live on between checks: a handoff changed since the first check
    # (not staged: HEAD and the index are as they were) is judged as it is now.
    from tests.agent_loop import TEST

    assert [f for f in api.check(project.path(TEST), root=project.root) if f.code.startswith("EV")] == []
    cited = "billing/api/schemas/export.py"
    project.replace(TEST, project.text(TEST).replace(f"{cited}:31-44", f"{cited}:500"))
    found = [f for f in api.check(project.path(TEST), root=project.root) if f.code == "EV301"]
    assert [f.message for f in found] == [
        f"{cited}:500 is past the end of the file (199 lines) (judged in the working tree: the handoff has uncommitted changes)"
    ]
