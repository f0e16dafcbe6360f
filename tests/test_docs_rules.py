"""The rule pages of the documentation site: one per rule, written from the rule tables by
docs/gen_rules.py and committed, and named by SARIF's helpUri and by `handoff-lint explain`; each
shows a finding the tool printed, on the examples, the fixtures or the rule examples
(tests/fixtures/rule-examples/, one small project per rule)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import Registry, default_registry
from pytest_handoff.version import rule_page
from tests.conftest import EXAMPLES, REPO, module_at
from tests.test_multi_format_engine import ToyLines

RULES = REPO / "docs" / "rules"
RULE_EXAMPLES = REPO / "tests" / "fixtures" / "rule-examples"
#: The password of the secret examples (HX001, CK105): made up, and never shown but masked.
FAKE_PASSWORD = "FAKE-not-real-7Qx2"


def load_generator() -> ModuleType:
    return module_at(REPO / "docs" / "gen_rules.py", "gen_rules")


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_generator()


@pytest.fixture(scope="module")
def found(generator: ModuleType) -> Sequence[tuple[Any, Sequence[Any]]]:
    """Every source of example findings with what handoff-lint reports on it (each run once)."""
    runs: Sequence[tuple[Any, Sequence[Any]]] = generator.source_findings()
    return runs


@pytest.fixture(scope="module")
def written(generator: ModuleType, found: Sequence[tuple[Any, Sequence[Any]]]) -> dict[Path, str]:
    """Every page the generator writes, by path."""
    pages: dict[Path, str] = generator.pages(found=found)
    return pages


def built_in_codes() -> set[str]:
    registry = default_registry()
    builtin = set(registry.builtin_names())
    return {
        code for code, rule in registry.all_rules().items() if rule.profile is None or rule.profile in builtin
    }


def page_of_file(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def test_every_built_in_rule_has_a_page_and_every_page_a_rule() -> None:
    pages = {path.stem for path in RULES.glob("*.md") if path.name != "index.md"}
    assert pages == built_in_codes()
    assert len(pages) >= 100


def test_the_committed_pages_are_what_the_rule_tables_and_fixtures_make_of_them(
    generator: ModuleType, written: dict[Path, str]
) -> None:
    differ = [
        page_of_file(path) for path, text in written.items() if path.read_text(encoding="utf-8") != text
    ]
    assert differ == [], "run python docs/gen_rules.py"
    assert generator.stale_pages(written) == []


def test_the_generator_fills_in_a_rules_block_of_any_page(
    generator: ModuleType, written: dict[Path, str]
) -> None:
    trinity = written[REPO / "docs" / "formats" / "trinity.md"]
    block = trinity[trinity.index("<!-- rules: trinity -->") : trinity.index("<!-- /rules -->")]
    assert "| [TR103](../rules/TR103.md) | timestamp-in-name | error |" in block
    assert "NR208" not in block
    with pytest.raises(KeyError, match="names no group"):
        generator.rules_block("nosuchformat", {}, "formats/x.md", {})


def test_a_rule_page_has_the_four_parts_its_code_format_severity_and_failure_modes() -> None:
    page = (RULES / "NR208.md").read_text(encoding="utf-8")
    assert page.startswith("# NR208 test-summary-arithmetic\n")
    headings = re.findall(r"^## (.+)$", page, re.M)
    assert headings == ["What it does", "Why is this bad?", "Example", "Use instead", "An example finding"]
    assert "| Format | [NeuralRelay](../formats/neuralrelay.md) |" in page
    assert "| Default severity | error |" in page
    assert "FM-3.3 incorrect verification" in page


def test_every_rule_page_opens_with_what_the_rule_is_and_no_empty_table_header(
    written: dict[Path, str],
) -> None:
    rules = default_registry().all_rules()
    for path, text in written.items():
        if path.parent != RULES or path.name == "index.md":
            continue
        rule = rules[path.stem]
        title, blank, summary, blank_too, header, rule_line = text.splitlines()[:6]
        assert (title, blank, blank_too) == (f"# {rule.code} {rule.name}", "", ""), path.name
        assert summary == rule.summary, path.name
        assert (header, rule_line) == (f"| Rule | `{rule.code}` {rule.name} |", "|---|---|"), path.name
        assert not re.search(r"^\|(\s*\|)+\s*$", text, re.M), path.name  # no row of empty cells


def test_a_rule_page_shows_a_finding_exactly_as_handoff_lint_prints_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    page = (RULES / "NR210.md").read_text(encoding="utf-8")
    shown = page[page.index("```text\n") + len("```text\n") : page.index("\n```", page.index("```text\n"))]
    monkeypatch.chdir(REPO)
    for variable in ("GITHUB_ACTIONS", "FORCE_COLOR", "COLUMNS"):
        monkeypatch.delenv(variable, raising=False)
    assert main(["examples/"]) == 1
    assert shown.startswith(
        "examples/neuralrelay/broken/.neuralrelay/handoffs/20261104-132000/04-review-agent.json:3:14: NR210"
    )
    assert shown in capsys.readouterr().out


def test_a_code_no_example_triggers_says_so_rather_than_show_an_invented_finding(
    generator: ModuleType,
) -> None:
    rule = default_registry().rule("NR101")
    page = generator.rule_page(rule, None)
    assert "None of this repository's examples and test fixtures triggers NR101" in page
    assert "```text" not in page


def test_every_built_in_rule_page_shows_a_finding_the_tool_printed(written: dict[Path, str]) -> None:
    without = [code for code in sorted(built_in_codes()) if "```text\n" not in written[RULES / f"{code}.md"]]
    assert without == [], "give each a rule example in tests/fixtures/rule-examples/"
    assert not [path for path, text in written.items() if "None of this repository" in text]
    index = written[RULES / "index.md"]
    for shown, total in re.findall(
        r"(\d+) rules \(\[described here\]\([^)]*\)\), (\d+) with an example finding", index
    ):
        assert shown == total


def test_each_rule_example_reports_the_code_it_plants_and_no_other(
    generator: ModuleType, found: Sequence[tuple[Any, Sequence[Any]]]
) -> None:
    examples = {example.folder: example for example in generator.rule_examples()}
    reported = {source.folder: {printed.code for printed in codes} for source, codes in found}
    assert set(examples) <= set(reported)
    wrong = {
        example.folder.relative_to(RULE_EXAMPLES).as_posix(): sorted(reported[folder])
        for folder, example in examples.items()
        if reported[folder] != {example.code, *example.also}
    }
    assert wrong == {}
    # CK105: HX001 reports its secret too; EV601: EV101 reports the claim the self-check passed over;
    # EV105: the file claimed created was not changed in the handoff's window either (EV102).
    assert {folder.name for folder in examples if examples[folder].also} == {"CK105", "EV601", "EV105"}


def test_each_rule_example_is_filed_under_its_rules_group_and_says_what_it_plants(
    generator: ModuleType,
) -> None:
    rules = default_registry().all_rules()
    examples = generator.rule_examples()
    assert len(examples) == len({example.code for example in examples}) >= 60
    for example in examples:
        assert example.code in built_in_codes(), example.folder
        assert example.folder.parent.name == generator.group_of(rules[example.code]), example.folder
        assert example.planted.strip(), example.folder


def test_the_evidence_examples_base_keeps_every_claim_it_makes(generator: ModuleType) -> None:
    base = generator.as_source(RULE_EXAMPLES / "evidence" / "clean")
    assert base.run.evidence
    assert base.run.commits
    assert generator.findings_on(base) == []


def test_the_evidence_examples_are_run_as_the_page_says(written: dict[Path, str]) -> None:
    junit = written[RULES / "EV501.md"]
    assert (
        "`handoff-lint --evidence-junit junit.xml` reports on `tests/fixtures/rule-examples/evidence/EV501`"
        in junit
    )
    assert "says failing: 0, but junit.xml has 1 failing test(s)" in junit
    unavailable = written[RULES / "EV001.md"]
    assert "in a folder no git repository holds" in unavailable
    assert "claims not checked against git: not a git repository" in unavailable
    named = written[RULES / "HF005.md"]
    assert (
        "`handoff-lint notes/renewal-rules.json` reports on `tests/fixtures/rule-examples/core/HF005`"
        in named
    )


def test_no_page_shows_the_made_up_password_of_the_secret_examples_but_masked(
    written: dict[Path, str],
) -> None:
    planted = sorted(
        path.relative_to(RULE_EXAMPLES).parts[1]
        for path in RULE_EXAMPLES.rglob("*.json")
        if FAKE_PASSWORD in path.read_text(encoding="utf-8")
    )
    assert planted == ["CK105", "HX001"]
    for path, text in written.items():
        assert FAKE_PASSWORD[4:] not in text, path
    assert "postgresql://library:FAKE…(18 characters)@db.staging.invalid/loans" in written[RULES / "HX001.md"]


def test_the_rule_examples_are_fixtures_neither_the_examples_nor_this_repositorys_tests_collect(
    pytestconfig: pytest.Config,
) -> None:
    assert not RULE_EXAMPLES.is_relative_to(EXAMPLES)  # pytest --handoffs examples/ never reads them
    assert (
        RULE_EXAMPLES / "evidence" / "clean" / "tests" / "test_slugify.py"
    ).is_file()  # a project's own test
    assert pytestconfig.hook.pytest_ignore_collect(
        collection_path=REPO / "tests" / "fixtures", config=pytestconfig
    )


def test_the_rules_index_lists_every_built_in_rule_with_its_name_and_severity() -> None:
    index = (RULES / "index.md").read_text(encoding="utf-8")
    rows = {
        match.group(1): (match.group(2), match.group(3))
        for match in re.finditer(
            r"^\| \[([A-Z]{2}\d{3})\]\(\1\.md\) \| ([a-z0-9-]+) \| (error|warning|info) \|", index, re.M
        )
    }
    rules = default_registry().all_rules()
    assert rows == {code: (rules[code].name, rules[code].severity.label) for code in built_in_codes()}


def test_the_registry_names_the_page_of_every_built_in_rule_and_of_no_other() -> None:
    registry = default_registry()
    for code in built_in_codes():
        assert (
            registry.page_of(code)
            == rule_page(code)
            == f"https://pytest-handoff.github.io/pytest-handoff/rules/{code}/"
        )
        assert (RULES / f"{code}.md").is_file()
    assert registry.page_of("nr208") == rule_page("NR208")
    assert registry.page_of("USER") == ""  # a project's own hook
    assert registry.page_of("XX999") == ""
    with_plugin = Registry(extra=(ToyLines(),), entry_points=False)
    assert with_plugin.rule("TY001") is not None
    assert with_plugin.page_of("TY001") == ""


def test_every_help_uri_of_a_sarif_log_names_a_generated_page(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert main(["--format", "sarif", "examples/"]) == 1
    run = json.loads(capsys.readouterr().out)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {rule["id"] for rule in rules} == {result["ruleId"] for result in run["results"]}
    assert len(rules) > 20  # the planted errors of six formats
    for rule in rules:
        assert rule["helpUri"] == rule_page(rule["id"])
        page = rule["helpUri"].removeprefix("https://pytest-handoff.github.io/pytest-handoff/").rstrip("/")
        assert (REPO / "docs" / f"{page}.md").is_file()


def test_explain_prints_the_address_of_a_page_that_exists(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "YL303"]) == 0
    address = capsys.readouterr().out.rstrip("\n").rsplit("\n", 1)[-1].removeprefix("Documentation: ")
    assert address == "https://pytest-handoff.github.io/pytest-handoff/rules/YL303/"
    assert (RULES / "YL303.md").is_file()
