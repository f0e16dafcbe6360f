"""Handoff formats as pluggable profiles.

A profile says which files it owns, how a file is read with positions, which
schema applies to a document, and how documents group into chains. Built-in
profiles are listed here; others register through the ``pytest_handoff.profiles``
entry point group, loaded once on first use.
"""

from __future__ import annotations

from functools import cache

from pytest_handoff.profiles.base import Profile


@cache
def builtin_profiles() -> tuple[Profile, ...]:
    """The profiles shipped with pytest-handoff."""
    from pytest_handoff.profiles.neuralrelay import NeuralRelayProfile

    return (NeuralRelayProfile(),)


@cache
def plugin_profiles() -> tuple[Profile, ...]:
    """Profiles registered by other packages (entry point group ``pytest_handoff.profiles``).

    Loaded on first need only: reading entry points costs start-up time.
    """
    from importlib.metadata import entry_points

    return tuple(entry.load()() for entry in entry_points(group="pytest_handoff.profiles"))


def all_profiles() -> tuple[Profile, ...]:
    """Every known profile, built-ins first."""
    return builtin_profiles() + plugin_profiles()


__all__ = ["Profile", "all_profiles", "builtin_profiles", "plugin_profiles"]
