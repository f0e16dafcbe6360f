"""What every handoff format provides to the engine."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.values.documents import Document, Loaded, LoadResult
from pytest_handoff.values.settings import NO_SETTINGS, Settings

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.groups import Group, GroupRef
    from pytest_handoff.values.rules import Hit, Rule
    from pytest_handoff.values.settings import Settings
    from pytest_handoff.values.view_model import ChainView


class Profile(ABC):
    """A handoff format: which files it owns, how they read, group and validate, and its rules.

    Subclasses set ``name`` (also the ``profile`` of their rules, and the table of their options,
    ``[tool.handoff.<name>]``) and ``default_globs`` (where its files live in a repository).

    The data path: the engine finds files by :meth:`globs`, groups them with :meth:`group_of`
    and :meth:`members`, turns each into documents with :meth:`read` (or :meth:`open`, for a
    store the profile opens itself), types them with :meth:`classify`, validates them against
    :meth:`schema_name`, and runs the rules of :meth:`rule_table`.
    """

    name: str
    default_globs: tuple[str, ...]
    #: Keys of ``[tool.handoff.<name>]`` a plugin's profile reads (``globs`` always; None: tables of
    #: its own, read by :meth:`read_options`). A built-in profile declares its options in its spec.
    option_keys: tuple[str, ...] | None = ("globs",)
    #: True when a group is a folder holding its files (a NeuralRelay chain folder); False when a
    #: group's files are spread over folders (a Ralph session: ``prd.json``, ``.claude/session``, logs).
    groups_by_folder: bool = True
    #: Codes whose findings are about the chain as a whole (a missing stage, a gap in the
    #: numbering), not about the file they are placed in: when files of a chain are named,
    #: every one of them owns these findings.
    group_wide_codes: frozenset[str] = frozenset()
    #: Where this format's documents make claims about the repository (files, commits,
    #: locations, tests), checked by the evidence rules (EV); and the key of a document's time.
    claim_fields: tuple[ClaimField, ...] = ()
    claim_time: str = ""

    @abstractmethod
    def claims(self, path: Path, settings: Settings = NO_SETTINGS) -> bool:
        """True when ``path``, named explicitly, looks like one of this format's files."""

    def keeps(self, path: Path) -> bool:
        """True when ``path``, which this profile's globs matched, is one of its files: a look beyond
        the name for a name other projects use too (Ralph's ``prd.json`` needs its session beside)."""
        return True

    def claims_declared(self, ref: GroupRef, settings: Settings) -> tuple[tuple[ClaimField, ...], str]:
        """Where a group's documents make claims, and the key of a document's time: the profile's
        own (:attr:`claim_fields`, :attr:`claim_time`) unless its configuration says (contracts)."""
        return self.claim_fields, self.claim_time

    def author_of(self, document: Document) -> str:
        """The agent that wrote ``document`` (empty when the format does not say): its ``agent``,
        ``author_role`` or ``from`` field by default."""
        data = document.data
        if isinstance(data, dict):
            for key in ("agent", "author_role", "from"):
                value = data.get(key)
                if isinstance(value, str) and value.strip():
                    return value.strip()
        return ""

    def group_of(self, path: Path, settings: Settings = NO_SETTINGS) -> tuple[Path, str] | None:
        """The folder and id of the group ``path`` belongs to, or None for a file on its own.

        A plugin written before groups had their name may define ``chain_of(path)`` instead.
        """
        legacy = getattr(self, "chain_of", None)
        if legacy is None:
            raise NotImplementedError(f"profile {self.name!r} does not say how its files group (group_of)")
        found: tuple[Path, str] | None = legacy(path)
        return found

    def globs(self, settings: Settings) -> tuple[str, ...]:
        """Where this profile's files are looked for: ``[tool.handoff.<name>] globs``, else the defaults."""
        from pytest_handoff.values.specs import configured_globs

        return configured_globs(settings, self.name, self.default_globs)

    def read_options(self, table: Mapping[str, Any], where: str, base: Path) -> dict[str, Any]:
        """Options given as tables of their own (``option_keys`` None), read when configuration loads.

        Returns them as plain data (what :meth:`options` then gives), with paths resolved from
        ``base``, the folder of the configuration file; raises ConfigError naming ``where``.
        """
        return dict(table)

    def check_options(self, options: dict[str, object], where: str) -> None:
        """Refuse option values this profile cannot use: raise ConfigError naming ``where`` and the key.

        Called when the profile is first used in a run (its keys were checked against
        ``option_keys`` when the configuration was read). Accepts everything by default.
        """
        return None

    def members(
        self, directory: Path, group_id: str, listing: list[Path] | None, settings: Settings = NO_SETTINGS
    ) -> list[Path]:
        """Every file of the group ``group_of`` put in ``directory`` (sorted by the engine).

        ``listing`` is the regular files directly in ``directory`` when the walk already listed
        them. The default: those of them this profile places in a chain.
        """
        return [
            path for path in folder_files(directory, listing) if self.group_of(path, settings) is not None
        ]

    def default_sources(self, settings: Settings) -> list[Path]:
        """Sources checked when this profile is forced (``--profile``) and no path is named.

        For stores kept outside the project (Craik's ``$CRAIK_HOME/state/craik.sqlite3``).
        """
        return []

    def configured_sources(self, settings: Settings) -> list[Path]:
        """Sources named in this profile's options (relative to the project root), checked by a
        run over the whole project like the files its globs find (Craik's ``stores``)."""
        return []

    def cache_inputs(self, ref: GroupRef, settings: Settings) -> list[Path]:
        """Files outside the group that its rules read (a project's schema file): a cached result
        holds only while their bytes are unchanged too."""
        return []

    def opens_itself(self, path: Path) -> bool:
        """True for a source the profile opens itself (a database), rather than have its bytes read.

        Its results are not cached (its bytes do not say all of what it holds).
        """
        return False

    def open(self, path: Path, display_path: str, settings: Settings) -> Loaded:
        """The documents of a source :meth:`opens_itself` (never modifying or locking it)."""
        raise NotImplementedError(f"profile {self.name!r} does not open {display_path} itself")

    def read(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> Loaded:
        """Turn a file's bytes into its documents (one JSON document by default, via :meth:`parse`)."""
        return Loaded.of(self.parse(raw, path, display_path, settings))

    def parse(self, raw: bytes, path: Path, display_path: str, settings: Settings) -> LoadResult:
        """Turn a file's bytes into a document with positions (strict JSON by default)."""
        return parse_json_bytes(raw, path, display_path)

    def rule_table(self) -> tuple[Rule, ...]:
        """Every rule of this profile, as a table (codes unique across profiles)."""
        return ()

    @abstractmethod
    def classify(self, document: Document, settings: Settings) -> tuple[str | None, Iterable[Hit]]:
        """The document's handoff type (None when unknown) and any hits found deciding it."""

    @abstractmethod
    def schema_name(self, handoff_type: str) -> str:
        """The shipped schema for a handoff type, e.g. ``neuralrelay/dev_to_test``."""

    def validate(self, document: Document, settings: Settings) -> list[Finding]:
        """Schema findings of a classified document (none when valid): the shipped schema of its type.

        A profile whose schemas are not shipped (a user's contract) validates in its own way.
        """
        from pytest_handoff.validation.schemas import compiled_schema

        assert document.handoff_type is not None
        return compiled_schema(self.schema_name(document.handoff_type)).findings(document)

    def is_valid(self, document: Document, settings: Settings) -> bool:
        """Whether a classified document meets its schema, without placing its errors (its file
        has more schema findings than are reported). A profile that validates in its own way
        is asked through :meth:`validate` unless it answers this itself."""
        if type(self).validate is not Profile.validate:
            return not self.validate(document, settings)
        from pytest_handoff.validation.schemas import compiled_schema

        assert document.handoff_type is not None
        return compiled_schema(self.schema_name(document.handoff_type)).accepts(document)

    def sort_key(self, path: Path) -> tuple[int, str]:
        """Order of a chain's files (the sequence they were written in)."""
        return (0, path.name)

    def keywords(self, paths: Iterable[Path], settings: Settings) -> list[str]:
        """Keywords for a chain (agents, handoff types) known from its file names, for ``pytest -k``."""
        return []

    # --- reading views (handoff-lint chain / report / show / schema export) -----------------

    def summarise(self, chain: Group) -> ChainView:
        """The chain as people read it (``handoff-lint chain`` and ``report``).

        The default knows only the files; a profile fills in what its format says (the task,
        criteria, properties, bugs, verdict and scores).
        """
        from pytest_handoff.values.view_model import generic_view

        return generic_view(self.name, chain)

    def editor_schemas(self, settings: Settings) -> list[tuple[str, list[str]]]:
        """(schema name, file globs) pairs, for editors that validate files as they are opened."""
        return []


def folder_files(directory: Path, listing: list[Path] | None) -> list[Path]:
    """The regular files directly in ``directory``: ``listing`` when the walk listed them already."""
    if listing is not None:
        return listing
    try:
        return [entry for entry in directory.iterdir() if entry.is_file()]
    except OSError:
        return []
