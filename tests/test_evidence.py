"""EV rules: a NeuralRelay chain's claims (files, commits, locations, tests) checked against git.

Each test builds a real git repository holding the example chain and every file it claims,
committed at times inside the chain's windows, then breaks one claim.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from tests.agent_loop import write_claimed_files
from tests.conftest import EXAMPLES, REPO

pytestmark = pytest.mark.slow  # real git repositories

CHAIN = ".neuralrelay/handoffs/20261103-091500"
DEV = f"{CHAIN}/02-dev-agent.json"
TEST = f"{CHAIN}/03-test-agent.json"
REVIEW = f"{CHAIN}/04-review-agent.json"
#: Between the requirements (09:15) and the dev handoff (09:52).
DEV_WORK = "2026-11-03T09:40:00Z"


def git(root: Path, *args: str, when: str = DEV_WORK) -> str:
    # The caller's GIT_* variables (a git hook running pytest) must not point git elsewhere.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_GLOBAL=os.devnull)
    done = subprocess.run(
        ["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def edit(root: Path, relative: str, change: Any) -> None:
    path = root / relative
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay", tmp_path / ".neuralrelay")
    git(tmp_path, "init", "-q")
    write_claimed_files(tmp_path, tmp_path / CHAIN)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "the work of the chain")
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def evidence(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[str, str, str]]:
    main(["--format", "json", "--evidence", *args])
    found = json.loads(capsys.readouterr().out)["findings"]
    return sorted(
        (f["code"], f["path"].rsplit("/", 1)[-1], f["pointer"]) for f in found if f["code"].startswith("EV")
    )


def test_a_chain_whose_claims_all_hold_has_no_evidence_finding(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert evidence(capsys) == []


def test_without_evidence_no_claim_is_checked(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "billing" / "api" / "errors.py").unlink()
    git(repo, "rm", "-q", "--cached", "billing/api/errors.py")
    main(["--format", "json"])
    assert not [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"].startswith("EV")]


def test_ev101_a_changed_file_that_exists_nowhere(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(repo, DEV, lambda d: d["files_changed"][1].update(path="billing/api/schemas/made_up.py"))
    assert evidence(capsys) == [("EV101", "02-dev-agent.json", "/files_changed/1/path")]


def test_ev101_a_file_deleted_since_but_once_committed_is_no_finding(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(repo, "rm", "-q", "billing/api/errors.py")
    git(repo, "commit", "-qm", "drop errors", when="2026-11-04T10:00:00Z")
    assert "EV101" not in {code for code, _, _ in evidence(capsys)}


def test_ev101_a_staged_file_counts_as_there(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(repo, DEV, lambda d: d["files_changed"][1].update(path="billing/api/schemas/staged.py"))
    (repo / "billing" / "api" / "schemas" / "staged.py").write_text("x = 1\n")
    git(repo, "add", "billing/api/schemas/staged.py")
    (repo / "billing" / "api" / "schemas" / "staged.py").unlink()  # only the index has it now
    assert evidence(capsys) == []


def test_ev102_a_file_claimed_modified_that_no_commit_in_the_window_touched(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Rewrite history: the work's commit is dated a day before the requirements handoff.
    git(
        repo,
        "commit",
        "-q",
        "--amend",
        "--no-edit",
        "--date",
        "2026-11-02T09:00:00Z",
        when="2026-11-02T09:00:00Z",
    )
    found = evidence(capsys)
    assert ("EV102", "02-dev-agent.json", "/files_changed/0/path") in found
    assert {code for code, _, _ in found} == {"EV102"}


def test_ev102_a_handoff_edited_since_its_commit_is_still_judged_up_to_that_commit(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The work and the chain committed together, hours after the dev handoff's own timestamp.
    later = "2026-11-03T14:00:00Z"
    git(repo, "commit", "-q", "--amend", "--no-edit", "--date", later, when=later)
    assert evidence(capsys) == []
    with open(repo / DEV, "a", encoding="utf-8") as handle:
        handle.write("\n")  # edited since: its claims were still written by that commit
    assert evidence(capsys) == []


def test_ev102_an_uncommitted_change_counts_as_the_claimed_change(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    git(
        repo,
        "commit",
        "-q",
        "--amend",
        "--no-edit",
        "--date",
        "2026-11-02T09:00:00Z",
        when="2026-11-02T09:00:00Z",
    )
    for change in json.loads((repo / DEV).read_text())["files_changed"]:
        with open(repo / change["path"], "a", encoding="utf-8") as handle:
            handle.write("# changed\n")
    assert evidence(capsys) == []


def test_ev103_a_file_claimed_deleted_still_there(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(repo, DEV, lambda d: d["files_changed"][5].update(change_type="deleted"))
    assert evidence(capsys) == [("EV103", "02-dev-agent.json", "/files_changed/5/path")]


def test_ev103_a_file_claimed_deleted_and_gone_is_no_finding(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, DEV, lambda d: d["files_changed"][5].update(change_type="deleted"))
    deleted = json.loads((repo / DEV).read_text())["files_changed"][5]["path"]
    git(repo, "rm", "-q", deleted)
    assert evidence(capsys) == []


def test_ev301_a_location_past_the_end_of_its_file(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(repo, REVIEW, lambda d: d["issues"][0].update(location="billing/api/schemas/export.py:431"))
    assert evidence(capsys) == [("EV301", "04-review-agent.json", "/issues/0/location")]


def test_ev301_a_location_in_a_file_that_does_not_exist(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, REVIEW, lambda d: d["issues"][0].update(location="billing/api/nowhere.py (lines 3-9)"))
    assert evidence(capsys) == [("EV301", "04-review-agent.json", "/issues/0/location")]


def test_ev401_a_test_file_claimed_created_that_does_not_exist(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, TEST, lambda d: d["test_files_created"].append("tests/export/test_never_written.py"))
    assert evidence(capsys) == [("EV401", "03-test-agent.json", "/test_files_created/5")]


def test_ev402_more_tests_claimed_than_the_files_define(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, DEV, lambda d: d["unit_tests_written"].update(count=31, passing=31))  # the files hold 30
    assert evidence(capsys) == [("EV402", "02-dev-agent.json", "/unit_tests_written/files/0")]


def test_outside_a_git_repository_one_note_says_why_and_nothing_is_guessed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(repo / ".git")
    edit(repo, DEV, lambda d: d["files_changed"][1].update(path="billing/api/schemas/made_up.py"))
    found = evidence(capsys)
    assert [code for code, _, _ in found] == ["EV001"]  # info: the verdict stays a pass
    assert main(["--evidence"]) == 0


def test_in_a_shallow_clone_a_commit_before_its_history_is_not_called_missing(
    repo: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    git(repo, "commit", "-q", "--allow-empty", "-m", "later", when="2026-11-05T09:00:00Z")
    clone = tmp_path_factory.mktemp("shallow") / "clone"
    git(repo, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    monkeypatch.chdir(clone)
    found = evidence(capsys)
    assert "EV102" not in {code for code, _, _ in found}
    assert ("EV001", "02-dev-agent.json") in {(code, name) for code, name, _ in found}


def test_a_claimed_path_leading_out_of_the_project_is_never_followed(
    repo: Path, capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "notes.py").write_text("x = 1\n")
    (repo / "elsewhere").symlink_to(outside)
    # Each of these, followed, would be judged: a line past the end of a real file.
    edit(repo, REVIEW, lambda d: d["issues"][0].update(location=f"{outside}/notes.py:99"))
    edit(repo, REVIEW, lambda d: d["issues"][1].update(location="elsewhere/notes.py:99"))
    edit(repo, TEST, lambda d: d["bugs_found"][0].update(location=f"../{outside.name}/notes.py:99"))
    assert evidence(capsys) == []


def test_a_claimed_path_with_a_nul_or_a_time_at_the_calendars_end_is_no_crash(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, DEV, lambda d: d["files_changed"][1].update(path="billing/a\u0000b.py"))
    edit(repo, DEV, lambda d: d.update(timestamp="9999-12-31T23:59:59Z"))
    assert main(["--format", "json", "--evidence"]) in (0, 1)
    assert "internal error" not in capsys.readouterr().err


def test_the_api_gives_the_evidence_findings_handoff_lint_gives(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_handoff import api
    from pytest_handoff.pipeline.config import load_settings
    from pytest_handoff.pipeline.registry import default_registry

    edit(repo, DEV, lambda d: d["files_changed"][1].update(path="billing/api/schemas/made_up.py"))
    from_cli = evidence(capsys, DEV)
    settings = load_settings(repo, tables=default_registry())._replace(evidence=True)
    checked = api.check(DEV, root=repo, settings=settings)
    from_api = sorted(
        (f.code, f.path.rsplit("/", 1)[-1], f.pointer) for f in checked if f.code.startswith("EV")
    )
    assert from_api == from_cli == [("EV101", "02-dev-agent.json", "/files_changed/1/path")]


PHASE = ".yolo-planning/phases/05-escalation"
PLAN = [
    {"p": "05", "n": "01", "t": "Escalation", "w": 1, "d": [], "obj": "Route escalations"},
    {"id": "T1", "tp": "auto", "a": "Router", "f": ["src/router.py"], "v": "pytest", "done": "routes"},
]


def summary(commit: str, day: str = "2026-02-18") -> dict[str, Any]:
    return {"p": "05", "n": "01", "t": "Escalation", "s": "complete", "dt": day, "tc": 1, "tt": 1,
            "ch": [commit], "fm": ["src/router.py"], "dv": [], "built": ["router"]}  # fmt: skip


@pytest.fixture
def yolo_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "router.py").write_text("".join(f"line_{n} = {n}\n" for n in range(20)))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_router.py").write_text(
        "def test_up():\n    pass\ndef test_down():\n    pass\n"
    )
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "router", when="2026-02-18T10:00:00Z")
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def write_phase(root: Path, name: str, lines: list[dict[str, Any]]) -> None:
    (root / PHASE).mkdir(parents=True, exist_ok=True)
    (root / PHASE / name).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def head(root: Path) -> str:
    return git(root, "rev-parse", "--short", "HEAD").strip()


def test_a_yolo_summary_naming_its_real_commit_and_files_has_no_evidence_finding(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_phase(yolo_repo, "05-01.plan.jsonl", PLAN)
    write_phase(yolo_repo, "05-01.summary.jsonl", [summary(head(yolo_repo))])
    assert evidence(capsys) == []


def test_ev201_a_yolo_summary_naming_a_commit_that_does_not_exist(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_phase(yolo_repo, "05-01.plan.jsonl", PLAN)
    write_phase(yolo_repo, "05-01.summary.jsonl", [summary("9f3c2ab")])
    assert evidence(capsys) == [("EV201", "05-01.summary.jsonl", "/ch/0")]


def test_ev202_a_yolo_summary_naming_a_commit_made_after_it(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_phase(yolo_repo, "05-01.plan.jsonl", PLAN)
    write_phase(yolo_repo, "05-01.summary.jsonl", [summary(head(yolo_repo), day="2026-02-17")])
    found = evidence(capsys)
    assert ("EV202", "05-01.summary.jsonl", "/ch/0") in found


def test_ev301_a_qa_finding_whose_line_is_past_the_end_of_its_file(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head_line = {
        "r": "PARTIAL",
        "tests": {"ps": 2, "fl": 0},
        "lint": {"err": 0, "warn": 0},
        "dt": "2026-02-18",
    }
    finding = {"f": "src/router.py", "ln": 120, "sev": "minor", "issue": "long", "sug": "split"}
    write_phase(yolo_repo, "qa-code.jsonl", [head_line, finding, {**finding, "ln": 12}])
    assert evidence(capsys) == [("EV301", "qa-code.jsonl", "/f")]


def test_ev401_and_ev402_a_test_plan_naming_a_missing_file_and_more_cases_than_written(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [
        {"id": "T1", "tf": ["tests/test_router.py"], "tc": 3, "red": True, "desc": "routing"},
        {"id": "T2", "tf": ["tests/test_gone.py"], "tc": 1, "red": True, "desc": "gone"},
    ]
    write_phase(yolo_repo, "test-plan.jsonl", entries)
    assert evidence(capsys) == [("EV401", "test-plan.jsonl", "/tf/0"), ("EV402", "test-plan.jsonl", "/tf/0")]


def junit_report(root: Path, failing: tuple[str, ...] = (), passing: int = 40, skipped: int = 1) -> Path:
    cases = [f'<testcase classname="tests.test_export" name="test_{n}"/>' for n in range(passing)]
    cases += [
        f'<testcase classname="tests.test_export" name="{name}"><failure message="x"/></testcase>'
        for name in failing
    ]
    cases += ['<testcase classname="tests.test_export" name="test_skip"><skipped/></testcase>'] * skipped
    path = root / "junit.xml"
    path.write_text(
        f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{"".join(cases)}</testsuite></testsuites>'
    )
    return path


def test_ev501_a_test_handoff_saying_nothing_fails_while_the_junit_report_has_failures(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edit(repo, TEST, lambda d: d["test_summary"].update(total=41, passing=40, failing=0, skipped=1))
    report = junit_report(repo, failing=("test_filename",), passing=39)
    main(["--format", "json", "--evidence-junit", str(report)])
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "EV501"]
    # The test agent reports the whole run; the dev's count is of the tests it wrote, not a run.
    assert [(f["path"].rsplit("/", 1)[-1], f["pointer"]) for f in found] == [
        ("03-test-agent.json", "/test_summary")
    ]
    assert "tests.test_export::test_filename" in found[0]["message"]


def test_ev501_more_passes_claimed_than_the_junit_report_has_is_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = junit_report(repo, failing=("test_filename",), passing=36)  # the handoff says 39 passing
    main(["--format", "json", "--evidence-junit", str(report)])
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"].startswith("EV5")]
    assert [(f["code"], f["pointer"], f["severity"]) for f in found] == [("EV501", "/test_summary", "error")]
    assert "passed 39 (report: 36)" in found[0]["message"]
    assert "tests.test_export::test_filename" in found[0]["message"]


def test_ev502_fewer_passes_claimed_than_the_junit_report_has_is_a_warning(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = junit_report(repo, failing=("test_filename",), passing=41)  # the handoff says 39 passing
    main(["--format", "json", "--evidence-junit", str(report)])
    found = [
        (f["code"], f["pointer"], f["severity"])
        for f in json.loads(capsys.readouterr().out)["findings"]
        if f["code"].startswith("EV5")
    ]
    assert found == [("EV502", "/test_summary", "warning")]


def test_a_test_handoff_that_agrees_with_the_junit_report_has_no_finding(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = junit_report(repo, failing=("test_filename",), passing=39)
    assert evidence(capsys, "--evidence-junit", str(report)) == []


def test_a_junit_report_with_a_document_type_is_refused_once_as_a_note(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = repo / "junit.xml"
    report.write_text('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites/>')
    assert [code for code, _, _ in evidence(capsys, "--evidence-junit", str(report))] == ["EV001"]


def test_a_missing_junit_report_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--evidence-junit", "nowhere.xml"]) == 2
    assert "nowhere.xml" in capsys.readouterr().err


def test_ev501_a_yolo_qa_pass_with_no_failed_test_while_the_junit_report_has_failures(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head_line = {
        "r": "PASS",
        "tests": {"ps": 2, "fl": 0, "sk": 0},
        "lint": {"err": 0, "warn": 0},
        "dt": "2026-02-18",
    }
    write_phase(yolo_repo, "qa-code.jsonl", [head_line])
    report = junit_report(yolo_repo, failing=("test_down",), passing=1, skipped=0)
    found = evidence(capsys, "--evidence-junit", str(report))
    assert found == [("EV501", "qa-code.jsonl", "/r"), ("EV501", "qa-code.jsonl", "/tests")]


def contract_project(root: Path, evidence: str) -> None:
    (root / "schema.json").write_text('{"type": "object"}')
    (root / "pyproject.toml").write_text(
        "[tool.handoff.contracts.work]\n"
        'globs = ["handoffs/*.json"]\n'
        'schema = "schema.json"\n'
        f"evidence = {evidence}\n"
    )


def test_a_user_contract_declares_its_claims_and_they_are_checked(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contract_project(yolo_repo, '{"/files/*" = "path", "/commit" = "commit", "/where" = "location"}')
    (yolo_repo / "handoffs").mkdir()
    handoff = {
        "files": ["src/router.py", "src/imagined.py"],
        "commit": "abcdef1",
        "where": "src/router.py:99",
    }
    (yolo_repo / "handoffs" / "h.json").write_text(json.dumps(handoff))
    assert evidence(capsys) == [
        ("EV101", "h.json", "/files/1"),
        ("EV201", "h.json", "/commit"),
        ("EV301", "h.json", "/where"),
    ]


def test_a_user_contract_naming_an_unknown_kind_of_claim_is_a_configuration_error(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    contract_project(yolo_repo, '{"/files/*" = "file"}')
    assert main(["--evidence"]) == 2
    error = capsys.readouterr().err
    assert "'evidence'" in error
    assert "pyproject.toml" in error


CRAIK_RECORD = Path(__file__).parent / "fixtures" / "craik" / "clean" / "handoff_invoice_export.json"


@pytest.fixture
def craik_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "ledger").mkdir()
    (tmp_path / "ledger" / "export.py").write_text("def export():\n    return []\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_export.py").write_text(
        "class TestRows:\n    def test_one_row_per_item(self):\n        pass\n"
    )
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "export", when="2026-03-02T10:00:00Z")
    (tmp_path / ".craik").mkdir()
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def craik_record(root: Path, tests_run: list[str]) -> None:
    data = json.loads(CRAIK_RECORD.read_text())
    data["tests_run"] = tests_run
    (root / ".craik" / "handoff_invoice_export.json").write_text(json.dumps(data, indent=2))


def test_ev403_a_craik_record_naming_a_test_its_file_does_not_define(
    craik_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    craik_record(craik_repo, [
        "pytest tests/test_export.py::TestRows::test_one_row_per_item[march] passed",
        "pytest tests/test_export.py::test_totals_match_the_ledger passed",
        "pytest tests/test_gone.py::test_anything passed",
    ])  # fmt: skip
    found = [(code, pointer) for code, _, pointer in evidence(capsys)]
    assert found == [("EV403", "/tests_run/1"), ("EV403", "/tests_run/2")]


def test_ev403_named_tests_that_exist_are_no_finding(
    craik_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    craik_record(craik_repo, ["pytest tests/test_export.py::TestRows::test_one_row_per_item -q: 1 passed"])
    assert evidence(capsys) == []


def test_ev301_a_trinity_handoff_citing_a_line_past_the_end_of_its_file(yolo_repo: Path) -> None:
    from pytest_handoff.values.settings import Settings
    from tests.trinity_helpers import body, check

    name = "developer-workspace/handoff/developer-2026-04-02T10_00_00.000Z.json"
    context = "export fails: see src/router.py:7 and src/router.py:400"
    found = check({name: body(context=context)}, Settings(evidence=True), root=yolo_repo)
    assert [(f.code, f.pointer) for f in found if f.code.startswith("EV")] == [("EV301", "/context")]
    assert "src/router.py:400" in next(f.message for f in found if f.code == "EV301")


def test_a_junit_report_declaring_a_document_type_in_utf16_is_refused_too(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = repo / "junit.xml"
    text = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites/>'
    report.write_bytes(text.encode("utf-16"))
    assert [code for code, _, _ in evidence(capsys, "--evidence-junit", str(report))] == ["EV001"]


def test_the_evidence_pages_example_is_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "router.py").write_text('def route():\n    return "up"\n')
    (tmp_path / "tests" / "test_router.py").write_text("def test_up():\n    pass\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "router", when="2026-02-18T10:00:00Z")
    phase = tmp_path / ".yolo-planning" / "phases" / "05-escalation"
    phase.mkdir(parents=True)
    lines = {
        "05-01.plan.jsonl": [
            {"p": "05", "n": "01", "t": "Escalation", "w": 1, "d": [], "obj": "Route escalations upward"},
            {"id": "T1", "tp": "auto", "a": "Router", "f": ["src/router.py", "src/escalate.py"], "v": "pytest",
             "done": "routes upward"},
        ],
        "05-01.summary.jsonl": [
            {"p": "05", "n": "01", "t": "Escalation", "s": "complete", "dt": "2026-02-18", "tc": 1, "tt": 1,
             "ch": ["9f3c2ab"], "fm": ["src/router.py", "src/escalate.py"], "dv": [], "built": ["router"]},
        ],
        "qa-code.jsonl": [
            {"r": "PASS", "tests": {"ps": 2, "fl": 0, "sk": 0}, "lint": {"err": 0, "warn": 0}, "dt": "2026-02-18"},
        ],
    }  # fmt: skip
    for name, objects in lines.items():
        (phase / name).write_text("".join(json.dumps(o) + "\n" for o in objects))
    (tmp_path / "junit.xml").write_text(
        '<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="2">'
        '<testcase classname="tests.test_router" name="test_up"/>'
        '<testcase classname="tests.test_router" name="test_escalates"><failure message="x"/></testcase>'
        "</testsuite></testsuites>"
    )
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR", "COLUMNS"):
        monkeypatch.delenv(variable, raising=False)
    assert main(["--evidence-junit", "junit.xml", "."]) == 1
    printed = capsys.readouterr().out.rstrip()
    page = (Path(__file__).parents[1] / "docs" / "evidence.md").read_text(encoding="utf-8")
    start = page.index("$ handoff-lint --evidence-junit junit.xml .\n") + len(
        "$ handoff-lint --evidence-junit junit.xml .\n"
    )
    assert page[start : page.index("\n```", start)] == printed


def test_ev201_a_commit_no_branch_reaches_any_more_but_that_exists_is_no_finding(
    yolo_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = head(yolo_repo)
    git(
        yolo_repo, "commit", "-q", "--amend", "-m", "rewritten", when="2026-02-18T10:00:00Z"
    )  # first is unreachable
    write_phase(yolo_repo, "05-01.plan.jsonl", PLAN)
    write_phase(yolo_repo, "05-01.summary.jsonl", [summary(first)])
    assert evidence(capsys) == []


def test_the_readmes_evidence_excerpt_is_part_of_the_evidence_pages_real_output() -> None:
    # The page's example is compared with the command's output above; the README quotes it.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    excerpt = readme.split("<!-- evidence:start -->\n```\n", 1)[1].split("```\n<!-- evidence:end -->", 1)[0]
    page = (REPO / "docs" / "evidence.md").read_text(encoding="utf-8")
    lines = [line for line in excerpt.splitlines() if line]
    assert len(lines) == 4
    assert all(line in page.splitlines() for line in lines)
