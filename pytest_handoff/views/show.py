"""``handoff-lint show FILE [--markdown]``: one handoff of any supported profile as readable Markdown.

The file is read and validated by the engine like any other (so secrets are masked and a file
that does not parse says why, with its place); any format's data renders as Markdown.
Without ``--markdown`` the Markdown is drawn on the terminal by rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.groups import Group


def render_document(run: Run, target: Path) -> str | list[str]:
    """The handoff at ``target`` as Markdown, or, when it did not parse, the lines saying why (as
    the linter prints its findings)."""
    from pytest_handoff.reporters.excerpt import format_findings
    from pytest_handoff.views.markdown import document_markdown

    rendered: list[str] = []

    def render(chain: Group) -> tuple[()]:
        document = next((doc for doc in chain.documents if doc.path.resolve() == target), None)
        if document is not None:
            shown = _masked(chain, document)
            rendered.append(document_markdown(shown.name, shown.handoff_type, shown.data))
        return ()

    _, results = run.check_paths([target], (render,))
    if rendered:
        return rendered[0]
    return [line for result in results for line in format_findings(result.findings, dict(result.sources))]


def _masked(chain: Group, document: Document) -> Document:
    """The document with every secret of its chain masked in its data (before any escaping)."""
    from pytest_handoff.pipeline.masking import masked_value
    from pytest_handoff.values.documents import Document

    data = masked_value(chain, document.data)
    if data is document.data:
        return document
    shown = Document(document.path, document.display_path, "", data)
    shown.handoff_type = document.handoff_type
    shown.schema_valid = document.schema_valid
    return shown
