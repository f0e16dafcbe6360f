"""The checks a contract's rules use (UC201-UC205): each fires at the right line and column, in YAML
and JSON documents, under the user's rule id, and stays quiet on a document that keeps the rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_handoff.pipeline.config import load_settings
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.profiles.contracts.checks import parse_timestamp
from pytest_handoff.values.findings import Finding

PROJECT = Path(__file__).parent / "fixtures" / "contracts" / "project"
PLAN = "reviews/sprint-1/01-plan.yaml"
REPORT = "reviews/sprint-1/02-report.yaml"
NOTE = "notes/release.json"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(PROJECT, tmp_path, dirs_exist_ok=True)
    return tmp_path


def lint(root: Path, *named: str) -> list[Finding]:
    _, results = check_paths(
        [root / name for name in named],
        root,
        load_settings(root, tables=default_registry()),
        registry=default_registry(),
    )
    return [finding for result in results for finding in result.findings]


def places(findings: list[Finding], code: str) -> list[tuple[str, int, int, str]]:
    return [(f.path, f.line, f.column, f.rule) for f in findings if f.code == code]


def write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text, encoding="utf-8")


def test_the_fixture_project_keeps_every_contract(project: Path) -> None:
    assert lint(project) == []


# --- UC201 min-distinct-items ---------------------------------------------------------------------


def test_uc201_reports_an_array_with_too_few_distinct_items_under_the_users_rule_id(project: Path) -> None:
    write(
        project,
        PLAN,
        "kind: plan\nsummary: s\ncriteria:\n  - Idle sessions expire\n  - idle  sessions expire.\n"
        "written_at: 2026-03-22T09:00:00Z\n",
    )
    (finding,) = (f for f in lint(project, PLAN) if f.code == "UC201")
    assert (finding.path, finding.line, finding.column, finding.pointer) == (PLAN, 4, 3, "/criteria")
    assert finding.rule == "enough-criteria"
    assert finding.message == "[enough-criteria] /criteria has 1 distinct item(s); at least 2 required"


def test_uc201_reports_a_json_array_at_its_bracket(project: Path) -> None:
    write(project, NOTE, '{\n  "title": "t",\n  "body": "b",\n  "tags": ["x", "X"]\n}\n')
    assert places(lint(project, NOTE), "UC201") == [(NOTE, 4, 11, "distinct-tags")]


def test_uc201_is_quiet_when_enough_items_differ_and_only_applies_to_its_types(project: Path) -> None:
    write(project, NOTE, '{"title": "t", "body": "b", "tags": ["x", "y"]}\n')
    assert places(lint(project, NOTE), "UC201") == []
    # The report has no criteria at all: the rule is for plans only.
    assert places(lint(project, REPORT), "UC201") == []


def test_uc201_compares_items_by_a_field_with_by(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('field = "/tags"', 'field = "/tags"\nby = "/name"'),
        encoding="utf-8",
    )
    schema = project / "schemas" / "note.schema.json"
    schema.write_text(
        schema.read_text(encoding="utf-8").replace('"items": {"type": "string"}', '"items": {}'),
        encoding="utf-8",
    )
    write(
        project, NOTE, '{"title": "t", "body": "b", "tags": [{"name": "a", "n": 1}, {"name": "A", "n": 2}]}\n'
    )
    (finding,) = (f for f in lint(project, NOTE) if f.code == "UC201")
    assert "1 distinct item(s) (compared by /name)" in finding.message
    write(project, NOTE, '{"title": "t", "body": "b", "tags": [{"name": "a"}, {"name": "b"}]}\n')
    assert places(lint(project, NOTE), "UC201") == []


# --- UC202 no-placeholders ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("summary", "column", "shown"),
    [
        ("TODO: describe the change", 10, '"TODO"'),
        ("We will decide tbd", 10, '"tbd"'),
        ("...", 10, '"..."'),
        ("<describe the change>", 10, '"<describe the change>"'),
        ("Lorem ipsum dolor", 10, '"Lorem ipsum"'),
    ],
)
def test_uc202_reports_a_placeholder_where_it_stands(
    project: Path, summary: str, column: int, shown: str
) -> None:
    write(
        project,
        PLAN,
        f'kind: plan\nsummary: "{summary}"\ncriteria: [a, b]\nwritten_at: 2026-03-22T09:00:00Z\n',
    )
    (finding,) = (f for f in lint(project, PLAN) if f.code == "UC202")
    assert (finding.line, finding.column, finding.rule, finding.pointer) == (2, column, "no-tbd", "/summary")
    assert f"placeholder {shown} in /summary" in finding.message


@pytest.mark.parametrize(
    "summary",
    ["Todos are listed in the tracker", "Sessions etc... expire", "A <b>bold</b> claim", "Tabled"],
)
def test_uc202_is_quiet_on_real_content_that_merely_resembles_a_placeholder(
    project: Path, summary: str
) -> None:
    write(
        project,
        PLAN,
        f'kind: plan\nsummary: "{summary}"\ncriteria: [a, b]\nwritten_at: 2026-03-22T09:00:00Z\n',
    )
    assert places(lint(project, PLAN), "UC202") == []


def test_uc202_looks_only_in_the_rules_fields(project: Path) -> None:
    write(project, NOTE, '{"title": "TODO", "body": "Real text", "tags": ["a", "b"]}\n')
    assert places(lint(project, NOTE), "UC202") == []  # real-body reads /body only
    write(project, NOTE, '{"title": "t",\n "body": "TBD", "tags": ["a", "b"]}\n')
    assert places(lint(project, NOTE), "UC202") == [(NOTE, 2, 10, "real-body")]


def test_uc202_reads_strings_below_a_field_and_a_rules_own_placeholder_list(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            'fields = ["/summary", "/criteria"]',
            'fields = ["/summary", "/criteria"]\nplaceholders = ["XXX", "re:^n/?a$"]',
        ),
        encoding="utf-8",
    )
    write(
        project,
        PLAN,
        "kind: plan\nsummary: TODO\ncriteria: [fine, XXX later, N/A]\nwritten_at: 2026-03-22T09:00:00Z\n",
    )
    assert places(lint(project, PLAN), "UC202") == [(PLAN, 3, 18, "no-tbd"), (PLAN, 3, 29, "no-tbd")]


# --- UC203 covered-by -----------------------------------------------------------------------------

REPORT_ONE_RESULT = """\
kind: report
summary: One criterion checked
results:
  - criterion: An idle session expires after 30 minutes
    outcome: passed
