"""GitHub Actions output of ``pytest --handoffs``: annotations and the step summary, from the controller."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.plugin.base import RUN_KEY


class CiReporting:
    """Collects every chain's findings (on the xdist controller too) for GitHub Actions output."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.groups: list[tuple[str, str, tuple[str, ...], list[dict[str, Any]]]] = []
        self.baselined = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.baselined += getattr(report, "handoff_baselined", 0)
        findings = getattr(report, "handoff_findings", None)
        if findings is not None:
            self.groups.append(
                (
                    getattr(report, "handoff_profile", ""),
                    getattr(report, "handoff_chain", ""),
                    tuple(getattr(report, "handoff_files", ())),
                    findings,
                )
            )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """What the baseline left out; on GitHub Actions, annotations (emitted once, by the
        controller) and the step summary."""
        if hasattr(self.config, "workerinput"):
            return
        if self.baselined:
            from pytest_handoff.reporters import baselined_note

            terminalreporter.write_line(f"handoff: {baselined_note(self.baselined)}")
        if os.environ.get("GITHUB_ACTIONS") != "true":
            return
        import io

        from pytest_handoff.reporters import append_step_summary, write_reports
        from pytest_handoff.values.findings import Finding
        from pytest_handoff.values.groups import GroupRef, GroupResult

        results = [  # only what reporters need: the findings and files
            GroupResult(
                GroupRef(profile, group_id, None, tuple(Path(p) for p in files)),
                tuple(Finding.from_wire(f) for f in findings),
                (),
            )
            for profile, group_id, files, findings in self.groups
        ]
        annotations = io.StringIO()
        write_reports(results, [("github", annotations)], self.config.rootpath)
        append_step_summary(
            results,
            self.config.rootpath,
            lambda message: terminalreporter.write_line(f"handoff: warning: {message}", yellow=True),
            self.config.stash[RUN_KEY].registry.rule,
        )
        for line in annotations.getvalue().splitlines():
            terminalreporter.write_line(line)
