"""The shipped schemas' yes/no checks, written ahead of time as Python modules.

:mod:`~pytest_handoff.validation.fastcheck` turns a schema into Python source; compiling that at
every start cost the pre-commit hook about as much as checking the file. So the checks of the
schemas in ``schemas/<folder>/`` are written into ``prebuilt/<folder>.py`` (``-`` spelt ``_``)
by ``scripts/prebuild_checks.py``, and Python caches their bytecode like any module's. A check
is used only for the schema it was written from (its fingerprint); any other is compiled at run
time as before, and a test fails while a module is out of date.
"""

from __future__ import annotations

import importlib
from typing import Any

from pytest_handoff.validation.fastcheck import Check, schema_fingerprint


def module_name(folder: str) -> str:
    """The module of the checks of ``schemas/<folder>/``."""
    return f"{__name__}.{folder.replace('-', '_')}"


def prebuilt_check(name: str, schema: Any) -> Check | None:
    """The prebuilt check of shipped schema ``name`` (``folder/stem``) when it was written from
    ``schema``; None when there is none, or it is out of date."""
    folder, _, stem = name.rpartition("/")
    if not folder:
        return None
    try:
        module = importlib.import_module(module_name(folder))
    except ImportError:
        return None
    entry = module.CHECKS.get(stem)
    if entry is None or entry[0] != schema_fingerprint(schema):
        return None
    check: Check = entry[1]()
    return check
