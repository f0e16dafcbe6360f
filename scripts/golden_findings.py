"""Write, or check, the golden file of findings: what ``handoff-lint`` reports on every example and fixture.

Each source of ``docs/gen_rules.py`` (the examples, each format's fixtures, every rule example,
laid out as a project as its format keeps it) is checked as ``handoff-lint`` checks it, and every
finding is kept as the text output prints it. A change that moves code, and means to change no
verdict, leaves the file as it is; ``tests/e2e/test_golden_findings.py`` compares a fresh run with it.

    python scripts/golden_findings.py           # rewrite tests/golden/findings.json
    python scripts/golden_findings.py --check   # exit 1 when a fresh run differs from it
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "findings.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_rules", REPO / "docs" / "gen_rules.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_rules"] = module
    spec.loader.exec_module(module)
    return module


def findings() -> dict[str, list[str]]:
    """Every source (its folder, relative to the repository) with the findings printed on it."""
    found: dict[str, list[str]] = {}
    for source, printed in _generator().source_findings():
        found[source.folder.relative_to(REPO).as_posix()] = [finding.text for finding in printed]
    return found


def as_text(found: dict[str, list[str]]) -> str:
    return json.dumps(found, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a fresh run differs from the file")
    options = parser.parse_args(argv)
    fresh = as_text(findings())
    if options.check:
        same = GOLDEN.is_file() and GOLDEN.read_text(encoding="utf-8") == fresh
        print("golden findings: " + ("unchanged" if same else f"differ from {GOLDEN.relative_to(REPO)}"))
        return 0 if same else 1
    GOLDEN.write_text(fresh, encoding="utf-8")
    print(f"wrote {GOLDEN.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
