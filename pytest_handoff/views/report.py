"""``handoff-lint report``: across all chains, are our handoffs getting better?

Verdict counts; the mean and trend of the quality score and of each further score (NeuralRelay:
requirements_clarity, dev_handoff_completeness, test_coverage_adequacy); the rules broken most
often; the worst chains; the rework rate; token totals. Chains are taken oldest first; a trend
is the least-squares slope per chain, drawn as a sparkline (and with ``--plot FILE`` as a chart).
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple

from pytest_handoff.rules.modes import FAILURE_MODES, ModeCount, ModesOf, counted_modes, mode_label
from pytest_handoff.values.view_model import ChainView
from pytest_handoff.views.render import Section

SPARKS = "▁▂▃▄▅▆▇█"
#: A sparkline shows at most this many points (means of neighbouring chains beyond).
SPARK_WIDTH = 48
#: Rows of the "rules broken most often" and "worst chains" tables.
TOP = 10
WORST = 5
QUALITY = "quality_score"


class Metric(NamedTuple):
    """One score over the chains that have it, oldest first."""

    name: str
    values: tuple[float, ...]
    chain_ids: tuple[str, ...]
    low: float
    high: float

    @property
    def mean(self) -> float | None:
        return sum(self.values) / len(self.values) if self.values else None

    @property
    def slope(self) -> float | None:
        """Least-squares change per chain (None with fewer than two chains)."""
        count = len(self.values)
        if count < 2:
            return None
        x_mean = (count - 1) / 2
        y_mean = sum(self.values) / count
        spread = sum((x - x_mean) ** 2 for x in range(count))
        return sum((x - x_mean) * (y - y_mean) for x, y in enumerate(self.values)) / spread

    @property
    def direction(self) -> str:
        slope = self.slope
        if slope is None:
            return "-"
        # Steady when the fitted line moves less than a tenth of the scale over the chains.
        change = slope * (len(self.values) - 1)
        if abs(change) < (self.high - self.low) / 10:
            return "steady"
        return "improving" if change > 0 else "declining"

    def sparkline(self, width: int = SPARK_WIDTH) -> str:
        values = _buckets(self.values, width)
        span = (self.high - self.low) or 1.0
        return "".join(
            SPARKS[min(len(SPARKS) - 1, max(0, round((v - self.low) / span * (len(SPARKS) - 1))))]
            for v in values
        )


def _no_modes(code: str) -> tuple[str, ...]:
    return ()


class Report(NamedTuple):
    chains: tuple[ChainView, ...]
    since: date | None
    #: The failure modes of a rule code, as its rule row declares them.
    modes_of: ModesOf = _no_modes

    @property
    def metrics(self) -> list[Metric]:
        names: list[str] = [QUALITY]
        for view in self.chains:
            names.extend(name for name, _ in view.scores if name not in names)
        metrics = []
        for name in names:
            pairs = [
                (view.group_id, value, view.score_range)
                for view in self.chains
                if (value := _score(view, name)) is not None
            ]
            low, high = pairs[0][2] if pairs else (1.0, 10.0)
            metrics.append(
                Metric(name, tuple(v for _, v, _ in pairs), tuple(c for c, _, _ in pairs), low, high)
            )
        return metrics

    @property
    def verdicts(self) -> Counter[str]:
        return Counter(view.verdict or "no review" for view in self.chains)

    def rules(self) -> list[tuple[str, str, int, int]]:
        """(code, name, findings, chains) of the rules broken, most often first."""
        findings: Counter[str] = Counter()
        chains: Counter[str] = Counter()
        names: dict[str, str] = {}
        for view in self.chains:
            for finding in view.findings:
                findings[finding.code] += 1
                names[finding.code] = finding.rule or finding.code
            chains.update({finding.code for finding in view.findings})
        ranked = sorted(findings, key=lambda code: (-chains[code], -findings[code], code))
        return [(code, names[code], findings[code], chains[code]) for code in ranked]

    def modes(self) -> list[ModeCount]:
        """The failure modes (MAST) the chains' findings are evidence of, most chains first."""
        return counted_modes((finding for view in self.chains for finding in view.findings), self.modes_of)

    def worst(self) -> list[ChainView]:
        """Chains with the most errors first, then the lowest quality score (no review counts as lowest)."""

        def badness(view: ChainView) -> tuple[int, float, int, str]:
            score = view.quality_score if view.quality_score is not None else float("-inf")
            return (-view.count("error"), score, -view.count("warning"), view.group_id)

        return [
            view for view in sorted(self.chains, key=badness) if view.findings or view.verdict != "approved"
        ][:WORST]

    @property
    def rework_rate(self) -> float | None:
        if not self.chains:
            return None
        return sum(1 for view in self.chains if view.rework_cycles) / len(self.chains)

    @property
    def tokens(self) -> tuple[int, int]:
        """(total over the chains, chains that state one): the review's total, else the stages' sum."""
        total = counted = 0
        for view in self.chains:
            spent = view.total_tokens
            if spent is None:
                parts = [stage.tokens for stage in view.stages if stage.tokens is not None]
                spent = sum(parts) if parts else None
            if spent is not None:
                total += spent
                counted += 1
        return total, counted


