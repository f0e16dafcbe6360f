"""The golden file of findings: moving code changes no verdict.

``tests/golden/findings.json`` holds every finding ``handoff-lint`` prints on the examples, the
fixtures and the rule examples (``scripts/golden_findings.py`` writes it). A change meant to keep
every verdict keeps the file; one that means to change a verdict rewrites it, and the diff shows
which findings it changed.
"""

from __future__ import annotations

import json

from tests.conftest import REPO, module_at


def test_every_example_and_fixture_gives_the_findings_of_the_golden_file() -> None:
    script = module_at(REPO / "scripts" / "golden_findings.py", "golden_findings")
    golden = json.loads(script.GOLDEN.read_text(encoding="utf-8"))
    fresh = script.findings()
    assert sorted(fresh) == sorted(golden), "sources added or gone: run scripts/golden_findings.py"
    changed = {
        source: (golden[source], fresh[source]) for source in golden if golden[source] != fresh[source]
    }
    assert changed == {}, "findings changed: run scripts/golden_findings.py if meant, and read its diff"
