"""Fixtures built on handoff chains: our own under tests/fixtures/, the examples, and the public corpus."""

from __future__ import annotations

# Imported before any pytester run: a module first imported inside one is dropped from
# sys.modules when the run ends, and a later process pool would pickle classes of a second copy.
import concurrent.futures.process  # noqa: F401
import importlib
import importlib.util
import json
import os
import pkgutil
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import pytest
import yaml  # noqa: F401  (imported before any pytester run, as the modules below)

import pytest_handoff
from pytest_handoff.pipeline.check import check_group
from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.validation.schemas import compiled_validator

pytest_plugins = ["pytester"]

# The suite starts Python often (pytester, pre-commit, the MCP server, the CLI): let every process
# cache bytecode, as users' Pythons do, even where the environment turns that off for the shell.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Fixtures are data: a rule example's project has test files of its own (tests/fixtures/rule-examples/
# evidence/clean/tests/), which are the claims of its handoffs, not tests of this repository.
collect_ignore = ["fixtures"]

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
#: Chains of our own, one folder per chain (tests/fixtures/neuralrelay/README.md says what each is for).
FIXTURES = REPO / "tests" / "fixtures" / "neuralrelay"
FIXTURE_CHAINS = sorted(path for path in FIXTURES.iterdir() if path.is_dir())
#: The primary chain every rule test starts from: plain style, no findings (veterinary clinic booking).
CHAIN_ID = "20260511-091500"
SAMPLE_CHAIN = FIXTURES / CHAIN_ID
#: A second clean chain, for tests that need two (CSV export of invoices, shipped as an example).
OTHER_CHAIN_ID = "20261103-091500"
OTHER_CHAIN = EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / OTHER_CHAIN_ID

# The public NeuralRelay corpus, beside the checkout in CI only: tests on it are an extra layer.
CORPUS = REPO.parent / "shared" / "corpus"
NEURALRELAY_CORPUS = CORPUS / "neuralrelay"
CORPUS_SAMPLE_CHAIN = NEURALRELAY_CORPUS / "examples" / "sample-handoffs"
CORPUS_SELF_TEST_CHAIN = NEURALRELAY_CORPUS / "tests" / "self-test" / "expected-handoffs"
CORPUS_CHAIN_ID = "20260322-143052"

# Import every module once here: pytester's in-process runs then reuse them instead of
# importing (and compiling schemas) again for every run, and never make a second copy of a
# module first imported inside a run (its classes would not be the first copy's).
for _module in pkgutil.walk_packages(pytest_handoff.__path__, "pytest_handoff."):
    importlib.import_module(_module.name)
default_registry().all_profiles()
compiled_validator("neuralrelay/dev_to_test")
assert check_group


def needs_corpus() -> None:
    if not CORPUS_SAMPLE_CHAIN.is_dir():
        pytest.skip(
            f"the public NeuralRelay corpus is not beside this checkout (looked in {NEURALRELAY_CORPUS})"
        )


def copy_chain(source: Path, destination: Path) -> Path:
    destination.mkdir(parents=True, exist_ok=True)
    for file in sorted(source.glob("*.json")):
        shutil.copyfile(file, destination / file.name)
    return destination


class ChainFolder:
    """A writable copy of a chain, with helpers to break it on purpose."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def path(self, name: str) -> Path:
        return self.directory / name

    def load(self, name: str) -> Any:
        return json.loads(self.path(name).read_text(encoding="utf-8"))

    def edit(self, name: str, change: Callable[[Any], object]) -> Path:
        """Apply ``change`` to a file's data in place (its return value is ignored) and write it back."""
        data = self.load(name)
        change(data)
        self.write(name, data)
        return self.path(name)

    def write(self, name: str, data: Any) -> Path:
        self.path(name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return self.path(name)

    def line_of(self, name: str, needle: str, nth: int = 0) -> int:
        """1-based line of the ``nth`` line containing ``needle``."""
        hits = [
            i
            for i, line in enumerate(self.path(name).read_text(encoding="utf-8").splitlines(), 1)
            if needle in line
        ]
        return hits[nth]

    def relative(self, name: str, root: Path) -> str:
        return self.path(name).relative_to(root).as_posix()


def a_test_breaking_the_review(chain: ChainFolder) -> str:
    """A test module whose one test rewrites ``chain``'s review handoff as a pipeline under test
    would, with a total of tokens below the agents' own (NR307)."""
    return f"""
        import json, pathlib

        def test_the_pipeline_writes_a_handoff():
            path = pathlib.Path({str(chain.path("04-review-agent.json"))!r})
            data = json.loads(path.read_text())
            data["total_tokens"] = 10
            path.write_text(json.dumps(data, indent=2))
        """


@pytest.fixture
def sample_chain(pytester: pytest.Pytester) -> ChainFolder:
    """Our primary chain (veterinary clinic booking, no findings), copied under .neuralrelay/handoffs/."""
    return ChainFolder(copy_chain(SAMPLE_CHAIN, pytester.path / ".neuralrelay" / "handoffs" / CHAIN_ID))


@pytest.fixture
def run_handoffs(pytester: pytest.Pytester) -> Callable[..., pytest.RunResult]:
    """Run ``pytest --handoffs`` in the pytester folder (no cache, so runs are independent)."""

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest("--handoffs", "-p", "no:cacheprovider", *args)

    return run


@pytest.fixture
def in_repo(
    sample_chain: ChainFolder, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> ChainFolder:
    """The primary chain as the working directory of an in-process ``handoff-lint``, outside CI."""
    monkeypatch.chdir(pytester.path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return sample_chain


@pytest.fixture
def git_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project (a git root) as the working directory of an in-process run, outside CI."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path


def module_at(path: Path, name: str) -> ModuleType:
    """The module of the file at ``path`` (a script or generator outside the package), by its path:
    a package of the same name elsewhere on sys.path must not stand in for it."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class HookSnapshot(NamedTuple):
    """A git snapshot of this working tree to install the pre-commit hook from, its commit, and a
    pre-commit home: one per test process, so that pre-commit installs the hook once, not per test."""

    source: Path
    rev: str
    home: Path


@pytest.fixture(scope="session")
def hook_snapshot(tmp_path_factory: pytest.TempPathFactory) -> HookSnapshot:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    source = tmp_path_factory.mktemp("hook-source")
    shutil.copytree(
        REPO,
        source,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns(
            ".git", ".venv*", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "build", "dist", "site"
        ),
    )

    def git(*args: str) -> str:
        command = ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args]
        return subprocess.run(command, cwd=source, capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "snapshot", "--no-verify")
    return HookSnapshot(source, git("rev-parse", "HEAD").strip(), tmp_path_factory.mktemp("pre-commit-home"))
