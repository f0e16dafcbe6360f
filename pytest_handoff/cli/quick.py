"""The linter's common command lines read without argparse.

A pre-commit hook or an agent's hook runs ``handoff-lint [flags] FILE...`` thousands of times a
day; importing argparse (and the gettext and locale it loads) is about a tenth of such a run.
Only paths, the plain switches and ``--format NAME`` are read here; anything else, and every
mistake, goes to the full parser (:func:`pytest_handoff.cli.options.build_parser`), which says
what is wrong. A test holds ``DEFAULTS`` to the full parser's.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_handoff.reporters import REPORTERS

#: Every option's value when not given, as the full parser has it.
DEFAULTS: dict[str, Any] = {
    "baseline": None, "cache_dir": None, "changed_since": None, "config": None, "evidence": False,
    "evidence_junit": None, "fail_on": "error", "format": None, "ignore": None, "jobs": None,
    "no_ci_output": False, "no_evidence": False, "output": [], "paths": [], "profile": None,
    "select": None, "severity": None, "shard": None, "skip_unclaimed": False, "staged_deletions": False,
    "stdin_filename": None, "whole_chain": False, "write_baseline": None,
}  # fmt: skip

_SWITCHES = {
    "--evidence": "evidence",
    "--no-evidence": "no_evidence",
    "--no-ci-output": "no_ci_output",
    "--skip-unclaimed": "skip_unclaimed",
    "--staged-deletions": "staged_deletions",
    "--whole-chain": "whole_chain",
}


def quick_options(argv: list[str]) -> SimpleNamespace | None:
    """The options of ``argv`` when it holds only paths, switches and ``--format NAME``; else None."""
    values = {**DEFAULTS, "output": [], "paths": []}
    paths_only = False
    paths_ended = False  # argparse takes the paths in one run: a path after a switch after paths is refused
    index = 0
    while index < len(argv):
        word = argv[index]
        if paths_only or not word.startswith("-"):
            if paths_ended and not paths_only:
                return None
            values["paths"].append(Path(word))
        elif word == "--":
            paths_only = True
        elif word in _SWITCHES:
            values[_SWITCHES[word]] = True
            paths_ended = bool(values["paths"])
        elif word.startswith("--format=") and word[len("--format=") :] in REPORTERS:
            values["format"] = word[len("--format=") :]
            paths_ended = bool(values["paths"])
        elif word == "--format" and index + 1 < len(argv) and argv[index + 1] in REPORTERS:
            values["format"] = argv[index + 1]
            paths_ended = bool(values["paths"])
            index += 1
        else:
            return None
        index += 1
    return SimpleNamespace(**values)
