#!/usr/bin/env python3
"""Benchmark handoff-lint on 10,000-sized inputs of every built-in format but NeuralRelay (run.py's).

    python benchmarks/formats.py [--repeat 5] [--only SHAPE] [--workdir DIR] [--chart PNG]

Shapes are generated from the project's fixtures (``tests/fixtures/<format>/``) and reused while
unchanged. Per shape: handoff-lint cold, the shape's parse floor, check-jsonschema where a schema
applies, peak RSS, and warm/cold with ``--cache-dir``. Standard library only (matplotlib for
``--chart``, if importable). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = REPO / "tests" / "fixtures"
SCHEMAS = REPO / "schemas"
sys.path.insert(0, str(HERE))
from format_trees import (  # noqa: E402
    make_contracts,
    make_craik_exports,
    make_craik_store,
    make_ralph,
    make_trinity,
    make_yolo_jsonl,
    make_yolo_messages,
)
from timing import (  # noqa: E402
    ENV,
    RETRY_PAUSE,
    Command,
    Job,
    arg_budget,
    chunked,
    ensure_check_jsonschema,
    git_state,
    log,
    peak_rss,
)
from verdicts import fmt_value, markdown, over, plain  # noqa: E402

#: Stored trees are regenerated when this, this file, the fixtures or the size change.
GENERATOR_VERSION = 1
STAMP = ".bench-stamp"
TARGET_RATIO, TARGET_RSS_MB, TARGET_WARM = 4.0, 300.0, 0.2


# --- shapes ---------------------------------------------------------------------------------------------


def typed_schemas(
    root: Path, pattern: str, schema_of: Callable[[dict[str, Any]], Path]
) -> dict[Path, list[str]]:
    """Files under ``root`` matching ``pattern`` grouped by the schema of their content."""
    grouped: dict[Path, list[str]] = {}
    for path in sorted(root.glob(pattern)):
        grouped.setdefault(schema_of(json.loads(path.read_bytes())), []).append(str(path.relative_to(root)))
    return grouped


@dataclass(frozen=True)
class Shape:
    name: str
    title: str
    make: Callable[[Path, int], None]
    floor: str  # a mode of FLOOR
    templates: str  # fixture folder the generator reads
    schemas: Callable[[Path], dict[Path, list[str]]] | None = None  # check-jsonschema: schema -> files


SHAPES = (
    Shape("yolo-jsonl", "YOLO: one project, JSONL lines", make_yolo_jsonl, "jsonl", "yolo"),
    Shape("yolo-messages", "YOLO: message files", make_yolo_messages, "json", "yolo",
          lambda r: typed_schemas(r, ".yolo-planning/phases/*/msg-*.json", lambda d: SCHEMAS / f"yolo/{d['type']}.schema.json")),
    Shape("craik-store", "Craik: SQLite store rows", make_craik_store, "sqlite", "craik"),
    Shape("craik-exports", "Craik: JSON exports", make_craik_exports, "json", "craik",
          lambda r: typed_schemas(r, ".craik/exports/*/*.json", lambda d: SCHEMAS / f"craik/{d['schema'][6:]}.schema.json")),
    Shape("ralph", "Ralph: phrases in ~100 MB of logs", make_ralph, "ralph", "ralph"),
    Shape("trinity", "Trinity: workspace files", make_trinity, "json", "trinity",
          lambda r: {SCHEMAS / "trinity/handoff.schema.json": sorted(str(p.relative_to(r)) for p in r.glob("*/handoff/*.json"))}),
    Shape("contracts", "User contract: YAML documents", make_contracts, "yaml", "contracts",
          lambda r: {r / f"schemas/{kind}": sorted(str(p.relative_to(r)) for p in r.glob(f"reviews/*/*-{kind.split('.')[0]}.yaml"))
                     for kind in ("plan.schema.json", "report.schema.yaml")}),
)  # fmt: skip

# The floors: read every file of the shape and parse it as the format needs, nothing more.
FLOOR = r"""
import json, os, sys
mode, root = sys.argv[1:3]
def files(*suffixes):
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [s for s in subfolders if s != ".git"]
        yield from (os.path.join(folder, name) for name in names if name.endswith(suffixes))
def read(path):
    with open(path, "rb") as handle:
        return handle.read()
if mode in ("json", "jsonl", "ralph"):
    for path in files(".json"):
        json.loads(read(path))
if mode == "jsonl":
    for path in files(".jsonl"):
        for line in read(path).split(b"\n"):
            if line.strip():
                json.loads(line)
