"""The real NeuralRelay chains: valid under our schemas, every believed property matched."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_handoff.config import Settings
from pytest_handoff.engine import check_paths
from tests.conftest import CHAIN_ID, SAMPLE_CHAIN, SELF_TEST_CHAIN, copy_chain, needs_corpus


@pytest.fixture(params=[SAMPLE_CHAIN, SELF_TEST_CHAIN], ids=["sample", "self-test"])
def real_chain(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    needs_corpus()
    copy_chain(request.param, tmp_path / ".neuralrelay" / "handoffs" / CHAIN_ID)
    return tmp_path


def test_real_chains_have_no_parse_or_schema_findings(real_chain: Path) -> None:
    _, results = check_paths([], real_chain, Settings())
    assert len(results) == 1
    assert [f for f in results[0].findings if f.code.startswith(("HF", "HS"))] == []


def test_every_believed_property_of_a_real_chain_is_matched_exactly_once(real_chain: Path) -> None:
    _, (result,) = check_paths([], real_chain, Settings())
    assert [f for f in result.findings if f.code in ("NR301", "NR302", "NR303")] == []
    matches = [note for note in result.notes if note.startswith("property match:")]
    assert matches
    assert all("-> nothing" not in note for note in matches)
    targets = [note.split(" -> ")[1].split()[0] for note in matches]
    assert len(targets) == len(set(targets))


def test_real_chains_fail_only_on_what_neuralrelay_itself_documents(real_chain: Path) -> None:
    _, (result,) = check_paths([], real_chain, Settings())
    assert not result.failed
    assert {f.code for f in result.findings} <= {"NR211", "NR212", "NR306"}
