"""The shipped examples: a clean and a broken project of every format, checked from the repository root.

Each broken project's README lists its planted errors in a table (file, line, JSON pointer, rule,
what is wrong); these tests read the tables and hold the real pipeline to them, so a README can
drift from the findings neither way. A clean project has no finding at all, not even info.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.config import load_settings
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.groups import GroupResult
from tests.conftest import EXAMPLES, REPO, module_at

#: One folder per format, named after its profile.
FORMATS = ("contracts", "craik", "gsd", "neuralrelay", "ralph", "trinity", "yolo")
PROJECTS = ("clean", "broken")
TABLE_HEADER = ["File", "Line", "Pointer", "Rule", "What is wrong"]


class Planted(NamedTuple):
    """One error as a broken project's README lists it (file relative to the project)."""

    file: str
    line: int
    pointer: str
    code: str
    name: str

    @property
    def key(self) -> tuple[str, int, str, str]:
        return (self.file, self.line, self.pointer, self.code)


def script(name: str) -> ModuleType:
    """A script of ``scripts/`` as a module."""
    return module_at(REPO / "scripts" / f"{name}.py", f"scripts_{name}")


def _cell(text: str) -> str:
    text = text.strip()
    return "" if text == "—" else text.strip("`")


def planted_errors(fmt: str) -> list[Planted]:
    """The rows of the planted-errors table of ``examples/<fmt>/broken/README.md``."""
    lines = (EXAMPLES / fmt / "broken" / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(
        i for i, line in enumerate(lines) if [c.strip() for c in line.strip("|").split("|")] == TABLE_HEADER
    )
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        file, line_number, pointer, rule = (_cell(cell) for cell in line.strip().strip("|").split("|")[:4])
        code, name = rule.split()
        rows.append(Planted(file, int(line_number or 0), pointer, code, name))
    return rows


def project_of(path: str) -> tuple[str, str, str]:
    """``examples/<format>/<project>/rest`` as (format, project, rest)."""
    parts = path.split("/", 3)
    assert parts[0] == "examples", path
    return parts[1], parts[2], parts[3]


def key_of(finding: Finding) -> tuple[str, int, str, str]:
    """A finding as the README tables name it: file in its project (``#kind/id`` for a store row)."""
    file = project_of(finding.path)[2] + (f"#{finding.logical}" if finding.logical else "")
    return (file, finding.line, finding.pointer, finding.code)


@pytest.fixture(scope="module")
def results() -> list[GroupResult]:
    """``examples/`` checked from the repository root, with the repository's configuration, as the README runs it."""
    settings = load_settings(REPO, tables=default_registry())
    return check_paths([EXAMPLES], REPO, settings, jobs=1, registry=default_registry())[1]


def findings_of(results: list[GroupResult], fmt: str, project: str) -> list[Finding]:
    return [f for r in results for f in r.findings if project_of(f.path)[:2] == (fmt, project)]


def test_the_examples_hold_a_clean_and_a_broken_project_of_every_format(results: list[GroupResult]) -> None:
    assert sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()) == list(FORMATS)
    checked = {(r.ref.profile, *project_of(r.ref.paths[0].relative_to(REPO).as_posix())[:2]) for r in results}
    # Each project is checked by its own format's profile, the user contract's too: its
    # configuration is found from the repository root.
    assert {(profile, project) for profile, fmt, project in checked if profile == fmt} == {
        (fmt, project) for fmt in FORMATS for project in PROJECTS
    }
    assert {profile for profile, fmt, _ in checked if profile != fmt} == set()


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_clean_example_has_no_finding_at_all(results: list[GroupResult], fmt: str) -> None:
    assert findings_of(results, fmt, "clean") == []


@pytest.mark.parametrize(
    "fmt",
    [
        pytest.param(fmt, id="-".join([fmt, *sorted({p.code for p in planted_errors(fmt)})]))
        for fmt in FORMATS
    ],
)
def test_a_broken_example_reports_exactly_the_errors_its_readme_lists(
    results: list[GroupResult], fmt: str
) -> None:
    found = findings_of(results, fmt, "broken")
    assert sorted(key_of(f) for f in found) == sorted(p.key for p in planted_errors(fmt))
    assert {f.severity for f in found} == {Severity.ERROR}


def test_the_readme_tables_name_each_planted_rule_by_its_code_and_name() -> None:
    registry = default_registry()
    for fmt in FORMATS:
        planted = planted_errors(fmt)
        assert len(planted) >= 4, fmt
        for row in planted:
            rule = registry.rule(row.code)
            assert rule is not None, row
            assert (row.code, row.name) == (rule.code, rule.name)
            assert (EXAMPLES / fmt / "broken" / row.file.partition("#")[0]).is_file(), row


