"""What a format may do beyond the small required core, each capability a small Protocol.

A format's profile must say which files are its own (a spec's globs, ``claims``), how they group
(``group_of``), how a document is typed (``classify``) and validated (``schema_name`` or
``validate``), and what its rules are (``rule_table``). :class:`~pytest_handoff.profiles.base.Profile`
gives every other method a default; a format that needs more overrides the methods of one of these
capabilities, and the pipeline asks for them by these names.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from pytest_handoff.rules.evidence.declared import ClaimField
    from pytest_handoff.values.documents import Loaded
    from pytest_handoff.values.groups import Group, GroupRef
    from pytest_handoff.values.settings import Settings
    from pytest_handoff.values.view_model import ChainView


@runtime_checkable
class OwnSources(Protocol):
    """Files found without a walk: a store at a fixed place, a configured log."""

    def default_sources(self, settings: Settings) -> list[Path]: ...

    def configured_sources(self, settings: Settings) -> list[Path]: ...


@runtime_checkable
class OpensItself(Protocol):
    """Files read by the format itself, not as bytes (a SQLite store, a log of many documents)."""

    def opens_itself(self, path: Path) -> bool: ...

    def open(self, path: Path, display_path: str, settings: Settings) -> Loaded: ...


@runtime_checkable
class OwnOptions(Protocol):
    """Tables of ``[tool.handoff.<format>]`` the format reads and checks itself (user contracts)."""

    def read_options(self, table: Mapping[str, Any], where: str, base: Path) -> dict[str, Any]: ...

    def check_options(self, options: dict[str, object], where: str) -> None: ...


@runtime_checkable
class DeclaresClaims(Protocol):
    """The fields whose claims (files, commits, places, tests) evidence judges against git."""

    def claims_declared(self, ref: GroupRef, settings: Settings) -> tuple[tuple[ClaimField, ...], str]: ...


@runtime_checkable
class Summarises(Protocol):
    """A group as the reading views show it (``handoff-lint chain``, ``report``)."""

    def summarise(self, chain: Group) -> ChainView: ...


@runtime_checkable
class EditorSchemas(Protocol):
    """Schema names and file globs for an editor's JSON settings (``handoff-lint schema export``)."""

    def editor_schemas(self, settings: Settings) -> list[tuple[str, list[str]]]: ...
