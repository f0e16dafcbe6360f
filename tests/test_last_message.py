"""The agent's own last word checked as a handoff: ``last_assistant_message`` at Stop and
SubagentStop, ``handoff-lint claims -``, the API's ``check_claims`` and the MCP tool agree.

Only claims of work done can block (a file, a ``path:line``, a commit that the tree and git do not
show); a plan, a message without claims, and true claims never do.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from pytest_handoff.agents.stop import RESTATE
from pytest_handoff.api import check_claims
from pytest_handoff.cli import main as cli_main
from tests.agent_loop import Project, in_git, stop_payload, subagent_stop_payload
from tests.test_agent_stop import MARK, blocked, run_hook

pytestmark = pytest.mark.slow  # a git repository per test

FABRICATED = (
    "Done. I updated `billing/export/csv_writer.py` and created `tests/export/test_csv_dialects.py` "
    "with 12 tests.\nCommitted as `9f3c2ab`."
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for variable in ("CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(variable, raising=False)
    return in_git(Project(tmp_path / "repo"))


def stop(project: Project, message: str, *, subagent: bool = False) -> tuple[int, str, str]:
    transcript = project.root.parent / "none.jsonl"
    payload = (
        subagent_stop_payload(project, transcript, transcript)
        if subagent
        else stop_payload(project, transcript)
    )
    return run_hook({**payload, "last_assistant_message": message})


def test_ev101_and_ev201_a_fabricated_test_file_and_commit_in_the_last_message_block_the_stop(
    project: Project,
) -> None:
    code, out, _ = stop(project, FABRICATED)
    reason, number = blocked(out)
    assert (code, number) == (0, 1)
    assert "your last message claims work that the working tree and git do not show" in reason
    assert (
        "last assistant message:1:61 /done/created/0 [EV101 claimed-path-missing] tests/export/test_csv_dialects.py"
        in reason
    )
    assert "last assistant message:2:15 /done/commits/0 [EV201 unknown-commit] commit 9f3c2ab" in reason
    assert "csv_writer.py exists nowhere" not in reason  # a true claim


def test_true_claims_plans_and_a_message_without_claims_let_the_agent_stop(project: Project) -> None:
    for message in (
        "I updated `billing/export/csv_writer.py` and `billing/api/errors.py:1`.",
        "Next I will create `tests/export/test_csv_dialects.py`; should I also add `docs/csv.md`?",
        "All set - let me know if you want anything else.",
        "## Next Steps\n\n- Create `billing/export/xlsx_writer.py`\n",
    ):
        assert stop(project, message)[1] == "", message


def test_ev101_and_ev201_what_a_message_names_but_does_not_claim_made_lets_the_agent_stop(
    project: Project,
) -> None:
    for message in (
        "Done. I added `config/secrets.toml` to `.gitignore` so it stays out of git.",
        "I removed the temporary debug script `scripts/debug_tmp.py` after using it.",
        "## Completed\n\n- Updated `billing/api/errors.py`\n\n### Out of scope\n\n"
        "- `src/billing/invoice.py` (left for the billing team)\n",
        "Updated the exporter.\n\n    git diff > out/created.py\n",
        "See `out/created.py` for the output.",
        "- Committed migration 20240115a",
    ):
        assert stop(project, message)[1] == "", message


def test_a_subagent_is_asked_to_restate_its_report_before_the_mark(project: Project) -> None:
    reason, _ = blocked(stop(project, FABRICATED, subagent=True)[1])
    lines = reason.splitlines()
    assert lines[-2] == RESTATE
    assert MARK.search(lines[-1])


def test_the_hook_claims_the_api_and_the_command_give_the_same_findings(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project.root)
    api = [(f.code, f.line, f.column, f.pointer) for f in check_claims(FABRICATED, root=project.root)]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FABRICATED.encode())))
    assert cli_main(["claims", "-", "--format", "json"]) == 1
    printed = json.loads(capsys.readouterr().out)["findings"]
    assert [(f["code"], f["line"], f["column"], f["pointer"]) for f in printed] == api
    assert {f["path"] for f in printed} == {"stdin"}
    reason, _ = blocked(stop(project, FABRICATED)[1])
    hooked = [line for line in reason.splitlines() if line[:3] in ("1. ", "2. ")]
    assert [line.split("[")[1].split()[0] for line in hooked] == [code for code, *_ in api]


def test_claims_reads_a_report_file_and_refuses_two(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project.root)
    report = project.root.parent / "report.md"
    report.write_text("I updated `billing/api/errors.py:400`.\n", encoding="utf-8")
    assert cli_main(["claims", str(report)]) == 1
    assert "EV301 location-not-found" in capsys.readouterr().out
    assert cli_main(["claims", str(report), str(report)]) == 2


def test_claims_are_read_by_the_markdown_format_whatever_profile_the_run_forces(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project.root)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FABRICATED.encode())))
    assert cli_main(["claims", "-", "--profile", "neuralrelay", "--format", "json"]) == 1
    codes = [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]]
    assert codes == ["EV101", "EV201"]


def test_claims_with_evidence_turned_off_is_refused(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project.root)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FABRICATED.encode())))
    assert cli_main(["claims", "-", "--no-evidence"]) == 2
    assert "claims are judged against git, but evidence is off (--no-evidence)" in capsys.readouterr().err


def test_claims_outside_git_are_refused_alike_by_the_command_the_api_and_never_passed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_handoff import api

    monkeypatch.chdir(tmp_path)
    for given in ([], ["--evidence"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FABRICATED.encode())))
        assert cli_main(["claims", "-", *given]) == 2
        assert "is not in a git repository" in capsys.readouterr().err
    with pytest.raises(ValueError, match="is not in a git repository"):
        api.check_claims(FABRICATED, root=tmp_path)


def test_ev101_a_claim_past_the_part_read_of_a_long_report_keeps_its_line_everywhere(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_handoff import api
    from pytest_handoff.pipeline.run import MAX_MESSAGE

    filler = ("é" * 99 + "\n") * (MAX_MESSAGE // 150 + 6000)  # more than is read, in bytes
    report = filler + FABRICATED
    line = (
        filler.count("\n")
        + 1
        + FABRICATED.splitlines().index(next(text for text in FABRICATED.splitlines() if "`" in text))
    )
    from_api = [f for f in api.check_claims(report, root=project.root) if f.code == "EV101"]
    assert from_api
    assert from_api[0].line == line
    monkeypatch.chdir(project.root)
    (project.root / "report.md").write_text(report, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(report.encode())))
    for given in (["report.md"], ["-"]):
        cli_main(["claims", *given, "--format", "json"])
        found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "EV101"]
        assert [(f["line"], f["message"]) for f in found] == [(f.line, f.message) for f in from_api]