elif mode == "sqlite":
    import sqlite3
    store = sqlite3.connect(os.path.join(root, "ci", "craik.sqlite3"))
    for kind, key, payload in store.execute("SELECT kind, id, payload_json FROM records"):
        json.loads(payload)
elif mode == "ralph":
    import base64, re
    phrase = re.compile(r"HANDOFF:(pm|developer|qa):([A-Za-z0-9+/=]+)")
    for path in files(".log"):
        for match in phrase.finditer(read(path).decode("utf-8")):
            json.loads(base64.b64decode(match.group(2)))
elif mode == "yaml":
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for path in files(".yaml"):
        yaml.load(read(path), Loader=loader)
"""


def ensure_tree(shape: Shape, workdir: Path, count: int) -> tuple[Path, bool]:
    """The shape's tree, generated unless a stored one has the same parameters."""
    root = workdir / shape.name
    digest = hashlib.sha256()
    for path in sorted((FIXTURES / shape.templates).rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(FIXTURES).as_posix().encode() + path.read_bytes())
    stamp = {"generator_version": GENERATOR_VERSION, "count": count, "templates": digest.hexdigest(),
             "generator_sha256": hashlib.sha256(Path(__file__).read_bytes() + (HERE / "format_trees.py").read_bytes()).hexdigest()}  # fmt: skip
    if (root / STAMP).is_file() and json.loads((root / STAMP).read_text()) == stamp:
        return root, False
    shutil.rmtree(root, ignore_errors=True)
    (root / ".git").mkdir(parents=True)  # the project's root: nothing above it is configuration
    shape.make(root, count)
    (root / STAMP).write_text(json.dumps(stamp))
    return root, True


def tree_size(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and p.name != STAMP]
    return len(files), sum(p.stat().st_size for p in files)


# --- measuring ------------------------------------------------------------------------------------------


def stats(runs: list[float | None]) -> dict[str, Any]:
    """Min, median and max of the runs that succeeded; ``runs_ms`` keeps every round (None: failed)."""
    rounded = [None if t is None else round(t, 1) for t in runs]
    done = [t for t in rounded if t is not None]
    if not done:
        return {"min_ms": None, "median_ms": None, "max_ms": None, "runs_ms": rounded}
    return {
        "min_ms": min(done),
        "median_ms": statistics.median(done),
        "max_ms": max(done),
        "runs_ms": rounded,
    }


def findings_of(lint: str, root: Path) -> dict[str, Any]:
    """Findings of one ``handoff-lint --format json`` run over the tree, by code."""
    for attempt in (1, 2):
        done = subprocess.run([lint, "--format", "json"], cwd=root, capture_output=True, env=ENV, check=False)
        if done.returncode in (0, 1):
            report = json.loads(done.stdout)
            codes = Counter(f["code"] for f in report["findings"])
            return {"exit": done.returncode, "total": len(report["findings"]), "by_code": dict(sorted(codes.items())),
                    "summary": report.get("summary", {}), "first": report["findings"][:3]}  # fmt: skip
        if attempt == 1:
            time.sleep(RETRY_PAUSE)
    return {"exit": done.returncode, "total": None, "error": done.stderr.decode("utf-8", "replace")[-800:]}


