#!/usr/bin/env python3
"""What judging claims costs: ``handoff-lint`` with evidence (the default in a git repository) next to
``handoff-lint --no-evidence``, on the same git repository, run in turn.

    python benchmarks/evidence.py [--sizes 1,10000] [--history 0,50000] [--repeat 5] [--workdir DIR]

Each size is a generated NeuralRelay tree (``generate.py``, clean chains) made a git repository: the
files its chains claim committed first, then the chains, then ``--history`` more commits (one file
each, written with ``git fast-import``) so that git's history is as long as a real project's. Size 1
names one dev handoff (the pre-commit case); larger sizes check the whole tree. Targets: 1.5x for one
file, 1.3x for 10,000. Standard library only. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from projects import ensure_tree  # noqa: E402
from timing import ENV, Command, Job, find_tool_dir, log, run_jobs  # noqa: E402

#: The most a run with evidence may take, over one without, by size (below 4 files: the first).
TARGETS = ((4, 1.5), (sys.maxsize, 1.3))
#: When the dev agent of every generated chain did its work, and when the chains were committed.
WORK, HANDED_OFF = "2026-01-01T00:00:00Z", "2026-12-31T23:00:00Z"


def git(root: Path, *args: str, when: str = WORK, stdin: bytes | None = None) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when
    )
    identity = [
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.invalid",
        "-c",
        "commit.gpgsign=false",
    ]
    subprocess.run(
        ["git", "-C", str(root), *identity, *args], env=env, input=stdin, capture_output=True, check=True
    )


def claimed(chain: Path) -> tuple[str, set[str]]:
    """When a generated chain's dev agent handed off, and the files the chain claims (its
    requirements' modules, the dev agent's files and tests)."""
    read = {
        name: json.loads((chain / name).read_text()) for name in ("01-ba-agent.json", "02-dev-agent.json")
    }
    found = set(read["01-ba-agent.json"].get("affected_modules", []))
    dev = read["02-dev-agent.json"]
    found |= {entry["path"] for entry in dev.get("files_changed", [])}
    found |= set(dev.get("unit_tests_written", {}).get("files", []))
    test = json.loads((chain / "03-test-agent.json").read_text())
    return dev["timestamp"], found | set(test.get("test_files_created", []))


def work(chains: list[tuple[str, set[str]]]) -> bytes:
    """A ``git fast-import`` stream: one commit per chain a minute before its dev handoff, touching
    the files it claims (a test file holds 60 tests, a module 1,000 lines: every claim holds)."""
    from datetime import datetime

    module = "".join(f"# line {n}\n" for n in range(1000)).encode()
    tests = "".join(f"def test_case_{n}():\n    pass\n" for n in range(60)).encode()
    out = []
    for n, (when, names) in enumerate(sorted(chains)):
        stamp = int(datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()) - 60
        out.append(
            f"commit refs/heads/main\ncommitter bench <bench@example.invalid> {stamp} +0000\ndata 4\nwork\n".encode()
        )
        for name in sorted(names):
            if "." not in name.rsplit("/", 1)[-1]:
                continue  # a module named as its folder
            body = (tests if "test" in name.rsplit("/", 1)[-1] else module) + f"# chain {n}\n".encode()
            out.append(f"M 100644 inline {name}\ndata {len(body)}\n".encode() + body + b"\n")
    return b"".join(out)


def history(commits: int) -> bytes:
    """A ``git fast-import`` stream of ``commits`` commits on top of HEAD, each adding one file."""
    stamp = 1798761600  # 2027-01-01: after the work
    out = []
    for n in range(commits):
        body = f"commit {n}\n".encode()
        out.append(
            b"commit refs/heads/main\n"
            + f"committer bench <bench@example.invalid> {stamp + n} +0000\n".encode()
            + b"data 7\nhistory"
            + (b"\nfrom refs/heads/main^0\n" if n == 0 else b"\n")
            + f"M 100644 inline history/{n // 1000:03d}/f{n}.txt\ndata {len(body)}\n".encode()
            + body
            + b"\n"
        )
    return b"".join(out)


def repository(workdir: Path, files: int, commits: int) -> Path:
    """The measured repository (kept and reused while its parameters are the same)."""
    count = max(1, files // 4)
    root = workdir / f"evidence-{count}chains-{commits}commits"
    stamp = root / ".bench-stamp"
    if stamp.exists():
        return root
    if root.exists():
        shutil.rmtree(root)
    tree = ensure_tree(workdir, "clean", count, 0)
    started = time.perf_counter()
    shutil.copytree(tree.root, root)
    git(root, "init", "-q", "-b", "main")
    chains = [claimed(chain) for chain in (root / ".neuralrelay" / "handoffs").iterdir()]
    git(root, "fast-import", "--quiet", stdin=work(chains))
    if commits:
        git(root, "fast-import", "--quiet", stdin=history(commits))
    git(root, "reset", "-q", "--hard", "main")
    for _, names in chains:  # the modules named as their folders
        for name in names:
            if "." not in name.rsplit("/", 1)[-1]:
                (root / name).mkdir(parents=True, exist_ok=True)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the handoffs", when=HANDED_OFF)
    stamp.write_text(json.dumps({"files": files, "commits": commits}))
    log(f"  made {root.name} in {time.perf_counter() - started:.1f} s")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1,10000")
    parser.add_argument("--history", default="0", help="commits of extra history, comma-separated")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "pytest-handoff-bench")
    parser.add_argument("--bin-dir", help="folder with the handoff-lint to measure (default: this Python's)")
    options = parser.parse_args(argv)
    lint = str(find_tool_dir(options.bin_dir) / "handoff-lint")
    rows = []
    for commits in (int(c) for c in options.history.split(",")):
        for files in (int(s) for s in options.sizes.split(",")):
            root = repository(options.workdir, files, commits)
            target = (
                [str(next((root / ".neuralrelay" / "handoffs").glob("*/02-dev-agent.json")))]
                if files < 4
                else ["."]
            )
            common = [lint, "--format", "json", "--jobs", str(os.cpu_count() or 1)]
            off = Job(
                "--no-evidence", str(files), [Command([*common, "--no-evidence", *target], root, (0, 1))]
            )
            on = Job("evidence", str(files), [Command([*common, *target], root, (0, 1))])
            run_jobs([off, on], max(options.repeat, 15 if files < 4 else 0))
            pairs = [b / a for a, b in zip(off.runs_ms, on.runs_ms, strict=False) if a]
            limit = next(limit for below, limit in TARGETS if files < below)
            ratio = statistics.median(pairs) if pairs else float("nan")
            rows.append(
                (
                    files,
                    commits,
                    off.median,
                    on.median,
                    ratio,
                    min(pairs, default=0),
                    max(pairs, default=0),
                    limit,
                )
            )
    print(
        f"{'files':>6} {'history':>8} {'--no-evidence':>14} {'evidence':>10} {'ratio':>6} {'pairs':>12} {'target':>7}"
    )
    for files, commits, off_ms, on_ms, ratio, low, high, limit in rows:
        verdict = "ok" if ratio <= limit else "OVER"
        print(
            f"{files:>6} {commits:>8} {off_ms or 0:>11,.0f} ms {on_ms or 0:>7,.0f} ms {ratio:>5.2f}x "
            f"{low:>5.2f}-{high:<5.2f} {limit:>5.1f}x {verdict}"
        )
    return 0


if __name__ == "__main__":
    ENV.pop("PYTHONDONTWRITEBYTECODE", None)  # users' Pythons cache bytecode
    sys.exit(main())
