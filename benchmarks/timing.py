"""Running measured commands: a clean environment, timed jobs with retries, peak RSS.

Shared by ``run.py`` and ``formats.py``; standard library only.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CJ_VENV = HERE / ".venv-check-jsonschema"


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
                    f"{' '.join(a if len(a) < 80 else '<script>' for a in command.argv[:4])} ...: {' | '.join(tail)}"
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
