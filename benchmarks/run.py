#!/usr/bin/env python3
"""Benchmark handoff-lint and ``pytest --handoffs`` against check-jsonschema and Python floors.

    python benchmarks/run.py [--sizes 1,1000,10000] [--repeat 5] [--workdir DIR]
                             [--memory-sizes 1000,10000,50000] [--seed 0]

Standard library only; check-jsonschema is installed into its own venv
(``benchmarks/.venv-check-jsonschema``) on first use. See ``benchmarks/README.md`` for what
each measurement is and how the targets are judged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SCHEMAS = REPO / "schemas" / "neuralrelay"
CJ_VENV = HERE / ".venv-check-jsonschema"
RESULTS = HERE / "results.json"

sys.path.insert(0, str(HERE))
import generate  # noqa: E402  (benchmarks/generate.py, next to this file)

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


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- environment ------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    """The environment of every measured process: no CI switches or pytest options leaking in."""
    env = dict(os.environ)
    for name in (
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_WORKSPACE",
        "PYTEST_ADDOPTS",
        "PYTEST_PLUGINS",
        "FORCE_COLOR",
        "PY_COLORS",
        # An installed package has its bytecode compiled; without it every run compiles every module.
        "PYTHONDONTWRITEBYTECODE",
    ):
        env.pop(name, None)
    env["NO_COLOR"] = "1"
    return env


def find_tool_dir(given: str | None) -> Path:
    """The bin folder holding handoff-lint, pytest and the Python they run on."""
    if given:
        return Path(given)
    beside = Path(sys.executable).parent
    if (beside / "handoff-lint").exists():
        return beside
    found = shutil.which("handoff-lint")
    if found is None:
        raise SystemExit("handoff-lint not found next to this Python or on PATH; pass --bin-dir")
    return Path(found).parent


def ensure_check_jsonschema(given: str | None) -> Path:
    """check-jsonschema in its own venv, created on first use."""
    if given:
        return Path(given)
    exe = CJ_VENV / "bin" / "check-jsonschema"
    if exe.exists():
        return exe
    log(f"creating {CJ_VENV.relative_to(REPO)} and installing check-jsonschema ...")
    subprocess.run([sys.executable, "-m", "venv", str(CJ_VENV)], check=True)
    pip = CJ_VENV / "bin" / "python"
    subprocess.run([str(pip), "-m", "pip", "install", "--quiet", "check-jsonschema"], check=True)
    return exe


def version_of(cmd: Sequence[str]) -> str:
    try:
        run = subprocess.run(list(cmd), capture_output=True, text=True, check=False, env=child_env())
    except OSError as error:
        return f"unavailable ({error})"
    return (run.stdout or run.stderr).strip().splitlines()[0] if (run.stdout or run.stderr).strip() else "?"


def git_state() -> dict[str, str]:
    def git(*args: str) -> str:
        run = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False)
        return run.stdout.strip()

    changed = [line for line in git("status", "--porcelain").splitlines() if " benchmarks/" not in line]
    return {"commit": git("rev-parse", "--short", "HEAD"), "changed_files": str(len(changed))}


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
    generate.generate(root, chains, stamp["broken_fraction"], seed)
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


# --- running ----------------------------------------------------------------------------------


@dataclass
class Command:
    argv: list[str]
    cwd: Path
    ok_codes: tuple[int, ...] = (0,)


@dataclass
class Job:
    """One measurement: one or more commands whose times are summed, with a fixed setup step."""

    name: str
    size: str
    commands: list[Command]
    before: Callable[[], None] | None = None
    runs_ms: list[float] = field(default_factory=list)
    warmup_ms: float | None = None
    errors: list[str] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)
    returncodes: list[int] = field(default_factory=list)

    def run_once(self) -> float | None:
        """Milliseconds of one run (None after an unexpected exit code, kept in ``errors``).

        An unexpected exit is retried ``RETRIES`` times after a pause, since the package under test
        may be in the middle of an edit; a command that keeps failing is an error.
        """
        for attempt in range(RETRIES + 1):
            elapsed, error = self._attempt()
            if error is None:
                return elapsed
            if attempt < RETRIES:
                self.retried.append(error)
                log(f"    {self.name} [{self.size}]: {error}; retrying in {RETRY_PAUSE:.0f} s")
                time.sleep(RETRY_PAUSE)
        assert error is not None
        self.errors.append(error)
        return None

    def _attempt(self) -> tuple[float, str | None]:
        if self.before is not None:
            self.before()
        total = 0.0
        for command in self.commands:
            started = time.perf_counter()
            run = subprocess.run(
                command.argv,
                cwd=command.cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=ENV,
                check=False,
            )
            total += time.perf_counter() - started
            self.returncodes.append(run.returncode)
            if run.returncode not in command.ok_codes:
                tail = run.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
                return total * 1000, (
                    f"exit {run.returncode} (expected {'/'.join(map(str, command.ok_codes))}) from "
                    f"{' '.join(command.argv[:4])} ...: {' | '.join(tail)}"
                )
        return total * 1000, None

    @property
    def median(self) -> float | None:
        if self.errors or not self.runs_ms:
            return None
        return statistics.median(self.runs_ms)

    def as_dict(self) -> dict[str, Any]:
        return {
            "median_ms": self.median,
            "runs_ms": [round(t, 2) for t in self.runs_ms],
            "warmup_ms": None if self.warmup_ms is None else round(self.warmup_ms, 2),
            "commands": [{"argv": shorten(c.argv), "cwd": str(c.cwd)} for c in self.commands],
            "returncodes": sorted(set(self.returncodes)),
            "errors": self.errors[:5],
            "retried_after": self.retried[:5],
        }


def shorten(argv: list[str], keep: int = 12) -> list[str]:
    """An argv for the record: long file lists shortened to their first entries and a count."""
    if len(argv) <= keep:
        return argv
    return [*argv[:keep], f"... ({len(argv) - keep} more arguments)"]


#: Rounds for sizes below 4 files (at least; --repeat when larger).
SMALL_REPEAT = 15


def run_jobs(jobs: list[Job], repeat: int) -> None:
    """One warm-up run of each job, then ``repeat`` rounds, interleaving jobs within each round."""
    for job in jobs:
        job.warmup_ms = job.run_once()
        shown = "error" if job.warmup_ms is None else f"{job.warmup_ms:,.0f} ms"
        log(f"    warm-up {job.name} [{job.size}]: {shown}")
    for round_ in range(repeat):
        for job in jobs:
            if job.errors:
                continue
            elapsed = job.run_once()
            if elapsed is not None:
                job.runs_ms.append(elapsed)
        log(f"    round {round_ + 1}/{repeat} done")
    for job in jobs:
        median = "ERROR " + job.errors[0] if job.errors else f"{job.median:,.1f} ms"
        log(f"  {job.name} [{job.size}]: {median}")


def arg_budget(env: dict[str, str]) -> int:
    """Bytes of argv one exec may take here (ARG_MAX less the environment and a margin)."""
    try:
        arg_max = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError):
        arg_max = 128 * 1024
    env_bytes = sum(len(k) + len(v) + 2 + 8 for k, v in env.items())
    return max(16 * 1024, min(arg_max, 2**21) - env_bytes - 16 * 1024)


def chunked(prefix: list[str], args: list[str], budget: int) -> list[list[str]]:
    """``prefix + args`` split like xargs into as few commands as the argv budget allows."""
    base = sum(len(a) + 1 + 8 for a in prefix)
    chunks: list[list[str]] = []
    current: list[str] = []
    used = base
    for arg in args:
        cost = len(arg) + 1 + 8
        if current and used + cost > budget:
            chunks.append(prefix + current)
            current, used = [], base
        current.append(arg)
        used += cost
    if current:
        chunks.append(prefix + current)
    return chunks


# Runs a command as the fresh fork of a small Python (``-I -S``) and reports the child's own
# ru_maxrss from os.wait4. Forking (or vforking) the command straight from this script would not
# do: Linux carries the parent's resident set over into the child's ru_maxrss at exec, so every
# command would read at least as large as this script.
RSS_LAUNCHER = """\
import json, os, sys, time
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        os.execv(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
print(json.dumps({"maxrss": usage.ru_maxrss, "exit": os.waitstatus_to_exitcode(status), "seconds": elapsed}))
"""


def peak_rss(launcher_python: str, argv: list[str], cwd: Path) -> tuple[float, float, int]:
    """Wall time (ms), max RSS (MB) and exit code of one run of ``argv`` (see RSS_LAUNCHER)."""
    run = subprocess.run(
        [launcher_python, "-I", "-S", "-c", RSS_LAUNCHER, *argv],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=ENV,
        check=True,
    )
    report = json.loads(run.stdout)
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return report["seconds"] * 1000, report["maxrss"] / scale, report["exit"]


ENV = child_env()
RETRIES = 1
RETRY_PAUSE = 10.0


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


# --- the benchmark ---------------------------------------------------------------------------


@dataclass
class Tools:
    python: str
    handoff_lint: str
    pytest: str
    check_jsonschema: str | None
    lint_cache_flag: bool  # handoff-lint has --cache-dir


def size_label(size: int) -> str:
    return f"{size:,} file" + ("s" if size != 1 else "")


def targets_for(tree: Tree, size: int) -> list[str]:
    """What is passed on the command line: one file for a size below 4, else the tree root."""
    if size < 4:
        chain = tree.files()[0].parent
        names = [ONE_FILE, *[n for n in generate.FILE_NAMES if n != ONE_FILE]][:size]
        return [str(chain.relative_to(tree.root) / name) for name in names]
    return ["."]


def cj_commands(tools: Tools, tree: Tree, size: int) -> list[Command]:
    """check-jsonschema once per schema (chunked like xargs), on the files of that type."""
    assert tools.check_jsonschema is not None
    if size < 4:
        paths = [Path(t) for t in targets_for(tree, size)]
    else:
        paths = [p.relative_to(tree.root) for p in tree.files()]
    by_type: dict[str, list[str]] = {}
    for path in paths:
        by_type.setdefault(TYPE_OF[path.name], []).append(str(path))
    budget = arg_budget(ENV)
    commands = []
    for handoff_type, files in by_type.items():
        schema = SCHEMAS / f"{handoff_type}.schema.json"
        prefix = [tools.check_jsonschema, "--schemafile", str(schema)]
        commands.extend(Command(argv, tree.root) for argv in chunked(prefix, files, budget))
    return commands


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


def main_jobs(tools: Tools, size: int, clean: Tree, broken: Tree, with_cj: bool, empty: Path) -> list[Job]:
    ct, bt = targets_for(clean, size), targets_for(broken, size)
    label = str(size)
    # A named file is reported on its own: it may hold none of its chain's breaks.
    broken_codes = (1,) if size >= 4 else (0, 1)

    def cleared(tree: Tree) -> Callable[[], None]:
        return lambda: clear_artefacts(tree.root)

    py = [tools.python, "-c"]
    pytest = [tools.pytest, "--handoffs", "-q", "-p", "no:cacheprovider"]
    noop_folder, noop_file = noop_items_project(empty.parent, max(1, size // 4))
    jobs = [
        Job("python -c pass", "-", [Command([tools.python, "-c", "pass"], clean.root)]),
        # pytest with every installed plugin loaded and nothing to collect (exit 5).
        Job(
            "pytest start-up, nothing collected",
            "-",
            [Command([tools.pytest, "-q", "-p", "no:cacheprovider"], empty, (5,))],
        ),
        Job("floor: read_bytes", label, [Command([*py, FLOOR_READ, *ct], clean.root)]),
        # What pytest itself costs for one item per chain, before any checking.
        Job(
            "floor: pytest, one no-op item per chain",
            label,
            [Command([tools.pytest, "-q", "-p", "no:cacheprovider", noop_file], noop_folder)],
        ),
        Job("floor: read + json.loads", label, [Command([*py, FLOOR_JSON, *ct], clean.root)]),
        Job("handoff-lint clean", label, [Command([tools.handoff_lint, *ct], clean.root)], cleared(clean)),
        # Only what check-jsonschema checks (parse, encoding, schema): the cost of the contract rules
        # is the difference to the row above.
        Job(
            "handoff-lint clean, schema only (--select HF,HS)",
            label,
            [Command([tools.handoff_lint, "--select", "HF,HS", *ct], clean.root)],
            cleared(clean),
        ),
        Job(
            "handoff-lint all broken",
            label,
            [Command([tools.handoff_lint, *bt], broken.root, broken_codes)],
            cleared(broken),
        ),
        Job("pytest --handoffs clean", label, [Command([*pytest, *ct], clean.root)], cleared(clean)),
        *(
            [
                Job(XDIST, label, [Command([*pytest, "-n", "2", *ct], clean.root)], cleared(clean)),
                # What xdist itself costs for one item per chain on two workers, before any checking.
                Job(
                    XDIST_NOOP,
                    label,
                    [Command([tools.pytest, "-q", "-p", "no:cacheprovider", "-n", "2", noop_file], noop_folder)],
                ),
            ]
            if size >= 4 and has_xdist(tools)
            else []
        ),
        Job(
            "pytest --handoffs all broken",
            label,
            [Command([*pytest, *bt], broken.root, broken_codes)],
            cleared(broken),
        ),
    ]
    if size >= 4:
        # Every file named, as `pre-commit run --all-files` passes them (split like xargs):
        # the same work as naming the folder, so it should cost about the same.
        named = [str(path.relative_to(clean.root)) for path in clean.files()]
        jobs.append(
            Job(
                NAMED_ALL,
                label,
                [Command(argv, clean.root) for argv in chunked([tools.handoff_lint], named, arg_budget(ENV))],
                cleared(clean),
            )
        )
    if with_cj:
        jobs.append(Job("check-jsonschema (4 schemas, summed)", label, cj_commands(tools, clean, size)))
    return jobs


#: The row of handoff-lint with every file of the tree named.
NAMED_ALL = "handoff-lint clean, every file named (pre-commit --all-files)"
#: The row of pytest --handoffs on two xdist workers.
XDIST = "pytest --handoffs -n 2 clean"
#: The row of pytest's no-op items on two xdist workers: xdist's own cost.
XDIST_NOOP = "floor: pytest -n 2, one no-op item per chain"


def has_xdist(tools: Tools) -> bool:
    """True when the measured pytest has pytest-xdist."""
    probe = [tools.python, "-c", "import xdist"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def cache_runs(tools: Tools, size: int, tree: Tree, repeat: int) -> dict[str, Any]:
    """Cold and warm runs with the tools' result caches on: (clear, cold, warm) x (1 + repeat)."""
    ct = targets_for(tree, size)
    variants: dict[str, list[str]] = {
        "pytest --handoffs -p cacheprovider": [tools.pytest, "--handoffs", "-q", "-p", "cacheprovider", *ct],
    }
    if tools.lint_cache_flag:
        variants["handoff-lint --cache-dir"] = [
            tools.handoff_lint,
            "--cache-dir",
            str(tree.root / ".handoff_cache"),
            *ct,
        ]
    results: dict[str, Any] = {}
    for name, argv in variants.items():
        cold_job = Job(f"{name} cold", str(size), [Command(argv, tree.root)])
        warm_job = Job(f"{name} warm", str(size), [Command(argv, tree.root)])
        cached = False
        for round_ in range(repeat + 1):
            clear_artefacts(tree.root)
            cold = cold_job.run_once()
            cached = cached or has_handoff_cache(tree.root)
            warm = warm_job.run_once()
            if cold is None or warm is None:
                break
            if round_ == 0:
                cold_job.warmup_ms, warm_job.warmup_ms = cold, warm
            else:
                cold_job.runs_ms.append(cold)
                warm_job.runs_ms.append(warm)
        clear_artefacts(tree.root)
        cold_ms, warm_ms = cold_job.median, warm_job.median
        ratio = warm_ms / cold_ms if cold_ms and warm_ms is not None else None
        results[name] = {
            "has_cache": cached,
            "cold": cold_job.as_dict(),
            "warm": warm_job.as_dict(),
            "warm_over_cold": ratio,
        }
        shown = (
            "error " + (cold_job.errors + warm_job.errors)[0]
            if ratio is None
            else (
                f"cold {cold_ms:,.0f} ms, warm {warm_ms:,.0f} ms, warm/cold {ratio:.2f}, "
                f"cache {'found' if cached else 'not found'}"
            )
        )
        log(f"  {name} [{size}]: {shown}")
    return results


def memory_runs(tools: Tools, workdir: Path, sizes: list[int], seed: int) -> dict[str, Any]:
    """Peak RSS of handoff-lint (and, for scale, the read+json floor) on clean trees."""
    out: dict[str, Any] = {}
    for size in sizes:
        tree = ensure_tree(workdir, "clean", max(1, math.ceil(size / 4)), seed)
        targets = targets_for(tree, size)
        clear_artefacts(tree.root)
        peak_rss(tools.python, [tools.handoff_lint, *targets], tree.root)  # warm-up (page cache, .pyc)
        lint_ms, lint_mb, lint_rc = peak_rss(tools.python, [tools.handoff_lint, *targets], tree.root)
        floor_ms, floor_mb, floor_rc = peak_rss(
            tools.python, [tools.python, "-c", FLOOR_JSON, *targets], tree.root
        )
        out[str(size)] = {
            "files": 4 * tree.chains if size >= 4 else size,
            "handoff_lint": {"max_rss_mb": round(lint_mb, 1), "wall_ms": round(lint_ms, 1), "exit": lint_rc},
            "json_floor": {"max_rss_mb": round(floor_mb, 1), "wall_ms": round(floor_ms, 1), "exit": floor_rc},
        }
        log(
            f"  peak RSS [{size}]: handoff-lint {lint_mb:,.1f} MB ({lint_ms:,.0f} ms, exit {lint_rc}), "
            f"read+json floor {floor_mb:,.1f} MB"
        )
    _, bare_mb, _ = peak_rss(tools.python, [tools.python, "-c", "pass"], workdir)
    out["python -c pass"] = {"max_rss_mb": round(bare_mb, 1)}
    return out


# --- verdicts and tables ------------------------------------------------------------------------


def judge(results: dict[str, Any], sizes: list[int], memory_sizes: list[int]) -> list[dict[str, Any]]:
    timings = results["timings"]

    def median(name: str, size: int | str) -> float | None:
        entry = timings.get(name, {}).get(str(size))
        return None if entry is None else entry["median_ms"]

    big = 10000 if 10000 in sizes else max((s for s in sizes if s >= 4), default=None)
    one = 1 if 1 in sizes else None
    verdicts: list[dict[str, Any]] = []

    def add(
        name: str,
        value: float | None,
        target: str,
        ok: Callable[[float], bool],
        unit: str = "x",
        note: str = "",
    ) -> None:
        verdicts.append(
            {
                "name": name,
                "value": None if value is None else round(value, 3),
                "unit": unit,
                "target": target,
                "result": "N/A" if value is None else ("PASS" if ok(value) else "FAIL"),
                "note": note,
            }
        )

    def info(name: str, value: float | None, unit: str = "x") -> None:
        """A figure shown next to the targets, judged by none."""
        add(name, value, "-", lambda v: True, unit=unit)
        verdicts[-1]["result"] = "info"

    def ratio(a: float | None, b: float | None) -> float | None:
        return a / b if a is not None and b else None

    cj = "check-jsonschema (4 schemas, summed)"
    if big is not None:
        k = f"{big // 1000}k" if big >= 1000 else str(big)
        add(
            f"check-jsonschema {k} / handoff-lint {k}, all rules (speed-up)",
            ratio(median(cj, big), median("handoff-lint clean", big)),
            ">= 4x",
            lambda v: v >= 4,
        )
        add(
            f"check-jsonschema {k} / handoff-lint --select HF,HS {k}, schema rules only (speed-up)",
            ratio(median(cj, big), median("handoff-lint clean, schema only (--select HF,HS)", big)),
            ">= 10x",
            lambda v: v >= 10,
        )
        add(
            f"handoff-lint {k} / read+json.loads floor {k}",
            ratio(median("handoff-lint clean", big), median("floor: read + json.loads", big)),
            "<= 4x",
            lambda v: v <= 4,
        )
        add(
            f"check-jsonschema {k} / pytest --handoffs {k} (speed-up)",
            ratio(median(cj, big), median("pytest --handoffs clean", big)),
            ">= 4x",
            lambda v: v >= 4,
        )
        noop, lint = median("floor: pytest, one no-op item per chain", big), median("handoff-lint clean", big)
        add(
            f"pytest --handoffs {k} / (pytest's no-op items + handoff-lint) {k}",
            ratio(median("pytest --handoffs clean", big), None if noop is None or lint is None else noop + lint),
            "<= 1.15x",
            lambda v: v <= 1.15,
        )
        add(
            f"pytest --handoffs -n 2 {k} / pytest --handoffs {k} (xdist helps)",
            ratio(median(XDIST, big), median("pytest --handoffs clean", big)),
            "<= 1x",
            lambda v: v <= 1.0,
        )
        # Serial runs already check on every core: under xdist the items' own cost is what can grow.
        noop_xdist = median(XDIST_NOOP, big)
        info(
            f"pytest -n 2 / pytest, one no-op item per chain {k} (xdist's own cost, nothing checked)",
            ratio(noop_xdist, noop),
        )
        info(
            f"pytest --handoffs -n 2 {k} less pytest --handoffs {k}, over xdist's own extra on no-op items",
            None
            if noop_xdist is None or noop is None or median(XDIST, big) is None or median("pytest --handoffs clean", big) is None
            else ratio(median(XDIST, big) - median("pytest --handoffs clean", big), noop_xdist - noop),
        )
        info(
            f"check-jsonschema {k} / pytest with one no-op item per chain {k} (best any plugin can do)",
            ratio(median(cj, big), median("floor: pytest, one no-op item per chain", big)),
        )
        add(
            f"pytest --handoffs {k}: all broken / clean",
            ratio(median("pytest --handoffs all broken", big), median("pytest --handoffs clean", big)),
            "<= 3x",
            lambda v: v <= 3,
        )
        add(
            f"handoff-lint {k}: every file named / the folder named",
            ratio(median(NAMED_ALL, big), median("handoff-lint clean", big)),
            "<= 1.5x",
            lambda v: v <= 1.5,
        )
        info(
            f"handoff-lint {k}: all broken / clean",
            ratio(median("handoff-lint all broken", big), median("handoff-lint clean", big)),
        )
        cache = results.get("cache", {}).get(str(big), {})
        pytest_cache = cache.get("pytest --handoffs -p cacheprovider")
        if pytest_cache is not None:
            info(
                f"pytest with one no-op item per chain {k} / pytest --handoffs cold {k} (best warm / cold possible)",
                ratio(
                    median("floor: pytest, one no-op item per chain", big), pytest_cache["cold"]["median_ms"]
                ),
            )
        # The target applies to whichever tool keeps a result cache; one without is shown only.
        for name, c in cache.items():
            add(f"{name} {k}: warm / cold", c["warm_over_cold"], "<= 0.2x (1/5)", lambda v: v <= 0.2)
            if not c["has_cache"] and verdicts[-1]["result"] != "N/A":
                verdicts[-1]["result"] = "no cache"
                verdicts[-1]["note"] = "no handoff result cache found after the cold run"
        if cache and not any(c["has_cache"] for c in cache.values()):
            add(
                f"warm re-run with a result cache {k}",
                None,
                "<= 0.2x (1/5)",
                lambda v: False,
                note="neither tool left a result cache",
            )
            verdicts[-1]["result"] = "FAIL"
    if one is not None:
        add(
            "handoff-lint 1 file / check-jsonschema 1 file",
            ratio(median("handoff-lint clean", one), median(cj, one)),
            "<= 0.25x",
            lambda v: v <= 0.25,
        )
        add(
            "handoff-lint 1 file / python -c pass",
            ratio(median("handoff-lint clean", one), median("python -c pass", "-")),
            "<= 4x",
            lambda v: v <= 4,
        )
    memory = results.get("memory", {})
    if "10000" in memory and "50000" in memory:
        growth = (
            memory["50000"]["handoff_lint"]["max_rss_mb"] - memory["10000"]["handoff_lint"]["max_rss_mb"]
        ) / 4
        info(
            "handoff-lint peak RSS growth, 10k -> 50k files (per 10k files)",
            growth,
            unit=" MB",
        )
    if "10000" in memory:
        add(
            "handoff-lint peak RSS at 10k files",
            memory["10000"]["handoff_lint"]["max_rss_mb"],
            "< 300 MB",
            lambda v: v < 300,
            unit=" MB",
        )
    return verdicts


def fmt_ms(value: float | None) -> str:
    return "error" if value is None else f"{value:,.1f}"


def spread(entry: dict[str, Any]) -> str:
    """A timing's median with its fastest and slowest run: ``68.2 (66.0-71.9)``."""
    runs = entry.get("runs_ms") or []
    if entry.get("median_ms") is None or not runs:
        return fmt_ms(entry.get("median_ms"))
    return f"{fmt_ms(entry['median_ms'])} ({min(runs):,.1f}-{max(runs):,.1f})"


def fmt_value(v: dict[str, Any]) -> str:
    if v["value"] is None:
        return "-"
    return f"{v['value']:.1f}{v['unit']}" if v["unit"] == " MB" else f"{v['value']:.2f}{v['unit']}"


def tables(results: dict[str, Any], sizes: list[int]) -> dict[str, list[list[str]]]:
    """Rows (header first) of the timing, cache, ratio and memory tables."""
    timings = results["timings"]
    header = ["ms: median (min-max)", *[size_label(s) for s in sizes]]
    timing_rows = [header]
    for name, per_size in timings.items():
        if "-" in per_size:
            timing_rows.append([name, *[spread(per_size["-"]) if i == 0 else "" for i in range(len(sizes))]])
            continue
        timing_rows.append([name, *[spread(per_size[str(s)]) if str(s) in per_size else "-" for s in sizes]])
    cache_rows = [["cache (median ms)", "size", "cold", "warm", "warm/cold", "cache found"]]
    for size, variants in results.get("cache", {}).items():
        for name, c in variants.items():
            ratio = "-" if c["warm_over_cold"] is None else f"{c['warm_over_cold']:.2f}"
            cache_rows.append(
                [
                    name,
                    size_label(int(size)),
                    fmt_ms(c["cold"]["median_ms"]),
                    fmt_ms(c["warm"]["median_ms"]),
                    ratio,
                    "yes" if c["has_cache"] else "no",
                ]
            )
    ratio_rows = [["ratio", "value", "target", "result"]]
    for v in results["verdicts"]:
        note = f" ({v['note']})" if v["note"] else ""
        ratio_rows.append([v["name"], fmt_value(v), v["target"], v["result"] + note])
    memory_rows = [["peak RSS", "files", "handoff-lint MB", "handoff-lint ms", "read+json floor MB"]]
    for size, m in results.get("memory", {}).items():
        if size == "python -c pass":
            continue
        memory_rows.append(
            [
                size_label(int(size)),
                f"{m['files']:,}",
                f"{m['handoff_lint']['max_rss_mb']:,.1f}",
                f"{m['handoff_lint']['wall_ms']:,.0f}",
                f"{m['json_floor']['max_rss_mb']:,.1f}",
            ]
        )
    if "python -c pass" in results.get("memory", {}):
        memory_rows.append(
            ["python -c pass", "-", "-", "-", f"{results['memory']['python -c pass']['max_rss_mb']:.1f}"]
        )
    return {"timings": timing_rows, "cache": cache_rows, "ratios": ratio_rows, "memory": memory_rows}


def plain(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] + ["---:"] * (len(rows[0]) - 1)) + "|"]
    out.extend("| " + " | ".join(c or " " for c in row) + " |" for row in rows[1:])
    return "\n".join(out)


