"""User contracts as a profile: a project's JSON and YAML documents, its schemas, its rules.

Which files a contract owns is told by its globs (the first contract whose globs match a file
owns it); a contract's documents group per file (a multi-document YAML file is one group) or
per folder. Path-only questions (``group_of``, ``members``) have no settings to ask: they use
the contracts last configured in this process (when the configuration loaded, or when
discovery asked for the globs), which is the configuration of the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pytest_handoff.profiles.base import Profile, folder_files
from pytest_handoff.profiles.builtin import CONTRACTS as SPEC
from pytest_handoff.profiles.contracts.config import Contract, contracts_of, parse_table
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.rules.evidence.declared import ClaimField, ClaimKind
from pytest_handoff.values.documents import Document, Loaded
from pytest_handoff.values.rules import Hit
from pytest_handoff.values.settings import NO_SETTINGS, Settings
from pytest_handoff.values.wording import did_you_mean

if TYPE_CHECKING:
    from pytest_handoff.profiles.contracts.schemas import UserSchema
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.groups import GroupRef
    from pytest_handoff.values.rules import Rule
    from pytest_handoff.values.settings import Settings

_YAML_SUFFIXES = (".yaml", ".yml")
_SUFFIXES = (".json", *_YAML_SUFFIXES)


def _contract_of_path(path: Path, settings: Settings) -> Contract | None:
    """The first contract of ``settings`` whose globs match ``path`` (relative to its declaring folder)."""
    from pytest_handoff.read.files import display_path_for
    from pytest_handoff.read.globs import matches_globs

    for contract in contracts_of(settings):
        relative_posix = display_path_for(path, Path(contract.base or Path.cwd())).lstrip("/")
        if matches_globs(relative_posix, contract.globs):
            return contract
    return None


def _contract_at(relative_posix: str, contracts: Iterable[Contract]) -> Contract | None:
    """The first contract whose globs match a path relative to the project."""
    from pytest_handoff.read.globs import matches_globs

    return next((c for c in contracts if matches_globs(relative_posix, c.globs)), None)


class ContractsProfile(Profile):
    name = SPEC.name
    default_globs = SPEC.default_globs
    spec = SPEC
    option_keys: tuple[str, ...] | None = None

    def claims_declared(self, ref: GroupRef, settings: Settings) -> tuple[tuple[ClaimField, ...], str]:
        contract = _contract_of_path(ref.paths[0], settings) if ref.paths else None
        if contract is None:
            return (), ""
        fields = tuple(ClaimField(pointer, cast("ClaimKind", kind)) for pointer, kind in contract.evidence)
        return fields, contract.evidence_time

    # --- configuration -----------------------------------------------------------------------

    def read_options(self, table: Mapping[str, Any], where: str, base: Path) -> dict[str, Any]:
        """Contracts read (the YAML file too) with paths resolved: ``{name: {...}}`` as plain data.

        Each contract carries a digest of its schema files (names, sizes, times: nothing is
        parsed here), so that a changed schema changes the settings' fingerprint, and with it the
        result cache's key. The schemas themselves are checked at first use (:meth:`check_options`).
        """
        from pytest_handoff.profiles.contracts.config import as_table
        from pytest_handoff.profiles.contracts.schemas import schema_files_digest

        contracts = parse_table(table, where, base)
        read = as_table(contracts)
        for contract in contracts:
            read[contract.name]["digest"] = schema_files_digest(contract)
        return read

    def check_options(self, options: dict[str, object], where: str) -> None:
        """Every contract's schemas usable: found, valid schemas, no ``$ref`` to the network."""
        from pytest_handoff.profiles.contracts.schemas import check_schema_file
        from pytest_handoff.values.errors import ConfigError

        for contract in parse_table(options, where, Path.cwd()):
            for path in sorted({p for p in (contract.schema, *contract.schemas.values()) if p}):
                try:
                    check_schema_file(path, contract.schema_map)
                except ConfigError as error:  # name the file and the key that point at it
                    raise ConfigError(
                        f"{contract.source}: {where} contract '{contract.name}': schema {error}"
                    ) from None

    def globs(self, settings: Settings) -> tuple[str, ...]:
        return tuple(dict.fromkeys(glob for contract in contracts_of(settings) for glob in contract.globs))

    # --- files and groups --------------------------------------------------------------------

    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        return path.suffix.lower() in _SUFFIXES and _contract_of_path(path, settings) is not None

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        contract = _contract_of_path(path, settings)
        if contract is None or contract.group != "per-folder":
            return None
        return path.parent, path.parent.name

    def members(
        self, directory: Path, group_id: str, listing: list[Path] | None, settings: Settings = NO_SETTINGS
    ) -> list[Path]:
        listing = folder_files(directory, listing)
        return [
            path
            for path in listing
            if path.suffix.lower() in _SUFFIXES and self.group_of(path, settings) is not None
        ]

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        if path.suffix.lower() in _YAML_SUFFIXES:
            from pytest_handoff.read.yamldoc import read_yaml

            return read_yaml(raw, path, display_path)
        return Loaded.of(parse_json_bytes(raw, path, display_path))

    # --- types, schemas, rules ---------------------------------------------------------------

    def contract_for(self, document: Document, settings: Settings) -> Contract | None:
        """The contract of a document: the first whose globs match it, or the only one configured."""
        contracts = contracts_of(settings)
        found = _contract_at(document.display_path.lstrip("/"), contracts)
        return found or (contracts[0] if len(contracts) == 1 else None)

    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        contract = self.contract_for(document, settings)
        if contract is None:
            names = ", ".join(c.name for c in contracts_of(settings)) or "none configured"
            return None, (Hit(document, "", f"no contract's globs match this file (contracts: {names})"),)
        if contract.discriminator is None:
            return contract.name, ()
        from pytest_handoff.places.pointers import resolve

        field = contract.discriminator
        found = [value for _, value in resolve(document.data, field)]
        value = found[0] if found else None
        if (
            isinstance(value, (str, int, float))
            and not isinstance(value, bool)
            and str(value) in contract.schemas
        ):
            return f"{contract.name}/{value}", ()
        if contract.schema is not None:
            return contract.name, ()  # the contract's default schema
        known = ", ".join(contract.schemas)
        if not found:
            return None, (
                Hit(document, field, f"no {field} field, which tells the schema; expected one of {known}"),
            )
        return None, (
            Hit(
                document,
                field,
                f"{field} is {value!r}, which names no schema; expected one of {known}"
                + did_you_mean(value, contract.schemas),
            ),
        )

    def schema_name(self, handoff_type: str) -> str:
        return f"contracts/{handoff_type}"

    def validate(self, document: Document, settings: Settings) -> list[Finding]:
        from pytest_handoff.values.errors import ConfigError

        try:
            schema = _schema_of(document, settings)
            return [] if schema is None else schema.findings(document)
        except ConfigError as error:  # settings made in code, not checked when loaded
            from pytest_handoff.values.findings import Finding, Severity

            return [
                Finding(
                    path=document.display_path, line=1, column=1, end_line=1, end_column=1, code="HS001",
                    severity=Severity.ERROR, message=f"schema cannot be used: {error}", logical=document.logical,
                )
            ]  # fmt: skip

    def is_valid(self, document: Document, settings: Settings) -> bool:
        from pytest_handoff.values.errors import ConfigError

        try:
            schema = _schema_of(document, settings)
            return schema is None or schema.accepts(document)
        except ConfigError:
            return False

    def rule_table(self) -> tuple[Rule, ...]:
        from pytest_handoff.profiles.contracts.rules import RULES

        return RULES


def _schema_of(document: Document, settings: Settings) -> UserSchema | None:
    """The schema of the document's contract for its kind (None when none applies); ConfigError
    when the file cannot be used (settings made in code are not checked when loaded)."""
    from pytest_handoff.profiles.contracts.fields import contract_of, document_kind
    from pytest_handoff.profiles.contracts.schemas import user_schema

    contract = contract_of(document, settings)
    path = contract.schema_for(document_kind(document)) if contract is not None else None
    if contract is None or path is None:
        return None
    return user_schema(path, contract.schema_map)


PROFILE = ContractsProfile()
