"""Coverage-guided fuzzing (atheris) of the loader, the position map and the whole engine.

Not part of the test run: ``fuzz/run.sh`` runs it for a bounded time. Each input is tried as
the bytes of one handoff, first through ``parse_json_bytes`` and the position map, then as a
member of a real chain through the pipeline (``check_paths``). Anything but findings with positions inside
the file is a crash: an exception, a position outside the text, a lone surrogate let through.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import atheris

from pytest_handoff.pipeline.registry import default_registry
from pytest_handoff.pipeline.run import check_paths
from pytest_handoff.read.strict_json import parse_json_bytes
from pytest_handoff.values.settings import Settings

default_registry().all_profiles()  # import every profile and rule module before instrumenting

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "tests" / "fixtures" / "neuralrelay" / "20260511-091500"  # our primary chain
LINE_BREAK = re.compile(r"\r\n|\r|\n")
ROOT = Path(tempfile.mkdtemp(prefix="handoff-fuzz-"))
CHAIN = ROOT / ".neuralrelay" / "handoffs" / SAMPLE.name
TARGET = CHAIN / "03-test-agent.json"
SETTINGS = Settings()
SLOWEST = [0.0, b""]


def _setup() -> None:
    CHAIN.mkdir(parents=True)
    for file in sorted(SAMPLE.glob("*.json")):
        shutil.copyfile(file, CHAIN / file.name)


def _check_positions(findings: object, raw: bytes) -> None:
    lines = LINE_BREAK.split(raw.decode("utf-8", errors="replace"))
    for finding in findings:  # type: ignore[attr-defined]
        if finding.line == 0 and finding.code in ("HF006", "HF007"):
            continue
        if not 1 <= finding.line <= len(lines):
            raise AssertionError(f"line outside the file: {finding}")
        if not 1 <= finding.column <= len(lines[finding.line - 1]) + 1:
            raise AssertionError(f"column outside its line: {finding}")


def TestOneInput(raw: bytes) -> None:  # atheris calls it by this name
    start = time.perf_counter()
    loaded = parse_json_bytes(raw, TARGET, "h.json")
    _check_positions(loaded.findings, raw)
    document = loaded.document
    if document is not None:
        if loaded.findings and not all(f.code == "HF003" for f in loaded.findings):
            raise AssertionError(f"a document with findings other than duplicates: {loaded.findings}")
        document.text.encode("utf-8")  # no lone surrogate in the text ...
        json.dumps(document.data, ensure_ascii=False).encode("utf-8")  # ... nor in the data
        # Every pointer json.loads knows resolves to text that reads back as its value.
        pending = [("", document.data)]
        decoder = json.JSONDecoder()
        while pending and len(pending) < 10_000:
            pointer, value = pending.pop()
            spans = document.positions.spans(pointer)
            if spans is None:
                raise AssertionError(f"no spans for {pointer!r}")
            if not isinstance(value, (dict, list)):
                read, end = decoder.raw_decode(document.text, spans.value.start)
                if read != value or end != spans.value.end:
                    raise AssertionError(f"{pointer!r}: spans read {read!r}, json.loads {value!r}")
            region = document.region(pointer)
            _check_positions([_Pos(region.line, region.column)], raw)
            if isinstance(value, dict):
                pending.extend(
                    (f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}", v) for k, v in value.items()
                )
            elif isinstance(value, list):
                pending.extend((f"{pointer}/{i}", v) for i, v in enumerate(value))
    TARGET.write_bytes(raw)
    _, results = check_paths([TARGET], ROOT, SETTINGS, registry=default_registry())
    _check_positions([f for r in results for f in r.findings if f.path.endswith(TARGET.name)], raw)
    elapsed = time.perf_counter() - start
    if elapsed > SLOWEST[0]:
        SLOWEST[0], SLOWEST[1] = elapsed, raw
        (HERE / "crashes").mkdir(exist_ok=True)
        (HERE / "crashes" / "slowest-input.bin").write_bytes(raw)
        (HERE / "crashes" / "slowest-input.txt").write_text(f"{elapsed:.4f} s, {len(raw)} bytes\n")


class _Pos:
    code = "?"

    def __init__(self, line: int, column: int) -> None:
        self.line, self.column = line, column


def main() -> None:
    _setup()
    # Coverage of every loaded Python module (the package, json, jsonschema), not just ours.
    atheris.instrument_all()
    try:
        atheris.Setup(sys.argv, TestOneInput)
        atheris.Fuzz()
    finally:  # libFuzzer may exit the process directly: run.sh prints the slowest input
        shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
