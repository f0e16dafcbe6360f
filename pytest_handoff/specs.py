"""The table of built-in profiles: what discovery needs to know of each without importing it.

Kept apart from the profiles themselves (and import-free) so that a hook deciding whether a
written file is a handoff at all costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pytest_handoff.config import Settings


class ProfileSpec(NamedTuple):
    """What discovery needs to know of a built-in profile without importing it."""

    name: str
    #: The module holding ``PROFILE``, the profile's instance.
    module: str
    default_globs: tuple[str, ...]
    #: Keys of ``[tool.handoff.<name>]`` (None: the profile's options are tables of its own,
    #: checked when it loads).
    option_keys: tuple[str, ...] | None = ("globs",)
    #: What every code of the profile's rules starts with (``NR``): selecting ``NR3`` loads it alone.
    code_prefix: str = ""

    def globs(self, settings: Settings) -> tuple[str, ...]:
        """Where the profile's files are looked for under ``settings``."""
        if self.name == "neuralrelay":
            return settings.globs  # its globs predate profile tables: [tool.handoff] globs
        if self.option_keys is None:
            # Tables of its own (user contracts, each with its globs): the profile reads them. It
            # is imported only when such tables are configured, and asked again once imported,
            # so that its path-only questions follow the latest settings.
            import sys

            if settings.options_of(self.name) or self.module in sys.modules:
                from pytest_handoff.profiles import load

                return load(self.name).globs(settings)
            return ()
        return configured_globs(settings, self.name, self.default_globs)


#: The built-in formats, in the order a file is offered to them.
BUILTIN_SPECS: tuple[ProfileSpec, ...] = (
    ProfileSpec(
        "neuralrelay",
        "pytest_handoff.profiles.neuralrelay.profile",
        (".neuralrelay/handoffs/**/*.json",),
        ("globs", "max-counterexample-length", "max-rework-cycles", "agents"),
        "NR",
    ),
    ProfileSpec(
        "trinity",
        "pytest_handoff.profiles.trinity.profile",
        ("**/handoff/*-*-*-*T*.json",),
        ("globs", "workspaces", "timestamp-tolerance-ms"),
        "TR",
    ),
    ProfileSpec(
        "craik",
        "pytest_handoff.profiles.craik.profile",
        (".craik/**/*.json", "**/*.craik.json", ".craik/state/craik.sqlite3"),
        ("globs", "stores"),
        "CK",
    ),
    ProfileSpec(
        "ralph",
        "pytest_handoff.profiles.ralph.profile",
        (
            ".claude/session/handoff-signal.json",
            ".claude/session/pending-handoff.json",
            ".claude/session/handoff-log.json",
            ".claude/session/coordinator-state.json",
            ".claude/session/logs/*.log",
            "logs/**/*.log",
        ),
        ("globs",),
        "RL",
    ),
    ProfileSpec(
        "yolo",
        "pytest_handoff.profiles.yolo.profile",
        (".yolo-planning/**/*.jsonl", ".yolo-planning/**/*.json"),
        ("globs", "message-schemas"),
        "YL",
    ),
    ProfileSpec(
        "contracts",
        "pytest_handoff.profiles.contracts.profile",
        (),
        None,
        "UC",
    ),
)

SPECS_BY_NAME: Mapping[str, ProfileSpec] = {spec.name: spec for spec in BUILTIN_SPECS}


def configured_globs(settings: Settings, name: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """``[tool.handoff.<name>] globs`` when configured, else ``defaults``."""
    configured = settings.options_of(name).get("globs")
    return tuple(configured) if configured else defaults


def profile_names() -> tuple[str, ...]:
    """Names of the built-in profiles (no import)."""
    return tuple(spec.name for spec in BUILTIN_SPECS)
