#!/usr/bin/env python3
"""Benchmark handoff-lint and ``pytest --handoffs`` against check-jsonschema and Python floors.

    python benchmarks/run.py [--sizes 1,1000,10000] [--repeat 5] [--workdir DIR]
                             [--memory-sizes 1000,10000,50000] [--seed 0]

Standard library only; check-jsonschema is installed into its own venv
(``benchmarks/.venv-check-jsonschema``) on first use. See ``benchmarks/README.md`` for what
each measurement is and how the targets are judged.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCHEMAS = HERE.parent / "schemas" / "neuralrelay"
RESULTS = HERE / "results.json"

sys.path.insert(0, str(HERE))
import generate  # noqa: E402  (benchmarks/generate.py, next to this file)
from projects import (  # noqa: E402
    FLOOR_JSON,
    FLOOR_READ,
    ONE_FILE,
    TYPE_OF,
    Tree,
    clear_artefacts,
    empty_project,
    ensure_tree,
    has_handoff_cache,
    noop_items_project,
    snapshot_package,
    stdlib_floor,
)
from timing import (  # noqa: E402
    ENV,
    SMALL_REPEAT,
    Command,
    Job,
    arg_budget,
    chunked,
    ensure_check_jsonschema,
    find_tool_dir,
    git_state,
    log,
    peak_rss,
    run_jobs,
    version_of,
)
from verdicts import (  # noqa: E402
    NAMED_ALL,
    STDLIB_FLOOR,
    XDIST,
    XDIST_NOOP,
    draw_chart,
    judge,
    markdown,
    over,
    plain,
    size_label,
    tables,
)

# --- the benchmark ---------------------------------------------------------------------------


@dataclass
class Tools:
    python: str
    handoff_lint: str
    pytest: str
    check_jsonschema: str | None
    lint_cache_flag: bool  # handoff-lint has --cache-dir


def targets_for(tree: Tree, size: int) -> list[str]:
    """What is passed on the command line: one file for a size below 4, else the tree root."""
    if size < 4:
        chain = tree.files()[0].parent
        names = [ONE_FILE, *[n for n in generate.FILE_NAMES if n != ONE_FILE]][:size]
        return [str(chain.relative_to(tree.root) / name) for name in names]
    return ["."]


def cj_commands(tools: Tools, tree: Tree, size: int) -> list[Command]:
    """check-jsonschema once per schema (chunked like xargs), on the files of that type."""
    assert tools.check_jsonschema is not None
    if size < 4:
        paths = [Path(t) for t in targets_for(tree, size)]
    else:
        paths = [p.relative_to(tree.root) for p in tree.files()]
    by_type: dict[str, list[str]] = {}
    for path in paths:
        by_type.setdefault(TYPE_OF[path.name], []).append(str(path))
    budget = arg_budget(ENV)
    commands: list[Command] = []
    for handoff_type, files in by_type.items():
        schema = SCHEMAS / f"{handoff_type}.schema.json"
        prefix = [tools.check_jsonschema, "--schemafile", str(schema)]
        commands.extend(Command(argv, tree.root) for argv in chunked(prefix, files, budget))
    return commands


def main_jobs(tools: Tools, size: int, clean: Tree, broken: Tree, with_cj: bool, empty: Path) -> list[Job]:
    ct, bt = targets_for(clean, size), targets_for(broken, size)
    label = str(size)
    # A named file is reported on its own: it may hold none of its chain's breaks.
    broken_codes = (1,) if size >= 4 else (0, 1)

    def cleared(tree: Tree) -> Callable[[], None]:
        return lambda: clear_artefacts(tree.root)

    py = [tools.python, "-c"]
    pytest = [tools.pytest, "--handoffs", "-q", "-p", "no:cacheprovider"]
    noop_folder, noop_file = noop_items_project(empty.parent, max(1, size // 4))
    jobs = [
        Job("python -c pass", "-", [Command([tools.python, "-c", "pass"], clean.root)]),
        # pytest with every installed plugin loaded and nothing to collect (exit 5).
        Job(
            "pytest start-up, nothing collected",
            "-",
            [Command([tools.pytest, "-q", "-p", "no:cacheprovider"], empty, (5,))],
        ),
        Job("floor: read_bytes", label, [Command([*py, FLOOR_READ, *ct], clean.root)]),
        # What pytest itself costs for one item per chain, before any checking.
        Job(
            "floor: pytest, one no-op item per chain",
            label,
            [Command([tools.pytest, "-q", "-p", "no:cacheprovider", noop_file], noop_folder)],
        ),
        Job("floor: read + json.loads", label, [Command([*py, FLOOR_JSON, *ct], clean.root)]),
        *(
            # The standard library a one-file run needs, imported and nothing else: the least any
            # Python tool that uses it pays (judged against python -c pass).
            [Job(STDLIB_FLOOR, label, [Command([*py, floor], clean.root)])]
            if size < 4 and (floor := stdlib_floor(tools.python, ct, clean.root)) is not None
            else []
        ),
        Job("handoff-lint clean", label, [Command([tools.handoff_lint, *ct], clean.root)], cleared(clean)),
        # Only what check-jsonschema checks (parse, encoding, schema): the cost of the contract rules
        # is the difference to the row above.
        Job(
            "handoff-lint clean, schema only (--select HF,HS)",
            label,
            [Command([tools.handoff_lint, "--select", "HF,HS", *ct], clean.root)],
            cleared(clean),
        ),
        Job(
            "handoff-lint all broken",
            label,
            [Command([tools.handoff_lint, *bt], broken.root, broken_codes)],
            cleared(broken),
        ),
        Job("pytest --handoffs clean", label, [Command([*pytest, *ct], clean.root)], cleared(clean)),
        *(
            [
                Job(XDIST, label, [Command([*pytest, "-n", "2", *ct], clean.root)], cleared(clean)),
                # What xdist itself costs for one item per chain on two workers, before any checking.
                Job(
                    XDIST_NOOP,
                    label,
                    [
                        Command(
                            [tools.pytest, "-q", "-p", "no:cacheprovider", "-n", "2", noop_file], noop_folder
                        )
                    ],
                ),
            ]
            if size >= 4 and has_xdist(tools)
            else []
        ),
        Job(
            "pytest --handoffs all broken",
            label,
            [Command([*pytest, *bt], broken.root, broken_codes)],
            cleared(broken),
        ),
    ]
    if size >= 4:
        # Every file named, as `pre-commit run --all-files` passes them (split like xargs):
        # the same work as naming the folder, so it should cost about the same.
        named = [str(path.relative_to(clean.root)) for path in clean.files()]
        jobs.append(
            Job(
                NAMED_ALL,
                label,
                [Command(argv, clean.root) for argv in chunked([tools.handoff_lint], named, arg_budget(ENV))],
                cleared(clean),
            )
        )
    if with_cj:
        jobs.append(Job("check-jsonschema (4 schemas, summed)", label, cj_commands(tools, clean, size)))
    return jobs


def has_xdist(tools: Tools) -> bool:
    """True when the measured pytest has pytest-xdist."""
    probe = [tools.python, "-c", "import xdist"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def cache_runs(tools: Tools, size: int, tree: Tree, repeat: int) -> dict[str, Any]:
    """Cold and warm runs with the tools' result caches on: (clear, cold, warm) x (1 + repeat)."""
    ct = targets_for(tree, size)
    variants: dict[str, list[str]] = {
        "pytest --handoffs -p cacheprovider": [tools.pytest, "--handoffs", "-q", "-p", "cacheprovider", *ct],
    }
    if tools.lint_cache_flag:
        variants["handoff-lint --cache-dir"] = [
            tools.handoff_lint,
            "--cache-dir",
            str(tree.root / ".handoff_cache"),
            *ct,
        ]
    results: dict[str, Any] = {}
    for name, argv in variants.items():
        cold_job = Job(f"{name} cold", str(size), [Command(argv, tree.root)])
        warm_job = Job(f"{name} warm", str(size), [Command(argv, tree.root)])
        cached = False
        for round_ in range(repeat + 1):
            clear_artefacts(tree.root)
            cold = cold_job.run_once()
            cached = cached or has_handoff_cache(tree.root)
            warm = warm_job.run_once()
            if cold is None or warm is None:
                break
            if round_ == 0:
                cold_job.warmup_ms, warm_job.warmup_ms = cold, warm
            else:
                cold_job.runs_ms.append(cold)
                warm_job.runs_ms.append(warm)
        clear_artefacts(tree.root)
        cold_ms, warm_ms = cold_job.median, warm_job.median
        pairs = None if cold_ms is None or warm_ms is None else over(warm_job.runs_ms, cold_job.runs_ms)
        ratio = None if pairs is None else statistics.median(pairs)  # pair by pair, as every figure
        results[name] = {
            "has_cache": cached,
            "cold": cold_job.as_dict(),
            "warm": warm_job.as_dict(),
            "warm_over_cold": ratio,
        }
        shown = (
            "error " + (cold_job.errors + warm_job.errors)[0]
            if ratio is None
            else (
                f"cold {cold_ms:,.0f} ms, warm {warm_ms:,.0f} ms, warm/cold {ratio:.2f}, "
                f"cache {'found' if cached else 'not found'}"
            )
        )
        log(f"  {name} [{size}]: {shown}")
    return results


