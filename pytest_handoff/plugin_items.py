"""What ``pytest --handoffs`` collects: one item per group (or per named file of a group).

The groups come from the pipeline's one discovery (:func:`pytest_handoff.discovery.discover`),
run once per session over pytest's own arguments; the collectors here only place them in
pytest's tree, so ``pytest --handoffs`` and ``handoff-lint`` see the same groups.
"""

from __future__ import annotations

import linecache
import os
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from pytest_handoff.boundary import inert
from pytest_handoff.config import Settings
from pytest_handoff.model import Finding
from pytest_handoff.read.files import display_path_for
from pytest_handoff.registry import Registry, default_registry

if TYPE_CHECKING:
    from pytest_handoff.model import Group, GroupRef, GroupResult, Hit
    from pytest_handoff.pipeline.discovery import Discovery

SETTINGS_KEY = pytest.StashKey[Settings]()
CACHE_KEY = pytest.StashKey[Any]()
# Chain results checked at collection end, with the files' stamps when they were read.
PREFETCHED_KEY = pytest.StashKey[dict[tuple[Path, ...], tuple["Stamps", "GroupResult"]]]()
Stamps = tuple[tuple[int, int] | None, ...]


def settings_of(config: pytest.Config) -> Settings:
    """The run's settings (set when ``--handoffs`` is given)."""
    return config.stash[SETTINGS_KEY]


def result_cache(config: pytest.Config) -> Any:
    """Chain results under ``.pytest_cache/d/handoff`` (None with ``-p no:cacheprovider``)."""
    if CACHE_KEY not in config.stash:
        from pytest_handoff.pipeline.cache import ResultCache

        pytest_cache = getattr(config, "cache", None)
        config.stash[CACHE_KEY] = (
            ResultCache(pytest_cache.mkdir("handoff"), settings_of(config).fingerprint())
            if pytest_cache is not None
            else None
        )
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


class Placed(NamedTuple):
    """A group to report as one item: the whole group (``focus`` None) or one named file of it."""

    ref: GroupRef
    focus: Path | None


class Collection(NamedTuple):
    """Where each discovered group is collected in pytest's tree."""

    #: Groups collected by the collector of their folder (a NeuralRelay chain, a Craik folder).
    by_folder: dict[Path, list[Placed]]
    #: Groups collected through one of their files (a file on its own, a Ralph session).
    by_file: dict[Path, list[Placed]]
    #: Folders to walk into although pytest would not (``.neuralrelay``, ``build``): they hold groups.
    walk_into: frozenset[Path]


def initial_paths(config: pytest.Config) -> list[Path]:
    """pytest's own arguments as paths (``file.json::name`` is the file)."""
    base = config.invocation_params.dir
    paths = []
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        paths.append(path if path.is_absolute() else base / path)
    return paths


def handoff_arguments(paths: Sequence[Path], settings: Settings, root: Path) -> list[Path]:
    """The arguments to discover from: folders, and named files that some profile claims.

    A named test module is pytest's, not a handoff (``handoff-lint`` would check any file it is
    given); a named file no profile recognises is left to pytest as well.
    """
    from pytest_handoff.pipeline.discovery import profile_for

    registry = default_registry()
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
        named = _named_members(ref, discovery, root)
        placed = [Placed(ref, path) for path in named] if named else [Placed(ref, None)]
        if ref.directory is not None and registry.profile(ref.profile).groups_by_folder:
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


def _named_members(ref: GroupRef, discovery: Discovery, root: Path) -> list[Path]:
    """The group's files named on the command line, unless a named folder holds the whole group."""
    if discovery.focus is None or ref.standalone:  # a file on its own is its whole group
        return []
    if ref.directory is not None and any(
        os.path.normcase(folder) in discovery.folders for folder in (ref.directory, *ref.directory.parents)
    ):
        return []
    return [path for path in ref.paths if display_path_for(path, root) in discovery.focus]


