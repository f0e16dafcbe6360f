"""The pytest plugin: ``pytest --handoffs`` turns every handoff chain into a test item.

Ordered by the pytest lifecycle: options, configure, collection, run, report.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Generator, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_handoff.config import ConfigError, Settings, config_path, load_settings

if TYPE_CHECKING:
    from _pytest._code.code import ExceptionInfo, TerminalRepr

    from pytest_handoff.engine import Chain, ChainRef, ChainResult
    from pytest_handoff.findings import Finding
    from pytest_handoff.rules import Hit

SETTINGS_KEY = pytest.StashKey[Settings]()

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
    parser.addini("handoff_globs", "where handoff files live (globs, one per line).", type="linelist")
    parser.addini("handoff_select", "rule codes or prefixes to run (default: all).", type="args")
    parser.addini("handoff_ignore", "rule codes or prefixes to skip.", type="args")
    parser.addini(
        "handoff_severity", "severity overrides, one CODE=error|warning|info per line.", type="linelist"
    )
    parser.addini(
        "handoff_max_counterexample_length", "NR206 limit in characters (default 600).", default=None
    )
    parser.addini("handoff_max_rework_cycles", "NR309 limit (default 2).", default=None)
    parser.addini("handoff_agents", "extra agents, one AGENT=handoff_type per line.", type="linelist")
    parser.addini(
        "handoff_jobs",
        "processes that check many chains at once (default: one per core; 1: none).",
        default=None,
    )


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_handoff import hookspecs

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
    return overrides


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("handoff_enabled"):
        return
    try:
        from_file = load_settings(config.rootpath)
        overrides = _ini_overrides(config)
        from pytest_handoff.engine import known_codes

        # Each source checked on its own, so that an unknown code's message names where it is.
        from_ini = Settings().merged(overrides, "pytest ini options")
        named = [*from_file.select, *from_file.ignore, *from_file.severities]
        named += [*from_ini.select, *from_ini.ignore, *from_ini.severities]
        if named:
            codes = known_codes(named)
            from_file.check_codes(codes, config_path(config.rootpath))
            from_ini.check_codes(codes, "pytest ini options")
        settings = from_file.merged(overrides, "pytest ini options")
    except ConfigError as error:
        raise pytest.UsageError(f"pytest-handoff: {error}") from None
    config.stash[SETTINGS_KEY] = settings
    _jobs(config)  # a bad value is a usage error now, not after collection
    config.addinivalue_line("markers", "handoff: a handoff chain checked by pytest-handoff")
    config.pluginmanager.register(CiReporting(config), "handoff-ci-reporting")


def _settings(config: pytest.Config) -> Settings | None:
    return config.stash.get(SETTINGS_KEY, None)


CACHE_KEY = pytest.StashKey[Any]()


def _result_cache(config: pytest.Config) -> Any:
    """Chain results under ``.pytest_cache/d/handoff`` (None with ``-p no:cacheprovider``)."""
    if CACHE_KEY not in config.stash:
        from pytest_handoff.cache import ResultCache

        settings = _settings(config)
        pytest_cache = getattr(config, "cache", None)
        config.stash[CACHE_KEY] = (
            ResultCache(pytest_cache.mkdir("handoff"), settings.fingerprint())
            if pytest_cache is not None and settings is not None
            else None
        )
    return config.stash[CACHE_KEY]


# --- collection ----------------------------------------------------------------


def _hidden_roots(settings: Settings) -> set[str]:
    """Hidden folder names that some profile's globs walk into (``.neuralrelay``, ``.claude``)."""
    from pytest_handoff.specs import BUILTIN_SPECS

    globs = [glob for spec in BUILTIN_SPECS for glob in spec.globs(settings)]
    return {part for glob in globs for part in glob.strip("/").split("/") if part.startswith(".")}


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Walk into ``.neuralrelay`` (and the like) although it matches the default ``norecursedirs`` (``.*``)."""
    settings = _settings(config)
    if settings is not None and collection_path.name in _hidden_roots(settings) and collection_path.is_dir():
        return False
    return None


MATCHER_KEY = pytest.StashKey[Any]()


def _matcher(config: pytest.Config, settings: Settings) -> Any:
    """The globs of every profile, compiled once per run."""
    if MATCHER_KEY not in config.stash:
        from pytest_handoff.globs import Matcher

        config.stash[MATCHER_KEY] = Matcher(settings, plugins=False)
    return config.stash[MATCHER_KEY]


def _candidate_files(directory: Path, config: pytest.Config, settings: Settings) -> list[Path]:
    """The regular files directly in ``directory`` some profile's globs may match, sorted by name."""
    matcher = _matcher(config, settings)
    try:
        with os.scandir(directory) as scan:
            entries = sorted((entry for entry in scan if matcher.may_match(entry.name)), key=lambda e: e.name)
    except OSError:
        return []
    return [directory / entry.name for entry in entries if entry.is_file()]


