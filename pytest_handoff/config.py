"""One settings object for the pytest plugin and the CLI.

Settings come from ``[tool.handoff]`` in ``pyproject.toml``; pytest ini options
(``handoff_*``) and CLI flags override them key by key.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pytest_handoff.findings import Severity
from pytest_handoff.rules import Rule, matches_code

DEFAULT_GLOBS = (".neuralrelay/handoffs/**/*.json",)
DEFAULT_MAX_COUNTEREXAMPLE_LENGTH = 600
DEFAULT_MAX_REWORK_CYCLES = 2
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024


#: The default of mapping fields: shared, and read-only through its ``Mapping`` type.
_EMPTY: Mapping[str, Any] = {}


class ConfigError(ValueError):
    """A setting that cannot be used; the message names the setting and its source."""


class Settings(NamedTuple):
    """Everything a check run can be told; immutable so runs can share it."""

    globs: tuple[str, ...] = DEFAULT_GLOBS
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severities: Mapping[str, Severity] = _EMPTY
    threshold: Severity = Severity.INFO
    max_counterexample_length: int = DEFAULT_MAX_COUNTEREXAMPLE_LENGTH
    max_rework_cycles: int = DEFAULT_MAX_REWORK_CYCLES
    # Extra agents beyond NeuralRelay's own, agent name -> handoff_type it writes.
    agents: Mapping[str, str] = _EMPTY
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    # Each profile's own table (``[tool.handoff.<profile>]``), raw: profile name -> key -> value.
    options: Mapping[str, Mapping[str, Any]] = _EMPTY
    # A profile forced on named files (``--profile``); empty: each file's own.
    profile: str = ""

    def options_of(self, profile: str) -> Mapping[str, Any]:
        """The options of ``profile`` (``[tool.handoff.<profile>]``; empty when not configured)."""
        return self.options.get(profile, _EMPTY)

    def fingerprint(self) -> str:
        """Everything in the settings that can change a result, as stable text (for the cache)."""
        return repr(
            (self.globs, self.select, self.ignore, sorted(self.severities.items()), self.threshold,
             self.max_counterexample_length, self.max_rework_cycles, sorted(self.agents.items()),
             self.max_file_size, _stable(self.options), self.profile)
        )  # fmt: skip

    def check_codes(self, known: Iterable[str], source: str | Path = "") -> None:
        """Refuse selections and severities naming no known rule (a typo would silently check nothing).

        ``source`` (the file or "command line" the settings came from) starts the message.
        """
        codes = list(known)
        where = f"{source}: " if source else ""
        for field, patterns in (
            ("select", self.select),
            ("ignore", self.ignore),
            ("severity", self.severities),
        ):
            for pattern in patterns:
                if pattern != "ALL" and not any(code.startswith(pattern) for code in codes):
                    raise ConfigError(
                        f"{where}'{field}': {pattern!r} matches no rule code ('handoff-lint rules' lists them)"
                    )

    def is_enabled(self, code: str) -> bool:
        """A code runs unless ignored, and when ``select`` is given, only if selected."""
        if self.ignore and matches_code(code, self.ignore):
            return False
        return not self.select or matches_code(code, self.select)

    def severity_of(self, rule: Rule) -> Severity:
        """The configured severity of ``rule`` (the longest matching code prefix wins)."""
        best: tuple[int, Severity] | None = None
        for prefix, severity in self.severities.items():
            if rule.code.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), severity)
        return rule.severity if best is None else best[1]

    def merged(self, overrides: Mapping[str, Any], source: str) -> Settings:
        """A copy with ``overrides`` (raw configuration values) applied."""
        return self._replace(**_parse(overrides, source))


def _stable(value: Any) -> Any:
    """``value`` with every mapping as sorted pairs: the same options give the same text."""
    if isinstance(value, Mapping):
        return sorted((str(key), _stable(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return [_stable(item) for item in value]
    return value


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


def _as_pairs(value: Any, key: str, source: str) -> dict[str, str]:
    """A table, or lines/list items of ``KEY=VALUE``."""
    if isinstance(value, Mapping):
        return {str(k): str(v) for k, v in value.items()}
    pairs: dict[str, str] = {}
    for item in _as_list(value, key, source):
        name, sep, setting = item.partition("=")
        if not sep or not name.strip() or not setting.strip():
            raise ConfigError(f"{source}: '{key}' entries look like CODE=VALUE, got {item!r}")
        pairs[name.strip()] = setting.strip()
    return pairs


def _as_positive_int(value: Any, key: str, source: str) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{source}: '{key}' must be a whole number, got {value!r}") from None
    if number < 0:
        raise ConfigError(f"{source}: '{key}' must not be negative, got {number}")
    return number


def _parse(raw: Mapping[str, Any], source: str) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        if value is None:
            continue
        if name == "globs":
            lines = value.splitlines() if isinstance(value, str) else value
            if not isinstance(lines, (list, tuple)) or not all(isinstance(line, str) for line in lines):
                raise ConfigError(f"{source}: '{key}' must be a list of globs (strings), got {value!r}")
            parsed[name] = tuple(line.strip() for line in lines if line.strip())
            if not parsed[name]:
                raise ConfigError(f"{source}: '{key}' names no glob: nothing would be checked")
        elif name in ("select", "ignore"):
            parsed[name] = _as_codes(value, key, source)
        elif name in ("severity", "severities"):
            parsed["severities"] = {
                code.upper(): _severity(level, f"'{key}': {code}", source)
                for code, level in _as_pairs(value, key, source).items()
            }
        elif name == "threshold":
            parsed["threshold"] = _severity(str(value), f"'{key}'", source)
        elif name in ("max_counterexample_length", "max_rework_cycles", "max_file_size"):
            parsed[name] = _as_positive_int(value, key, source)
        elif name == "agents":
            parsed["agents"] = _as_pairs(value, key, source)
        elif name == "profile":
            parsed["profile"] = _profile_name(str(value), source)
        elif isinstance(value, Mapping) and _is_profile(key):
            parsed.update(_profile_options(key, value, source, parsed))
        else:
            raise ConfigError(
                f"{source}: unknown setting '{key}'{_did_you_mean(key, isinstance(value, Mapping))}"
            )
    return parsed


def _profile_name(name: str, source: str) -> str:
    """A profile name as given to ``--profile``: built-in or a plugin's."""
    name = name.strip().lower()
    if not name or _is_profile(name):
        return name
    from pytest_handoff.profiles import plugin_profiles
    from pytest_handoff.specs import profile_names

    known = [*profile_names(), *(p.name for p in plugin_profiles())]
    raise ConfigError(f"{source}: unknown profile {name!r} (known: {', '.join(known)})")


