"""Precision and recall of the contract rules on our own chains (issue 14, item 3).

Every clean chain of tests/fixtures/neuralrelay/ gives no finding at all, errors or warnings;
each single-defect copy of a clean chain is caught by its rule, at the right file and pointer,
and by nothing else.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.config import load_settings
from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.values.findings import Finding

FIXTURES = Path(__file__).parent / "fixtures" / "neuralrelay"
CLEAN_CHAINS = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())

PLAIN, VERBATIM, PARAPHRASED, SHORTENED, REFERENCED, NON_ASCII, SECURE, REWORK = CLEAN_CHAINS
DEV, TEST, REVIEW, BA = "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json", "01-ba-agent.json"

Edit = Callable[[Path], None]


def lint(root: Path) -> list[Finding]:
    settings = load_settings(root, tables=default_registry())
    findings: list[Finding] = []
    for ref in discover([], root, settings, registry=default_registry()).groups:
        findings.extend(check_group(ref, settings, root, registry=default_registry()).findings)
    return findings


def copy_of(chain: str, root: Path) -> Path:
    folder = root / ".neuralrelay" / "handoffs" / chain
    shutil.copytree(FIXTURES / chain, folder)
    return folder


def edit(name: str, change: Callable[[Any], object]) -> Edit:
    """An edit of one file's data (``change`` mutates it in place)."""

    def apply(folder: Path) -> None:
        path = folder / name
        data = json.loads(path.read_text(encoding="utf-8"))
        change(data)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    return apply


def test_there_are_clean_chains_in_every_style() -> None:
    assert len(CLEAN_CHAINS) == 8


@pytest.mark.parametrize("chain", CLEAN_CHAINS)
def test_a_clean_fixture_chain_gives_no_findings(chain: str, tmp_path: Path) -> None:
    copy_of(chain, tmp_path)
    findings = lint(tmp_path)
    assert [f"{f.code} {f.path}:{f.line} {f.message}" for f in findings] == []


# --- single-defect copies ---------------------------------------------------------------------


def _append(key: str, value: Any, *path: str) -> Callable[[Any], None]:
    def change(data: Any) -> None:
        for part in path:
            data = data[part]
        data[key].append(value)

    return change


def _unclassified(data: Any) -> None:
    data["properties_believed"].append(
        {
            "property": "export_invoices streams rows in constant memory",
            "confidence": "low",
            "evidence": "design",
        }
    )


def _twice(data: Any) -> None:
    first = data["property_verification"]["confirmed"][0]
    data["property_verification"]["confirmed"].append(
        first.split(" \u2014 ")[0] + " \u2014 rechecked, same result"
    )


def _orphan(data: Any) -> None:
    data["property_verification"]["confirmed"].append("Dark mode renders correctly in every browser")


def _bug_about_something_else(data: Any) -> None:
    # Shares a number, "line" and "byte" with the falsified entry, and nothing it is about.
    data["bugs_found"] = [
        {
            "severity": "low",
            "description": "The CSV export pads every line with a trailing byte",
            "location": "app/export.py:60 (line 60)",
            "counterexample": "export_csv([row]) returns 'a,b\\n\\x00' instead of 'a,b\\n' for 60 rows",
            "suggested_fix": "Strip the padding byte",
        }
    ]


def _reworded_gap(data: Any) -> None:
    data["coverage_gaps"].append(
        "No test runs two transactions at the same time for two concurrent POST /api/v1/appointments "
        "on one slot, so the partial unique index turning the second insert into SlotTaken is unchecked"
    )


def _padded_vague_gap(data: Any) -> None:
    data["coverage_gaps"][2] = "Some edge cases in the cancellation logic may not be fully covered yet"


def _counterexample(text: str) -> Callable[[Any], None]:
    def change(data: Any) -> None:
        data["bugs_found"][0]["counterexample"] = text

    return change


def _untraced_criterion(data: Any) -> None:
    data["acceptance_criteria"].append("Exported invoices carry the seller's VAT number in the PDF footer")


def _rework_after_approval(folder: Path) -> None:
    def approve(data: Any) -> None:
        data.update(verdict="approved", quality_score=8)
        for issue in data["issues"]:
            issue["severity"] = "low"

    edit(REVIEW, approve)(folder)


def _new_rework_file(folder: Path) -> None:
    shutil.copyfile(FIXTURES / REWORK / "rework-1.json", folder / "rework-1.json")
    edit("rework-1.json", lambda d: d.update(original_review_path=REVIEW, verdict="changes_requested"))(
        folder
    )


def _test_before_dev_in_rework(folder: Path) -> None:
    """The second cycle's test handoff numbered (and stamped) before its dev handoff."""
    dev, test = folder / "05-dev-agent.json", folder / "06-test-agent.json"
    dev_data, test_data = (json.loads(p.read_text(encoding="utf-8")) for p in (dev, test))
    dev_data["timestamp"], test_data["timestamp"] = test_data["timestamp"], dev_data["timestamp"]
    dev.unlink()
    test.unlink()
    (folder / "05-test-agent.json").write_text(json.dumps(test_data, indent=2), encoding="utf-8")
    (folder / "06-dev-agent.json").write_text(json.dumps(dev_data, indent=2), encoding="utf-8")


def both(*edits: Edit) -> Edit:
    def apply(folder: Path) -> None:
        for one in edits:
            one(folder)

    return apply


