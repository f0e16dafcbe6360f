"""The pytest plugin: ``pytest --handoffs`` turns every handoff group into a test item.

Ordered by the pytest lifecycle: options, configure, collection, run, report. The groups are
the pipeline's (one discovery over pytest's arguments); the items live in :mod:`pytest_handoff.plugin.items`.
pytest loads this module at every start: the engine is imported only once ``--handoffs`` is
given (each hook returns at once without it), so other test runs do not pay for it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Generator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff.plugin.base import (
    CACHE_KEY,
    COLLECTION_KEY,
    OTHER_SHARES_KEY,
    PREFETCHED_KEY,
    RUN_KEY,
    SETTINGS_KEY,
    Prefetched,
)
from pytest_handoff.plugin.base import HandoffContractWarning as HandoffContractWarning
from pytest_handoff.values.errors import ConfigError

if TYPE_CHECKING:
    from pytest_handoff.plugin.collection import Collection
    from pytest_handoff.plugin.items import ChainFolder, GroupFile, GroupFolder
    from pytest_handoff.plugin.xdist import Share
    from pytest_handoff.values.groups import GroupRef

# --- options -----------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("handoff", "handoff contracts (pytest-handoff)")
    group.addoption(
        "--handoffs",
        action="store_true",
        dest="handoff_enabled",
        default=False,
        help="collect agent handoff files (.neuralrelay/handoffs/...) and check their contracts.",
    )
    group.addoption(
        "--handoff-select",
        dest="handoff_select",
        default=None,
        metavar="CODES",
        help="only these rule codes or prefixes, comma-separated (e.g. HS,NR3).",
    )
    group.addoption(
        "--handoff-ignore",
        dest="handoff_ignore",
        default=None,
        metavar="CODES",
        help="skip these rule codes or prefixes, comma-separated.",
    )
    group.addoption(
        "--handoff-evidence",
        action="store_true",
        dest="handoff_evidence",
        default=False,
        help="check handoffs' claims against the repository (EV rules), as handoff-lint --evidence "
        "(the default in a git repository).",
    )
    group.addoption(
        "--handoff-no-evidence",
        action="store_true",
        dest="handoff_no_evidence",
        default=False,
        help="do not check handoffs' claims against the repository (as evidence = false).",
    )
    group.addoption(
        "--handoff-evidence-junit",
        dest="handoff_evidence_junit",
        default=None,
        metavar="PATH",
        help="a JUnit XML report to reconcile the handoffs' test claims with (implies --handoff-evidence).",
    )
    group.addoption(
        "--handoff-shard",
        dest="handoff_shard",
        default=None,
        metavar="K/N",
        help="collect only the K-th of N shards of the handoff groups (as handoff-lint --shard); "
        "the project's own tests are not sharded.",
    )
    group.addoption(
        "--handoff-baseline",
        dest="handoff_baseline",
        default=None,
        metavar="PATH",
        help="leave out the findings this baseline file knows (handoff-lint --write-baseline writes it); "
        "as baseline = PATH under [tool.handoff].",
    )
    parser.addini(
        "handoff_globs",
        "deprecated: [tool.handoff.neuralrelay] globs (where NeuralRelay handoffs live, one per line).",
        type="linelist",
    )
    parser.addini("handoff_select", "rule codes or prefixes to run (default: all).", type="args")
    parser.addini("handoff_ignore", "rule codes or prefixes to skip.", type="args")
    parser.addini(
        "handoff_severity", "severity overrides, one CODE=error|warning|info per line.", type="linelist"
    )
    parser.addini(
        "handoff_max_counterexample_length",
        "deprecated: [tool.handoff.neuralrelay] max-counterexample-length (NR206, default 600).",
        default=None,
    )
    parser.addini(
        "handoff_max_rework_cycles",
        "deprecated: [tool.handoff.neuralrelay] max-rework-cycles (NR309, default 2).",
        default=None,
    )
    parser.addini(
        "handoff_agents",
        "deprecated: [tool.handoff.neuralrelay] agents (one AGENT=handoff_type per line).",
        type="linelist",
    )
    parser.addini(
        "handoff_jobs",
        "processes that check many chains at once (default: one per core; 1: none).",
        default=None,
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_handoff.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


# --- configure ---------------------------------------------------------------


def _ini_overrides(config: pytest.Config) -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for key in (
        "globs",
        "select",
        "ignore",
        "severity",
        "max_counterexample_length",
        "max_rework_cycles",
        "agents",
    ):
        value = config.getini(f"handoff_{key}")
        if value:  # unset ini options read as [] or None
            overrides[key] = value
    for key in ("select", "ignore"):
        value = config.getoption(f"handoff_{key}")
        if value:
            overrides[key] = value
    if config.getoption("handoff_evidence"):
        overrides["evidence"] = True
    junit = config.getoption("handoff_evidence_junit")
    if junit and not config.getoption("handoff_no_evidence"):
        if not os.path.isfile(junit):
            raise pytest.UsageError(f"--handoff-evidence-junit: no such file: {junit}")
        overrides["evidence_junit"] = os.path.abspath(junit)
    if config.getoption("handoff_no_evidence"):
        overrides["evidence"] = False
    shard = config.getoption("handoff_shard")
    if shard:
        overrides["shard"] = shard
    baseline = config.getoption("handoff_baseline")
    if baseline:
        overrides["baseline"] = os.path.abspath(baseline)
    return overrides


def pytest_configure(config: pytest.Config) -> None:
    from pytest_handoff.plugin.ending import session_started

    session_started(config)
    if not config.getoption("handoff_enabled"):
        return
    from pytest_handoff.pipeline.run import Run

    try:
        overrides = _ini_overrides(config)
        run = Run.in_project(config.rootpath, overrides=overrides, source="pytest ini options")
        if run.settings.evidence:  # the session's own outcomes are a run to hold test claims to
            run.settings = run.settings._replace(evidence_session=True)
        settings, registry = run.settings, run.registry
        # The profiles that read tables of their own refuse bad values now, once: not as an error
        # of every group they would check.
        for name in settings.options:
            if name in registry.names():
                registry.checked_options(registry.profile(name), settings)
    except ConfigError as error:
        from pytest_handoff.values.boundary import inert

        raise pytest.UsageError(f"pytest-handoff: {inert(str(error), opens_line=False)}") from None
    config.stash[SETTINGS_KEY] = settings
    config.stash[RUN_KEY] = run
    _jobs(config)  # a bad value is a usage error now, not after collection
    config.addinivalue_line("markers", "handoff: a handoff chain checked by pytest-handoff")
    from pytest_handoff.plugin.ci import CiReporting

    config.pluginmanager.register(CiReporting(config), "handoff-ci-reporting")
    if settings.evidence:
        from pytest_handoff.plugin.session import register

        register(config)
    if config.pluginmanager.hasplugin("xdist"):
        from pytest_handoff.plugin.xdist import register_controller, share_of

        register_controller(config)
        share = share_of(config)
        if share is not None:
            config.pluginmanager.register(XdistWorkerChecks(share), "handoff-xdist-worker")


def _jobs(config: pytest.Config) -> int | None:
    value = config.getini("handoff_jobs")
    if not value:
        return None
    try:
        return max(1, int(value))
    except ValueError:
        raise pytest.UsageError(
            f"pytest-handoff: handoff_jobs must be a whole number, got {value!r}"
        ) from None


# --- collection ----------------------------------------------------------------


def _collection(config: pytest.Config) -> Collection | None:
    """The groups of this run and where they are collected: one discovery, made on first need."""
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None:
        return None
    if COLLECTION_KEY not in config.stash:
        from pytest_handoff.plugin.early import start
        from pytest_handoff.plugin.items import handoff_arguments, initial_paths, place, result_cache, stamps

        run = config.stash[RUN_KEY]
        root = config.rootpath
        given = initial_paths(config)
        paths = handoff_arguments(given, run)
        # The whole project, as handoff-lint with no path (configured stores too), or what was named.
        whole = given == [root]
        found = run.discover([]) if whole else run.discover(paths) if paths else _nothing()
        config.stash[COLLECTION_KEY] = place(found, root, run.registry)
        # Checking starts now, while pytest collects (plugin.early).
        start(config, found.groups, _jobs(config), partial(result_cache, config), stamps)
    return config.stash[COLLECTION_KEY]


def _nothing() -> Any:
    from pytest_handoff.pipeline.discovery import Discovery

    return Discovery((), None)


def _ignored_by_option(path: Path, config: pytest.Config) -> bool:
    """True when ``--ignore`` names ``path`` or a folder holding it."""
    ignored = [Path(os.path.abspath(given)) for given in config.getoption("ignore") or ()]
    return any(path == folder or path.is_relative_to(folder) for folder in ignored)


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Walk into folders that hold groups (``.neuralrelay``, ``.claude``) although ``norecursedirs`` matches."""
    collection = _collection(config)
    if (
        collection is not None
        and collection_path in collection.walk_into
        and not _ignored_by_option(collection_path, config)
    ):
        return False
    return None


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A folder holding groups: their items, then the rest of the folder as pytest sees it."""
    collection = _collection(parent.config)
    if collection is None or path not in collection.by_folder:
        return None
    from pytest_handoff.plugin.items import ChainFolder, GroupFolder, holds_only

    placed = collection.by_folder[path]
    members = frozenset(member for item in placed for member in item.ref.paths)
    if path != parent.config.rootpath and holds_only(path, members):
        chain: ChainFolder = ChainFolder.from_parent(parent, path=path)
        chain.placed = placed
        return chain
    folder: GroupFolder = GroupFolder.from_parent(parent, path=path)
    folder.placed = placed
    folder.members = members
    return folder


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A file through which its group is collected: a file on its own, a group spread over folders."""
    collection = _collection(parent.config)
    if collection is None or file_path not in collection.by_file:
        return None
    from pytest_handoff.plugin.items import GroupFile

    collected: GroupFile = GroupFile.from_parent(parent, path=file_path)
    collected.placed = collection.by_file[file_path]
    return collected


