"""Everything a format's author imports, and nothing else: the one module a profile plugin needs.

A format is a :class:`Profile` with its :class:`ProfileSpec` (name, globs, options, code prefix),
its grouping, typing and validation, and a rule table of rows made with :func:`listed`, each check
a function of a :class:`Document` (or a :class:`Group`) and the :class:`Settings` that yields
:class:`Hit` values. The optional capabilities (its own sources, own options, files it opens
itself, evidence fields, views, editor schemas) are the Protocols of ``capabilities``. Anything
else of the package is internal and may move between releases.
"""

from __future__ import annotations

from pytest_handoff.profiles.base import Profile, folder_files
from pytest_handoff.profiles.capabilities import (
    DeclaresClaims,
    EditorSchemas,
    OpensItself,
    OwnOptions,
    OwnSources,
    Summarises,
)
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.rules.evidence.declared import ClaimField
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.values.documents import Anchor, Document, Loaded, LoadResult
from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.findings import Finding, Region, Severity
from pytest_handoff.values.groups import Group, GroupRef
from pytest_handoff.values.options import Option, globs_option, pairs, strings, text, whole_number
from pytest_handoff.values.rules import Hit, Rule, Scope
from pytest_handoff.values.settings import NO_SETTINGS, Settings
from pytest_handoff.values.specs import ProfileSpec
from pytest_handoff.values.view_model import ChainView

__all__ = [
    "NO_SETTINGS",
    "Anchor",
    "ChainView",
    "ClaimField",
    "ConfigError",
    "DeclaresClaims",
    "Document",
    "EditorSchemas",
    "Finding",
    "Group",
    "GroupRef",
    "Hit",
    "LoadResult",
    "Loaded",
    "OpensItself",
    "Option",
    "OwnOptions",
    "OwnSources",
    "Profile",
    "ProfileSpec",
    "Region",
    "Rule",
    "Scope",
    "Settings",
    "Severity",
    "Summarises",
    "folder_files",
    "globs_option",
    "listed",
    "pairs",
    "parse_json_bytes",
    "reported",
    "strings",
    "text",
    "whole_number",
]
