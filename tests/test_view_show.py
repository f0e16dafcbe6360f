"""handoff-lint show: any handoff as readable Markdown, its text escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
from views_helpers import (
    BROKEN,
    CLEAN,
    CORPUS_SAMPLE,
    copy_chain,
    load_json,
    outside_ci,
    parse_tables,
    run,
    table_with,
    unescape,
    write_json,
)

from pytest_handoff.views.markdown import document_markdown

pytestmark = pytest.mark.usefixtures("outside_ci")
__all__ = ["outside_ci"]


def _bullets(markdown: str, heading: str) -> list[str]:
    """The bullet items under ``## heading``, unescaped."""
    lines = markdown.splitlines()
    start = lines.index(f"## {heading}") + 1
    items = []
    for line in lines[start:]:
        if line.startswith("#"):
            break
        if line.startswith("- "):
            items.append(unescape(line[2:]))
    return items


@pytest.mark.parametrize("name", sorted(p.name for p in CLEAN.glob("*.json")))
def test_show_renders_every_example_handoff_as_valid_markdown(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "show", str(CLEAN / name), "--markdown")
    assert code == 0, err
    data = load_json(CLEAN / name)
    assert out.startswith(f"# {name} ({data['handoff_type'].replace('_', chr(92) + '_')})")
    fields = {row["Field"]: row["Value"] for row in table_with(parse_tables(out), "Field", "Value")}
    assert fields["handoff_type"] == data["handoff_type"]
    assert fields["timestamp"] == data["timestamp"]


def test_show_lists_text_lists_and_tables_objects(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "show", str(CLEAN / "01-ba-agent.json"), "--markdown")
    data = load_json(CLEAN / "01-ba-agent.json")
    assert _bullets(out, "Acceptance criteria") == data["acceptance_criteria"]
    glossary = table_with(parse_tables(out), "Key", "Value")
    assert {row["Key"]: row["Value"] for row in glossary} == data["domain_glossary"]
    _, out, _ = run(capsys, "show", str(CLEAN / "02-dev-agent.json"), "--markdown")
    dev = load_json(CLEAN / "02-dev-agent.json")
    properties = table_with(parse_tables(out), "Property", "Confidence", "Evidence")
    assert [row["Property"] for row in properties] == [p["property"] for p in dev["properties_believed"]]


def test_show_escapes_untrusted_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chain = copy_chain(CLEAN, tmp_path)
    hostile = "<script>alert(1)</script> | [x](javascript:alert(1)) # not a heading **no** \x1b[31m"
    review = load_json(chain / "04-review-agent.json")
    review["recommendations"][0] = hostile
    review["issues"][0]["description"] = hostile
    write_json(chain / "04-review-agent.json", review)
    _, out, _ = run(capsys, "show", str(chain / "04-review-agent.json"), "--markdown")
    assert "<script>" not in out
    assert "[x](javascript" not in out
    assert "\x1b" not in out
    inert = hostile.replace("\x1b", "\\x1b")
    assert _bullets(out, "Recommendations")[0] == inert
    issues = table_with(parse_tables(out), "Severity", "Category")
    assert issues[0]["Description"] == inert


def test_show_draws_the_markdown_on_the_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run(capsys, "show", str(CLEAN / "04-review-agent.json"))
    assert code == 0
    assert "\x1b" not in out  # not a terminal: no colour codes
    assert "Recommendations" in out
    assert "| ---" not in out  # drawn, not the source
    assert "approved" in out


def test_show_a_file_that_does_not_parse_reports_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chain = copy_chain(CLEAN, tmp_path)
    (chain / "02-dev-agent.json").write_text('{"handoff_type": "dev_to_test",}', encoding="utf-8")
    code, out, err = run(capsys, "show", str(chain / "02-dev-agent.json"), "--markdown")
    assert code == 1
    assert out == ""
    assert "HF002" in err


def test_show_a_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "show", str(tmp_path / "nope.json"))
    assert code == 2
    assert "no such file" in err


def test_show_masks_secrets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    chain = copy_chain(CLEAN, tmp_path)
    dev = load_json(chain / "02-dev-agent.json")
    dev["known_risks"].append(f"the deploy token {secret} is in the repo")
    write_json(chain / "02-dev-agent.json", dev)
    for args in (["--markdown"], []):
        _, out, _ = run(capsys, "show", str(chain / "02-dev-agent.json"), *args)
        assert secret not in out
        assert secret[4:20] not in out
        assert "the deploy token" in out


def test_show_renders_a_handoff_that_fails_its_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", str(BROKEN / "01-ba-agent.json"), "--markdown")
    assert code == 0  # show renders; the linter judges
    fields = {row["Field"]: row["Value"] for row in table_with(parse_tables(out), "Field", "Value")}
    assert fields["timestamp"] == "2026-11-04 13:20:00"


def test_document_markdown_handles_any_json_shape() -> None:
    out = document_markdown("x.json", None, {"nested": {"deeper": [{"a": [1, 2]}, "text"]}, "empty": []})
    assert "## Nested" in out
    assert "### Deeper" in out
    assert "_(none)_" in out
    assert document_markdown("list.json", None, ["a", "b"]).endswith("- a\n- b\n")


@pytest.mark.parametrize(
    "name", ["01-ba-agent.json", "02-dev-agent.json", "03-test-agent.json", "04-review-agent.json"]
)
def test_show_renders_the_public_neuralrelay_sample(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    if not CORPUS_SAMPLE.is_dir():
        pytest.skip("the shared NeuralRelay corpus is not beside this checkout")
    code, out, _ = run(capsys, "show", str(CORPUS_SAMPLE / name), "--markdown")
    assert code == 0
    assert parse_tables(out)