# --- run -----------------------------------------------------------------------


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With evidence on, handoff items run last (in their order): their test claims are held to
    the outcomes of the tests before them (:mod:`pytest_handoff.plugin.session`)."""
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None or not settings.evidence:
        return
    from pytest_handoff.plugin.items import ChainItem

    others = [item for item in items if not isinstance(item, ChainItem)]
    if len(others) < len(items):
        items[:] = others + [item for item in items if isinstance(item, ChainItem)]


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Check every collected group at once, before the run: on several processes when there are
    many (those started as collection started, :mod:`pytest_handoff.plugin.early`, are settled or
    left to stream to their items here).

    Items then only report their group's result, unless a file changed since (a test wrote
    it): then the item checks its group again. An xdist worker checks its share of the groups
    instead (:class:`XdistWorkerChecks`). Left to the items themselves: collect-only runs,
    projects with their own ``pytest_handoff_check_chain`` hooks (they run in this process, with
    the item), and every group when checking them together fails (a project rule that raises
    fails only its own group's item).
    """
    if not hasattr(session.config, "workerinput"):
        _prefetch(session)
    if SETTINGS_KEY in session.config.stash:
        from pytest_handoff.plugin.ending import collected
        from pytest_handoff.plugin.items import only_chain_items

        collected(only_chain_items(session.items))


