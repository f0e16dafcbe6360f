"""Hooks a project implements in its ``conftest.py`` to add its own handoff invariants."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.groups import Group
    from pytest_handoff.values.rules import Hit
    from pytest_handoff.values.settings import Settings


@pytest.hookspec
def pytest_handoff_check_chain(chain: Group, settings: Settings) -> Iterable[Hit | Finding] | None:
    """Check one chain with a project's own invariants.

    Return hits made with ``chain.hit(document, pointer, message)`` (a list, one
    hit, or None); they are reported as code ``USER`` with the exact position of
    ``pointer``, alongside the built-in rules. A pointer that does not exist is
    shown at its nearest existing parent, with a note in the message. ``chain.valid("review_final")`` gives schema-valid
    documents of a type, ``document.data`` their content. Example::

        def pytest_handoff_check_chain(chain):
            review = chain.first("review_final")
            if review and review.data["quality_score"] < 8:
                return [chain.hit(review, "/quality_score", "our bar is 8")]
    """
