"""What ``pytest --handoffs`` collects: one item per group (or per named file of a group).

The groups come from the pipeline's one discovery (:func:`pytest_handoff.discovery.discover`),
run once per session over pytest's own arguments; the collectors here only place them in
pytest's tree, so ``pytest --handoffs`` and ``handoff-lint`` see the same groups.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff.pipeline.masking import shown_path
from pytest_handoff.pipeline.registry import Registry
from pytest_handoff.pipeline.run import reported_files
from pytest_handoff.plugin.base import (
    CACHE_KEY,
    OTHER_SHARES_KEY,
    PREFETCHED_KEY,
    RUN_KEY,
    SETTINGS_KEY,
    HandoffContractWarning,
    Stamps,
)
from pytest_handoff.plugin.collection import Collection, Placed
from pytest_handoff.plugin.early import EARLY_KEY
from pytest_handoff.read.files import display_path_for
from pytest_handoff.rules.secrets import may_hold_secrets
from pytest_handoff.values.boundary import inert
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.settings import Settings

if TYPE_CHECKING:
    from pytest_handoff.pipeline.discovery import Discovery
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.groups import Group, GroupRef, GroupResult
    from pytest_handoff.values.rules import Hit


def settings_of(config: pytest.Config) -> Settings:
    """The run's settings (set when ``--handoffs`` is given)."""
    return config.stash[SETTINGS_KEY]


def result_cache(config: pytest.Config) -> Any:
    """Chain results under ``.pytest_cache/d/handoff`` (None with ``-p no:cacheprovider``)."""
    if CACHE_KEY not in config.stash:
        from pytest_handoff.pipeline.cache import ResultCache

        pytest_cache = getattr(config, "cache", None)
        cache = (
            ResultCache(pytest_cache.mkdir("handoff"), settings_of(config).fingerprint())
            if pytest_cache is not None
            else None
        )
        if cache is not None and hasattr(config, "workerinput"):
            cache.carry_over()  # an xdist worker checks its share: the others' entries stay
        config.stash[CACHE_KEY] = cache
    return config.stash[CACHE_KEY]


def stamps(paths: tuple[Path, ...]) -> Stamps:
    """Modification time and size of each file (None when it cannot be read)."""
    found: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            found.append(None)
        else:
            found.append((info.st_mtime_ns, info.st_size))
    return tuple(found)


def initial_paths(config: pytest.Config) -> list[Path]:
    """pytest's own arguments as paths (``file.json::name`` is the file)."""
    base = config.invocation_params.dir
    paths = []
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        paths.append(path if path.is_absolute() else base / path)
    return paths


def handoff_arguments(paths: Sequence[Path], run: Run) -> list[Path]:
    """The arguments to discover from: folders, and named files that some profile claims.

    A named test module is pytest's, not a handoff (``handoff-lint`` would check any file it is
    given); a named file no profile recognises is left to pytest as well.
    """
    from pytest_handoff.pipeline.discovery import profile_for

    registry, settings, root = run.registry, run.settings, run.root
    kept = []
    for path in paths:
        if path.is_dir() or (
            path.is_file()
            and path.suffix != ".py"
            and profile_for(path, settings, display_path_for(path, root), explicit=True, registry=registry)
            is not None
        ):
            kept.append(path)
    return kept


def place(discovery: Discovery, root: Path, registry: Registry) -> Collection:
    """Each group's items and where pytest finds them, with the folders that lead there."""
    by_folder: dict[Path, list[Placed]] = {}
    by_file: dict[Path, list[Placed]] = {}
    for ref in discovery.groups:
        named = reported_files(ref, discovery, root)
        displays = [display_path_for(path, root) for path in ref.paths]
        plain = _plain(ref, root, displays)
        if named is None or ref.standalone:  # a file on its own is its whole group
            placed = [Placed(ref, None, plain)]
        else:
            placed = [
                Placed(ref, path, plain)
                for path, shown in zip(ref.paths, displays, strict=True)
                if shown in named
            ]
        # An absolute display path: the file is outside the project (or in a folder named "..x").
        if not plain or any(os.path.isabs(shown) for shown in displays):
            # pytest would print such paths raw in node ids; sources outside the project have no node.
            by_folder.setdefault(root, []).extend(placed)
        elif ref.directory is not None and registry.profile(ref.profile).groups_by_folder:
            by_folder.setdefault(ref.directory, []).extend(placed)
        else:
            for item in placed:
                by_file.setdefault(item.focus or ref.paths[0], []).append(item)
    walk_into: set[Path] = set()
    for place_ in [*by_folder, *(path.parent for path in by_file)]:
        for folder in (place_, *place_.parents):
            if folder in walk_into or not folder.is_relative_to(root):
                break
            walk_into.add(folder)
    return Collection(by_folder, by_file, frozenset(walk_into))


