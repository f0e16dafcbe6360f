"""The files a Codex ``apply_patch`` envelope adds, updates, moves and deletes, read from its text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_handoff.agents.patches import PatchPaths, patch_paths

ENVELOPE = """*** Begin Patch
*** Add File: docs/handoffs/01.md
+# Handoff
+*** Update File: not/a/header.md
*** Update File: HANDOFF.md
*** Move to: docs/handoffs/02.md
@@ ## Done
-- old
+- new
*** Update File: src/app.py
@@
-x = 1
+x = 2
*** Delete File: notes.md
*** End Patch
"""


def test_an_envelope_names_what_it_adds_updates_moves_and_deletes() -> None:
    assert patch_paths(ENVELOPE) == PatchPaths(
        written=("docs/handoffs/01.md", "docs/handoffs/02.md", "src/app.py"),
        deleted=("HANDOFF.md", "notes.md"),
    )


def test_a_line_added_by_the_patch_that_looks_like_a_header_is_content() -> None:
    assert "not/a/header.md" not in patch_paths(ENVELOPE).written


def test_crlf_lines_blanks_a_heredoc_and_a_missing_end_are_read() -> None:
    text = "apply_patch <<'EOF'\r\n*** Begin Patch\r\n  *** Add File: HANDOFF.md  \r\n+x\r\n"
    assert patch_paths(text) == PatchPaths(written=("HANDOFF.md",), deleted=())


def test_no_envelope_names_nothing() -> None:
    assert patch_paths("echo hello > HANDOFF.md") == PatchPaths((), ())
    assert patch_paths("*** Begin Patch\n*** Add File:\n*** End Patch\n") == PatchPaths((), ())


@given(st.text())
def test_any_text_is_read_without_an_error(text: str) -> None:
    found = patch_paths(text)
    assert all(isinstance(path, str) and path for path in (*found.written, *found.deleted))
