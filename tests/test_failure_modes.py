"""Every rule is tagged with the MAST failure modes its findings are evidence of, and every output
carries them: the rule's docs, JSON, SARIF, the Markdown summary and the report view."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.rules.modes import FAILURE_MODES, counted_modes
from pytest_handoff.values.findings import Finding, Severity
from tests.conftest import EXAMPLES


def test_every_rule_row_declares_only_modes_of_the_taxonomy() -> None:
    rules = default_registry().all_rules().values()
    assert {mode for rule in rules for mode in rule.modes} <= set(FAILURE_MODES)
    assert sum(1 for rule in rules if rule.modes) >= 70  # each row carries its own; most have some
    assert len(FAILURE_MODES) == 14


def test_a_tagged_rules_docs_end_with_its_failure_modes_after_its_four_parts() -> None:
    rule = default_registry().rule("EV401")
    assert rule is not None
    assert rule.modes == ("FM-2.6", "FM-3.2")
    assert rule.doc.endswith(
        "**Failure modes** (MAST): FM-2.6 reasoning-action mismatch; FM-3.2 no or incomplete verification."
    )
    assert rule.doc.index("**Use instead**") < rule.doc.index("**Failure modes**")


def test_an_untagged_rules_docs_say_nothing_of_modes() -> None:
    rule = default_registry().rule("HF001")
    assert rule is not None
    assert (rule.modes, "Failure modes" in rule.doc) == ((), False)


def finding(code: str, chain: str) -> Finding:
    return Finding(
        path="a.json", line=1, column=1, code=code, severity=Severity.ERROR, message="m", chain=chain
    )


def test_modes_are_counted_across_groups_most_groups_first() -> None:
    found = [finding("EV101", "c1"), finding("EV201", "c1"), finding("EV301", "c2"), finding("EV501", "c3")]
    assert [(c.mode, c.groups, c.findings) for c in counted_modes(found, default_registry().modes_of)] == [
        ("FM-3.3", 2, 2),
        ("FM-2.6", 1, 2),
    ]


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A project of the two NeuralRelay example chains as the working directory (outside CI)."""
    for project in ("clean", "broken"):
        source = EXAMPLES / "neuralrelay" / project / ".neuralrelay"
        shutil.copytree(source, tmp_path / ".neuralrelay", dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def test_json_findings_carry_their_modes_and_the_summary_counts_them(
    examples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["--format", "json", "."])
    data = json.loads(capsys.readouterr().out)
    for item in data["findings"]:
        assert item["modes"] == list(default_registry().modes_of(item["code"]))
    modes = data["modes"]
    assert modes
    assert sum(count["findings"] for count in modes.values()) == sum(
        len(item["modes"]) for item in data["findings"]
    )


def test_sarif_rules_are_tagged_with_their_format_and_modes(
    examples: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "out.sarif"
    main(["--output", f"sarif={target}", "."])
    rules = json.loads(target.read_text())["runs"][0]["tool"]["driver"]["rules"]
    tags = {rule["id"]: rule["properties"]["tags"] for rule in rules}
    assert tags["NR301"] == ["neuralrelay", "FM-2.5", "FM-3.2"]


def test_the_markdown_summary_and_the_report_view_group_findings_by_mode(
    examples: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["--format", "markdown", "."])
    markdown = capsys.readouterr().out
    assert "Failure modes (MAST):" in markdown
    assert "- FM-2.4 information withholding: 4 findings in 1 chain" in markdown
    main(["report", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert {entry["mode"] for entry in report["modes"]} <= set(FAILURE_MODES)
    assert report["modes"]
