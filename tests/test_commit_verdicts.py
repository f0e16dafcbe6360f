"""The everyday paths give the right verdict: a commit, a named file, a deletion, the staged content.

Commits go through the real pre-commit framework and the real git hook (``hooks/pre-commit``), on
a copy of the clean example chain this repository ships.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.values.settings import Settings
from tests.conftest import REPO, ChainFolder, HookSnapshot, copy_chain

pytestmark = pytest.mark.slow  # end to end: whole pytest sessions, pre-commit or a server process

CLEAN_CHAIN = REPO / "examples" / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / "20261103-091500"
CHAIN = ".neuralrelay/handoffs/20261103-091500"
BA, DEV, TEST, REVIEW = "01-ba-agent.json", "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json"


def drop_a_classification(chain: ChainFolder) -> None:
    """The test handoff forgets one of the dev handoff's properties: NR301 on the dev handoff."""
    chain.edit(TEST, lambda d: d["property_verification"]["confirmed"].pop(1))


def overspend_the_dev_agent(chain: ChainFolder) -> None:
    """The dev agent's tokens pass the review's total: NR307 on the review."""
    chain.edit(DEV, lambda d: d.update(tokens_used=d["tokens_used"] + 20_000))


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-11-23T10:00:00Z", **extra}
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF"):
        env.pop(variable, None)
    # The plain git hook runs handoff-lint from PATH: this interpreter's.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def new_repo(path: Path) -> ChainFolder:
    """A git repository whose first commit holds the clean example chain."""
    path.mkdir()
    git(path, "init", "-q")
    chain = ChainFolder(copy_chain(CLEAN_CHAIN, path / CHAIN))
    git(path, "add", "-A")
    assert git(path, "commit", "-qm", "chain", "--no-verify").returncode == 0
    return chain


# --- a named file: its own findings, the ones that point at it, the chain's ---------------------


@pytest.fixture
def chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ChainFolder:
    copied = ChainFolder(copy_chain(CLEAN_CHAIN, tmp_path / CHAIN))
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return copied


def codes_named(chain: ChainFolder, *names: str, deleted: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    root = chain.directory.parents[2]
    _, results = check_paths(
        [Path(CHAIN, name) for name in names],
        root,
        Settings(),
        deleted=[Path(CHAIN, d) for d in deleted],
        registry=default_registry(),
    )
    return sorted((f.code, Path(f.path).name) for result in results for f in result.findings)


def test_nr301_placed_in_the_dev_handoff_belongs_to_the_test_handoff_it_points_at(chain: ChainFolder) -> None:
    drop_a_classification(chain)
    assert codes_named(chain, TEST) == [("NR301", DEV)]
    assert codes_named(chain, DEV) == [("NR301", DEV)]
    assert codes_named(chain, BA) == []  # the requirements have no part in it
    assert main([f"{CHAIN}/{TEST}"]) == 1
    assert main([f"{CHAIN}/{BA}"]) == 0


def test_nr307_placed_in_the_review_belongs_to_the_dev_handoff_it_points_at(chain: ChainFolder) -> None:
    overspend_the_dev_agent(chain)
    assert codes_named(chain, DEV) == [("NR307", REVIEW)]
    assert codes_named(chain, BA) == []
    assert main([f"{CHAIN}/{DEV}"]) == 1


def test_nr103_and_nr106_about_the_chain_belong_to_every_named_file_of_it(chain: ChainFolder) -> None:
    chain.path(TEST).unlink()
    expected = [("NR103", REVIEW), ("NR106", REVIEW)]
    assert codes_named(chain, BA) == expected
    assert codes_named(chain, BA, DEV) == expected  # once, though two files are named
    assert main([f"{CHAIN}/{BA}"]) == 1


def test_a_deleted_file_names_its_chain_nr103_nr106_and_a_deleted_chain_passes(chain: ChainFolder) -> None:
    drop_a_classification(chain)  # NR301: not about the chain, so not the deletion's business
    chain.path(REVIEW).unlink()
    assert codes_named(chain, deleted=(REVIEW,)) == [("NR106", TEST)]
    for name in (BA, DEV, TEST):
        chain.path(name).unlink()
    chain.directory.rmdir()
    assert codes_named(chain, deleted=(BA, DEV, TEST, REVIEW)) == []


def test_a_deleted_file_still_on_disk_is_left_out_of_its_chain(chain: ChainFolder) -> None:
    # `git rm --cached` keeps the file in the working tree; the commit has no 03.
    assert codes_named(chain, DEV, deleted=(TEST,)) == [("NR103", REVIEW), ("NR106", REVIEW)]


def test_a_deleted_file_outside_the_handoff_globs_names_no_chain(tmp_path: Path) -> None:
    fixtures = copy_chain(CLEAN_CHAIN, tmp_path / "tests" / "fixtures")
    (fixtures / TEST).unlink()
    _, results = check_paths(
        [], tmp_path, Settings(), deleted=[Path("tests", "fixtures", TEST)], registry=default_registry()
    )
    assert results == []
    copy_chain(CLEAN_CHAIN, tmp_path / CHAIN)
    (tmp_path / CHAIN / TEST).unlink()
    _, results = check_paths(
        [], tmp_path, Settings(), deleted=[Path(CHAIN, TEST)], registry=default_registry()
    )
    assert [f.code for result in results for f in result.findings] == ["NR103", "NR106"]


def test_pytest_handoffs_on_the_test_handoff_fails_for_nr301(pytester: pytest.Pytester) -> None:
    copied = ChainFolder(copy_chain(CLEAN_CHAIN, pytester.path / CHAIN))
    drop_a_classification(copied)
    result = pytester.runpytest("--handoffs", "-p", "no:cacheprovider", f"{CHAIN}/{TEST}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*02-dev-agent.json:*: NR301 *"])
    pytester.runpytest("--handoffs", "-p", "no:cacheprovider", f"{CHAIN}/{BA}").assert_outcomes(passed=1)


