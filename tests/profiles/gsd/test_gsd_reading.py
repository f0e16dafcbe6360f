"""GSD's Markdown files read into one document: what the front matter and the body claim, each at its line."""

from __future__ import annotations

from pathlib import Path

from pytest_handoff.profiles.gsd.layout import kind_of
from pytest_handoff.profiles.gsd.reader import read_gsd
from pytest_handoff.values.documents import Document

SUMMARY_PATH = Path("/p/.planning/phases/01-setup/01-01-SUMMARY.md")


def read(text: str, path: Path = SUMMARY_PATH) -> tuple[Document, list[tuple[str, int]]]:
    kind = kind_of(path)
    assert kind is not None
    loaded = read_gsd(text.encode(), path, path.name, kind)
    (document,) = loaded.documents
    return document, [(f.code, f.line) for f in loaded.findings]


def line_of(document: Document, pointer: str) -> int:
    return document.region(pointer).line


def test_a_summary_without_front_matter_still_gives_its_body_claims() -> None:
    document, findings = read(
        "# Phase 1 Plan 1: Setup Summary\n\n"
        "## Task Commits\n\n"
        "1. **Task 1: Models** - `3f9a2c1` (feat)\n"
        "2. **Task 2: API** - `8b04d7e`, `c21e8f0` (test, feat)\n\n"
        "## Files Created/Modified\n\n"
        "- `src/models.py` - the models\n"
    )
    assert findings == []
    assert "front_matter" not in document.data
    assert document.data["commits"] == ["3f9a2c1", "8b04d7e", "c21e8f0"]
    assert [line_of(document, f"/commits/{i}") for i in range(3)] == [5, 6, 6]
    assert document.region("/commits/2").column == 34
    assert document.data["files_modified"] == ["src/models.py"]
    assert line_of(document, "/files_modified/0") == 10


def test_gs001_a_front_matter_that_is_not_strict_yaml_is_read_leniently_and_said_at_its_line() -> None:
    document, findings = read(
        "---\nphase: 01-setup\ntech-stack:\n  added: [@tanstack/react-query@5, zod@3]\n"
        "key-files:\n  created:\n    - src/query.ts\n---\n\n# Summary\n"
    )
    assert findings == [("GS001", 4)]
    assert document.data["front_matter"]["tech-stack"]["added"] == "[@tanstack/react-query@5, zod@3]"
    assert document.data["files_created"] == ["src/query.ts"]
    assert line_of(document, "/files_created/0") == 7


def test_gs001_a_value_running_on_to_a_line_yaml_takes_for_a_key_is_joined_and_read() -> None:
    document, findings = read(
        "---\nprovides:\n  - services/auth.py: create_token (HS256), authenticate\n"
        "    (timing-safe), insert_into_blocklist\n  - routers/auth.py: login\nplan: 02\n---\n"
    )
    assert findings == [("GS001", 5)]  # where YAML finds it cannot go on
    assert document.data["front_matter"]["provides"][0] == {
        "services/auth.py": "create_token (HS256), authenticate (timing-safe), insert_into_blocklist"
    }
    assert document.data["front_matter"]["plan"] == 2
    assert line_of(document, "/front_matter/plan") == 6


def test_an_unreadable_front_matter_is_said_once_and_the_body_still_read() -> None:
    document, findings = read("---\n- a list\nthen: a mapping\n---\n\n## Self-Check: PASSED\n")
    assert [code for code, _ in findings] == ["GS001"]
    assert "front_matter" not in document.data
    assert document.data["self_check"] == "PASSED"
    assert line_of(document, "/self_check") == 6


def test_key_files_are_read_whatever_their_spelling_and_entry_form() -> None:
    document, _ = read(
        "---\nkey_files:\n  created:\n    - src/a.py - the parser\n    - `src/b.py` (new)\n"
        "    - {path: src/c.py, impact: high}\n    - {src/d.py: routes}\n  modified:\n    - README.md\n"
        "    - audit/evidence/run_*.jsonl\n---\n"
    )
    assert document.data["files_created"] == ["src/a.py", "src/b.py", "src/c.py", "src/d.py"]
    assert document.data["files_modified"] == ["README.md"]  # a glob is no file
    assert [line_of(document, f"/files_created/{i}") for i in range(4)] == [4, 5, 6, 7]


def test_the_files_sections_say_created_or_modified_by_heading_label_or_words() -> None:
    document, _ = read(
        "# S\n\n## Files Created/Modified\n\n### Created\n- `src/new.py` - new module\n\n"
        "**Modified:**\n- `src/old.py` - one more route\n- `src/(auth)/page.tsx` - a route group\n"
        "- None\n- Added a retry\n\n```\nsrc/\n- src/tree_drawing.py\n```\n"
        "## Files Modified\n\n- **vite.config.ts** - proxy\n- [app.js](src/app.js) - entry\n- `src/x.py` (created)\n"
    )
    assert document.data["files_created"] == ["src/new.py", "src/x.py"]
    assert document.data["files_modified"] == [
        "src/old.py",
        "src/(auth)/page.tsx",
        "vite.config.ts",
        "src/app.js",
    ]


