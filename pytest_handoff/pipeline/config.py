"""One settings object for every entry point: ``[tool.handoff]``, then ini options and flags.

Settings come from ``[tool.handoff]`` in ``pyproject.toml``; pytest ini options (``handoff_*``)
and CLI flags override them key by key. The core reads only its global keys; each profile's
table (``[tool.handoff.<profile>]``) is validated against the options the profile declares
(:class:`~pytest_handoff.values.specs.ProfileSpec`), told by a :class:`ProfileTables` (the registry).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from pytest_handoff.read.files import read_bounded
from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.options import pairs, parse_table, whole_number
from pytest_handoff.values.settings import DEFAULT_MAX_FILE_SIZE, NO_SETTINGS, Settings
from pytest_handoff.values.specs import ProfileSpec

__all__ = ["NO_SETTINGS", "Settings", "build_settings", "check_codes", "load_settings", "merged"]


class ProfileTables(Protocol):
    """What reading the configuration asks of the profiles (the registry answers)."""

    def spec_of(self, name: str) -> ProfileSpec | None:
        """The spec of profile ``name`` (None when there is no such profile)."""

    def names(self) -> tuple[str, ...]:
        """Every profile's name, built-ins first."""

    def builtin_specs(self) -> tuple[ProfileSpec, ...]:
        """The built-in profiles' specs (known without reading other packages' entry points)."""

    def read_own_options(self, name: str, table: Mapping[str, Any], where: str, base: Path) -> dict[str, Any]:
        """A table of a profile that reads its own (``options`` None), as plain data."""

    def known_codes(self, patterns: Iterable[str] | None = None) -> list[str]:
        """Every rule code of the profiles ``patterns`` can name (of every profile without them)."""


def check_codes(settings: Settings, known: Iterable[str], source: str | Path = "") -> None:
    """Refuse selections and severities naming no known rule (a typo would silently check nothing).

    ``source`` (the file or "command line" the settings came from) starts the message.
    """
    codes = list(known)
    where = f"{source}: " if source else ""
    for field, patterns in (
        ("select", settings.select),
        ("ignore", settings.ignore),
        ("severity", settings.severities),
        ("per-file-ignores", [code for _, codes in settings.per_file_ignores for code in codes]),
    ):
        for pattern in patterns:
            if pattern != "ALL" and not any(code.startswith(pattern) for code in codes):
                raise ConfigError(
                    f"{where}'{field}': {pattern!r} matches no rule code ('handoff-lint rules' lists them)"
                )


def merged(settings: Settings, overrides: Mapping[str, Any], source: str, tables: ProfileTables) -> Settings:
    """A copy with ``overrides`` (raw configuration values) applied."""
    parsed = _parse(overrides, source, tables, settings.options)
    return settings._replace(**parsed)


