"""How the tool words what it says: no doubled word in any message, every count agreeing with its
noun, and the closest known value offered for an unknown one."""

from __future__ import annotations

import ast
import io
import json
import re
import shutil
from pathlib import Path

from pytest_handoff.plugin.items import render_failure
from pytest_handoff.reporters import ReportContext, Summary
from pytest_handoff.reporters.excerpt import summary_counts
from pytest_handoff.reporters.markdown import MarkdownReporter
from pytest_handoff.reporters.text import TextReporter
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.groups import GroupRef, GroupResult
from pytest_handoff.values.view_model import ChainView, Stage
from pytest_handoff.values.wording import counted, did_you_mean
from pytest_handoff.views import chain as chain_view
from pytest_handoff.views import report as report_view
from tests.conftest import REPO

PACKAGE = REPO / "pytest_handoff"
GOLDEN = REPO / "tests" / "golden" / "findings.json"
#: Small words that a message never needs twice in a row ("starting at at character 5").
DOUBLED = re.compile(
    r"\b(a|an|the|at|of|is|in|on|to|and|or|for|by|with|as|are|be|it|its|no|not)\s+\1\b", re.I
)


def templates(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module, an f-string's fields written ``{}``: the messages' templates."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            text = "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
            found.append((node.lineno, text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
    return found


def test_no_message_template_of_any_rule_or_output_doubles_a_word() -> None:
    doubled = [
        f"{path.relative_to(REPO)}:{line}: {match.group(0)!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, text in templates(path)
        if (match := DOUBLED.search(text))
    ]
    assert doubled == []


def test_no_example_finding_of_any_rule_doubles_a_word() -> None:
    """The golden findings hold every rule example's findings (and the examples' and fixtures'),
    messages filled in: a word doubled across a template's field shows here."""
    golden: dict[str, list[str]] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    # Each is its head line, then its message, then the excerpt (handoff text, not ours).
    messages = [printed.split("\n")[1] for found in golden.values() for printed in found]
    assert len(messages) > 200
    assert [message for message in messages if DOUBLED.search(message)] == []


def test_the_doubled_word_check_sees_ck003s_old_message() -> None:
    assert DOUBLED.search("payload_json is not valid JSON: Unterminated string starting at at character 5")


# --- counts --------------------------------------------------------------------------------------


def test_a_count_agrees_with_its_noun() -> None:
    assert [counted(n, "chain") for n in (0, 1, 2)] == ["0 chains", "1 chain", "2 chains"]
    assert counted(1, "entry", "entries") == "1 entry"
    assert counted(3, "entry", "entries") == "3 entries"


FILE = ".neuralrelay/handoffs/20261103-091500/02-dev-agent.json"
ONE_ERROR = Finding(
    path=FILE, line=3, column=5, code="HS001", rule="schema-violation", severity=Severity.ERROR,
    chain="20261103-091500", message="missing required property 'timestamp'",
)  # fmt: skip
ONE_WARNING = Finding(
    path=FILE, line=1, column=1, code="NR106", rule="incomplete-chain", severity=Severity.WARNING,
    chain="20261103-091500", message="chain 20261103-091500 is incomplete: no review_final handoff",
)  # fmt: skip
ONE_NOTE = Finding(
    path=FILE, line=1, column=1, code="NR999", rule="a-note", severity=Severity.INFO,
    chain="20261103-091500", message="a note",
)  # fmt: skip


def one_of_each() -> GroupResult:
    """A run of exactly one chain of one file, with one error and one warning."""
    ref = GroupRef(
        "neuralrelay", "20261103-091500", Path(".neuralrelay/handoffs/20261103-091500"), (Path(FILE),)
    )
    return GroupResult(ref=ref, findings=(ONE_ERROR, ONE_WARNING), notes=())


def singular_view() -> ChainView:
    stage = Stage(FILE, "dev-agent", "dev_to_test", "2026-11-03T09:15:00Z", 1200, True)
    return ChainView(
        "neuralrelay", "20261103-091500", ".neuralrelay/handoffs/20261103-091500", "2026-11-03T09:15:00Z",
        "Export invoices", (stage,), total_tokens=1200, findings=(ONE_ERROR, ONE_WARNING),
    )  # fmt: skip


def written(reporter_class: type[TextReporter] | type[MarkdownReporter]) -> str:
    stream = io.StringIO()
    reporter = reporter_class(stream, ReportContext(root=Path.cwd()))
    summary = Summary()
    summary.add(one_of_each())
    summary.claims = 1
    reporter.handle(one_of_each())
    reporter.finish(summary)
    return stream.getvalue()


PLURAL_OF_ONE = re.compile(r"\b1 (chains|files|errors|warnings|findings|notes|claims|items|entries|lines)\b")


def test_a_run_of_one_chain_one_file_one_error_and_one_warning_says_each_in_the_singular() -> None:
    view = singular_view()
    report = report_view.Report((view,), None)
    said = {
        "text": written(TextReporter),
        "markdown": written(MarkdownReporter),
        "counts": summary_counts([ONE_ERROR, ONE_WARNING]),
        "a note": summary_counts([ONE_NOTE]),
        "failure": render_failure(one_of_each()),
        "chain": "\n".join(f"{label}: {value}" for label, value in chain_view.sections(view)[0].lines),
        "report": "\n".join(
            [report_view.title(report), *(f"{k}: {v}" for k, v in report_view.sections(report)[0].lines)]
        ),
    }
    assert {
        name: PLURAL_OF_ONE.findall(text) for name, text in said.items() if PLURAL_OF_ONE.search(text)
    } == {}
    assert "**1 error** and 1 warning in 1 file of 1 chain." in said["markdown"]
    assert said["counts"] == "1 error, 1 warning"
    assert said["a note"] == "1 note"
    assert said["failure"].startswith("handoff chain 20261103-091500: 1 error, 1 warning in 1 file\n")
    assert "Findings: 1 error, 1 warning" in said["chain"]
    assert said["report"].startswith("Handoff report: 1 chain\n")
    assert "Tokens: 1,200 in 1 chain (1,200 a chain)" in said["report"]


# --- did you mean --------------------------------------------------------------------------------


def test_did_you_mean_names_the_closest_known_value_or_nothing() -> None:
    assert did_you_mean("devloper", ("pm", "developer", "qa")) == "; did you mean 'developer'?"
    assert did_you_mean("zzz", ("pm", "developer", "qa")) == ""
    assert did_you_mean("lead", ("leader",), cutoff=0.9) == ""


#: Where handoffs are judged: every suggestion there comes from the one helper.
JUDGING = ("profiles", "rules", "validation")


def test_a_suggestion_for_an_unknown_handoff_value_comes_from_the_one_helper() -> None:
    """Worded in one place (values/wording.py), the suggestion reads alike in every format."""
    own = [
        path.relative_to(REPO).as_posix()
        for folder in JUDGING
        for path in sorted((PACKAGE / folder).rglob("*.py"))
        if re.search(r"get_close_matches|did you mean", path.read_text(encoding="utf-8"))
    ]
    assert own == []


def test_hs002_hs001_and_nr101_suggest_the_neuralrelay_type_value_and_agent_closest_to_unknown_ones(
    tmp_path: Path,
) -> None:
    from pytest_handoff.api import check
    from pytest_handoff.values.settings import Settings

    shutil.copytree(REPO / "examples" / "neuralrelay" / "clean" / ".neuralrelay", tmp_path / ".neuralrelay")
    chain = tmp_path / ".neuralrelay" / "handoffs" / "20261103-091500"
    settings = Settings(evidence=False)

    def message(code: str, name: str, content: str) -> str:
        (found,) = [
            f.message
            for f in check(chain / name, content, root=tmp_path, settings=settings)
            if f.code == code
        ]
        return found

    dev = (chain / "02-dev-agent.json").read_text(encoding="utf-8")
    review = (chain / "04-review-agent.json").read_text(encoding="utf-8")
    typo = dev.replace('"handoff_type": "dev_to_test"', '"handoff_type": "dev-to-test"')
    assert message("HS002", "02-dev-agent.json", typo).endswith("; did you mean 'dev_to_test'?")
    verdict = review.replace('"verdict": "approved"', '"verdict": "aproved"')
    assert message("HS001", "04-review-agent.json", verdict) == (
        '"aproved" is not one of "approved", "changes_requested", "needs_rework"; did you mean \'approved\'?'
    )
    assert message("NR101", "05-reveiw-agent.json", review).endswith("; did you mean 'review-agent'?")


def test_ev301_and_nr209_count_one_line_and_one_test_in_the_singular() -> None:
    from types import SimpleNamespace
    from typing import Any, cast

    from pytest_handoff.profiles.neuralrelay.handoff import check_unit_tests_add_up
    from pytest_handoff.rules.evidence.claims import Claim
    from pytest_handoff.rules.evidence.facts import past_the_end
    from pytest_handoff.values.settings import Settings

    claim = Claim(cast(Any, None), "/f", "location", "src/a.py", line=5)
    assert past_the_end(claim)(b"x = 1\n") == "src/a.py:5 is past the end of the file (1 line)"
    handoff = SimpleNamespace(data={"unit_tests_written": {"count": 0, "passing": 1}})
    (hit,) = check_unit_tests_add_up(cast(Any, handoff), Settings())
    assert hit.message == "1 test passing, but only 0 written"
