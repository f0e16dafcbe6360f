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
import base64
import hashlib
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURES = REPO / "tests" / "fixtures"
SCHEMAS = REPO / "schemas"
sys.path.insert(0, str(HERE))
from timing import arg_budget, child_env, chunked, ensure_check_jsonschema, git_state, log  # noqa: E402
from verdicts import markdown, plain  # noqa: E402

#: Stored trees are regenerated when this, this file, the fixtures or the size change.
GENERATOR_VERSION = 1
STAMP = ".bench-stamp"
ENV = {**child_env(), "PYTHONDONTWRITEBYTECODE": ""}  # empty: bytecode is written and reused
RETRY_PAUSE = 30.0  # the package may be mid-edit: one retry after this pause
TARGET_RATIO, TARGET_RSS_MB, TARGET_WARM = 4.0, 300.0, 0.2


# --- generators: each writes one shape's tree from the fixtures ------------------------------------------


def write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)


def jsonl(rows: list[Any]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


@cache
def fixture_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


YOLO_FILES = (
    "03-01.plan.jsonl", "03-01.summary.jsonl", "messages.jsonl", "v2-messages.jsonl", "critique.jsonl",
    "dept-handoff.jsonl", "phase-handoff.jsonl", "integration-gate-result.jsonl",
)  # fmt: skip


def fixture_lines(relative: str) -> list[dict[str, Any]]:
    text = fixture_text(FIXTURES / "yolo" / "clean" / "yolo-planning" / "phases" / "03-auth" / relative)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def renumber(value: Any, phase: str, following: str) -> Any:
    """A YOLO fixture value moved from phase 03 to ``phase`` (and its successor 04 to ``following``)."""
    text = json.dumps(value).replace('"04"', '"NEXT"').replace("03-", f"{phase}-").replace('"03"', f'"{phase}"')
    return json.loads(text.replace('"NEXT"', f'"{following}"'))


def yolo_project(root: Path, phases: list[str]) -> None:
    """config/schemas/message-schemas.json and .execution-state.json knowing each phase's escalation."""
    clean = FIXTURES / "yolo" / "clean"
    write(root / "config/schemas/message-schemas.json", (clean / "config/schemas/message-schemas.json").read_bytes())
    state = json.loads((clean / "yolo-planning/.execution-state.json").read_text())
    template = state["escalations"][0]
    state["escalations"] = [renumber(template, p, p) for p in phases]
    state["phase"] = int(phases[-1])
    write(root / ".yolo-planning/.execution-state.json", json.dumps(state, indent=2) + "\n")


def make_yolo_jsonl(root: Path, count: int) -> None:
    """One project: 50 phase folders of the fixture's artifacts, grown to ``count`` JSONL lines in all."""
    phases = [f"{n:02d}" for n in range(1, max(1, count // 200) + 1)]
    yolo_project(root, phases)
    per = count // len(phases)
    tasks = max(0, (per - 20) // 3)  # 18 fixed lines, 3 per task, the rest critique lines
    for index, p in enumerate(phases):
        files = {name: [renumber(row, p, f"{int(p) + 1:02d}") for row in fixture_lines(name)] for name in YOLO_FILES}
        plan, messages, v2 = files["03-01.plan.jsonl"], files["messages.jsonl"], files["v2-messages.jsonl"]
        files["03-01.summary.jsonl"][0].update(tc=tasks + 2, tt=tasks + 2)  # the fixture's T1 and T2, then ours
        for k in range(3, tasks + 3):
            plan.append({**plan[1], "id": f"T{k}", "a": f"Task {k} of phase {p}", "f": [f"src/m{p}_{k}.py"]})
            commit = hashlib.sha1(f"{p}/{k}".encode()).hexdigest()[:7]
            messages.append({**messages[1], "task": f"{p}-01/T{k}", "commit": commit})
            payload = {**v2[0]["payload"], "task_id": f"T{k}", "commit": commit, "files_modified": [f"src/m{p}_{k}.py"]}
            v2.append({**v2[0], "id": f"msg-{p}-{k}", "task": f"{p}-01/T{k}", "payload": payload})
        rows = per - sum(map(len, files.values())) + 2 + (count % len(phases) if index == len(phases) - 1 else 0)
        critique = files["critique.jsonl"]
        critique += [{**critique[1], "id": f"C{k}", "q": f"Open question {k}"} for k in range(3, rows + 1)]
        files["critique.jsonl"] = critique[:rows]
        for name, lines in files.items():
            write(root / f".yolo-planning/phases/{p}-auth" / name.replace("03-", f"{p}-"), jsonl(lines))


def make_yolo_messages(root: Path, count: int) -> None:
    """``count`` flat messages, one JSON file each, in 80 phase folders (the fixture's ten types)."""
    phases = [f"{n:02d}" for n in range(1, min(80, count) + 1)]
    yolo_project(root, phases)
    for i in range(count):
        p = phases[i % len(phases)]
        message = renumber(fixture_lines("messages.jsonl")[i // len(phases) % 10], p, p)
        if message["type"] == "dev_progress":
            message.update(task=f"{p}-01/T{i}", commit=hashlib.sha1(str(i).encode()).hexdigest()[:7])
        write(root / f".yolo-planning/phases/{p}-auth/msg-{i:05d}.json", json.dumps(message, indent=2) + "\n")


def craik_records(i: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The fixture's clean handoff and its quality score, as the ``i``-th pair."""
    clean = FIXTURES / "craik" / "clean"
    handoff = json.loads(fixture_text(clean / "handoff_invoice_export.json"))
    score = json.loads(fixture_text(clean / "handoff_quality_invoice_export.json"))
    handoff.update(id=f"handoff_{i:05d}", task_id=f"task_{i:05d}", summary=f"{handoff['summary']} (batch {i})")
    score.update(id=f"handoff_quality_handoff_{i:05d}", task_id=f"task_{i:05d}", handoff_id=handoff["id"])
    return handoff, score


STORE_DDL = """
CREATE TABLE records (kind TEXT NOT NULL, id TEXT NOT NULL, schema TEXT NOT NULL, version TEXT NOT NULL,
  payload_json TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (kind, id));
CREATE INDEX idx_records_schema ON records(schema);
CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
CREATE TABLE local_store_metadata (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX idx_records_kind_updated_at ON records(kind, updated_at);
INSERT INTO migrations VALUES (1, '2026-06-02'), (2, '2026-06-02'), (3, '2026-06-02');
PRAGMA user_version = 3;
"""  # Craik's layout (migrations 1-3), as tests/test_craik_store.py builds it


def make_craik_store(root: Path, count: int) -> None:
    """``ci/craik.sqlite3`` with ``count`` rows (handoffs and their scores), configured as a store."""
    write(root / "pyproject.toml", '[tool.handoff.craik]\nstores = ["ci/craik.sqlite3"]\n')
    (root / "ci").mkdir()
    connection = sqlite3.connect(root / "ci" / "craik.sqlite3")
    connection.executescript(STORE_DDL)
    rows = []
    for i in range((count + 1) // 2):
        for kind, record in zip(("handoffs", "handoff_quality_scores"), craik_records(i), strict=True):
            payload = json.dumps(record, sort_keys=True, separators=(",", ":"))
            rows.append((kind, record["id"], record["schema"], payload, record["created_at"], record["created_at"]))
    connection.executemany("INSERT INTO records VALUES (?, ?, ?, '0.1.0', ?, ?, ?)", rows[:count])
    connection.commit()
    connection.close()


def make_craik_exports(root: Path, count: int) -> None:
    """``count`` ``*.craik.json`` exports (handoff + score pairs), 100 a folder under ``.craik/exports/``."""
    for i in range(count):
        record = craik_records(i // 2)[i % 2]
        write(root / f".craik/exports/batch-{i // 100:03d}/{record['id']}.craik.json", json.dumps(record, indent=2))


READY, PROMISE = "AGENT_READY_FOR_HANDOFF", "<promise>RALPH_COMPLETE</promise>"
RALPH_ROUTE = (("pm", "developer", "task_assignment"), ("developer", "qa", "ready_for_qa"), ("qa", "pm", "validation_passed"))
RALPH_ITERATIONS, RALPH_ITEMS, RALPH_BYTES_PER_PHRASE = 12, 100, 10_000


def make_ralph(root: Path, count: int) -> None:
    """A session (prd.json of 100 passing items, the fixture's session files) and ``count`` phrases in
    agents' logs ``logs/iteration-NN/<agent>.log``, 10 kB of log a phrase (100 MB for 10,000; each
    log stays under the 10 MiB file limit)."""
    clean = FIXTURES / "ralph" / "clean"
    for path in (clean / "session").glob("*.json"):
        write(root / ".claude/session" / path.name, path.read_bytes())
    prd = json.loads((clean / "prd.json").read_text())
    template = prd["items"][0]
    prd["items"] = [{**template, "id": f"feat-{n:03d}", "title": f"Feature {n}"} for n in range(1, RALPH_ITEMS + 1)]
    prd["session"]["stats"].update(totalTasks=RALPH_ITEMS, completed=RALPH_ITEMS)
    write(root / "prd.json", json.dumps(prd, indent=2) + "\n")
    chatter = [
        "[{i}] Reading src/notes_{k}.ts (212 lines) and its tests",
        "[{i}] Running npm test -- --grep 'note {k}'",
        "[{i}]   ok note {k} survives a reload (12 ms)",
        "[{i}]   ok note {k} keeps its title after an edit (9 ms)",
        "[{i}] Editing src/notes_{k}.ts: 14 lines changed, 3 removed",
        "[{i}] git commit -m 'feat-{k:03d}: keep notes across reloads' -> {h}",
    ]
    logs: dict[tuple[int, str], list[str]] = {}
    for i in range(count):
        sender, target, reason = RALPH_ROUTE[i % 3]
        k = i // 3 % RALPH_ITEMS + 1
        lines: list[str] = []
        size, commit = 0, hashlib.sha1(str(i).encode()).hexdigest()[:7]
        while size < RALPH_BYTES_PER_PHRASE - 400:
            lines.append(chatter[len(lines) % len(chatter)].format(i=i, k=k, h=commit))
            size += len(lines[-1]) + 1
        stamp = f"2026-03-{2 + i * 12 // count:02d}T{i % 24:02d}:{i % 60:02d}:00Z"
        context = {"from": sender, "reason": reason, "timestamp": stamp,
                   "task": {"id": f"feat-{k:03d}", "title": f"Feature {k}", "action": "implement"}}  # fmt: skip
        encoded = base64.b64encode(json.dumps(context, separators=(",", ":")).encode()).decode()
        logs.setdefault((i * RALPH_ITERATIONS // count, sender), []).extend([*lines, READY, f"HANDOFF:{target}:{encoded}"])
    logs.setdefault((RALPH_ITERATIONS - 1, "pm"), []).extend(["Every item of prd.json passes", PROMISE])
    for (iteration, agent), lines in logs.items():
        write(root / f"logs/iteration-{iteration + 1:02d}/{agent}.log", "\n".join(lines) + "\n")


TRINITY_AGENTS = ("designer", "developer", "tester", "qa-lead", *(f"agent-{n:02d}" for n in range(16)))


def make_trinity(root: Path, count: int) -> None:
    """``count`` handoffs in 20 workspaces' ``handoff/`` folders; the newest tenth still pending."""
    contexts = [json.loads(p.read_text())["context"] for p in sorted((FIXTURES / "trinity" / "studio").rglob("*.json"))]
    start = 1_775_000_000_000  # ms since the epoch: 2026-03-31
    for i in range(count):
        to = TRINITY_AGENTS[i % 20]
        sender = TRINITY_AGENTS[(i + 1 + i // 20 % 19) % 20]
        moment = time.gmtime((start + i * 37_250) / 1000)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", moment) + f".{(start + i * 37_250) % 1000:03d}Z"
        body = {"from": sender, "to": to, "timestamp": stamp, "context": contexts[i % len(contexts)],
                "status": "pending" if i >= count * 9 // 10 else "accepted"}  # fmt: skip
        write(root / to / "handoff" / f"{sender}-{stamp}.json", json.dumps(body, indent=2) + "\n")


def make_contracts(root: Path, count: int) -> None:
    """The fixture project (its pyproject.toml contracts and schemas) with ``count`` YAML documents in
    100 folders of ``reviews/``: a plan, then reports covering its criteria, in time order."""
    project = FIXTURES / "contracts" / "project"
    shutil.copytree(project / "schemas", root / "schemas")
    write(root / "pyproject.toml", (project / "pyproject.toml").read_bytes())
    plan, report = ((project / "reviews/sprint-1" / name).read_text() for name in ("01-plan.yaml", "02-report.yaml"))
    for i in range(count):
        folder, n = divmod(i, 100)
        if n == 0:
            text = plan.replace("Sessions expire", f"Sprint {folder} sessions expire")
        else:
            text = report.replace("Both criteria hold", f"Both criteria hold, run {n} of sprint {folder}")
            text = text.replace("T15:30:00Z", f"T{10 + n // 60:02d}:{n % 60:02d}:00Z")
        write(root / f"reviews/sprint-{folder:03d}/{n:03d}-{'report' if n else 'plan'}.yaml", text)


# --- shapes ---------------------------------------------------------------------------------------------


def typed_schemas(root: Path, pattern: str, schema_of: Callable[[dict[str, Any]], Path]) -> dict[Path, list[str]]:
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
# A fresh helper per measurement: the largest waited-for descendant's ru_maxrss (KiB on Linux).
RSS_HELPER = """
import os, resource, sys
null = os.open(os.devnull, os.O_WRONLY)
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
_, status = os.waitpid(pid, 0)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def ensure_tree(shape: Shape, workdir: Path, count: int) -> tuple[Path, bool]:
    """The shape's tree, generated unless a stored one has the same parameters."""
    root = workdir / shape.name
    digest = hashlib.sha256()
    for path in sorted((FIXTURES / shape.templates).rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(FIXTURES).as_posix().encode() + path.read_bytes())
    stamp = {"generator_version": GENERATOR_VERSION, "count": count, "templates": digest.hexdigest(),
             "generator_sha256": hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}  # fmt: skip
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


def timed(commands: list[list[str]], cwd: Path, ok: tuple[int, ...], errors: list[str]) -> float | None:
    """Milliseconds of ``commands`` run one after the other (summed); one retry after an unexpected exit."""
    for attempt in (1, 2):
        total, failed = 0.0, ""
        for argv in commands:
            started = time.perf_counter()
            done = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, env=ENV, check=False)  # fmt: skip
            total += (time.perf_counter() - started) * 1000
            if done.returncode not in ok:
                shown = " ".join(a if len(a) < 80 else "<script>" for a in argv[:4])
                failed = f"exit {done.returncode} from {shown} ...: {done.stderr.decode()[-400:]}"
                break
        if not failed:
            return total
        errors.append(failed)
        log(f"    {failed}" + (f"; retrying in {RETRY_PAUSE:.0f} s" if attempt == 1 else ""))
        time.sleep(RETRY_PAUSE if attempt == 1 else 0)
    return None


def stats(runs: list[float]) -> dict[str, Any]:
    if not runs:
        return {"min_ms": None, "median_ms": None, "max_ms": None, "runs_ms": []}
    rounded = [round(t, 1) for t in runs]
    return {"min_ms": min(rounded), "median_ms": statistics.median(rounded), "max_ms": max(rounded), "runs_ms": rounded}


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


def peak_rss_mb(python: str, argv: list[str], cwd: Path) -> tuple[float, int]:
    done = subprocess.run([python, "-I", "-S", "-c", RSS_HELPER, *argv], cwd=cwd, capture_output=True,
                          text=True, env=ENV, check=True)  # fmt: skip
    kib, code = done.stdout.split()
    return int(kib) / (1024 * 1024 if sys.platform == "darwin" else 1024), int(code)


def measure(shape: Shape, root: Path, lint: str, python: str, cj: str | None, repeat: int) -> dict[str, Any]:
    errors: list[str] = []
    jobs: dict[str, list[list[str]]] = {"lint": [[lint]], "floor": [[python, "-c", FLOOR, shape.floor, str(root)]]}
    if cj and shape.schemas:
        budget = arg_budget(ENV)
        jobs["cj"] = [chunk for schema, files in shape.schemas(root).items()
                      for chunk in chunked([cj, "--schemafile", str(schema)], files, budget)]  # fmt: skip
    runs: dict[str, list[float]] = {name: [] for name in jobs}
    for round_ in range(repeat + 1):  # round 0 is the untimed warm-up
        for name, commands in jobs.items():
            elapsed = timed(commands, root, (0, 1) if name == "lint" else (0,), errors)
            if elapsed is not None and round_ > 0:
                runs[name].append(elapsed)
        log(f"  {shape.name}: round {round_}/{repeat}" + (" (warm-up)" if round_ == 0 else ""))
    cache_dir = root.parent / f"{shape.name}.handoff-cache"  # outside the tree: no glob finds it
    cold: list[float] = []
    warm: list[float] = []
    for pair in range(repeat + 1):  # pair 0 is the untimed warm-up
        shutil.rmtree(cache_dir, ignore_errors=True)
        first = timed([[lint, "--cache-dir", str(cache_dir)]], root, (0, 1), errors)
        second = timed([[lint, "--cache-dir", str(cache_dir)]], root, (0, 1), errors)
        if pair > 0 and first is not None and second is not None:
            cold, warm = [*cold, first], [*warm, second]
    cache_found = cache_dir.is_dir() and any(cache_dir.rglob("*"))
    shutil.rmtree(cache_dir, ignore_errors=True)
    rss, rss_exit = peak_rss_mb(python, [lint], root)
    result: dict[str, Any] = {name: stats(values) for name, values in runs.items()}
    result["cache"] = {"cold": stats(cold), "warm": stats(warm), "cache_found": cache_found}
    result["rss"] = {"peak_mb": round(rss, 1), "exit": rss_exit}
    result["errors"] = errors[:6]
    return result


def verdicts(result: dict[str, Any]) -> dict[str, Any]:
    def median(key: str, sub: str | None = None) -> float | None:
        entry = result[key][sub] if sub else result.get(key)
        return entry["median_ms"] if entry else None

    def ratio(a: float | None, b: float | None) -> float | None:
        return round(a / b, 2) if a is not None and b else None

    lint, floor, cj = median("lint"), median("floor"), median("cj")
    checks: dict[str, tuple[float | None, Callable[[float], bool]]] = {
        "lint/floor": (ratio(lint, floor), lambda v: v <= TARGET_RATIO),
        "cj/lint": (ratio(cj, lint), lambda v: v > 1),
        "rss_mb": (result["rss"]["peak_mb"], lambda v: v < TARGET_RSS_MB),
        "warm/cold": (ratio(median("cache", "warm"), median("cache", "cold")), lambda v: v <= TARGET_WARM),
    }
    return {key: {"value": value, "unit": " MB" if key == "rss_mb" else "x",
                  "result": "n/a" if value is None else ("PASS" if ok(value) else "FAIL")}
            for key, (value, ok) in checks.items()}  # fmt: skip


# --- report ---------------------------------------------------------------------------------------------


def ms(entry: dict[str, Any] | None, spread: bool = True) -> str:
    if not entry or entry["median_ms"] is None:
        return "n/a" if not entry else "error"
    return " / ".join(f"{entry[k]:,.0f}" for k in (("min_ms", "median_ms", "max_ms") if spread else ("median_ms",)))


def cell(verdict: dict[str, Any]) -> str:
    value, unit = verdict["value"], verdict["unit"]
    return "n/a" if value is None else f"{value:.{1 if unit == ' MB' else 2}f}{unit} {verdict['result']}"


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
    axes.bar(list(ratios), list(ratios.values()), color=["tab:green" if v <= TARGET_RATIO else "tab:red" for v in ratios.values()])
    axes.axhline(TARGET_RATIO, color="black", linestyle="--", label=f"target {TARGET_RATIO:g}x")
    axes.set(ylabel="handoff-lint / parse floor (median)", title="handoff-lint against each shape's parse floor")
    axes.legend()
    axes.tick_params(axis="x", labelrotation=30)
    figure.savefig(path, dpi=120)
    log(f"chart written to {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs after one warm-up (default 5)")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "pytest-handoff-bench" / "formats",
                        help="where generated trees are kept and reused (default $TMPDIR/pytest-handoff-bench/formats)")
    parser.add_argument("--only", action="append", choices=[s.name for s in SHAPES], metavar="SHAPE",
                        help=f"only this shape (repeatable): {', '.join(s.name for s in SHAPES)}")
    parser.add_argument("--bin-dir", type=Path, default=Path(sys.executable).parent,
                        help="folder with handoff-lint and python (default: the running Python's)")
    parser.add_argument("--output", type=Path, default=HERE / "formats-results.json", help="results JSON")
    parser.add_argument("--chart", type=Path, help="write a PNG bar chart of handoff-lint / floor (matplotlib)")
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
    failed = [f"{n} {k}" for n, r in results["shapes"].items() for k, v in r["verdicts"].items() if v["result"] == "FAIL"]
    print(f"{len(failed)} target(s) failed" + (": " + ", ".join(failed) if failed else ""))
    print(f"results written to {args.output}")
    if args.chart:
        chart(results, args.chart)
    return 0


if __name__ == "__main__":
    sys.exit(main())
