"""Module paths the documentation showed before the package was laid out by role stay importable for
one release, as the modules now at their new places, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import sys

import pytest

import pytest_handoff


@pytest.mark.parametrize(("old", "new"), sorted(pytest_handoff.MOVED.items()))
def test_an_old_module_path_imports_the_module_at_its_new_place(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is now {new}"):
        moved = importlib.import_module(old)
    assert moved is importlib.import_module(new)


def test_names_the_docs_show_are_found_under_their_old_paths() -> None:
    sys.modules.pop("pytest_handoff.config", None)
    with pytest.warns(DeprecationWarning, match="pytest_handoff.config is now"):
        from pytest_handoff.config import NO_SETTINGS, Settings
    from pytest_handoff.rules import listed
    from pytest_handoff.rules.rows import listed as rows_listed
    from pytest_handoff.values.settings import Settings as NewSettings

    assert Settings is NewSettings
    assert Settings() == NO_SETTINGS
    assert listed is rows_listed


def test_a_name_that_never_was_a_module_is_not_found() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("pytest_handoff.nothing_here")


def test_an_old_path_leaves_the_module_its_own_spec() -> None:
    import importlib.resources

    sys.modules.pop("pytest_handoff.model", None)
    with pytest.warns(DeprecationWarning, match="pytest_handoff.model is now"):
        importlib.import_module("pytest_handoff.model")
    values = importlib.import_module("pytest_handoff.values")
    assert values.__spec__ is not None
    assert values.__spec__.name == "pytest_handoff.values"
    assert importlib.resources.files("pytest_handoff.values").is_dir()
