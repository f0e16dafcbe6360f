"""``handoff-lint show FILE [--markdown]``: one handoff of any supported profile as readable Markdown.

The file is read and validated by the engine like any other (so secrets are masked and a file
that does not parse says why, with its place); any format's data renders as Markdown.
Without ``--markdown`` the Markdown is drawn on the terminal by rich.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="handoff-lint show", description="Render a handoff file as readable Markdown."
    )
    parser.add_argument("file", type=Path, help="a handoff file")
    parser.add_argument(
        "--markdown", action="store_true", help="print the Markdown source (default: drawn on the terminal)"
    )
    parser.add_argument("--config", type=Path, help="a pyproject.toml to read [tool.handoff] from")
    return parser


def main(argv: list[str]) -> int:
    from pytest_handoff.reporters.excerpt import format_findings
    from pytest_handoff.values.errors import UsageError
    from pytest_handoff.views.common import run_or_fail
    from pytest_handoff.views.markdown import document_markdown

    options = build_parser().parse_args(argv)  # --help and bad arguments: see run_command
    if not options.file.is_file():
        raise UsageError(f"no such file: {options.file}")
    run = run_or_fail(options.config)
    rendered: list[str] = []
    target = options.file.resolve()

    def render(chain: Group) -> tuple[()]:
        document = next((doc for doc in chain.documents if doc.path.resolve() == target), None)
        if document is not None:
            shown = _masked(chain, document)
            rendered.append(document_markdown(shown.name, shown.handoff_type, shown.data))
        return ()

    _, results = run.check_paths([target], (render,))
    if not rendered:  # the file did not parse: say why, as the linter would
        for result in results:
            for line in format_findings(result.findings, dict(result.sources)):
                print(line, file=sys.stderr)
        return 1
    if options.markdown:
        sys.stdout.write(rendered[0])
    else:
        from rich.markdown import Markdown

        from pytest_handoff.views.render import console_for

        # Markdown() reads Markdown, not rich markup; the escaped text stays literal.
        console_for(sys.stdout).print(Markdown(rendered[0]))
    return 0


def _masked(chain: Group, document: Document) -> Document:
    """The document with every secret of its chain masked in its data (before any escaping)."""
    from pytest_handoff.values.documents import Document
    from pytest_handoff.views.common import masked

    data = masked(chain, document.data)
    if data is document.data:
        return document
    shown = Document(document.path, document.display_path, "", data)
    shown.handoff_type = document.handoff_type
    shown.schema_valid = document.schema_valid
    return shown
