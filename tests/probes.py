"""What a fresh process imports: one probe for every test that keeps a run cheap.

A one-file pre-commit run must import no other format's code and nothing heavy; these helpers
run the CLI (or an import) in a new interpreter and say what ended up in ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

#: Modules a one-file run has no use for.
HEAVY_MODULES = (
    "rich", "jsonschema", "multiprocessing", "concurrent.futures", "importlib.metadata",
    "dataclasses", "inspect", "shutil", "_strptime", "pytest",
)  # fmt: skip

#: Modules of the profiles folder every run shares (the base class and the built-in table).
SHARED = ("pytest_handoff.profiles", "pytest_handoff.profiles.base", "pytest_handoff.profiles.builtin")


class Probe(NamedTuple):
    code: int
    modules: frozenset[str]

    def loaded(self, candidates: Sequence[str]) -> list[str]:
        """The ``candidates`` that were imported, sorted."""
        return sorted(m for m in candidates if m in self.modules)

    @property
    def formats(self) -> list[str]:
        """The format packages imported (``craik`` for any module of ``pytest_handoff.profiles.craik``)."""
        return sorted(
            {
                m.split(".")[2]
                for m in self.modules
                if m.startswith("pytest_handoff.profiles.") and m not in SHARED
            }
        )


def lint_in_fresh_process(args: Sequence[str], cwd: Path) -> Probe:
    """``handoff-lint ARGS`` in a new interpreter (output swallowed): its exit code and modules."""
    probe = (
        "import io, json, sys\n"
        "from pytest_handoff.cli import main\n"
        "out, sys.stdout = sys.stdout, io.StringIO()\n"
        "code = main(sys.argv[1:])\n"
        "sys.stdout = out\n"
        "print(json.dumps([code, sorted(sys.modules)]))\n"
    )
    return _run(probe, args, cwd)


def import_in_fresh_process(statements: str, cwd: Path | None = None) -> Probe:
    """Python ``statements`` in a new interpreter: the modules they import (exit code 0)."""
    probe = f"import json, sys\n{statements}\nprint(json.dumps([0, sorted(sys.modules)]))\n"
    return _run(probe, (), cwd)


def _run(probe: str, args: Sequence[str], cwd: Path | None) -> Probe:
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True, cwd=cwd
    )
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    return Probe(code, frozenset(modules))
