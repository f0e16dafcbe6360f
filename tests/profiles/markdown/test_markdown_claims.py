"""A Markdown handoff's claims of work done read from its prose, each at its line; plans are no claims."""

from __future__ import annotations

from pathlib import Path

from pytest_handoff.profiles.markdown.reader import read_markdown_handoff
from pytest_handoff.values.documents import Document

FILE = Path("/p/HANDOFF.md")
MESSAGE = Path("/p/last-assistant-message.md")


def read(text: str, *, message: bool = False) -> Document:
    (document,) = read_markdown_handoff(
        text.encode(), MESSAGE if message else FILE, "x", message=message
    ).documents
    return document


def claims(text: str, *, message: bool = False) -> dict[str, list[tuple[str, int]]]:
    """Each kind of claim with its values and lines (kinds with none left out)."""
    document = read(text, message=message)
    done = document.data["done"]
    return {
        kind: [(value, document.region(f"/done/{kind}/{i}").line) for i, value in enumerate(values)]
        for kind, values in done.items()
        if values
    }


HANDOFF = """# Handoff 2026-11-20

## Completed

- Added the CSV writer in `src/export/csv_writer.py` (new)
- Fixed the off-by-one at `src/export/pages.py:41` and src/api/routes.py#L12
- Commit `3f9a2c1` (feat), then commit 8b04d7e; the colour is `#1a1a2e`, the id `deadbeef`
- All tests pass
- Tried `pytest tests/ -k csv`, see https://example.com/a/b.py and `~/notes/x.md`, `src/*.py`, `<file>.py`

## Next Steps

- Write `src/export/xlsx_writer.py`
- Fix `src/api/auth.py:10`

### Ideas

- `src/later.py`

## Current State

- `src/export/csv_writer.py` is done; `docs/export.md` will be written next
"""


def test_claims_of_work_done_are_read_with_their_lines() -> None:
    # "Current State" describes: its line names no work done (no verb says so), so it claims nothing.
    assert claims(HANDOFF) == {
        "created": [("src/export/csv_writer.py", 5)],
        "locations": [("src/export/pages.py:41", 6), ("src/api/routes.py#L12", 6)],
        "commits": [("3f9a2c1", 7), ("8b04d7e", 7)],
        "verdicts": [("PASS", 8)],
    }


def test_the_place_of_a_claim_is_its_column_too() -> None:
    document = read(HANDOFF)
    region = document.region("/done/locations/1")
    assert (region.line, region.column, region.end_column) == (6, 56, 76)


def test_sections_say_what_was_done_and_what_is_next_in_english_and_chinese() -> None:
    assert read(HANDOFF).data["roles"] == {"done": 2, "next": 2}
    chinese = "# 交接\n\n## 已完成(2026-07-18)\n\n- 修改 `app/boss.ts`\n\n## 待做\n\n- `app/next.ts`\n"
    assert read(chinese).data["roles"] == {"done": 1, "next": 1}
    assert claims(chinese) == {"paths": [("app/boss.ts", 5)]}
    assert read("# Notes\n\n## Architecture\n\n- `src/a.py`\n").data["roles"] == {"done": 0, "next": 0}


def test_code_blocks_and_headings_are_no_claims() -> None:
    text = (
        "## Done\n\n```\nsrc/tree/drawn.py\n- `src/in_fence.py`\n```\n### `src/heading.py`\n- `src/real.py`\n"
    )
    assert claims(text) == {"paths": [("src/real.py", 8)]}


def test_a_message_is_read_sentence_by_sentence() -> None:
    text = (
        "I created `tests/test_x.py` with 12 tests, all pass. Next I will add `src/y.py`.\n"
        "Files changed:\n- `src/z.py`\n- `src/w.py:3`\n\nRun `pytest tests/test_x.py` to see. "
        "You can find the parser in `src/parser.py`."
    )
    assert claims(text, message=True) == {
        "paths": [("src/z.py", 3)],
        "created": [("tests/test_x.py", 1)],
        "locations": [("src/w.py:3", 4)],
        "verdicts": [("PASS", 1)],
    }


def test_a_message_with_headings_reads_its_done_sections_and_its_other_sentences() -> None:
    text = "## Changes\n\n- `src/a.py`\n\n## Next steps\n\n- I updated nothing yet in `src/b.py`\n\nFixed `src/c.py`.\n"
    assert claims(text, message=True) == {"paths": [("src/a.py", 3)]}


def test_names_that_are_no_files_and_revisions_that_are_not_ours_are_no_claims() -> None:
    for text in (
        "Fixed `user.save` so the record persists.",
        "I updated `logger.info` calls.",
        "## Changes\n\n- Switched `os.path` calls to `pathlib.Path`\n",
        "Bumped `react/18.2.0`.",
        "Added support for reading `.env.local` files.",
        "Removed `src/app/legacy.py` and deleted src/old/thing.py.",
        "Updated the docs link to github.com/acme/tool/blob/main/docs/usage.md.",
        "Pinned commit `5d2e8f1` of the upstream library.",
        "The docker image digest committed is `4e5f6a7b8c9d`.",
        "All tests pass locally except the flaky one.",
        "Kept the old work in the reflog: commit `31c08302`.",
        "Rendered with SceneView/Filament.js since it was added.",
    ):
        assert claims(text, message=True) == {}, text


def test_a_line_past_nine_digits_or_a_heading_of_many_hashes_is_read_without_a_crash() -> None:
    assert claims("# " + "#" * 5000 + " x\n\n## Done\n\n- Fixed `src/a.py:" + "9" * 5000 + "`\n") == {}