def _score(view: ChainView, name: str) -> float | None:
    if name == QUALITY:
        return view.quality_score
    return dict(view.scores).get(name)


def _buckets(values: tuple[float, ...], width: int) -> list[float]:
    """``values``, or the means of ``width`` runs of neighbours when there are more."""
    if len(values) <= width:
        return list(values)
    runs = [values[len(values) * i // width : len(values) * (i + 1) // width] for i in range(width)]
    return [sum(run) / len(run) for run in runs if run]


def build_report(views: list[ChainView], since: date | None, modes_of: ModesOf = _no_modes) -> Report:
    if since is not None:
        views = [view for view in views if view.started and view.started[:10] >= since.isoformat()]
    return Report(tuple(views), since, modes_of)


# --- rendering ---------------------------------------------------------------------------------


def _format(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def title(report: Report) -> str:
    scope = f" since {report.since.isoformat()}" if report.since else ""
    return f"Handoff report: {len(report.chains)} chains{scope}"


def sections(report: Report, sparklines: bool = True) -> list[Section]:
    chains = report.chains
    failed = sum(1 for view in chains if view.failed)
    first = next((view.started for view in chains if view.started), None)
    last = next((view.started for view in reversed(chains) if view.started), None)
    total, counted = report.tokens
    lines = [
        ("Chains", f"{len(chains)} ({failed} failing their contracts)"),
        ("Period", f"{first or '-'} to {last or '-'}"),
        (
            "Verdicts",
            ", ".join(f"{verdict} {count}" for verdict, count in sorted(report.verdicts.items())) or "-",
        ),
        (
            "Rework rate",
            "-" if report.rework_rate is None else f"{report.rework_rate:.0%} of chains went through rework",
        ),
        ("Tokens", f"{total:,} in {counted} chains ({total // counted:,} a chain)" if counted else "-"),
    ]
    metric_headers: tuple[str, ...] = ("Score", "Chains", "Mean", "Trend per chain", "Direction")
    if sparklines:
        metric_headers += ("Oldest to newest",)
    metric_rows = []
    for metric in report.metrics:
        row = (
            metric.name,
            str(len(metric.values)),
            _format(metric.mean),
            _signed(metric.slope),
            metric.direction,
        )
        metric_rows.append(row + ((metric.sparkline(),) if sparklines else ()))
    rules = report.rules()
    worst = report.worst()
    return [
        Section("", tuple(lines)),
        Section("Scores", headers=metric_headers, rows=tuple(metric_rows), empty="no reviewed chains"),
        Section(
            "Rules broken most often",
            headers=("Rule", "Name", "Chains", "Findings"),
            rows=tuple((code, name, str(n_chains), str(n)) for code, name, n, n_chains in rules[:TOP]),
            empty="no rule broken",
        ),
        Section(
            "Failure modes (MAST)",
            headers=("Mode", "Chains", "Findings"),
            rows=tuple(
                (mode_label(count.mode), str(count.groups), str(count.findings)) for count in report.modes()
            ),
            empty="no finding is evidence of a failure mode",
        ),
        Section(
            "Worst chains",
            headers=("Chain", "Verdict", "Quality", "Errors", "Warnings"),
            rows=tuple(
                (
                    view.group_id,
                    view.verdict or "no review",
                    _format(view.quality_score, 0) if view.quality_score is not None else "-",
                    str(view.count("error")),
                    str(view.count("warning")),
                )
                for view in worst
            ),
            empty="every chain is approved and meets its contracts",
        ),
    ]


def report_data(report: Report) -> dict[str, Any]:
    total, counted = report.tokens
    return {
        "since": report.since.isoformat() if report.since else None,
        "chains": len(report.chains),
        "failing_chains": sum(1 for view in report.chains if view.failed),
        "verdicts": dict(sorted(report.verdicts.items())),
        "scores": {
            metric.name: {
                "chains": len(metric.values),
                "mean": metric.mean,
                "slope_per_chain": metric.slope,
                "direction": metric.direction,
                "values": [
                    {"chain": c, "value": v} for c, v in zip(metric.chain_ids, metric.values, strict=True)
                ],
            }
            for metric in report.metrics
        },
        "rules": [
            {"code": code, "rule": name, "chains": n_chains, "findings": n}
            for code, name, n, n_chains in report.rules()
        ],
        "modes": [
            {
                "mode": count.mode,
                "name": FAILURE_MODES[count.mode][0],
                "chains": count.groups,
                "findings": count.findings,
            }
            for count in report.modes()
        ],
        "worst_chains": [
            {
                "chain": view.group_id,
                "verdict": view.verdict,
                "quality_score": view.quality_score,
                "errors": view.count("error"),
                "warnings": view.count("warning"),
            }
            for view in report.worst()
        ],
        "rework_rate": report.rework_rate,
        "tokens": {"total": total, "chains": counted},
    }


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
    matplotlib.use("Agg")  # no display: a file only
    matplotlib.rcParams["svg.hashsalt"] = "handoff-lint"  # the same SVG for the same report
    from matplotlib import pyplot

    views = report.chains
    positions = {view.group_id: index for index, view in enumerate(views)}
    many = len(views) > 60  # past this, markers and thick lines turn into bands
    figure, axes = pyplot.subplots(figsize=(10 if many else 8, 4.2), dpi=100)
    try:
        metrics = report.metrics
        low, high = (metrics[0].low, metrics[0].high) if metrics else (1.0, 10.0)
        failing = [positions[view.group_id] + 1 for view in views if view.failed]
        if many:  # a rug of red ticks under the scores: bands would cover the whole plot
            if failing:
                axes.plot(failing, [low - 0.15] * len(failing), linestyle="none", marker="|", markersize=8,
                          color="tab:red", alpha=0.7, label="fails its contracts")  # fmt: skip
        else:  # a pale band behind each failing chain
            for index, place in enumerate(failing):
                axes.axvspan(place - 0.5, place + 0.5, color="tab:red", alpha=0.12, linewidth=0,
                             label="fails its contracts" if index == 0 else None)  # fmt: skip
        drawn = [metric for metric in metrics if metric.values]
        markers = "osD^v<>ph*"
        window = max(5, len(views) // 25)
        for number, metric in enumerate(drawn):
            name = metric.name.replace("_", " ")
            x = [positions[group_id] + 1 for group_id in metric.chain_ids]
            if many:
                # Many chains: each score's moving mean (raw values would fill the plot); the
                # quality score's own values as faint dots behind.
                if metric.name == QUALITY:
                    axes.plot(
                        x,
                        metric.values,
                        linestyle="none",
                        marker=".",
                        markersize=2,
                        alpha=0.25,
                        color="tab:blue",
                    )
                axes.plot(x, _moving_mean(metric.values, window), linewidth=2.0 if metric.name == QUALITY else 1.2,
                          label=f"{name} (mean of {window})")  # fmt: skip
                continue
            # Series with equal values would hide each other: each is nudged sideways a little.
            nudge = (number - (len(drawn) - 1) / 2) * 0.06
            axes.plot(
                [place + nudge for place in x],
                metric.values,
                marker=markers[number % len(markers)],
                markersize=5,
                linewidth=2.2 if metric.name == QUALITY else 1.2,
                alpha=0.9 if metric.name == QUALITY else 0.75,
                label=name,
            )
        axes.set_ylim(low - 0.3, high + 0.3)
        axes.set_xlim(0.5, max(len(views), 1) + 0.5)
        step = max(1, -(-len(views) // 12))  # at most 12 labels, evenly spread
        shown = list(range(0, len(views), step))
        axes.set_xticks(
            [index + 1 for index in shown],
            [views[index].group_id for index in shown],
            rotation=20,
            fontsize=8,
        )
        axes.set_xlabel("chain, oldest to newest")
        axes.set_ylabel("score")
        axes.set_title(title(report))
        axes.grid(alpha=0.3)
        if drawn or failing:
            # Scores sit high and the failing rug at the bottom: the legend goes between them.
            columns = 2 if len(drawn) + bool(failing) > 4 else 1
            if many:
                axes.legend(fontsize=8, loc="center left", ncol=columns)
            else:
                axes.legend(fontsize=8, loc="lower left", ncol=columns)
        figure.tight_layout()
        try:
            figure.savefig(target, format=suffix[1:], metadata={"Date": None} if suffix == ".svg" else None)
        except OSError as error:
            raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
    finally:
        pyplot.close(figure)


def _moving_mean(values: tuple[float, ...], window: int) -> list[float]:
    """Each value's mean with the ``window - 1`` before it (fewer at the start)."""
    means: list[float] = []
    total = 0.0
    for index, value in enumerate(values):
        total += value
        if index >= window:
            total -= values[index - window]
        means.append(total / min(index + 1, window))
    return means


# --- command -----------------------------------------------------------------------------------