# --- main ---------------------------------------------------------------------------------------------


def int_list(text: str) -> list[int]:
    values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("expected positive integers separated by commas")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int_list,
        default=[1, 1000, 10000],
        help="file counts to time (below 4: that many files of one chain; else N/4 chains)",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per measurement (median; default 5)"
    )
    parser.add_argument(
        "--memory-sizes",
        type=int_list,
        default=[1000, 10000, 50000],
        help="file counts for handoff-lint's peak RSS",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "pytest-handoff-bench",
        help="where generated trees are kept and reused (default: $TMPDIR/pytest-handoff-bench)",
    )
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument(
        "--bin-dir", help="bin folder with handoff-lint, pytest and python (default: this venv's)"
    )
    parser.add_argument("--check-jsonschema", help="use this check-jsonschema instead of the benchmarks venv")
    parser.add_argument("--skip-check-jsonschema", action="store_true", help="do not time check-jsonschema")
    parser.add_argument("--skip-cache", action="store_true", help="do not time cold/warm runs with caches")
    parser.add_argument(
        "--output", type=Path, default=RESULTS, help="results JSON (default benchmarks/results.json)"
    )
    parser.add_argument("--chart", type=Path, help="also draw the ratios against their targets as a PNG (matplotlib)")
    parser.add_argument(
        "--snapshot",
        action="store_true",
        help="measure a copy of pytest_handoff/ taken at the start (the package may be edited meanwhile)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sizes = sorted(set(args.sizes))
    memory_sizes = sorted(set(args.memory_sizes))
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)

    bin_dir = find_tool_dir(args.bin_dir)
    cj = None if args.skip_check_jsonschema else str(ensure_check_jsonschema(args.check_jsonschema))
    lint_help = subprocess.run(
        [str(bin_dir / "handoff-lint"), "--help"], capture_output=True, text=True, env=ENV
    )
    tools = Tools(
        python=str(bin_dir / "python"),
        handoff_lint=str(bin_dir / "handoff-lint"),
        pytest=str(bin_dir / "pytest"),
        check_jsonschema=cj,
        lint_cache_flag="--cache-dir" in lint_help.stdout,
    )
    snapshot = None
    if args.snapshot:
        snapshot = snapshot_package(workdir, tools.python, tools.handoff_lint, tools.pytest)
        log(f"measuring the snapshot {snapshot['path']} ({snapshot['sha256']})")
    started_at = datetime.now(timezone.utc)
    results: dict[str, Any] = {
        "meta": {
            "started": started_at.isoformat(timespec="seconds"),
            "python": version_of([tools.python, "--version"]),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "handoff_lint": version_of([tools.handoff_lint, "--version"]),
            "pytest": version_of([tools.pytest, "--version"]),
            "check_jsonschema": version_of([cj, "--version"]) if cj else "skipped",
            "repo": git_state(),
            "bin_dir": str(bin_dir),
            "workdir": str(workdir),
            "package_snapshot": snapshot,
        },
        "params": {"sizes": sizes, "repeat": args.repeat, "memory_sizes": memory_sizes, "seed": args.seed},
        "timings": {},
        "cache": {},
        "memory": {},
    }
    log(f"handoff-lint: {results['meta']['handoff_lint']} ({tools.handoff_lint})")
    log(f"check-jsonschema: {results['meta']['check_jsonschema']}")

    for size in sizes:
        chains = max(1, math.ceil(size / 4))
        log(f"size {size_label(size)} ({chains} chain{'s' if chains != 1 else ''}):")
        clean = ensure_tree(workdir, "clean", chains, args.seed)
        broken = ensure_tree(workdir, "broken", chains, args.seed)
        jobs = main_jobs(tools, size, clean, broken, with_cj=cj is not None, empty=empty_project(workdir))
        # Runs of one file take a few tens of milliseconds, where a shared machine's noise is
        # largest: more rounds cost little and steady the medians.
        run_jobs(jobs, args.repeat if size >= 4 else max(args.repeat, SMALL_REPEAT))
        for job in jobs:
            slot = results["timings"].setdefault(job.name, {})
            if job.size == "-" and "-" in slot:  # size-independent: pool the runs of every size
                previous = slot["-"]
                runs = previous["runs_ms"] + [round(t, 2) for t in job.runs_ms]
                slot["-"] = {
                    **job.as_dict(),
                    "runs_ms": runs,
                    "median_ms": statistics.median(runs) if runs and not job.errors else None,
                }
            else:
                slot[job.size] = job.as_dict()
            if job.size != "-":
                slot[job.size]["files"] = size if size < 4 else 4 * chains
        if not args.skip_cache:
            results["cache"][str(size)] = cache_runs(tools, size, clean, args.repeat)

    log("peak memory:")
    results["memory"] = memory_runs(tools, workdir, memory_sizes, args.seed)
    results["verdicts"] = judge(results, sizes, memory_sizes)
    results["meta"]["seconds"] = round((datetime.now(timezone.utc) - started_at).total_seconds(), 1)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")

    rows = tables(results, sizes)
    print(
        f"\nhandoff-lint {results['meta']['handoff_lint']}, {results['meta']['python']}, "
        f"{results['meta']['cpus']} CPUs, repeat {args.repeat} (median after 1 warm-up)\n"
    )
    for key in ("timings", "cache", "ratios", "memory"):
        if len(rows[key]) > 1:
            print(plain(rows[key]) + "\n")
    print(f"results written to {args.output}\n")
    print("## Markdown\n")
    for key in ("timings", "cache", "ratios", "memory"):
        if len(rows[key]) > 1:
            print(markdown(rows[key]) + "\n")
    failed = [v["name"] for v in results["verdicts"] if v["result"] == "FAIL"]
    print(f"{len(failed)} target(s) failed" + (": " + "; ".join(failed) if failed else ""))
    if args.chart is not None:
        draw_chart(results["verdicts"], args.chart)
    return 0


