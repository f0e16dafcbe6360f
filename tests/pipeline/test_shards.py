"""``--shard K/N``: whole groups, a stable split, and the shards together the whole run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_handoff.cli import main
from pytest_handoff.pipeline.shards import parse_shard, shard_of
from pytest_handoff.values.errors import ConfigError
from pytest_handoff.values.groups import GroupRef
from tests.views_helpers import generator


@pytest.mark.parametrize("text", ["0/3", "4/3", "3", "a/b", "1/0", "1/300", "", "1_0/20", "\uff11/2"])
def test_a_shard_is_k_of_n_with_k_between_1_and_n(text: str) -> None:
    with pytest.raises(ConfigError, match="shard must be K/N"):
        parse_shard(text, "command line")
    assert parse_shard(" 2/8 ", "command line") == (2, 8)


def test_each_of_three_shards_of_a_thousand_groups_gets_a_fifth_to_a_half_and_none_twice(
    tmp_path: Path,
) -> None:
    refs = [
        GroupRef("neuralrelay", f"2026{n:08d}", tmp_path / ".neuralrelay" / "handoffs" / f"2026{n:08d}", ())
        for n in range(1000)
    ]
    shards = {k: [ref for ref in refs if shard_of(ref, tmp_path, 3) == k] for k in (1, 2, 3)}
    assert all(len(refs) / 5 <= len(found) <= len(refs) / 2 for found in shards.values())
    assert sorted(ref.group_id for found in shards.values() for ref in found) == sorted(
        r.group_id for r in refs
    )
    # The same group in the same shard wherever the project lies.
    moved = tmp_path / "elsewhere"
    assert (
        [
            shard_of(r._replace(directory=moved / r.directory.relative_to(tmp_path)), moved, 3)
            for r in refs[:50]
        ]
        == [  # type: ignore[union-attr]
            shard_of(r, tmp_path, 3) for r in refs[:50]
        ]
    )


def findings_of(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[set[tuple[str, str, int, str]], int]:
    capsys.readouterr()
    main(["--format", "json", "--no-evidence", *args])
    report = json.loads(capsys.readouterr().out)
    return {(f["code"], f["path"], f["line"], f["pointer"]) for f in report["findings"]}, report["summary"][
        "chains"
    ]


def test_the_findings_of_three_shards_together_are_exactly_the_whole_runs(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    generator().generate(git_project, 60, broken_fraction=0.5, seed=11)
    whole, chains = findings_of([], capsys)
    assert chains == 60
    assert whole
    parts = [findings_of(["--shard", f"{k}/3"], capsys) for k in (1, 2, 3)]
    assert sum(count for _, count in parts) == chains
    assert all(12 <= count <= 30 for _, count in parts)
    union: set[tuple[str, str, int, str]] = set()
    for found, _ in parts:
        assert not union & found
        union |= found
    assert union == whole


def test_a_bad_shard_is_a_usage_error_and_a_pyproject_cannot_set_one(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--shard", "4/3"]) == 2
    assert "shard must be K/N" in capsys.readouterr().err
    (git_project / "pyproject.toml").write_text('[tool.handoff]\nshard = "1/2"\n', encoding="utf-8")
    assert main([]) == 2
    assert "unknown setting 'shard'" in capsys.readouterr().err


@pytest.mark.slow
def test_pytest_collects_only_its_shards_groups(pytester: pytest.Pytester) -> None:
    (pytester.path / ".git").mkdir()
    generator().generate(pytester.path, 20, broken_fraction=0.0, seed=3)
    counts = []
    for k in (1, 2):
        result = pytester.runpytest(
            "--handoffs", "-p", "no:cacheprovider", "--collect-only", "-q", f"--handoff-shard={k}/2"
        )
        counts.append(sum(1 for line in result.outlines if "::" in line))
    assert sum(counts) == 20
    assert all(counts)