def _as_list(value: Any, key: str, source: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise ConfigError(f"{source}: '{key}' must be a list of strings")
    # "HS,NR3", "HS NR3" and ["HS", "NR3"] all mean the same.
    return tuple(part for item in value for part in str(item).replace(",", " ").split())


def _as_codes(value: Any, key: str, source: str) -> tuple[str, ...]:
    """Rule codes or prefixes, in upper case as rule codes are (``explain`` takes ``nr301`` too)."""
    return tuple(code.upper() for code in _as_list(value, key, source))


#: Every key ``[tool.handoff]`` itself knows, as the configuration page (docs/configuration.md) spells them.
KEYS = (
    "select", "ignore", "severity", "threshold", "max-file-size", "profile", "evidence", "evidence-junit",
    "per-file-ignores", "baseline",
)  # fmt: skip


def _parse(
    raw: Mapping[str, Any], source: str, tables: ProfileTables, options: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    profiles = {name: dict(table) for name, table in options.items()}
    legacy = _legacy_keys(tables)
    given_tables = []
    for key, value in raw.items():
        name = key.replace("_", "-")
        if value is None:
            continue
        if name in ("select", "ignore"):
            parsed[name] = _as_codes(value, key, source)
        elif name in ("severity", "severities"):
            parsed["severities"] = {
                code.upper(): _severity(level, f"'{key}': {code}", source)
                for code, level in pairs(value, f"{source}: '{key}'").items()
            }
        elif name == "threshold":
            parsed["threshold"] = _severity(str(value), f"'{key}'", source)
        elif name == "max-file-size":
            parsed["max_file_size"] = whole_number(value, f"{source}: '{key}'")
        elif name == "profile":
            parsed["profile"] = _profile_name(str(value), source, tables)
        elif name == "evidence":
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: 'evidence' must be true or false, not {value!r}")
            parsed["evidence"] = value
        elif name == "evidence-junit":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{source}: 'evidence-junit' must be the path of a JUnit XML report")
            parsed["evidence_junit"] = _relative_to_source(value.strip(), source)
            if raw.get("evidence") is not False:  # a report named does not undo evidence = false
                parsed["evidence"] = True
        elif name == "per-file-ignores":
            parsed["per_file_ignores"] = _per_file_ignores(value, key, source)
        elif name == "baseline":
            parsed.update(_baseline(value, source))
        elif name == "shard" and not source.endswith(".toml"):  # a run's, never a project's setting
            from pytest_handoff.pipeline.shards import parse_shard

            parsed["shard"] = parse_shard(value, source)
        elif name in legacy:  # deprecated: a profile's option under its old top-level name
            spec, option_key = legacy[name]
            (option,) = [o for o in spec.declared or () if o.key == option_key]
            profiles.setdefault(spec.name, {})[option_key] = option.parse(value, f"{source}: '{key}'")
        elif isinstance(value, Mapping) and tables.spec_of(key) is not None:
            given_tables.append((key, value))
        else:
            raise ConfigError(
                f"{source}: unknown setting '{key}'{_did_you_mean(key, isinstance(value, Mapping), tables)}"
            )
    for key, value in given_tables:  # after the old keys: a profile's own table wins
        profiles.setdefault(key, {}).update(_profile_options(key, value, source, tables))
    if profiles != options:
        parsed["options"] = profiles
    return parsed


def _per_file_ignores(value: Any, key: str, source: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``{"GLOB" = ["CODE or prefix", ...]}`` (a string of codes too, as ruff takes it)."""
    if not isinstance(value, Mapping):
        raise ConfigError(f'{source}: \'{key}\' must be a table of "GLOB" = ["CODE", ...]')
    found = []
    for glob, codes in value.items():
        if not str(glob).strip():
            raise ConfigError(f"{source}: '{key}' has an empty glob")
        found.append((str(glob).strip(), _as_codes(codes, f"{key}.{glob}", source)))
    return tuple(found)


def _baseline(value: Any, source: str) -> dict[str, Any]:
    """The baseline file named (relative to the configuration file); "" for none. Its entries are
    read once the settings are built, so that a flag can replace a missing one."""
    if not isinstance(value, str):
        raise ConfigError(f"{source}: 'baseline' must be the path of a baseline file")
    return {"baseline_file": _relative_to_source(value.strip(), source) if value.strip() else ""}


def _legacy_keys(tables: ProfileTables) -> dict[str, tuple[ProfileSpec, str]]:
    """Old top-level keys that are a profile's options now: key -> (spec, option key)."""
    return {old: (spec, key) for spec in tables.builtin_specs() for old, key in spec.legacy_keys.items()}


def _profile_name(name: str, source: str, tables: ProfileTables) -> str:
    """A profile name as given to ``--profile``: built-in or a plugin's."""
    name = name.strip().lower()
    if not name or tables.spec_of(name) is not None:
        return name
    raise ConfigError(f"{source}: unknown profile {name!r} (known: {', '.join(tables.names())})")


def _profile_options(
    name: str, table: Mapping[str, Any], source: str, tables: ProfileTables
) -> dict[str, Any]:
    """``[tool.handoff.<name>]`` checked against the options the profile declares, and parsed."""
    spec = tables.spec_of(name)
    assert spec is not None
    where = f"{source}: [tool.handoff.{name}]"
    if spec.declared is None:
        # Tables of the profile's own (user contracts): it reads them, resolving the paths they
        # hold from the configuration file's folder; their values are checked at first use.
        given = Path(source)
        base = given.parent if given.suffix == ".toml" else Path.cwd()
        return tables.read_own_options(name, table, where, base)
    return parse_table(table, spec.declared, where)


def _did_you_mean(key: str, table: bool, tables: ProfileTables) -> str:
    import difflib  # only on this error path

    spelt = key.replace("_", "-")
    names = tables.names()
    known = (*KEYS, *_legacy_keys(tables))
    # A table is a profile's ([tool.handoff.<profile>]); other values are settings.
    candidates = (*known, *names) if table else known
    close = difflib.get_close_matches(spelt.lower(), candidates, n=1, cutoff=0.6)
    if not close:
        return f" (known settings: {', '.join(known)}; profile tables: {', '.join(names)})"
    suggestion = close[0] if "_" not in key else close[0].replace("-", "_")
    return f"; did you mean '{suggestion}'?"


def _severity(text: str, what: str, source: str) -> Severity:
    try:
        return Severity.parse(text)
    except ValueError:
        names = ", ".join(level.label for level in Severity)
        raise ConfigError(f"{source}: {what} = {text!r} is not a severity (use {names})") from None


def read_pyproject(path: Path) -> dict[str, Any]:
    """The ``[tool.handoff]`` table of a ``pyproject.toml`` (empty when absent)."""
    try:
        raw = read_bounded(
            path, DEFAULT_MAX_FILE_SIZE
        )  # a FIFO or device named pyproject.toml is refused, not waited on
    except FileNotFoundError:
        return {}
    except OSError as error:
        if path.is_dir():
            return {}
        raise ConfigError(f"{path}: cannot read configuration: {error.strerror or error}") from None
    if b"handoff" not in raw and b"\\u" not in raw and b"\\U" not in raw:
        # No key can spell "handoff" (not even as an escape in a quoted key): importing and
        # running the TOML parser would cost every pre-commit run in most projects ~12 ms.
        return {}
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib  # type: ignore[import-not-found,no-redef,unused-ignore]
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: cannot read configuration: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: cannot read configuration: {error}") from None
    table = document.get("tool", {}).get("handoff", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.handoff] must be a table")
    return table


def config_path(root: Path, config_file: Path | None = None) -> Path:
    """The file settings are read from: ``config_file`` when given, else ``root/pyproject.toml``."""
    return config_file or root / "pyproject.toml"


def load_settings(root: Path, config_file: Path | None = None, *, tables: ProfileTables) -> Settings:
    """Settings from ``config_file`` or ``root/pyproject.toml``, defaults where silent."""
    path = config_path(root, config_file)
    if config_file is not None and config_file.is_dir():
        raise ConfigError(
            f"{config_file}: is a folder; --config takes a file, e.g. {config_file / 'pyproject.toml'}"
        )
    if config_file is not None and not config_file.is_file():
        why = "not a regular file" if config_file.exists() else "configuration file not found"
        raise ConfigError(f"{config_file}: {why}")
    return merged(Settings(), read_pyproject(path), str(path), tables)


def build_settings(
    root: Path,
    tables: ProfileTables,
    *,
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    source: str = "command line",
) -> Settings:
    """The settings of one run, built the same way by every entry point.

    ``[tool.handoff]`` of ``config_file`` (default ``root/pyproject.toml``), then ``overrides``
    (pytest's ini options, the command line's flags; raw values) key by key. A rule code that
    ``select``, ``ignore`` or ``severity`` names in either, and no rule has, is refused
    (``ConfigError`` naming where it was written): a typo would silently check nothing.
    """
    from_file = load_settings(root, config_file, tables=tables)
    given = overrides or {}
    from_overrides = merged(Settings(), given, source, tables)
    named = [*_named_codes(from_file), *_named_codes(from_overrides)]
    if named:
        codes = tables.known_codes(named)
        check_codes(from_file, codes, config_path(root, config_file))
        check_codes(from_overrides, codes, source)
    settings = merged(from_file, given, source, tables) if given else from_file
    if settings.baseline_file:
        from pytest_handoff.pipeline.baseline import read_baseline

        named_file = Path(settings.baseline_file)
        try:
            shown = os.path.relpath(named_file) if named_file.is_absolute() else str(named_file)
        except ValueError:  # another drive on Windows
            shown = str(named_file)
        settings = settings._replace(baseline=read_baseline(named_file, shown))
    if settings.evidence is None:  # on by default, where there is a repository to judge claims against
        inside = in_git_repository(root)
        settings = settings._replace(evidence=inside, evidence_off="" if inside else "not a git repository")
    return settings


def _named_codes(settings: Settings) -> list[str]:
    """The rule codes and prefixes ``settings`` names (to know which profiles' rules to look up)."""
    ignored = [code for _, codes in settings.per_file_ignores for code in codes]
    return [*settings.select, *settings.ignore, *settings.severities, *ignored]


def in_git_repository(folder: Path) -> bool:
    """True when ``folder`` is in a git work tree: it or a parent holds ``.git`` (a folder, or the
    file of a worktree or submodule), below any folder ``GIT_CEILING_DIRECTORIES`` names. No
    command is run for it."""
    import os

    ceilings = {
        Path(p).resolve() for p in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if p
    }
    start = folder.resolve()
    for candidate in (start, *start.parents):
        marker = candidate / ".git"
        if marker.is_file() or (marker / "HEAD").is_file():  # an empty .git folder marks no repository
            return True
        if candidate.parent in ceilings:
            return False
    return False


def project_root(start: Path, markers: Iterable[str]) -> Path:
    """The project ``start`` is in: the nearest folder holding one of the profiles' ``markers``
    (``.neuralrelay``, ``.yolo-planning``: folders only a project holds), else the git root.

    Globs and chain folders are relative to the project, so any folder inside it finds the
    same chains. The walk stops at a repository's root (``.git``), never leaving the project;
    outside any project ``start`` itself is the root.
    """
    marks = tuple(markers)
    for folder in (start, *start.parents):
        if any((folder / marker).is_dir() for marker in marks) or (folder / ".git").exists():
            return folder
    return start


def _relative_to_source(path: str, source: str) -> str:
    """A path from a configuration file, relative to that file's folder (as given on the command line)."""
    if source.endswith(".toml") and not Path(path).is_absolute():
        return str(Path(source).parent / path)
    return path