def draw_chart(verdicts: list[dict[str, Any]], path: Path) -> None:
    """Each judged ratio as a bar, as a share of its target (1.0 is the target; left of it is met)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("no chart: matplotlib is not installed (pip install matplotlib)")
        return
    rows = []
    for v in verdicts:
        target = v["target"].split(" (")[0].rstrip("x")
        if v["value"] is None or v["result"] not in ("PASS", "FAIL") or v["unit"] != "x":
            continue
        bound = float(target.split()[-1])
        # "<= 4x": value / 4; ">= 10x" (a speed-up): 10 / value. Either way, under 1 meets it.
        share = v["value"] / bound if target.startswith("<=") else bound / v["value"]
        rows.append((v["name"], share, v["result"]))
    figure, axes = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.2))
    names = [name for name, _, _ in rows][::-1]
    shares = [share for _, share, _ in rows][::-1]
    colours = ["#2e7d32" if result == "PASS" else "#c62828" for _, _, result in rows][::-1]
    axes.barh(names, shares, color=colours)
    axes.axvline(1.0, color="black", linewidth=1)
    axes.set_xlabel("share of the target (at most 1 meets it)")
    axes.tick_params(axis="y", labelsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    log(f"chart written to {path}")


if __name__ == "__main__":
    sys.exit(main())
