"""A group finds the document of a member file at once, however many files it has (rules ask it of
every member: a scan each would make a chain's work grow with the square of its files)."""

from __future__ import annotations

import time
from pathlib import Path

from pytest_handoff.values.documents import Document
from pytest_handoff.values.groups import Group, GroupRef


def document(name: str, label: str = "") -> Document:
    return Document(Path(name), name, "{}", {}, label=label)


def group(documents: list[Document]) -> Group:
    return Group(GroupRef("neuralrelay", "g", Path(), tuple(d.path for d in documents)), documents)


def test_the_first_document_of_a_file_is_its_document_and_a_file_without_one_has_none() -> None:
    first, second, other = document("a.jsonl", "line 1"), document("a.jsonl", "line 2"), document("b.json")
    found = group([first, second, other])
    assert found.document_at(Path("a.jsonl")) is first
    assert found.document_at(Path("b.json")) is other
    assert found.document_at(Path("c.json")) is None


def test_a_document_added_after_the_first_question_is_found() -> None:
    found = group([document("a.json")])
    assert found.document_at(Path("b.json")) is None
    later = document("b.json")
    found.documents.append(later)
    assert found.document_at(Path("b.json")) is later
    found.documents = [replaced := document("b.json")]
    assert found.document_at(Path("b.json")) is replaced
    assert found.document_at(Path("a.json")) is None


def test_every_file_of_a_group_of_twenty_thousand_is_found_in_one_pass() -> None:
    documents = [document(f"{n:05d}-dev-agent.json") for n in range(20_000)]
    found = group(documents)
    started = time.perf_counter()
    assert all(found.document_at(d.path) is d for d in documents)
    assert time.perf_counter() - started < 1.0  # a scan each: 200 million comparisons of paths
