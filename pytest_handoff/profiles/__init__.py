"""Handoff formats as pluggable profiles.

A profile says which files it owns, how a file turns into documents with places, which
schema applies to a document, how documents group, and which rules check them. Each built-in
profile lives in its own package (``pytest_handoff/profiles/<name>/``) and is imported only when
a file of its format is present: discovery matches paths against the globs of the
:data:`BUILTIN_SPECS` table, which costs no import. Other packages add profiles through the
``pytest_handoff.profiles`` entry point group (a :class:`Profile` subclass or instance), read
when a walk or a named file needs them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pytest_handoff.profiles.base import Profile
from pytest_handoff.specs import BUILTIN_SPECS, SPECS_BY_NAME, ProfileSpec, profile_names


@cache
def load(name: str) -> Profile:
    """The profile called ``name`` (built-in or plugin), imported and its rules tabled on first use."""
    from pytest_handoff.rules import register_table

    spec = SPECS_BY_NAME.get(name)
    if spec is None:
        found = next((p for p in plugin_profiles() if p.name == name), None)
        if found is None:
            raise KeyError(name)
        return found
    from importlib import import_module

    profile: Profile = import_module(spec.module).PROFILE
    register_table(profile.rule_table())
    return profile


def builtin_profiles() -> tuple[Profile, ...]:
    """Every profile shipped with pytest-handoff (imports them all: for listings, not the hot path)."""
    return tuple(load(spec.name) for spec in BUILTIN_SPECS)


@cache
def plugin_profiles() -> tuple[Profile, ...]:
    """Profiles registered by other packages (entry point group ``pytest_handoff.profiles``).

    Loaded on first need only: reading entry points costs start-up time. An entry point may
    name a :class:`Profile` subclass or an instance.
    """
    from importlib.metadata import entry_points

    from pytest_handoff.rules import register_table

    found: list[Profile] = []
    for entry in entry_points(group="pytest_handoff.profiles"):
        try:
            loaded: Any = entry.load()
            profile = loaded() if isinstance(loaded, type) else loaded
            if not isinstance(profile, Profile):
                raise TypeError(f"{entry.value} is not a pytest_handoff Profile")
            register_table(profile.rule_table())
        except Exception as error:  # a broken plugin must not stop the checks of every other format
            import sys

            dist = getattr(entry, "dist", None)
            owner = f" of {dist.name}" if dist is not None else ""
            print(
                f"handoff-lint: warning: profile plugin {entry.name!r}{owner} skipped: "
                f"{type(error).__name__}: {error}",
                file=sys.stderr,
            )
            continue
        found.append(profile)
    return tuple(found)


def all_profiles() -> tuple[Profile, ...]:
    """Every known profile, built-ins first."""
    return builtin_profiles() + plugin_profiles()


__all__ = [
    "BUILTIN_SPECS",
    "SPECS_BY_NAME",
    "Profile",
    "ProfileSpec",
    "all_profiles",
    "builtin_profiles",
    "load",
    "plugin_profiles",
    "profile_names",
]
