"""Evidence rules (EV): a handoff's claims checked against the repository it describes.

Each profile declares where its handoffs make claims (:attr:`Profile.claim_fields`); the engine
hands them to the group (:attr:`Group.claim_fields`). All verdicts of a group are made in one
pass (:func:`verdicts`), each rule reports its own. Git is asked only when a claim needs it, in
a few batched commands (:mod:`pytest_handoff.rules.evidence.repository`); offline, with no model.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from pytest_handoff.read.files import read_bounded
from pytest_handoff.read.times import parse_timestamp
from pytest_handoff.rules.evidence.claims import Claim, claims_of, looks_like_path
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.rules.evidence.junit import JUnitError, JUnitReport, read_junit
from pytest_handoff.rules.evidence.repository import GitError, Repository, repository_for
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: Minutes a commit may be dated after its handoff (clocks of two machines, a commit made while
#: the handoff was written) before EV202 calls it later than the handoff.
CLOCK_SLACK = timedelta(minutes=10)
#: Test files larger than this are not read to count their tests.
MAX_TEST_FILE = 2 * 1024 * 1024

# Test cases by language, counted as a documented heuristic (EV402).
_TEST_CASES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    ((".py",), re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(", re.MULTILINE)),
    (
        (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs"),
        re.compile(r"(?<![\w.])(?:it|test)(?:\.(?:only|skip|each\([^)]*\)))?[ \t]*\(", re.MULTILINE),
    ),
    ((".go",), re.compile(r"^func[ \t]+Test\w*[ \t]*\(", re.MULTILINE)),
    ((".rs",), re.compile(r"#\[(?:\w+::)?test\]")),
    ((".java", ".kt"), re.compile(r"@Test\b")),
    ((".rb",), re.compile(r"^[ \t]*(?:it[ \t]+['\"]|def[ \t]+test_)", re.MULTILINE)),
)


class Verdicts(NamedTuple):
    """What the evidence rules found in one group, by code."""

    hits: dict[str, list[Hit]]
    unavailable: list[Hit]  # EV001: what git could not tell, once per group


def verdicts(group: Group, settings: Settings) -> Verdicts:
    """Every evidence verdict of ``group`` (made once, kept in its memo)."""
    found: Verdicts | None = group.memo.get("evidence")
    if found is None:
        found = group.memo["evidence"] = _judge(group, settings)
    return found


def _judge(group: Group, settings: Settings) -> Verdicts:
    result = Verdicts({}, [])
    fields: Sequence[ClaimField] = group.claim_fields
    root = group.root
    if not fields or root is None:
        return result
    judge = _Judge(group, root, result, settings.evidence_junit)
    previous: datetime | None = None
    timed: list[tuple[Claim, datetime | None, datetime | None]] = []
    for document in group.valid():
        moment = _time_of(document, group.claim_time)
        timed.extend((claim, previous, moment) for claim in claims_of(document, fields))
        previous = moment or previous
    judge.commits_present([claim.value for claim, _, _ in timed if claim.kind == "commit"])
    for claim, since, until in timed:
        judge.claim(claim, since, until)
    return result


class _Judge:
    def __init__(self, group: Group, root: Path, result: Verdicts, junit: str) -> None:
        self.group = group
        self.root = root
        self.result = result
        self.junit = junit
        self.unreachable: set[str] = set()  # named commits no ref reaches that exist all the same
        # Cited files' bytes, why they are not read, or None when absent: read once however often cited.
        self._files: dict[str, bytes | str | None] = {}
        self._repository: Repository | None = None
        self._said: set[str] = set()

    def commits_present(self, names: list[str]) -> None:
        """Ask git once, for every named commit no branch or tag reaches, whether it exists at all."""
        if not names:
            return
        try:
            repo = self.repository
            if repo.problem:
                return
            self.unreachable = repo.existing([name for name in names if repo.commit(name) is None])
        except GitError:
            return  # each commit claim then says why, once

    @property
    def repository(self) -> Repository:
        if self._repository is None:
            self._repository = repository_for(self.root)
        return self._repository

    def report(self, code: str, claim: Claim, message: str) -> None:
        self.result.hits.setdefault(code, []).append(Hit(claim.document, claim.pointer, message))

    def cannot(self, claim: Claim, why: str, source: str = "git") -> None:
        """Say once per group and source what cannot be told (a note, never a failure): what git
        cannot answer, a JUnit report that cannot be read, a cited file that is no regular file."""
        if source not in self._said:
            self._said.add(source)
            self.result.unavailable.append(
                Hit(claim.document, claim.pointer, f"claims not checked against {source}: {why}")
            )

    def claim(self, claim: Claim, since: datetime | None, until: datetime | None) -> None:
        if claim.kind in ("test_totals", "test_verdict"):
            self._test_run(claim)
            return
        path = claim.value if claim.kind != "commit" else ""
        if path and not self._inside(path):
            return  # outside the project: never followed, never judged
        try:
            if claim.kind == "commit":
                self._commit(claim, until)
            elif claim.kind == "location":
                self._location(claim)
            elif claim.kind == "test_file":
                self._test_file(claim)
            elif claim.kind == "test_name":
                self._test_name(claim)
            else:
                self._path(claim, since, until)
        except GitError as error:
            self.cannot(claim, str(error))

    def _inside(self, path: str) -> bool:
        if os.path.isabs(path) or path.startswith("~") or not looks_like_path(path):
            return False
        root = os.path.realpath(self.root)
        target = os.path.realpath(os.path.join(root, path))
        return target == root or target.startswith(root + os.sep)

    def _on_disk(self, path: str) -> bool:
        return os.path.lexists(os.path.join(self.root, path))

    def _path(self, claim: Claim, since: datetime | None, until: datetime | None) -> None:
        repo = self.repository
        if repo.problem:
            self.cannot(claim, repo.problem)
            return
        name = repo.relative(claim.value)
        if name is None:
            return
        present = self._on_disk(claim.value) or name in repo.indexed
        if claim.change == "deleted":
            if present:
                self.report("EV103", claim, f"{claim.value} is claimed deleted, but it is still there")
            return
        if not present and name not in repo.ever and name not in repo.uncommitted:
            if repo.shallow:
                self.cannot(claim, "a shallow clone: history before its first commit is not here")
                return
            self.report(
                "EV101", claim, f"{claim.value} exists nowhere: not in the tree, the index or any commit"
            )
            return
        if claim.change in ("added", "modified"):
            low = _seconds(since)
            if repo.touched(name, low, _seconds(until, slack=True)) or name in repo.uncommitted:
                return  # the history first: git status is asked only when no commit shows the change
            if repo.shallow and repo.oldest is not None and (low is None or low < repo.oldest):
                self.cannot(claim, "a shallow clone: the handoff's time window is not reachable")
                return
            window = _window(since, until)
            self.report(
                "EV102",
                claim,
                f"{claim.value} is claimed {claim.change}, but no commit {window}and no uncommitted change touched it",
            )

    def _commit(self, claim: Claim, until: datetime | None) -> None:
        repo = self.repository
        if repo.problem:
            self.cannot(claim, repo.problem)
            return
        commit = repo.commit(claim.value)
        if commit is None:
            if claim.value in self.unreachable:
                return  # it exists (a rewritten branch's old commit): no branch or tag reaches it now
            if repo.shallow:
                self.cannot(claim, "a shallow clone: older commits are not here")
                return
            self.report("EV201", claim, f"commit {claim.value} does not exist in this repository")
            return
        latest = _seconds(until, slack=True)
        if latest is not None and commit.time > latest:
            dated = datetime.fromtimestamp(commit.time, until.tzinfo if until else None).isoformat()
            self.report(
                "EV202", claim, f"commit {claim.value} is dated {dated}, after the handoff that claims it"
            )

    def _location(self, claim: Claim) -> None:
        raw = self._read(claim)
        if raw is False:
            return
        if raw is None:
            self.report("EV301", claim, f"{claim.value}:{claim.line} cites a file that does not exist")
            return
        lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
        if claim.line is not None and claim.line > lines:
            self.report(
                "EV301", claim, f"{claim.value}:{claim.line} is past the end of the file ({lines} lines)"
            )

    def _test_file(self, claim: Claim) -> None:
        exists = self._on_disk(claim.value)
        if not exists:
            self.report("EV401", claim, f"test file {claim.value} is claimed written, but it does not exist")
        if claim.claimed_count is None:
            return
        counted = self.group.memo.setdefault("evidence_test_counts", {})
        key = (id(claim.document), claim.pointer.rsplit("/", 1)[0])
        tally = counted.setdefault(key, [0, 0, claim])  # test cases found, files not counted, first claim
        cases = self._test_cases(claim) if exists else None
        if cases is None:
            tally[1] += 1
        else:
            tally[0] += cases

    def _test_name(self, claim: Claim) -> None:
        raw = self._read(claim)
        if raw is False:
            return
        if raw is None:
            self.report(
                "EV403", claim, f"{claim.value}::{claim.test} names a test in a file that does not exist"
            )
            return
        defined = re.search(
            rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{re.escape(claim.test)}[ \t]*\(",
            raw.decode("utf-8", "replace"),
            re.M,
        )
        if defined is None:
            self.report(
                "EV403", claim, f"{claim.value}::{claim.test} names a test that {claim.value} does not define"
            )

    def _test_run(self, claim: Claim) -> None:
        if not self.junit:
            return
        try:
            report = read_junit(self.junit)
        except JUnitError as error:
            self.cannot(claim, str(error), "the JUnit report")
            return
        failing = _failing(report)
        shown = self._shown(report.path)
        if claim.kind == "test_verdict":
            if claim.value.upper() == "PASS" and report.failures:
                self.report("EV501", claim, f"says {claim.value}, but {shown} has {failing}")
            return
        total, passed, failed = claim.totals
        if report.failures and (failed == 0 or (failed is None and passed is not None and passed == total)):
            said = "failing: 0" if failed == 0 else f"all {passed} passing"
            self.report("EV501", claim, f"says {said}, but {shown} has {failing}")
            return
        differences = [
            f"{name} {claimed} (report: {actual})"
            for name, claimed, actual in (
                ("total", total, report.tests),
                ("passed", passed, report.passed),
                ("failed", failed, report.failures),
            )
            if claimed is not None and claimed != actual
        ]
        if differences:
            self.report("EV502", claim, f"test counts differ from {shown}: {', '.join(differences)}")

    def _shown(self, path: str) -> str:
        """A report's path as the project shows it (relative to the root when inside it)."""
        relative = os.path.relpath(path, self.root)
        return path if relative.startswith("..") else Path(relative).as_posix()

    def _test_cases(self, claim: Claim) -> int | None:
        path = claim.value
        pattern = next((p for suffixes, p in _TEST_CASES if path.endswith(suffixes)), None)
        raw = self._read(claim) if pattern is not None else None
        if not isinstance(raw, bytes) or pattern is None:
            return None
        return len(pattern.findall(raw.decode("utf-8", errors="replace")))

    def _read(self, claim: Claim) -> bytes | Literal[False] | None:
        """A cited file's bytes, read once per group: None when there is no such file, False when
        there is one that is not read (a FIFO, a device, over the size limit; said in a note)."""
        path = claim.value
        if path not in self._files:
            try:
                self._files[path] = read_bounded(Path(self.root, path), MAX_TEST_FILE)
            except FileNotFoundError:
                self._files[path] = None
            except OSError as error:  # there, but a FIFO, a device, too large...: why, in words
                self._files[path] = str(error)
        found = self._files[path]
        if found is None or isinstance(found, bytes):
            return found
        self.cannot(claim, f"{path} is not read: {found}", "the files they cite")
        return False


