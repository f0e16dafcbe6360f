"""Coverage-guided fuzzing (atheris) of each reader on its own, fast enough for millions of inputs.

    python fuzz/fuzz_readers.py READER [libFuzzer flags...]      (fuzz/run_readers.sh runs them all)

READER is one of: json, jsonl, yaml, ralph-log, ralph-context, craik-json, craik-sqlite,
trinity-name, config, gsd (a Markdown file of GSD's: front matter read leniently, then its sections),
handoff-md (a Markdown handoff or an agent's message: its claims of work done), apply-patch (the
files a Codex patch envelope writes). Each input goes through that reader alone (no whole chain), and every
promise is checked: no exception escapes, every finding lies inside the input, no text of a
finding (made inert for output) holds a line break or opens with a runner command, and nothing is
written beside a checked store.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from pytest_handoff.agents.patches import patch_paths
    from pytest_handoff.pipeline.config import merged
    from pytest_handoff.pipeline.registry import default_registry
    from pytest_handoff.profiles.craik.profile import PROFILE as CRAIK
    from pytest_handoff.profiles.craik.store import read_store
    from pytest_handoff.profiles.gsd.profile import PROFILE as GSD
    from pytest_handoff.profiles.markdown.reader import read_markdown_handoff
    from pytest_handoff.profiles.ralph.logs import read_log
    from pytest_handoff.profiles.trinity.names import parse_file_name
    from pytest_handoff.profiles.yolo.profile import PROFILE as YOLO
    from pytest_handoff.read.strict_json import parse_json_bytes
    from pytest_handoff.read.yamldoc import read_yaml
    from pytest_handoff.values.boundary import inert
    from pytest_handoff.values.documents import Document
    from pytest_handoff.values.errors import ConfigError
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.settings import Settings

LINE_BREAK = re.compile(r"\r\n|\r|\n")
WORK = Path(tempfile.mkdtemp(prefix="handoff-fuzz-readers-"))
SETTINGS = Settings()
STATS = {"inputs": 0, "slowest": 0.0}


def _inside(findings: Iterable[Finding], raw: bytes) -> None:
    """Every finding lies inside the input (lines as editors count them: any line break), and its
    texts stay inert on one line."""
    lines = LINE_BREAK.split(raw.decode("utf-8", errors="replace"))
    for finding in findings:
        if finding.line and not 1 <= finding.line <= len(lines):
            raise AssertionError(f"line outside the input: {finding}")
        if finding.line and not 1 <= finding.column <= len(lines[finding.line - 1]) + 1:
            raise AssertionError(f"column outside its line: {finding}")
        for text in (finding.message, finding.pointer, finding.logical, finding.path):
            shown = inert(text)
            if "\n" in shown or "\r" in shown or shown.lstrip(" ").startswith(("::", "##[")):
                raise AssertionError(f"a finding's text escapes the boundary: {finding!r}")


def fuzz_json(raw: bytes) -> None:
    loaded = parse_json_bytes(raw, WORK / "h.json", "h.json")
    _inside(loaded.findings, raw)
    if loaded.document is not None:
        loaded.document.positions  # noqa: B018 (every pointer placed)


def fuzz_jsonl(raw: bytes) -> None:
    path = WORK / ".yolo-planning" / "phases" / "05-x" / "x.jsonl"
    loaded = YOLO.read(raw, path, "x.jsonl", SETTINGS)
    _inside(loaded.findings, raw)


def fuzz_yaml(raw: bytes) -> None:
    loaded = read_yaml(raw, WORK / "a.yaml", "a.yaml")
    _inside(loaded.findings, raw)


def fuzz_ralph_log(raw: bytes) -> None:
    loaded = read_log(raw, WORK / "logs" / "developer.log", "developer.log")
    _inside(loaded.findings, raw)


def fuzz_ralph_context(raw: bytes) -> None:
    line = b"AGENT_READY_FOR_HANDOFF\nHANDOFF:qa:" + base64.b64encode(raw) + b"\n"
    loaded = read_log(line, WORK / "logs" / "developer.log", "developer.log")
    _inside(loaded.findings, line)


def fuzz_craik_json(raw: bytes) -> None:
    loaded = CRAIK.read(raw, WORK / "a.craik.json", "a.craik.json", SETTINGS)
    _inside(loaded.findings, raw)


def fuzz_craik_sqlite(raw: bytes) -> None:
    folder = WORK / "store"
    folder.mkdir(exist_ok=True)
    store = folder / "craik.sqlite3"
    store.write_bytes(raw)
    before = sorted(os.listdir(folder))
    loaded = read_store(store, "craik.sqlite3")
    if sorted(os.listdir(folder)) != before or store.read_bytes() != raw:
        raise AssertionError("reading the store wrote beside it or into it")
    for finding in loaded.findings:
        _inside([finding._replace(line=0)], raw)


def fuzz_trinity_name(raw: bytes) -> None:
    name = raw.decode("utf-8", errors="replace")
    parse_file_name(name)


def fuzz_config(raw: bytes) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        table = tomllib.loads(raw.decode("utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return
    with contextlib.suppress(ConfigError):  # a clear error is the right answer to a bad table
        merged(Settings(), table, "pyproject.toml", default_registry())


#: The GSD files a Markdown input is read as (its first byte chooses), each with its body's readers.
GSD_FILES = (
    "phases/01-a/01-01-SUMMARY.md", "phases/01-a/01-01-PLAN.md", "phases/01-a/01-VERIFICATION.md",
    "phases/01-a/01-UAT.md", "phases/01-a/.continue-here.md", "STATE.md", "ROADMAP.md", "REQUIREMENTS.md",
)  # fmt: skip


def fuzz_gsd(raw: bytes) -> None:
    name = GSD_FILES[raw[0] % len(GSD_FILES)] if raw else GSD_FILES[0]
    path = WORK / ".planning" / name
    loaded = GSD.read(raw, path, name, SETTINGS)
    _inside(loaded.findings, raw)
    _placed_inside(loaded.documents, raw)


def fuzz_handoff_md(raw: bytes) -> None:
    message = bool(raw) and raw[0] % 2 == 1  # a file, or an agent's message read sentence by sentence
    name = "last-assistant-message.md" if message else "HANDOFF.md"
    loaded = read_markdown_handoff(raw, WORK / name, name, message=message)
    _inside(loaded.findings, raw)
    _placed_inside(loaded.documents, raw)


def fuzz_apply_patch(raw: bytes) -> None:
    text = raw.decode("utf-8", errors="replace")
    found = patch_paths(text)
    for path in (*found.written, *found.deleted):
        if not path or "\n" in path or "\r" in path or path not in text:
            raise AssertionError(f"a path the envelope does not hold: {path!r}")


def _placed_inside(documents: Iterable[Document], raw: bytes) -> None:
    """Every value read from a Markdown text stands inside it."""
    lines = LINE_BREAK.split(raw.decode("utf-8", errors="replace"))
    for document in documents:
        for pointer in _pointers(document.data):
            region = document.region(pointer)
            if region.line and not 1 <= region.line <= len(lines):
                raise AssertionError(f"{pointer} placed outside the input: {region}")


def _pointers(data: object, at: str = "") -> Iterable[str]:
    yield at
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _pointers(value, f"{at}/{str(key).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _pointers(value, f"{at}/{index}")


READERS: dict[str, Callable[[bytes], None]] = {
    "json": fuzz_json,
    "jsonl": fuzz_jsonl,
    "yaml": fuzz_yaml,
    "ralph-log": fuzz_ralph_log,
    "ralph-context": fuzz_ralph_context,
    "craik-json": fuzz_craik_json,
    "craik-sqlite": fuzz_craik_sqlite,
    "trinity-name": fuzz_trinity_name,
    "config": fuzz_config,
    "gsd": fuzz_gsd,
    "handoff-md": fuzz_handoff_md,
    "apply-patch": fuzz_apply_patch,
}


def main() -> None:
    # libFuzzer runs this file again for -merge=1 (through the shell, with its own flags only): the
    # reader then comes from the environment, and the command names this Python.
    given = os.environ.get("FUZZ_READER")
    name, flags = (given, sys.argv[1:]) if given else (sys.argv[1], sys.argv[2:])
    os.environ["FUZZ_READER"] = name
    reader = READERS[name]
    report = os.environ.get("FUZZ_REPORT")

    def one_input(raw: bytes) -> None:
        started = time.perf_counter()
        reader(raw)
        spent = time.perf_counter() - started
        STATS["inputs"] += 1
        if spent > STATS["slowest"]:
            STATS["slowest"] = spent
        if report and STATS["inputs"] % 10_000 == 0:
            Path(report).write_text(f"{STATS['inputs']} {STATS['slowest']:.4f}\n", encoding="utf-8")

    atheris.Setup([f"{sys.executable} {os.path.abspath(__file__)}", *flags], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
