"""No git command the tool runs starts a program named by the repository's configuration.

An agent with a shell controls ``.git/config``. Every key there that names a program is set to a
script that records its run; each entry point that asks git (``handoff-lint --evidence``,
``--staged-deletions``, ``pytest --handoffs --evidence``, the API, the Claude Code hook's Stop and
Bash events) then runs in that repository, and nothing may have run.
"""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from pytest_handoff import api
from pytest_handoff.agents import claude_hook
from pytest_handoff.cli import main
from pytest_handoff.read.git import SAFE_CONFIG, driver_overrides, git_text, run_git
from pytest_handoff.rules.evidence.repository import forget_repositories
from tests.agent_loop import DEV, Project, Transcript, bash_payload, git, in_git, stop_payload
from tests.conftest import REPO

pytestmark = [
    pytest.mark.slow,  # real git repositories
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

#: Each configuration key that runs a program, with the name of the script it is set to
#: (a script of its own: gpg.program, for one, is run as a path, not through a shell).
HOSTILE_KEYS = {
    "core.fsmonitor": "fsmonitor",
    "core.pager": "pager",
    "diff.external": "external-diff",
    "gpg.program": "gpg",
    "gpg.ssh.program": "gpg-ssh",
    "filter.evil.clean": "clean",
    "filter.evil.smudge": "smudge",
    "filter.a=b.clean": "clean-a=b",
    "diff.evil.textconv": "textconv",
    "diff.evil.command": "diff-command",
}
#: Keys that make git use the programs above.
ENABLING_KEYS = {"log.showSignature": "true", "filter.evil.required": "true", "filter.a=b.required": "true"}


def make_hostile(root: Path) -> Path:
    """Every program-running key of ``root``'s repository set to a script that records its run;
    a signed commit reachable, and a tracked handoff's stat changed (so ``git status`` hashes it).
    Returns the record the scripts write to (absent while nothing ran)."""
    record = root.parent / "ran.txt"
    spies = root.parent / "spies"
    spies.mkdir()
    for name in HOSTILE_KEYS.values():
        # A filter passes its input through (as `cat` would) so that git stays content.
        (spies / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{record}"\ncat\n', encoding="utf-8")
        (spies / name).chmod(0o755)
    hooks = root.parent / "hooks"
    hooks.mkdir()
    for name in (
        "post-index-change",
        "pre-commit",
        "post-checkout",
        "reference-transaction",
        "fsmonitor-watchman",
    ):
        (hooks / name).write_text(f'#!/bin/sh\necho "hook {name}" >> "{record}"\n', encoding="utf-8")
        (hooks / name).chmod(0o755)
    (root / ".gitattributes").write_text("*.json filter=evil diff=evil\n*.md filter=a=b\n", encoding="utf-8")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-q", "-m", "attributes")
    # A commit carrying a signature header, made by hand (no key needed): log.showSignature
    # hands it to gpg.program.
    body = git(root, "cat-file", "commit", "HEAD")
    head, _, message = body.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----"
    signed = run_git(
        root,
        ["hash-object", "-t", "commit", "-w", "--stdin"],
        stdin=f"{head}\n{signature}\n\n{message}".encode(),
    )
    git(root, "update-ref", "refs/heads/signed", signed.out.decode().strip())
    for key, name in HOSTILE_KEYS.items():
        git(root, "config", key, str(spies / name))
    for key, value in {**ENABLING_KEYS, "core.hooksPath": str(hooks)}.items():
        git(root, "config", key, value)
    later = time.time() + 5
    for tracked in (root / "README.md", *root.rglob("*.json")):
        os.utime(tracked, (later, later))  # same content, new stat: status must read the file
    return record


def ran(record: Path) -> list[str]:
    return record.read_text(encoding="utf-8").splitlines() if record.exists() else []


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for variable in ("CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG_COUNT"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    made = in_git(Project(tmp_path / "repo"))
    monkeypatch.chdir(made.root)
    forget_repositories()
    return made


@pytest.fixture
def record(project: Project) -> Path:
    return make_hostile(project.root)


def test_the_hostile_repository_does_run_its_programs_under_plain_git(project: Project, record: Path) -> None:
    """The set-up is real: plain git commands start the configured programs."""
    git(project.root, "status", "--porcelain")
    git(project.root, "log", "--all")
    assert any(line.startswith("clean") for line in ran(record))
    assert any(line.startswith("gpg") for line in ran(record))


def test_handoff_lint_evidence_starts_no_configured_program(project: Project, record: Path) -> None:
    main(["--evidence", "--format", "json", "."])
    assert ran(record) == []


def test_staged_deletions_starts_no_configured_program(project: Project, record: Path) -> None:
    git(project.root, "rm", "-q", "--cached", project.relative(DEV))
    record.unlink(missing_ok=True)  # git rm itself hashed files through the filter
    main(["--staged-deletions", "--format", "json"])
    assert ran(record) == []


def test_the_api_with_evidence_starts_no_configured_program(project: Project, record: Path) -> None:
    api.check_folder(".", root=project.root, settings=api.Settings(evidence=True))
    assert ran(record) == []


def run_hook(sent: dict[str, object]) -> int:
    return claude_hook.main([], io.BytesIO(json.dumps(sent).encode()), io.StringIO(), io.StringIO())


def test_the_claude_code_stop_hook_starts_no_configured_program(project: Project, record: Path) -> None:
    (project.root / "pyproject.toml").write_text("[tool.handoff]\nevidence = true\n", encoding="utf-8")
    transcript = Transcript(project.root.parent / "t.jsonl", project.root).prompt("Write the dev handoff.")
    transcript.tool("Write", file_path=str(project.path(DEV)), content=project.text(DEV))
    assert run_hook(stop_payload(project, transcript.path)) == 0
    assert ran(record) == []


def test_the_claude_code_bash_hook_starts_no_configured_program(project: Project, record: Path) -> None:
    (project.root / "pyproject.toml").write_text("[tool.handoff]\nevidence = true\n", encoding="utf-8")
    assert run_hook(bash_payload(project, f"touch {project.relative(DEV)}")) == 0
    assert ran(record) == []


def test_pytest_handoffs_with_evidence_starts_no_configured_program(
    project: Project, record: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)  # the project is the rootdir, as when a user runs pytest in it
    result = pytester.runpytest_inprocess("--handoffs", "--handoff-evidence", "-p", "no:cacheprovider", "-rA")
    assert result.ret in (0, 1)
    result.stdout.fnmatch_lines(["*20261103-091500*"])
    assert ran(record) == []


@pytest.mark.parametrize(("key", "value"), SAFE_CONFIG)
def test_every_program_running_key_reaches_git_neutralised(
    project: Project, record: Path, key: str, value: str
) -> None:
    assert git_text(project.root, "config", "--get", key).strip() == value


def test_every_filter_and_diff_driver_the_config_names_is_emptied(project: Project, record: Path) -> None:
    overrides = dict(driver_overrides(project.root))
    for driver in ("filter.evil", "filter.a=b"):
        assert (
            overrides[f"{driver}.clean"]
            == overrides[f"{driver}.smudge"]
            == overrides[f"{driver}.process"]
            == ""
        )
        assert overrides[f"{driver}.required"] == "false"
    assert overrides["diff.evil.textconv"] == overrides["diff.evil.command"] == ""


def test_a_content_reading_command_through_the_helper_runs_no_filter(project: Project, record: Path) -> None:
    done = run_git(project.root, ["status", "--porcelain=v1", "-z"])
    assert done.code == 0
    assert ran(record) == []


# Modules that may start a process: the git helper, and the process pool (which starts Python).
MAY_START_PROCESSES = {"pytest_handoff/read/git.py"}
PROCESS_STARTERS = {"subprocess", "pty"}
OS_STARTERS = {"system", "popen", "spawnl", "spawnlp", "spawnv", "spawnvp", "posix_spawn", "posix_spawnp", "fork",
               "execv", "execvp", "execve", "execl", "execlp", "forkpty"}  # fmt: skip


def process_starts(source: str) -> list[str]:
    """What in ``source`` can start a program: an import of subprocess or pty, an ``os`` call that spawns."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] in PROCESS_STARTERS]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PROCESS_STARTERS:
            found.append(str(node.module))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"os.{alias.name}" for alias in node.names if alias.name in OS_STARTERS]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            found += [f"os.{node.attr}"] if node.attr in OS_STARTERS else []
    return found


def test_no_module_but_the_git_helper_starts_a_program() -> None:
    offenders = {
        path.relative_to(REPO).as_posix(): starts
        for path in sorted((REPO / "pytest_handoff").rglob("*.py"))
        if (starts := process_starts(path.read_text(encoding="utf-8")))
        and path.relative_to(REPO).as_posix() not in MAY_START_PROCESSES
    }
    assert offenders == {}


def test_the_process_scan_sees_each_way_to_start_a_program() -> None:
    assert process_starts("import subprocess") == ["subprocess"]
    assert process_starts("from subprocess import run") == ["subprocess"]
    assert process_starts("import os\nos.posix_spawnp('git', [], {})") == ["os.posix_spawnp"]
    assert process_starts("from os import system") == ["os.system"]
    assert process_starts("import os\nos.path.join('a')") == []


def test_no_transport_is_allowed_whatever_the_repository_allows(project: Project, record: Path) -> None:
    """A lazy fetch of a "partial clone" would run the remote's upload-pack: every transport is off,
    even when the repository's own config allows one (protocol.file.allow = always)."""
    git(project.root, "config", "protocol.file.allow", "always")
    git(project.root, "config", "core.repositoryformatversion", "1")
    git(project.root, "config", "extensions.partialClone", "origin")
    git(project.root, "config", "remote.origin.promisor", "true")
    git(project.root, "config", "remote.origin.url", str(project.root))
    git(project.root, "config", "remote.origin.uploadpack", str(project.root.parent / "spies" / "clean"))
    run_git(project.root, ["cat-file", "--batch-check"], stdin=b"deadbeef" * 5 + b"\n")
    assert ran(record) == []