def test_commits_come_from_labels_and_commit_columns_and_the_plan_metadata_stands_apart() -> None:
    document, _ = read(
        "# S\n\n## Deviations from Plan\n\n- **Committed in:** 8a0dffe (Task 2 commit)\n"
        "- Commit: `backend@71b5527`\n\n## Tasks Completed\n\n| Task | Commit | Files |\n|---|---|---|\n"
        "| 1 | 4687858 | src/a.py |\n| 2 | 1770923669 | src/b.py |\n\n"
        "**Plan metadata:** `a1b2c3d` (docs: complete plan)\n\nThe header colour is `#1a1a2e`, the id `deadbeef0`.\n"
    )
    assert document.data["commits"] == ["8a0dffe", "71b5527"]  # digits alone in a table: no hash
    assert document.data["plan_metadata"] == ["a1b2c3d"]
    assert line_of(document, "/plan_metadata/0") == 15


def test_a_digits_only_hash_in_backticks_of_a_commit_line_is_a_hash_but_a_long_number_is_not() -> None:
    document, _ = read("## Task Commits\n\n1. **Task 1** - `4687858` (feat)\n2. **Task 2** - `1770923669`\n")
    assert document.data["commits"] == ["4687858"]


def test_tasks_take_the_plans_count_of_n_of_m_and_the_self_check_its_verdict() -> None:
    document, _ = read("## Performance\n\n- **Tasks:** 1/3 (two deferred)\n\n## Self-Check: FAILED\n")
    assert document.data["tasks"] == 3
    assert line_of(document, "/tasks") == 3
    assert document.data["self_check"] == "FAILED"


def test_every_other_body_line_is_kept_for_the_secret_scan() -> None:
    document, _ = read("---\nplan: 01\n---\n\nexport GITHUB_TOKEN=ghp_x\n")
    assert document.data["body"] == {"5": "export GITHUB_TOKEN=ghp_x"}
    assert line_of(document, "/body/5") == 5


def test_a_plan_counts_its_tasks_and_checkpoints() -> None:
    path = Path("/p/.planning/phases/01-setup/01-01-PLAN.md")
    document, _ = read(
        '---\nphase: 01\n---\n<tasks>\n<task type="auto">\n</task>\n<task type="checkpoint:human-verify">\n</task>\n</tasks>\n',
        path,
    )
    assert (document.data["tasks"], document.data["checkpoints"]) == (2, 1)
    assert line_of(document, "/tasks") == 5


def test_a_verification_reads_the_status_column_of_its_truths_table() -> None:
    path = Path("/p/.planning/phases/01-setup/01-VERIFICATION.md")
    document, _ = read(
        "---\nstatus: passed\n---\n\n### Observable Truths (Success Criteria)\n\n| # | Truth | Status | Evidence |\n"
        "|---|---|---|---|\n| 1 | a | ✓ VERIFIED | x |\n| 2 | b | FAILED | y |\n| 3 | c | ? NEEDS HUMAN | z |\n"
        "\n### Required Artifacts\n\n| Artifact | Expected | Status |\n|---|---|---|\n| `a.py` | gone | MISSING (verified) |\n",
        path,
    )
    assert document.data["truths"] == ["verified", "failed", "uncertain"]
    assert line_of(document, "/truths/1") == 10
    assert "artifacts" not in document.data  # MISSING without a mark: deleted on purpose, no failure


def test_where_a_file_stands_in_the_tree_says_what_it_is() -> None:
    kinds = {
        name: kind_of(Path("/p/.planning") / name)
        for name in (
            "STATE.md", "config.json", "HANDOFF.json", "research/SUMMARY.md", "phases/02.1-fix/02.1-01-SUMMARY.md",
            "milestones/v1.0-phases/01-a/01-VERIFICATION.md", "quick/260402-ogl-fix/260402-ogl-PLAN.md",
            "phases/01-a/01-CONTEXT.md", "phases/01-a/01-02-FIX1-PLAN.md", "todos/pending/x.md",
        )
    }  # fmt: skip
    assert {name: (kind.type, kind.key) if kind else None for name, kind in kinds.items()} == {
        "STATE.md": ("state", ""),
        "config.json": ("config", ""),
        "HANDOFF.json": ("handoff", ""),
        "research/SUMMARY.md": None,
        "phases/02.1-fix/02.1-01-SUMMARY.md": ("summary", "02.1-01"),
        "milestones/v1.0-phases/01-a/01-VERIFICATION.md": ("verification", ""),
        "quick/260402-ogl-fix/260402-ogl-PLAN.md": ("plan", "260402-ogl"),
        "phases/01-a/01-CONTEXT.md": None,
        "phases/01-a/01-02-FIX1-PLAN.md": ("plan", "01-02-FIX1"),
        "todos/pending/x.md": None,
    }


def test_a_form_feed_or_line_separator_in_the_body_breaks_no_line_of_its_own() -> None:
    path = Path("/p/.planning/STATE.md")
    document, _ = read("# State\x0c\u2028\n\n## Current Position\n\nPhase: 2 of 3 (API)\n", path)
    assert document.data["position"]["phase"] == "2"
    assert line_of(document, "/position/phase") == 5
