"""The per-file budget under hostile shapes: time, peak memory and output of checking one file.

Every file stays under the 10 MiB size limit; the budget is 2 s and 300 MB for any of them, and
output bounded by the cap of findings per rule per file. Run from the repository root:

    python benchmarks/hostile.py [--bin-dir DIR] [--mib 9.5] [--shape NAME ...]

Each shape is written to a temporary project once, checked by ``handoff-lint --format json`` in a
child process, and measured: wall time, the child's peak RSS, the bytes it printed.

Then ``growth``: one group of 10,000 and one of 100,000 handoffs (a Ralph agent's log of nothing
but phrases, 1 and 9.5 MiB, under the same budget), both times and their ratio: a group's work
must grow linearly with its handoffs (``--shape growth`` runs only this; ``--shape`` with others
leaves it out).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
CLEAN = HERE.parent / "examples" / "neuralrelay" / "clean" / ".neuralrelay" / "handoffs" / "20261103-091500"
BUDGET_SECONDS = 2.0
BUDGET_MB = 300
#: A Ralph handoff phrase of 100 bytes: the PM hands over to QA, a short context in base64.
PHRASE = (
    b"HANDOFF:qa:"
    + base64.b64encode(b'{"from":"pm","reason":"fix","timestamp":"2026","task":{"id":"f1"}}')
    + b"\n"
)
#: The handoffs of the two groups of ``growth``: ten times as many in the second.
GROWTH = (10_000, 100_000)


def many_keys(size: int) -> tuple[str, bytes]:
    """One NeuralRelay handoff with hundreds of thousands of unexpected keys (HS001 each)."""
    data = json.loads((CLEAN / "02-dev-agent.json").read_text(encoding="utf-8"))
    count = size // 21  # each key costs about 21 bytes written with indent=1
    data.update({f"k{n:07d}": n for n in range(count)})
    return ".neuralrelay/handoffs/20261103-091500/02-dev-agent.json", json.dumps(data, indent=1).encode()


def many_lines(size: int) -> tuple[str, bytes]:
    """YOLO JSONL: one short broken message a line (YL101 each)."""
    line = (
        b'{"type": "critique_result", "phase": "05", "findings": 4, "critical": 9, "major": 0, "minor": 0}\n'
    )
    return ".yolo-planning/phases/05-x/critique.jsonl", line * (size // len(line))


def long_lines(size: int) -> tuple[str, bytes]:
    """YOLO JSONL of a few lines, each a megabyte-long string."""
    text = "x" * (size // 8)
    line = json.dumps({"type": "critique_result", "phase": "05", "summary": text}).encode() + b"\n"
    return ".yolo-planning/phases/05-x/critique.jsonl", line * 7


def nul_lines(size: int) -> tuple[str, bytes]:
    """JSONL whose every line is a NUL byte (HF002 each)."""
    return ".yolo-planning/phases/05-x/critique.jsonl", b"\x00\n" * (size // 2)


def deep_arrays(size: int) -> tuple[str, bytes]:
    """A handoff nested far deeper than the 256 levels allowed, then padded."""
    depth = 100_000
    body = b"[" * depth + b"]" * depth
    return ".neuralrelay/handoffs/20261103-091500/02-dev-agent.json", body + b" " * max(0, size - len(body))


def many_findings(size: int) -> tuple[str, bytes]:
    """One handoff array of many vague coverage gaps and unknown fields at once."""
    data = json.loads((CLEAN / "02-dev-agent.json").read_text(encoding="utf-8"))
    data["coverage_gaps"] = ["edge cases"] * (size // 16)
    return ".neuralrelay/handoffs/20261103-091500/02-dev-agent.json", json.dumps(data).encode()


def distinct_items(size: int) -> tuple[str, bytes]:
    """One handoff array of many different entries (rules that compare entries pairwise)."""
    data = json.loads((CLEAN / "02-dev-agent.json").read_text(encoding="utf-8"))

    def word(number: int) -> str:  # a different made-up word for every number
        letters = ""
        while True:
            number, digit = divmod(number, 26)
            letters += "bcdfghjklmnpqrstvwxzaeiouy"[digit]
            if not number:
                return letters + "ol"

    count = size // 40
    data["coverage_gaps"] = [
        f"{word(3 * n)} {word(3 * n + 1)} {word(3 * n + 2)} untested" for n in range(count)
    ]
    return ".neuralrelay/handoffs/20261103-091500/02-dev-agent.json", json.dumps(data).encode()


def invalid_lines(size: int) -> tuple[str, bytes]:
    """YOLO JSONL whose every line breaks its message schema in several places."""
    line = b'{"type": "critique_result", "phase": 5, "findings": "x", "critical": [], "extra": 1}\n'
    return ".yolo-planning/phases/05-x/critique.jsonl", line * (size // len(line))


def plan_lines(size: int) -> tuple[str, bytes]:
    """A YOLO plan that starts with a blank line, then a header and very many task lines."""
    header = b'{"p": "05", "n": "01", "t": "x", "w": 1, "d": [], "obj": "x"}\n'
    task = b'{"id": "T1", "tp": "auto", "a": "x", "f": ["src/x.py"], "v": "pytest", "done": "x"}\n'
    return ".yolo-planning/phases/05-x/05-01.plan.jsonl", b"\n" + header + task * (size // len(task))


def many_phrases(size: int) -> tuple[str, bytes]:
    """A Ralph agent's log of nothing but handoff phrases: one group of a handoff a line."""
    return ".claude/session/logs/pm.log", PHRASE * (size // len(PHRASE))


SHAPES: dict[str, Callable[[int], tuple[str, bytes]]] = {
    "many keys": many_keys,
    "many lines": many_lines,
    "long lines": long_lines,
    "NUL lines": nul_lines,
    "deep arrays": deep_arrays,
    "many findings": many_findings,
    "distinct items": distinct_items,
    "invalid lines": invalid_lines,
    "plan lines": plan_lines,
}


def measure(lint: Path, root: Path, relative: str) -> tuple[float, float, int, int]:
    """Seconds, peak RSS (MB), bytes printed and exit code of ``handoff-lint`` on one file."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(
        [str(lint), "--format", "json", relative], cwd=root, capture_output=True, timeout=600, check=False
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest child so far: run each shape in a fresh helper process.
    return seconds, max(peak, before) / 1024, len(done.stdout), done.returncode


def checked(lint: Path, relative: str, content: bytes) -> tuple[float, float, int, int]:
    """``measure`` of one file, written to a temporary project, in a helper process of its own
    (so that the peak RSS is this file's own)."""
    with tempfile.TemporaryDirectory(prefix="handoff-hostile-") as folder:
        root = Path(folder)
        (root / ".git").mkdir()
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative.startswith(".neuralrelay"):
            for sibling in CLEAN.iterdir():
                (target.parent / sibling.name).write_bytes(sibling.read_bytes())
        target.write_bytes(content)
        probe = subprocess.run(
            [sys.executable, __file__, "--measure", str(lint), str(root), relative],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        seconds, peak, printed, code = json.loads(probe.stdout)
        return float(seconds), float(peak), int(printed), int(code)


def growth(lint: Path) -> None:
    """One group of 10,000 handoffs and one of 100,000: their times, and how much longer the larger
    one takes (about 10 times when a group's work grows linearly; 100 when with its square)."""
    seconds = []
    print(f"\n{'growth: one group of':20} {'MiB':>5} {'seconds':>8} {'peak MB':>8} {'exit':>4}  budget")
    for count in GROWTH:
        relative, content = many_phrases(count * len(PHRASE))
        took, peak, _, code = checked(lint, relative, content)
        seconds.append(took)
        ok = took <= BUDGET_SECONDS and peak <= BUDGET_MB
        print(
            f"{f'{count:,} handoffs':20} {len(content) / 2**20:5.1f} {took:8.2f} {peak:8.0f} {code:>4}  "
            f"{'met' if ok else 'MISSED'}"
        )
    ratio, more = seconds[1] / seconds[0], GROWTH[1] / GROWTH[0]
    # Start-up counts in both, caches and the collector a little more in the larger: a linear
    # group's ratio stays near the ratio of handoffs, a quadratic one's goes far past it (64 was seen).
    verdict = "linear" if ratio <= 2 * more else "SUPER-LINEAR"
    print(f"{ratio:.1f} times the time for {more:.0f} times the handoffs: {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bin-dir", type=Path, default=Path(sys.executable).parent)
    parser.add_argument("--mib", type=float, default=9.5, help="size of each file in MiB (under 10)")
    parser.add_argument("--shape", action="append", help="only these shapes (growth: the growth rows)")
    options = parser.parse_args()
    size = int(options.mib * 1024 * 1024)
    lint = options.bin_dir / "handoff-lint"
    rows = []
    for name, make in SHAPES.items():
        if options.shape and name not in options.shape:
            continue
        relative, content = make(size)
        seconds, peak, printed, code = checked(lint, relative, content)
        rows.append((name, len(content), seconds, peak, printed, code))
    if rows:
        print(f"{'shape':14} {'MiB':>5} {'seconds':>8} {'peak MB':>8} {'output kB':>10} {'exit':>4}  budget")
    for name, size_, seconds, peak, printed, code in rows:
        ok = seconds <= BUDGET_SECONDS and peak <= BUDGET_MB
        print(
            f"{name:14} {size_ / 2**20:5.1f} {seconds:8.2f} {peak:8.0f} {printed / 1024:10.1f} {code:>4}  "
            f"{'met' if ok else 'MISSED'}"
        )
    if not options.shape or "growth" in options.shape:
        growth(lint)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        lint_, root_, relative_ = sys.argv[2:5]
        print(json.dumps(measure(Path(lint_), Path(root_), relative_)))
        sys.exit(0)
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    sys.exit(main())