def items_for(parent: pytest.Collector, placed: Iterable[Placed]) -> Iterator[ChainItem]:
    """The items of ``placed`` groups, as children of ``parent``."""
    settings = settings_of(parent.config)
    for ref, focus in placed:
        keywords = default_registry().profile(ref.profile).keywords(ref.paths, settings)
        if focus is not None:
            name = f"{inert(ref.group_id)}[{inert(focus.name)}]"
        elif ref.standalone:
            name = inert(ref.paths[0].name)
        else:
            name = inert(ref.group_id)
        yield ChainItem.from_parent(parent, name=name, ref=ref, focus=focus, keywords=keywords)


class GroupFile(pytest.File):
    """A handoff file that is collected for its group (a file on its own, or a spread group)."""

    placed: Sequence[Placed] = ()

    def collect(self) -> Iterable[pytest.Item]:
        return list(items_for(self, self.placed))


class HandoffContractWarning(UserWarning):
    """A handoff finding of severity warning."""


class HandoffContractError(Exception):
    """Raised by a chain item whose contracts are broken; carries the rendered report."""

    def __init__(self, report: str) -> None:
        super().__init__(report)
        self.report = report


class ChainItem(pytest.Item):
    """One group checked as a whole (reporting one named file of it when ``focus`` is set)."""

    def __init__(self, *, ref: GroupRef, focus: Path | None, keywords: list[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ref = ref
        self.focus = focus
        if focus is not None:
            self.path = focus
        self.handoff_findings: list[dict[str, object]] = []
        self.add_marker("handoff")
        self.extra_keyword_matches.update(keywords)
        self.extra_keyword_matches.add(ref.group_id)

    def runtest(self) -> None:
        from pytest_handoff.model import Severity
        from pytest_handoff.pipeline.check import check_group

        settings = settings_of(self.config)
        root = self.config.rootpath
        prefetched = self.config.stash.get(PREFETCHED_KEY, {}).get(self.ref.paths)
        result = prefetched[1] if prefetched and prefetched[0] == stamps(self.ref.paths) else None
        if result is None:
            extra = [self._user_checks] if self.ihook.pytest_handoff_check_chain.get_hookimpls() else []
            result = check_group(self.ref, settings, root, extra, cache=result_cache(self.config))
        if self.focus is not None:
            result = result.narrowed_to([display_path_for(self.focus, root)])
        self.handoff_findings = [finding.to_wire() for finding in result.findings]
        for finding in result.findings:
            self.user_properties.append(("handoff_finding", one_line(finding)))
        if result.notes:
            self.add_report_section("call", "handoff trace", "\n".join(inert(note) for note in result.notes))
        escalated = [
            finding
            for finding in result.findings
            if finding.severity == Severity.WARNING and not _warn(finding, root, result.sources)
        ]
        if result.failed or escalated:
            raise HandoffContractError(render_failure(result, warnings_are_errors=bool(escalated)))

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
        return self.path, None, f"handoff chain {inert(self.ref.group_id)}"


def _warn(finding: Finding, root: Path, sources: Mapping[str, Sequence[str]]) -> bool:
    """Issue a warning finding as a pytest warning; False when the warning filters made it an error.

    Under ``-W error::...HandoffContractWarning`` or ``filterwarnings = error`` the first warning
    would otherwise end the item with pytest's own traceback and hide every later one.
    """
    filename = str(root / finding.path)
    # pytest's warnings summary shows the warning's source line, read through linecache: it gets
    # the lines the pipeline masked, made inert, never the file's own.
    shown = [inert(line) + "\n" for line in sources.get(finding.path, ())]
    linecache.cache[filename] = (sum(map(len, shown)), None, shown, filename)
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

    files = len({f.path for f in result.findings})
    headline = (
        f"handoff chain {inert(result.ref.group_id)}: {summary_counts(result.findings)} "
        f"in {files} file{'s' if files != 1 else ''}"
    )
    if warnings_are_errors:
        headline += (
            ", failing: warnings are errors in this run (a -W or filterwarnings 'error' filter "
            "matches HandoffContractWarning)"
        )
    return "\n".join([headline, "", *format_findings(result.findings, dict(result.sources))]).rstrip()