def test_staged_deletions_with_nothing_staged_checks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    chain = new_repo(tmp_path / "project")
    drop_a_classification(chain)
    monkeypatch.chdir(tmp_path / "project")
    assert main(["--staged-deletions"]) == 0  # the commit touches no handoff
    assert main([]) == 1


def test_staged_deletions_outside_git_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert main(["--staged-deletions"]) == 2
    assert "not in a git repository" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path))  # no git at all
    assert main(["--staged-deletions"]) == 2
    assert "--staged-deletions: cannot run git" in capsys.readouterr().err


# --- naming many files is linear ----------------------------------------------------------------


def test_naming_many_files_asks_the_file_system_a_number_of_times_linear_in_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = []
    for number in range(150):
        folder = tmp_path / ".neuralrelay" / "handoffs" / f"20261103-09{number // 60:02d}{number % 60:02d}"
        shutil.copytree(CLEAN_CHAIN, folder)
        named.append(folder / DEV)
    calls = []
    is_dir = Path.is_dir

    def counted(self: Path, *args: object, **kwargs: object) -> bool:
        calls.append(self)
        return is_dir(self)

    monkeypatch.setattr(Path, "is_dir", counted)
    _, results = check_paths(named, tmp_path, Settings(), registry=default_registry())
    assert len(results) == 150
    assert not any(result.failed for result in results)
    # One look per named file and per chain folder; comparing every chain with every named
    # path asked 150 x 150 times.
    assert len(calls) <= 3 * len(named)


def test_a_chain_inside_a_named_folder_is_reported_whole_even_with_files_named(chain: ChainFolder) -> None:
    drop_a_classification(chain)
    root = chain.directory.parents[2]
    for folder in (CHAIN, ".neuralrelay", "."):
        _, results = check_paths(
            [Path(CHAIN, BA), Path(folder)], root, Settings(), registry=default_registry()
        )
        assert [f.code for result in results for f in result.findings] == ["NR301"], folder


# --- real pre-commit --------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, hook_snapshot: HookSnapshot) -> ChainFolder:
    source, rev, _ = hook_snapshot
    chain = new_repo(tmp_path / "project")
    root = chain.directory.parents[2]
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {source.as_uri()}\n  rev: {rev}\n  hooks:\n  - id: handoff-lint\n"
    )
    git(root, "add", ".pre-commit-config.yaml")
    git(root, "commit", "-qm", "hooks", "--no-verify")
    return chain


