"""``handoff-lint report``: across all chains, are our handoffs getting better?

Verdict counts; the mean and trend of the quality score and of each further score (NeuralRelay:
requirements_clarity, dev_handoff_completeness, test_coverage_adequacy); the rules broken most
often; the worst chains; the rework rate; token totals. Chains are taken oldest first; a trend
is the least-squares slope per chain, drawn as a sparkline (``--plot FILE``'s chart is report_plot.py's).
"""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any, NamedTuple

from pytest_handoff.rules.modes import FAILURE_MODES, ModeCount, ModesOf, counted_modes, mode_label
from pytest_handoff.values.view_model import ChainView
from pytest_handoff.values.wording import counted
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
        total = chains_with = 0
        for view in self.chains:
            spent = view.total_tokens
            if spent is None:
                parts = [stage.tokens for stage in view.stages if stage.tokens is not None]
                spent = sum(parts) if parts else None
            if spent is not None:
                total += spent
                chains_with += 1
        return total, chains_with


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
    return f"Handoff report: {counted(len(report.chains), 'chain')}{scope}"


def sections(report: Report, sparklines: bool = True) -> list[Section]:
    chains = report.chains
    failed = sum(1 for view in chains if view.failed)
    first = next((view.started for view in chains if view.started), None)
    last = next((view.started for view in reversed(chains) if view.started), None)
    total, chains_with = report.tokens
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
        (
            "Tokens",
            f"{total:,} in {counted(chains_with, 'chain')} ({total // chains_with:,} a chain)"
            if chains_with
            else "-",
        ),
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
    total, chains_with = report.tokens
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
        "tokens": {"total": total, "chains": chains_with},
    }
