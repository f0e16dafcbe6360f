"""The plugin and engine under unusual use: warnings made errors, odd hook results, stray files."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.discovery import discover
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.user_checks import ExtraCheckError
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import Group
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import Settings
from tests.conftest import EXAMPLES, ChainFolder, copy_chain

Run = Callable[..., pytest.RunResult]
CLEAN_ID = "20261103-091500"
CLEAN = EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / CLEAN_ID
DEV, REVIEW = "02-dev-agent.json", "04-review-agent.json"
WARN_AS_ERROR = "error::pytest_handoff.plugin.HandoffContractWarning"


@pytest.fixture
def clean_chain(pytester: pytest.Pytester) -> ChainFolder:
    """The repository's clean example chain, copied under the pytester folder."""
    return ChainFolder(copy_chain(CLEAN, pytester.path / ".neuralrelay" / "handoffs" / CLEAN_ID))


def two_warnings(chain: ChainFolder, pytester: pytest.Pytester) -> None:
    """Break NR209 and NR307 and make both warnings."""
    chain.edit(DEV, lambda d: d["unit_tests_written"].update(passing=10**6))
    chain.edit(REVIEW, lambda d: d.update(total_tokens=10))
    pytester.makepyprojecttoml('[tool.handoff.severity]\nNR209 = "warning"\nNR307 = "warning"\n')


def failure_text(result: pytest.RunResult) -> str:
    """The FAILURES section of a run's output, without the captured trace."""
    return result.stdout.str().split(" FAILURES ")[1].split(" short test summary ")[0].split(" Captured ")[0]


# --- item 8: warnings turned into errors -----------------------------------------------------


def test_warnings_stay_warnings_without_a_filter(
    clean_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    two_warnings(clean_chain, pytester)
    result = run_handoffs()
    result.assert_outcomes(passed=1, warnings=2)


@pytest.mark.parametrize("how", ["-W", "filterwarnings"])
def test_warnings_made_errors_fail_the_chain_with_every_warning_listed(
    clean_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, how: str
) -> None:
    two_warnings(clean_chain, pytester)
    if how == "-W":
        result = run_handoffs("-W", WARN_AS_ERROR)
    else:
        pytester.makeini("[pytest]\nfilterwarnings =\n    error\n")
        result = run_handoffs()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"handoff chain {CLEAN_ID}: 2 warnings in 2 files, failing: warnings are errors in this run*",
            f"*{DEV}:*: NR209 unit-test-arithmetic [[]warning[]]*",
            f"*{REVIEW}:*: NR307 token-total [[]warning[]]*",
        ]
    )
    failure = failure_text(result)
    for internal in ("Traceback", "warn_explicit", "pluggy"):
        assert internal not in failure
    assert len(failure.splitlines()) < 30, failure


def test_errors_and_warnings_made_errors_are_reported_together(
    clean_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    two_warnings(clean_chain, pytester)
    clean_chain.edit("01-ba-agent.json", lambda d: d.update(estimated_complexity="huge"))  # HS001
    result = run_handoffs("-W", WARN_AS_ERROR)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"handoff chain {CLEAN_ID}: 1 error, 2 warnings in 3 files, failing: warnings are errors*",
            "*HS001 schema-violation [[]error[]] at /estimated_complexity*",
            "*NR209*",
            "*NR307*",
        ]
    )


# --- item 11: what a project's hook returns ------------------------------------------------


def test_user_hook_may_return_one_hit_instead_of_a_list(
    clean_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run
) -> None:
    pytester.makeconftest(
        """
        def pytest_handoff_check_chain(chain):
            return chain.hit(chain.first("review_final"), "/quality_score", "our bar is 9")
        """
    )
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    line = clean_chain.line_of(REVIEW, '"quality_score"')
    result.stdout.fnmatch_lines([f"*{REVIEW}:{line}:20: USER user-invariant*", "*our bar is 9*"])
    result.stdout.no_fnmatch_line("*AttributeError*")


@pytest.mark.parametrize(
    ("returned", "described"),
    [
        ('"our bar is 9"', "a str ('our bar is 9')"),
        ("[chain.first('review_final')]", "a list holding a Document"),
        ('{"pointer": "/quality_score"}', "a dict"),
    ],
)
def test_user_hook_returning_something_else_fails_saying_what_is_wrong(
    clean_chain: ChainFolder, pytester: pytest.Pytester, run_handoffs: Run, returned: str, described: str
) -> None:
    pytester.makeconftest(f"def pytest_handoff_check_chain(chain):\n    return {returned}\n")
    result = run_handoffs()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"pytest_handoff_check_chain returned {described}*",
            "*returns chain.hit(document, pointer, message), or a list of them*",
            "*conftest.py*",
        ]
    )
    failure = failure_text(result)
    for internal in ("Traceback", "AttributeError"):
        assert internal not in failure
    assert len(failure.splitlines()) < 8, failure


