"""Draw the charts of ``handoff-lint report --plot`` that docs/views.md shows, at 4 chains and at 500.

    python scripts/report_plots.py   # rewrite docs/report-trend-4.png and docs/report-trend-500.png

Each chart is what ``handoff-lint report --plot FILE`` draws in a project of chains written by
``benchmarks/generate.py`` (seed 7, a quarter of them broken on purpose, so some fail their
contracts), run with this checkout's code. The PNG is then reduced to a palette of 64 colours, which
keeps each file small (the full-colour one is over 100 kB at 500 chains) and looks the same. Needs
the [plot] extra (matplotlib, and Pillow, which comes with it).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
SIZES = (4, 500)
COLOURS = 64


def chart(count: int) -> Path:
    return DOCS / f"report-trend-{count}.png"


def _generate(out: Path, count: int) -> None:
    spec = importlib.util.spec_from_file_location("handoff_generate", REPO / "benchmarks" / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate(out, count, broken_fraction=0.25, seed=7)


def _reduce(png: Path) -> None:
    """The same picture with at most ``COLOURS`` colours: a fraction of the bytes."""
    from PIL import Image

    with Image.open(png) as image:
        reduced = image.convert("RGB").quantize(colors=COLOURS)
    reduced.save(png, optimize=True)


def draw(count: int) -> Path:
    target = chart(count)
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        _generate(project, count)
        # This checkout's code, whatever is installed; the report itself is not wanted.
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        subprocess.run(
            [sys.executable, "-m", "pytest_handoff", "report", "--plot", str(target), "--format", "json"],
            cwd=project,
            env=env,
            stdout=subprocess.DEVNULL,
            check=True,
        )
    _reduce(target)
    return target


def main() -> int:
    for count in SIZES:
        target = draw(count)
        print(f"{target.relative_to(REPO)}: {target.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
