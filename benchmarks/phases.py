"""Where the time of one ``handoff-lint`` run goes, phase by phase.

    python benchmarks/phases.py PROJECT [handoff-lint arguments...]

Runs ``handoff-lint --jobs 1`` on PROJECT in this process under cProfile and attributes the
profile to the pipeline's phases by the functions that carry them (cumulative time of each,
outermost call only). Start-up is measured apart, as the import of the CLI in a fresh process
less ``python -c pass``. The profiler slows pure-Python code more than C code, so read the
shares, not the seconds; compare runs made side by side.
"""

from __future__ import annotations

import contextlib
import cProfile
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Phase -> (module path suffix, function name) whose cumulative time is the phase's.
PHASES: dict[str, tuple[tuple[str, str], ...]] = {
    "discovery": (("pipeline/discovery.py", "discover"),),
    "read (files)": (("pipeline/check.py", "_read_group"),),
    "parse + positions": (("profiles/base.py", "read"), ("profiles/yolo/profile.py", "read")),
    "schema": (("profiles/base.py", "validate"), ("profiles/contracts/profile.py", "validate")),
    "classify": (("profiles/neuralrelay/profile.py", "classify"), ("profiles/yolo/profile.py", "classify")),
    "rules": (("pipeline/check.py", "_place"),),
    "masking": (
        ("secrets.py", "secrets_to_mask"),
        ("pipeline/masking.py", "excerpt_sources"),
        ("pipeline/masking.py", "masked"),
    ),
    "report": (("reporters/__init__.py", "write_reports"),),
}


def startup_ms(python: str, repeat: int = 15) -> float:
    """Median milliseconds of importing the CLI in a fresh process, less ``python -c pass``."""

    def median(code: str) -> float:
        runs = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run([python, "-c", code], check=True)
            runs.append(time.perf_counter() - started)
        return statistics.median(runs) * 1000

    return median("import pytest_handoff.cli") - median("pass")


def phase_seconds(stats: pstats.Stats) -> dict[str, float]:
    """Cumulative seconds of each phase's functions, from a profile."""
    table = stats.stats  # type: ignore[attr-defined]
    found = dict.fromkeys(PHASES, 0.0)
    for (filename, _, function), (_, _, _, cumulative, _) in table.items():
        path = filename.replace(os.sep, "/")
        for phase, carriers in PHASES.items():
            if any(
                path.endswith("pytest_handoff/" + suffix) and function == name for suffix, name in carriers
            ):
                found[phase] += cumulative
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    project, extra = Path(argv[0]).resolve(), argv[1:]
    os.chdir(project)
    from pytest_handoff.cli import main as lint

    profile = cProfile.Profile()
    started = time.perf_counter()
    profile.enable()
    with contextlib.suppress(SystemExit):
        lint(["--jobs", "1", "--format", "json", *extra, "."])
    profile.disable()
    total = time.perf_counter() - started
    stats = pstats.Stats(profile, stream=open(os.devnull, "w"))  # noqa: SIM115 (kept for the process)
    phases = phase_seconds(stats)
    print(
        f"start-up (import of the CLI, less python -c pass): {startup_ms(sys.executable):.1f} ms",
        file=sys.stderr,
    )
    print(f"{'phase':20} {'seconds':>8} {'share':>6}", file=sys.stderr)
    for phase, seconds in phases.items():
        print(f"{phase:20} {seconds:8.2f} {seconds / total:6.1%}", file=sys.stderr)
    print(f"{'total (profiled)':20} {total:8.2f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
