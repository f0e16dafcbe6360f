"""The command line of ``handoff-lint`` (the linter's own arguments; subcommands have theirs)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pytest_handoff.reporters import REPORTERS

#: The output formats: the reporter table's names.
FORMATS = tuple(REPORTERS)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized from the terminal without importing shutil.

    argparse makes a formatter for every argument it adds, and the default one imports shutil
    (and through it bz2 and lzma) for the width: milliseconds of every pre-commit run.
    """

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24) -> None:
        super().__init__(prog, indent_increment, max_help_position, width=max(_terminal_columns() - 2, 20))


def _terminal_columns() -> int:
    """What shutil.get_terminal_size() gives: $COLUMNS, else the terminal's width, else 80."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint",
        formatter_class=_HelpFormatter,
        description="Check agent handoff files (NeuralRelay ...) against their contracts. "
        "'handoff-lint explain CODE' prints a rule's documentation; 'handoff-lint rules' lists them; "
        "'handoff-lint chain|report|show|schema export' read handoffs (see each one's --help); "
        "'handoff-lint claims -' checks the claims of work done in a report on stdin (or a file); "
        "'handoff-lint init claude' writes the Claude Code hook into .claude/settings.json.",
    )
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the whole project)")
    parser.add_argument(
        "--format", choices=FORMATS, default=None, help="output format on stdout (default text)"
    )
    parser.add_argument(
        "--output",
        action="append",
        default=[],
        metavar="FORMAT=FILE",
        help="also write FORMAT to FILE (repeatable), e.g. --output sarif=handoffs.sarif",
    )
    parser.add_argument("--select", help="only these codes or prefixes, comma-separated")
    parser.add_argument("--ignore", help="skip these codes or prefixes, comma-separated")
    parser.add_argument(
        "--severity",
        choices=("info", "warning", "error"),
        help="report findings of this severity and above (default: all)",
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.handoff] from")
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="read the named files as this format (neuralrelay, craik, ralph, yolo, trinity, contracts, "
        "or a plugin's); with no paths, check only this format's files (and its default sources, e.g. "
        "Craik's store)",
    )
    parser.add_argument(
        "--evidence",
        action="store_true",
        help="check handoffs' claims against the repository: files, commits, locations, tests (EV rules); "
        "the default in a git repository",
    )
    parser.add_argument(
        "--no-evidence",
        action="store_true",
        help="do not check handoffs' claims against the repository (as evidence = false)",
    )
    parser.add_argument(
        "--evidence-junit",
        metavar="PATH",
        help="a JUnit XML report (pytest --junitxml) to reconcile the handoffs' test claims with; implies --evidence",
    )
    parser.add_argument(
        "--whole-chain",
        action="store_true",
        help="report every finding of a named file's chain, not only the named file's",
    )
    parser.add_argument(
        "--skip-unclaimed",
        action="store_true",
        help="leave out named files no format claims, silently (for hooks that pass files by a coarse "
        "pattern: a prd.json of no Ralph session, an application's logs/*.log); without it, each is HF005",
    )
    parser.add_argument(
        "--staged-deletions",
        action="store_true",
        help="also check the chains that git's staged deletions take a file from (with pre-commit's "
        "--from-ref/--to-ref: the range's deletions); the hook's mode, where named files are only "
        "those added or changed. Without paths, nothing else is checked",
    )
    parser.add_argument(
        "--changed-since",
        metavar="BASE",
        help="check only the handoffs added, changed or deleted since BASE (a pull request's base "
        "commit; needs the history), each in its chain",
    )
    parser.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default="error",
        help="the severity that makes the exit status 1 (default error)",
    )
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="check only the K-th of N shards of the groups (split by a stable hash of each group; "
        "the N shards together are the whole run)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="report only findings this baseline does not know (as baseline = FILE under [tool.handoff])",
    )
    parser.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help="record every finding of this run in FILE (secrets masked) and exit 0; findings fixed since "
        "are dropped from it",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="keep results of unchanged chains here and skip re-checking them (default: no cache)",
    )
    parser.add_argument(
        "--jobs",
        type=_positive_int,
        default=None,
        metavar="N",
        help="processes for large trees (default: one per core; 1 to stay in one process)",
    )
    parser.add_argument(
        "--no-ci-output",
        action="store_true",
        help="in GitHub Actions, do not add annotations and the step summary (e.g. when writing SARIF)",
    )
    parser.add_argument(
        "--stdin-filename",
        type=Path,
        metavar="PATH",
        help="check content read from stdin as if it stood at PATH, in its chain on disk (give '-' as the path)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return parser


def _positive_int(text: str) -> int:
    """``--jobs``: a whole number of at least 1."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def _version() -> str:
    from pytest_handoff.version import __version__

    return __version__