class XdistWorkerChecks:
    """On an xdist worker whose controller shares results: the worker's share of the groups is
    checked before xdist's own hook tells the controller that this worker has collected (the
    controller hands out items only once every worker has), so that every share is written
    before any item runs (:mod:`pytest_handoff.plugin.xdist`)."""

    def __init__(self, share: Share) -> None:
        self.share = share

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        _prefetch(session, self.share)


def _prefetch(session: pytest.Session, share: Share | None = None) -> None:
    """Check the collected groups (or ``share``'s of them) and keep the results for the items."""
    config = session.config
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None:
        return
    from pytest_handoff.plugin.early import EARLY_KEY

    early = config.stash.get(EARLY_KEY, None)
    if config.option.collectonly or config.hook.pytest_handoff_check_chain.get_hookimpls():
        if early is not None:  # a conftest collected since brought a chain hook: items check their groups
            early.close()
            del config.stash[EARLY_KEY]
        return
    from pytest_handoff.plugin.items import ChainItem, only_chain_items, result_cache, stamps

    refs = [item.ref for item in session.items if isinstance(item, ChainItem)]
    refs = list({ref.paths: ref for ref in refs}.values())  # a group once, in collection order
    collection = config.stash.get(COLLECTION_KEY, None)
    placed = [] if collection is None else [*collection.by_folder.values(), *collection.by_file.values()]
    if len({item.ref.paths for items in placed for item in items}) > len(refs):
        # Some groups were deselected: the cache keeps their entries for the next whole run.
        cache = result_cache(config)
        if cache is not None:
            cache.carry_over()
    if early is not None:  # checking since collection started
        if not only_chain_items(session.items) or getattr(config.option, "forked", False):
            # The project's own tests run in this session: the workers (and the thread that feeds
            # them) end before any of its code runs, as a test that forks would find them; and a
            # test run in a forked child (pytest-forked) could not wait for them.
            config.stash[PREFETCHED_KEY] = early.settle(refs)
            del config.stash[EARLY_KEY]
        else:  # only handoff items: each waits for its own group's result
            early.keep_only(refs)
        return
    if not refs:
        return
    from pytest_handoff.pipeline.parallel import check_groups

    registry = config.stash[RUN_KEY].registry

    def check(chosen: Sequence[GroupRef]) -> Prefetched:
        stamped = {ref.paths: stamps(ref.paths) for ref in chosen}  # before reading: a later change is seen
        results = check_groups(
            list(chosen),
            settings,
            config.rootpath,
            cache=result_cache(config),
            # An xdist worker checks its share in its own process: it runs threads, and forks none.
            jobs=1 if share is not None else _jobs(config),
            registry=registry,
        )
        return {result.ref.paths: (stamped[result.ref.paths], result) for result in results}

    try:
        if share is None:
            prefetched = check(refs)
        else:
            from pytest_handoff.plugin.xdist import check_share, read_shares

            prefetched = check_share(share, refs, check)
            read_others: Callable[[], Prefetched] = partial(
                read_shares, share, refs, registry, config.rootpath
            )
            config.stash[OTHER_SHARES_KEY] = read_others
    except Exception:  # each item checks its own group again and reports the error
        return
    config.stash[PREFETCHED_KEY] = prefetched


