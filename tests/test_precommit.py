"""The real pre-commit framework blocks a commit with a broken handoff and lets a clean one through."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.agent_loop import write_claimed_files
from tests.conftest import CHAIN_ID, REPO, SAMPLE_CHAIN, HookSnapshot, copy_chain

pytestmark = pytest.mark.slow  # end to end: whole pytest sessions, pre-commit or a server process

HOOKS = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())


@pytest.mark.parametrize(
    ("path", "matched"),
    [
        (".neuralrelay/handoffs/20260322-143052/02-dev-agent.json", True),
        (".neuralrelay/handoffs/20260322-143052/rework-1.json", True),
        ("services/api/.neuralrelay/handoffs/20260322-143052/01-ba-agent.json", True),
        (".neuralrelay/handoffs/loose.json", True),
        (".neuralrelay/config.json", False),
        ("src/handoffs/02-dev-agent.json", False),
        ("package.json", False),
    ],
)
def test_the_hook_runs_on_handoff_paths_only(path: str, matched: bool) -> None:
    hook = HOOKS[0]
    assert hook["id"] == "handoff-lint"
    assert hook["entry"].split()[0] == "handoff-lint"
    assert bool(re.search(hook["files"], path)) is matched


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)


@pytest.fixture
def pre_commit_home(hook_snapshot: HookSnapshot) -> Path:
    """One pre-commit cache per test process: the hook's isolated install happens once."""
    return hook_snapshot.home


@pytest.fixture
def repo_with_hook(tmp_path: Path, hook_snapshot: HookSnapshot) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {hook_snapshot.source.as_uri()}\n  rev: {hook_snapshot.rev}\n  hooks:\n  - id: handoff-lint\n"
    )
    copy_chain(SAMPLE_CHAIN, repo / ".neuralrelay" / "handoffs" / CHAIN_ID)
    # The work the chain claims, committed with it (evidence is on in the hook, as by default).
    write_claimed_files(repo, repo / ".neuralrelay" / "handoffs" / CHAIN_ID)
    return repo


