"""The projects measured: generated NeuralRelay trees, the floors' scripts, pytest's no-op items,
and a snapshot of the package that every measured command imports.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import generate
from timing import ENV, REPO, log

#: File name -> handoff type (= schema name), as NeuralRelay's agents write them.
TYPE_OF = dict(zip(generate.FILE_NAMES, generate.HANDOFF_TYPES, strict=True))
#: The file passed for the one-file (pre-commit) case: the dev handoff, the largest file and the
#: one most cross-handoff rules read.
ONE_FILE = "02-dev-agent.json"
#: What a generated tree holds besides artefacts of the tools being measured.
PRISTINE = {".neuralrelay", generate.MANIFEST, "pytest.ini", ".bench-stamp"}

# The floors: what any checker written in Python pays at least. Paths are folders (every
# *.json below them) or files.
FLOOR_READ = """\
import sys
from pathlib import Path
for arg in sys.argv[1:]:
    p = Path(arg)
    for f in (sorted(p.rglob("*.json")) if p.is_dir() else [p]):
        f.read_bytes()
"""
FLOOR_JSON = """\
import json, sys
from pathlib import Path
for arg in sys.argv[1:]:
    p = Path(arg)
    for f in (sorted(p.rglob("*.json")) if p.is_dir() else [p]):
        json.loads(f.read_bytes())
"""
# Runs handoff-lint's main() on the files named and prints, last, the standard-library modules the
# run loaded: importing only those is the floor of a one-file run (no Python tool that needs
# them starts faster).
STDLIB_PROBE = """\
import json, sys
from pytest_handoff.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print()
print(json.dumps([name for name in sys.modules if name.split(".")[0] in sys.stdlib_module_names]))
"""


def stdlib_floor(python: str, argv: list[str], cwd: Path) -> str | None:
    """A script importing the standard-library modules a handoff-lint run on ``argv`` loads, in the
    order loaded, and ending without the interpreter's teardown as the command does (None when the
    probe fails: the row is left out, and why is logged)."""
    run = subprocess.run(
        [python, "-c", STDLIB_PROBE, *argv], cwd=cwd, capture_output=True, text=True, env=ENV, check=False
    )
    try:
        names = json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        log(f"  no standard-library floor: the probe failed: {run.stderr.strip()[-300:]}")
        return None
    return f"import os, {', '.join(names)}; os._exit(0)"


# --- trees ----------------------------------------------------------------------------------


@dataclass
class Tree:
    root: Path
    kind: str  # clean | broken
    chains: int

    def files(self) -> list[Path]:
        return sorted((self.root / ".neuralrelay" / "handoffs").glob("*/*.json"))


def ensure_tree(workdir: Path, kind: str, chains: int, seed: int) -> Tree:
    """A generated tree, reused while the generator and its parameters are unchanged."""
    root = workdir / f"{kind}-{chains}chains-seed{seed}"
    stamp = {
        "generator_version": generate.GENERATOR_VERSION,
        "generator_sha256": hashlib.sha256(Path(generate.__file__).read_bytes()).hexdigest(),
        "template_sha256": hashlib.sha256(
            b"".join((generate.TEMPLATE_DIR / name).read_bytes() for name in generate.FILE_NAMES)
        ).hexdigest(),
        "chains": chains,
        "broken_fraction": 1.0 if kind == "broken" else 0.0,
        "seed": seed,
    }
    stamp_file = root / ".bench-stamp"
    if stamp_file.exists() and json.loads(stamp_file.read_text()) == stamp:
        return Tree(root, kind, chains)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    started = time.perf_counter()
    generate.generate(root, chains, 1.0 if kind == "broken" else 0.0, seed)
    # Makes the tree pytest's rootdir, so no configuration above the workdir applies.
    (root / "pytest.ini").write_text("[pytest]\n")
    stamp_file.write_text(json.dumps(stamp))
    log(f"  generated {root.name}: {4 * chains} files in {time.perf_counter() - started:.1f} s")
    return Tree(root, kind, chains)


def clear_artefacts(root: Path) -> None:
    """Remove every cache a tool may have left in a tree (.pytest_cache, .handoff_cache, ...)."""
    for entry in root.iterdir():
        if entry.name not in PRISTINE:
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


def has_handoff_cache(root: Path) -> bool:
    """Whether a run left a handoff result cache (in .pytest_cache or a folder of its own)."""
    for entry in root.iterdir():
        if entry.name in PRISTINE:
            continue
        if entry.name == ".pytest_cache":
            if any("handoff" in p.name for p in entry.rglob("*")):
                return True
        elif entry.is_dir() and any(entry.rglob("*")):
            return True
    return False


def empty_project(workdir: Path) -> Path:
    """A folder with only a pytest.ini: where pytest's own start-up is timed."""
    folder = workdir / "empty-project"
    folder.mkdir(exist_ok=True)
    (folder / "pytest.ini").write_text("[pytest]\n")
    return folder


