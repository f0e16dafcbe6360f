"""Judging a run: each ratio against its target, and the tables and chart that show them."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from timing import log

#: The row of handoff-lint with every file of the tree named.
NAMED_ALL = "handoff-lint clean, every file named (pre-commit --all-files)"
#: The row of pytest --handoffs on two xdist workers.
XDIST = "pytest --handoffs -n 2 clean"
#: The row of pytest's no-op items on two xdist workers: xdist's own cost.
XDIST_NOOP = "floor: pytest -n 2, one no-op item per chain"
#: The row of Python importing only the standard-library modules a one-file run loads.
STDLIB_FLOOR = "floor: python importing the standard library a one-file run loads"


def size_label(size: int) -> str:
    return f"{size:,} file" + ("s" if size != 1 else "")


def per_round(combine: Callable[..., float], *series: Sequence[float | None] | None) -> list[float] | None:
    """``combine`` of the runs of each round: the runs of one round were made minutes apart at most,
    so drift on a shared machine cancels out of their ratio. A round where a run failed (None) is
    left out; None when a series is missing or no round is left."""
    if any(s is None for s in series):
        return None
    rounds = [values for values in zip(*series, strict=True) if None not in values]
    try:
        found = [combine(*values) for values in rounds]
    except ZeroDivisionError:
        return None
    return found or None


def over(a: Sequence[float | None] | None, b: Sequence[float | None] | None) -> list[float] | None:
    """The ratio a/b of each round."""
    return per_round(lambda x, y: x / y, a, b)


def judge(results: dict[str, Any], sizes: list[int], memory_sizes: list[int]) -> list[dict[str, Any]]:
    """Each figure with its target: the median over the rounds of the figure taken round by
    round, with its smallest and largest round."""
    timings = results["timings"]

    def runs(name: str, size: int) -> list[float] | None:
        """The runs of a measurement at ``size``, one per round (a size-independent one: the runs
        made in the rounds of that size)."""
        per_size = timings.get(name, {})
        if str(size) in per_size:
            entry = per_size[str(size)]
            return None if entry["median_ms"] is None else list(entry["runs_ms"])
        pooled = per_size.get("-", {})
        found: list[float] | None = pooled.get("runs_by_size", {}).get(str(size))  # None: it failed there
        return found

    big = 10000 if 10000 in sizes else max((s for s in sizes if s >= 4), default=None)
    one = 1 if 1 in sizes else None
    verdicts: list[dict[str, Any]] = []

    def add(
        name: str,
        rounds: list[float] | None,
        target: str,
        ok: Callable[[float], bool],
        unit: str = "x",
        note: str = "",
    ) -> None:
        value = None if not rounds else statistics.median(rounds)
        verdicts.append(
            {
                "name": name,
                "value": None if value is None else round(value, 3),
                "min": None if not rounds else round(min(rounds), 3),
                "max": None if not rounds else round(max(rounds), 3),
                "unit": unit,
                "target": target,
                "result": "N/A" if value is None else ("PASS" if ok(value) else "FAIL"),
                "note": note,
            }
        )

    def info(name: str, rounds: list[float] | None, unit: str = "x") -> None:
        """A figure shown next to the targets, judged by none."""
        add(name, rounds, "-", lambda v: True, unit=unit)
        verdicts[-1]["result"] = "info"

    cj = "check-jsonschema (4 schemas, summed)"
    if big is not None:
        k = f"{big // 1000}k" if big >= 1000 else str(big)
        lint, cj_big = runs("handoff-lint clean", big), runs(cj, big)
        serial, noop = (
            runs("pytest --handoffs clean", big),
            runs("floor: pytest, one no-op item per chain", big),
        )
        add(
            f"check-jsonschema {k} / handoff-lint {k}, all rules (speed-up)",
            over(cj_big, lint),
            ">= 3x",
            lambda v: v >= 3,
        )
        add(
            f"check-jsonschema {k} / handoff-lint --select HF,HS {k}, schema rules only (speed-up)",
            over(cj_big, runs("handoff-lint clean, schema only (--select HF,HS)", big)),
            ">= 6x",
            lambda v: v >= 6,
        )
        add(
            f"handoff-lint {k} / read+json.loads floor {k}",
            over(lint, runs("floor: read + json.loads", big)),
            "<= 6x",
            lambda v: v <= 6,
        )
        info(f"check-jsonschema {k} / pytest --handoffs {k} (speed-up)", over(cj_big, serial))
        add(
            f"pytest --handoffs {k} / (pytest's no-op items + handoff-lint) {k}",
            per_round(lambda whole, items, alone: whole / (items + alone), serial, noop, lint),
            "<= 1.15x",
            lambda v: v <= 1.15,
        )
        xdist, noop_xdist = runs(XDIST, big), runs(XDIST_NOOP, big)
        add(
            f"pytest --handoffs -n 2 {k} / (pytest -n 2's no-op items + handoff-lint) {k}",
            per_round(lambda whole, items, alone: whole / (items + alone), xdist, noop_xdist, lint),
            "<= 1.15x",
            lambda v: v <= 1.15,
        )
        # On 2 cores a serial run already checks on both: -n 2 cannot beat it (shown, not judged).
        info(f"pytest --handoffs -n 2 {k} / pytest --handoffs {k}", over(xdist, serial))
        # Serial runs already check on every core: under xdist the items' own cost is what can grow.
        info(
            f"pytest -n 2 / pytest, one no-op item per chain {k} (xdist's own cost, nothing checked)",
            over(noop_xdist, noop),
        )
        info(
            f"pytest --handoffs -n 2 {k} less pytest --handoffs {k}, over xdist's own extra on no-op items",
            per_round(lambda x, s, nx, n: (x - s) / (nx - n), xdist, serial, noop_xdist, noop),
        )
        info(
            f"check-jsonschema {k} / pytest with one no-op item per chain {k} (best any plugin can do)",
            over(cj_big, noop),
        )
        add(
            f"pytest --handoffs {k}: all broken / clean",
            over(runs("pytest --handoffs all broken", big), serial),
            "<= 3x",
            lambda v: v <= 3,
        )
        add(
            f"handoff-lint {k}: every file named / the folder named",
            over(runs(NAMED_ALL, big), lint),
            "<= 1.5x",
            lambda v: v <= 1.5,
        )
        info(f"handoff-lint {k}: all broken / clean", over(runs("handoff-lint all broken", big), lint))
        cache = results.get("cache", {}).get(str(big), {})
        pytest_cache = cache.get("pytest --handoffs -p cacheprovider")
        if pytest_cache is not None:
            # Not the same rounds: the cache pairs run after every other measurement of the size.
            info(
                f"pytest with one no-op item per chain {k} / pytest --handoffs cold {k} (best warm / cold possible)",
                None
                if noop is None or pytest_cache["cold"]["median_ms"] is None
                else [statistics.median(noop) / pytest_cache["cold"]["median_ms"]],
            )
        # The target applies to whichever tool keeps a result cache; one without is shown only.
        for name, c in cache.items():
            cold = c["cold"]["runs_ms"] if c["cold"]["median_ms"] is not None else None
            warm = c["warm"]["runs_ms"] if c["warm"]["median_ms"] is not None else None
            add(f"{name} {k}: warm / cold", over(warm, cold), "<= 0.2x (1/5)", lambda v: v <= 0.2)
            if not c["has_cache"] and verdicts[-1]["result"] != "N/A":
                verdicts[-1]["result"] = "no cache"
                verdicts[-1]["note"] = "no handoff result cache found after the cold run"
        if cache and not any(c["has_cache"] for c in cache.values()):
            add(
                f"warm re-run with a result cache {k}",
                None,
                "<= 0.2x (1/5)",
                lambda v: False,
                note="neither tool left a result cache",
            )
            verdicts[-1]["result"] = "FAIL"
    if one is not None:
        lint_one, bare = runs("handoff-lint clean", one), runs("python -c pass", one)
        add(
            "handoff-lint 1 file / check-jsonschema 1 file",
            over(lint_one, runs(cj, one)),
            "<= 0.25x",
            lambda v: v <= 0.25,
        )
        add("handoff-lint 1 file / python -c pass", over(lint_one, bare), "<= 4.5x", lambda v: v <= 4.5)
        info(
            "python importing the standard library a one-file run loads / python -c pass (best one-file ratio)",
            over(runs(STDLIB_FLOOR, one), bare),
        )
    memory = results.get("memory", {})
    if "10000" in memory and "50000" in memory:
        growth = (
            memory["50000"]["handoff_lint"]["max_rss_mb"] - memory["10000"]["handoff_lint"]["max_rss_mb"]
        ) / 4
        info("handoff-lint peak RSS growth, 10k -> 50k files (per 10k files)", [growth], unit=" MB")
    if "10000" in memory:
        add(
            "handoff-lint peak RSS at 10k files",
            [memory["10000"]["handoff_lint"]["max_rss_mb"]],
            "< 300 MB",
            lambda v: v < 300,
            unit=" MB",
        )
    return verdicts


def fmt_ms(value: float | None) -> str:
    return "error" if value is None else f"{value:,.1f}"


def spread(entry: dict[str, Any]) -> str:
    """A timing's median with its fastest and slowest run: ``68.2 (66.0-71.9)``."""
    runs = entry.get("runs_ms") or []
    if entry.get("median_ms") is None or not runs:
        return fmt_ms(entry.get("median_ms"))
    return f"{fmt_ms(entry['median_ms'])} ({min(runs):,.1f}-{max(runs):,.1f})"