def _failing(report: JUnitReport) -> str:
    """The failing tests, named as the report names them with every secret in a name masked (a
    parametrised id can hold a token: ``test_login[ghp_...]``)."""
    names = [_masked(name) for name in report.failing[:5]]
    shown = ", ".join(names) + (f" and {len(report.failing) - 5} more" if len(report.failing) > 5 else "")
    return f"{report.failures} failing test(s): {shown}"


def _masked(text: str) -> str:
    """``text`` (a JUnit report's test name) with every secret in it masked, as outputs mask them."""
    from pytest_handoff.rules.secrets import find_secrets, may_hold_secrets, secret_masker

    if not may_hold_secrets(text):
        return text
    return secret_masker([secret for _, secret in find_secrets(text)])(text)


def _seconds(moment: datetime | None, *, slack: bool = False) -> int | None:
    if moment is None:
        return None
    try:
        return int((moment + (CLOCK_SLACK if slack else timedelta())).timestamp())
    except (OverflowError, ValueError, OSError):
        return None  # a time at the edge of the calendar (9999-12-31): as good as unknown


def _window(since: datetime | None, until: datetime | None) -> str:
    if since and until:
        return f"between {since.isoformat()} and {until.isoformat()} "
    if until:
        return f"up to {until.isoformat()} "
    return ""


