"""handoff-lint schema export: the schemas with stable $ids, and VS Code settings that find them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
from views_helpers import BROKEN, CLEAN, outside_ci, run

from pytest_handoff.read.globs import matches_globs
from pytest_handoff.validation.schemas import available_schemas, load_schema

pytestmark = pytest.mark.usefixtures("outside_ci")
__all__ = ["outside_ci"]


def _settings(out: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The two json.schemas blocks printed (user settings, then .vscode/settings.json)."""
    blocks = [block for block in out.split("// ") if block.strip()]
    assert len(blocks) == 2
    user, workspace = (json.loads(block.split("\n", 1)[1]) for block in blocks)
    return user["json.schemas"], workspace["json.schemas"]


def _schema_for(entries: list[dict[str, Any]], relative_path: str) -> list[str]:
    return [entry["url"] for entry in entries if matches_globs(relative_path, entry["fileMatch"])]


@pytest.fixture
def exported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[Path, str]:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "schema", "export", "editor-schemas")
    assert code == 0
    assert f"wrote {len(available_schemas())} schemas to editor-schemas" in err
    return tmp_path, out


def test_export_writes_every_shipped_schema_with_its_stable_id(exported: tuple[Path, str]) -> None:
    root, _ = exported
    for name in available_schemas():
        written = json.loads((root / "editor-schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))
        assert written == load_schema(name)
        assert written["$id"] == f"https://pytest-handoff.dev/schemas/{name}.schema.json"


def test_export_defaults_to_a_hidden_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "schema", "export")[0] == 0
    assert (tmp_path / ".handoff-schemas" / "neuralrelay" / "dev_to_test.schema.json").is_file()


@pytest.mark.parametrize("chain", [CLEAN, BROKEN], ids=["clean", "broken"])
def test_vscode_globs_give_each_example_file_the_schema_of_its_type(
    exported: tuple[Path, str], chain: Path
) -> None:
    root, out = exported
    user, workspace = _settings(out)
    for file in sorted(chain.glob("*.json")):
        relative = f"project/.neuralrelay/handoffs/{chain.name}/{file.name}"
        handoff_type = json.loads(file.read_text(encoding="utf-8"))["handoff_type"]
        (url,) = _schema_for(workspace, relative)
        assert url == f"./editor-schemas/neuralrelay/{handoff_type}.schema.json"
        assert (root / url).is_file()
        (uri,) = _schema_for(user, relative)
        assert Path(url2pathname(urlparse(uri).path)) == (root / url).resolve()


def test_vscode_globs_leave_other_json_files_alone(exported: tuple[Path, str]) -> None:
    _, out = exported
    _, workspace = _settings(out)
    for path in (
        "package.json",
        ".vscode/settings.json",
        "docs/02-dev-agent.json",
        ".neuralrelay/config.json",
    ):
        assert _schema_for(workspace, path) == []
    (url,) = _schema_for(workspace, ".neuralrelay/handoffs/20261103-091500/rework-1.json")
    assert url.endswith("neuralrelay/rework.schema.json")


def test_vscode_globs_include_configured_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.handoff.agents]\ndocs-agent = "review_final"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    _, out, _ = run(capsys, "schema", "export")
    _, workspace = _settings(out)
    (url,) = _schema_for(workspace, ".neuralrelay/handoffs/20261103-091500/05-docs-agent.json")
    assert url.endswith("neuralrelay/review_final.schema.json")


def test_schema_needs_the_export_action(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "schema")[0] == 2
