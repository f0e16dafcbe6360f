"""``handoff-lint``: the engine on the command line and as a pre-commit hook.

The CLI only parses arguments into settings; discovery, checks and reporters
are the ones the pytest plugin uses.  Exit codes: 0 clean, 1 findings of error
severity, 2 usage or internal error (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

FORMATS = ("text", "json", "sarif", "github", "markdown")


class UsageError(Exception):
    """A problem with the command line or configuration."""


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
        "'handoff-lint chain|report|show|schema export' read handoffs (see each one's --help).",
    )
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders (default: discover under .)")
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
        "--whole-chain",
        action="store_true",
        help="report every finding of a named file's chain, not only the named file's",
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="keep results of unchanged chains here and skip re-checking them (default: no cache)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="processes for large trees (default: one per core; 1 to stay in one process)",
    )
    parser.add_argument(
        "--no-ci-output",
        action="store_true",
        help="in GitHub Actions, do not add annotations and the step summary (e.g. when writing SARIF)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return parser


def _version() -> str:
    from pytest_handoff import __version__

    return __version__


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args[:1] == ["explain"]:
            return explain(args[1:])
        if args[:1] == ["rules"]:
            return list_rules()
        if args[:1] and args[0] in ("chain", "report", "show", "schema"):
            from pytest_handoff.views import run_command

            return run_command(args[0], args[1:])
        return lint(args)
    except UsageError as error:
        print(f"handoff-lint: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 2
    except Exception as error:  # never a traceback for users; the message says what broke
        print(f"handoff-lint: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2


def lint(argv: list[str]) -> int:
    from pytest_handoff.config import ConfigError, load_settings

    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 2
    root = Path.cwd()
    overrides = {key: getattr(options, key) for key in ("select", "ignore") if getattr(options, key)}
    if options.severity:
        overrides["threshold"] = options.severity
    try:
        settings = load_settings(root, options.config).merged(overrides, "command line")
        if settings.select or settings.ignore or settings.severities:
            from pytest_handoff.engine import known_codes

            settings.check_codes(known_codes())
    except ConfigError as error:
        raise UsageError(str(error)) from None
    cache = None
    if options.cache_dir is not None:
        from pytest_handoff.cache import ResultCache

        cache = ResultCache(options.cache_dir, settings.fingerprint(), keep_notes=False)

    outputs = _parse_outputs(options.output)
    from pytest_handoff.engine import check_paths

    progress = None
    if sys.stderr.isatty():  # hooks, CI and pipes pay nothing for the bar
        from pytest_handoff.views.progress import progress_bar

        progress = progress_bar(options.format or "text")
    discovery, results = check_paths(
        options.paths,
        root,
        settings,
        whole_chain=options.whole_chain,
        cache=cache,
        jobs=options.jobs,
        progress=progress,
    )
    if cache is not None:
        cache.flush()
    if discovery.missing:
        raise UsageError(f"no such file or folder: {', '.join(discovery.missing)}")

    in_actions = os.environ.get("GITHUB_ACTIONS") == "true" and not options.no_ci_output
    stdout_format = options.format or "text"
    with ExitStack() as stack:
        streams: list[tuple[str, TextIO]] = [(stdout_format, sys.stdout)]
        for name, target in outputs:
            try:
                streams.append((name, stack.enter_context(target.open("w", encoding="utf-8"))))
            except OSError as error:
                raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
        if in_actions and stdout_format != "github":
            streams.append(("github", sys.stdout))
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if in_actions and step_summary:
            streams.append(("markdown", stack.enter_context(open(step_summary, "a", encoding="utf-8"))))
        from pytest_handoff.reporters import write_reports

        write_reports(results, streams, root)
    return 1 if any(result.failed for result in results) else 0


def _parse_outputs(values: list[str]) -> list[tuple[str, Path]]:
    outputs = []
    for value in values:
        name, sep, file = value.partition("=")
        if not sep or name not in FORMATS or not file:
            raise UsageError(
                f"--output takes FORMAT=FILE with FORMAT one of {', '.join(FORMATS)}, got {value!r}"
            )
        outputs.append((name, Path(file)))
    return outputs


def explain(codes: list[str]) -> int:
    from pytest_handoff.profiles import all_profiles
    from pytest_handoff.rules import RULES

    all_profiles()  # registers every profile's rules
    import pytest_handoff.core_rules  # noqa: F401

    if not codes:
        raise UsageError("explain takes a rule code, e.g. handoff-lint explain NR301")
    for code in codes:
        rule = RULES.get(code.upper())
        if rule is None:
            raise UsageError(f"unknown rule {code!r}; 'handoff-lint rules' lists them")
        print(f"{rule.code} {rule.name} (default severity: {rule.severity.label})\n")
        print(rule.doc)
    return 0


def list_rules() -> int:
    from pytest_handoff.profiles import all_profiles
    from pytest_handoff.rules import RULES

    all_profiles()
    import pytest_handoff.core_rules  # noqa: F401

    for code in sorted(RULES):
        rule = RULES[code]
        print(f"{code:7} {rule.name:30} {rule.severity.label:8} {rule.summary}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
