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


def test_a_context_line_of_an_update_that_looks_like_a_marker_is_content_as_codex_reads_it() -> None:
    text = (
        "*** Begin Patch\n*** Update File: docs/envelopes.md\n@@\n     *** End Patch\n"
        " *** Add File: .planning/phases/09-old/09-VERIFICATION.md\n-old\n+new\n"
        "*** Add File: .planning/phases/01-setup/01-VERIFICATION.md\n+---\n*** End Patch\n"
    )
    assert patch_paths(text).written == ("docs/envelopes.md", ".planning/phases/01-setup/01-VERIFICATION.md")


def test_lines_are_split_at_newlines_only_so_a_name_may_hold_other_line_breaks() -> None:
    name = ".planning/phases/01-b\u2028x/01-01-SUMMARY.md"
    assert patch_paths(f"*** Begin Patch\n*** Add File: {name}\n+x\n*** End Patch\n").written == (name,)


def test_a_move_needs_its_line_right_after_the_update_header() -> None:
    text = "*** Begin Patch\n*** Update File: a.md\n@@\n-x\n+y\n*** Move to: b.md\n*** End Patch\n"
    assert patch_paths(text) == PatchPaths(written=("a.md",), deleted=())


def test_many_moves_are_read_in_one_pass() -> None:
    moves = "".join(f"*** Update File: a{n}\n*** Move to: b{n}\n@@\n-x\n+y\n" for n in range(30_000))
    found = patch_paths(f"*** Begin Patch\n{moves}*** End Patch\n")
    assert (len(found.written), len(found.deleted)) == (30_000, 30_000)
    assert found.written[-1] == "b29999"