@pytest.mark.parametrize(
    ("pointer", "message", "said"),
    [
        (5, "bar", "a Hit whose pointer is an int (5), not a str"),
        ("/quality_score", None, "a Hit whose message is a NoneType, not a str"),
    ],
)
def test_a_project_check_s_malformed_hit_is_an_extra_check_error(
    pointer: object, message: object, said: str
) -> None:
    (ref,) = discover([CLEAN], EXAMPLES.parent, Settings(), registry=default_registry()).groups

    def project_rule(chain: Group) -> Iterator[Hit]:
        yield Hit(chain.documents[0], pointer, message)  # type: ignore[arg-type]

    with pytest.raises(ExtraCheckError) as raised:
        check_group(ref, Settings(), EXAMPLES.parent, [project_rule], registry=default_registry())
    assert str(raised.value) == said


def clean_findings(*hits: tuple[str, str]) -> tuple[Finding, ...]:
    """The clean example chain checked with a project rule that reports each (pointer, message)."""
    (ref,) = discover([CLEAN], EXAMPLES.parent, Settings(), registry=default_registry()).groups

    def project_rule(chain: Group) -> Iterator[Hit]:
        review = chain.first("review_final")
        assert review is not None
        for pointer, message in hits:
            yield chain.hit(review, pointer, message)

    return check_group(ref, Settings(), EXAMPLES.parent, [project_rule], registry=default_registry()).findings


def review_line(needle: str) -> int:
    lines = (CLEAN / REVIEW).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if needle in line)


def test_user_hit_at_an_existing_pointer_has_no_note() -> None:
    (finding,) = clean_findings(("/quality_score", "bar"))
    assert (finding.line, finding.column, finding.message) == (review_line('"quality_score"'), 20, "bar")


def test_user_hit_at_a_missing_pointer_is_shown_at_its_nearest_parent_with_a_note() -> None:
    (finding,) = clean_findings(("/issues/0/no_such_key", "bar"))
    assert finding.pointer == "/issues/0/no_such_key"
    assert finding.message == "bar (pointer /issues/0/no_such_key does not exist: shown at /issues/0)"
    assert finding.line == review_line('"issues"') + 1  # the first issue's opening brace


def test_user_hit_at_a_missing_top_level_key_is_shown_at_the_document_with_a_note() -> None:
    (finding,) = clean_findings(("/qualityscore", "bar"))
    assert (finding.line, finding.column) == (1, 1)
    assert finding.message == "bar (pointer /qualityscore does not exist: shown at the document root)"


def test_user_hit_at_a_key_name_without_slash_says_it_is_no_pointer() -> None:
    (finding,) = clean_findings(("quality_score", "bar"))
    assert (finding.line, finding.column) == (1, 1)
    assert finding.message == (
        "bar ('quality_score' is not a JSON pointer, which starts with '/': did you mean '/quality_score'? "
        "shown at the document root)"
    )


# --- item 12: a JSON file in a chain folder that is no handoff ---------------------------


@pytest.fixture
def with_metadata(
    clean_chain: ChainFolder, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.chdir(pytester.path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(variable, raising=False)
    stray = clean_chain.path("metadata.json")
    stray.write_text('{"run": 7, "model": "x"}\n', encoding="utf-8")
    return stray


def test_nr108_reports_a_stray_json_file_in_a_chain_folder_once(
    with_metadata: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--format", "json"]) == 0  # a warning: the chain still passes
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["chains"] == 1
    ((finding),) = report["findings"]
    assert (finding["code"], finding["rule"], finding["severity"]) == ("NR108", "stray-file", "warning")
    assert finding["path"].endswith(f"{CLEAN_ID}/metadata.json")
    assert (finding["line"], finding["chain"]) == (0, CLEAN_ID)
    assert "not a handoff" in finding["message"]


def test_nr108_under_pytest_is_one_warning_of_the_chain(with_metadata: Path, run_handoffs: Run) -> None:
    result = run_handoffs("--collect-only", "-q")
    result.stdout.fnmatch_lines([f"*::{CLEAN_ID}", "1 test collected*"])
    result = run_handoffs()
    result.assert_outcomes(passed=1, warnings=1)
    result.stdout.fnmatch_lines(["*metadata.json: NR108 stray-file*"])
    result.stdout.no_fnmatch_line("*HS002*")


def test_nr108_stray_file_is_still_searched_for_secrets(
    with_metadata: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    with_metadata.write_text(json.dumps({"run": 7, "token": token}, indent=2), encoding="utf-8")
    assert main([]) == 1
    out = capsys.readouterr().out
    assert "metadata.json: NR108 stray-file [warning]" in out
    assert "metadata.json:3:12: HX001 unredacted-secret [error] at /token" in out
    assert token not in out


def test_nr108_can_be_ignored_like_any_rule(with_metadata: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--format", "json", "--ignore", "NR108"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_nr108_does_not_fire_on_a_clean_chain_or_a_file_outside_any_chain_folder(
    clean_chain: ChainFolder,
    pytester: pytest.Pytester,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(pytester.path)
    assert main(["--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []
    loose = pytester.path / ".neuralrelay" / "handoffs" / "draft.json"  # beside the chains, not in one
    loose.write_text('{"a": 1}', encoding="utf-8")
    assert main(["--format", "json"]) == 1
    assert [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["HS002"]


def test_nr108_is_listed_and_documented(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    assert any(line.split()[:2] == ["NR108", "stray-file"] for line in capsys.readouterr().out.splitlines())
    rules = (EXAMPLES.parent / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    assert "| [NR108](NR108.md) | stray-file | warning |" in rules
    assert (EXAMPLES.parent / "docs" / "rules" / "NR108.md").is_file()