def _time_of(document: Document, pointer: str) -> datetime | None:
    """The document's time at ``pointer``; a date alone counts as the end of its day."""
    if not pointer or not isinstance(document.data, dict):
        return None
    value = document.data.get(pointer.strip("/"))
    moment = parse_timestamp(value)
    if moment is not None and isinstance(value, str) and len(value.strip()) == 10:
        try:
            moment += timedelta(days=1, seconds=-1)
        except OverflowError:
            return None
    return moment


def _finish_test_counts(group: Group) -> list[Hit]:
    found: list[Hit] = []
    for cases, unreadable, claim in group.memo.get("evidence_test_counts", {}).values():
        if not unreadable and claim.claimed_count is not None and cases < claim.claimed_count:
            found.append(
                Hit(
                    claim.document,
                    claim.pointer,
                    f"{claim.claimed_count} test case(s) claimed, but the test files hold {cases} (counting test "
                    "functions: a heuristic)",
                )
            )
    return found


def hits(group: Group, settings: Settings, code: str) -> Iterator[Hit]:
    """The hits of evidence rule ``code`` in ``group`` (evidence was asked for: see ``table.hits``)."""
    found = verdicts(group, settings)
    if code == "EV001":
        yield from found.unavailable
    elif code == "EV402":
        yield from _finish_test_counts(group)
    else:
        yield from found.hits.get(code, ())