def pre_commit(chain: ChainFolder, home: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit run`` on what is staged, as ``git commit`` would run it."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never"],
        cwd=chain.directory.parents[2],
        env=clean_env(PRE_COMMIT_HOME=str(home)),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_pre_commit_fails_a_commit_of_the_test_handoff_for_nr301_in_the_dev_handoff(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    drop_a_classification(project)
    git(project.directory, "add", TEST)
    result = pre_commit(project, hook_snapshot.home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{CHAIN}/{DEV}:" in result.stdout
    assert "NR301 unclassified-property" in result.stdout


def test_pre_commit_fails_a_commit_of_the_dev_handoff_for_nr307_on_the_review(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    overspend_the_dev_agent(project)
    git(project.directory, "add", DEV)
    result = pre_commit(project, hook_snapshot.home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{CHAIN}/{REVIEW}:" in result.stdout
    assert "NR307 token-total" in result.stdout


def test_pre_commit_fails_a_commit_that_deletes_a_handoff_for_nr103(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    git(project.directory, "rm", "-q", TEST)
    result = pre_commit(project, hook_snapshot.home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NR103 sequence-numbers" in result.stdout
    assert "NR106 incomplete-chain" in result.stdout


def test_pre_commit_on_a_range_fails_for_a_handoff_the_range_deletes(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    root = project.directory.parents[2]
    git(project.directory, "rm", "-q", TEST)
    git(root, "commit", "-qm", "delete", "--no-verify")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "run",
            "--color",
            "never",
            "--from-ref",
            "HEAD~1",
            "--to-ref",
            "HEAD",
        ],
        cwd=root,
        env=clean_env(PRE_COMMIT_HOME=str(hook_snapshot.home)),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NR103 sequence-numbers" in result.stdout


def test_pre_commit_fails_a_commit_that_untracks_a_handoff_left_on_disk(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    git(project.directory, "rm", "-q", "--cached", TEST)
    result = pre_commit(project, hook_snapshot.home)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NR103 sequence-numbers" in result.stdout


def test_pre_commit_passes_a_commit_that_deletes_a_whole_chain_or_touches_no_handoff(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    root = project.directory.parents[2]
    # A broken chain already committed is not the business of a commit that does not touch it.
    other = ChainFolder(copy_chain(CLEAN_CHAIN, root / ".neuralrelay" / "handoffs" / "20261104-100000"))
    drop_a_classification(other)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "broken", "--no-verify")
    (root / "notes.txt").write_text("unrelated\n")
    git(root, "add", "notes.txt")
    result = pre_commit(project, hook_snapshot.home)
    assert result.returncode == 0, result.stdout + result.stderr
    git(root, "rm", "-rq", CHAIN)
    result = pre_commit(project, hook_snapshot.home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "handoff-lint" in result.stdout
    assert "Passed" in result.stdout


def test_the_pre_commit_hook_writes_nothing_into_the_repository(
    project: ChainFolder, hook_snapshot: HookSnapshot
) -> None:
    root = project.directory.parents[2]
    git(project.directory, "rm", "-q", TEST)
    overspend_the_dev_agent(project)
    git(project.directory, "add", DEV)
    assert pre_commit(project, hook_snapshot.home).returncode == 1
    assert git(root, "status", "--porcelain", "--ignored", "--untracked-files=all").stdout.splitlines() == [
        f"M  {CHAIN}/{DEV}",
        f"D  {CHAIN}/{TEST}",
    ]


# --- the plain git hook -----------------------------------------------------------------------


@pytest.fixture
def hooked(tmp_path: Path) -> ChainFolder:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    chain = new_repo(tmp_path / "project")
    root = chain.directory.parents[2]
    hook = root / ".git" / "hooks" / "pre-commit"
    shutil.copyfile(REPO / "hooks" / "pre-commit", hook)
    hook.chmod(0o755)
    return chain


def git_commit(chain: ChainFolder, *args: str) -> subprocess.CompletedProcess[str]:
    return git(chain.directory.parents[2], "commit", "-qm", "change", *args, env=clean_env())


def test_the_git_hook_checks_the_staged_content_not_the_working_tree(hooked: ChainFolder) -> None:
    good = hooked.path(REVIEW).read_bytes()
    hooked.edit(REVIEW, lambda d: d.update(total_tokens=10))
    git(hooked.directory, "add", REVIEW)
    hooked.path(REVIEW).write_bytes(good)  # fixed in the working tree only
    result = git_commit(hooked)
    assert result.returncode != 0
    assert "NR307 token-total" in result.stdout + result.stderr
    # The other way round: a good file staged, a broken one in the working tree.
    git(hooked.directory, "add", REVIEW)
    hooked.edit(REVIEW, lambda d: d.update(total_tokens=10))
    result = git_commit(hooked, "--allow-empty")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_git_hook_checks_the_rest_of_the_chain_as_staged(hooked: ChainFolder) -> None:
    hooked.path(TEST).unlink()  # a gap in the working tree, not in the commit
    hooked.path(BA).write_text(hooked.path(BA).read_text() + "\n")
    git(hooked.directory, "add", BA)
    result = git_commit(hooked)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_git_hook_fails_a_commit_that_deletes_a_handoff_and_passes_a_deleted_chain(
    hooked: ChainFolder,
) -> None:
    root = hooked.directory.parents[2]
    git(hooked.directory, "rm", "-q", TEST)
    result = git_commit(hooked)
    assert result.returncode != 0
    assert "NR103 sequence-numbers" in result.stdout + result.stderr
    git(root, "rm", "-rq", CHAIN)
    result = git_commit(hooked)
    assert result.returncode == 0, result.stdout + result.stderr
    assert git(root, "ls-files").stdout == ""


def test_the_git_hook_reads_the_staged_configuration(hooked: ChainFolder) -> None:
    root = hooked.directory.parents[2]
    overspend_the_dev_agent(hooked)
    (root / "pyproject.toml").write_text('[tool.handoff]\nignore = ["NR307"]\n')
    git(root, "add", "-A")
    result = git_commit(hooked)
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads(hooked.path(DEV).read_text())["tokens_used"] > 38_600