def _plain(ref: GroupRef, root: Path, member_displays: list[str]) -> bool:
    """True when every path of the group (its members' displays given) can be shown as it is:
    one line, no secret in it."""
    folder = [display_path_for(ref.directory, root)] if ref.directory is not None else []
    displays = [*member_displays, *folder]
    joined = "/".join(displays)  # one look for the whole group: "/" is a character inert() keeps
    if inert(joined, opens_line=False) != joined or any(d.lstrip().startswith("::") for d in displays):
        return False
    return not may_hold_secrets(joined) or all(shown_path(display) == display for display in displays)


def items_for(parent: pytest.Collector, placed: Iterable[Placed]) -> Iterator[ChainItem]:
    """The items of ``placed`` groups, as children of ``parent``."""
    run = parent.config.stash[RUN_KEY]
    for ref, focus, plain in placed:
        keywords = run.registry.profile(ref.profile).keywords(ref.paths, run.settings)
        shown_id = inert(shown_path(ref.group_id))
        keywords.append(shown_id)
        if focus is not None:
            name = f"{shown_id}[{inert(shown_path(focus.name))}]"
        elif ref.standalone:
            name = inert(shown_path(ref.paths[0].name))
        else:
            name = shown_id
        yield ChainItem.from_parent(parent, name=name, ref=ref, focus=focus, keywords=keywords, plain=plain)


class GroupFolder(pytest.Directory):
    """A folder that holds groups: their items, then what else is in it, as pytest's own folder
    collector finds it (the groups' files themselves are not offered to pytest again)."""

    placed: Sequence[Placed] = ()
    members: frozenset[Path] = frozenset()

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        yield from items_for(self, self.placed)
        ihook, session, config = self.ihook, self.session, self.config
        with os.scandir(self.path) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir():
                if not session.isinitpath(path, with_parents=True) and ihook.pytest_ignore_collect(
                    collection_path=path, config=config
                ):
                    continue
                folder = ihook.pytest_collect_directory(path=path, parent=self)
                if folder is not None:
                    yield folder
            elif entry.is_file() and path not in self.members:
                if not session.isinitpath(path) and ihook.pytest_ignore_collect(
                    collection_path=path, config=config
                ):
                    continue
                yield from ihook.pytest_collect_file(file_path=path, parent=self)


class ChainFolder(pytest.File):
    """A folder that holds one group's files and nothing else: only its items.

    A :class:`pytest.Directory` makes pytest look for ``conftest.py`` in it and in every folder
    above it, which was a quarter of collecting 10,000 chains; this folder has none (nothing
    else is in it), so its hooks, and its items', are its parent folder's. A ``File`` for
    ``--lf``'s sake too: a chain that passed last time is skipped as a file would be.
    """

    placed: Sequence[Placed] = ()

    @property
    def ihook(self) -> Any:
        # Looked up at every call, as pytest's own: a conftest loaded later elsewhere stays out.
        return self.session.gethookproxy(self.path.parent)

    def collect(self) -> Iterable[pytest.Item]:
        return list(items_for(self, self.placed))


def holds_only(folder: Path, members: frozenset[Path]) -> bool:
    """True when ``folder`` holds nothing but ``members`` (regular files, no folder, no conftest)."""
    spelt = {os.fspath(member) for member in members}  # a Path keeps its text: no parsing
    try:
        with os.scandir(folder) as scan:
            return all(entry.is_file(follow_symlinks=False) and entry.path in spelt for entry in scan)
    except OSError:
        return False


