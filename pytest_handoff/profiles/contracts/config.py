"""Contracts as configured: read and resolved once, when the configuration loads.

A contract comes from ``[tool.handoff.contracts.<name>]`` in ``pyproject.toml`` or from the YAML
file ``[tool.handoff.contracts] file`` names. Relative paths (schemas, the YAML file, the targets
of ``schema-map``) are resolved from the folder of the file that declares them. A table that
cannot be used (an unknown key, a missing required one) is a ConfigError naming its file; the
schemas are checked when the profile is first used in a run (``ContractsProfile.check_options``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.values.settings import Settings

GROUPS = ("per-file", "per-folder")
#: Keys of ``[tool.handoff.contracts]`` that are settings, not contracts.
RESERVED = ("file", "schema-map")
CONTRACT_KEYS = (
    "globs",
    "schema",
    "discriminator",
    "schemas",
    "group",
    "rules",
    "schema-map",
    "source",
    "digest",
    "base",
    "evidence",
    "evidence-time",
)
#: The kinds of claim a contract's ``evidence`` table may declare (see ``evidence.claims``).
EVIDENCE_KINDS = ("path", "commit", "location", "test_file")

#: What a rule's ``check`` names, with the keys it takes (required ones first, then optional).
CHECKS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "min-distinct-items": (("field", "min"), ("by",)),
    "no-placeholders": ((), ("fields", "placeholders")),
    "covered-by": (("field", "covered-by"), ("in-types", "match")),
    "count-equals-sum": (("count", "sum"), ()),
    "timestamps-forward": (("field",), ("strict",)),
}
COMMON_RULE_KEYS = ("check", "types")
MATCHES = ("normalised", "exact")


class RuleUse(NamedTuple):
    """One use of a built-in check in a contract, under the user's own id."""

    id: str
    check: str
    #: Discriminator values of the documents it applies to (all when empty).
    types: tuple[str, ...]
    params: Mapping[str, Any]


class Contract(NamedTuple):
    """A user's contract: which files, which schema(s), how documents group, which rules."""

    name: str
    globs: tuple[str, ...]
    schema: str | None
    #: A JSON pointer to the field whose value picks the schema.
    discriminator: str | None
    schemas: Mapping[str, str]
    group: str
    rules: tuple[RuleUse, ...]
    schema_map: Mapping[str, str]
    #: The file that declares the contract (named in errors).
    source: str
    #: The folder its globs are relative to (the declaring file's).
    base: str = ""
    #: Where its documents make claims about the repository: (pointer pattern, kind).
    evidence: tuple[tuple[str, str], ...] = ()
    #: The pointer of a document's own time (the window of its claimed changes).
    evidence_time: str = ""

    def schema_for(self, document_type: str | None) -> str | None:
        """The schema file of a document whose discriminator has ``document_type`` (None: no value)."""
        if document_type is not None and document_type in self.schemas:
            return self.schemas[document_type]
        return self.schema


def _fail(where: str, message: str) -> ConfigError:
    return ConfigError(f"{where}: {message}")


def _strings(value: Any, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) and item for item in value):
        raise _fail(where, f"'{key}' must be a list of strings")
    return tuple(value)


def _path(value: Any, where: str, key: str, base: Path) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"'{key}' must be a path (a string)")
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else base / path)


def as_pointer(value: Any, where: str, key: str) -> str:
    """A field as a JSON pointer: ``/criteria/*/text`` (``*``: every item or member); ``kind`` is ``/kind``."""
    if not isinstance(value, str):
        raise _fail(where, f"'{key}' must be a field, a JSON pointer such as '/criteria/*/text'")
    return value if value.startswith("/") or value == "" else "/" + value.replace(".", "/")


def _schema_map(value: Any, where: str, base: Path) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise _fail(where, "'schema-map' must be a table of URI = local file")
    return {str(uri): _path(target, where, f"schema-map: {uri}", base) for uri, target in value.items()}


def _unknown(keys: Any, known: tuple[str, ...], where: str) -> None:
    for key in keys:
        if key not in known:
            hint = did_you_mean(str(key), known) or f" (known: {', '.join(known)})"
            raise _fail(where, f"unknown key '{key}'{hint}")


