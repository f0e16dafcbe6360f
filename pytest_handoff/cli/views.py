"""The reading views' subcommands: ``handoff-lint chain``, ``report``, ``show`` and ``schema``.

Here are their options and how each runs; what they show is drawn by :mod:`pytest_handoff.views`.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

COMMANDS = ("chain", "report", "show", "schema")


def run_command(name: str, argv: list[str]) -> int:
    """Run one view subcommand (``handoff-lint NAME ...``)."""
    main = {"chain": chain, "report": report, "show": show}.get(name, schema)
    try:
        return main(argv)
    except SystemExit as exit_:  # argparse's --help (0) and usage errors (2), as the linter exits
        return 0 if exit_.code in (0, None) else 2


def chain_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint chain",
        description="Show one handoff chain: task, stages, criteria, properties, bugs, verdict, findings.",
    )
    parser.add_argument(
        "chain",
        nargs="?",
        help="a chain id (or its unique prefix), or a chain's folder or file (default: the latest chain)",
    )
    parser.add_argument(
        "--path",
        action="append",
        type=Path,
        default=[],
        help="where to look for chains (repeatable; default: under .)",
    )
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.handoff] from")
    return parser


def chain(argv: list[str]) -> int:
    from pytest_handoff.views.chain import select, write
    from pytest_handoff.views.common import absolute, load_views, run_or_fail
    from pytest_handoff.views.progress import progress_bar

    options = chain_parser().parse_args(argv)  # --help and bad arguments: see run_command
    run = run_or_fail(options.config)
    paths = list(options.path)
    wanted = options.chain
    if wanted is not None and Path(wanted).exists():
        paths.append(Path(wanted))
        wanted = None
    # Only the chains the id can name are checked.
    chosen = None if wanted is None else (lambda ref: ref.group_id.startswith(wanted))
    views = load_views(run, absolute(paths), progress_bar(options.format), chosen)
    view = select(views, wanted)
    write(view, options.format, run.registry.modes_of)
    return 1 if view.failed else 0


def report_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint report",
        description="Across all chains: verdicts, score means and trends, rules broken most often, "
        "worst chains, rework rate, tokens.",
    )
    parser.add_argument("paths", nargs="*", type=Path, help="where to look for chains (default: under .)")
    parser.add_argument("--since", help="only chains started on or after this date (YYYY-MM-DD)")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    parser.add_argument(
        "--plot",
        type=Path,
        metavar="FILE",
        help="also draw the score trends to FILE (.png or .svg; needs the [plot] extra)",
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.handoff] from")
    return parser


def report(argv: list[str]) -> int:
    from pytest_handoff.values.errors import UsageError
    from pytest_handoff.views.common import absolute, load_views, run_or_fail
    from pytest_handoff.views.progress import progress_bar
    from pytest_handoff.views.report import build_report, report_data, sections, title
    from pytest_handoff.views.report_plot import plot

    options = report_parser().parse_args(argv)  # --help and bad arguments: see run_command
    since = None
    if options.since:
        try:
            since = date.fromisoformat(options.since)
        except ValueError:
            raise UsageError(f"--since takes a date as YYYY-MM-DD, got {options.since!r}") from None
    run = run_or_fail(options.config)
    views = load_views(run, absolute(options.paths), progress_bar(options.format))
    report = build_report(views, since, run.registry.modes_of)
    if options.plot is not None:
        plot(report, options.plot)
        print(f"handoff-lint report: plot written to {options.plot}", file=sys.stderr)
    if options.format == "json":
        from pytest_handoff.reporters.json_format import dumps_safe

        sys.stdout.write(dumps_safe(report_data(report)) + "\n")
    elif options.format == "markdown":
        from pytest_handoff.views.render import markdown_sections

        sys.stdout.write(markdown_sections(title(report), sections(report, sparklines=True)))
    else:
        from pytest_handoff.views.render import console_for, rich_sections

        rich_sections(console_for(sys.stdout), title(report), sections(report), None)
    return 0


def show_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint show", description="Render a handoff file as readable Markdown."
    )
    parser.add_argument("file", type=Path, help="a handoff file")
    parser.add_argument(
        "--markdown", action="store_true", help="print the Markdown source (default: drawn on the terminal)"
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.handoff] from")
    return parser


def show(argv: list[str]) -> int:
    from pytest_handoff.values.errors import UsageError
    from pytest_handoff.views.common import run_or_fail
    from pytest_handoff.views.show import render_document

    options = show_parser().parse_args(argv)  # --help and bad arguments: see run_command
    if not options.file.is_file():
        raise UsageError(f"no such file: {options.file}")
    rendered = render_document(run_or_fail(options.config), options.file.resolve())
    if isinstance(rendered, list):  # the file did not parse: say why, as the linter would
        for line in rendered:
            print(line, file=sys.stderr)
        return 1
    if options.markdown:
        sys.stdout.write(rendered)
    else:
        from rich.markdown import Markdown

        from pytest_handoff.views.render import console_for

        # Markdown() reads Markdown, not rich markup; the escaped text stays literal.
        console_for(sys.stdout).print(Markdown(rendered))
    return 0


def schema_parser() -> argparse.ArgumentParser:
    from pytest_handoff.views.schema_export import DEFAULT_DIR

    parser = argparse.ArgumentParser(
        prog="handoff-lint schema",
        description="'handoff-lint schema export [DIR]' writes the JSON Schemas and prints editor settings.",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    export = sub.add_parser("export", help="write the JSON Schemas to DIR and print VS Code settings")
    export.add_argument(
        "dir", nargs="?", type=Path, default=DEFAULT_DIR, help=f"target folder (default: {DEFAULT_DIR})"
    )
    export.add_argument(
        "--config", type=Path, help="a pyproject.toml to read [tool.handoff] from (for configured agents)"
    )
    return parser


def schema(argv: list[str]) -> int:
    import json

    from pytest_handoff.views.common import run_or_fail
    from pytest_handoff.views.schema_export import editor_mapping, export_schemas, vscode_schemas

    options = schema_parser().parse_args(argv)  # --help and bad arguments: see run_command
    run = run_or_fail(options.config)
    written = export_schemas(options.dir)
    mapping = editor_mapping(run)
    user = vscode_schemas(mapping, options.dir.resolve(), relative_to=None)
    workspace = vscode_schemas(mapping, options.dir, relative_to=Path.cwd())
    print(f"wrote {len(written)} schemas to {options.dir}", file=sys.stderr)
    print("// VS Code user settings (settings.json): json.schemas")
    print(json.dumps({"json.schemas": user}, indent=2))
    print("// .vscode/settings.json (paths relative to this workspace)")
    print(json.dumps({"json.schemas": workspace}, indent=2))
    return 0
