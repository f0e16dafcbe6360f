"""Options a profile declares for its table, ``[tool.handoff.<profile>]``: key, parser, default, docs.

The core validates a profile's table against what the profile declares (yamllint's way: each
rule's ``CONF`` and ``DEFAULT``, one validation), so a value is checked once, when the
configuration is read, and a profile reads only values that passed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from pytest_handoff.values.errors import ConfigError

#: Turns a configured value into the value the profile reads; raises ConfigError naming ``where``.
Parser = Callable[[Any, str], Any]


class Option(NamedTuple):
    """One key of a profile's table."""

    key: str  # as written in the table (kebab-case)
    parse: Parser
    default: Any
    doc: str


def parse_table(table: Mapping[str, Any], options: Sequence[Option], where: str) -> dict[str, Any]:
    """``table`` checked against ``options``: unknown keys refused (with a did-you-mean), values parsed."""
    declared = {option.key: option for option in options}
    parsed: dict[str, Any] = {}
    for key, value in table.items():
        spelt = key.replace("_", "-")
        option = declared.get(spelt)
        if option is None:
            import difflib  # only on this error path

            close = difflib.get_close_matches(spelt, list(declared), n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(declared)})"
            raise ConfigError(f"{where}: unknown setting '{key}'{hint}")
        parsed[spelt] = option.parse(value, f"{where}: '{spelt}'")
    return parsed


def globs(value: Any, where: str) -> tuple[str, ...]:
    """Globs: a list of strings (or lines of one string), at least one."""
    lines = value.splitlines() if isinstance(value, str) else value
    if not isinstance(lines, (list, tuple)) or not all(isinstance(line, str) for line in lines):
        raise ConfigError(f"{where} must be a list of globs (strings), got {value!r}")
    found = tuple(line.strip() for line in lines if line.strip())
    if not found:
        raise ConfigError(f"{where} names no glob: nothing would be checked")
    return found


def whole_number(value: Any, where: str) -> int:
    """A whole number >= 0 (``"600"`` from an ini file too)."""
    try:
        number = int(value) if not isinstance(value, (bool, float)) else -1
    except (TypeError, ValueError):
        number = -1
    if number < 0:
        raise ConfigError(f"{where} must be a whole number >= 0, got {value!r}")
    return number


def strings(value: Any, where: str) -> tuple[str, ...]:
    """One string or a list of them."""
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise ConfigError(f"{where} must be a string or a list of strings, got {value!r}")
    return tuple(items)


def text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where} must be a non-empty string, got {value!r}")
    return value


def pairs(value: Any, where: str) -> dict[str, str]:
    """A table of ``key = "value"``, or lines/list items of ``KEY=VALUE``."""
    if isinstance(value, Mapping):
        if not all(isinstance(item, str) and item.strip() for item in value.values()):
            raise ConfigError(f'{where} must be a table of name = "value", got {value!r}')
        return {str(key): str(item) for key, item in value.items()}
    found: dict[str, str] = {}
    for item in strings(value, where):
        for part in item.replace(",", " ").split():
            name, sep, setting = part.partition("=")
            if not sep or not name.strip() or not setting.strip():
                raise ConfigError(f"{where} entries look like NAME=VALUE, got {part!r}")
            found[name.strip()] = setting.strip()
    return found


def any_value(value: Any, where: str) -> Any:
    """Taken as given (a plugin's key declared by name only)."""
    return value


def globs_option(defaults: tuple[str, ...]) -> Option:
    """Every profile's ``globs``: where its files are looked for."""
    return Option(
        "globs", globs, defaults, "Where the profile's files are looked for (globs from the project root)."
    )