def _is_profile(key: str) -> bool:
    from pytest_handoff.specs import SPECS_BY_NAME

    if key in SPECS_BY_NAME:
        return True
    from pytest_handoff.profiles import plugin_profiles  # rare: a table for a profile not built in

    return any(profile.name == key for profile in plugin_profiles())


def _profile_options(
    name: str, table: Mapping[str, Any], source: str, parsed: dict[str, Any]
) -> dict[str, Any]:
    """``[tool.handoff.<name>]`` as Settings fields: checked against the profile's known keys."""
    from pytest_handoff.profiles import SPECS_BY_NAME, load

    spec = SPECS_BY_NAME.get(name)
    known = spec.option_keys if spec is not None else load(name).option_keys
    where = f"{source}: [tool.handoff.{name}]"
    if known is not None:
        for key in table:
            if key.replace("_", "-") not in known:
                import difflib  # only on this error path

                close = difflib.get_close_matches(key.replace("_", "-"), known, n=1, cutoff=0.6)
                hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(known)})"
                raise ConfigError(f"{where}: unknown setting '{key}'{hint}")
    if name == "neuralrelay":
        return _parse(table, where)
    options = dict(parsed.get("options", {}))
    if known is None:
        # Tables of the profile's own (user contracts): it reads them, resolving the paths they
        # hold from the configuration file's folder; their values are checked at first use.
        given = Path(source)
        base = given.parent if given.suffix == ".toml" else Path.cwd()
        options[name] = load(name).read_options(table, where, base)
        return {"options": options}
    raw = {key.replace("_", "-"): value for key, value in table.items()}
    if "globs" in raw:
        raw["globs"] = _parse({"globs": raw["globs"]}, where)["globs"]
    # Values are checked by the profile when it is loaded for a run (loading it here would
    # import every configured format on every run): see discovery.checked_options.
    options[name] = raw
    return {"options": options}


#: Every key ``[tool.handoff]`` knows, as the README spells them.
KEYS = (
    "globs", "select", "ignore", "severity", "threshold", "max-counterexample-length",
    "max-rework-cycles", "agents", "max-file-size",
)  # fmt: skip


def _did_you_mean(key: str, table: bool = False) -> str:
    import difflib  # only on this error path

    from pytest_handoff.specs import profile_names

    spelt = key.replace("_", "-")
    # A table is a profile's ([tool.handoff.<profile>]); other values are settings.
    known = (*KEYS, *profile_names()) if table else KEYS
    close = difflib.get_close_matches(spelt.lower(), known, n=1, cutoff=0.6)
    if not close:
        return f" (known settings: {', '.join(KEYS)}; profile tables: {', '.join(profile_names())})"
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
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except IsADirectoryError:
        return {}
    except OSError as error:
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


def load_settings(root: Path, config_file: Path | None = None) -> Settings:
    """Settings from ``config_file`` or ``root/pyproject.toml``, defaults where silent."""
    path = config_path(root, config_file)
    if config_file is not None and config_file.is_dir():
        raise ConfigError(
            f"{config_file}: is a folder; --config takes a file, e.g. {config_file / 'pyproject.toml'}"
        )
    if config_file is not None and not config_file.is_file():
        raise ConfigError(f"{config_file}: configuration file not found")
    return Settings().merged(read_pyproject(path), str(path))


#: Folders that only a project holds (not a home folder: Craik's and Claude's live there too).
PROJECT_MARKERS = (".neuralrelay", ".yolo-planning")


def project_root(start: Path) -> Path:
    """The project ``start`` is in: the nearest folder holding ``.neuralrelay`` or ``.yolo-planning``,
    else the git root.

    Globs and chain folders are relative to the project, so any folder inside it finds the
    same chains. The walk stops at a repository's root (``.git``), never leaving the project;
    outside any project ``start`` itself is the root.
    """
    for folder in (start, *start.parents):
        if any((folder / marker).is_dir() for marker in PROJECT_MARKERS) or (folder / ".git").exists():
            return folder
    return start