def memory_runs(tools: Tools, workdir: Path, sizes: list[int], seed: int) -> dict[str, Any]:
    """Peak RSS of handoff-lint (and, for scale, the read+json floor) on clean trees."""
    out: dict[str, Any] = {}
    for size in sizes:
        tree = ensure_tree(workdir, "clean", max(1, math.ceil(size / 4)), seed)
        targets = targets_for(tree, size)
        clear_artefacts(tree.root)
        peak_rss(tools.python, [tools.handoff_lint, *targets], tree.root)  # warm-up (page cache, .pyc)
        lint_ms, lint_mb, lint_rc = peak_rss(tools.python, [tools.handoff_lint, *targets], tree.root)
        floor_ms, floor_mb, floor_rc = peak_rss(
            tools.python, [tools.python, "-c", FLOOR_JSON, *targets], tree.root
        )
        out[str(size)] = {
            "files": 4 * tree.chains if size >= 4 else size,
            "handoff_lint": {"max_rss_mb": round(lint_mb, 1), "wall_ms": round(lint_ms, 1), "exit": lint_rc},
            "json_floor": {"max_rss_mb": round(floor_mb, 1), "wall_ms": round(floor_ms, 1), "exit": floor_rc},
        }
        log(
            f"  peak RSS [{size}]: handoff-lint {lint_mb:,.1f} MB ({lint_ms:,.0f} ms, exit {lint_rc}), "
            f"read+json floor {floor_mb:,.1f} MB"
        )
    _, bare_mb, _ = peak_rss(tools.python, [tools.python, "-c", "pass"], workdir)
    out["python -c pass"] = {"max_rss_mb": round(bare_mb, 1)}
    return out