def fmt_value(v: dict[str, Any]) -> str:
    """A figure: ``1.75x (1.70-1.82)``, the median of its rounds with the smallest and largest."""
    if v["value"] is None:
        return "-"
    if v["unit"] == " MB":
        return f"{v['value']:.1f}{v['unit']}"
    shown = f"{v['value']:.2f}{v['unit']}"
    low, high = v.get("min"), v.get("max")
    return shown if low is None or low == high else f"{shown} ({low:.2f}-{high:.2f})"


def tables(results: dict[str, Any], sizes: list[int]) -> dict[str, list[list[str]]]:
    """Rows (header first) of the timing, cache, ratio and memory tables."""
    timings = results["timings"]
    header = ["ms: median (min-max)", *[size_label(s) for s in sizes]]
    timing_rows = [header]
    for name, per_size in timings.items():
        if "-" in per_size:
            timing_rows.append([name, *[spread(per_size["-"]) if i == 0 else "" for i in range(len(sizes))]])
            continue
        timing_rows.append([name, *[spread(per_size[str(s)]) if str(s) in per_size else "-" for s in sizes]])
    cache_rows = [["cache (median ms)", "size", "cold", "warm", "warm/cold", "cache found"]]
    for size, variants in results.get("cache", {}).items():
        for name, c in variants.items():
            ratio = "-" if c["warm_over_cold"] is None else f"{c['warm_over_cold']:.2f}"
            cache_rows.append(
                [
                    name,
                    size_label(int(size)),
                    fmt_ms(c["cold"]["median_ms"]),
                    fmt_ms(c["warm"]["median_ms"]),
                    ratio,
                    "yes" if c["has_cache"] else "no",
                ]
            )
    ratio_rows = [["ratio", "value", "target", "result"]]
    for v in results["verdicts"]:
        note = f" ({v['note']})" if v["note"] else ""
        ratio_rows.append([v["name"], fmt_value(v), v["target"], v["result"] + note])
    memory_rows = [["peak RSS", "files", "handoff-lint MB", "handoff-lint ms", "read+json floor MB"]]
    for size, m in results.get("memory", {}).items():
        if size == "python -c pass":
            continue
        memory_rows.append(
            [
                size_label(int(size)),
                f"{m['files']:,}",
                f"{m['handoff_lint']['max_rss_mb']:,.1f}",
                f"{m['handoff_lint']['wall_ms']:,.0f}",
                f"{m['json_floor']['max_rss_mb']:,.1f}",
            ]
        )
    if "python -c pass" in results.get("memory", {}):
        memory_rows.append(
            ["python -c pass", "-", "-", "-", f"{results['memory']['python -c pass']['max_rss_mb']:.1f}"]
        )
    return {"timings": timing_rows, "cache": cache_rows, "ratios": ratio_rows, "memory": memory_rows}


