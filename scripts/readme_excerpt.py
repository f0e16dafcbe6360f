"""Write the README's excerpt of the first command's output from a real run, or check it.

The README's Quick start shows part of what its first command, ``pytest --handoffs examples/``,
prints from the repository root. This script runs that command (``python -m pytest`` of this
interpreter, 80 columns, outside CI, with ``-p no:cacheprovider`` so that no ``.pytest_cache`` is
written; none of that changes the lines kept) and puts the excerpt between the README's markers
``<!-- first-run:start -->`` and ``<!-- first-run:end -->``, as a code block.

What is kept, verbatim and in order: from ``collected N items`` to the end of the progress lines
(one line per checked item); the FAILURES header; for each format (``examples/<format>/``) the
first failing item's section, up to the end of its first finding; the final summary line. ``…``
stands for each cut. One thing is normalised: the run's duration in the summary line, which differs
on every run, is written ``X.XXs``, the line centred again as pytest centres it.

    python scripts/readme_excerpt.py           # rewrite the block in README.md and docs/getting-started.md
    python scripts/readme_excerpt.py --check   # exit 1 when a page's block is not a fresh run's

``tests/test_examples.py`` fails when the README's block differs from a fresh run's.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
#: Every page that shows the excerpt between the markers: the README's Quick start, and the site's.
PAGES = (README, REPO / "docs" / "getting-started.md")
#: The command as the README shows it.
COMMAND = ("pytest", "--handoffs", "examples/")
START = "<!-- first-run:start -->"
END = "<!-- first-run:end -->"
WIDTH = 80
CUT = "…"
#: Variables that change what pytest or the plugin print (CI annotations, colours, extra options).
UNSET = (
    "CI", "BUILD_NUMBER", "FORCE_COLOR", "PY_COLORS", "NO_COLOR",
    "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
)  # fmt: skip

_SECTION = re.compile(r"^_{3,} .+ _{3,}$")
_BANNER = re.compile(r"^={3,} (?P<title>.+) ={3,}$")
_DURATION = re.compile(r" in \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?$")
_FORMAT = re.compile(r"^examples/(?P<format>[^/]+)/")


def run_first_command(repo: Path = REPO) -> subprocess.CompletedProcess[str]:
    """The README's first command, run in ``repo`` as a user runs it in a terminal 80 columns wide."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in UNSET and not name.startswith(("GITHUB_", "PYTEST_XDIST", "PYTEST_CURRENT"))
    }
    environment["COLUMNS"] = str(WIDTH)
    return subprocess.run(
        [sys.executable, "-m", *COMMAND, "-p", "no:cacheprovider"],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


def excerpt(output: str) -> list[str]:
    """The lines of ``output`` the README shows (see the module's docstring)."""
    lines = output.splitlines()
    collected = next(i for i, line in enumerate(lines) if line.startswith("collected "))
    progress_end = next(i for i in range(collected + 2, len(lines)) if not lines[i].strip())
    kept = lines[collected:progress_end]
    failures = next(i for i, line in enumerate(lines) if _banner(line) == "FAILURES")
    kept += ["", lines[failures]]
    shown: set[str] = set()
    for start, end in _sections(lines, failures + 1):
        fmt = next((m["format"] for m in map(_FORMAT.match, lines[start:end]) if m), "")
        if fmt in shown:
            continue
        shown.add(fmt)
        kept += [*lines[start : _first_finding_end(lines, start, end)], CUT]
    return [*kept, _normalised(lines[-1])]


def _banner(line: str) -> str | None:
    match = _BANNER.match(line)
    return match["title"] if match else None


def _sections(lines: list[str], start: int) -> list[tuple[int, int]]:
    """(first, end) of each failure section, from ``start`` to the next banner."""
    end = next(i for i in range(start, len(lines)) if _banner(lines[i]) is not None)
    heads = [i for i in range(start, end) if _SECTION.match(lines[i])]
    return list(zip(heads, [*heads[1:], end], strict=True))


def _first_finding_end(lines: list[str], start: int, end: int) -> int:
    """The end of the first finding of a section: its ``  location: CODE`` line and the lines indented under it."""
    first = next(i for i in range(start, end) if lines[i].startswith("  ") and not lines[i].startswith("   "))
    after = first + 1
    while after < end and lines[after].startswith("    "):
        after += 1
    return after


def _normalised(summary: str) -> str:
    """The summary line with its duration written ``X.XXs``, centred as pytest centres it."""
    title = _banner(summary)
    if title is None or not _DURATION.search(title):
        raise ValueError(f"not pytest's summary line: {summary!r}")
    return _centred(_DURATION.sub(" in X.XXs", title))


def _centred(title: str, sep: str = "=") -> str:
    """``title`` between rows of ``sep`` as pytest writes a separator line (``TerminalWriter.sep``)."""
    count = max((WIDTH - len(title) - 2) // (2 * len(sep)), 1)
    fill = sep * count
    line = f"{fill} {title} {fill}"
    if len(line) + len(sep.rstrip()) <= WIDTH:
        line += sep.rstrip()
    return line


def rendered(output: str) -> str:
    """The README's block for a run's ``output``: the markers around a code block of the excerpt."""
    return "\n".join([START, "```", *excerpt(output), "```", END])


def block_of(page: str) -> str:
    """The block between the markers of ``page``, markers included."""
    start, end = page.find(START), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no {START} ... {END} block")
    return page[start : end + len(END)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write (or --check) the excerpt of the README's first command's run, in the README and the site."
    )
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when a page's block differs; write nothing"
    )
    options = parser.parse_args(argv)
    run = run_first_command()
    if run.returncode != 1:
        print(
            f"{' '.join(COMMAND)} exited {run.returncode}, not 1:\n{run.stdout}{run.stderr}", file=sys.stderr
        )
        return 2
    fresh = rendered(run.stdout)
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        current = block_of(text)
        if options.check:
            if current != fresh:
                print(
                    f"{page.relative_to(REPO)}'s first-run block differs from a fresh run; run scripts/readme_excerpt.py"
                )
                return 1
            continue
        page.write_text(text.replace(current, fresh), encoding="utf-8")
        print(
            f"{page.relative_to(REPO)}: wrote the excerpt of {' '.join(COMMAND)} ({len(fresh.splitlines())} lines)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