def _regex(entry: str, where: str) -> None:
    """Refuse a ``re:`` placeholder that RE2 cannot run (it runs user patterns in linear time)."""
    if entry.startswith("re:"):
        from pytest_handoff.profiles.contracts.patterns import user_pattern

        user_pattern(entry[3:], where)


def _rule(rule_id: str, table: Any, where: str) -> RuleUse:
    where = f"{where} rule '{rule_id}'"
    if not isinstance(table, Mapping):
        raise _fail(where, "must be a table with a 'check'")
    table = {str(key).replace("_", "-"): value for key, value in table.items()}
    check = table.get("check")
    if check not in CHECKS:
        raise _fail(where, f"'check' must be one of {', '.join(CHECKS)}, got {check!r}")
    required, optional = CHECKS[check]
    _unknown(table, (*COMMON_RULE_KEYS, *required, *optional), where)
    for key in required:
        if key not in table:
            raise _fail(where, f"'{check}' needs '{key}'")
    params: dict[str, Any] = {}
    for key in (*required, *optional):
        if key not in table:
            continue
        value = table[key]
        if key in ("field", "count", "covered-by", "by"):
            params[key] = as_pointer(value, where, key)
        elif key in ("fields", "sum"):
            params[key] = tuple(as_pointer(item, where, key) for item in _strings(value, where, key))
        elif key in ("placeholders", "in-types"):
            params[key] = _strings(value, where, key)
            for entry in params[key] if key == "placeholders" else ():
                _regex(entry, where)
        elif key == "min":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise _fail(where, f"'min' must be a whole number of at least 1, got {value!r}")
            params[key] = value
        elif key == "strict":
            if not isinstance(value, bool):
                raise _fail(where, f"'strict' must be true or false, got {value!r}")
            params[key] = value
        elif key == "match":
            if value not in MATCHES:
                raise _fail(where, f"'match' must be one of {', '.join(MATCHES)}, got {value!r}")
            params[key] = value
    types = _strings(table["types"], where, "types") if "types" in table else ()
    return RuleUse(rule_id, check, types, params)


def _contract(name: str, table: Any, where: str, base: Path, shared_map: Mapping[str, str]) -> Contract:
    where = f"{where} contract '{name}'"
    if not name or "/" in name:
        raise _fail(where, "a contract's name must be non-empty and hold no '/'")
    if not isinstance(table, Mapping):
        raise _fail(where, "must be a table")
    table = {str(key).replace("_", "-"): value for key, value in table.items()}
    _unknown(table, CONTRACT_KEYS, where)
    source = str(table.get("source") or where.split(": ", 1)[0])
    base = Path(str(table["base"])) if "base" in table else base
    if "globs" not in table:
        raise _fail(where, "needs 'globs' (where its files are, e.g. ['handoffs/**/*.yaml'])")
    globs = _strings(table["globs"], where, "globs")
    schema = _path(table["schema"], where, "schema", base) if "schema" in table else None
    discriminator = (
        as_pointer(table["discriminator"], where, "discriminator") if "discriminator" in table else None
    )
    schemas: dict[str, str] = {}
    if "schemas" in table:
        if discriminator is None:
            raise _fail(where, "'schemas' (a schema per value) needs a 'discriminator' field")
        if not isinstance(table["schemas"], Mapping):
            raise _fail(where, "'schemas' must be a table of discriminator value = schema file")
        schemas = {
            str(value): _path(path, where, f"schemas: {value}", base)
            for value, path in table["schemas"].items()
        }
    if schema is None and not schemas:
        raise _fail(where, "needs a 'schema' (or a 'discriminator' and 'schemas')")
    group = table.get("group", "per-file")
    if group not in GROUPS:
        raise _fail(where, f"'group' must be one of {', '.join(GROUPS)}, got {group!r}")
    rules_table = table.get("rules", {})
    if not isinstance(rules_table, Mapping):
        raise _fail(where, "'rules' must be a table of rule id = rule table")
    rules = tuple(_rule(str(rule_id), rule, where) for rule_id, rule in rules_table.items())
    schema_map = {
        **shared_map,
        **(_schema_map(table["schema-map"], where, base) if "schema-map" in table else {}),
    }
    evidence = _evidence(table.get("evidence", {}), where)
    evidence_time = (
        as_pointer(table["evidence-time"], where, "evidence-time") if "evidence-time" in table else ""
    )
    return Contract(
        name,
        globs,
        schema,
        discriminator,
        schemas,
        group,
        rules,
        schema_map,
        source,
        str(base),
        evidence,
        evidence_time,
    )


