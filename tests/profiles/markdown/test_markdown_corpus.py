"""Ten real Markdown handoffs (``../shared/corpus/handoff-md``): every file read, no crash, no error
of the format's own; skipped, with the reason, when the corpus is not beside the checkout."""

from __future__ import annotations

import pytest

from pytest_handoff.profiles.markdown.reader import read_markdown_handoff
from tests.conftest import CORPUS

HANDOFF_CORPUS = CORPUS / "handoff-md"
FILES = (
    sorted(path for path in HANDOFF_CORPUS.rglob("*.md") if path.name != "SOURCES.md")
    if HANDOFF_CORPUS.is_dir()
    else []
)


def test_every_real_handoff_is_read_with_its_sections_and_claims() -> None:
    if not FILES:
        pytest.skip(
            f"the public Markdown handoff corpus is not beside this checkout (looked in {HANDOFF_CORPUS})"
        )
    assert len(FILES) == 10
    for path in FILES:
        loaded = read_markdown_handoff(path.read_bytes(), path, path.name, message=False)
        (document,) = loaded.documents
        assert loaded.findings == (), path
        assert set(document.data["done"]) == {"paths", "created", "locations", "commits", "verdicts"}
        for kind, values in document.data["done"].items():
            for index in range(len(values)):
                assert document.region(f"/done/{kind}/{index}").line > 0, (path, kind, index)


def test_every_real_handoff_says_what_was_done_or_what_is_next() -> None:
    if not FILES:
        pytest.skip(
            f"the public Markdown handoff corpus is not beside this checkout (looked in {HANDOFF_CORPUS})"
        )
    silent = [
        path.relative_to(HANDOFF_CORPUS).as_posix()
        for path in FILES
        if not any(
            read_markdown_handoff(path.read_bytes(), path, path.name, message=False)
            .documents[0]
            .data["roles"]
            .values()
        )
    ]
    assert silent == []  # MD101 would be a false warning on each
