"""handoff-lint report --plot: the chart's moving means and its layout (the legend covers no data)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_handoff.views.report import build_report
from pytest_handoff.views.report_plot import TICKS, moving_mean, window_of
from tests.conftest import REPO

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def synthetic_views(count: int, spread: bool = False) -> list[Any]:
    """``count`` approved chains, every seventh failing its contracts.

    Scores 7-9, or with ``spread`` over the whole scale (1-10), so that every corner of the axes
    holds a point somewhere, the lower left one at the first chain.
    """
    from pytest_handoff.values.findings import Finding, Severity
    from pytest_handoff.values.view_model import ChainView

    broken = Finding(path="x.json", line=1, column=1, code="HS001", severity=Severity.ERROR, message="m")

    def score(index: int) -> float:
        return float(1 + index * 7 % 10) if spread else float(7 + index % 3)

    return [
        ChainView(
            "neuralrelay",
            f"2026{index:06d}",
            "",
            None,
            "task",
            (),
            verdict="approved",
            quality_score=score(index),
            # Equal to the quality score at 7-9 (series the plot nudges apart), mirrored with spread.
            scores=(("test_coverage_adequacy", 11.0 - score(index) if spread else score(index)),),
            findings=(broken,) if index % 7 == 0 else (),
        )
        for index in range(count)
    ]


# --- the moving mean: a function of the series alone ----------------------------------------------


def test_a_moving_mean_starts_where_its_window_is_full() -> None:
    assert moving_mean((2.0, 4.0, 6.0, 8.0), 2) == [3.0, 5.0, 7.0]
    assert moving_mean((2.0, 4.0, 6.0), 3) == [4.0]
    assert moving_mean((2.0, 4.0), 3) == []


@pytest.mark.parametrize(
    "values",
    [
        (10.0,) + (7.0,) * 29,  # one high score first: the old line started at 10 and fell to 7
        (1.0,) + (9.0,) * 29,  # one low score first
        tuple(float(1 + index * 7 % 10) for index in range(30)),
    ],
)
def test_the_moving_mean_does_not_spike_at_its_start(values: tuple[float, ...]) -> None:
    window = 5
    first = moving_mean(values, window)[0]
    start = values[:window]
    assert min(start) <= first <= max(start)
    # The whole first window, not its first value alone: one outlier cannot set where the line starts.
    assert first == pytest.approx(sum(start) / window)
    assert first < max(start) or min(start) == max(start)


@given(
    values=st.lists(st.floats(min_value=1, max_value=10), min_size=1, max_size=60),
    window=st.integers(min_value=1, max_value=30),
)
def test_every_moving_mean_lies_within_its_window(values: list[float], window: int) -> None:
    means = moving_mean(tuple(values), window)
    assert len(means) == max(0, len(values) - window + 1)
    for index, mean in enumerate(means):
        run = values[index : index + window]
        assert min(run) - 1e-9 <= mean <= max(run) + 1e-9


# --- the chart ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "words"),
    [(5, ["fails its contracts", "quality score"]), (500, ["mean of 20", "fails its contracts"])],
)
def test_the_plot_marks_failing_chains_and_at_500_draws_moving_means(
    tmp_path: Path, count: int, words: list[str]
) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the [plot] extra (matplotlib)")
    from pytest_handoff.views.report_plot import plot

    target = tmp_path / "trend.svg"
    plot(build_report(synthetic_views(count), None), target)
    text = target.read_text()
    for word in words:
        assert word in text
    # Equal series are nudged apart at a few chains, and overlaid as means at many.
    assert ("mean of" in text) == (count > 60)


def _drawn(count: int) -> Figure:
    pytest.importorskip("matplotlib", reason="--plot needs the [plot] extra (matplotlib)")
    from pytest_handoff.views.report_plot import draw

    figure = draw(build_report(synthetic_views(count, spread=True), None))
    figure.draw_without_rendering()
    return figure


@pytest.mark.parametrize("count", [4, 500])
def test_the_legend_covers_no_data_and_no_chain_id(count: int) -> None:
    figure = _drawn(count)
    renderer = figure.canvas.get_renderer()
    (axes,) = figure.axes
    (legend,) = figure.legends
    box = legend.get_window_extent(renderer)
    assert axes.lines
    for line in axes.lines:
        points = line.get_transform().transform(line.get_xydata())
        inside = [(x, y) for x, y in points if box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1]
        assert not inside, f"{line.get_label()}: {len(inside)} points under the legend"
    for patch in axes.patches:  # the bands behind failing chains
        assert not patch.get_window_extent(renderer).overlaps(box)
    assert not axes.get_window_extent(renderer).overlaps(box)
    labels = [label.get_window_extent(renderer) for label in axes.get_xticklabels()]
    assert 2 <= len(labels) <= min(count, TICKS)
    for left, right in pairwise(labels):
        assert left.x1 < right.x0, "two chain ids overlap"
    assert not any(label.overlaps(box) for label in labels)


def test_at_many_chains_each_mean_starts_at_its_windows_last_chain() -> None:
    figure = _drawn(500)
    window = window_of(500)
    (axes,) = figure.axes
    means = [line for line in axes.lines if "mean of" in str(line.get_label())]
    assert len(means) == 2
    for line in means:
        x = list(line.get_xdata())
        assert x[0] == window
        assert x[-1] == 500


def test_the_docs_show_the_chart_at_4_and_at_500_chains() -> None:
    # Drawn by scripts/report_plots.py; small enough to keep in the repository.
    page = (REPO / "docs" / "views.md").read_text(encoding="utf-8")
    for count in (4, 500):
        image = REPO / "docs" / f"report-trend-{count}.png"
        assert image.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert image.stat().st_size < 80_000
        assert f"](report-trend-{count}.png)" in page
