"""Handoff formats as pluggable profiles, one package each.

A profile says which files it owns, how a file turns into documents with places, which
schema applies to a document, how documents group, and which rules check them
(:class:`~pytest_handoff.profiles.base.Profile`). The built-in ones are rows of
:mod:`~pytest_handoff.profiles.builtin`; the registry imports a profile's package only when a
file of its format is present. Other packages add profiles through the
``pytest_handoff.profiles`` entry point group.
"""