def _evidence(table: Any, where: str) -> tuple[tuple[str, str], ...]:
    """A contract's ``evidence``: pointer pattern (``*`` for any key or index) = kind of claim."""
    if not isinstance(table, Mapping):
        raise _fail(where, '\'evidence\' must be a table of pointer = kind, e.g. {"/files/*/path" = "path"}')
    declared = []
    for pointer, kind in table.items():
        pointer = str(pointer)
        if not pointer.startswith("/"):
            raise _fail(where, f"'evidence': {pointer!r} must be a JSON pointer (starting with '/')")
        if kind not in EVIDENCE_KINDS:
            raise _fail(
                where,
                f"'evidence': {pointer} = {kind!r} names no kind of claim ({', '.join(EVIDENCE_KINDS)})",
            )
        declared.append((pointer, str(kind)))
    return tuple(declared)


def parse_table(table: Mapping[str, Any], where: str, base: Path) -> tuple[Contract, ...]:
    """The contracts of a ``[tool.handoff.contracts]`` table (and of the YAML file it names)."""
    shared_map = _schema_map(table["schema-map"], where, base) if "schema-map" in table else {}
    contracts = [
        _contract(str(name), value, where, base, shared_map)
        for name, value in table.items()
        if name not in RESERVED
    ]
    if "file" in table:
        path = Path(_path(table["file"], where, "file", base))
        contracts.extend(_file_contracts(path))
    seen: set[str] = set()
    for contract in contracts:
        if contract.name in seen:
            raise _fail(where, f"contract '{contract.name}' is declared twice")
        seen.add(contract.name)
    return tuple(contracts)


def _file_contracts(path: Path) -> list[Contract]:
    """The contracts of a YAML (or JSON) contracts file: ``contracts:`` and an optional ``schema-map:``."""
    from pytest_handoff.profiles.contracts.files import read_data_file

    data = read_data_file(path)
    if not isinstance(data, Mapping):
        raise _fail(str(path), "a contracts file holds a mapping with 'contracts' (and 'schema-map')")
    _unknown(data, ("contracts", "schema-map"), str(path))
    contracts = data.get("contracts")
    if not isinstance(contracts, Mapping) or not contracts:
        raise _fail(str(path), "'contracts' must be a mapping of contract name = contract")
    base = path.parent
    shared_map = _schema_map(data["schema-map"], str(path), base) if "schema-map" in data else {}
    return [_contract(str(name), value, str(path), base, shared_map) for name, value in contracts.items()]


def as_table(contracts: tuple[Contract, ...]) -> dict[str, Any]:
    """Contracts as plain data (``settings.options_of("contracts")``): paths absolute, the file merged in."""
    return {
        contract.name: {
            "globs": list(contract.globs),
            **({"schema": contract.schema} if contract.schema else {}),
            **({"discriminator": contract.discriminator} if contract.discriminator is not None else {}),
            **({"schemas": dict(contract.schemas)} if contract.schemas else {}),
            "group": contract.group,
            "rules": {
                use.id: {
                    "check": use.check,
                    **({"types": list(use.types)} if use.types else {}),
                    **{
                        key: list(value) if isinstance(value, tuple) else value
                        for key, value in use.params.items()
                    },
                }
                for use in contract.rules
            },
            **({"schema-map": dict(contract.schema_map)} if contract.schema_map else {}),
            "source": contract.source,
            "base": contract.base,
            **({"evidence": dict(contract.evidence)} if contract.evidence else {}),
            **({"evidence-time": contract.evidence_time} if contract.evidence_time else {}),
        }
        for contract in contracts
    }


# One entry: the options mapping last parsed and its contracts (settings are immutable, and one
# run uses one).
_parsed: list[tuple[Mapping[str, Any], tuple[Contract, ...]]] = []


def contracts_of(settings: Settings) -> tuple[Contract, ...]:
    """The contracts ``settings`` configure (parsed once per options table)."""
    table = settings.options_of("contracts")
    if _parsed and _parsed[0][0] is table:
        return _parsed[0][1]
    contracts = parse_table(table, "[tool.handoff.contracts]", Path.cwd()) if table else ()
    _parsed[:] = [(table, contracts)]
    return contracts
