"""Same verdict everywhere: ``pytest --handoffs`` and ``handoff-lint`` see the same groups and findings.

Every format's fixture trees, with groups nested two folders deep and a file named inside a
nested group, go through ``pytest --handoffs --junitxml`` and ``handoff-lint --format json``:
the (code, place) pairs and the pass/fail of each group must be the same.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from tests.conftest import EXAMPLES, FIXTURES
from tests.craik_helpers import FIXTURES as CRAIK_FIXTURES
from tests.craik_helpers import copy_as_exports
from tests.ralph_helpers import make_session
from tests.trinity_helpers import trinity_workspaces
from tests.yolo_helpers import fixture_project

pytestmark = pytest.mark.slow  # end to end: whole pytest sessions, pre-commit or a server process

CONTRACTS_PROJECT = Path(__file__).parent / "fixtures" / "contracts" / "project"

#: ``location: CODE rule pointer: message``, as a finding's JUnit property reads.
_PROPERTY = re.compile(r"^(?P<location>.+?): (?P<code>[A-Z]+[0-9]*) ")

#: The (code, place) of every finding, and (groups, failing groups).
Verdict = tuple[set[tuple[str, str]], tuple[int, int]]


def neuralrelay_tree(root: Path) -> None:
    shutil.copytree(
        EXAMPLES / "neuralrelay" / "broken" / ".neuralrelay", root / ".neuralrelay", dirs_exist_ok=True
    )
    shutil.copytree(
        EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay", root / ".neuralrelay", dirs_exist_ok=True
    )
    shutil.copytree(FIXTURES / "20260512-140000", root / ".neuralrelay" / "handoffs" / "20260512-140000")


def craik_tree(root: Path) -> None:
    """Exports at three depths: a clean folder, a broken one inside it, and another inside that."""
    copy_as_exports(CRAIK_FIXTURES / "clean", root / ".craik" / "exports")
    copy_as_exports(CRAIK_FIXTURES / "broken", root / ".craik" / "exports" / "bad")
    copy_as_exports(CRAIK_FIXTURES / "broken", root / ".craik" / "exports" / "bad" / "older")


def contracts_tree(root: Path) -> None:
    """A per-folder contract with review folders at three depths."""
    shutil.copytree(CONTRACTS_PROJECT, root, dirs_exist_ok=True)
    sprint = root / "reviews" / "sprint-1"
    for target in (root / "reviews", sprint / "hotfix"):
        target.mkdir(parents=True, exist_ok=True)
        for source in sprint.glob("*.yaml"):
            shutil.copyfile(source, target / source.name)
    report = sprint / "hotfix" / "02-report.yaml"
    report.write_text(report.read_text(encoding="utf-8").replace("passed: ", "passed: 1"), encoding="utf-8")


def ralph_tree(root: Path) -> None:
    make_session(root, "broken")


def yolo_tree(root: Path) -> None:
    fixture_project("broken", root)


def trinity_tree(root: Path) -> None:
    trinity_workspaces("studio", root / "studio")
    trinity_workspaces("broken", root / "broken")


def notes_tree(root: Path) -> None:
    """A per-file contract: each note a group of its own, in two folders."""
    (root / "schema.json").write_text(
        '{"type": "object", "required": ["text"], "additionalProperties": false, '
        '"properties": {"text": {"type": "string"}}}',
        encoding="utf-8",
    )
    for folder, name, body in (
        ("notes", "a.json", "{}"),
        ("notes", "c.json", '{"text": "ok"}'),
        ("more", "b.json", "{}"),
    ):
        (root / folder).mkdir(exist_ok=True)
        (root / folder / name).write_text(body, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.handoff.contracts.note]\nglobs = ["notes/*.json", "more/*.json"]\nschema = "schema.json"\n',
        encoding="utf-8",
    )


def configured_store_tree(root: Path) -> None:
    """A Craik store the configuration names, where no default glob looks."""
    from tests.test_craik_end_to_end import broken_store

    broken_store(root / "data" / "state.sqlite3")
    (root / "pyproject.toml").write_text(
        '[tool.handoff.craik]\nstores = ["data/state.sqlite3"]\n', encoding="utf-8"
    )


TREES: dict[str, tuple[Callable[[Path], None], str | None]] = {
    # format: (how to build the tree, a file to name inside a nested group)
    "neuralrelay": (neuralrelay_tree, ".neuralrelay/handoffs/20261104-132000/03-test-agent.json"),
    "craik": (craik_tree, ".craik/exports/bad/older/handoff_report_pdf.craik.json"),
    "contracts": (contracts_tree, "reviews/sprint-1/hotfix/02-report.yaml"),
    "ralph": (ralph_tree, None),
    "yolo": (yolo_tree, None),
    "trinity": (trinity_tree, None),
    "notes": (notes_tree, "more/b.json"),
    "configured store": (configured_store_tree, None),
}


def lint_verdict(root: Path, args: list[str], capsys: pytest.CaptureFixture[str]) -> Verdict:
    capsys.readouterr()
    main(["--format", "json", *args])
    output = capsys.readouterr()
    assert output.out, output.err
    report = json.loads(output.out)
    places = {(f["code"], f["location"]) for f in report["findings"]}
    failing = {f["chain"] for f in report["findings"] if f["severity"] == "error"}
    return places, (report["summary"]["chains"], len(failing))


def pytest_verdict(pytester: pytest.Pytester, args: list[str]) -> Verdict:
    junit = pytester.path / "junit.xml"
    pytester.runpytest("--handoffs", "-p", "no:cacheprovider", f"--junitxml={junit}", *args)
    places: set[tuple[str, str]] = set()
    groups: dict[str, bool] = {}  # by node id, less a named file's [...]
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        group = f"{case.attrib['classname']}::{case.attrib['name'].split('[', 1)[0]}"
        failed = case.find("failure") is not None or case.find("error") is not None
        groups[group] = groups.get(group, False) or failed
        for prop in case.iter("property"):
            if prop.attrib["name"] == "handoff_finding":
                found = _PROPERTY.match(prop.attrib["value"])
                assert found, prop.attrib["value"]
                places.add((found["code"], found["location"]))
    junit.unlink()
    return places, (len(groups), sum(groups.values()))


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    (pytester.path / ".git").mkdir()  # the project root, for both tools
    monkeypatch.chdir(pytester.path)
    return pytester.path


@pytest.mark.parametrize("fmt", sorted(TREES))
def test_pytest_and_handoff_lint_give_the_same_findings_and_verdicts_for_a_whole_tree(
    fmt: str, project: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    build, _ = TREES[fmt]
    build(project)
    from_lint = lint_verdict(project, [], capsys)
    from_pytest = pytest_verdict(pytester, [])
    assert from_lint[0], "the tree is meant to hold findings"
    assert from_pytest == from_lint


@pytest.mark.parametrize("fmt", [name for name, (_, named) in sorted(TREES.items()) if named])
def test_a_file_named_inside_a_nested_group_gets_the_same_findings_from_both(
    fmt: str, project: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    build, named = TREES[fmt]
    assert named is not None
    build(project)
    from_lint = lint_verdict(project, [named], capsys)
    from_pytest = pytest_verdict(pytester, [named])
    assert from_lint[0], "the named file is meant to hold findings"
    assert from_pytest == from_lint


def test_a_folder_and_a_file_named_together_get_the_same_findings_from_both(
    project: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    notes_tree(project)
    from_lint = lint_verdict(project, ["notes", "more/b.json"], capsys)
    from_pytest = pytest_verdict(pytester, ["notes", "more/b.json"])
    assert {place.split(":")[0] for _, place in from_lint[0]} == {"notes/a.json", "more/b.json"}
    assert from_pytest == from_lint


def test_nested_craik_folders_are_groups_of_their_own_in_pytest(
    project: Path, pytester: pytest.Pytester
) -> None:
    craik_tree(project)
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            ".craik/exports::exports",
            ".craik/exports/bad::bad",
            ".craik/exports/bad/older::older",
        ],
        consecutive=False,
    )


def test_a_baseline_and_per_file_ignores_give_the_same_verdict_in_pytest_handoff_lint_the_api_and_the_hook(
    project: Path, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_handoff import api
    from pytest_handoff.agents import claude_hook

    neuralrelay_tree(project)
    everything = lint_verdict(project, [], capsys)
    assert main(["--write-baseline", "known.json"]) == 0
    chain = project / ".neuralrelay" / "handoffs" / "20261104-132000"
    (project / "pyproject.toml").write_text(
        '[tool.handoff]\nbaseline = "known.json"\n'
        'per-file-ignores = {".neuralrelay/handoffs/20260512-140000/*" = ["NR"]}\n',
        encoding="utf-8",
    )
    # A new broken contract in the chain per-file-ignores leaves NR out of: not reported.
    ignored = project / ".neuralrelay" / "handoffs" / "20260512-140000" / "04-review-agent.json"
    review = json.loads(ignored.read_text(encoding="utf-8"))
    review["total_tokens"] = 1
    ignored.write_text(json.dumps(review, indent=2), encoding="utf-8")
    # One new broken contract in a chain the baseline knows, its file's lines all moved.
    test_agent = chain / "03-test-agent.json"
    data = json.loads(test_agent.read_text(encoding="utf-8"))
    data["bugs_found"].append({**data["bugs_found"][0], "description": "a second bug"})
    test_agent.write_text(json.dumps(data, indent=2), encoding="utf-8")

    from_lint = lint_verdict(project, [], capsys)
    assert from_lint[0]
    assert not from_lint[0] & everything[0]  # every old finding left out, the new ones kept
    assert all(place.startswith(str(test_agent.relative_to(project))) for _, place in from_lint[0])
    assert pytest_verdict(pytester, []) == from_lint
    from_api = {(f.code, f.location) for f in api.check_file(test_agent, root=project).findings}
    assert from_api == {(code, place) for code, place in from_lint[0] if place.startswith(".neuralrelay")}
    sent = {
        "hook_event_name": "PostToolUse",
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": {"file_path": str(test_agent), "content": test_agent.read_text(encoding="utf-8")},
    }
    out = io.StringIO()
    claude_hook.main([], io.BytesIO(json.dumps(sent).encode()), out, io.StringIO())
    reason = json.loads(out.getvalue())["reason"]
    assert {code for code, _ in from_api} == set(re.findall(r"\[([A-Z]+\d+) ", reason))
