"""``handoff-lint report --plot FILE``: the report's scores over the chains, as a PNG or SVG chart.

matplotlib (the [plot] extra) is imported only here, and only when a chart is drawn. The figure is
drawn on its own Agg canvas, without pyplot, so that the caller's backend and state are left alone.
"""

from __future__ import annotations

import math
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_handoff.views.report import QUALITY, Report, title

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Past this many chains, markers and thick lines turn into bands: moving means are drawn instead.
MANY = 60
#: At most this many chain ids label the x axis (fewer when they would not fit side by side).
TICKS = 12
MARKERS = "osD^v<>ph*"
#: Pixels between neighbouring chain ids.
GAP = 6


def moving_mean(values: tuple[float, ...], window: int) -> list[float]:
    """The mean of each full run of ``window`` neighbours, oldest first.

    Item ``i`` is the mean of ``values[i : i + window]`` and is drawn at the last chain of that run,
    so the line starts at chain ``window``. Runs shorter than ``window`` are left out: the mean of
    the first one or two values swings to the ends of the scale, a spike that is not a trend.
    Fewer values than ``window`` give no mean at all.
    """
    if window < 1 or len(values) < window:
        return []
    total = sum(values[:window])
    means = [total / window]
    for index in range(window, len(values)):
        total += values[index] - values[index - window]
        means.append(total / window)
    return means


def window_of(chains: int) -> int:
    """How many chains a moving mean spans: a 25th of them, at least 5."""
    return max(5, chains // 25)


def plot(report: Report, target: Path) -> None:
    """Each score over the chains, oldest first, as a PNG or SVG (by ``target``'s suffix)."""
    from pytest_handoff.values.errors import UsageError

    suffix = target.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise UsageError(f"--plot writes a .png or .svg file, got {target.name!r}")
    try:
        import matplotlib
    except ImportError:
        raise UsageError(
            "--plot needs matplotlib, which is not installed: pip install 'pytest-handoff[plot]'"
        ) from None
    with matplotlib.rc_context({"svg.hashsalt": "handoff-lint"}):  # the same SVG for the same report
        figure = draw(report)
        try:
            figure.savefig(target, format=suffix[1:], metadata={"Date": None} if suffix == ".svg" else None)
        except OSError as error:
            raise UsageError(f"cannot write {target}: {error.strerror or error}") from None


def draw(report: Report) -> Figure:
    """The chart as a figure, laid out: the legend below the axes, where it can cover no data."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    views = report.chains
    positions = {view.group_id: index + 1 for index, view in enumerate(views)}
    many = len(views) > MANY
    figure = Figure(figsize=(10 if many else 8, 4.8), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    metrics = report.metrics
    low, high = (metrics[0].low, metrics[0].high) if metrics else (1.0, 10.0)
    failing = [positions[view.group_id] for view in views if view.failed]
    if many:  # a rug of red ticks under the scores: bands would cover the whole plot
        if failing:
            axes.plot(failing, [low - 0.15] * len(failing), linestyle="none", marker="|", markersize=8,
                      color="tab:red", alpha=0.7, label="fails its contracts")  # fmt: skip
    else:  # a pale band behind each failing chain
        for index, place in enumerate(failing):
            axes.axvspan(place - 0.5, place + 0.5, color="tab:red", alpha=0.12, linewidth=0,
                         label="fails its contracts" if index == 0 else None)  # fmt: skip
    drawn = [metric for metric in metrics if metric.values]
    window = window_of(len(views))
    for number, metric in enumerate(drawn):
        name = metric.name.replace("_", " ")
        x = [positions[group_id] for group_id in metric.chain_ids]
        if many:
            # Many chains: each score's moving mean (raw values would fill the plot); the
            # quality score's own values as faint dots behind.
            if metric.name == QUALITY:
                axes.plot(x, metric.values, linestyle="none", marker=".", markersize=2, alpha=0.25,
                          color="tab:blue")  # fmt: skip
            span = min(window, len(metric.values))  # a score few chains have: the mean of them all
            means = moving_mean(metric.values, span)
            axes.plot(x[span - 1 :], means, linewidth=2.0 if metric.name == QUALITY else 1.2,
                      marker="o" if len(means) == 1 else None, label=f"{name} (mean of {span})")  # fmt: skip
            continue
        # Series with equal values would hide each other: each is nudged sideways a little.
        nudge = (number - (len(drawn) - 1) / 2) * 0.06
        axes.plot(
            [place + nudge for place in x],
            metric.values,
            marker=MARKERS[number % len(MARKERS)],
            markersize=5,
            linewidth=2.2 if metric.name == QUALITY else 1.2,
            alpha=0.9 if metric.name == QUALITY else 0.75,
            label=name,
        )
    axes.set_ylim(low - 0.3, high + 0.3)
    axes.set_xlim(0.5, max(len(views), 1) + 0.5)
    axes.set_xlabel("chain, oldest to newest")
    axes.set_ylabel("score")
    axes.set_title(title(report))
    axes.grid(alpha=0.3)
    entries = len(drawn) + bool(failing)
    if entries:
        # Below the axes: inside them, any corner can hold data (scores span the whole scale).
        figure.legend(loc="outside lower center", ncols=min(entries, 3), fontsize=8, frameon=False)
    _label_chains(figure, axes, [view.group_id for view in views])
    return figure


def _label_chains(figure: Figure, axes: Axes, chain_ids: list[str]) -> None:
    """At most ``TICKS`` chain ids under the axis, evenly spread, thinned until none touches the next."""
    count = len(chain_ids)
    step = max(1, math.ceil(count / TICKS))
    while True:
        shown = list(range(0, count, step))
        axes.set_xticks([index + 1 for index in shown], [chain_ids[index] for index in shown], fontsize=8)
        if len(shown) < 2:
            return
        # Measured as drawn, so fonts and the figure's width are taken into account.
        figure.draw_without_rendering()
        boxes = [label.get_window_extent() for label in axes.get_xticklabels()]
        if all(left.x1 + GAP <= right.x0 for left, right in pairwise(boxes)):
            return
        # Centres ``step`` chains apart must be a label's width and a gap apart.
        spacing = min(
            right.x0 + right.width / 2 - left.x0 - left.width / 2 for left, right in pairwise(boxes)
        )
        widest = max(box.width for box in boxes)
        step = max(step + 1, math.ceil(step * (widest + 2 * GAP) / max(spacing, 1.0)))
