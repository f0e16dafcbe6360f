"""The evidence rules' table: what each checks of a handoff's claims, and why (see :mod:`rules`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pytest_handoff.rules.rows import listed
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

if TYPE_CHECKING:
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.rules import Hit
    from pytest_handoff.values.settings import Settings


def hits(group: Group, settings: Settings, code: str) -> Iterator[Hit]:
    """The hits of evidence rule ``code`` (none unless ``settings`` ask for evidence). The rules'
    machinery (git, JUnit, claims) is imported only then: a run without evidence loads none of it."""
    if not settings.evidence:
        return iter(())
    from pytest_handoff.rules.evidence.rules import hits as judged

    return judged(group, settings, code)


def check_evidence_available(group: Group, settings: Settings) -> Iterator[Hit]:
    """Says, once per group, when git cannot tell whether the handoff's claims hold.

    **What it does**: outside a git repository, without git, or in a shallow clone whose history
    does not reach the handoff's time, reports one note (severity info) at the first claim it could
    not check, saying why. The claims that need no git (files on disk, lines of a file) are still
    checked.

    **Why is this bad?** It is not: it says what was not verified, so that a pass is not read as
    proof. Fetch the history (`git fetch --unshallow`) to have the claims checked.

    **Example**: a CI job with `fetch-depth: 1` checking a chain written a week ago.

    **Use instead**: a full clone (`actions/checkout` with `fetch-depth: 0`).
    """
    return hits(group, settings, "EV001")


def check_claimed_paths_exist(group: Group, settings: Settings) -> Iterator[Hit]:
    """A file the handoff names exists somewhere: in the tree, the index or a commit.

    **What it does**: for each path a handoff claims (NeuralRelay `affected_modules`,
    `files_changed[].path`; Craik `files_changed`, `artifacts`; YOLO plan and summary `fm`, task
    `f`; the paths a contract declares), reports one that is not in the working tree, not staged,
    and never touched by any commit of the repository.

    A path that is the end of a path git knows (`src/a.ts` of `apps/web/src/a.ts`: written
    relative to a package of a monorepo) is not reported.

    **Why is this bad?** The next agent goes looking for work that was never done: a file an agent
    says it changed, and that never existed, is a hallucinated claim.

    **Example**: `"files_changed": [{"path": "billing/export/csv_writer.py", "change_type": "created"}]`
    in a repository that never had that file.

    **Use instead**: name the files the work really touched (`git status`, `git show --stat`).
    """
    return hits(group, settings, "EV101")


def check_claimed_paths_not_ignored(group: Group, settings: Settings) -> Iterator[Hit]:
    """A claimed file that is absent and that git ignores cannot be judged: it says so.

    **What it does**: for a path a handoff claims that is not in the working tree, the index or
    any commit, and that the repository's ignore rules (`.gitignore`, `.git/info/exclude`) ignore,
    reports a note (severity info) in place of EV101: an ignored file is never committed, so a
    clone cannot have it.

    **Why is this bad?** It is not: the claim may be true on the machine that wrote it (a build
    output, a local `.env`), but nothing here can confirm it.

    **Example**: `"files_changed": [{"path": "dist/report.html", "change_type": "created"}]` with
    `dist/` in `.gitignore`.

    **Use instead**: claim the committed files the work changed; name generated files as such.
    """
    return hits(group, settings, "EV104")


def check_claimed_changes_happened(group: Group, settings: Settings) -> Iterator[Hit]:
    """A file claimed added or modified was touched while the handoff's work was done.

    **What it does**: for a path claimed created or modified, reports it when no commit dated
    between the previous handoff of the group and this one (ten minutes of slack for clocks), and
    no uncommitted change, touched it. Without times, any commit counts.

    **Why is this bad?** The file exists, but nothing shows the claimed change: the work may have
    been planned, not done, or done to another file.

    **Example**: `{"path": "billing/api/routes/invoices.py", "change_type": "modified"}` with no
    commit touching it since the requirements handoff.

    **Use instead**: commit the change before handing off, or name the file that changed.
    """
    return hits(group, settings, "EV102")


def check_claimed_creations_are_new(group: Group, settings: Settings) -> Iterator[Hit]:
    """A file claimed created was not there before the handoff's work began.

    **What it does**: for a path claimed created (GSD `key-files.created`, NeuralRelay
    `change_type: created`) by a handoff that lists its commits, reports the path when a commit
    older than every commit the handoff lists, and older than the handoff's work (the previous
    handoff of its group), already touched it; a commit of the same work the handoff does not list
    does not count. A warning: the work may have re-created a file it deleted.

    **Why is this bad?** "Created" tells the reviewer the whole file is new work; a file that was
    there before was modified, and its history (and whoever wrote it) is the reviewer's to read.

    **Example**: a summary listing task commit `3f9a2c1` and claiming `src/models.py` created, where a
    commit of the week before added `src/models.py`.

    **Use instead**: list the file as modified.
    """
    return hits(group, settings, "EV105")


def check_claimed_deletions_happened(group: Group, settings: Settings) -> Iterator[Hit]:
    """A file claimed deleted is gone.

    **What it does**: reports a path claimed deleted that is still in the working tree or the index.

    **Why is this bad?** The next agent relies on the file being gone (a removed endpoint, a dropped
    migration); it is still there and still runs.

    **Example**: `{"path": "billing/legacy_export.py", "change_type": "deleted"}` with the file present.

    **Use instead**: `git rm` the file, or do not claim its deletion.
    """
    return hits(group, settings, "EV103")


def check_claimed_commits_exist(group: Group, settings: Settings) -> Iterator[Hit]:
    """A commit the handoff names exists in the repository.

    **What it does**: reports a commit hash (YOLO summary `ch`, a contract's commit fields) that no
    branch or tag of the clone reaches (remote-tracking branches count); in a shallow clone, says
    it cannot tell (EV001). A commit only on a branch the clone has not fetched is reported too,
    and the message says "not in this clone": fetch that branch, or check it where it is.

    **Why is this bad?** A made-up hash is the plainest sign of work claimed and not done; the
    reviewer cannot look at it.

    **Example**: `"ch": ["9f3c2ab"]` where no commit starts with `9f3c2ab`.

    **Use instead**: the hash `git rev-parse --short HEAD` printed after the commit.
    """
    return hits(group, settings, "EV201")


def check_claimed_commits_precede_the_handoff(group: Group, settings: Settings) -> Iterator[Hit]:
    """A commit the handoff names was made before the handoff was written.

    **What it does**: reports a named commit whose author date is more than ten minutes after
    the handoff's own time (NeuralRelay `timestamp`; a date alone, as YOLO's `dt` and GSD's
    `completed`, as the end of that day and the first four hours of the next: a session that
    runs past midnight keeps the date it began on).

    **Why is this bad?** The handoff could not have known the commit: it was written before the
    work it claims, and its claims were guesses.

    **Example**: a summary dated 2026-02-18 naming a commit made on 2026-02-20.

    **Use instead**: write the handoff after the commit, with its real time.
    """
    return hits(group, settings, "EV202")


def check_predicted_commits_exist(group: Group, settings: Settings) -> Iterator[Hit]:
    """A commit the handoff names before making it exists once it is made.

    **What it does**: reports a commit hash a format writes before the commit exists (GSD's
    `**Plan metadata:**` hash, written into the summary that the commit itself carries) that no
    branch or tag of the repository reaches. A warning: the format's own design makes the hash a
    guess until someone writes it in.

    **Why is this bad?** A reader who follows the hash finds nothing; a summary whose hashes are
    guessed teaches the next agent to trust hashes that are not checked.

    **Example**: a summary's `**Plan metadata:** a1b2c3d (docs: complete plan)` where no commit
    starts with `a1b2c3d`.

    **Use instead**: write `TBD` until the metadata commit exists, then amend the hash in.
    """
    return hits(group, settings, "EV203")


def check_self_checks_hold(group: Group, settings: Settings) -> Iterator[Hit]:
    """A handoff that says it checked its own claims has no claim found false.

    **What it does**: reports a handoff's self-check verdict (GSD's `## Self-Check: PASSED`) when
    evidence finds a claim of the same handoff false: a file that exists nowhere (EV101), a
    deletion not done (EV103), a commit that does not exist (EV201), a location past its file's
    end (EV301), a test file never written (EV401).

    **Why is this bad?** The self-check exists to stop hallucinated success (GSD added it after
    agents reported files and commits they never made); a self-check that passes over a false
    claim was not made, and the next agent trusts it twice.

    **Example**: `## Self-Check: PASSED` in a summary listing commit `9f3c2ab`, which no branch
    reaches.

    **Use instead**: run the check (`[ -f path ]`, `git log --oneline --all | grep hash`) and
    write `FAILED` with what it found, or fix the claims.
    """
    return hits(group, settings, "EV601")


def check_cited_locations_exist(group: Group, settings: Settings) -> Iterator[Hit]:
    """A cited location (`path:line`) is in a file that exists, within its lines.

    **What it does**: reads locations in bug reports, review issues, reviewer focus and QA or
    review findings (`billing/api.py:31`, `api.py#L12`, `api.py (lines 31-44)`, YOLO's `f` + `ln`)
    and reports one whose file does not exist in the working tree or whose line is past its end.

    **Why is this bad?** A reviewer sent to a line that does not exist cannot verify the finding;
    citations of non-existent code are a known failure of agent reports.

    **Example**: `"location": "billing/api/schemas/export.py:231"` in a 60-line file.

    **Use instead**: cite the line as it is now in the file.
    """
    return hits(group, settings, "EV301")


def check_claimed_test_files_exist(group: Group, settings: Settings) -> Iterator[Hit]:
    """A test file the handoff says it wrote exists.

    **What it does**: reports a test file claimed written (NeuralRelay `unit_tests_written.files`,
    `test_files_created`; YOLO test-plan `tf`) that is not in the working tree.

    **Why is this bad?** "Tests written" with no test file means no test ran; the next agent trusts
    a verification that never happened.

    **Example**: `"test_files_created": ["tests/export/test_pagination.py"]` and no such file.

    **Use instead**: name the test files that exist, or write them.
    """
    return hits(group, settings, "EV401")


def check_claimed_test_counts(group: Group, settings: Settings) -> Iterator[Hit]:
    """The test files hold at least as many test cases as the handoff claims.

    **What it does**: counts test cases in the claimed test files by a documented heuristic per
    language (Python `def test_`, JavaScript/TypeScript `it(`/`test(`, Go `func Test`, Rust
    `#[test]`, Java/Kotlin `@Test`, Ruby `it "`/`def test_`) and reports a claimed count above it
    (NeuralRelay `unit_tests_written.count`, YOLO test-plan `tc`). Files in other languages, or
    unreadable, are not counted, and then no finding is made.

    **Why is this bad?** An inflated count overstates how well the work is tested.

    **Example**: `"unit_tests_written": {"count": 26, "files": ["tests/test_csv.py"]}` where the file
    defines 9 tests.

    **Use instead**: the count the test run reports.
    """
    return hits(group, settings, "EV402")


def check_named_tests_exist(group: Group, settings: Settings) -> Iterator[Hit]:
    """A test the handoff names (a pytest node id) is defined where it says.

    **What it does**: reads pytest node ids (`tests/test_export.py::test_filename`, with a class
    or parameters) in the texts a format declares (Craik `tests_run`, NeuralRelay
    `unit_tests_written.summary`) and reports one whose file does not exist or does not define a
    function of that name.

    **Why is this bad?** A test named as written or passing that no file defines never ran; the
    handoff reports a verification that did not happen.

    **Example**: `"tests_run": ["pytest tests/test_export.py::test_filename_is_inclusive: passed"]`
    where the file has no `def test_filename_is_inclusive`.

    **Use instead**: the node ids pytest printed for the run (`pytest -v`, `--junitxml`).
    """
    return hits(group, settings, "EV403")


def check_test_claims_agree_with_the_run(group: Group, settings: Settings) -> Iterator[Hit]:
    """A handoff that says its tests pass agrees with the JUnit report of the run.

    **What it does**: with a JUnit XML report (`--evidence-junit PATH`, `evidence-junit` in the
    configuration; `pytest --junitxml` writes one), reports a handoff that says its tests pass
    (NeuralRelay `test_summary.failing: 0` or every test passing, YOLO
    `qa-code` `tests.fl: 0`, a verification or QA `r: "PASS"`) while the report has failed or
    erroring tests, and names them.

    **Why is this bad?** "All tests pass" without a passing run is the commonest unverified claim
    of agent handoffs; the next agent builds on code that fails.

    **Example**: `"test_summary": {"total": 41, "passing": 41, "failing": 0}` and a report with
    `tests/test_export.py::test_filename` failing.

    **Use instead**: the counts of the run the report records, and the failures in the handoff.
    """
    return hits(group, settings, "EV501")


def check_test_counts_agree_with_the_run(group: Group, settings: Settings) -> Iterator[Hit]:
    """A handoff's test counts are those of the JUnit report.

    **What it does**: with a JUnit report, reports a handoff whose total, passed or failed counts
    differ from the report's (failures and errors count as failed, skipped tests as neither).

    **Why is this bad?** Counts that match no run were not read from one: the handoff reports a run
    nobody made, or another run than the one checked.

    **Example**: `"test_summary": {"total": 41, ...}` and a report of 38 tests.

    **Use instead**: the counts of the report, or name the run the handoff reports.
    """
    return hits(group, settings, "EV502")


EVIDENCE_RULES: tuple[Rule, ...] = (
    listed("EV001", "evidence-unavailable", check_evidence_available, scope="chain", severity=Severity.INFO),
    listed("EV101", "claimed-path-missing", check_claimed_paths_exist, scope="chain", modes=("FM-2.6",)),
    listed(
        "EV104",
        "claimed-path-ignored",
        check_claimed_paths_not_ignored,
        scope="chain",
        severity=Severity.INFO,
    ),
    listed(
        "EV102",
        "claimed-change-not-found",
        check_claimed_changes_happened,
        scope="chain",
        severity=Severity.WARNING,
        modes=("FM-2.6",),
    ),
    listed(
        "EV105",
        "claimed-creation-not-new",
        check_claimed_creations_are_new,
        scope="chain",
        severity=Severity.WARNING,
        modes=("FM-2.6",),
    ),
    listed(
        "EV103",
        "claimed-deletion-not-done",
        check_claimed_deletions_happened,
        scope="chain",
        modes=("FM-2.6",),
    ),
    listed("EV201", "unknown-commit", check_claimed_commits_exist, scope="chain", modes=("FM-2.6",)),
    listed(
        "EV202",
        "commit-after-handoff",
        check_claimed_commits_precede_the_handoff,
        scope="chain",
        modes=("FM-2.6",),
    ),
    listed(
        "EV203",
        "predicted-commit-missing",
        check_predicted_commits_exist,
        scope="chain",
        severity=Severity.WARNING,
    ),
    listed("EV301", "location-not-found", check_cited_locations_exist, scope="chain", modes=("FM-3.3",)),
    listed(
        "EV401",
        "claimed-test-file-missing",
        check_claimed_test_files_exist,
        scope="chain",
        modes=("FM-2.6", "FM-3.2"),
    ),
    listed(
        "EV402",
        "fewer-tests-than-claimed",
        check_claimed_test_counts,
        scope="chain",
        severity=Severity.WARNING,
        modes=("FM-2.6", "FM-3.2"),
    ),
    listed(
        "EV403",
        "named-test-undefined",
        check_named_tests_exist,
        scope="chain",
        severity=Severity.WARNING,
        modes=("FM-2.6", "FM-3.2"),
    ),
    listed(
        "EV501",
        "test-claim-contradicts-run",
        check_test_claims_agree_with_the_run,
        scope="chain",
        modes=("FM-3.3",),
    ),
    listed(
        "EV502",
        "test-counts-differ-from-run",
        check_test_counts_agree_with_the_run,
        scope="chain",
        severity=Severity.WARNING,
        modes=("FM-3.3",),
    ),
    listed("EV601", "self-check-contradicted", check_self_checks_hold, scope="chain", modes=("FM-3.3",)),
)
