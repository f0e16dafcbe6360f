"""What the core knows of a profile without importing it: its name, globs, options and codes.

The built-in profiles' specs are the rows of :mod:`pytest_handoff.profiles.builtin` (an
import-free table), so that discovery can match paths and configuration can be validated before
any format's code is imported; each profile class reads its name, globs and options from its row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.values.options import Option, globs_option

if TYPE_CHECKING:
    from pytest_handoff.values.settings import Settings


class ProfileSpec(NamedTuple):
    """A profile as the core knows it before importing it."""

    name: str
    #: The module holding ``PROFILE``, the profile's instance.
    module: str
    default_globs: tuple[str, ...]
    #: The keys of ``[tool.handoff.<name>]`` besides ``globs``, with their parsers and defaults;
    #: None: the profile's options are tables of its own, read by the profile itself.
    options: tuple[Option, ...] | None
    #: What every code of the profile's rules starts with (``NR``): selecting ``NR3`` loads it alone.
    code_prefix: str = ""
    #: Folders whose presence marks a project's root (``.neuralrelay``).
    markers: tuple[str, ...] = ()
    #: Top-level ``[tool.handoff]`` keys that are this profile's options under their old names
    #: (still read, deprecated): configured key -> option key.
    legacy_keys: Mapping[str, str] = {}
    #: The name under which the profile reads an agent's own words (its last message) as a handoff
    #: of their own, never a file on disk; empty when it reads none.
    message_file: str = ""

    @property
    def declared(self) -> tuple[Option, ...] | None:
        """Every key of the profile's table: ``globs`` (defaulting to ``default_globs``) and its options."""
        if self.options is None:
            return None
        return (globs_option(self.default_globs), *self.options)

    def option(self, settings: Settings, key: str) -> Any:
        """The value of option ``key`` under ``settings``: as configured, else its declared default."""
        configured = settings.options_of(self.name)
        if key in configured:
            return configured[key]
        for option in self.options or ():
            if option.key == key:
                return option.default
        if key == "globs":
            return self.default_globs
        raise KeyError(f"{self.name} declares no option {key!r}")


def configured_globs(settings: Settings, name: str, defaults: tuple[str, ...]) -> tuple[str, ...]:
    """``[tool.handoff.<name>] globs`` when configured, else ``defaults``."""
    configured = settings.options_of(name).get("globs")
    return tuple(configured) if configured else defaults
