"""Contract tests for the JSON handoffs AI agents write for each other."""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from pytest_handoff.version import __version__ as __version__

if TYPE_CHECKING:
    from importlib.abc import Loader

    from pytest_handoff.api import check as check

__all__ = ["__version__", "check"]

#: Module paths the documentation showed before the package was laid out by role, and where each
#: module lives now: importable under the old name for one release (no file stands there).
MOVED: dict[str, str] = {
    "pytest_handoff.boundary": "pytest_handoff.values.boundary",
    "pytest_handoff.config": "pytest_handoff.pipeline.config",
    "pytest_handoff.findings": "pytest_handoff.values.findings",
    "pytest_handoff.model": "pytest_handoff.values",
    "pytest_handoff.read.document": "pytest_handoff.values.documents",
    "pytest_handoff.registry": "pytest_handoff.pipeline.registry",
    "pytest_handoff.specs": "pytest_handoff.values.specs",
}


def __getattr__(name: str) -> Any:
    # Imported on first use: importing the package (as the pytest plugin and the CLI do) stays cheap.
    if name == "check":
        from pytest_handoff.api import check

        return check
    if f"{__name__}.{name}" in MOVED:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _MovedModules:
    """Finds a moved module under its old name: the module itself, from its new place."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        return ModuleSpec(name, cast("Loader", _MovedModules)) if name in MOVED else None

    @staticmethod
    def create_module(spec: ModuleSpec) -> ModuleType:
        import importlib
        import warnings

        new = MOVED[spec.name]
        warnings.warn(
            f"{spec.name} is now {new}; the old name goes in the next release", DeprecationWarning, 2
        )
        module = importlib.import_module(new)
        spec.loader_state = module.__spec__  # importlib sets the alias spec on it next: put back
        return module

    @staticmethod
    def exec_module(module: ModuleType) -> None:
        """The module ran at its new place already; it keeps its own spec (for reload, resources)."""
        alias = module.__spec__
        if alias is not None and isinstance(alias.loader_state, ModuleSpec):
            module.__spec__ = alias.loader_state


sys.meta_path.append(_MovedModules())