# --- report ----------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report: pytest.TestReport = yield
    if call.when != "call" or SETTINGS_KEY not in item.config.stash:
        return report  # without --handoffs there is no chain item
    from pytest_handoff.plugin.items import ChainItem

    if isinstance(item, ChainItem):
        # Plain data survives xdist's report serialisation, so the controller sees it.
        report.handoff_profile = item.ref.profile  # type: ignore[attr-defined]
        report.handoff_chain = item.ref.group_id  # type: ignore[attr-defined]
        report.handoff_files = [str(p) for p in item.ref.paths]  # type: ignore[attr-defined]
        report.handoff_findings = item.handoff_findings  # type: ignore[attr-defined]
        report.handoff_session_claims = item.handoff_session_claims  # type: ignore[attr-defined]
        report.handoff_baselined = item.handoff_baselined  # type: ignore[attr-defined]
    return report


def pytest_unconfigure(config: pytest.Config) -> None:
    from pytest_handoff.plugin.ending import session_ended

    session_ended(config)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if SETTINGS_KEY not in session.config.stash:
        return
    from pytest_handoff.plugin.early import EARLY_KEY

    early = session.config.stash.get(EARLY_KEY, None)
    if early is not None:  # what the workers checked goes to the cache, asked for or not (-x)
        early.close()
    cache = session.config.stash.get(CACHE_KEY, None)
    if cache is not None:
        problem = cache.flush()
        if problem:
            print(f"pytest-handoff: warning: {problem}", file=sys.stderr)
