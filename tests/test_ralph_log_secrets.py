"""HX001 on every line of a Ralph agent's log, placed at the secret and masked in every output.

The tokens are made at run time from random characters: the repository holds none.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.profiles.ralph.logs import read_log
from pytest_handoff.rules.secrets import SHOWN_RUN
from tests.ralph_helpers import CLEAN_LOGS, READY, check_session, column_of, make_session, phrase, where

LOG = ".claude/session/logs/developer.log"


def github_token() -> str:
    """``ghp_`` and 36 random letters and digits: shaped like a GitHub token, and no one's."""
    alphabet = string.ascii_letters + string.digits
    return "ghp_" + "".join(random.SystemRandom().choice(alphabet) for _ in range(36))


def developer_log(*extra: str) -> dict[str, list[str]]:
    """The clean session's logs, with ``extra`` lines at the start of the developer's."""
    return {**CLEAN_LOGS, "developer": [*extra, *CLEAN_LOGS["developer"]]}


def shows_part_of(token: str, text: str) -> bool:
    """True when ``text`` shows more of ``token`` than a mask does (any run of it past its prefix)."""
    width = SHOWN_RUN + 1
    return any(token[i : i + width] in text for i in range(4, len(token) - width + 1))


def test_hx001_reports_a_secret_on_an_ordinary_log_line_at_its_line_and_column(tmp_path: Path) -> None:
    token = github_token()
    line = f"export GITHUB_TOKEN={token}"
    root = make_session(tmp_path / "lantern", logs=developer_log("Preparing the build", line))

    result = check_session(root)

    [finding] = [f for f in result.findings if f.code == "HX001"]
    assert where(finding) == (LOG, 2, column_of(line, token))
    assert (finding.end_line, finding.end_column) == (2, column_of(line, token) + len(token) - 1)
    assert "possible GitHub token: ghp_…(40 characters)" in finding.message
    assert not shows_part_of(token, json.dumps([f.message for f in result.findings]))
    assert not any(shows_part_of(token, line) for lines in result.sources.values() for line in lines)


def test_hx001_does_not_report_a_log_line_that_names_a_token_without_its_value(tmp_path: Path) -> None:
    lines = [
        "export GITHUB_TOKEN=$GITHUB_TOKEN",
        "token: ${{ secrets.GITHUB_TOKEN }}",
        "Using the GITHUB_TOKEN secret of the repository (ghp_... in the vault)",
        "api_key = os.environ['OPENAI_API_KEY']",
    ]
    root = make_session(tmp_path / "lantern", logs=developer_log(*lines))
    assert check_session(root).findings == ()


def test_hx001_reports_a_secret_on_a_line_that_mentions_a_handoff_without_being_one(tmp_path: Path) -> None:
    token = github_token()
    line = f"Received handoff from PM; pushing with GITHUB_TOKEN={token}"
    root = make_session(tmp_path / "lantern", logs=developer_log(line))

    [finding] = [f for f in check_session(root).findings if f.code == "HX001"]
    assert where(finding) == (LOG, 1, column_of(line, token))


def test_hx001_counts_lines_past_a_phrase_and_crlf_breaks_and_a_large_log(tmp_path: Path) -> None:
    token = github_token()
    filler = [f"step {n}: compiled module {n}" for n in range(60_000)]  # over 1 MiB: several pieces
    lines = [READY, phrase("qa", sender="developer", reason="ready_for_qa"), *filler, f"GITHUB_TOKEN={token}"]
    raw = "\r\n".join(lines).encode()

    loaded = read_log(raw, Path(LOG), LOG)

    assert len(raw) > 1 << 20
    [scanned] = loaded.secrets_only
    assert scanned.fixed is not None
    assert (scanned.fixed.line, scanned.fixed.column) == (len(lines), len("GITHUB_TOKEN=") + 1)


def test_a_log_without_a_secret_gives_nothing_to_scan_even_with_phrases_in_it() -> None:
    lines = [READY, phrase("qa", sender="developer", reason="ready_for_qa"), "tokens used: 18,204"]
    loaded = read_log("\n".join(lines).encode(), Path(LOG), LOG)
    assert loaded.secrets_only == ()


@pytest.mark.parametrize("output", ["text", "json", "github", "sarif", "markdown"])
def test_hx001_on_a_log_line_is_masked_in_every_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], output: str
) -> None:
    token = github_token()
    root = make_session(tmp_path / "lantern", logs=developer_log(f"export GITHUB_TOKEN={token}"))
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    for variable in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "FORCE_COLOR"):
        monkeypatch.delenv(variable, raising=False)

    assert main(["--format", output]) == 1
    shown = capsys.readouterr().out
    assert "HX001" in shown
    assert "(40 characters)" in shown  # the mask, escaped as each output escapes
    assert not shows_part_of(token, shown)
