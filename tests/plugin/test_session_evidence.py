"""EV501 under ``pytest --handoffs``: a handoff of the current tree that says its tests pass is held to
the outcomes of the tests of the same session, with and without xdist; true claims pass, and an
older committed handoff is not held to today's session."""

from __future__ import annotations

import json

import pytest

from tests.agent_loop import git

pytestmark = pytest.mark.slow  # whole pytest sessions in real git repositories

PHASE = ".yolo-planning/phases/01-calc"
QA_PASS = {
    "r": "PASS",
    "tests": {"ps": 2, "fl": 0, "sk": 0},
    "lint": {"err": 0, "warn": 0},
    "dt": "2026-11-28",
}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for variable in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GITHUB_ACTIONS"):
        monkeypatch.delenv(variable, raising=False)
    root = pytester.path
    git(root, "init", "-q")
    pytester.makepyfile(calc="def add(a, b):\n    return a - b\n")
    pytester.makepyfile(
        test_calc="from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n\n"
        "def test_zero():\n    assert add(0, 0) == 0\n"
    )
    lines = {
        "01-01.plan.jsonl": [
            {"p": "01", "n": "01", "t": "Calc", "w": 1, "d": [], "obj": "Add numbers"},
            {"id": "T1", "tp": "auto", "a": "Add", "f": ["calc.py"], "v": "pytest", "done": "adds"},
        ],
        "01-01.summary.jsonl": [
            {"p": "01", "n": "01", "t": "Calc", "s": "complete", "dt": "2026-11-28", "tc": 1, "tt": 1,
             "ch": [], "fm": ["calc.py"], "dv": [], "built": ["add"]},
        ],
    }  # fmt: skip
    for name, objects in lines.items():
        (root / PHASE).mkdir(parents=True, exist_ok=True)
        (root / PHASE / name).write_text("".join(json.dumps(o) + "\n" for o in objects))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the work")
    return pytester


def qa(project: pytest.Pytester, **claims: object) -> None:
    (project.path / PHASE / "qa-code.jsonl").write_text(json.dumps({**QA_PASS, **claims}) + "\n")


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-p", "no:randomly", *args)


def test_ev501_a_pass_verdict_fails_its_item_when_a_test_of_the_session_failed(
    project: pytest.Pytester,
) -> None:
    qa(project)
    result = run(project, "-v")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*test_calc.py::test_add FAILED*",
            "*test_calc.py::test_zero PASSED*",
            "*phases/01-calc FAILED*",  # the handoff item runs last
            "*qa-code.jsonl:1:7: EV501 test-claim-contradicts-run [[]error[]] at /r",
            "*says PASS, but this pytest session has 1 failing test(s): test_calc.py::test_add",
            "*qa-code.jsonl:1:24: EV501 test-claim-contradicts-run [[]error[]] at /tests",
        ]
    )


def test_ev501_under_xdist_the_controller_reports_it_on_the_handoff_item(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    qa(project)
    result = run(project, "-n", "2")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of .yolo-planning/phases/01-calc::phases/01-calc*",
            "*says PASS, but this pytest session has 1 failing test(s): test_calc.py::test_add",
            "*1 failed, 2 passed, 1 error*",
        ]
    )


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_pass_verdict_that_the_session_bears_out_passes(
    project: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    if workers:
        pytest.importorskip("xdist")
    (project.path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    qa(project)
    result = run(project, *workers)
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(passed=3)


def test_a_handoff_that_reports_the_failure_is_not_contradicted(project: pytest.Pytester) -> None:
    qa(project, r="FAIL", tests={"ps": 1, "fl": 1, "sk": 0})
    result = run(project)
    result.assert_outcomes(passed=2, failed=1)  # test_add only


def test_an_older_committed_handoff_is_not_held_to_todays_session(project: pytest.Pytester) -> None:
    qa(project)
    git(project.path, "add", "-A")
    git(project.path, "commit", "-q", "-m", "qa")
    git(project.path, "commit", "-q", "--allow-empty", "-m", "later work")
    result = run(project)
    result.assert_outcomes(passed=2, failed=1)  # test_add only


def test_with_no_evidence_the_session_is_not_reconciled(project: pytest.Pytester) -> None:
    qa(project)
    result = run(project, "--handoff-no-evidence")
    result.assert_outcomes(passed=2, failed=1)
