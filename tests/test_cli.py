"""``handoff-lint`` in-process: exit codes, formats, narrowing, annotations and rule docs."""

from __future__ import annotations

import json

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import default_registry
from tests.conftest import CHAIN_ID, ChainFolder
from tests.probes import HEAVY_MODULES, lint_in_fresh_process

REVIEW, DEV = "04-review-agent.json", "02-dev-agent.json"


def test_a_clean_repository_exits_0(in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert "no broken contracts" in capsys.readouterr().out


def test_a_broken_contract_exits_1_with_its_position(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))
    assert main([]) == 1
    out = capsys.readouterr().out
    line = in_repo.line_of(REVIEW, '"total_tokens"')
    assert (
        f".neuralrelay/handoffs/{CHAIN_ID}/04-review-agent.json:{line}:19: NR307 token-total [error]" in out
    )
    assert "\x1b[" not in out  # not a terminal: no colour


def test_usage_errors_exit_2_with_one_line(in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["does-not-exist.json"]) == 2
    assert main(["--output", "pdf=x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "handoff-lint: error: no such file or folder: does-not-exist.json",
        "handoff-lint: error: --output takes FORMAT=FILE with FORMAT one of text, json, sarif, github, markdown, got 'pdf=x'",
    ]


def test_a_bad_configuration_exits_2(
    in_repo: ChainFolder, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyprojecttoml("[tool.handoff]\nseverity = { NR106 = 'loud' }\n")
    assert main([]) == 2
    assert "NR106 = 'loud' is not a severity" in capsys.readouterr().err


def test_json_output_follows_the_documented_layout(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))
    assert main(["--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["version"] == 1
    assert report["summary"] == {"files": 4, "chains": 1, "errors": 1, "warnings": 0}
    error = next(f for f in report["findings"] if f["severity"] == "error")
    assert error["path"] == f".neuralrelay/handoffs/{CHAIN_ID}/04-review-agent.json"
    assert (error["code"], error["rule"], error["pointer"], error["chain"]) == (
        "NR307",
        "token-total",
        "/total_tokens",
        CHAIN_ID,
    )


def test_several_formats_are_written_at_once(
    in_repo: ChainFolder, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--output", "sarif=out.sarif", "--output", "markdown=out.md"]) == 0
    assert json.loads((pytester.path / "out.sarif").read_text())["version"] == "2.1.0"
    assert CHAIN_ID in (pytester.path / "out.md").read_text()


def test_select_ignore_and_severity_filter_findings(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))
    assert main(["--ignore", "NR307"]) == 0
    assert main(["--select", "NR2", "--format", "json"]) == 0
    capsys.readouterr()
    assert main(["--severity", "error", "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert [f["code"] for f in findings] == ["NR307"]


def test_a_named_file_is_checked_with_its_chain_but_reported_alone(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))
    # NR307 lands on the review and points at the dev and test handoffs: not at the requirements.
    assert main([str(in_repo.path("01-ba-agent.json"))]) == 0
    assert main([str(in_repo.path(REVIEW))]) == 1
    assert main([str(in_repo.path("01-ba-agent.json")), "--whole-chain"]) == 1


def test_in_github_actions_it_annotates_and_writes_the_step_summary(
    in_repo: ChainFolder,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    assert main([]) == 1
    out = capsys.readouterr().out
    line = in_repo.line_of(REVIEW, '"total_tokens"')
    assert (
        f"::error file=.neuralrelay/handoffs/{CHAIN_ID}/04-review-agent.json,line={line},endLine={line},"
        f"col=19,endColumn=20,title=NR307 token-total::" in out
    )
    assert "NR307" in summary.read_text()


def test_handoff_text_cannot_inject_a_workflow_command(
    in_repo: ChainFolder, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "x\n::add-mask::secret\r\n::set-output name=a::b\n::stop-commands::tok"
    in_repo.edit(DEV, lambda d: d["coverage_gaps"].append(hostile))
    in_repo.edit(DEV, lambda d: d["coverage_gaps"].append(hostile))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    main(["--format", "github"])
    lines = capsys.readouterr().out.splitlines()
    assert lines
    assert all(line.startswith(("::error ", "::warning ", "::notice")) for line in lines)


def test_explain_prints_a_rules_documentation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "NR301"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NR301 unclassified-property (default severity: error)")
    for part in ("**What it does**", "**Why is this bad?**", "**Example**", "**Use instead**"):
        assert part in out
    assert main(["explain", "XX999"]) == 2


def test_explain_ends_with_the_address_of_the_rules_page(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "nr208", "HF001"]) == 0
    out = capsys.readouterr().out
    assert "\nDocumentation: https://pytest-handoff.github.io/pytest-handoff/rules/NR208/\n" in out
    assert out.endswith("\nDocumentation: https://pytest-handoff.github.io/pytest-handoff/rules/HF001/\n")


def test_every_rule_has_four_part_documentation(capsys: pytest.CaptureFixture[str]) -> None:

    assert main(["rules"]) == 0
    listed = capsys.readouterr().out.splitlines()
    rules = default_registry().all_rules()
    assert len(listed) == len(rules) >= 30
    for rule in rules.values():
        assert all(
            part in rule.doc for part in ("What it does", "Why is this bad?", "Example", "Use instead")
        ), rule.code


def test_the_neuralrelay_examples_are_one_clean_and_one_broken_chain(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.conftest import EXAMPLES

    monkeypatch.chdir(EXAMPLES / "neuralrelay")
    assert main(["clean"]) == 0
    capsys.readouterr()
    assert main(["broken", "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["summary"]["errors"] == 10


def test_a_selection_that_names_no_rule_is_a_usage_error(
    in_repo: ChainFolder, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--select", "NR999"]) == 2
    assert "'NR999' matches no rule code" in capsys.readouterr().err


def test_walking_a_folder_ignores_json_that_only_looks_like_a_handoff(
    in_repo: ChainFolder, pytester: pytest.Pytester
) -> None:
    (pytester.path / "data").mkdir()
    (pytester.path / "data" / "01-config.json").write_text('{"a": 1}')
    assert main([]) == 0
    assert main(["data/01-config.json"]) == 1  # named explicitly: recognised by its name


def test_the_file_size_limit_is_configurable(
    in_repo: ChainFolder, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyprojecttoml("[tool.handoff]\nmax-file-size = 4000\n")
    assert main([]) == 1
    assert "HF006 file-too-large" in capsys.readouterr().out


def test_the_cache_dir_option_reuses_results(
    in_repo: ChainFolder, pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--cache-dir", "c"]) == 0
    assert list((pytester.path / "c").rglob("*.json"))
    assert main(["--cache-dir", "c"]) == 0


def test_many_chains_give_the_same_findings_on_several_processes(
    in_repo: ChainFolder,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import shutil

    import pytest_handoff.pipeline.parallel as engine

    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))
    for n in range(1, 6):
        shutil.copytree(in_repo.directory, in_repo.directory.with_name(f"20260323-10000{n}"))
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 2)
    assert main(["--format", "json", "--jobs", "1"]) == 1
    serial = capsys.readouterr().out
    assert main(["--format", "json", "--jobs", "2"]) == 1
    assert capsys.readouterr().out == serial
    assert json.loads(serial)["summary"]["chains"] == 6


def test_checking_leaves_the_hosts_garbage_collection_thresholds_as_they_were(
    in_repo: ChainFolder, pytester: pytest.Pytester
) -> None:
    import gc
    from concurrent.futures import ThreadPoolExecutor

    from pytest_handoff.pipeline.run import check_paths
    from pytest_handoff.values.settings import Settings

    before = gc.get_threshold()
    while_checking: list[int] = []

    def check(_: int) -> object:
        progress = lambda refs, done: while_checking.append(gc.get_threshold()[0])  # noqa: E731
        return check_paths(
            [in_repo.directory],
            pytester.path,
            Settings(),
            jobs=1,
            progress=progress,
            registry=default_registry(),
        )

    with ThreadPoolExecutor(4) as threads:
        list(threads.map(check, range(16)))
    assert gc.get_threshold() == before
    assert max(while_checking) >= 10_000 > before[0]  # collected less often while checking
    gc.set_threshold(0)  # a host that turned collection off keeps it off
    try:
        check(0)
        assert while_checking[-1] == 0
    finally:
        gc.set_threshold(*before)


def test_checking_one_clean_file_imports_nothing_heavy_and_no_other_format(in_repo: ChainFolder) -> None:
    # Reporters' rich, jsonschema (only for schema errors), the process pool, entry-point
    # metadata, and what dataclasses, argparse's help width and strptime pull in: each costs the
    # pre-commit hook milliseconds, and checking one clean file needs none of them.
    probe = lint_in_fresh_process([str(in_repo.path("02-dev-agent.json"))], in_repo.directory)
    assert (probe.code, probe.loaded(HEAVY_MODULES), probe.formats) == (0, [], ["neuralrelay"])


def test_chains_checked_from_two_threads_at_once_keep_their_own_results(
    in_repo: ChainFolder, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    import pytest_handoff.pipeline.parallel as engine
    from pytest_handoff.pipeline.run import check_paths
    from pytest_handoff.values.settings import Settings

    in_repo.edit(REVIEW, lambda d: d.update(total_tokens=10))  # every chain has a finding
    handoffs = in_repo.directory.parent
    for n in range(1, 8):
        shutil.copytree(in_repo.directory, handoffs / f"20260323-10000{n}")
    monkeypatch.setattr(engine, "PARALLEL_THRESHOLD", 2)
    folders = sorted(handoffs.iterdir())
    batches = [folders[:4], folders[4:]]

    def check(batch: list[Path]) -> list[engine.GroupResult]:
        return check_paths(batch, pytester.path, Settings(), jobs=2, registry=default_registry())[1]

    for _ in range(3):
        with ThreadPoolExecutor(2) as threads:
            for results in threads.map(check, batches):
                for result in results:
                    assert result.findings
                    assert {f.chain for f in result.findings} == {result.ref.group_id}
                    assert all(
                        f.path.startswith(f".neuralrelay/handoffs/{result.ref.group_id}/")
                        for f in result.findings
                    )


def test_a_run_without_evidence_loads_none_of_its_machinery(in_repo: ChainFolder) -> None:
    machinery = [
        "pytest_handoff.rules.evidence.rules",
        "pytest_handoff.rules.evidence.repository",
        "subprocess",
    ]
    probe = lint_in_fresh_process([str(in_repo.path("02-dev-agent.json"))], in_repo.directory)
    assert (probe.code, probe.loaded(machinery)) == (0, [])