def measure(shape: Shape, root: Path, lint: str, python: str, cj: str | None, repeat: int) -> dict[str, Any]:
    # Each job's commands run one after the other, summed; an unexpected exit is retried once (timing.Job).
    jobs = {
        "lint": Job("handoff-lint", shape.name, [Command([lint], root, (0, 1))]),
        "floor": Job("floor", shape.name, [Command([python, "-c", FLOOR, shape.floor, str(root)], root)]),
    }
    if cj and shape.schemas:
        budget = arg_budget(ENV)
        jobs["cj"] = Job("check-jsonschema", shape.name, [Command(chunk, root) for schema, files in shape.schemas(root).items()
                                                          for chunk in chunked([cj, "--schemafile", str(schema)], files, budget)])  # fmt: skip
    runs: dict[str, list[float | None]] = {name: [] for name in jobs}
    for round_ in range(repeat + 1):  # round 0 is the untimed warm-up
        for name, job in jobs.items():
            elapsed = job.run_once()
            if round_ > 0:
                runs[name].append(elapsed)  # None: failed, and left out of this round's figures
        log(f"  {shape.name}: round {round_}/{repeat}" + (" (warm-up)" if round_ == 0 else ""))
    cache_dir = root.parent / f"{shape.name}.handoff-cache"  # outside the tree: no glob finds it
    cached = [Command([lint, "--cache-dir", str(cache_dir)], root, (0, 1))]
    cold_job = Job("cold", shape.name, cached, before=lambda: shutil.rmtree(cache_dir, ignore_errors=True))
    warm_job = Job("warm", shape.name, cached)
    cold: list[float | None] = []
    warm: list[float | None] = []
    for pair in range(repeat + 1):  # pair 0 is the untimed warm-up
        first = cold_job.run_once()
        second = warm_job.run_once() if first is not None else None  # no warm run without a cold one
        if pair > 0:
            cold, warm = [*cold, first], [*warm, second]
    cache_found = cache_dir.is_dir() and any(cache_dir.rglob("*"))
    shutil.rmtree(cache_dir, ignore_errors=True)
    _, rss, rss_exit = peak_rss(python, [lint], root)
    result: dict[str, Any] = {name: stats(values) for name, values in runs.items()}
    result["cache"] = {"cold": stats(cold), "warm": stats(warm), "cache_found": cache_found}
    result["rss"] = {"peak_mb": round(rss, 1), "exit": rss_exit}
    result["errors"] = [error for job in (*jobs.values(), cold_job, warm_job) for error in job.errors][:6]
    result["retried_after"] = [
        error for job in (*jobs.values(), cold_job, warm_job) for error in job.retried
    ][:6]
    return result


def verdicts(result: dict[str, Any]) -> dict[str, Any]:
    """Each figure taken round by round (see verdicts.over): the median of the rounds, and their range."""

    def runs(key: str, sub: str | None = None) -> list[float | None] | None:
        entry = result[key][sub] if sub else result.get(key)
        return entry["runs_ms"] if entry and entry["median_ms"] is not None else None

    lint = runs("lint")
    checks: dict[str, tuple[list[float] | None, Callable[[float], bool]]] = {
        "lint/floor": (over(lint, runs("floor")), lambda v: v <= TARGET_RATIO),
        "cj/lint": (over(runs("cj"), lint), lambda v: v > 1),
        "rss_mb": (
            [result["rss"]["peak_mb"]] if result["rss"]["exit"] in (0, 1) else None,
            lambda v: v < TARGET_RSS_MB,
        ),
        "warm/cold": (over(runs("cache", "warm"), runs("cache", "cold")), lambda v: v <= TARGET_WARM),
    }
    found = {}
    for key, (rounds, ok) in checks.items():
        value = None if not rounds else round(statistics.median(rounds), 2)
        found[key] = {"value": value, "unit": " MB" if key == "rss_mb" else "x",
                      "min": None if not rounds else round(min(rounds), 2),
                      "max": None if not rounds else round(max(rounds), 2),
                      "result": "n/a" if value is None else ("PASS" if ok(value) else "FAIL")}  # fmt: skip
    return found


# --- report ---------------------------------------------------------------------------------------------


def ms(entry: dict[str, Any] | None, spread: bool = True) -> str:
    if not entry or entry["median_ms"] is None:
        return "n/a" if not entry else "error"
    return " / ".join(
        f"{entry[k]:,.0f}" for k in (("min_ms", "median_ms", "max_ms") if spread else ("median_ms",))
    )


def cell(verdict: dict[str, Any]) -> str:
    return "n/a" if verdict["value"] is None else f"{fmt_value(verdict)} {verdict['result']}"


def table(results: dict[str, Any]) -> tuple[list[list[str]], list[list[str]]]:
    timing = [["shape", "files", "MB", "findings", "handoff-lint ms (min/med/max)", "floor ms (min/med/max)",
               "check-jsonschema ms (min/med/max)", "cache cold / warm ms"]]  # fmt: skip
    targets = [["shape", "lint / floor (<= 4x)", "check-jsonschema / lint (> 1x)", "peak RSS (< 300 MB)",
                "warm / cold (<= 0.2x)"]]  # fmt: skip
    for name, r in results["shapes"].items():
        found = r["findings"]["total"]
        timing.append([name, f"{r['files']:,}", f"{r['bytes'] / 1e6:,.1f}", "error" if found is None else f"{found:,}",
                       ms(r["lint"]), ms(r["floor"]), ms(r.get("cj")),
                       f"{ms(r['cache']['cold'], False)} / {ms(r['cache']['warm'], False)}"
                       + ("" if r["cache"]["cache_found"] else " (no cache written)")])  # fmt: skip
        targets.append([name, *(cell(v) for v in r["verdicts"].values())])
    return timing, targets


