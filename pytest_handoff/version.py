"""The version of pytest-handoff (read by the build, and by ``handoff-lint --version``) and where its
documentation lives (``mkdocs.yml``'s ``site_url``; SARIF's ``helpUri`` and ``explain`` name a rule's page)."""

__version__ = "0.2.0"

#: The documentation site (``mkdocs.yml``'s ``site_url``; a test keeps the two equal).
DOCS_URL = "https://pytest-handoff.github.io/pytest-handoff/"


def rule_page(code: str) -> str:
    """The address of rule ``code``'s page on the documentation site (``docs/rules/CODE.md``, built)."""
    return f"{DOCS_URL}rules/{code.upper()}/"