def _falsified_count(chain: str) -> int:
    return len(
        json.loads((FIXTURES / chain / TEST).read_text(encoding="utf-8"))["property_verification"][
            "falsified"
        ]
    )


# (name, base chain, edit, expected (code, file, pointer))
DEFECTS: list[tuple[str, str, Edit, tuple[str, str, str]]] = [
    (
        "unclassified property",
        PLAIN,
        edit(DEV, _unclassified),
        ("NR301", DEV, "/properties_believed/5/property"),
    ),
    (
        "unclassified property, paraphrased chain",
        PARAPHRASED,
        edit(DEV, _unclassified),
        ("NR301", DEV, "/properties_believed/4/property"),
    ),
    (
        "property classified twice",
        PLAIN,
        edit(TEST, _twice),
        ("NR302", TEST, "/property_verification/confirmed/3"),
    ),
    (
        "property classified twice, shortened chain",
        SHORTENED,
        edit(TEST, _twice),
        ("NR302", TEST, "/property_verification/confirmed/3"),
    ),
    (
        "orphan classification",
        PLAIN,
        edit(TEST, _orphan),
        ("NR303", TEST, "/property_verification/confirmed/3"),
    ),
    (
        "orphan classification in the test handoff after a security handoff",
        SECURE,
        edit("04-test-agent.json", _orphan),
        ("NR303", "04-test-agent.json", "/property_verification/confirmed/2"),
    ),
    (
        "orphan classification in a rework cycle",
        REWORK,
        edit("06-test-agent.json", _orphan),
        ("NR303", "06-test-agent.json", "/property_verification/confirmed/3"),
    ),
    (
        "falsified property without a bug",
        PLAIN,
        edit(TEST, lambda d: d.update(bugs_found=[])),
        ("NR304", TEST, "/property_verification/falsified/0"),
    ),
    (
        "falsified property with a bug about something else",
        PLAIN,
        edit(TEST, _bug_about_something_else),
        ("NR304", TEST, "/property_verification/falsified/0"),
    ),
    ("reworded duplicate gap", PLAIN, edit(DEV, _reworded_gap), ("NR201", DEV, "/coverage_gaps/5")),
    ("padded vague gap", PLAIN, edit(DEV, _padded_vague_gap), ("NR202", DEV, "/coverage_gaps/2")),
    (
        "placeholder counterexample",
        PLAIN,
        edit(TEST, _counterexample("n/a\r\n...")),
        ("NR204", TEST, "/bugs_found/0/counterexample"),
    ),
    (
        "abstract counterexample",
        PLAIN,
        edit(TEST, _counterexample("Booking fails on iOS 17 keyboards")),
        ("NR205", TEST, "/bugs_found/0/counterexample"),
    ),
    (
        "vague reviewer focus",
        PLAIN,
        edit(
            TEST,
            lambda d: d.update(recommended_focus_for_reviewer="[bold red]the and/or cutoff logic[/bold red]"),
        ),
        ("NR207", TEST, "/recommended_focus_for_reviewer"),
    ),
    ("untraced criterion", PLAIN, edit(BA, _untraced_criterion), ("NR306", BA, "/acceptance_criteria/8")),
    (
        "untraced criterion, non-ASCII chain",
        NON_ASCII,
        edit(BA, _untraced_criterion),
        ("NR306", BA, "/acceptance_criteria/5"),
    ),
    (
        "token total off",
        PLAIN,
        edit(REVIEW, lambda d: d.update(total_tokens=1000)),
        ("NR307", REVIEW, "/total_tokens"),
    ),
    (
        "token total off in the rework cycle",
        REWORK,
        edit("07-review-agent.json", lambda d: d.update(total_tokens=1000)),
        ("NR307", "07-review-agent.json", "/total_tokens"),
    ),
    (
        "rework without request",
        PLAIN,
        both(_rework_after_approval, _new_rework_file),
        ("NR308", "rework-1.json", ""),
    ),
    (
        "stage order broken inside the rework cycle",
        REWORK,
        _test_before_dev_in_rework,
        ("NR104", "06-dev-agent.json", "/handoff_type"),
    ),
]


@pytest.mark.parametrize(
    ("base", "change", "expected"), [d[1:] for d in DEFECTS], ids=[d[0] for d in DEFECTS]
)
def test_a_single_defect_is_caught_at_its_place_and_nothing_else(
    base: str, change: Edit, expected: tuple[str, str, str], tmp_path: Path
) -> None:
    folder = copy_of(base, tmp_path)
    change(folder)
    found = {(f.code, Path(f.path).name, f.pointer) for f in lint(tmp_path)}
    assert found == {expected}


@pytest.mark.parametrize(
    "counterexample",
    [
        "Login can't proceed: submitting it raises 'KeyError'",
        "It doesn't save: saving 'notes.txt' gives 'Permission denied'",
        "the pet's name 'Zoë' displays as 'Zo?'",
    ],
)
def test_nr205_an_apostrophe_before_a_quoted_outcome_is_not_a_quote(counterexample: str) -> None:
    from pytest_handoff.profiles.neuralrelay.counterexamples import is_concrete

    assert is_concrete(counterexample)


def test_nr205_judges_a_very_long_counterexample_by_its_start() -> None:
    from pytest_handoff.profiles.neuralrelay.counterexamples import is_concrete

    assert not is_concrete("a" * 40_000)
    assert is_concrete("parse('x') returns None " + "a" * 40_000)
