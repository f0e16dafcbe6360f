"""One run of the pipeline: discover, then check, for one project with one set of settings and one
registry. Every entry point (handoff-lint, pytest, the API, the views, the hooks, MCP) builds one
:class:`Run` and differs only in how it reports what the run gives."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.pipeline.config import build_settings, project_root
from pytest_handoff.pipeline.registry import Registry, default_registry
from pytest_handoff.read.files import display_path_for
from pytest_handoff.values.findings import Finding
from pytest_handoff.values.groups import UNCLAIMED, ExtraCheck, GroupRef, GroupResult
from pytest_handoff.values.settings import Settings

#: How findings name an agent's message checked as a handoff.
MESSAGE_DISPLAY = "last assistant message"
#: Of a longer message, only its last this many bytes (UTF-8) are read (its report is at its end).
MAX_MESSAGE = 512 * 1024

if TYPE_CHECKING:
    from pytest_handoff.pipeline.cache import ResultCache
    from pytest_handoff.pipeline.discovery import Discovery
    from pytest_handoff.pipeline.parallel import Progress


class Run:
    """One run: the project ``root``, its ``settings`` and the ``registry`` every step shares."""

    def __init__(self, root: Path, settings: Settings, registry: Registry) -> None:
        self.root = root
        self.settings = settings
        self.registry = registry
        if settings.evidence:
            # What git said in an earlier run of this process (the MCP server, the API called in a
            # loop) may be stale: the work tree changes without HEAD or the index changing.
            from pytest_handoff.pipeline.evidence import forget_git

            forget_git()

    @classmethod
    def in_project(
        cls,
        root: Path,
        *,
        settings: Settings | None = None,
        config_file: Path | None = None,
        overrides: Mapping[str, Any] | None = None,
        source: str = "command line",
        registry: Registry | None = None,
    ) -> Run:
        """A run of the project at ``root``: the installed formats (unless ``registry`` is given) and
        the settings :func:`~pytest_handoff.pipeline.config.build_settings` builds (unless given)."""
        registry = default_registry() if registry is None else registry
        if settings is None:
            settings = build_settings(
                root, registry, config_file=config_file, overrides=overrides, source=source
            )
        return cls(root, settings, registry)

    def discover(self, paths: Sequence[Path], deleted: Sequence[Path] = ()) -> Discovery:
        from pytest_handoff.pipeline.discovery import discover

        if self.settings.evidence:  # git answers while the files are found and read
            from pytest_handoff.pipeline.evidence import start_asking_git

            start_asking_git(self.root, paths)

        return discover(paths, self.root, self.settings, deleted, registry=self.registry)

    def check(
        self,
        refs: Sequence[GroupRef],
        extra_checks: Sequence[ExtraCheck] = (),
        *,
        cache: ResultCache | None = None,
        jobs: int | None = None,
        progress: Progress | None = None,
        summarise: bool = False,
    ) -> list[GroupResult]:
        """The groups checked (on a process pool when there are many); with ``summarise``, each
        result carries the group as the views show it."""
        from pytest_handoff.pipeline.parallel import check_groups

        results = check_groups(
            refs, self.settings, self.root, extra_checks, cache, jobs, progress,
            registry=self.registry, summarise=summarise,
        )  # fmt: skip
        return self.without_known(results)

    def without_known(self, results: list[GroupResult]) -> list[GroupResult]:
        """``results`` without the findings the settings' baseline knows (each counted in its
        result's ``baselined``). Every path of checking below passes through here."""
        if not self.settings.baseline:
            return results
        from pytest_handoff.pipeline.baseline import without_known

        return without_known(results, self.settings.baseline)

    def check_paths(
        self,
        paths: Sequence[Path],
        extra_checks: Sequence[ExtraCheck] = (),
        *,
        whole_chain: bool = False,
        cache: ResultCache | None = None,
        jobs: int | None = None,
        deleted: Sequence[Path] = (),
        progress: Progress | None = None,
    ) -> tuple[Discovery, list[GroupResult]]:
        """:func:`check_paths` with this run's project, settings and registry."""
        discovery, results = check_paths(
            paths, self.root, self.settings, extra_checks, whole_chain=whole_chain, cache=cache, jobs=jobs,
            deleted=deleted, progress=progress, registry=self.registry,
        )  # fmt: skip
        return discovery, self.without_known(results)

    def check_file(
        self,
        target: Path,
        display: str,
        content: bytes | None = None,
        *,
        whole_chain: bool = False,
        cache: ResultCache | None = None,
    ) -> GroupResult:
        """The group of the file at ``target`` (absolute; shown as ``display``) checked, with
        ``content`` in its place when given; narrowed to the file unless ``whole_chain``."""
        from pytest_handoff.pipeline.check import check_group
        from pytest_handoff.pipeline.discovery import group_ref_for, profile_for

        registry, settings = self.registry, self.settings
        profile = profile_for(target, settings, display, explicit=True, registry=registry)
        profile = profile or registry.profile(UNCLAIMED)
        ref = group_ref_for(profile, target, settings, self.root, registry=registry)
        overrides: Mapping[Path, bytes] = {} if content is None else {target: content}
        result = check_group(ref, settings, self.root, cache=cache, overrides=overrides, registry=registry)
        (result,) = self.without_known([result])
        return result if whole_chain else result.narrowed_to([display])

    def claims_unjudged(self) -> str:
        """Why an agent's claims cannot be judged in this run ('' when they can): they are judged
        against git, so evidence must be on and the project in a git repository."""
        from pytest_handoff.pipeline.config import in_git_repository

        if not in_git_repository(self.root):
            return f"{self.root} is not in a git repository"
        if not self.settings.evidence:
            return f"evidence is off ({self.settings.evidence_off or 'evidence = false, or --no-evidence'})"
        return ""

    def check_message(
        self, text: str, display: str = MESSAGE_DISPLAY, lines_before: int = 0
    ) -> GroupResult | None:
        """An agent's message (its last word, a report) checked as a handoff of its own, by the
        format that reads messages; None when no format does. Nothing is read from or written to
        disk in its name: its claims are judged against the project's tree and git.

        Of a message over :data:`MAX_MESSAGE` bytes only its end is read; findings keep the lines
        of the whole message (``lines_before``: lines a caller already cut from its start)."""
        from pytest_handoff.pipeline.check import check_group
        from pytest_handoff.pipeline.discovery import group_ref_for

        spec = next((spec for spec in self.registry.specs.values() if spec.message_file), None)
        if spec is None:
            return None
        content = text.encode("utf-8", "surrogatepass")
        if len(content) > MAX_MESSAGE:  # a report ends with its claims
            lines_before += content.count(b"\n", 0, len(content) - MAX_MESSAGE)
            content = content[-MAX_MESSAGE:]
            while content and content[0] & 0xC0 == 0x80:  # not half a character
                content = content[1:]
        # Always that format's, whatever profile the run forces: the same verdict in every entry point.
        profile, target = self.registry.profile(spec.name), self.root / spec.message_file
        ref = group_ref_for(profile, target, self.settings, self.root, registry=self.registry)
        result = check_group(
            ref, self.settings, self.root, overrides={target: content}, registry=self.registry
        )
        named = display_path_for(target, self.root)  # the name it was read under: findings show ``display``
        return result._replace(
            findings=tuple(
                _as_message(f, named, display, lines_before) if f.path == named else f
                for f in result.findings
            ),
            # A message cut short shows no excerpt: its lines are no longer those of the findings.
            sources={
                display if path == named else path: lines
                for path, lines in result.sources.items()
                if path != named or not lines_before
            },
        )


