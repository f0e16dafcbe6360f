"""The baseline (``--write-baseline``, ``--baseline``, ``baseline = FILE``) and ``per-file-ignores``:
what a project adopting the tool leaves out, and only that."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.baseline import baseline_text, known_in, read_baseline, without_lines
from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.findings import Finding, Severity
from pytest_handoff.values.groups import GroupRef, GroupResult
from tests.conftest import EXAMPLES

BROKEN = EXAMPLES / "neuralrelay" / "broken" / ".neuralrelay"
CHAIN = Path(".neuralrelay", "handoffs", "20261104-132000")


def finding(
    code: str = "NR204", line: int = 3, message: str = "bug 0 has no counterexample", path: str = "a.json"
) -> Finding:
    return Finding(
        path=path,
        line=line,
        column=1,
        code=code,
        severity=Severity.ERROR,
        message=message,
        pointer="/bugs_found/0",
    )


def result(*findings: Finding, shown_paths: dict[str, str] | None = None) -> GroupResult:
    return GroupResult(
        GroupRef("neuralrelay", "g", None, (Path("a.json"),)),
        tuple(findings),
        (),
        shown_paths=shown_paths or {},
    )


def entries(*findings: Finding) -> dict[tuple[str, str, str, str], int]:
    """The baseline of ``findings``, as a file written from them holds it."""
    data = json.loads(baseline_text([result(*findings)]))
    return {(e["code"], e["path"], e["pointer"], e["message"]): e["count"] for e in data["findings"]}


# --- matching ------------------------------------------------------------------------------


def test_a_known_finding_is_left_out_and_counted_as_baselined() -> None:
    checked = known_in(result(finding()), entries(finding()))
    assert checked.findings == ()
    assert checked.baselined == 1


def test_a_known_finding_whose_line_moved_is_still_known() -> None:
    moved = finding(line=40, message="bug 0 has no counterexample (see line 40, a.json:40:3)")
    known = finding(line=3, message="bug 0 has no counterexample (see line 3, a.json:3:1)")
    assert known_in(result(moved), entries(known)).findings == ()


@pytest.mark.parametrize(
    ("message", "without"),
    [
        ("declared at line 12", "declared at line N"),
        ("lines 3-5, 7 of the plan", "lines N of the plan"),
        ("cites src/app.py:41 beyond its 40 lines", "cites src/app.py:N beyond its 40 lines"),
        ("NR307 total 10 is less than 66,050", "NR307 total 10 is less than 66,050"),
    ],
)
def test_a_message_is_compared_without_its_line_numbers_and_nothing_else(message: str, without: str) -> None:
    assert without_lines(message) == without


def test_two_equal_findings_need_two_entries() -> None:
    twice = result(finding(line=3), finding(line=9))
    checked = known_in(twice, entries(finding()))
    assert [f.line for f in checked.findings] == [9]
    assert known_in(twice, entries(finding(line=3), finding(line=9))).findings == ()


@pytest.mark.parametrize(
    "other",
    [
        finding(code="NR205"),
        finding(path="b.json"),
        finding(message="bug 1 has no counterexample"),
        finding()._replace(pointer="/bugs_found/0/description"),
    ],
)
def test_a_finding_differing_in_code_path_pointer_or_message_is_new(other: Finding) -> None:
    checked = known_in(result(other), entries(finding()))
    assert checked.findings == (other,)
    assert checked.baselined == 0


def test_the_baseline_file_holds_paths_as_outputs_show_them_masked() -> None:
    secret_path = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + ".json"
    masked = "ghp_****.json"
    text = baseline_text([result(finding(path=secret_path), shown_paths={secret_path: masked})])
    assert secret_path not in text
    assert masked in text


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{", "is not JSON"),
        ('{"version": 2, "findings": []}', "not a baseline of version 1"),
        ('{"version": 1, "findings": [{"code": "NR204"}]}', "findings[0] is not a baseline entry"),
        (
            '{"version": 1, "findings": [{"code": "A", "path": "b", "pointer": "", "message": "m", "count": 0}]}',
            "findings[0]",
        ),
        ("[" * 100_000, "nests too deep"),
        (
            '{"version": 1, "findings": [{"code": "A", "path": "b", "pointer": "", "message": "m", "count": true}]}',
            "findings[0]",
        ),
    ],
)
def test_a_baseline_that_cannot_be_used_is_refused_with_its_place(
    tmp_path: Path, text: str, said: str
) -> None:
    (tmp_path / "b.json").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"b\.json.*" + re.escape(said)):
        read_baseline(tmp_path / "b.json", "b.json")


# --- the command line --------------------------------------------------------------------


@pytest.fixture
def broken(git_project: Path) -> Path:
    shutil.copytree(BROKEN, git_project / ".neuralrelay")
    return git_project


def json_run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    status = main(["--format", "json", "--no-evidence", *args])
    return status, json.loads(capsys.readouterr().out)


def test_write_baseline_then_baseline_reports_nothing_old_and_exits_0(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, before = json_run([], capsys)
    assert status == 1
    assert main(["--no-evidence", "--write-baseline", "baseline.json"]) == 0
    assert "baseline of" in capsys.readouterr().err
    status, after = json_run(["--baseline", "baseline.json"], capsys)
    assert (status, after["findings"]) == (0, [])
    assert after["summary"]["baselined"] == len(before["findings"])  # type: ignore[arg-type]


def test_a_new_finding_is_reported_past_the_baseline_and_moved_lines_are_not(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["--no-evidence", "--write-baseline", "baseline.json"])
    test_agent = CHAIN / "03-test-agent.json"
    data = json.loads((broken / test_agent).read_text(encoding="utf-8"))
    data["bugs_found"].append({**data["bugs_found"][0], "description": "a second bug"})  # see above, too
    # ... and every line moved down
    (broken / test_agent).write_text("\n\n\n" + json.dumps(data, indent=4), encoding="utf-8")
    status, after = json_run(["--baseline", "baseline.json"], capsys)
    assert status == 1
    pointers = {f["pointer"] for f in after["findings"]}  # type: ignore[union-attr,index]
    assert "/bugs_found/1/counterexample" in pointers
    assert "/bugs_found/0/counterexample" not in pointers


def test_a_finding_fixed_since_is_dropped_when_the_baseline_is_rewritten(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["--no-evidence", "--write-baseline", "baseline.json"])
    first = json.loads((broken / "baseline.json").read_text(encoding="utf-8"))["findings"]
    review = broken / CHAIN / "04-review-agent.json"
    data = json.loads(review.read_text(encoding="utf-8"))
    data["total_tokens"] = 10**6  # NR307 fixed
    review.write_text(json.dumps(data, indent=2), encoding="utf-8")
    main(["--no-evidence", "--baseline", "baseline.json", "--write-baseline", "baseline.json"])
    second = json.loads((broken / "baseline.json").read_text(encoding="utf-8"))["findings"]
    assert [entry for entry in first if entry["code"] != "NR307"] == second


def test_baseline_in_pyproject_is_read_relative_to_it_and_a_missing_one_is_refused(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (broken / "pyproject.toml").write_text(
        '[tool.handoff]\nbaseline = "ci/handoffs.json"\n', encoding="utf-8"
    )
    assert main(["--no-evidence"]) == 2
    assert (
        "ci/handoffs.json: baseline file not found (write it with --write-baseline" in capsys.readouterr().err
    )
    (broken / "ci").mkdir()
    assert main(["--no-evidence", "--write-baseline", "ci/handoffs.json"]) == 0
    assert json_run([], capsys)[0] == 0


# --- per-file-ignores --------------------------------------------------------------------


def test_per_file_ignores_leave_a_code_out_only_in_the_files_its_glob_matches(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, before = json_run([], capsys)
    codes = {(f["code"], f["path"]) for f in before["findings"]}  # type: ignore[union-attr,index]
    target = next(path for code, path in codes if code.startswith("NR2"))
    (broken / "pyproject.toml").write_text(
        f'[tool.handoff]\nper-file-ignores = {{"{target}" = ["NR2"]}}\n', encoding="utf-8"
    )
    _, after = json_run([], capsys)
    left = {(f["code"], f["path"]) for f in after["findings"]}  # type: ignore[union-attr,index]
    assert left == {(code, path) for code, path in codes if not (path == target and code.startswith("NR2"))}


def test_a_negated_glob_ignores_the_code_everywhere_else(
    broken: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (broken / "pyproject.toml").write_text(
        '[tool.handoff]\nper-file-ignores = {"!nowhere/*.json" = ["NR", "HS"]}\n', encoding="utf-8"
    )
    _, after = json_run([], capsys)
    assert not [f for f in after["findings"] if f["code"].startswith(("NR", "HS"))]  # type: ignore[union-attr,index]


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('per-file-ignores = {"*.json" = ["NR999"]}', "'per-file-ignores': 'NR999' matches no rule code"),
        ('per-file-ignores = ["NR2"]', "'per-file-ignores' must be a table"),
        ('per-file-ignores = {"*.json" = 3}', "must be a list of strings"),
    ],
)
def test_per_file_ignores_naming_no_rule_or_misshapen_is_refused(
    git_project: Path, capsys: pytest.CaptureFixture[str], table: str, said: str
) -> None:
    (git_project / "pyproject.toml").write_text(f"[tool.handoff]\n{table}\n", encoding="utf-8")
    assert main([]) == 2
    assert said in capsys.readouterr().err


def test_a_known_finding_whose_list_item_moved_up_is_still_known() -> None:
    old = finding(message="src/missing_004.py exists nowhere")._replace(pointer="/done/paths/4")
    moved = old._replace(pointer="/done/paths/3", line=9)
    assert known_in(result(moved), entries(old)).findings == ()


@pytest.mark.parametrize(
    ("code", "before", "after"),
    [
        # RL204 names an item of its own list: an earlier item went, both moved up by one.
        (
            "RL204",
            ("/items/4/id", "item id 'T-3' is already used by item 1"),
            ("/items/3/id", "item id 'T-3' is already used by item 0"),
        ),
        # NR302 names an item of another list: confirmed[0] went, the falsified entry stayed.
        (
            "NR302",
            (
                "/property_verification/falsified/0",
                "property P2 is classified again as falsified (already confirmed[2])",
            ),
            (
                "/property_verification/falsified/0",
                "property P2 is classified again as falsified (already confirmed[1])",
            ),
        ),
    ],
)
def test_a_known_finding_whose_message_names_a_list_position_that_moved_is_still_known(
    code: str, before: tuple[str, str], after: tuple[str, str]
) -> None:
    old = finding(code=code, message=before[1])._replace(pointer=before[0])
    moved = old._replace(message=after[1], pointer=after[0], line=8)
    assert known_in(result(moved), entries(old)).findings == ()


@pytest.mark.parametrize(
    ("pointer", "message"),
    [
        ("/items/9/id", "item id 'T-3' is already used by item 0"),  # moved down 5, its pair up 1
        ("/items/4/id", "item id 'T-3' is already used by item 2"),  # same place, another pair
        ("/items/7/id", "item id 'T-3' is already used by item 0"),
    ],
)
def test_a_finding_whose_named_item_did_not_move_with_it_is_new(pointer: str, message: str) -> None:
    old = finding(code="RL204", message="item id 'T-3' is already used by item 1")._replace(
        pointer="/items/4/id"
    )
    new = old._replace(pointer=pointer, message=message)
    assert known_in(result(new), entries(old)).findings == (new,)


def test_a_message_naming_another_item_at_the_same_place_is_new() -> None:
    old = finding(code="RL204", message="item id 'T-3' is already used by item 1")._replace(
        pointer="/items/4/id"
    )
    other = old._replace(message="item id 'T-9' is already used by item 1")
    assert known_in(result(other), entries(old)).findings == (other,)


@pytest.mark.parametrize(
    ("was", "now"),
    [
        ("test_status[404] is claimed but never run", "test_status[500] is claimed but never run"),
        ("expected integer, got array [1234]", "expected integer, got array [5]"),
    ],
)
def test_a_bracketed_number_that_is_no_list_position_tells_findings_apart(was: str, now: str) -> None:
    old = finding(code="EV401", message=was)._replace(pointer="/tests_run/1")
    for pointer in ("/tests_run/1", "/tests_run/0"):  # at its place, or its item moved up
        new = old._replace(message=now, pointer=pointer)
        assert known_in(result(new), entries(old)).findings == (new,)


def test_a_baseline_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text('\ufeff{"version": 1, "findings": []}', encoding="utf-8")
    assert read_baseline(tmp_path / "b.json", "b.json") == {}


def test_write_baseline_writes_through_no_planted_link_and_records_no_part_of_a_run(
    broken: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path_factory.mktemp("outside") / "precious.txt"
    precious.write_text("keep\n", encoding="utf-8")
    (broken / ".baseline.json.tmp").symlink_to(precious)
    assert main(["--no-evidence", "--write-baseline", "baseline.json"]) == 0
    assert precious.read_text(encoding="utf-8") == "keep\n"
    assert not (broken / "baseline.json").is_symlink()
    for part in (["--shard", "1/2"], ["--changed-since", "HEAD"]):
        assert main(["--no-evidence", "--write-baseline", "b2.json", *part]) == 2
        assert "records the whole run" in capsys.readouterr().err


def test_a_known_finding_still_at_its_place_is_matched_before_a_new_equal_one_elsewhere() -> None:
    known = finding(message="criterion is vague")._replace(pointer="/stages/1/criteria/0")
    new = known._replace(pointer="/stages/0/criteria/1", line=2)  # earlier in the file, same message
    assert known_in(result(new, known), entries(known)).findings == (new,)
