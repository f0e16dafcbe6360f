"""The 10,000-sized inputs of every built-in format but NeuralRelay, generated from the project's
fixtures (``tests/fixtures/<format>/``): one writer per shape for ``formats.py``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sqlite3
import time
from functools import cache
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


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
    text = (
        json.dumps(value).replace('"04"', '"NEXT"').replace("03-", f"{phase}-").replace('"03"', f'"{phase}"')
    )
    return json.loads(text.replace('"NEXT"', f'"{following}"'))


def yolo_project(root: Path, phases: list[str]) -> None:
    """config/schemas/message-schemas.json and .execution-state.json knowing each phase's escalation."""
    clean = FIXTURES / "yolo" / "clean"
    write(
        root / "config/schemas/message-schemas.json",
        (clean / "config/schemas/message-schemas.json").read_bytes(),
    )
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
        files = {
            name: [renumber(row, p, f"{int(p) + 1:02d}") for row in fixture_lines(name)]
            for name in YOLO_FILES
        }
        plan, messages, v2 = files["03-01.plan.jsonl"], files["messages.jsonl"], files["v2-messages.jsonl"]
        files["03-01.summary.jsonl"][0].update(
            tc=tasks + 2, tt=tasks + 2
        )  # the fixture's T1 and T2, then ours
        for k in range(3, tasks + 3):
            plan.append({**plan[1], "id": f"T{k}", "a": f"Task {k} of phase {p}", "f": [f"src/m{p}_{k}.py"]})
            commit = hashlib.sha1(f"{p}/{k}".encode()).hexdigest()[:7]
            messages.append({**messages[1], "task": f"{p}-01/T{k}", "commit": commit})
            payload = {
                **v2[0]["payload"],
                "task_id": f"T{k}",
                "commit": commit,
                "files_modified": [f"src/m{p}_{k}.py"],
            }
            v2.append({**v2[0], "id": f"msg-{p}-{k}", "task": f"{p}-01/T{k}", "payload": payload})
        rows = (
            per - sum(map(len, files.values())) + 2 + (count % len(phases) if index == len(phases) - 1 else 0)
        )
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
    handoff.update(
        id=f"handoff_{i:05d}", task_id=f"task_{i:05d}", summary=f"{handoff['summary']} (batch {i})"
    )
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
            rows.append(
                (kind, record["id"], record["schema"], payload, record["created_at"], record["created_at"])
            )
    connection.executemany("INSERT INTO records VALUES (?, ?, ?, '0.1.0', ?, ?, ?)", rows[:count])
    connection.commit()
    connection.close()


def make_craik_exports(root: Path, count: int) -> None:
    """``count`` ``*.craik.json`` exports (handoff + score pairs), 100 a folder under ``.craik/exports/``."""
    for i in range(count):
        record = craik_records(i // 2)[i % 2]
        write(
            root / f".craik/exports/batch-{i // 100:03d}/{record['id']}.craik.json",
            json.dumps(record, indent=2),
        )


READY, PROMISE = "AGENT_READY_FOR_HANDOFF", "<promise>RALPH_COMPLETE</promise>"
RALPH_ROUTE = (
    ("pm", "developer", "task_assignment"),
    ("developer", "qa", "ready_for_qa"),
    ("qa", "pm", "validation_passed"),
)
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
    prd["items"] = [
        {**template, "id": f"feat-{n:03d}", "title": f"Feature {n}"} for n in range(1, RALPH_ITEMS + 1)
    ]
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
        logs.setdefault((i * RALPH_ITERATIONS // count, sender), []).extend(
            [*lines, READY, f"HANDOFF:{target}:{encoded}"]
        )
    logs.setdefault((RALPH_ITERATIONS - 1, "pm"), []).extend(["Every item of prd.json passes", PROMISE])
    for (iteration, agent), lines in logs.items():
        write(root / f"logs/iteration-{iteration + 1:02d}/{agent}.log", "\n".join(lines) + "\n")


TRINITY_AGENTS = ("designer", "developer", "tester", "qa-lead", *(f"agent-{n:02d}" for n in range(16)))


def make_trinity(root: Path, count: int) -> None:
    """``count`` handoffs in 20 workspaces' ``handoff/`` folders; the newest tenth still pending."""
    contexts = [
        json.loads(p.read_text())["context"]
        for p in sorted((FIXTURES / "trinity" / "studio").rglob("*.json"))
    ]
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
    plan, report = (
        (project / "reviews/sprint-1" / name).read_text() for name in ("01-plan.yaml", "02-report.yaml")
    )
    for i in range(count):
        folder, n = divmod(i, 100)
        if n == 0:
            text = plan.replace("Sessions expire", f"Sprint {folder} sessions expire")
        else:
            text = report.replace("Both criteria hold", f"Both criteria hold, run {n} of sprint {folder}")
            text = text.replace("T15:30:00Z", f"T{10 + n // 60:02d}:{n % 60:02d}:00Z")
        write(root / f"reviews/sprint-{folder:03d}/{n:03d}-{'report' if n else 'plan'}.yaml", text)
