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


def test_ev101_a_path_added_to_an_ignore_file_is_a_pattern_not_a_claim() -> None:
    for text in (
        "Done. I added `config/secrets.toml` to `.gitignore` so it stays out of git.",
        "Added dist/bundle.js and `logs/app.log` to the root .dockerignore.",
        "Made `config/secrets.toml` gitignored.",
    ):
        assert claims(text, message=True) == {}, text
    # A list of the files changed that names an ignore file among them still claims the others.
    assert claims("Updated `src/app.py` and `.gitignore`.", message=True) == {"paths": [("src/app.py", 1)]}
    listed = "## Files Modified\n\n- **Files modified:** `src/lib/a.ts`, `src/App.tsx`, `.gitignore`\n"
    assert claims(listed) == {"paths": [("src/lib/a.ts", 3), ("src/App.tsx", 3)]}


def test_ev101_a_file_removed_a_few_words_before_its_path_need_not_exist() -> None:
    for text in (
        "I removed the temporary debug script `scripts/debug_tmp.py` after using it.",
        "Deleted the five stale fixture files under tests, including tests/fixtures/old_a.json.",
    ):
        assert claims(text, message=True) == {}, text
    # Other work between the verb and the path: the path is that work's.
    assert claims("Removed the old feature flag and updated `src/flags.py`.", message=True) == {
        "paths": [("src/flags.py", 1)]
    }


def test_ev101_a_subsection_of_work_not_done_under_completed_claims_nothing() -> None:
    text = (
        "## Completed\n\n- Added `src/billing/tax.py`\n\n"
        "### Out of scope\n\n- `src/billing/invoice.py` (left for the billing team)\n\n"
        "### Phase 2 (not started)\n\n- `src/billing/refund.py`\n\n"
        "### Details\n\n- `src/billing/rates.py`\n"  # a heading that says nothing: still work done
    )
    assert claims(text) == {"paths": [("src/billing/tax.py", 3), ("src/billing/rates.py", 15)]}


def test_ev101_an_indented_code_block_is_no_claim_but_a_list_items_indented_text_is() -> None:
    text = (
        "## Done\n\n- Fixed `src/a.py`\n\nThe output:\n\n    created src/b.py\n    `src/c.py` updated\n\n"
        "- Added the parser\n\n    Updated `src/d.py` too.\n"
    )
    assert claims(text) == {"paths": [("src/a.py", 3), ("src/d.py", 12)]}
    # Without a blank line before it, an indented line runs on the paragraph: prose.
    assert claims("Summary of the run\n    Fixed `src/e.py`.", message=True) == {"paths": [("src/e.py", 2)]}


def test_ev101_a_verb_inside_a_path_says_nothing_of_the_work() -> None:
    assert claims("See `out/created.py` for the output.", message=True) == {}
    assert claims("The report is in out/created.py now.", message=True) == {}
    # Nor does a word of the future inside a path hide a claim.
    assert claims("Updated `src/next/page.tsx`.", message=True) == {"paths": [("src/next/page.tsx", 1)]}


def test_ev201_a_commit_is_a_hash_in_a_commits_place_not_any_hex_word() -> None:
    for text in (
        "- Committed migration 20240115a",
        "Committed 20240115a.",
        "Committed the parser with build 3f9a2c1e green.",
        "Ran `git commit -m wip` in 3f9a2c1e.",
    ):
        assert claims(text, message=True) == {}, text
    assert claims("Committed as 3f9a2c1 and 8b04d7e, then the fix (0a1b2c3).", message=True) == {
        "commits": [("3f9a2c1", 1), ("8b04d7e", 1), ("0a1b2c3", 1)]
    }
    # A date-like word stands as a commit only in backticks right after "commit".
    text = (
        "## Done\n\n- Commit `20240115a` adds the table\n- Recorded the state (commit 024c988, branch main)\n"
    )
    assert claims(text) == {"commits": [("20240115a", 3), ("024c988", 4)]}


def test_ev101_a_condition_after_the_work_keeps_its_claim_one_before_it_does_not() -> None:
    assert claims("Fixed the crash when the list is empty in `src/list.py`.", message=True) == {
        "paths": [("src/list.py", 1)]
    }
    for text in (
        "If you want, I updated `src/a.py`.",
        "Added a fallback when `config/local.toml` is absent.",  # what the condition is about
    ):
        assert claims(text, message=True) == {}, text


def test_ev101_a_table_of_files_changed_claims_its_paths_in_backticks() -> None:
    text = (
        "## Files Changed\n\n| File | Change |\n|---|---|\n| `src/a.py` | new |\n| `src/b.py` | Deleted |\n"
        "| conv/mod.rs | edited |\n| `src/c.py` | Moved the `datetime` import out of TYPE_CHECKING |\n"
        "| `src/d.py` | planned |\n"
    )
    assert claims(text) == {"paths": [("src/a.py", 5), ("src/c.py", 8)]}