def _handoff_files(
    files: list[Path], settings: Settings, session: pytest.Session
) -> Iterator[tuple[Path, Any]]:
    """The files of ``files`` that are handoffs (by the globs, or named), with their profile."""
    from pytest_handoff.documents import display_path_for
    from pytest_handoff.engine import profile_for

    for path in files:
        relative = display_path_for(path, session.config.rootpath)
        profile = profile_for(path, settings, relative, explicit=session.isinitpath(path))
        if profile is not None:
            yield path, profile


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A chain folder (a group whose files sit in one folder) is one collector."""
    settings = _settings(parent.config)
    if settings is None:
        return None
    files = _candidate_files(path, parent.config, settings)
    handoffs = list(_handoff_files(files, settings, parent.session))
    for file_path, profile in handoffs:
        if not profile.groups_by_folder:
            continue
        located = profile.chain_of(file_path)
        if located is not None and located[0] == path:
            directory: ChainDirectory = ChainDirectory.from_parent(parent, path=path)
            directory.listed = (files, [(f, p) for f, p in handoffs if p is profile])
            return directory
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A handoff file outside any chain folder: an item of its own, or the item of its group.

    A group whose files are spread over folders (a Ralph session) is collected once, with its
    first file (or with each of its files named on the command line).
    """
    settings = _settings(parent.config)
    if settings is None or file_path.suffix == ".py":
        return None
    if not _matcher(parent.config, settings).may_match(file_path.name) and not parent.session.isinitpath(
        file_path
    ):
        return None
    from pytest_handoff.documents import display_path_for
    from pytest_handoff.engine import chain_ref_for, profile_for

    relative = display_path_for(file_path, parent.config.rootpath)
    named = parent.session.isinitpath(file_path)
    profile = profile_for(file_path, settings, relative, explicit=named)
    if profile is None:
        return None
    located = profile.chain_of(file_path)
    if located is not None:
        if profile.groups_by_folder:
            return None  # its folder's collector has it
        ref = chain_ref_for(profile, file_path, settings, parent.config.rootpath)
        if not named and ref.paths[0] != file_path:
            return None
    # Outside the configured globs, only files named explicitly are collected.
    collected: HandoffFile = HandoffFile.from_parent(parent, path=file_path)
    return collected


class ChainDirectory(pytest.Directory):
    """A chain folder: collects one item for the whole chain.

    When files of the chain are named on the command line, it collects one
    item per named file instead, each reporting only that file's findings
    (the whole chain is still read, as cross-handoff rules need it).
    """

    # What pytest_collect_directory found here, not looked for again: every regular .json file
    # (a chain has all its member files, also those its globs do not name) and the handoffs.
    listed: tuple[list[Path], list[tuple[Path, Any]]] | None = None

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        from pytest_handoff.engine import chain_ref_for

        settings = _settings(self.config)
        assert settings is not None
        if self.listed is None:
            json_files = _candidate_files(self.path, self.config, settings)
            self.listed = (json_files, list(_handoff_files(json_files, settings, self.session)))
        json_files, files = self.listed
        if not files:
            return []
        path, profile = files[0]
        ref = chain_ref_for(profile, path, settings, self.config.rootpath, json_files)
        keywords = profile.keywords(ref.paths, settings)
        named = [p for p in ref.paths if self.session.isinitpath(p)]
        whole = not named or any(self.session.isinitpath(d) for d in (self.path, *self.path.parents))
        if whole:
            return [ChainItem.from_parent(self, name=ref.chain_id, ref=ref, focus=None, keywords=keywords)]
        return [
            ChainItem.from_parent(self, name=f"{ref.chain_id}[{p.name}]", ref=ref, focus=p, keywords=keywords)
            for p in named
        ]


class HandoffFile(pytest.File):
    """A handoff file that belongs to no chain."""

    def collect(self) -> Iterable[pytest.Item]:
        from pytest_handoff.engine import chain_ref_for, profile_for

        settings = _settings(self.config)
        assert settings is not None
        from pytest_handoff.documents import display_path_for
        from pytest_handoff.profiles import load

        relative = display_path_for(self.path, self.config.rootpath)
        profile = profile_for(self.path, settings, relative, explicit=True) or load("neuralrelay")
        ref = chain_ref_for(profile, self.path, settings, self.config.rootpath)
        keywords = profile.keywords(ref.paths, settings)
        if ref.standalone:
            return [ChainItem.from_parent(self, name=self.path.name, ref=ref, focus=None, keywords=keywords)]
        # A group spread over folders: the whole group, or only this file when it is named.
        named = self.session.isinitpath(self.path) and ref.paths[0] != self.path
        name = f"{ref.chain_id}[{self.path.name}]" if named else ref.chain_id
        return [
            ChainItem.from_parent(
                self, name=name, ref=ref, focus=self.path if named else None, keywords=keywords
            )
        ]