def commit(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    env.pop("GITHUB_ACTIONS", None)
    git(repo, "add", "-A")
    runner = [sys.executable, "-m", "pre_commit", "run", "--color", "never"]
    return subprocess.run(runner, cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=600)


def test_pre_commit_lets_a_clean_chain_through(repo_with_hook: Path, pre_commit_home: Path) -> None:
    result = commit(repo_with_hook, pre_commit_home)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "handoff-lint" in result.stdout
    assert "Passed" in result.stdout


def test_pre_commit_blocks_a_broken_handoff_and_shows_the_finding(
    repo_with_hook: Path, pre_commit_home: Path
) -> None:
    review = repo_with_hook / ".neuralrelay" / "handoffs" / CHAIN_ID / "04-review-agent.json"
    text = review.read_text()
    assert '"total_tokens": 81200' in text
    review.write_text(text.replace('"total_tokens": 81200', '"total_tokens": 10'))
    result = commit(repo_with_hook, pre_commit_home)
    assert result.returncode == 1
    assert "Failed" in result.stdout
    assert "04-review-agent.json:" in result.stdout
    assert "NR307 token-total" in result.stdout


def test_pre_commit_on_one_touched_file_still_runs_chain_rules(
    repo_with_hook: Path, pre_commit_home: Path
) -> None:
    commit(repo_with_hook, pre_commit_home)
    git(repo_with_hook, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "chain", "--no-verify")
    dev = repo_with_hook / ".neuralrelay" / "handoffs" / CHAIN_ID / "02-dev-agent.json"
    dev.write_text(
        dev.read_text().replace(
            '"properties_believed": [',
            '"properties_believed": [\n    {"property": "cancel_appointment emails a notice", "confidence": "low", "evidence": "manual"},',
            1,
        )
    )
    result = commit(repo_with_hook, pre_commit_home)
    assert result.returncode == 1
    assert "02-dev-agent.json:" in result.stdout
    assert "NR301 unclassified-property" in result.stdout


def test_pre_commit_with_the_hook_for_all_sees_every_formats_files_and_leaves_others_alone(
    repo_with_hook: Path, pre_commit_home: Path
) -> None:
    # A Ralph session's prd.json without items, a misnamed file among Trinity's handoffs, and a
    # prd.json of another tool (no session beside it), committed together.
    (repo_with_hook / ".claude" / "session").mkdir(parents=True)
    (repo_with_hook / "prd.json").write_text('{"project": "x"}')
    folder = repo_with_hook / "dev-workspace" / "handoff"
    folder.mkdir(parents=True)
    body = '{"from": "dev", "to": "qa", "timestamp": "2026-04-02T10:00:00.000Z", "context": "x", "status": "pending"}'
    (folder / "dev-2026-04-02T10_00_00.000Z.json").write_text(body)
    (folder / "notes.json").write_text(body)
    (repo_with_hook / "tools").mkdir()
    (repo_with_hook / "tools" / "prd.json").write_text('{"userStories": []}')
    result = commit(repo_with_hook, pre_commit_home)
    assert result.returncode == 1
    assert "prd.json:1:1: HS001" in result.stdout
    assert "notes.json" in result.stdout
    assert "TR101" in result.stdout
    assert "tools/prd.json" not in result.stdout


def readme_config(source: str, rev: str) -> str:
    """The README's ``.pre-commit-config.yaml``, as it is but for the repository (a snapshot of this
    checkout) and its revision (the snapshot's commit)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(repos:\n.*?)```", readme, flags=re.DOTALL)
    assert block is not None
    config = block.group(1)
    assert "https://github.com/pytest-handoff/pytest-handoff" in config
    assert re.search(r"rev: v[\d.]+\n", config)
    config = config.replace("https://github.com/pytest-handoff/pytest-handoff", source)
    return re.sub(r"rev: v[\d.]+\n", f"rev: {rev}\n", config)


#: The built-in formats whose files the README's hook finds by its own patterns (a user's contracts
#: live where their globs say, and the hook's `files:` is overridden for them: see the next test).
BUILT_IN = ("neuralrelay", "craik", "ralph", "yolo", "trinity")


def test_pre_commit_with_the_readmes_config_blocks_the_broken_example_of_every_built_in_format(
    repo_with_hook: Path, pre_commit_home: Path
) -> None:
    from tests.test_examples import EXAMPLES, planted_errors, printed_location

    hook_repo = yaml.safe_load((repo_with_hook / ".pre-commit-config.yaml").read_text())["repos"][0]
    (repo_with_hook / ".pre-commit-config.yaml").write_text(
        readme_config(hook_repo["repo"], hook_repo["rev"])
    )
    for fmt in BUILT_IN:
        shutil.copytree(EXAMPLES / fmt / "broken", repo_with_hook / "examples" / fmt / "broken")

    result = commit(repo_with_hook, pre_commit_home)

    assert result.returncode == 1, result.stdout + result.stderr
    for fmt in BUILT_IN:
        for planted in planted_errors(fmt):
            location = printed_location(fmt, planted)
            assert re.search(
                rf"^{re.escape(location)}[:\s].*\b{planted.code}\b", result.stdout, re.MULTILINE
            ), f"{fmt}: {location} {planted.code} not reported at commit:\n{result.stdout}"


def test_pre_commit_with_the_contracts_hook_entry_of_the_docs_blocks_the_broken_contract_example(
    repo_with_hook: Path, pre_commit_home: Path
) -> None:
    from tests.test_examples import EXAMPLES, planted_errors, printed_location

    hook_repo = yaml.safe_load((repo_with_hook / ".pre-commit-config.yaml").read_text())["repos"][0]
    entry = re.search(
        r"```yaml\n(- id: handoff-lint\n.*?)```",
        (REPO / "docs" / "formats" / "contracts.md").read_text(),
        re.DOTALL,
    )
    assert entry is not None
    files = "^examples/contracts/broken/handovers/.*\\.yaml$"  # the entry's files:, for this project
    hooks = re.sub(r"files: .*\n", f"files: {files}\n", entry.group(1))
    config = readme_config(hook_repo["repo"], hook_repo["rev"]) + "".join(
        f"      {line}\n" for line in hooks.splitlines()
    )
    (repo_with_hook / ".pre-commit-config.yaml").write_text(config)
    shutil.copytree(
        EXAMPLES / "contracts",
        repo_with_hook / "examples" / "contracts",
        ignore=shutil.ignore_patterns("clean"),
    )
    (repo_with_hook / "pyproject.toml").write_text(
        '[tool.handoff.contracts]\nfile = "examples/contracts/handoff-contracts.yaml"\n'
    )

    result = commit(repo_with_hook, pre_commit_home)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "handoff-lint (contracts)" in result.stdout
    for planted in planted_errors("contracts"):
        location = printed_location("contracts", planted)
        assert re.search(rf"^{re.escape(location)}[:\s].*\b{planted.code}\b", result.stdout, re.MULTILINE), (
            f"{location} {planted.code} not reported at commit:\n{result.stdout}"
        )
