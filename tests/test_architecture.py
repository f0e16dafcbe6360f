"""The package keeps its layers: no import circle across folders, no import from a lower layer to a
higher one, no module over 500 lines, and ``--version`` loads neither a profile nor the configuration."""

from __future__ import annotations

import ast

import pytest

from tests.architecture import LAYERS, cycles, folder_of, graph, imports, layer_of, modules
from tests.probes import import_in_fresh_process, lint_in_fresh_process

KNOWN = modules()


def test_every_module_is_in_a_layer() -> None:
    for module in KNOWN:
        assert 0 <= layer_of(module) < len(LAYERS), module


def test_no_import_circle_joins_modules_of_different_folders() -> None:
    across = [part for part in cycles(graph()) if len({folder_of(m, KNOWN) for m in part}) > 1]
    assert across == []


def test_no_module_imports_from_a_higher_layer() -> None:
    upward = sorted(
        {
            f"{module}:{line} ({LAYERS[layer_of(module)][0]}) -> {target} ({LAYERS[layer_of(target)][0]})"
            for module in KNOWN
            for target, line, _ in imports(module, KNOWN)
            if layer_of(module) < layer_of(target)
        }
    )
    assert upward == []


@pytest.mark.parametrize("module", sorted(KNOWN))
def test_a_module_holds_at_most_500_lines(module: str) -> None:
    assert len(KNOWN[module].read_text(encoding="utf-8").splitlines()) <= 500


def test_the_core_names_no_format() -> None:
    """Outside ``profiles/``, no code names a format: formats are rows and folders of their own."""
    formats = {"neuralrelay", "craik", "ralph", "yolo", "trinity", "contracts"}
    for module in (m for m in KNOWN if not m.startswith("pytest_handoff.profiles")):
        tree = ast.parse(KNOWN[module].read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        named = {
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and id(node) not in docstrings and node.value in formats
        }
        assert named == set(), module


def test_version_imports_no_profile_and_no_configuration(tmp_path: object) -> None:
    probe = import_in_fresh_process(
        "import contextlib, io\nfrom pytest_handoff.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['--version'])"
    )
    assert probe.loaded(("pytest_handoff.config", "pytest_handoff.registry", "pytest_handoff.profiles")) == []


def test_the_probe_sees_what_a_run_imports(tmp_path: object) -> None:
    from pathlib import Path

    probe = lint_in_fresh_process(["--version"], Path(str(tmp_path)))
    assert probe.code == 0
    assert "pytest_handoff.cli" in probe.modules
