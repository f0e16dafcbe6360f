"""The Markdown reader every Markdown format shares: front matter placed at the file's lines, an
unclosed block said at line 1, sections by heading outside fenced code, and no crash on any bytes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from pytest_handoff.read.markdown import read_front_matter, sections, split_front_matter

SUMMARY = b"""---
phase: 07-auth
plan: 01
key-files:
  created:
    - src/token.py
---

# Phase 07 Plan 01 Summary

## Task Commits

1. **Task 1: refresh** - `f902b4e` (feat)

```markdown
## Not a heading: code
```

### Detail

text

## Self-Check: PASSED
"""


def test_the_front_matter_is_one_document_placed_at_the_files_lines() -> None:
    loaded = read_front_matter(SUMMARY, Path("07-01-SUMMARY.md"), "07-01-SUMMARY.md")
    assert loaded.findings == ()
    (document,) = loaded.documents
    assert document.data == {"phase": "07-auth", "plan": 1, "key-files": {"created": ["src/token.py"]}}
    assert document.region("/key-files/created/0").line == 6
    assert document.source_text.startswith("---\nphase")


def test_hf002_a_block_that_never_closes_is_said_at_line_1() -> None:
    loaded = read_front_matter(b"---\nphase: 1\n\n# Summary\n", Path("x.md"), "x.md")
    assert [(f.code, f.line) for f in loaded.findings] == [("HF002", 1)]
    assert loaded.documents == ()


def test_a_file_without_front_matter_has_none_and_its_body_starts_at_line_1() -> None:
    assert split_front_matter(b"# HANDOFF\n\n---\nnot front matter\n---\n") == (None, 1, "")
    assert read_front_matter(b"# HANDOFF\n", Path("h.md"), "h.md").documents == ()


def test_the_body_starts_after_the_closing_line_with_crlf_line_ends() -> None:
    found = split_front_matter(b"---\r\nphase: 1\r\n---\r\nbody\r\n")
    assert found.body_line == 4
    assert found.block is not None
    assert found.block.count(b"\n") == 2  # the blanked opening line, then phase: 1


def test_sections_by_heading_skip_fenced_code_and_nest_by_level() -> None:
    body_line = split_front_matter(SUMMARY).body_line
    body = SUMMARY.decode().split("\n", body_line - 1)[-1]
    found = sections(body, body_line)
    assert [(s.heading, s.level, s.line) for s in found] == [
        ("Phase 07 Plan 01 Summary", 1, 9),
        ("Task Commits", 2, 11),
        ("Detail", 3, 19),
        ("Self-Check: PASSED", 2, 23),
    ]
    commits = found[1]
    assert commits.end == 22  # up to the next heading of its level, the Detail inside it
    assert "`f902b4e`" in commits.text
    assert "## Not a heading: code" in commits.text


@given(st.binary(max_size=400))
def test_any_bytes_are_read_without_a_crash(raw: bytes) -> None:
    found = split_front_matter(raw)
    assert found.body_line >= 1
    read_front_matter(raw, Path("x.md"), "x.md")
    text = raw.decode("utf-8", "replace")
    lines = max(1, len(text.splitlines()))
    for section in sections(text):
        assert 1 <= section.line <= section.end <= lines


@given(
    st.lists(
        st.sampled_from(["---", "# a", "## b", "```", "~~~", "x: 1", "- y", "", " ### c ##"]), max_size=30
    )
)
def test_markdown_shaped_text_is_read_without_a_crash(lines: list[str]) -> None:
    raw = "\n".join(lines).encode()
    read_front_matter(raw, Path("x.md"), "x.md")
    found = sections(raw.decode())
    assert all(s.level in range(1, 7) for s in found)
