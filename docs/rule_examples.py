"""The rule examples: small projects that each plant the break of one rule, for the rule pages.

``tests/fixtures/rule-examples/<group>/<CODE>/`` holds a project's files as its format keeps them, or
only the files that differ from the project it is laid over, and ``example.toml``, which says what
is planted and how the project is made and checked (the README beside them describes its keys).
``docs/gen_rules.py`` lays each one out in a temporary folder, runs the checks on it as
``handoff-lint`` would, and takes the first finding of each code for its rule's page. A folder whose
name is no rule code is a base other examples are laid over, never an example itself.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]

REPO = Path(__file__).resolve().parents[1]
RULE_EXAMPLES = REPO / "tests" / "fixtures" / "rule-examples"
MANIFEST = "example.toml"
#: The date of a project's last commit (and only one, unless its example says otherwise).
DATE = "2026-01-01T00:00:00Z"
#: The file a link out of the project leads to: beside the project, in the temporary folder.
OUTSIDE = "outside.json"
_CODE = re.compile(r"[A-Z]{2}\d{3}")
#: The keys of example.toml (tests/fixtures/rule-examples/README.md says what each does).
_KEYS = frozenset(
    (
        "break",
        "also",
        "base",
        "remove",
        "rename",
        "stores",
        "evidence",
        "junit",
        "paths",
        "git",
        "link-out",
        "commit",
    )
)


class Commit(NamedTuple):
    """A commit made before the project's last: its date and the paths it adds."""

    date: str
    paths: tuple[str, ...]


class Run(NamedTuple):
    """How a project is made a repository and checked: what ``handoff-lint`` is told, and git's part."""

    evidence: bool = True
    junit: str = ""  # a JUnit XML report of the project, by its project-relative path
    paths: tuple[str, ...] = ()  # named on the command line, project-relative
    git: bool = True  # a git repository (when evidence is asked for)
    commits: tuple[Commit, ...] = ()
    links_out: tuple[str, ...] = ()  # made symbolic links to a file outside the project

    def command(self, evidence_finding: bool) -> str:
        """The ``handoff-lint`` command that prints the finding (evidence only for an EV finding)."""
        words = ["handoff-lint"]
        if self.junit:
            words += ["--evidence-junit", self.junit]
        elif self.evidence and evidence_finding:
            words.append("--evidence")
        return " ".join([*words, *self.paths])

    def overrides(self, project: Path) -> dict[str, Any]:
        """The settings the command's flags give."""
        given: dict[str, Any] = {"evidence": self.evidence or bool(self.junit)}
        if self.junit:
            given["evidence-junit"] = str(project / self.junit)
        return given

    def prepare(self, project: Path) -> None:
        """Make the laid-out project what the example needs: links out, then its git repository."""
        for link in self.links_out:
            outside = project.parent / OUTSIDE
            shutil.copyfile(project / link, outside)
            (project / link).unlink()
            (project / link).symlink_to(outside)
        if self.evidence and self.git:
            commit_project(project, self.commits)


def _git_environment(when: str) -> dict[str, str]:
    # The caller's GIT_* variables (a git hook running the generator) must not point git elsewhere.
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="docs",
        GIT_AUTHOR_EMAIL="docs@example.invalid",
        GIT_COMMITTER_NAME="docs",
        GIT_COMMITTER_EMAIL="docs@example.invalid",
        GIT_AUTHOR_DATE=when,
        GIT_COMMITTER_DATE=when,
    )
    return env


def _git(project: Path, when: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=project, env=_git_environment(when), check=True, capture_output=True, text=True
    )


def commit_project(project: Path, commits: tuple[Commit, ...] = ()) -> None:
    """A git repository of the project: each of ``commits`` in order, then the rest at :data:`DATE`
    (unless the last of ``commits`` took the rest: its paths are ``["."]``)."""
    _git(project, DATE, "init", "-q", "--template=")  # no sample hooks to write and delete
    for number, commit in enumerate(commits, 1):
        _git(project, commit.date, "add", "--", *commit.paths)
        _git(project, commit.date, "commit", "-q", "--no-verify", "-m", f"commit {number}")
    if commits and commits[-1].paths == (".",):
        return
    _git(project, DATE, "add", "-A")
    _git(project, DATE, "commit", "-q", "--no-verify", "-m", "fixtures")