def plain(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown(rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(rows[0]) + " |", "|" + "|".join(["---"] + ["---:"] * (len(rows[0]) - 1)) + "|"]
    out.extend("| " + " | ".join(c or " " for c in row) + " |" for row in rows[1:])
    return "\n".join(out)


def draw_chart(verdicts: list[dict[str, Any]], path: Path) -> None:
    """Each judged ratio as a bar, as a share of its target (1.0 is the target; left of it is met)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("no chart: matplotlib is not installed (pip install matplotlib)")
        return
    rows = []
    for v in verdicts:
        target = v["target"].split(" (")[0].rstrip("x")
        if v["value"] is None or v["result"] not in ("PASS", "FAIL") or v["unit"] != "x":
            continue
        bound = float(target.split()[-1])
        # "<= 4x": value / 4; ">= 10x" (a speed-up): 10 / value. Either way, under 1 meets it.
        share = v["value"] / bound if target.startswith("<=") else bound / v["value"]
        rows.append((v["name"], share, v["result"]))
    figure, axes = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.2))
    names = [name for name, _, _ in rows][::-1]
    shares = [share for _, share, _ in rows][::-1]
    colours = ["#2e7d32" if result == "PASS" else "#c62828" for _, _, result in rows][::-1]
    axes.barh(names, shares, color=colours)
    axes.axvline(1.0, color="black", linewidth=1)
    axes.set_xlabel("share of the target (at most 1 meets it)")
    axes.tick_params(axis="y", labelsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110, bbox_inches="tight")  # the longest name whole
    log(f"chart written to {path}")