totals: {run: 1, passed: 1, failed: 0}
written_at: 2026-03-22T15:30:00Z
"""


def test_uc203_reports_an_item_no_other_document_covers_pointing_at_the_covering_field(project: Path) -> None:
    write(project, REPORT, REPORT_ONE_RESULT)
    (finding,) = (f for f in lint(project) if f.code == "UC203")
    assert (finding.path, finding.line, finding.column, finding.rule) == (
        PLAN,
        5,
        5,
        "every-criterion-tested",
    )
    assert finding.pointer == "/criteria/1"
    assert (
        '"Activity keeps a session alive" at /criteria/1 is not covered by /results/*/criterion'
        in finding.message
    )
    assert finding.related == ((REPORT, 4, 16, f"covering field in {REPORT}"),)


def test_uc203_matches_normalised_text_by_default_and_exact_text_when_asked(project: Path) -> None:
    # The fixture's report restates the first criterion in lower case with a full stop.
    assert places(lint(project), "UC203") == []
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            'in-types = ["report"]', 'in-types = ["report"]\nmatch = "exact"'
        ),
        encoding="utf-8",
    )
    assert places(lint(project), "UC203") == [(PLAN, 4, 5, "every-criterion-tested")]


def test_uc203_says_when_a_group_has_no_document_to_cover_the_items(project: Path) -> None:
    (project / REPORT).unlink()
    (finding,) = (f for f in lint(project) if f.code == "UC203")
    assert (finding.line, finding.column) == (4, 5)
    assert "no other schema-valid document of type report in its group" in finding.message


def test_uc203_groups_per_folder_so_another_folders_report_does_not_count(project: Path) -> None:
    (project / "reviews" / "sprint-2").mkdir()
    shutil.move(project / REPORT, project / "reviews" / "sprint-2" / "02-report.yaml")
    assert places(lint(project), "UC203") == [(PLAN, 4, 5, "every-criterion-tested")]


def test_uc203_covers_across_the_documents_of_one_multi_document_file(project: Path) -> None:
    plan = (project / PLAN).read_text(encoding="utf-8")
    report = (project / REPORT).read_text(encoding="utf-8")
    (project / REPORT).unlink()
    write(project, PLAN, plan + "---\n" + report)
    assert lint(project) == []
    write(project, PLAN, plan + "---\n" + REPORT_ONE_RESULT)
    assert places(lint(project), "UC203") == [(PLAN, 5, 5, "every-criterion-tested")]


# --- UC204 count-equals-sum -----------------------------------------------------------------------


def test_uc204_reports_a_count_that_is_not_the_sum_of_its_parts(project: Path) -> None:
    text = (
        (project / REPORT)
        .read_text(encoding="utf-8")
        .replace("{run: 2, passed: 2, failed: 0}", "{run: 3, passed: 2, failed: 0}")
    )
    write(project, REPORT, text)
    (finding,) = (f for f in lint(project) if f.code == "UC204")
    assert (finding.path, finding.line, finding.column, finding.rule) == (REPORT, 8, 15, "totals-add-up")
    assert finding.message == "[totals-add-up] /totals/run is 3, but /totals/passed + /totals/failed = 2"


def test_uc204_counts_an_array_by_its_length(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            'sum = ["/totals/passed", "/totals/failed"]', 'sum = ["/results"]'
        ),
        encoding="utf-8",
    )
    assert places(lint(project), "UC204") == []
    write(project, REPORT, REPORT_ONE_RESULT.replace("run: 1", "run: 2"))
    assert places(lint(project), "UC204") == [(REPORT, 6, 15, "totals-add-up")]


# --- UC205 timestamps-forward ---------------------------------------------------------------------


def test_uc205_reports_a_timestamp_earlier_than_the_one_before_it_in_the_group(project: Path) -> None:
    text = (
        (project / REPORT)
        .read_text(encoding="utf-8")
        .replace("2026-03-22T15:30:00Z", "2026-03-22T10:30:00+02:00")
    )
    write(project, REPORT, text)
    (finding,) = (f for f in lint(project) if f.code == "UC205")
    assert (finding.path, finding.line, finding.column, finding.rule) == (REPORT, 9, 13, "in-order")
    assert "is earlier than 2026-03-22T09:00:00Z before it" in finding.message
    assert finding.related == ((PLAN, 6, 13, "the timestamp before it"),)


def test_uc205_is_quiet_on_equal_timestamps_unless_strict(project: Path) -> None:
    text = (
        (project / REPORT)
        .read_text(encoding="utf-8")
        .replace("2026-03-22T15:30:00Z", "2026-03-22T10:00:00+01:00")
    )
    write(project, REPORT, text)
    assert places(lint(project), "UC205") == []
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            'field = "/written_at"', 'field = "/written_at"\nstrict = true'
        ),
        encoding="utf-8",
    )
    (finding,) = (f for f in lint(project) if f.code == "UC205")
    assert "is the same as" in finding.message


def test_uc205_follows_the_documents_of_a_multi_document_file_in_order(project: Path) -> None:
    plan = (project / PLAN).read_text(encoding="utf-8")
    report = (project / REPORT).read_text(encoding="utf-8")
    (project / REPORT).unlink()
    write(project, PLAN, report + "---\n" + plan)
    assert places(lint(project), "UC205") == [(PLAN, 16, 13, "in-order")]


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-03-22T09:00:00Z", "2026-03-22T09:00:00+00:00"),
        ("2026-03-22 09:00:00+01:00", "2026-03-22T09:00:00+01:00"),
        ("2026-03-22", "2026-03-22T00:00:00+00:00"),
        ("2026-03-22T09:00:00", "2026-03-22T09:00:00+00:00"),
    ],
)
def test_timestamps_read_as_rfc3339_with_naive_ones_taken_as_utc(text: str, moment: str) -> None:
    parsed = parse_timestamp(text)
    assert parsed is not None
    assert parsed.isoformat() == moment


@pytest.mark.parametrize("text", ["yesterday", "", 12])
def test_what_is_no_timestamp_reads_as_none(text: object) -> None:
    assert parse_timestamp(text) is None


# --- findings and codes ---------------------------------------------------------------------------


def test_ignoring_a_code_switches_off_that_check_in_every_contract(project: Path) -> None:
    write(project, NOTE, '{"title": "t", "body": "TBD", "tags": ["x", "x"]}\n')
    assert {f.code for f in lint(project)} == {"UC201", "UC202"}
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        '[tool.handoff]\nignore = ["UC202"]\n' + pyproject.read_text(encoding="utf-8"), encoding="utf-8"
    )
    assert {f.code for f in lint(project)} == {"UC201"}


def test_uc202_judges_the_well_formed_parts_of_a_schema_invalid_document_and_uc201_not_the_malformed_one(
    project: Path,
) -> None:
    write(project, NOTE, '{"title": "t", "body": "TBD", "tags": "x"}\n')
    findings = lint(project)
    assert [(f.code, f.pointer) for f in findings] == [("UC202", "/body"), ("HS001", "/tags")]


def test_hs002_reports_a_discriminator_value_that_names_no_schema_and_the_closest_that_does(
    project: Path,
) -> None:
    text = (project / PLAN).read_text(encoding="utf-8").replace("kind: plan", "kind: plam")
    write(project, PLAN, text)
    (finding,) = (f for f in lint(project) if f.code == "HS002")
    assert (finding.path, finding.line, finding.column) == (PLAN, 1, 7)
    assert finding.message == (
        "/kind is 'plam', which names no schema; expected one of plan, report; did you mean 'plan'?"
    )


def test_a_wildcard_field_reaches_every_item_in_document_order_in_linear_time() -> None:
    from pytest_handoff.places.pointers import resolve

    assert list(resolve({"a": [{"b": 1}, {"c": 2}, {"b": 3}]}, "/a/*/b")) == [("/a/0/b", 1), ("/a/2/b", 3)]
    assert list(resolve({"m": {"x": [1], "y~/": [2]}}, "/m/*/0")) == [("/m/x/0", 1), ("/m/y~0~1/0", 2)]
    many = {"a": [{"b": index} for index in range(100_000)]}
    found = list(resolve(many, "/a/*/b"))  # a quadratic walk would take minutes here
    assert (len(found), found[-1]) == (100_000, ("/a/99999/b", 99_999))


JSON_CONTRACT = """\
[tool.handoff.contracts.log]
globs = ["logs/*.json"]
schema = "schemas/log.schema.json"
group = "per-folder"
[tool.handoff.contracts.log.rules.forward]
check = "timestamps-forward"
field = "/events/*/at"
[tool.handoff.contracts.log.rules.answered]
check = "covered-by"
field = "/asks"
covered-by = "/answers/*/to"
[tool.handoff.contracts.log.rules.counted]
check = "count-equals-sum"
count = "/count"
sum = ["/events"]
"""


def test_the_group_checks_place_their_findings_in_json_documents_too(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(JSON_CONTRACT, encoding="utf-8")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "log.schema.json").write_text('{"type": "object"}', encoding="utf-8")
    (tmp_path / "logs").mkdir()
    write(
        tmp_path,
        "logs/01.json",
        '{\n  "asks": ["why", "how"],\n  "count": 2,\n  "events": [{"at": "2026-03-22T10:00:00Z"}, {"at": "2026-03-22T11:00:00Z"}]\n}\n',
    )
    write(
        tmp_path,
        "logs/02.json",
        '{\n  "answers": [{"to": "Why"}],\n  "count": 1,\n  "events": [\n    {"at": "2026-03-22T09:59:59Z"}\n  ]\n}\n',
    )
    found = sorted((f.code, f.path, f.line, f.column, f.rule) for f in lint(tmp_path))
    assert found == [
        ("UC203", "logs/01.json", 2, 19, "answered"),  # "how" is answered nowhere; "why" is, as "Why"
        ("UC205", "logs/02.json", 5, 12, "forward"),
    ]
    write(
        tmp_path,
        "logs/02.json",
        '{"answers": [{"to": "why"}, {"to": "how"}], "count": 3, "events": [{"at": "2026-03-22T12:00:00Z"}]}\n',
    )
    assert sorted((f.code, f.path, f.line, f.column) for f in lint(tmp_path)) == [
        ("UC204", "logs/02.json", 1, 54)
    ]


def test_uc204_speaks_in_the_run_that_reports_a_schema_error_of_the_same_file(project: Path) -> None:
    text = (project / REPORT).read_text(encoding="utf-8")
    text = text.replace("{run: 2, passed: 2, failed: 0}", "{run: 3, passed: 2, failed: 0}")
    write(project, REPORT, text.replace("summary: Both criteria hold", "summary: 42"))
    found = lint(project)
    assert places(found, "UC204") == [(REPORT, 8, 15, "totals-add-up")]
    assert [f.pointer for f in found if f.code == "HS001"] == ["/summary"]


def test_uc204_says_nothing_of_a_total_the_schema_found_malformed(project: Path) -> None:
    text = (project / REPORT).read_text(encoding="utf-8")
    write(
        project, REPORT, text.replace("{run: 2, passed: 2, failed: 0}", "{run: many, passed: 2, failed: 0}")
    )
    found = lint(project)
    assert places(found, "UC204") == []
    assert [f.pointer for f in found if f.code == "HS001"] == ["/totals/run"]
