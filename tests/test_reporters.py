"""Tests for the JSON, SARIF, GitHub Actions and Markdown reporters.

Every format is run on the same hand-built findings: an error with a position and a
related location, a warning spanning lines, a whole-file finding (line 0), a path with
spaces, commas, colons and a non-ASCII letter, and a message with line breaks, a pipe
and a ``<script>`` tag.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.reporters import REPORTERS, ReportContext, Reporter, Summary, reporter_class
from pytest_handoff.reporters.github import GithubReporter
from pytest_handoff.reporters.json_format import JsonReporter
from pytest_handoff.reporters.markdown import MarkdownReporter, markdown_text
from pytest_handoff.reporters.sarif import SarifReporter, fingerprint
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.groups import GroupRef, GroupResult

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
SARIF_SCHEMA = CORPUS / "sarif" / "sarif-schema-2.1.0.json"

ODD_DIR = "handoffs/chain c, v2: é"
ODD_PATH = f"{ODD_DIR}/03-test agent.json"
ODD_URI = "handoffs/chain%20c%2C%20v2%3A%20%C3%A9/03-test%20agent.json"
HOSTILE_MESSAGE = "expected dev_to_test\n| injected | row |\r\n<script>alert(1)</script> *bold* [x](y)"

DUPLICATE = Finding(
    path="handoffs/chain-a/02-dev-agent.json",
    line=3,
    column=5,
    end_line=3,
    end_column=13,
    code="HF003",
    rule="duplicate-key",
    severity=Severity.ERROR,
    chain="chain-a",
    message='key "verdict" is defined twice',
    pointer="/verdict",
    related=(("handoffs/chain-a/02-dev-agent.json", 2, 5, "first definition"),),
)
INCOMPLETE = Finding(
    path="handoffs/chain-a/01-requirements.json",
    line=7,
    column=3,
    end_line=9,
    end_column=4,
    code="NR106",
    rule="incomplete-chain",
    severity=Severity.WARNING,
    chain="chain-a",
    message="chain has no review_final handoff",
    pointer="",
)
TOO_LARGE = Finding(
    path="handoffs/chain-b/big.json",
    line=0,
    column=0,
    code="HF006",
    rule="file-too-large",
    severity=Severity.ERROR,
    chain="chain-b",
    message="file is 52 MB, the limit is 1 MB",
)
HOSTILE = Finding(
    path=ODD_PATH,
    line=2,
    column=15,
    end_line=2,
    end_column=30,
    code="NR102",
    rule="agent-type-mismatch",
    severity=Severity.ERROR,
    chain="chain c, v2: é",
    message=HOSTILE_MESSAGE,
    pointer="/handoff_type",
)
NOTE = Finding(
    path=ODD_PATH,
    line=4,
    column=1,
    end_line=4,
    end_column=1,
    code="USER",
    rule="user-invariant",
    severity=Severity.INFO,
    chain="chain c, v2: é",
    message="looks fine, but check the owner",
)
ALL_FINDINGS = (DUPLICATE, INCOMPLETE, TOO_LARGE, HOSTILE, NOTE)


def chain(group_id: str, *findings: Finding, files: int = 2) -> GroupResult:
    paths = tuple(Path(f"handoffs/{group_id}/{n:02d}.json") for n in range(1, files + 1))
    ref = GroupRef("neuralrelay", group_id, Path(f"handoffs/{group_id}"), paths)
    return GroupResult(ref=ref, findings=tuple(findings), notes=())


@pytest.fixture
def results() -> list[GroupResult]:
    return [
        chain("chain-a", DUPLICATE, INCOMPLETE),
        chain("chain-b", TOO_LARGE, files=1),
        chain("chain c, v2: é", HOSTILE, NOTE),
        chain("chain-d"),
    ]


@pytest.fixture
def context(tmp_path: Path) -> ReportContext:
    return ReportContext(root=tmp_path / "repo", tool_version="0.1.0", summary_hint="the job summary")


def run(reporter: Reporter, results: list[GroupResult]) -> str:
    summary = Summary()
    reporter.start()
    for result in results:
        reporter.handle(result)
        summary.add(result)
    reporter.finish(summary)
    assert isinstance(reporter.stream, io.StringIO)
    return reporter.stream.getvalue()


def render(cls: type[Reporter], results: list[GroupResult], context: ReportContext) -> str:
    return run(cls(io.StringIO(), context), results)


# --- the table -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("json", JsonReporter),
        ("sarif", SarifReporter),
        ("github", GithubReporter),
        ("markdown", MarkdownReporter),
    ],
)
def test_reporter_class_finds_each_format_by_its_name(name: str, cls: type[Reporter]) -> None:
    assert name in REPORTERS
    assert reporter_class(name) is cls


@pytest.mark.parametrize("cls", [JsonReporter, SarifReporter, GithubReporter, MarkdownReporter])
def test_every_format_mentions_every_finding_of_the_shared_set(
    cls: type[Reporter], results: list[GroupResult], context: ReportContext
) -> None:
    out = render(cls, results, context)
    for finding in ALL_FINDINGS:
        assert finding.code in out


# --- JSON ------------------------------------------------------------------------------------


def test_json_report_lists_every_finding_with_its_position_in_the_order_handled(
    results: list[GroupResult], context: ReportContext
) -> None:
    report = json.loads(render(JsonReporter, results, context))
    assert report["version"] == 1
    assert [f["code"] for f in report["findings"]] == ["HF003", "NR106", "HF006", "NR102", "USER"]
    first = report["findings"][0]
    assert {k: first[k] for k in ("path", "line", "column", "end_line", "end_column")} == {
        "path": "handoffs/chain-a/02-dev-agent.json",
        "line": 3,
        "column": 5,
        "end_line": 3,
        "end_column": 13,
    }
    assert first["rule"] == "duplicate-key"
    assert first["severity"] == "error"
    assert first["pointer"] == "/verdict"
    assert first["chain"] == "chain-a"
    assert first["message"] == 'key "verdict" is defined twice'
    severities = [f["severity"] for f in report["findings"]]
    assert severities == ["error", "warning", "error", "error", "info"]
    required = {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "code",
        "rule",
        "severity",
        "message",
        "pointer",
        "chain",
    }
    assert all(required <= set(f) for f in report["findings"])


def test_json_report_counts_files_chains_errors_and_warnings(
    results: list[GroupResult], context: ReportContext
) -> None:
    report = json.loads(render(JsonReporter, results, context))
    assert report["summary"] == {"files": 7, "chains": 4, "errors": 3, "warnings": 1}


def test_json_report_keeps_untrusted_text_exact_and_non_ascii_readable(
    results: list[GroupResult], context: ReportContext
) -> None:
    out = render(JsonReporter, results, context)
    assert "chain c, v2: é" in out  # ensure_ascii=False
    assert out.startswith('{\n  "version": 1,')  # indent 2
    report = json.loads(out)
    assert report["findings"][3]["path"] == ODD_PATH
    assert report["findings"][3]["message"] == HOSTILE_MESSAGE


def test_json_report_escapes_characters_a_terminal_would_act_on(context: ReportContext) -> None:
    sneaky = Finding(
        path="a.json",
        line=1,
        column=1,
        code="HF002",
        severity=Severity.ERROR,
        message="evil \u202e txt.exe \x9b31m \u2028 \x1b[2J done",
    )
    out = render(JsonReporter, [chain("c", sneaky)], context)
    for raw in ("\u202e", "\x9b", "\u2028", "\x1b"):
        assert raw not in out
    assert json.loads(out)["findings"][0]["message"] == sneaky.message


def test_json_report_of_a_clean_run_has_no_findings(context: ReportContext) -> None:
    report = json.loads(render(JsonReporter, [chain("clean")], context))
    assert report["findings"] == []
    assert report["summary"] == {"files": 2, "chains": 1, "errors": 0, "warnings": 0}


# --- SARIF -----------------------------------------------------------------------------------


def sarif_of(results: list[GroupResult], context: ReportContext) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(render(SarifReporter, results, context))
    return log


def test_sarif_log_validates_against_the_official_sarif_2_1_0_schema(
    results: list[GroupResult], context: ReportContext
) -> None:
    if not SARIF_SCHEMA.is_file():
        pytest.skip(f"SARIF schema not found at {SARIF_SCHEMA}")
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    schema.pop("$schema", None)
    schema.pop("id", None)
    validator = jsonschema.Draft7Validator(schema)
    validator.check_schema(schema)
    registry = default_registry()
    log = sarif_of(results, context._replace(rule_of=registry.rule, page_of=registry.page_of))
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def test_sarif_log_names_the_tool_its_version_and_the_source_root(
    results: list[GroupResult], context: ReportContext
) -> None:
    log = sarif_of(results, context)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "handoff-lint"
    assert driver["informationUri"] == "https://pypi.org/project/pytest-handoff/"
    assert driver["semanticVersion"] == "0.1.0"
    base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base == context.root.resolve().as_uri() + "/"
    assert log["runs"][0]["automationDetails"] == {"id": "handoff-lint/"}


def test_sarif_lists_exactly_the_rules_its_results_use_with_their_docs(
    results: list[GroupResult], context: ReportContext
) -> None:
    run_ = sarif_of(results, context._replace(rule_of=default_registry().rule))["runs"][0]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["HF003", "HF006", "NR102", "NR106", "USER"]
    for result in run_["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    duplicate = rules[0]
    known = default_registry().rule("HF003")
    assert known is not None
    assert duplicate["name"] == "duplicate-key"
    assert duplicate["shortDescription"]["text"] == known.summary
    assert duplicate["help"]["markdown"] == known.doc
    assert "**" not in duplicate["help"]["text"]
    assert duplicate["fullDescription"]["text"].startswith(known.summary)
    assert duplicate["defaultConfiguration"]["level"] == "error"
    assert rules[3]["defaultConfiguration"]["level"] == "warning"  # NR106 warns by default


def test_sarif_rules_link_their_page_on_the_documentation_site(
    results: list[GroupResult], context: ReportContext
) -> None:
    registry = default_registry()
    run_ = sarif_of(results, context._replace(rule_of=registry.rule, page_of=registry.page_of))["runs"][0]
    pages = {rule["id"]: rule.get("helpUri") for rule in run_["tool"]["driver"]["rules"]}
    # A project's own USER findings have no page of ours.
    assert pages == {
        "HF003": "https://pytest-handoff.github.io/pytest-handoff/rules/HF003/",
        "HF006": "https://pytest-handoff.github.io/pytest-handoff/rules/HF006/",
        "NR102": "https://pytest-handoff.github.io/pytest-handoff/rules/NR102/",
        "NR106": "https://pytest-handoff.github.io/pytest-handoff/rules/NR106/",
        "USER": None,
    }


def test_sarif_rules_name_no_page_when_the_run_knows_of_none(
    results: list[GroupResult], context: ReportContext
) -> None:
    run_ = sarif_of(results, context._replace(rule_of=default_registry().rule))["runs"][0]
    assert all("helpUri" not in rule for rule in run_["tool"]["driver"]["rules"])


def test_sarif_results_point_at_the_finding_with_an_exclusive_end_column(
    results: list[GroupResult], context: ReportContext
) -> None:
    first = sarif_of(results, context)["runs"][0]["results"][0]
    assert first["ruleId"] == "HF003"
    assert first["level"] == "error"
    assert first["message"]["text"] == 'key "verdict" is defined twice'
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {
        "uri": "handoffs/chain-a/02-dev-agent.json",
        "uriBaseId": "%SRCROOT%",
    }
    assert location["region"] == {"startLine": 3, "startColumn": 5, "endLine": 3, "endColumn": 14}
    assert first["properties"] == {"pointer": "/verdict", "chain": "chain-a"}
    related = first["relatedLocations"][0]
    assert related["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 5}
    assert related["message"]["text"] == "first definition"


def test_sarif_levels_follow_the_finding_severity(results: list[GroupResult], context: ReportContext) -> None:
    levels = [r["level"] for r in sarif_of(results, context)["runs"][0]["results"]]
    assert levels == ["error", "warning", "error", "error", "note"]


def test_sarif_whole_file_finding_has_no_region(results: list[GroupResult], context: ReportContext) -> None:
    whole_file = sarif_of(results, context)["runs"][0]["results"][2]
    assert whole_file["ruleId"] == "HF006"
    assert "region" not in whole_file["locations"][0]["physicalLocation"]


# RFC 3986 relative reference: unreserved, percent-encoded, sub-delims, ":", "@", "/".
_URI_REFERENCE = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-F]{2})*")


def test_sarif_uri_of_an_odd_path_is_percent_encoded_and_relative(
    results: list[GroupResult], context: ReportContext
) -> None:
    run_ = sarif_of(results, context)["runs"][0]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run_["results"]]
    assert uris[3] == ODD_URI
    for uri in uris:
        assert _URI_REFERENCE.fullmatch(uri), uri
        assert not uri.startswith("/")


def test_sarif_message_of_untrusted_text_keeps_its_words(
    results: list[GroupResult], context: ReportContext
) -> None:
    hostile = sarif_of(results, context)["runs"][0]["results"][3]
    assert "<script>alert(1)</script>" in hostile["message"]["text"]
    assert "\r" not in hostile["message"]["text"]  # made visible as \x0d


def test_sarif_fingerprint_survives_a_line_move_but_not_a_new_message() -> None:
    moved = Finding(**{**_fields(DUPLICATE), "line": 30, "end_line": 30})
    reworded = Finding(**{**_fields(DUPLICATE), "message": "another message"})
    assert fingerprint(moved) == fingerprint(DUPLICATE)
    assert fingerprint(reworded) != fingerprint(DUPLICATE)


def test_sarif_results_carry_their_fingerprint(results: list[GroupResult], context: ReportContext) -> None:
    first = sarif_of(results, context)["runs"][0]["results"][0]
    assert first["partialFingerprints"] == {"handoffFingerprint/v1": fingerprint(DUPLICATE)}


def test_sarif_keeps_the_worst_results_when_there_are_too_many(context: ReportContext) -> None:
    many = [
        Finding(
            path="a.json", line=n, column=1, code="NR106", severity=Severity.WARNING, message=f"warning {n}"
        )
        for n in range(1, 6)
    ]
    error = Finding(path="a.json", line=9, column=1, code="HF002", severity=Severity.ERROR, message="broken")
    reporter = SarifReporter(io.StringIO(), context)
    reporter.max_results = 3
    log = json.loads(run(reporter, [chain("c", *many, error)]))
    run_ = log["runs"][0]
    assert [r["message"]["text"] for r in run_["results"]] == ["warning 1", "warning 2", "broken"]
    notice = run_["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert notice.startswith("3 of 6 results were left out")


def _fields(finding: Finding) -> dict[str, Any]:
    return finding._asdict()


# --- GitHub Actions --------------------------------------------------------------------------


def github_lines(results: list[GroupResult], context: ReportContext) -> list[str]:
    out = render(GithubReporter, results, context)
    assert out.endswith("\n")
    return out[:-1].split("\n")


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """Read a workflow command the way the Actions runner does (ActionCommand.TryParseV2)."""
    assert line.startswith("::")
    end = line.index("::", 2)
    info, data = line[2:end], line[end + 2 :]
    name, _, props = info.partition(" ")
    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = (
            value.replace("%0D", "\r")
            .replace("%0A", "\n")
            .replace("%3A", ":")
            .replace("%2C", ",")
            .replace("%25", "%")
        )
    message = data.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    return name, properties, message


def test_github_annotation_has_file_position_and_title(
    results: list[GroupResult], context: ReportContext
) -> None:
    lines = github_lines(results, context)
    assert lines[0] == (
        "::error file=handoffs/chain-a/02-dev-agent.json,line=3,endLine=3,col=5,endColumn=13,"
        'title=HF003 duplicate-key::key "verdict" is defined twice'
    )


def test_github_errors_come_first_then_warnings_then_notices(
    results: list[GroupResult], context: ReportContext
) -> None:
    commands = [parse_command(line)[0] for line in github_lines(results, context)]
    assert commands == ["error", "error", "error", "warning", "notice"]


def test_github_annotation_spanning_lines_has_no_columns(
    results: list[GroupResult], context: ReportContext
) -> None:
    warning = next(line for line in github_lines(results, context) if line.startswith("::warning"))
    _, properties, _ = parse_command(warning)
    assert properties == {
        "file": "handoffs/chain-a/01-requirements.json",
        "line": "7",
        "endLine": "9",
        "title": "NR106 incomplete-chain",
    }


def test_github_whole_file_annotation_names_only_the_file(
    results: list[GroupResult], context: ReportContext
) -> None:
    line = next(line for line in github_lines(results, context) if "HF006" in line)
    assert line == (
        "::error file=handoffs/chain-b/big.json,title=HF006 file-too-large::file is 52 MB, the limit is 1 MB"
    )


def test_github_property_values_escape_colons_and_commas(
    results: list[GroupResult], context: ReportContext
) -> None:
    line = next(line for line in github_lines(results, context) if "NR102" in line)
    assert "file=handoffs/chain c%2C v2%3A é/03-test agent.json," in line
    _, properties, message = parse_command(line)
    assert properties["file"] == ODD_PATH
    assert message == HOSTILE_MESSAGE


@pytest.mark.parametrize(
    "message",
    [
        "oops\n::set-output name=x::y",
        "oops\r\n::add-mask::secret",
        "::stop-commands::tok",
        "\n::add-mask::x",
        "100%0A literally",
        "a\rb\n\n::error::fake%",
    ],
)
def test_github_annotations_cannot_start_a_workflow_command_of_their_own(
    message: str, context: ReportContext
) -> None:
    finding = Finding(
        path="a, b: c.json",
        line=1,
        column=1,
        code="HF002",
        rule="invalid-json",
        severity=Severity.ERROR,
        message=message,
    )
    out = render(GithubReporter, [chain("c", finding)], context)
    assert out.count("\n") == 1
    assert len(out.splitlines()) == 1  # no other line separator either
    assert out.startswith("::error file=a%2C b%3A c.json,line=1,col=1,title=HF002 invalid-json::")
    name, properties, data = parse_command(out.rstrip("\n"))
    assert name == "error"
    assert properties["file"] == "a, b: c.json"
    assert data == message


def test_github_escapes_exactly_like_actions_toolkit(context: ReportContext) -> None:
    finding = Finding(
        path="a.json",
        line=1,
        column=1,
        code="HF002",
        severity=Severity.ERROR,
        message="\n::add-mask::x and %0A and \r",
    )
    out = render(GithubReporter, [chain("c", finding)], context)
    assert out.endswith("::%0A::add-mask::x and %250A and %0D\n")


def test_github_makes_other_control_characters_visible(context: ReportContext) -> None:
    finding = Finding(
        path="a.json",
        line=1,
        column=1,
        code="HF002",
        severity=Severity.ERROR,
        message="a\x1b[2Jb\u2028::add-mask::c\x85d",
    )
    out = render(GithubReporter, [chain("c", finding)], context)
    assert out.endswith("::a\\x1b[2Jb\\u2028::add-mask::c\\x85d\n")


def test_github_paths_are_relative_to_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    context = ReportContext(root=workspace / "project", workspace=workspace)
    finding = Finding(path="h/01.json", line=1, column=1, code="HF002", severity=Severity.ERROR, message="m")
    line = render(GithubReporter, [chain("c", finding)], context)
    assert line.startswith("::error file=project/h/01.json,")


def test_github_shows_at_most_ten_errors_and_ten_warnings_then_one_notice(
    context: ReportContext,
) -> None:
    errors = [
        Finding(path="a.json", line=n, column=1, code="HF002", severity=Severity.ERROR, message=f"error {n}")
        for n in range(1, 16)
    ]
    warnings = [
        Finding(
            path="b.json", line=n, column=1, code="NR106", severity=Severity.WARNING, message=f"warning {n}"
        )
        for n in range(1, 13)
    ]
    lines = github_lines(
        [chain("one", *warnings[:6], *errors[:8]), chain("two", *errors[8:], *warnings[6:])], context
    )
    assert [line.split(" ", 1)[0].split("::")[1] for line in lines] == (
        ["error"] * 10 + ["warning"] * 10 + ["notice"]
    )
    assert [parse_command(line)[2] for line in lines[:10]] == [f"error {n}" for n in range(1, 11)]
    notice = lines[-1]
    assert notice.startswith("::notice::")
    assert "5 errors and 2 warnings were not shown as annotations" in notice
    assert "the job summary" in notice


def test_github_writes_no_notice_when_everything_fits(
    results: list[GroupResult], context: ReportContext
) -> None:
    assert not any(line.startswith("::notice::") for line in github_lines(results, context))


def test_github_keeps_room_for_its_own_notice_among_ten_notes(context: ReportContext) -> None:
    notes = [
        Finding(path="a.json", line=n, column=1, code="USER", severity=Severity.INFO, message=f"note {n}")
        for n in range(1, 13)
    ]
    lines = github_lines([chain("c", *notes)], context)
    assert len(lines) == 10
    assert lines[-1].startswith("::notice::handoff-lint: 3 notes were not shown")


# --- Markdown --------------------------------------------------------------------------------


def markdown_of(results: list[GroupResult], context: ReportContext, **kwargs: Any) -> str:
    return run(MarkdownReporter(io.StringIO(), context, **kwargs), results)


def table_rows(text: str) -> list[str]:
    return [
        line
        for line in text.splitlines()
        if line.startswith("| ") and "---" not in line and not line.startswith("| Severity")
    ]


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def test_markdown_summary_has_a_heading_totals_and_a_table_per_chain(
    results: list[GroupResult], context: ReportContext
) -> None:
    text = markdown_of(results, context)
    assert text.startswith("## handoff-lint\n\n**3 errors**, 1 warning and 1 note in 7 files of 4 chains.\n")
    assert ("### chain-a\n\n| Severity | Location | Rule | Message |\n| --- | --- | --- | --- |\n") in text
    assert "### chain-b\n" in text
    assert "### chain c, v2: é\n" in text
    assert len(table_rows(text)) == 5


def test_markdown_location_links_to_the_line(results: list[GroupResult], context: ReportContext) -> None:
    text = markdown_of(results, context)
    assert (
        "| ❌ error "
        "| [handoffs/chain-a/02-dev-agent.json:3:5](handoffs/chain-a/02-dev-agent.json#L3) "
        '| HF003 duplicate-key | key "verdict" is defined twice (at /verdict) |'
    ) in text
    assert "[handoffs/chain-b/big.json](handoffs/chain-b/big.json) |" in text
    assert f"({ODD_URI}#L2)" in text


def test_markdown_lists_clean_chains_briefly(results: list[GroupResult], context: ReportContext) -> None:
    text = markdown_of(results, context)
    assert "- ✅ chain-d: no findings\n" in text
    assert "### chain-d" not in text


def test_markdown_keeps_untrusted_text_inside_its_table_cell(
    results: list[GroupResult], context: ReportContext
) -> None:
    text = markdown_of(results, context)
    rows = table_rows(text)
    hostile = next(row for row in rows if "NR102" in row)
    assert "<script>" not in text
    assert "&lt;script&gt;" in hostile
    assert "\\| injected \\| row \\|" in hostile
    assert all(unescaped_pipes(row) == 5 for row in rows)
    assert "\r" not in text


def test_markdown_renders_untrusted_text_as_literal_text(
    results: list[GroupResult], context: ReportContext
) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    parser = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    html = parser.render(markdown_of(results, context))
    assert "<script>" not in html
    assert "<em>" not in html
    assert "<strong>bold" not in html
    assert html.count("<table>") == 3
    for row in re.findall(r"<tr>(.*?)</tr>", html, flags=re.S):
        assert row.count("<td>") + row.count("<th>") == 4
    assert "&lt;script&gt;alert(1)&lt;/script&gt; *bold* [x](y)" in html


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# title", "\\# title"),
        ("a|b", "a\\|b"),
        ("`code`", "\\`code\\`"),
        ("[link](x)", "\\[link\\](x)"),
        ("<b>&amp;</b>", "&lt;b&gt;&amp;amp;&lt;/b&gt;"),
        ("*a* _b_ ~c~", "\\*a\\* \\_b\\_ \\~c\\~"),
        ("back\\slash", "back\\\\slash"),
        ("one\ntwo\r\nthree\rfour", "one two three four"),
        ("bell\x07 bidi\u202e", "bell\\\\x07 bidi\\\\u202e"),
    ],
)
def test_markdown_text_escapes_syntax_html_and_control_characters(text: str, expected: str) -> None:
    assert markdown_text(text) == expected


def test_markdown_hostile_chain_id_stays_a_plain_heading(context: ReportContext) -> None:
    finding = Finding(path="a.json", line=1, column=1, code="HF002", severity=Severity.ERROR, message="m")
    text = markdown_of([chain("# x\n<img src=x onerror=alert(1)> ##", finding)], context)
    assert "### \\# x &lt;img src=x onerror=alert(1)&gt; \\#\\#\n" in text


def test_markdown_default_limit_is_one_mebibyte() -> None:
    assert MarkdownReporter.max_bytes == 1_048_576


def test_markdown_stays_under_a_small_limit_and_says_how_many_findings_were_left_out(
    context: ReportContext,
) -> None:
    findings = [
        Finding(
            path=f"h/{n:03d}.json",
            line=n,
            column=1,
            code="HF002",
            severity=Severity.ERROR,
            message=f"broken ✗ number {n}",
        )
        for n in range(1, 101)
    ]
    limit = 2_000
    text = markdown_of(
        [chain("big", *findings[:60]), chain("bigger", *findings[60:]), chain("clean")],
        context,
        max_bytes=limit,
    )
    assert len(text.encode("utf-8")) <= limit
    shown = len(table_rows(text))
    assert 0 < shown < 100
    assert text.endswith(
        f"> ⚠️ {100 - shown} findings and 1 chain without findings were left out to keep this "
        "summary under 2,000 bytes. See the job summary for the full list.\n"
    )


def test_markdown_of_a_huge_run_stays_under_one_mebibyte(context: ReportContext) -> None:
    findings = [
        Finding(
            path=f"handoffs/chain/{n:05d}-agent.json",
            line=n,
            column=1,
            code="NR106",
            rule="incomplete-chain",
            severity=Severity.WARNING,
            message="é" * 60 + f" {n}",
        )
        for n in range(1, 8_001)
    ]
    text = markdown_of([chain("huge", *findings)], context)
    size = len(text.encode("utf-8"))
    assert 1_000_000 < size <= 1_048_576
    left_out = 8_000 - len(table_rows(text))
    assert left_out > 0
    assert f"> ⚠️ {left_out} findings were left out to keep this summary under 1 MiB." in text


def test_markdown_caps_one_huge_message_instead_of_dropping_the_rest(
    context: ReportContext,
) -> None:
    huge = Finding(
        path="a.json", line=1, column=1, code="HF002", severity=Severity.ERROR, message="x" * 2_000_000
    )
    small = Finding(path="a.json", line=2, column=1, code="HF002", severity=Severity.ERROR, message="small")
    text = markdown_of([chain("c", huge, small)], context)
    assert len(table_rows(text)) == 2
    assert "x" * 999 + "…" in text
    assert "left out" not in text


def test_markdown_of_a_clean_run_says_so(context: ReportContext) -> None:
    text = markdown_of([chain("a"), chain("b")], context)
    assert "✅ No findings in 4 files of 2 chains." in text
    assert "- ✅ a: no findings\n- ✅ b: no findings\n" in text
    assert "|" not in text