# pytest's own cost per item: items that do nothing, one per chain, from one file collector.
NOOP_CONFTEST = """\
import pytest


class NoOp(pytest.Item):
    def runtest(self):
        pass

    def reportinfo(self):
        return self.path, None, self.name


class NoOps(pytest.File):
    def collect(self):
        for index in range(int(self.path.read_text())):
            yield NoOp.from_parent(self, name=f"chain{index}")


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".noop":
        return NoOps.from_parent(parent, path=file_path)
"""


def noop_items_project(workdir: Path, items: int) -> tuple[Path, str]:
    """A project whose only test file makes ``items`` no-op items; returns it and that file."""
    folder = workdir / "noop-items"
    folder.mkdir(exist_ok=True)
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "conftest.py").write_text(NOOP_CONFTEST)
    name = f"items-{items}.noop"
    (folder / name).write_text(str(items))
    return folder, name


# --- a snapshot of the package ------------------------------------------------------------------


def snapshot_package(workdir: Path, tools_python: str, handoff_lint: str, pytest: str) -> dict[str, str]:
    """Copy ``pytest_handoff/`` and ``schemas/`` as they are now and make every child import that copy.

    The copy is put first on ``PYTHONPATH`` (ahead of the editable install), so all measurements
    of a run see one version of the package even while it is being edited. A copy taken in the
    middle of an edit is caught by a smoke test on ``examples/neuralrelay/`` and taken again.
    """
    for attempt in range(6):
        target = workdir / "package-snapshot"
        if target.exists():
            shutil.rmtree(target)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(REPO / "pytest_handoff", target / "pytest_handoff", ignore=ignore)
        shutil.copytree(REPO / "schemas", target / "schemas", ignore=ignore)
        ENV["PYTHONPATH"] = os.pathsep.join(p for p in (str(target), os.environ.get("PYTHONPATH")) if p)
        where = subprocess.run(
            [tools_python, "-c", "import pytest_handoff; print(pytest_handoff.__file__)"],
            cwd=workdir,
            capture_output=True,
            text=True,
            env=ENV,
            check=False,
        ).stdout.strip()
        examples = REPO / "examples" / "neuralrelay"
        smoke = [
            subprocess.run(
                [handoff_lint, str(examples / "clean")], cwd=examples, capture_output=True, env=ENV
            ).returncode,
            subprocess.run(
                [handoff_lint, str(examples / "broken")], cwd=examples, capture_output=True, env=ENV
            ).returncode,
            subprocess.run(
                [pytest, "--handoffs", "-q", "-p", "no:cacheprovider", str(examples / "clean")],
                cwd=examples,
                capture_output=True,
                env=ENV,
            ).returncode,
        ]
        if where.startswith(str(target)) and smoke == [0, 1, 0]:
            digest = hashlib.sha256()
            for path in sorted(target.rglob("*")):
                if path.is_file():
                    digest.update(str(path.relative_to(target)).encode() + b"\0" + path.read_bytes())
            return {"path": str(target), "sha256": digest.hexdigest()[:16], "imported_from": where}
        log(f"  snapshot {attempt + 1}: imported from {where or '?'}, smoke exits {smoke}; retrying in 10 s")
        time.sleep(10)
    raise SystemExit("could not take a working snapshot of the package (is it mid-edit?)")
