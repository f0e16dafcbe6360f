"""The errors that stop a run before any file is checked: a bad configuration, a bad command line."""

from __future__ import annotations


class ConfigError(ValueError):
    """A configuration value that cannot be used; the message names where it was given."""


class UsageError(Exception):
    """A problem with the command line or configuration."""
