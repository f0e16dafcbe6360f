"""handoff-lint chain: one chain as people read it, in the terminal, as Markdown and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from views_helpers import (
    CLEAN,
    CORPUS_SAMPLE,
    EXAMPLES,
    copy_chain,
    in_examples,
    load_json,
    outside_ci,
    parse_tables,
    run,
    run_json,
    table_with,
    write_json,
)

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.profiles.base import Profile
from pytest_handoff.values.settings import Settings

pytestmark = pytest.mark.usefixtures("outside_ci")
__all__ = ["in_examples", "outside_ci"]


@pytest.mark.usefixtures("in_examples")
def test_chain_without_an_id_shows_the_latest_chain(capsys: pytest.CaptureFixture[str]) -> None:
    code, view = run_json(capsys, "chain")
    assert view["chain_id"] == "20261104-132000"  # started after 20261103-091500
    assert code == 1  # it fails its contracts


@pytest.mark.usefixtures("in_examples")
def test_chain_takes_a_unique_prefix_of_the_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, view = run_json(capsys, "chain", "20261103")
    assert view["chain_id"] == "20261103-091500"
    assert code == 0


@pytest.mark.usefixtures("in_examples")
def test_chain_names_an_unknown_or_ambiguous_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "chain", "2027")
    assert code == 2
    assert "no chain '2027'" in err
    code, _out, err = run(capsys, "chain", "2026110")
    assert code == 2
    assert "names 2 chains" in err


@pytest.mark.usefixtures("in_examples")
def test_chain_lists_each_stage_with_agent_time_and_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    _, view = run_json(capsys, "chain", "20261103-091500")
    assert [(s["agent"], s["handoff_type"]) for s in view["stages"]] == [
        ("ba-agent", "requirements"),
        ("dev-agent", "dev_to_test"),
        ("test-agent", "test_to_review"),
        ("review-agent", "review_final"),
    ]
    assert [s["tokens"] for s in view["stages"]] == [None, 38600, 27450, None]
    assert view["stages"][2]["timestamp"] == "2026-11-03T10:31:07Z"
    assert view["task"] == load_json(CLEAN / "01-ba-agent.json")["task_summary"]


@pytest.mark.usefixtures("in_examples")
def test_chain_traces_every_criterion_with_its_place(capsys: pytest.CaptureFixture[str]) -> None:
    _, view = run_json(capsys, "chain", "20261103-091500")
    criteria = view["acceptance_criteria"]
    assert [c["text"] for c in criteria] == load_json(CLEAN / "01-ba-agent.json")["acceptance_criteria"]
    assert all(c["traced"] for c in criteria)
    assert criteria[0]["where"] == "02-dev-agent.json /files_changed/0/summary"
    assert criteria[0]["evidence"] == '"/api/v1/invoices/export"'


def test_nr306_an_untraced_criterion_shows_what_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = copy_chain(CLEAN, tmp_path)
    requirements = load_json(chain / "01-ba-agent.json")
    requirements["acceptance_criteria"].append(
        "Exports carry the header X-Zebra-Quokka: 'zebra_quokka_marker'"
    )
    write_json(chain / "01-ba-agent.json", requirements)
    monkeypatch.chdir(tmp_path)
    _, view = run_json(capsys, "chain")
    last = view["acceptance_criteria"][-1]
    assert last["traced"] is False
    assert last["where"] == ""
    assert "zebra_quokka_marker" in last["evidence"]
    assert "NR306" in {f["code"] for f in view["findings"]}


@pytest.mark.usefixtures("in_examples")
def test_chain_gives_each_property_its_classification_and_matched_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, view = run_json(capsys, "chain", "20261103-091500")
    test = load_json(CLEAN / "03-test-agent.json")["property_verification"]
    by_label = {p["label"]: p for p in view["properties"]}
    assert [p["classification"] for p in view["properties"]] == [
        "confirmed",
        "confirmed",
        "confirmed",
        "inconclusive",
        "falsified",
    ]
    assert by_label["P5"]["matched_text"] == test["falsified"][0]
    assert by_label["P5"]["where"] == "03-test-agent.json /property_verification/falsified/0"
    assert by_label["P5"]["method"]


@pytest.mark.usefixtures("in_examples")
def test_nr301_an_unclassified_property_shows_as_unclassified(capsys: pytest.CaptureFixture[str]) -> None:
    code, view = run_json(capsys, "chain", "20261104-132000")
    p5 = view["properties"][4]
    assert p5["classification"] is None
    assert p5["matched_text"] == ""
    assert "NR301" in {f["code"] for f in view["findings"]}
    assert code == 1


@pytest.mark.usefixtures("in_examples")
def test_chain_shows_bugs_verdict_scores_and_findings(capsys: pytest.CaptureFixture[str]) -> None:
    _, broken = run_json(capsys, "chain", "20261104-132000")
    assert [(b["severity"], b["counterexample"]) for b in broken["bugs"]] == [("high", "see above")]
    assert broken["verdict"] == "approved"
    assert broken["quality_score"] == 8
    assert broken["scores"] == {
        "requirements_clarity": 8,
        "dev_handoff_completeness": 6,
        "test_coverage_adequacy": 6,
    }
    assert broken["total_tokens"] == 52000
    assert sorted(f["code"] for f in broken["findings"]) == sorted(
        ["HS001", "NR202", "NR201", "NR301", "NR208", "NR304", "NR204", "NR207", "NR210", "NR307"]
    )
    _, clean = run_json(capsys, "chain", "20261103-091500")
    assert clean["findings"] == []
    assert clean["passed"] is True


@pytest.mark.usefixtures("in_examples")
def test_chain_markdown_is_a_set_of_valid_github_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "chain", "20261103-091500", "--format", "markdown")
    tables = parse_tables(out)
    properties = table_with(tables, "P", "Property")
    dev = load_json(CLEAN / "02-dev-agent.json")
    assert [row["Property"] for row in properties] == [p["property"] for p in dev["properties_believed"]]
    assert [row["Classified"] for row in properties][-1] == "falsified"
    criteria = table_with(tables, "AC", "Criterion")
    assert {row["Traced"] for row in criteria} == {"yes"}
    stages = table_with(tables, "#", "File")
    assert [row["File"] for row in stages] == sorted(p.name for p in CLEAN.glob("*.json"))
    assert out.startswith("## Handoff chain 20261103-091500")
    assert code == 0


def test_chain_markdown_escapes_untrusted_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = copy_chain(CLEAN, tmp_path)
    hostile = "a | b <img src=x onerror=alert(1)> **bold** [link](https://evil.example) `code`\nsecond line"
    dev = load_json(chain / "02-dev-agent.json")
    dev["properties_believed"][0]["property"] = hostile
    write_json(chain / "02-dev-agent.json", dev)
    monkeypatch.chdir(tmp_path)
    _, out, _ = run(capsys, "chain", "--format", "markdown")
    assert "<img" not in out
    assert "[link](https" not in out  # the brackets are escaped: no link
    properties = table_with(parse_tables(out), "P", "Property")
    assert properties[0]["Property"] == hostile.replace("\n", " ")


def test_chain_terminal_view_prints_handoff_text_inert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = copy_chain(CLEAN, tmp_path)
    requirements = load_json(chain / "01-ba-agent.json")
    requirements["task_summary"] = "Export [bold red]invoices[/] \x1b[31mnow\x1b[0m"
    write_json(chain / "01-ba-agent.json", requirements)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "120")
    _, out, _ = run(capsys, "chain")
    assert "\x1b" not in out
    assert "[bold red]invoices[/]" in out  # rich markup in handoff text stays literal
    assert "\\x1b[31mnow" in out
    for heading in (
        "Stages",
        "Acceptance criteria (7 of 7 traced)",
        "Believed properties",
        "Bugs (1)",
        "Review",
    ):
        assert heading in out


def test_chain_masks_secrets_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    chain = copy_chain(CLEAN, tmp_path)
    requirements = load_json(chain / "01-ba-agent.json")
    requirements["task_summary"] += f" Use the token {secret} for the API."
    write_json(chain / "01-ba-agent.json", requirements)
    monkeypatch.chdir(tmp_path)
    for format_name in ("text", "markdown", "json"):
        _, out, _ = run(capsys, "chain", "--format", format_name)
        assert secret not in out
        assert secret[4:20] not in out
        assert "Use the token" in out


def test_a_profile_without_its_own_summary_still_shows_its_files(tmp_path: Path) -> None:
    copy_chain(CLEAN, tmp_path)
    seen = []

    def capture(chain: object) -> tuple[()]:
        seen.append(Profile.summarise(default_registry().profile(chain.ref.profile), chain))  # type: ignore[attr-defined]
        return ()

    check_paths([], tmp_path, Settings(), (capture,), registry=default_registry())
    (view,) = seen
    assert [stage.file.rsplit("/", 1)[-1] for stage in view.stages] == sorted(
        p.name for p in CLEAN.glob("*.json")
    )
    assert view.criteria == ()
    assert view.verdict is None


def test_chain_of_the_public_neuralrelay_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not CORPUS_SAMPLE.is_dir():
        pytest.skip("the shared NeuralRelay corpus is not beside this checkout")
    copy_chain(CORPUS_SAMPLE, tmp_path, "20260322-143052")
    monkeypatch.chdir(tmp_path)
    _, view = run_json(capsys, "chain")
    requirements = load_json(CORPUS_SAMPLE / "01-ba-agent.json")
    assert [c["text"] for c in view["acceptance_criteria"]] == requirements["acceptance_criteria"]
    assert len(view["properties"]) == len(
        load_json(CORPUS_SAMPLE / "02-dev-agent.json")["properties_believed"]
    )
    _, out, _ = run(capsys, "chain", "--format", "markdown")
    assert table_with(parse_tables(out), "P", "Property")


def test_chain_and_report_run_from_inside_a_chain_folder_find_the_project_chains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    copy_chain(CLEAN, tmp_path)
    chain_folder = copy_chain(
        EXAMPLES / "neuralrelay" / "broken" / ".neuralrelay" / "handoffs" / "20261104-132000", tmp_path
    )
    monkeypatch.chdir(chain_folder)
    code, view = run_json(capsys, "chain")
    assert view["chain_id"] == "20261104-132000"
    code, view = run_json(capsys, "chain", "20261103")
    assert (code, view["chain_id"]) == (0, "20261103-091500")
    code, report = run_json(capsys, "report")
    assert "20261103-091500" in json.dumps(report)


@pytest.mark.parametrize("command", ["chain", "report", "show", "schema"])
def test_every_view_exits_as_the_linter_does_on_help_and_bad_arguments(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, command, "--help")[0] == 0
    code, _, err = run(capsys, command, "--no-such-option")
    assert code == 2
    assert f"handoff-lint {command}: error:" in err


@pytest.mark.usefixtures("in_examples")
def test_off_a_terminal_the_chain_table_is_as_wide_as_its_content(capsys: pytest.CaptureFixture[str]) -> None:
    # capsys is no terminal: no column is dropped and no line cut at 80 characters.
    _, out, _ = run(capsys, "chain")
    lines = out.splitlines()
    property_rows = [line for line in lines if line.startswith("P1 ")]
    assert property_rows
    assert max(len(line) for line in lines) > 80
    assert property_rows[0].count("│") >= 4  # every column of the properties table is there