def _as_message(finding: Finding, named: str, display: str, lines: int) -> Finding:
    """A finding of the message read as the file ``named``: shown as ``display``, and ``lines``
    further down (a message whose first lines were cut), its related places in it too."""

    def moved(line: int) -> int:
        return line + lines if line > 0 else line

    related = tuple(
        (display, moved(line), column, label) if path == named else (path, line, column, label)
        for path, line, column, label in finding.related
    )
    if finding.line <= 0:
        return finding._replace(path=display, related=related)
    return finding._replace(
        path=display, line=moved(finding.line), end_line=moved(finding.end_line), related=related
    )


def find_project(start: Path) -> Path:
    """The project ``start`` is in, as every entry point finds it: the nearest folder holding a
    format's marker folder (``.neuralrelay``, ``.yolo-planning``), else the git root."""
    return project_root(start, default_registry().project_markers())


def check_paths(
    paths: Sequence[Path],
    root: Path,
    settings: Settings,
    extra_checks: Sequence[ExtraCheck] = (),
    *,
    whole_chain: bool = False,
    cache: ResultCache | None = None,
    jobs: int | None = None,
    deleted: Sequence[Path] = (),
    progress: Progress | None = None,
    registry: Registry,
) -> tuple[Discovery, list[GroupResult]]:
    """Discover and check; results narrowed to named files when files were named (unless ``whole_chain``).

    ``deleted``: files the commit being checked removes (see :func:`discover`).
    """
    from pytest_handoff.pipeline.discovery import discover
    from pytest_handoff.pipeline.parallel import check_groups

    if settings.evidence:  # git answers while the files are found and read
        from pytest_handoff.pipeline.evidence import start_asking_git

        start_asking_git(root, paths)
    discovery = discover(paths, root, settings, deleted, registry=registry)
    gone: dict[str, list[str]] = {}  # deleted files by their folder
    for given in deleted:
        shown = display_path_for(given if given.is_absolute() else root / given, root)
        gone.setdefault(shown.rpartition("/")[0], []).append(shown)
    results = []
    for ref, result in zip(
        discovery.groups,
        check_groups(
            discovery.groups, settings, root, extra_checks, cache, jobs, progress, registry=registry
        ),
        strict=True,
    ):
        named = None if whole_chain else reported_files(ref, discovery, root, gone)
        results.append(result if named is None else result.narrowed_to(named))
    return discovery, results


def reported_files(
    ref: GroupRef, discovery: Discovery, root: Path, gone: Mapping[str, list[str]] | None = None
) -> list[str] | None:
    """The display paths of a group's files named on the command line, which its report is narrowed
    to; None when it is reported whole (nothing was named, or a named folder holds it).

    ``gone`` are deleted files by their folder: a deleted file of the group counts as named. The
    pytest plugin makes one item of each of these files (``handoff-lint`` and pytest agree).
    """
    if discovery.focus is None or _in_named_folder(ref, discovery.folders):
        return None
    named = [display_path_for(path, root) for path in ref.paths]
    if ref.directory is not None and gone:
        named += gone.get(display_path_for(ref.directory, root), [])
    return [shown for shown in named if shown in discovery.focus]


def _in_named_folder(ref: GroupRef, folders: frozenset[str]) -> bool:
    """True when a named folder holds this group (then it is reported whole): its folder, or the
    folder of a file on its own.

    Looks the folder and its parents up in the named folders: linear in the number of groups,
    where comparing every group with every named path was quadratic.
    """
    if not folders:
        return False
    folder = ref.directory if ref.directory is not None else ref.paths[0].parent
    return any(os.path.normcase(place) in folders for place in (folder, *folder.parents))
