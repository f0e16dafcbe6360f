"""The schemas ship inside the wheel and are found from an editable install too."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pytest_handoff.validation.schemas import available_schemas, load_schema, schema_root
from tests.conftest import REPO

SCHEMAS = sorted(
    p.relative_to(REPO / "schemas").as_posix() for p in (REPO / "schemas").rglob("*.schema.json")
)


def test_every_schema_in_the_source_tree_is_found_by_the_installed_package() -> None:
    assert [f"{name}.schema.json" for name in available_schemas()] == SCHEMAS
    assert schema_root().joinpath("neuralrelay").is_dir()
    assert load_schema("neuralrelay/dev_to_test")["properties"]["coverage_gaps"]["minItems"] == 3


@pytest.mark.slow
def test_the_wheel_contains_the_schemas_as_package_data(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {built.stderr.strip().splitlines()[-1:]}")
    (wheel,) = tmp_path.glob("pytest_handoff-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert sorted(n for n in names if n.startswith("pytest_handoff/schemas/")) == [
        f"pytest_handoff/schemas/{s}" for s in SCHEMAS
    ]
    assert any(n.endswith("entry_points.txt") for n in names)
