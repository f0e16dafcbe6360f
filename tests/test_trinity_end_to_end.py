"""Trinity end to end: ``handoff-lint`` and ``pytest --handoffs`` on our fixture workspaces, copied into a project."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from tests.probes import HEAVY_MODULES, lint_in_fresh_process
from tests.trinity_helpers import trinity_workspaces, with_colons

Run = Callable[..., pytest.RunResult]

#: What the ``broken`` set breaks: (file, line, column, code), each once.
BROKEN = [
    ("history/handoff/developer-2026-04-08T09:00:00.000Z.json", 8, 13, "TR106"),
    ("name/handoff/developer.json", 1, 1, "TR101"),
    ("self/handoff/self-2026-04-07T09:00:00.000Z.json", 3, 9, "TR105"),
    ("sender/handoff/designer-2026-04-04T09:00:00.000Z.json", 2, 11, "TR102"),
    ("stamp/handoff/developer-2026-04-05T09:00:00.000Z.json", 4, 16, "TR103"),
    ("status/handoff/developer-2026-04-09T09:00:00.000Z.json", 8, 13, "HS001"),
    ("workspace/handoff/qa-lead-2026-04-06T09:00:00.000Z.json", 3, 9, "TR104"),
]


@pytest.fixture
def project(git_project: Path) -> Path:
    return git_project


def lint_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def found(report: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    return sorted((f["path"], f["line"], f["column"], f["code"]) for f in report["findings"])


# --- handoff-lint ----------------------------------------------------------------------------


@pytest.mark.parametrize("colons", [True, False], ids=["colons", "windows-safe-names"])
def test_the_studio_workspaces_pass_with_one_group_per_workspace(
    project: Path, capsys: pytest.CaptureFixture[str], colons: bool
) -> None:
    copied = trinity_workspaces("studio", project / "agents", colons=colons)
    code, report = lint_json(capsys)
    assert (code, found(report)) == (0, [])
    assert report["summary"] == {"files": len(copied), "chains": 3, "errors": 0, "warnings": 0}


def test_each_broken_workspace_gives_its_one_finding_at_its_place(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trinity_workspaces("broken", project)
    code, report = lint_json(capsys)
    assert code == 1
    assert found(report) == BROKEN
    history = next(f for f in report["findings"] if f["code"] == "TR106")
    assert history["related"][0]["path"] == "history/handoff/developer-2026-04-08T10:00:00.000Z.json"


def test_select_tr_keeps_trinitys_rules_and_drops_the_schema(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trinity_workspaces("broken", project)
    _, report = lint_json(capsys, "--select", "TR")
    assert found(report) == [place for place in BROKEN if place[3] != "HS001"]


def test_a_named_file_brings_its_workspace_but_reports_only_itself(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trinity_workspaces("broken", project)
    older, newer = (
        "history/handoff/developer-2026-04-08T09:00:00.000Z.json",
        with_colons("history/handoff/developer-2026-04-08T10_00_00.000Z.json"),
    )
    code, report = lint_json(capsys, older)
    assert (code, found(report)) == (0, [BROKEN[0]])  # a warning: exit 0
    # The accepted handoff is the related place of the finding: naming it reports it too.
    _, report = lint_json(capsys, newer)
    assert found(report) == [BROKEN[0]]
    _, report = lint_json(capsys, "stamp/handoff/developer-2026-04-05T09:00:00.000Z.json")
    assert found(report) == [BROKEN[4]]


def test_a_text_report_names_the_file_the_rule_and_the_value(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trinity_workspaces("broken", project)
    assert main(["stamp"]) == 1
    out = capsys.readouterr().out
    assert (
        "stamp/handoff/developer-2026-04-05T09:00:00.000Z.json:4:16: TR103 timestamp-in-name [error] at /timestamp"
        in out
    )
    assert '4 |   "timestamp": "2026-04-05T10:00:00.000Z",' in out


def test_configured_workspaces_decide_whose_a_folder_is(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / "team" / "t1" / "handoff"
    folder.mkdir(parents=True)
    (folder / "developer-2026-04-02T10:00:00.000Z.json").write_text(
        json.dumps(
            {
                "from": "developer",
                "to": "tester",
                "timestamp": "2026-04-02T10:00:00.000Z",
                "context": {},
                "status": "pending",
            },
            indent=2,
        )
    )
    _, report = lint_json(capsys)
    assert found(report) == [("team/t1/handoff/developer-2026-04-02T10:00:00.000Z.json", 3, 9, "TR104")]
    (project / "pyproject.toml").write_text('[tool.handoff.trinity]\nworkspaces = { tester = "team/t1" }\n')
    code, report = lint_json(capsys)
    assert (code, found(report)) == (0, [])


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ("workspaces = { tester = 3 }", "'workspaces' must be a table"),
        ("timestamp-tolerance-ms = -5", "'timestamp-tolerance-ms' must be a whole number >= 0"),
    ],
)
def test_an_unusable_option_value_is_a_usage_error_once_a_trinity_file_is_checked(
    project: Path, capsys: pytest.CaptureFixture[str], table: str, complaint: str
) -> None:
    trinity_workspaces("studio", project / "agents", colons=True)
    (project / "pyproject.toml").write_text(f"[tool.handoff.trinity]\n{table}\n")
    assert main([]) == 2
    assert complaint in capsys.readouterr().err


def test_an_unrelated_handoff_folder_is_not_taken_for_trinitys(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / "docs" / "handoff"
    folder.mkdir(parents=True)
    (folder / "release-checklist.json").write_text('{"steps": []}')
    (folder / "messages-en.json").write_text("[]")
    code, report = lint_json(capsys)
    assert (code, report["summary"]) == (0, {"files": 0, "chains": 0, "errors": 0, "warnings": 0})


def test_checking_one_trinity_file_imports_no_other_profile_and_nothing_heavy(project: Path) -> None:
    trinity_workspaces("studio", project)
    probe = lint_in_fresh_process(
        [with_colons("tester/handoff/developer-2026-04-02T10_00_00.000Z.json")], project
    )
    assert probe.code == 0
    assert probe.loaded((*HEAVY_MODULES, "sqlite3")) == []
    assert probe.formats == ["trinity"]


def test_profile_trinity_checks_a_file_no_profile_would_claim(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trinity_workspaces("studio", project)
    (project / "inbox").mkdir()
    message = project / "inbox" / "message.json"
    message.write_bytes(
        (project / with_colons("tester/handoff/developer-2026-04-02T10_00_00.000Z.json")).read_bytes()
    )
    code, report = lint_json(capsys, "--profile", "trinity", "inbox/message.json")
    assert code == 1
    assert found(report) == [("inbox/message.json", 1, 1, "TR101"), ("inbox/message.json", 3, 9, "TR104")]
    assert "belongs in tester/handoff/" in report["findings"][1]["message"]


def test_profile_trinity_checks_every_workspace_when_no_path_is_named(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trinity_workspaces("broken", project)
    code, report = lint_json(capsys, "--profile", "trinity")
    assert (code, found(report)) == (1, BROKEN)


def test_schema_export_gives_trinity_handoffs_their_schema(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_handoff.read.globs import matches_globs

    assert main(["schema", "export", "editor-schemas"]) == 0
    out = capsys.readouterr().out
    workspace = json.loads(out.split("// ")[2].split("\n", 1)[1])["json.schemas"]

    def schemas_for(relative: str) -> list[str]:
        return [entry["url"] for entry in workspace if matches_globs(relative, entry["fileMatch"])]

    assert schemas_for("agents/tester/handoff/developer-2026-04-02T10:00:00.000Z.json") == [
        "./editor-schemas/trinity/handoff.schema.json"
    ]
    assert schemas_for("docs/handoff/checklist.json") == []
    written = json.loads((project / "editor-schemas" / "trinity" / "handoff.schema.json").read_text())
    assert written["$id"] == "https://pytest-handoff.dev/schemas/trinity/handoff.schema.json"


# --- pytest --handoffs ---------------------------------------------------------------------


def test_pytest_collects_one_item_per_workspace(pytester: pytest.Pytester, run_handoffs: Run) -> None:
    trinity_workspaces("broken", pytester.path)
    result = run_handoffs("-W", "always")
    result.assert_outcomes(passed=1, failed=6, warnings=1)  # history: TR106 is a warning
    result.stdout.fnmatch_lines(
        ["*stamp/handoff/developer-2026-04-05T09:00:00.000Z.json:4:16: TR103 timestamp-in-name*"]
    )


def test_pytest_k_selects_workspaces_by_name_and_by_sender(
    pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    trinity_workspaces("studio", pytester.path)
    # The tester's workspace by its name, and qa-lead's, which holds a handoff from the tester.
    result = run_handoffs("--collect-only", "-q", "-k", "tester")
    result.stdout.fnmatch_lines(
        ["qa-lead/handoff::qa-lead", "tester/handoff::tester", "*2/3 tests collected*"]
    )
    # Only the developer's workspace holds a handoff from the designer.
    result = run_handoffs("-k", "designer", "-v")
    result.stdout.fnmatch_lines(["*developer/handoff::developer PASSED*"])
    result.assert_outcomes(passed=1)
