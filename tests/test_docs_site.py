"""The documentation site and the README that leads to it: one address, every page in the navigation,
links that land on pages, examples that are real findings, and a pre-commit `rev` that names a tag."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from pytest_handoff.version import DOCS_URL, __version__
from tests.conftest import REPO

DOCS = REPO / "docs"
README = REPO / "README.md"
RULE_PAGE = re.compile(r"[A-Z]{2}\d{3}\.md")


def mkdocs_config() -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    return config


def nav_pages(entries: list[Any]) -> list[str]:
    """Every page the navigation names, in order (sections opened)."""
    found = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found.extend(nav_pages(value) if isinstance(value, list) else [value])
    return found


def fenced(text: str, language: str) -> list[str]:
    """The contents of every fenced block of ``text`` opened by ```language (``""``: by a bare ```)."""
    blocks: list[str] = []
    opened: str | None = None  # the language of the block being read, None outside one
    lines: list[str] = []
    for line in text.splitlines():
        if opened is None and line.startswith("```"):
            opened, lines = line[3:].strip(), []
        elif opened is not None and line == "```":
            if opened == language:
                blocks.append("\n".join(lines))
            opened = None
        elif opened is not None:
            lines.append(line)
    return blocks


def test_the_sites_address_is_the_one_the_package_links_to() -> None:
    assert mkdocs_config()["site_url"] == DOCS_URL == "https://pytest-handoff.github.io/pytest-handoff/"


def test_the_navigation_names_every_page_but_the_rule_pages_once() -> None:
    named = nav_pages(mkdocs_config()["nav"])
    pages = {
        path.relative_to(DOCS).as_posix()
        for path in DOCS.rglob("*.md")
        if not (path.parent.name == "rules" and RULE_PAGE.fullmatch(path.name))
    }
    assert len(named) == len(set(named))
    assert set(named) == pages
    assert named[0] == "index.md"


def test_every_link_of_the_readme_to_the_site_lands_on_a_page() -> None:
    links = re.findall(rf"\]\({re.escape(DOCS_URL)}([^)#]*)\)", README.read_text(encoding="utf-8"))
    assert len(links) > 20
    for link in links:
        page = link.rstrip("/")
        assert (DOCS / f"{page}.md").is_file() or (DOCS / page / "index.md").is_file(), link


def test_the_readmes_example_per_format_is_a_finding_the_tool_prints() -> None:
    examples = {}
    for page in (DOCS / "rules").glob("*.md"):
        for block in fenced(page.read_text(encoding="utf-8"), "text"):
            examples[block] = page.stem
    shown = fenced(README.read_text(encoding="utf-8"), "text")
    assert [examples.get(block) for block in shown] == ["NR208", "CK104", "RL204", "YL303", "TR103"]


def test_the_first_run_of_getting_started_is_the_readmes() -> None:
    def first_run(text: str) -> str:
        return next(block for block in fenced(text, "") if block.startswith("collected "))

    getting_started = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    assert first_run(getting_started) == first_run(README.read_text(encoding="utf-8"))


def test_every_pre_commit_rev_of_the_readme_and_the_docs_is_the_current_versions_tag() -> None:
    revs = {}
    for path in [README, *sorted(DOCS.rglob("*.md"))]:
        for block in fenced(path.read_text(encoding="utf-8"), "yaml"):
            config = yaml.safe_load(block)
            if not isinstance(config, dict):
                continue
            for repo in config.get("repos", []):
                if repo["repo"] == "https://github.com/pytest-handoff/pytest-handoff":
                    revs[path.relative_to(REPO).as_posix()] = repo["rev"]
    assert set(revs) == {"README.md", "docs/pre-commit.md"}
    assert set(revs.values()) == {f"v{__version__}"}


def test_the_workflow_uses_the_action_of_the_current_versions_tag() -> None:
    workflow = yaml.safe_load((REPO / "hooks" / "github-workflow.yml").read_text(encoding="utf-8"))
    uses = [step["uses"] for job in workflow["jobs"].values() for step in job["steps"] if "uses" in step]
    assert f"pytest-handoff/pytest-handoff@v{__version__}" in uses


def test_the_mcp_page_lists_every_tool_the_server_offers_with_its_arguments() -> None:
    """The page's table of tools is the server's list, in its order, each with every argument."""
    pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'pytest-handoff[mcp]')")
    import anyio

    from pytest_handoff.agents.mcp import build_server

    tools = anyio.run(build_server(REPO).list_tools)
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \|", (DOCS / "mcp.md").read_text(encoding="utf-8"), re.M)
    assert [name for name, _ in rows] == [tool.name for tool in tools]
    for (name, arguments), tool in zip(rows, tools, strict=True):
        assert set(re.findall(r"`(\w+)`", arguments)) >= set(tool.input_schema["properties"]), name


def test_the_site_keeps_long_commands_and_findings_inside_the_page_column() -> None:
    """A code block scrolls sideways (its lines stay as the tool prints them); inline code wraps."""
    sheets = mkdocs_config().get("extra_css", [])
    assert sheets, "mkdocs.yml names no extra_css"
    css = "\n".join((DOCS / sheet).read_text(encoding="utf-8") for sheet in sheets)
    rules = {
        selector.strip(): body
        for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.S))
        for selector in selectors.split(",")
    }
    assert "overflow-x: auto" in rules[".md-typeset pre > code"]
    assert "white-space: pre" in rules[".md-typeset pre > code"]
    assert "max-width: 100%" in rules[".md-typeset pre"]
    assert "overflow-wrap: anywhere" in rules[".md-typeset :not(pre) > code"]