# --- run -----------------------------------------------------------------------

# Chain results checked at collection end, with the files' stamps when they were read.
PREFETCHED_KEY = pytest.StashKey[dict[tuple[Path, ...], tuple["Stamps", "ChainResult"]]]()
Stamps = tuple[tuple[int, int] | None, ...]


def _stamps(paths: tuple[Path, ...]) -> Stamps:
    """Modification time and size of each file (None when it cannot be read)."""
    stamps: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            stamps.append(None)
        else:
            stamps.append((info.st_mtime_ns, info.st_size))
    return tuple(stamps)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Check every collected chain at once, before the run: on several processes when there are many.

    Items then only report their chain's result, unless a file changed since (a test wrote
    it): then the item checks its chain again. Left to the items themselves: collect-only
    runs, xdist workers (each runs its share), projects with their own
    ``pytest_handoff_check_chain`` hooks (they run in this process, with the item), and
    every chain when checking them together fails (a project rule that raises fails only
    its own chain's item).
    """
    config = session.config
    settings = _settings(config)
    if (
        settings is None
        or config.option.collectonly
        or hasattr(config, "workerinput")
        or config.hook.pytest_handoff_check_chain.get_hookimpls()
    ):
        return
    refs = {item.ref.paths: item.ref for item in session.items if isinstance(item, ChainItem)}
    if not refs:
        return
    from pytest_handoff.engine import check_chains

    stamps = {paths: _stamps(paths) for paths in refs}  # before reading: a later change is seen
    try:
        results = check_chains(
            list(refs.values()), settings, config.rootpath, cache=_result_cache(config), jobs=_jobs(config)
        )
    except Exception:  # each item checks its own chain again and reports the error
        return
    config.stash[PREFETCHED_KEY] = {
        result.ref.paths: (stamps[result.ref.paths], result) for result in results
    }


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


class HandoffContractWarning(UserWarning):
    """A handoff finding of severity warning."""


class HandoffContractError(Exception):
    """Raised by a chain item whose contracts are broken; carries the rendered report."""

    def __init__(self, report: str) -> None:
        super().__init__(report)
        self.report = report


class ChainItem(pytest.Item):
    """One handoff chain checked as a whole."""

    def __init__(
        self,
        *,
        ref: ChainRef,
        focus: Path | None,
        keywords: list[str],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.ref = ref
        self.focus = focus
        if focus is not None:
            self.path = focus
        self.handoff_findings: list[dict[str, object]] = []
        self.add_marker("handoff")
        self.extra_keyword_matches.update(keywords)
        self.extra_keyword_matches.add(ref.chain_id)

    def runtest(self) -> None:
        from pytest_handoff.documents import display_path_for
        from pytest_handoff.engine import check_chain
        from pytest_handoff.findings import Severity

        settings = _settings(self.config)
        assert settings is not None
        root = self.config.rootpath
        prefetched = self.config.stash.get(PREFETCHED_KEY, {}).get(self.ref.paths)
        result = prefetched[1] if prefetched and prefetched[0] == _stamps(self.ref.paths) else None
        if result is None:
            extra = [self._user_checks] if self.ihook.pytest_handoff_check_chain.get_hookimpls() else []
            result = check_chain(self.ref, settings, root, extra, cache=_result_cache(self.config))
        if self.focus is not None:
            result = result.narrowed_to([display_path_for(self.focus, root)])
        self.handoff_findings = [finding.to_wire() for finding in result.findings]
        for finding in result.findings:
            self.user_properties.append(("handoff_finding", _one_line(finding)))
        if result.notes:
            self.add_report_section("call", "handoff trace", "\n".join(result.notes))
        escalated = [
            finding
            for finding in result.findings
            if finding.severity == Severity.WARNING and not _warn(finding, root)
        ]
        if result.failed or escalated:
            raise HandoffContractError(render_failure(result, warnings_are_errors=bool(escalated)))

    def _user_checks(self, chain: Chain) -> Iterator[Hit | Finding]:
        settings = _settings(self.config)
        for produced in self.ihook.pytest_handoff_check_chain(chain=chain, settings=settings):
            yield from _hook_output(produced)

    def repr_failure(
        self,
        excinfo: ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | TerminalRepr:
        # Our own text: pytest's default repr would parse every frame's source (~77 ms each).
        if isinstance(excinfo.value, HandoffContractError):
            return excinfo.value.report
        from pytest_handoff.engine import ExtraCheckError

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
        from pytest_handoff.documents import display_path_for

        files = []
        for impl in self.ihook.pytest_handoff_check_chain.get_hookimpls():
            source = getattr(impl.plugin, "__file__", None)
            files.append(display_path_for(Path(source), self.config.rootpath) if source else impl.plugin_name)
        return files

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"handoff chain {self.ref.chain_id}"


def _warn(finding: Finding, root: Path) -> bool:
    """Issue a warning finding as a pytest warning; False when the warning filters made it an error.

    Under ``-W error::...HandoffContractWarning`` or ``filterwarnings = error`` the first warning
    would otherwise end the item with pytest's own traceback and hide every later one.
    """
    try:
        warnings.warn_explicit(
            HandoffContractWarning(_one_line(finding)),
            category=HandoffContractWarning,
            filename=str(root / finding.path),
            lineno=max(finding.line, 1),
        )
    except HandoffContractWarning:
        return False
    return True


def _hook_output(produced: object) -> Iterator[Hit | Finding]:
    """One hook implementation's result as hits and findings: None, one of them, or a list of them."""
    from pytest_handoff.engine import ExtraCheckError, describe_value
    from pytest_handoff.findings import Finding
    from pytest_handoff.rules import Hit

    if produced is None:
        return
    if isinstance(produced, (Hit, Finding)):  # before Iterable: a Hit is a tuple
        yield produced
        return
    if isinstance(produced, (str, bytes, dict)) or not isinstance(produced, Iterable):
        raise ExtraCheckError(describe_value(produced))
    for item in produced:
        if not isinstance(item, (Hit, Finding)):
            container = describe_value(produced)
            raise ExtraCheckError(f"{container} holding {describe_value(item)}")
        yield item


def _one_line(finding: Finding) -> str:
    from pytest_handoff.excerpt import inert

    pointer = f" {finding.pointer}" if finding.pointer else ""
    return inert(f"{finding.location}: {finding.code} {finding.rule}{pointer}: {finding.message}")


def render_failure(result: ChainResult, *, warnings_are_errors: bool = False) -> str:
    """The failure text of a chain: a headline, then every finding grouped by file.

    ``warnings_are_errors``: the warning filters turned some warning findings into errors.
    """
    from pytest_handoff.excerpt import format_findings, summary_counts

    files = len({f.path for f in result.findings})
    headline = (
        f"handoff chain {result.ref.chain_id}: {summary_counts(result.findings)} "
        f"in {files} file{'s' if files != 1 else ''}"
    )
    if warnings_are_errors:
        headline += (
            ", failing: warnings are errors in this run (a -W or filterwarnings 'error' filter "
            "matches HandoffContractWarning)"
        )
    return "\n".join([headline, "", *format_findings(result.findings, dict(result.sources))]).rstrip()


# --- report ----------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report: pytest.TestReport = yield
    if isinstance(item, ChainItem) and call.when == "call":
        # Plain data survives xdist's report serialisation, so the controller sees it.
        report.handoff_chain = item.ref.chain_id  # type: ignore[attr-defined]
        report.handoff_files = [str(p) for p in item.ref.paths]  # type: ignore[attr-defined]
        report.handoff_findings = item.handoff_findings  # type: ignore[attr-defined]
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    cache = session.config.stash.get(CACHE_KEY, None)
    if cache is not None:
        cache.flush()


class CiReporting:
    """Collects every chain's findings (on the xdist controller too) for GitHub Actions output."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.chains: list[tuple[str, tuple[str, ...], list[dict[str, Any]]]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        findings = getattr(report, "handoff_findings", None)
        if findings is not None:
            self.chains.append(
                (getattr(report, "handoff_chain", ""), tuple(getattr(report, "handoff_files", ())), findings)
            )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Annotations (emitted once, by the controller) and the step summary."""
        if os.environ.get("GITHUB_ACTIONS") != "true" or hasattr(self.config, "workerinput"):
            return
        import io

        from pytest_handoff.engine import ChainRef, ChainResult
        from pytest_handoff.findings import Finding
        from pytest_handoff.profiles import load
        from pytest_handoff.reporters import append_step_summary, write_reports

        profile = load("neuralrelay")  # only what reporters need: the findings and files
        results = [
            ChainResult(
                ChainRef(profile, chain_id, None, tuple(Path(p) for p in files)),
                tuple(Finding.from_wire(f) for f in findings),
                (),
            )
            for chain_id, files, findings in self.chains
        ]
        annotations = io.StringIO()
        write_reports(results, [("github", annotations)], self.config.rootpath)
        append_step_summary(
            results,
            self.config.rootpath,
            lambda message: terminalreporter.write_line(f"handoff: warning: {message}", yellow=True),
        )
        for line in annotations.getvalue().splitlines():
            terminalreporter.write_line(line)
