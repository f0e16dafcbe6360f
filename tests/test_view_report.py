"""handoff-lint report: verdicts, score means and trends, rules broken, worst chains, rework, tokens."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from views_helpers import (
    EXAMPLES,
    copy_chain,
    generator,
    in_examples,
    load_json,
    outside_ci,
    parse_tables,
    run,
    run_json,
    table_with,
    write_json,
)

from pytest_handoff.views.report import Metric

pytestmark = pytest.mark.usefixtures("outside_ci")
__all__ = ["in_examples", "outside_ci"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, str, list[str]]]]:
    """Twelve realistic chains, three of them broken on purpose (benchmarks/generate.py)."""
    out = tmp_path_factory.mktemp("generated")
    manifest = generator().generate(out, 12, broken_fraction=0.25, seed=7)
    return out, manifest


def _reviews(root: Path) -> list[tuple[str, dict[str, Any]]]:
    """(chain id, review data) oldest first (chain ids are start times)."""
    folders = sorted((root / ".neuralrelay" / "handoffs").iterdir())
    return [(folder.name, load_json(folder / "04-review-agent.json")) for folder in folders]


def _ols(values: list[float]) -> float:
    n = len(values)
    xs = range(n)
    x_mean, y_mean = (n - 1) / 2, sum(values) / n
    return sum((x - x_mean) * (y - y_mean) for x, y in zip(xs, values, strict=True)) / sum(
        (x - x_mean) ** 2 for x in xs
    )


@pytest.mark.usefixtures("in_examples")
def test_report_of_the_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = run_json(capsys, "report")
    assert code == 0
    assert report["chains"] == 2
    assert report["failing_chains"] == 1
    assert report["verdicts"] == {"approved": 2}
    assert report["scores"]["quality_score"]["mean"] == 8.0
    assert report["scores"]["requirements_clarity"]["mean"] == 8.5
    assert report["scores"]["requirements_clarity"]["slope_per_chain"] == -1.0
    assert [v["chain"] for v in report["scores"]["quality_score"]["values"]] == [
        "20261103-091500",
        "20261104-132000",
    ]
    assert {rule["code"] for rule in report["rules"]} == {
        "HS001", "NR201", "NR202", "NR204", "NR207", "NR208", "NR210", "NR301", "NR304", "NR307",
    }  # fmt: skip
    assert [chain["chain"] for chain in report["worst_chains"]] == ["20261104-132000"]
    assert report["tokens"] == {"total": 75200 + 52000, "chains": 2}
    assert report["rework_rate"] == 0.0


def test_report_means_and_trends_match_the_reviews(
    generated: tuple[Path, list[tuple[str, str, list[str]]]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, manifest = generated
    monkeypatch.chdir(root)
    _, report = run_json(capsys, "report")
    reviews = _reviews(root)
    assert report["chains"] == 12
    assert report["failing_chains"] == sum(1 for _, kind, _ in manifest if kind == "broken") == 3
    # A broken review (its timestamp) would drop out; the generator only breaks the BA file's.
    scores = [review["quality_score"] for _, review in reviews]
    assert report["scores"]["quality_score"]["mean"] == pytest.approx(sum(scores) / len(scores))
    assert report["scores"]["quality_score"]["slope_per_chain"] == pytest.approx(_ols(scores))
    for dimension in ("requirements_clarity", "dev_handoff_completeness", "test_coverage_adequacy"):
        values = [review["chain_quality"][dimension] for _, review in reviews]
        assert report["scores"][dimension]["mean"] == pytest.approx(sum(values) / len(values))
        assert report["scores"][dimension]["slope_per_chain"] == pytest.approx(_ols(values))
    assert report["tokens"]["total"] == sum(review["total_tokens"] for _, review in reviews)
    broken_rules = {name for _, kind, names in manifest if kind == "broken" for name in names}
    expected_codes = {generator().BREAKS[name][1] for name in broken_rules}
    assert expected_codes <= {rule["code"] for rule in report["rules"]}
    worst = {chain["chain"] for chain in report["worst_chains"]}
    assert worst == {group_id for group_id, kind, _ in manifest if kind == "broken"}


def _with_scores(tmp_path: Path, scores: list[int]) -> Path:
    """Chains copied from the clean example, one a day, whose reviews score ``scores`` in order."""
    clean = EXAMPLES / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / "20261103-091500"
    for day, score in enumerate(scores, 1):
        chain = copy_chain(clean, tmp_path, f"202612{day:02d}-091500")
        review = load_json(chain / "04-review-agent.json")
        review["quality_score"] = score
        review["chain_quality"]["test_coverage_adequacy"] = score
        write_json(chain / "04-review-agent.json", review)
    return tmp_path


@pytest.mark.parametrize(
    ("scores", "direction"),
    [([4, 5, 6, 7, 8, 9], "improving"), ([9, 8, 7, 6, 5, 4], "declining"), ([8, 7, 8, 8, 7, 8], "steady")],
)
def test_report_names_the_direction_of_a_trend(
    scores: list[int],
    direction: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(_with_scores(tmp_path, scores))
    _, report = run_json(capsys, "report")
    assert report["scores"]["quality_score"]["direction"] == direction
    assert report["scores"]["test_coverage_adequacy"]["direction"] == direction
    assert report["scores"]["requirements_clarity"]["direction"] == "steady"  # always 9


def test_report_draws_a_sparkline_from_oldest_to_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(_with_scores(tmp_path, [1, 4, 7, 10]))
    monkeypatch.setenv("COLUMNS", "140")
    _, out, _ = run(capsys, "report")
    line = next(line for line in out.splitlines() if line.startswith("quality_score"))
    assert "▁▃▆█" in line
    assert "improving" in line


def test_sparkline_averages_neighbours_beyond_its_width() -> None:
    metric = Metric("quality_score", (1.0,) * 50 + (10.0,) * 50, ("c",) * 100, 1.0, 10.0)
    assert metric.sparkline(width=4) == "▁▁██"
    assert Metric("q", (5.0,), ("c",), 1.0, 10.0).slope is None


def test_report_since_keeps_later_chains_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(_with_scores(tmp_path, [5, 6, 7, 8]))
    _, report = run_json(capsys, "report", "--since", "2026-12-03")
    assert report["chains"] == 2
    assert [v["value"] for v in report["scores"]["quality_score"]["values"]] == [7, 8]
    code, _, err = run(capsys, "report", "--since", "last tuesday")
    assert code == 2
    assert "YYYY-MM-DD" in err


def test_report_rework_rate_counts_chains_that_went_through_rework(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _with_scores(tmp_path, [5, 6, 7, 8])
    chain = root / ".neuralrelay" / "handoffs" / "20261201-091500"
    write_json(
        chain / "rework-1.json",
        {
            "rework_cycle": 1,
            "original_review_path": "04-review-agent.json",
            "issues_to_address": ["the filename"],
            "focus_areas": ["billing/api/schemas/export.py"],
            "verdict": "changes_requested",
        },
    )
    monkeypatch.chdir(root)
    _, report = run_json(capsys, "report")
    assert report["rework_rate"] == 0.25


@pytest.mark.usefixtures("in_examples")
def test_report_markdown_is_a_set_of_valid_github_tables(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "report", "--format", "markdown")
    tables = parse_tables(out)
    scores = table_with(tables, "Score", "Chains", "Mean")
    assert [row["Score"] for row in scores] == [
        "quality_score",
        "requirements_clarity",
        "dev_handoff_completeness",
        "test_coverage_adequacy",
    ]
    assert scores[1]["Mean"] == "8.50"
    rules = table_with(tables, "Rule", "Name")
    assert {row["Rule"] for row in rules} >= {"NR301", "NR307"}
    assert table_with(tables, "Chain", "Verdict")[0]["Chain"] == "20261104-132000"


@pytest.mark.parametrize("suffix", [".png", ".svg"])
@pytest.mark.usefixtures("in_examples")
def test_report_plot_writes_a_non_empty_image(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the [plot] extra (matplotlib)")
    target = tmp_path / f"trend{suffix}"
    code, _, err = run(capsys, "report", "--plot", str(target), "--format", "json")
    assert code == 0, err
    data = target.read_bytes()
    assert len(data) > 1000
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        root = ElementTree.fromstring(data)
        assert root.tag.endswith("svg")
        assert b"quality score" in data


@pytest.mark.usefixtures("in_examples")
def test_report_plot_without_matplotlib_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    code, _, err = run(capsys, "report", "--plot", str(tmp_path / "trend.png"))
    assert code == 2
    assert "pip install 'pytest-handoff[plot]'" in err
    assert not (tmp_path / "trend.png").exists()


@pytest.mark.usefixtures("in_examples")
def test_report_plot_takes_png_or_svg_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "report", "--plot", str(tmp_path / "trend.pdf"))
    assert code == 2
    assert ".png or .svg" in err


def test_matplotlib_is_imported_only_for_plot(tmp_path: Path) -> None:
    import subprocess

    script = (
        "import sys\n"
        "from pytest_handoff.cli import main\n"
        f"main(['report', {str(EXAMPLES / 'neuralrelay')!r}, '--format', 'json'])\n"
        "print('matplotlib' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip().splitlines()[-1] == "False"


def test_the_report_says_where_it_wrote_the_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the [plot] extra (matplotlib)")
    target = tmp_path / "trend.png"
    _, _, err = run(capsys, "report", "--plot", str(target))
    assert f"plot written to {target}" in err