class GroupFile(pytest.File):
    """A handoff file that is collected for its group (a file on its own, or a spread group)."""

    placed: Sequence[Placed] = ()

    def collect(self) -> Iterable[pytest.Item]:
        return list(items_for(self, self.placed))


class HandoffContractError(Exception):
    """Raised by a chain item whose contracts are broken; carries the rendered report."""

    def __init__(self, report: str) -> None:
        super().__init__(report)
        self.report = report


class ChainItem(pytest.Item):
    """One group checked as a whole (reporting one named file of it when ``focus`` is set)."""

    def __init__(
        self, *, ref: GroupRef, focus: Path | None, keywords: list[str], plain: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.ref = ref
        self.focus = focus
        if focus is not None and plain:
            self.path = focus
        self.handoff_findings: list[dict[str, object]] = []
        self.handoff_session_claims: list[Any] = []  # test claims the xdist controller reconciles
        self.handoff_baselined = 0  # findings the baseline knew, left out
        self.add_marker("handoff")
        self.extra_keyword_matches.update(keywords)

    @property
    def ihook(self) -> Any:
        # The collector's: a ChainFolder's hooks are its parent folder's (see there).
        return self.parent.ihook if self.parent is not None else super().ihook

    def runtest(self) -> None:
        from pytest_handoff.pipeline.check import check_group
        from pytest_handoff.values.findings import Severity

        settings = settings_of(self.config)
        root = self.config.rootpath
        known = self.config.stash.get(PREFETCHED_KEY, {})
        prefetched = known.get(self.ref.paths)
        early = self.config.stash.get(EARLY_KEY, None)
        if prefetched is None and early is not None:  # checked since collection started
            prefetched = early.get(self.ref.paths)
        read_others = self.config.stash.get(OTHER_SHARES_KEY, None)
        if prefetched is None and read_others is not None:  # another xdist worker checked this group
            del self.config.stash[OTHER_SHARES_KEY]
            known.update(read_others())
            prefetched = known.get(self.ref.paths)
        result = prefetched[1] if prefetched and prefetched[0] == stamps(self.ref.paths) else None
        if result is None:
            extra = [self._user_checks] if self.ihook.pytest_handoff_check_chain.get_hookimpls() else []
            registry = self.config.stash[RUN_KEY].registry
            result = check_group(
                self.ref, settings, root, extra, cache=result_cache(self.config), registry=registry
            )
        if self.focus is not None:
            result = result.narrowed_to([display_path_for(self.focus, root)])
        result = self.config.stash[RUN_KEY].without_known([self._reconciled(result)])[0]
        self.handoff_baselined = result.baselined
        self.handoff_findings = [finding.to_wire() for finding in result.findings]
        for finding in result.findings:
            self.user_properties.append(("handoff_finding", one_line(finding)))
        escalated = [
            finding
            for finding in result.findings
            if finding.severity == Severity.WARNING and not _warn(finding)
        ]
        failed = result.failed or bool(escalated)
        # A passing chain's trace only when it is shown (-rA, -rP): under xdist every section
        # travels to the controller, for each of thousands of chains.
        if result.notes and (failed or _shows_passed(self.config)):
            self.add_report_section("call", "handoff trace", "\n".join(inert(note) for note in result.notes))
        if failed:
            raise HandoffContractError(render_failure(result, warnings_are_errors=bool(escalated)))

    def _reconciled(self, result: GroupResult) -> GroupResult:
        """``result`` with the findings of this session's tests against its handoffs' test claims;
        under xdist the claims go with the report, for the controller to reconcile."""
        from pytest_handoff.plugin.session import SESSION_KEY, wire

        outcomes = self.config.stash.get(SESSION_KEY, None)
        claims = result.session_claims
        if self.focus is not None:
            shown = {finding.path for finding in result.findings} | {
                result.shown_paths.get(p, p) for p in [display_path_for(self.focus, self.config.rootpath)]
            }
            claims = tuple(claim for claim in claims if claim.finding.path in shown)
        if outcomes is None or not claims:
            return result
        if hasattr(self.config, "workerinput"):
            self.handoff_session_claims = wire(claims)
            return result
        found = outcomes.contradicted(claims)
        return result._replace(findings=tuple(sorted((*result.findings, *found)))) if found else result

    def _user_checks(self, chain: Group) -> Iterator[Hit | Finding]:
        settings = settings_of(self.config)
        from pytest_handoff.pipeline.user_checks import hook_output

        for produced in self.ihook.pytest_handoff_check_chain(chain=chain, settings=settings):
            yield from hook_output(produced)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # Our own text: pytest's default repr would parse every frame's source (~77 ms each).
        if isinstance(excinfo.value, HandoffContractError):
            return excinfo.value.report
        from pytest_handoff.pipeline.user_checks import ExtraCheckError

        if isinstance(excinfo.value, ExtraCheckError):
            # The project's hook is at fault, not this plugin: say what it returned, and where it is.
            where = ", ".join(self._hook_files()) or "a plugin"
            return (
                f"pytest_handoff_check_chain returned {excinfo.value}.\n"
                "  A hook returns chain.hit(document, pointer, message), or a list of them, or None.\n"
                f"  Implemented in: {where}"
            )
        return super().repr_failure(excinfo, style=style)

    def _hook_files(self) -> list[str]:
        """Where the ``pytest_handoff_check_chain`` implementations of this item live."""
        files = []
        for impl in self.ihook.pytest_handoff_check_chain.get_hookimpls():
            source = getattr(impl.plugin, "__file__", None)
            files.append(display_path_for(Path(source), self.config.rootpath) if source else impl.plugin_name)
        return files

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"handoff chain {inert(shown_path(self.ref.group_id))}"


def only_chain_items(items: Sequence[pytest.Item]) -> bool:
    """Whether a session collected handoff items and nothing else (no test of the project's)."""
    return bool(items) and all(isinstance(item, ChainItem) for item in items)


def _shows_passed(config: pytest.Config) -> bool:
    """Whether ``-r`` asks for the output of passing tests (``P``, or ``A``; ``N`` resets)."""
    chars = str(config.getoption("reportchars", "") or "").rpartition("N")[2]
    return "P" in chars or "A" in chars


def _warn(finding: Finding) -> bool:
    """Issue a warning finding as a pytest warning; False when the warning filters made it an error.

    Under ``-W error::...HandoffContractWarning`` or ``filterwarnings = error`` the first warning
    would otherwise end the item with pytest's own traceback and hide every later one.
    """
    # pytest's warnings summary would print the warning's source line, read from the file (on
    # the xdist controller too, where nothing of ours runs): the message holds the place, and a
    # "<...>" name is one Python never reads from disk, so no raw line of a handoff is shown.
    filename = f"<handoff {inert(finding.path)}>"
    try:
        warnings.warn_explicit(
            HandoffContractWarning(one_line(finding)),
            category=HandoffContractWarning,
            filename=filename,
            lineno=max(finding.line, 1),
        )
    except HandoffContractWarning:
        return False
    return True


def one_line(finding: Finding) -> str:
    """A finding on one line, inert (a warning's text, a JUnit property)."""
    pointer = f" {finding.pointer}" if finding.pointer else ""
    return inert(f"{finding.location}: {finding.code} {finding.rule}{pointer}: {finding.message}")


def render_failure(result: GroupResult, *, warnings_are_errors: bool = False) -> str:
    """The failure text of a chain: a headline, then every finding grouped by file.

    ``warnings_are_errors``: the warning filters turned some warning findings into errors.
    """
    from pytest_handoff.reporters.excerpt import format_findings, summary_counts
    from pytest_handoff.values.wording import counted

    files = len({f.path for f in result.findings})
    headline = (
        f"handoff chain {inert(result.shown_id)}: {summary_counts(result.findings)} "
        f"in {counted(files, 'file')}"
    )
    if warnings_are_errors:
        headline += (
            ", failing: warnings are errors in this run (a -W or filterwarnings 'error' filter "
            "matches HandoffContractWarning)"
        )
    return "\n".join([headline, "", *format_findings(result.findings, dict(result.sources))]).rstrip()