@contextmanager
def no_repository_above(folder: Path) -> Iterator[None]:
    """Git looks for no repository above ``folder`` meanwhile (a temporary folder inside a checkout)."""
    before = os.environ.get("GIT_CEILING_DIRECTORIES")
    os.environ["GIT_CEILING_DIRECTORIES"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ["GIT_CEILING_DIRECTORIES"]
        else:
            os.environ["GIT_CEILING_DIRECTORIES"] = before


class RuleExample(NamedTuple):
    """One folder of tests/fixtures/rule-examples/, read from its ``example.toml``."""

    code: str
    folder: Path
    planted: str
    also: tuple[str, ...]  # codes of other rules that report the same break
    base: Path | None
    remove: tuple[str, ...]
    rename: Mapping[str, str]  # a path of the base -> its new path in the project
    stores: Mapping[str, str]  # store path in the project -> SQL file of the example
    run: Run

    def how(self) -> str:
        """What the page says of how the project was made from the example's files."""
        parts = [f"laid over `{self.base.relative_to(REPO).as_posix()}`" if self.base else "copied as it is"]
        if self.remove:
            parts.append("less its " + ", ".join(f"`{Path(path).name}`" for path in self.remove))
        parts += [f"`{Path(old).name}` renamed `{Path(new).name}`" for old, new in self.rename.items()]
        parts += [f"`{Path(store).name}` built from `{sql}`" for store, sql in self.stores.items()]
        parts += [f"`{Path(link).name}` a symbolic link out of the project" for link in self.run.links_out]
        if self.run.commits:
            parts.append(f"committed at the dates its `{MANIFEST}` gives")
        return "; ".join(parts)

    def lay(self, folder: Path, project: Path) -> None:
        """The project: the base less what is removed, the example's own files over it, its stores built."""
        if self.base is not None:
            shutil.copytree(self.base, project, dirs_exist_ok=True, symlinks=True)
            for path in self.remove:
                if (project / path).is_dir():
                    shutil.rmtree(project / path)
                else:
                    (project / path).unlink()
            for old, new in self.rename.items():
                (project / new).parent.mkdir(parents=True, exist_ok=True)
                (project / old).rename(project / new)
        inputs = {MANIFEST, *self.stores.values()}
        for file in sorted(path for path in folder.rglob("*") if path.is_file()):
            relative = file.relative_to(folder)
            if relative.as_posix() not in inputs:
                (project / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(file, project / relative)
        for store, sql in self.stores.items():
            build_store(project / store, (folder / sql).read_text(encoding="utf-8"))


def build_store(path: Path, script: str) -> None:
    """An SQLite file made by running ``script`` (SQL text: a dump, or statements of one's own)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    connection = sqlite3.connect(path)
    try:
        connection.executescript(script)
        connection.commit()
    finally:
        connection.close()


def _strings(table: Mapping[str, Any], key: str, where: Path) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _table(table: Mapping[str, Any], key: str, where: Path) -> dict[str, str]:
    value = table.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise ValueError(f"{where}: '{key}' must be a table of strings")
    return dict(value)


def read_example(folder: Path) -> RuleExample:
    """The example of ``folder``, from its ``example.toml``."""
    where = folder / MANIFEST
    table = tomllib.loads(where.read_text(encoding="utf-8"))
    unknown = set(table) - _KEYS
    if unknown or not isinstance(table.get("break"), str):
        raise ValueError(f"{where}: 'break' (what is planted) is required; unknown keys: {sorted(unknown)}")
    base = REPO / table["base"] if "base" in table else None
    if base is not None and not base.is_dir():
        raise ValueError(f"{where}: the base {table['base']} is no folder of this repository")
    commits = tuple(
        Commit(str(entry["date"]), _strings(entry, "paths", where)) for entry in table.get("commit", [])
    )
    run = Run(
        evidence=bool(table.get("evidence", False)) or "junit" in table,
        junit=str(table.get("junit", "")),
        paths=_strings(table, "paths", where),
        git=bool(table.get("git", True)),
        commits=commits,
        links_out=_strings(table, "link-out", where),
    )
    return RuleExample(
        code=folder.name,
        folder=folder,
        planted=table["break"],
        also=_strings(table, "also", where),
        base=base,
        remove=_strings(table, "remove", where),
        rename=_table(table, "rename", where),
        stores=_table(table, "stores", where),
        run=run,
    )


def rule_examples(root: Path = RULE_EXAMPLES) -> list[RuleExample]:
    """Every rule example, by group and code (``<group>/<CODE>/``)."""
    if not root.is_dir():
        return []
    return [
        read_example(folder)
        for group in sorted(path for path in root.iterdir() if path.is_dir())
        for folder in sorted(path for path in group.iterdir() if path.is_dir())
        if _CODE.fullmatch(folder.name)
    ]