# --- main ---------------------------------------------------------------------------------------------


def int_list(text: str) -> list[int]:
    values = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    if not values or any(v < 1 for v in values):
        raise argparse.ArgumentTypeError("expected positive integers separated by commas")
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        type=int_list,
        default=[1, 1000, 10000],
        help="file counts to time (below 4: that many files of one chain; else N/4 chains)",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs per measurement (median; default 5)"
    )
    parser.add_argument(
        "--memory-sizes",
        type=int_list,
        default=[1000, 10000, 50000],
        help="file counts for handoff-lint's peak RSS",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "pytest-handoff-bench",
        help="where generated trees are kept and reused (default: $TMPDIR/pytest-handoff-bench)",
    )
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument(
        "--bin-dir", help="bin folder with handoff-lint, pytest and python (default: this venv's)"
    )
    parser.add_argument("--check-jsonschema", help="use this check-jsonschema instead of the benchmarks venv")
    parser.add_argument("--skip-check-jsonschema", action="store_true", help="do not time check-jsonschema")
    parser.add_argument("--skip-cache", action="store_true", help="do not time cold/warm runs with caches")
    parser.add_argument(
        "--output", type=Path, default=RESULTS, help="results JSON (default benchmarks/results.json)"
    )
    parser.add_argument(
        "--chart", type=Path, help="also draw the ratios against their targets as a PNG (matplotlib)"
    )
    parser.add_argument(
        "--snapshot",
        action="store_true",
        help="measure a copy of pytest_handoff/ taken at the start (the package may be edited meanwhile)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sizes = sorted(set(args.sizes))
    memory_sizes = sorted(set(args.memory_sizes))
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)

    bin_dir = find_tool_dir(args.bin_dir)
    cj = None if args.skip_check_jsonschema else str(ensure_check_jsonschema(args.check_jsonschema))
    lint_help = subprocess.run(
        [str(bin_dir / "handoff-lint"), "--help"], capture_output=True, text=True, env=ENV
    )
    tools = Tools(
        python=str(bin_dir / "python"),
        handoff_lint=str(bin_dir / "handoff-lint"),
        pytest=str(bin_dir / "pytest"),
        check_jsonschema=cj,
        lint_cache_flag="--cache-dir" in lint_help.stdout,
    )
    snapshot = None
    if args.snapshot:
        snapshot = snapshot_package(workdir, tools.python, tools.handoff_lint, tools.pytest)
        log(f"measuring the snapshot {snapshot['path']} ({snapshot['sha256']})")
    started_at = datetime.now(timezone.utc)
    results: dict[str, Any] = {
        "meta": {
            "started": started_at.isoformat(timespec="seconds"),
            "python": version_of([tools.python, "--version"]),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "handoff_lint": version_of([tools.handoff_lint, "--version"]),
            "pytest": version_of([tools.pytest, "--version"]),
            "check_jsonschema": version_of([cj, "--version"]) if cj else "skipped",
            "repo": git_state(),
            "bin_dir": str(bin_dir),
            "workdir": str(workdir),
            "package_snapshot": snapshot,
        },
        "params": {"sizes": sizes, "repeat": args.repeat, "memory_sizes": memory_sizes, "seed": args.seed},
        "timings": {},
        "cache": {},
        "memory": {},
    }
    log(f"handoff-lint: {results['meta']['handoff_lint']} ({tools.handoff_lint})")
    log(f"check-jsonschema: {results['meta']['check_jsonschema']}")

    for size in sizes:
        chains = max(1, math.ceil(size / 4))
        log(f"size {size_label(size)} ({chains} chain{'s' if chains != 1 else ''}):")
        clean = ensure_tree(workdir, "clean", chains, args.seed)
        broken = ensure_tree(workdir, "broken", chains, args.seed)
        jobs = main_jobs(tools, size, clean, broken, with_cj=cj is not None, empty=empty_project(workdir))
        # Runs of one file take a few tens of milliseconds, where a shared machine's noise is
        # largest: more rounds cost little and steady the medians.
        run_jobs(jobs, args.repeat if size >= 4 else max(args.repeat, SMALL_REPEAT))
        for job in jobs:
            slot = results["timings"].setdefault(job.name, {})
            if job.size == "-":  # size-independent: pool the runs of every size, and keep each size's
                previous = slot.get("-", {"runs_ms": [], "runs_by_size": {}})
                runs = previous["runs_ms"] + [round(t, 2) for t in job.runs_ms]
                slot["-"] = {
                    **job.as_dict(),
                    "runs_ms": runs,
                    "median_ms": statistics.median(runs) if runs and not job.errors else None,
                    # the rounds of each size, for figures taken round by round
                    "runs_by_size": {
                        **previous["runs_by_size"],
                        str(size): None if job.errors else [round(t, 2) for t in job.runs_ms],
                    },
                }
            else:
                slot[job.size] = job.as_dict()
            if job.size != "-":
                slot[job.size]["files"] = size if size < 4 else 4 * chains
        if not args.skip_cache:
            results["cache"][str(size)] = cache_runs(tools, size, clean, args.repeat)

    log("peak memory:")
    results["memory"] = memory_runs(tools, workdir, memory_sizes, args.seed)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")  # kept if judging fails
    results["verdicts"] = judge(results, sizes, memory_sizes)
    results["meta"]["seconds"] = round((datetime.now(timezone.utc) - started_at).total_seconds(), 1)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")

    rows = tables(results, sizes)
    print(
        f"\nhandoff-lint {results['meta']['handoff_lint']}, {results['meta']['python']}, "
        f"{results['meta']['cpus']} CPUs, repeat {args.repeat} (median after 1 warm-up)\n"
    )
    for key in ("timings", "cache", "ratios", "memory"):
        if len(rows[key]) > 1:
            print(plain(rows[key]) + "\n")
    print(f"results written to {args.output}\n")
    print("## Markdown\n")
    for key in ("timings", "cache", "ratios", "memory"):
        if len(rows[key]) > 1:
            print(markdown(rows[key]) + "\n")
    failed = [v["name"] for v in results["verdicts"] if v["result"] == "FAIL"]
    print(f"{len(failed)} target(s) failed" + (": " + "; ".join(failed) if failed else ""))
    if args.chart is not None:
        draw_chart(results["verdicts"], args.chart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