def chart(results: dict[str, Any], path: Path) -> None:
    """A PNG bar chart of handoff-lint / floor per shape, with the target (matplotlib, if importable)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log(f"matplotlib is not importable: no chart written to {path}")
        return
    ratios = {n: r["verdicts"]["lint/floor"]["value"] for n, r in results["shapes"].items()}
    ratios = {n: v for n, v in ratios.items() if v is not None}
    figure, axes = plt.subplots(figsize=(8, 4), layout="tight")
    axes.bar(
        list(ratios),
        list(ratios.values()),
        color=["tab:green" if v <= TARGET_RATIO else "tab:red" for v in ratios.values()],
    )
    axes.axhline(TARGET_RATIO, color="black", linestyle="--", label=f"target {TARGET_RATIO:g}x")
    axes.set(
        ylabel="handoff-lint / parse floor (median)", title="handoff-lint against each shape's parse floor"
    )
    axes.legend()
    axes.tick_params(axis="x", labelrotation=30)
    figure.savefig(path, dpi=120)
    log(f"chart written to {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs after one warm-up (default 5)")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "pytest-handoff-bench" / "formats",
        help="where generated trees are kept and reused (default $TMPDIR/pytest-handoff-bench/formats)",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[s.name for s in SHAPES],
        metavar="SHAPE",
        help=f"only this shape (repeatable): {', '.join(s.name for s in SHAPES)}",
    )
    parser.add_argument(
        "--bin-dir",
        type=Path,
        default=Path(sys.executable).parent,
        help="folder with handoff-lint and python (default: the running Python's)",
    )
    parser.add_argument("--output", type=Path, default=HERE / "formats-results.json", help="results JSON")
    parser.add_argument(
        "--chart", type=Path, help="write a PNG bar chart of handoff-lint / floor (matplotlib)"
    )
    parser.add_argument("--count", type=int, default=10_000, help="size of every shape (default 10000)")
    parser.add_argument("--skip-check-jsonschema", action="store_true", help="do not time check-jsonschema")
    args = parser.parse_args(argv)  # fmt: skip
    if args.repeat < 1 or args.count < 1:
        parser.error("--repeat and --count must be at least 1")
    lint, python = str(args.bin_dir / "handoff-lint"), str(args.bin_dir / "python")
    cj = None if args.skip_check_jsonschema else str(ensure_check_jsonschema(None))
    version = subprocess.run([lint, "--version"], capture_output=True, text=True, env=ENV).stdout.strip()
    results: dict[str, Any] = {
        "meta": {"handoff_lint": version, "python": sys.version.split()[0], "cpus": os.cpu_count(),
                 "repo": git_state(), "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
        "params": {"repeat": args.repeat, "count": args.count, "workdir": str(args.workdir)},
        "shapes": {},
    }  # fmt: skip
    for shape in SHAPES:
        if args.only and shape.name not in args.only:
            continue
        started = time.perf_counter()
        root, made = ensure_tree(shape, args.workdir.resolve(), args.count)
        files, size = tree_size(root)
        log(f"{shape.name}: {'generated' if made else 'reused'} {root} ({files:,} files, {size / 1e6:,.1f} MB)"
            + (f" in {time.perf_counter() - started:.1f} s" if made else ""))  # fmt: skip
        findings = findings_of(lint, root)
        log(f"  findings: {findings.get('total')} {findings.get('by_code', findings.get('error'))}")
        r = {"title": shape.title, "root": str(root), "files": files, "bytes": size, "findings": findings,
             **measure(shape, root, lint, python, cj, args.repeat)}  # fmt: skip
        r["verdicts"] = verdicts(r)
        results["shapes"][shape.name] = r
    args.output.write_text(json.dumps(results, indent=2) + "\n")
    timing, targets = table(results)
    print(f"\n{version}, Python {results['meta']['python']}, {results['meta']['cpus']} CPUs, "
          f"--repeat {args.repeat} after 1 warm-up, {args.count:,} per shape\n")  # fmt: skip
    print(plain(timing) + "\n\n" + plain(targets) + "\n")
    print(markdown(timing) + "\n\n" + markdown(targets) + "\n")
    failed = [
        f"{n} {k}"
        for n, r in results["shapes"].items()
        for k, v in r["verdicts"].items()
        if v["result"] == "FAIL"
    ]
    print(f"{len(failed)} target(s) failed" + (": " + ", ".join(failed) if failed else ""))
    print(f"results written to {args.output}")
    if args.chart:
        chart(results, args.chart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
