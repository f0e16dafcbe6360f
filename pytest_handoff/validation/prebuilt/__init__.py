"""The shipped schemas' yes/no checks, written ahead of time as Python modules.

:mod:`~pytest_handoff.validation.fastcheck` turns a schema into Python source; compiling that at
every start cost the pre-commit hook about as much as checking the file. So the checks of the
schema ``schemas/<folder>/<stem>.schema.json`` is written into ``prebuilt/<folder>/<stem>.py``
(``-`` spelt ``_``) by ``scripts/prebuild_checks.py``, and Python caches its bytecode like any
module's: a run imports only the checks of the schemas it uses. A check is used only for the
schema it was written from (its ``FINGERPRINT``); any other is compiled at run time as before,
and a test fails while a module is out of date.
"""

from __future__ import annotations

import importlib
from typing import Any

from pytest_handoff.validation.fastcheck import Check, schema_fingerprint


def module_name(name: str) -> str:
    """The module of shipped schema ``name`` (``folder/stem``)."""
    return f"{__name__}.{name.replace('-', '_').replace('/', '.')}"


def prebuilt_check(name: str, schema: Any) -> Check | None:
    """The prebuilt check of shipped schema ``name`` (``folder/stem``) when it was written from
    ``schema``; None when there is none, or it is out of date."""
    if "/" not in name:
        return None
    try:
        module = importlib.import_module(module_name(name))
    except ImportError:
        return None
    if getattr(module, "FINGERPRINT", None) != schema_fingerprint(schema):
        return None
    check: Check = module.check()
    return check