def test_the_readmes_count_the_planted_errors_of_each_format_and_in_all() -> None:
    overview = (EXAMPLES / "README.md").read_text(encoding="utf-8").splitlines()
    for fmt in FORMATS:
        (row,) = [line for line in overview if f"]({fmt}/broken/README.md)" in line]
        assert f"{len(planted_errors(fmt))} errors" in row, fmt
    total = sum(len(planted_errors(fmt)) for fmt in FORMATS)
    assert f"the broken ones fail with {total} errors" in " ".join(
        (REPO / "README.md").read_text(encoding="utf-8").split()
    )


def test_handoff_lint_on_the_examples_reports_the_planted_errors_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    assert main(["examples/", "--format", "json"]) == 1
    printed = json.loads(capsys.readouterr().out)["findings"]
    found = [
        (*project_of(f["path"])[:2], project_of(f["path"])[2] + (f"#{f['logical']}" if f["logical"] else ""),
         f["line"], f["pointer"], f["code"])
        for f in printed
    ]  # fmt: skip
    planted = [(fmt, "broken", *p.key) for fmt in FORMATS for p in planted_errors(fmt)]
    assert sorted(found) == sorted(planted)


@pytest.mark.slow
def test_the_examples_need_no_optional_extra_to_be_checked() -> None:
    # The README installs with `pip install .`: without google-re2 (the re2 extra) a contract
    # schema's `pattern` would stop the run.
    code = (
        "import sys\n"
        "sys.modules['re2'] = None  # import re2 raises ImportError\n"
        "from pytest_handoff.cli import main\n"
        "sys.exit(main(['examples/', '--format', 'json']))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False)
    assert (run.returncode, run.stderr) == (1, "")
    assert json.loads(run.stdout)["summary"]["errors"] == sum(len(planted_errors(fmt)) for fmt in FORMATS)


def test_the_committed_craik_stores_hold_what_the_script_writes(tmp_path: Path) -> None:
    stores = script("craik_example_stores")
    assert set(stores.STORES) == set(PROJECTS)
    for project, rows in stores.STORES.items():
        expected = tmp_path / f"{project}.sqlite3"
        stores.build(expected, rows)
        assert stores.contents(EXAMPLES / "craik" / project / stores.STORE) == stores.contents(expected), (
            project
        )


# --- the README's first command, run as a user runs it --------------------------------------------

#: A finding as the pytest report prints it: location, code, rule (a user rule's own id), severity, pointer.
FINDING_LINE = re.compile(
    r"^  (?P<location>examples/\S+?): (?P<code>[A-Z]{2}\d{3}) (?P<name>\S+) \[(?P<severity>\w+)\](?: at (?P<pointer>\S+))?$"
)


@pytest.fixture(scope="module")
def first_run() -> subprocess.CompletedProcess[str]:
    """``pytest --handoffs examples/`` from the repository root, as ``scripts/readme_excerpt.py`` runs it."""
    run: subprocess.CompletedProcess[str] = script("readme_excerpt").run_first_command()
    return run


def printed_location(fmt: str, planted: Planted) -> str:
    """Where the report prints a planted error, without its column."""
    path = f"examples/{fmt}/broken/{planted.file}"
    if "#" in planted.file:
        return path + planted.pointer
    return f"{path}:{planted.line}" if planted.line else path


@pytest.mark.slow
def test_the_readme_command_exits_1_and_prints_exactly_the_planted_errors(
    first_run: subprocess.CompletedProcess[str],
) -> None:
    assert first_run.returncode == 1, first_run.stderr
    printed = [m for m in map(FINDING_LINE.match, first_run.stdout.splitlines()) if m]
    found = Counter((re.sub(r":\d+$", "", m["location"]), m["code"]) for m in printed)
    planted = Counter((printed_location(fmt, p), p.code) for fmt in FORMATS for p in planted_errors(fmt))
    assert found == planted
    assert {m["severity"] for m in printed} == {"error"}
    outcomes: dict[tuple[str, str], set[str]] = {}
    for item, outcome in re.findall(r"^(examples/\S+) ([.F])\s+\[", first_run.stdout, flags=re.MULTILINE):
        outcomes.setdefault(project_of(item)[:2], set()).add(outcome)
    assert set(outcomes) == {(fmt, project) for fmt in FORMATS for project in PROJECTS}
    assert all(outcomes[(fmt, "clean")] == {"."} and "F" in outcomes[(fmt, "broken")] for fmt in FORMATS)
    assert "warning" not in first_run.stdout.splitlines()[-1]


@pytest.mark.slow
def test_the_readme_shows_the_first_command_as_it_runs(first_run: subprocess.CompletedProcess[str]) -> None:
    excerpt = script("readme_excerpt")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert f"&& {' '.join(excerpt.COMMAND)}\n```" in readme  # the command the Quick start gives
    assert excerpt.block_of(readme) == excerpt.rendered(first_run.stdout), (
        "README.md's first-run block differs from the run: python scripts/readme_excerpt.py rewrites it"
    )
