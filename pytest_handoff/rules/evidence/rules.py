"""Evidence rules (EV): a handoff's claims checked against the repository it describes.

Each profile declares where its handoffs make claims (:attr:`Profile.claim_fields`); the engine
hands them to the group (:attr:`Group.claim_fields`). All verdicts of a group are made in one
pass (:func:`verdicts`), each rule reports its own. Git is asked only when a claim needs it, in
a few batched commands (:mod:`pytest_handoff.rules.evidence.repository`); offline, with no model.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from pytest_handoff.read.files import leads_out_of, read_bounded
from pytest_handoff.rules.evidence import afterwards
from pytest_handoff.rules.evidence.claims import Claim, claims_of
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.rules.evidence.facts import (
    TEST_CASES,
    Fact,
    not_written,
    past_the_end,
    still_there,
    undefined,
)
from pytest_handoff.rules.evidence.junit import JUnitError, read_junit
from pytest_handoff.rules.evidence.moments import (
    DAY_SLACK,
    WORKING_TREE,
    Span,
    State,
    commit_day,
    known_until,
    latest,
    seconds,
    span_of,
    state_of,
    window,
)
from pytest_handoff.rules.evidence.repository import GitError, Repository, repository_for
from pytest_handoff.rules.evidence.runs import RunOfTests, shown_path, verdict
from pytest_handoff.values.rules import Hit

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.gitlog import Commit
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.settings import Settings

#: Test files larger than this are not read to count their tests.
MAX_TEST_FILE = 2 * 1024 * 1024


class Verdicts(NamedTuple):
    """What the evidence rules found in one group, by code."""

    hits: dict[str, list[Hit]]
    unavailable: list[Hit]  # EV001: what git could not tell, once per group
    session: list[tuple[Hit, Claim]]  # test claims of handoffs of the current tree (see runs.py)
    judged: list[int]  # how many claims were judged (one number)
    attested: list[Claim]  # the handoffs' word that they checked their claims (EV601)


def verdicts(group: Group, settings: Settings) -> Verdicts:
    """Every evidence verdict of ``group`` (made once, kept in its memo)."""
    found: Verdicts | None = group.memo.get("evidence")
    if found is None:
        found = group.memo["evidence"] = _judge(group, settings)
    return found


class _Timed(NamedTuple):
    claim: Claim
    state: State
    since: Span | None  # the previous handoff's time: the work of this one came after it
    span: Span | None  # this handoff's own time
    listed: tuple[str, ...]  # the commits this handoff lists


def _judge(group: Group, settings: Settings) -> Verdicts:
    result = Verdicts({}, [], [], [0], [])
    fields: Sequence[ClaimField] = group.claim_fields
    root = group.root
    if not fields or root is None:
        return result
    judge = _Judge(group, root, result, settings.evidence_junit)
    # Every parsed document, valid or not: a claim whose value has the wrong type is skipped.
    claimed = [(document, list(claims_of(document, fields))) for document in group.documents]
    judge.learn(claimed)
    previous: Span | None = None
    timed: list[_Timed] = []
    for document, claims in claimed:
        state = judge.state(document) if claims or group.claim_time else WORKING_TREE
        span = span_of(document, group.claim_time, state)
        listed = tuple(claim.value for claim in claims if claim.kind == "commit")
        timed.extend(_Timed(claim, state, previous, span, listed) for claim in claims)
        previous = span or previous
    judge.commits_present([item.claim.value for item in timed if item.claim.kind == "commit"])
    for item in timed:
        judge.claim(item)
    judge.finish()
    result.judged[0] = len(timed)
    return result


class _Judge:
    def __init__(self, group: Group, root: Path, result: Verdicts, junit: str) -> None:
        self.group = group
        self.root = root
        self.result = result
        self.junit = junit
        # Named commits no ref reaches that exist all the same (a rewritten branch's), by lower-case name.
        self.unreachable: dict[str, Commit | None] = {}
        # Cited files' bytes, why they are not read, or None when absent: read once however often cited.
        self._files: dict[str, bytes | str | None] = {}
        self._repository: Repository | None = None
        self._said: set[str] = set()
        self._test_counts: dict[str, int | None] = {}  # test cases counted in a cited file
        self._root = os.path.abspath(root)
        self._links: dict[str, bool] = {}  # folders that are symbolic links (see leads_out_of)
        self._unchanged_paths: dict[str, bool] = {}  # see _unchanged
        # Claims the working tree does not support, to be judged at their handoff's commit.
        self._at_commit: list[tuple[Claim, State, str, Fact, str]] = []  # claim, state, REV:PATH, fact, code
        # Claims about a file that is absent: (claim, its git name, code, message); one git ignores
        # cannot be judged in a clone (EV104), the others are reported.
        self._absent: list[tuple[Claim, str, str, str]] = []

    def learn(self, claimed: list[tuple[Document, list[Claim]]]) -> None:
        """Ask git, in a few commands, what the claims of these documents need of the history."""
        if not any(claims for _, claims in claimed):
            return
        try:
            repo = self.repository
            if repo.problem:
                return
            repo.ask_all()
            if not repo.asks_by_path():
                repo.read_whole()  # nothing to ask of it per group: the whole history is read once
                return
            paths = {claim.value for _, claims in claimed for claim in claims if claim.kind not in _NO_PATH}
            names = {name for name in map(repo.relative, paths) if name is not None}
            handoffs = {name for document, _ in claimed if (name := repo.name_of(document.path)) is not None}
            commits = {claim.value for _, claims in claimed for claim in claims if claim.kind == "commit"}
            repo.load(names | handoffs, commits, handoffs)
        except GitError:
            return  # each claim that needs git says why, once

    def commits_present(self, names: list[str]) -> None:
        """Ask git once, for every named commit no branch or tag reaches, whether it exists at all."""
        if not names:
            return
        try:
            repo = self.repository
            if repo.problem:
                return
            self.unreachable = repo.resolve([name for name in names if repo.commit(name) is None])
        except GitError:
            return  # each commit claim then says why, once

    @property
    def repository(self) -> Repository:
        if self._repository is None:
            self._repository = repository_for(self.root)
        return self._repository

    def state(self, document: Document) -> State:
        try:
            repo = self.repository
            if repo.problem:
                return WORKING_TREE
            return state_of(document, repo)
        except GitError:
            return WORKING_TREE

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

    def claim(self, item: _Timed) -> None:
        claim = item.claim
        if claim.kind == "attestation":
            self.result.attested.append(claim)  # judged once every other claim is (EV601)
            return
        if claim.kind in ("test_totals", "test_verdict") or (claim.kind == "test_name" and claim.passing):
            self._test_run(claim, item.state)
            if claim.kind != "test_name":
                return
        path = claim.value if claim.kind != "commit" else ""
        if path and not self._inside(path):
            return  # outside the project: never followed, never judged
        try:
            if claim.kind == "commit":
                self._commit(claim, item)
            elif claim.kind == "location":
                self._against(claim, item.state, "EV301", past_the_end(claim))
            elif claim.kind == "test_file":
                self._test_file(claim, item.state)
            elif claim.kind == "test_name":
                self._against(claim, item.state, "EV403", undefined(claim))
            else:
                self._path(claim, item)
        except GitError as error:
            self.cannot(claim, str(error))

    def finish(self) -> None:
        """Judge, in a few batched commands, what the working tree alone could not tell. When git
        cannot answer, those claims are not judged, and a note says why; the others stand."""
        self._judge_at_commits()
        self._judge_absent()

    def _inside(self, path: str) -> bool:
        if path.startswith("~"):  # every claim's path already looks like one (claims_of)
            return False
        if self._unchanged(path):
            return True  # a committed file git sees as committed: no link on its way
        return not leads_out_of(self._root, path, self._links)

    def _unchanged(self, path: str) -> bool:
        """True for a regular file of the index with no change in the work tree (git says where it
        is, without a look at the disk)."""
        known = self._unchanged_paths.get(path)
        if known is None:
            try:
                repo = self.repository
                name = None if repo.problem else repo.relative(path)
                known = name is not None and repo.unchanged_file(name)
            except GitError:
                known = False
            self._unchanged_paths[path] = known
        return known

    def _on_disk(self, path: str) -> bool:
        return self._unchanged(path) or os.path.lexists(os.path.join(self.root, path))

    def _path(self, claim: Claim, item: _Timed) -> None:
        repo = self.repository
        if repo.problem:
            self.cannot(claim, repo.problem)
            return
        name = repo.relative(claim.value)
        if name is None:
            return
        present = self._on_disk(claim.value) or name in repo.indexed
        if claim.change == "deleted":
            # Still there means on disk: a deletion not yet staged is done in the working tree.
            if self._on_disk(claim.value):
                self._against(claim, item.state, "EV103", still_there(claim), exists_only=True)
            return
        if not present and name not in repo.ever and name not in repo.uncommitted:
            if repo.shallow:
                self.cannot(claim, "a shallow clone: history before its first commit is not here")
                return
            message = f"{claim.value} exists nowhere: not in the tree, the index or any commit"
            self._absent.append((claim, name, "EV101", message))
            return
        # A date alone is a day somewhere on Earth: its window opens and closes 14 hours wider.
        since = item.since
        low = seconds(since.start - DAY_SLACK if since.day else since.start) if since else None
        last = item.state.last_commit
        own = latest(item.span, item.state) or (last.time if last else None)
        if low is not None and own is not None and low > own:
            since = low = None  # the previous handoff is dated after this one: their order says nothing
        said = afterwards.not_new(claim, name, map(self._named, item.listed), repo, low)
        if said:
            self.report("EV105", claim, said)
        if claim.change in ("added", "modified"):
            high = latest(item.span, item.state)
            if high is not None and item.span is not None and item.span.day:
                high += int(DAY_SLACK.total_seconds())
            if repo.touched(name, low, high) or name in repo.uncommitted:
                return  # the history first: git status is asked only when no commit shows the change
            inside = name.rstrip("/") + "/"
            for listed in filter(None, map(self._named, item.listed)):
                if name in listed.paths or any(path.startswith(inside) for path in listed.paths):
                    return  # a commit the handoff itself lists changed it (or a file in it)
            if os.path.isdir(os.path.join(self.root, claim.value)) and repo.touched_under(name, low, high):
                return  # a folder claimed changed: a commit changed a file in it
            if repo.shallow and repo.oldest is not None and (low is None or low < repo.oldest):
                self.cannot(claim, "a shallow clone: the handoff's time window is not reachable")
                return
            self.report(
                "EV102",
                claim,
                f"{claim.value} is claimed {claim.change}, but no commit "
                f"{window(since.start if since else None, item.span.end if item.span else None)}"
                "and no uncommitted change touched it, nor any commit the handoff lists",
            )

    def _commit(self, claim: Claim, item: _Timed) -> None:
        repo = self.repository
        if repo.problem:
            self.cannot(claim, repo.problem)
            return
        commit = self._named(claim.value)
        if commit is None:
            if repo.shallow:
                self.cannot(claim, "a shallow clone: older commits are not here")
                return
            if claim.tentative:
                said = "it is named before it is made: write it in once the commit exists"
                self.report("EV203", claim, f"commit {claim.value} is not in this clone ({said})")
            else:
                # No branch or tag here reaches it: made up, or on a branch this clone never fetched.
                self.report(
                    "EV201", claim, f"commit {claim.value} is not in this clone: no branch or tag reaches it"
                )
            return
        # The handoff's own time, not its commit's: a handoff committed later knew no more. A date
        # alone is compared with the commit's date where its author was (the day is theirs too).
        if item.span is not None and item.span.day and commit_day(commit) <= item.span.start.date():
            return
        bound = known_until(item.span)
        if bound is not None and item.span is not None and commit.time > bound:
            zone = item.span.end.tzinfo
            dated = datetime.fromtimestamp(commit.time, zone).isoformat()
            self.report(
                "EV202",
                claim,
                f"commit {claim.value} is dated {dated}, after the handoff that claims it "
                f"({item.span.end.isoformat()})",
            )

    def _named(self, name: str) -> Commit | None:
        """The commit ``name`` names: reachable from a ref, or not (a rewritten branch's)."""
        return self.repository.commit(name) or self.unreachable.get(name.lower())

    def _against(
        self, claim: Claim, state: State, code: str, fact: Fact, *, exists_only: bool = False
    ) -> None:
        """Judge ``claim`` by ``fact`` on the cited file: in the working tree first, then, for a
        committed handoff whose cited file changed since, at the handoff's commit (a claim true
        when it was written is not made false by later work)."""
        raw = self._exists(claim) if exists_only else self._read(claim)
        if raw is False:
            return
        why = fact(raw)
        if why is None:
            return
        commit = state.commit
        if commit is not None:  # what the tree says, the commit may not: ask it (one batch a group)
            name = self.repository.relative(claim.value)
            if name is not None:
                self._at_commit.append((claim, state, f"{commit.sha}:{name}", fact, code))
                return
        self._reported(code, claim, f"{why} ({state.said})", absent=raw is None)

    def _reported(self, code: str, claim: Claim, message: str, *, absent: bool) -> None:
        """Report a finding; one about a file that is absent waits to learn whether git ignores it."""
        name = self.repository.relative(claim.value) if absent and not self.repository.problem else None
        if name is None:
            self.report(code, claim, message)
        else:
            self._absent.append((claim, name, code, message))

    def _judge_at_commits(self) -> None:
        pending, self._at_commit = self._at_commit, []
        if not pending:
            return
        try:
            contents = [spec for claim, _, spec, _, _ in pending if claim.kind in ("location", "test_name")]
            found = self.repository.objects(contents, content=True, limit=MAX_TEST_FILE)
            bare = [spec for claim, _, spec, _, _ in pending if claim.kind not in ("location", "test_name")]
            there = self.repository.objects(bare, content=False, limit=0)
        except GitError as error:
            self.cannot(pending[0][0], str(error))
            return
        for claim, state, spec, fact, code in pending:
            # A location or a test name needs the file's bytes; a file's presence, only whether it is.
            answers = found if claim.kind in ("location", "test_name") else there
            if spec not in answers:
                continue  # too large to read at that commit: not judged
            then = fact(answers[spec])
            if then is not None:
                message = f"{then} ({state.said}, and in the working tree)"
                absent = answers[spec] is None and not self._on_disk(claim.value)
                self._reported(code, claim, message, absent=absent)

    def _judge_absent(self) -> None:
        pending, self._absent = self._absent, []
        if not pending:
            return
        try:
            ignored = self.repository.ignored([name for _, name, _, _ in pending])
        except GitError as error:
            self.cannot(pending[0][0], str(error))
            return
        for claim, name, code, message in pending:
            if code == "EV101" and afterwards.under_a_package(name, self.repository):
                continue  # a path relative to a package of a monorepo (apps/web/src/a.ts)
            if name in ignored:
                said = f"{claim.value} is ignored by git and absent here: it cannot be judged in a clone"
                self.report("EV104", claim, said)
            else:
                self.report(code, claim, message)

    def _test_file(self, claim: Claim, state: State) -> None:
        exists = self._on_disk(claim.value)
        if not exists:
            self._against(claim, state, "EV401", not_written(claim), exists_only=True)
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

    def _test_run(self, claim: Claim, state: State) -> None:
        if self._current(state):
            self.result.session.append((Hit(claim.document, claim.pointer, ""), claim))
        if not self.junit:
            return
        try:
            report = read_junit(self.junit)
        except JUnitError as error:
            self.cannot(claim, str(error), "the JUnit report")
            return
        run = RunOfTests(
            shown_path(report.path, self.root), report.tests, report.failures, report.skipped, report.failing
        )
        said = verdict(claim, run)
        if said is not None:
            self.report(said[0], claim, said[1])

    def _current(self, state: State) -> bool:
        """True for a handoff of the tree being tested: not committed, or committed in HEAD's commit."""
        if state.commit is None:
            return True
        try:
            return self.repository.head == state.commit.sha
        except GitError:
            return False

    def _test_cases(self, claim: Claim) -> int | None:
        path = claim.value
        counts = self.repository.test_cases if self._unchanged(path) else self._test_counts
        if path not in counts:
            pattern = next((p for suffixes, p in TEST_CASES if path.endswith(suffixes)), None)
            raw = self._read(claim) if pattern is not None else None
            found = None
            if isinstance(raw, bytes) and pattern is not None:
                found = len(pattern.findall(raw.decode("utf-8", errors="replace")))
            counts[path] = found
        return counts[path]

    def _exists(self, claim: Claim) -> bytes | None:
        """b"" when the cited path is in the working tree (or the index), None when not."""
        name = self.repository.relative(claim.value) if not self.repository.problem else None
        there = self._on_disk(claim.value) or (name is not None and name in self.repository.indexed)
        return b"" if there else None

    def _read(self, claim: Claim) -> bytes | Literal[False] | None:
        """A cited file's bytes, read once per group: None when there is no such file, False when
        there is one that is not read (a FIFO, a device, over the size limit; said in a note)."""
        path = claim.value
        # A committed file as committed is read once per process, whichever groups cite it.
        files = self.repository.contents if self._unchanged(path) else self._files
        if path not in files:
            try:
                files[path] = read_bounded(Path(self.root, path), MAX_TEST_FILE)
            except FileNotFoundError:
                files[path] = None
            except OSError as error:  # there, but a FIFO, a device, too large...: why, in words
                files[path] = str(error)
        found = files[path]
        if found is None or isinstance(found, bytes):
            return found
        self.cannot(claim, f"{path} is not read: {found}", "the files they cite")
        return False


#: Claims that name no file.
_NO_PATH = frozenset({"commit", "test_totals", "test_verdict", "attestation"})


def hits(group: Group, settings: Settings, code: str) -> Iterator[Hit]:
    """The hits of evidence rule ``code`` in ``group`` (evidence was asked for: see ``table.hits``)."""
    found = verdicts(group, settings)
    if code == "EV001":
        yield from found.unavailable
    elif code == "EV402":
        yield from afterwards.finish_test_counts(group)
    elif code == "EV601":
        yield from afterwards.broken_attestations(found.attested, found.hits)
    else:
        yield from found.hits.get(code, ())
