"""SARIF 2.1.0, the format GitHub code scanning (and most IDE viewers) read.

One run with one driver; ``tool.driver.rules`` lists the rules that have at least one
result (sorted by code), which keeps the file small and lets ``ruleIndex`` point into it.
Columns are counted in characters, as everywhere in pytest-handoff, and the run says so
with ``columnKind: unicodeCodePoints``; SARIF's ``endColumn`` is exclusive, ours inclusive.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pytest_handoff.reporters import Reporter, Summary
from pytest_handoff.reporters.json_format import dumps_safe
from pytest_handoff.values.boundary import inert
from pytest_handoff.values.findings import Severity

if TYPE_CHECKING:
    from pytest_handoff.values.findings import Finding
    from pytest_handoff.values.rules import Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://pypi.org/project/pytest-handoff/"
TOOL_NAME = "handoff-lint"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "handoffFingerprint/v1"


def sarif_level(severity: Severity) -> str:
    """SARIF's name for ``severity``: ``error``, ``warning`` or ``note``."""
    if severity >= Severity.ERROR:
        return "error"
    return "warning" if severity >= Severity.WARNING else "note"


def artifact_uri(path: str) -> dict[str, str]:
    """``artifactLocation`` for a finding's path: relative to ``%SRCROOT%`` or a file URI."""
    as_path = Path(path)
    if as_path.is_absolute():
        return {"uri": as_path.as_uri()}
    return {"uri": quote(path.replace("\\", "/"), safe="/"), "uriBaseId": SRCROOT}


def fingerprint(finding: Finding) -> str:
    """A hash of what identifies a finding across runs (not its line, which moves with edits)."""
    identity = [finding.code, finding.path, finding.pointer, finding.message]
    key = json.dumps(identity, ensure_ascii=False)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def region_of(line: int, column: int, end_line: int = 0, end_column: int = 0) -> dict[str, int] | None:
    """A SARIF region (``endColumn`` exclusive), or None for a finding about the whole file."""
    if line <= 0:
        return None
    region = {"startLine": line}
    if column > 0:
        region["startColumn"] = column
    if end_line >= line:
        region["endLine"] = end_line
        if end_column > 0 and (end_line > line or end_column >= column):
            region["endColumn"] = end_column + 1
    return region


def _paragraphs(doc: str) -> list[str]:
    return [" ".join(part.split()) for part in re.split(r"\n\s*\n", doc.strip()) if part.strip()]


def _plain(markdown: str) -> str:
    """Rule docs with the bold markers taken out, for SARIF's plain-text fields."""
    return markdown.replace("**", "")


def full_description(doc: str) -> str:
    """The summary sentence and the rule's "What it does" paragraph, as plain text."""
    paragraphs = _paragraphs(doc)
    if not paragraphs:
        return ""
    parts = [paragraphs[0]]
    for paragraph in paragraphs[1:]:
        match = re.match(r"\*\*What it does\*\*:?\s*(.*)", paragraph)
        if match and match.group(1):
            what = match.group(1)
            parts.append(what[0].upper() + what[1:])
            break
    return _plain(" ".join(parts))


def rule_descriptor(code: str, example: Finding, rule: Rule | None, page: str = "") -> dict[str, Any]:
    """``reportingDescriptor`` of rule ``code`` (its ``rule``, and ``page``, its documentation page's
    address, if it has one); ``example`` names rules the tables lack."""
    if rule is None:
        name = example.rule or code
        return {
            "id": code,
            "name": name,
            "shortDescription": {"text": name},
            "defaultConfiguration": {"level": sarif_level(example.severity)},
        }
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": _plain(rule.summary) or rule.name},
        "fullDescription": {"text": full_description(rule.doc) or rule.name},
        "help": {"text": _plain(rule.doc) or rule.name, "markdown": rule.doc or rule.name},
        **({"helpUri": page} if page else {}),
        "defaultConfiguration": {"level": sarif_level(rule.severity)},
        # The format the rule belongs to (every format's for a core rule) and its failure modes.
        "properties": {"tags": [rule.profile or "all-formats", *rule.modes]},
    }


class SarifReporter(Reporter):
    """Writes one SARIF log at the end of the run."""

    #: GitHub rejects a run with more results than this; the worst ones are kept.
    max_results = 25_000

    def finish(self, summary: Summary) -> None:
        self.stream.write(dumps_safe(self.sarif_log(summary.findings)) + "\n")

    def sarif_log(self, all_findings: Sequence[Finding]) -> dict[str, Any]:
        """The whole log as JSON-ready data."""
        findings = self._kept_findings(all_findings)
        omitted = len(all_findings) - len(findings)
        examples: dict[str, Finding] = {}
        for finding in findings:
            examples.setdefault(finding.code, finding)
        codes = sorted(examples)
        index = {code: position for position, code in enumerate(codes)}

        driver: dict[str, Any] = {"name": TOOL_NAME, "informationUri": INFORMATION_URI}
        if self.context.tool_version:
            driver["version"] = self.context.tool_version
            driver["semanticVersion"] = self.context.tool_version
        driver["rules"] = [
            rule_descriptor(code, examples[code], self.context.rule_of(code), self.context.page_of(code))
            for code in codes
        ]

        run: dict[str, Any] = {
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(self.context.root)}},
            "columnKind": "unicodeCodePoints",
            # Code scanning tells runs of one tool apart by this id's category (before the last "/").
            "automationDetails": {"id": f"{TOOL_NAME}/"},
            "results": [self._result(f, index[f.code]) for f in findings],
        }
        if omitted:
            run["invocations"] = [
                {
                    "executionSuccessful": True,
                    "toolExecutionNotifications": [
                        {
                            "level": "warning",
                            "message": {
                                "text": (
                                    f"{omitted} of {len(all_findings)} results were left out: code scanning "
                                    f"accepts at most {self.max_results} per run."
                                )
                            },
                        }
                    ],
                }
            ]
        return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}

    def _kept_findings(self, findings: Sequence[Finding]) -> list[Finding]:
        """All findings, or the worst ``max_results`` of them in their original order."""
        if len(findings) <= self.max_results:
            return list(findings)
        ranked = sorted(range(len(findings)), key=lambda i: (-findings[i].severity, i))
        kept = sorted(ranked[: self.max_results])
        return [findings[i] for i in kept]

    def _result(self, finding: Finding, rule_index: int) -> dict[str, Any]:
        physical: dict[str, Any] = {"artifactLocation": artifact_uri(finding.path)}
        region = region_of(finding.line, finding.column, finding.end_line, finding.end_column)
        if region is not None:
            physical["region"] = region
        result: dict[str, Any] = {
            "ruleId": finding.code,
            "ruleIndex": rule_index,
            "level": sarif_level(finding.severity),
            "message": {"text": inert(finding.message) or finding.code},
            "locations": [_location(physical, finding)],
        }
        related = []
        for number, (path, line, column, label) in enumerate(finding.related, start=1):
            related_physical: dict[str, Any] = {"artifactLocation": artifact_uri(path)}
            related_region = region_of(line, column)
            if related_region is not None:
                related_physical["region"] = related_region
            related.append(
                {
                    "id": number,
                    "physicalLocation": related_physical,
                    "message": {"text": inert(label) or "related location"},
                }
            )
        if related:
            result["relatedLocations"] = related
        result["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint(finding)}
        result["properties"] = {"pointer": finding.pointer, "chain": finding.chain}
        return result


def _location(physical: dict[str, Any], finding: Finding) -> dict[str, Any]:
    """A result's location: the file, and for a record with no text (a store's row) its logical place."""
    location: dict[str, Any] = {"physicalLocation": physical}
    if finding.logical:
        location["logicalLocations"] = [
            {
                "fullyQualifiedName": f"{finding.logical}{finding.pointer}",
                "name": finding.pointer.rsplit("/", 1)[-1] or finding.logical.rsplit("/", 1)[-1],
                "kind": "object",
            }
        ]
    return location


def _directory_uri(root: Path) -> str:
    uri = root.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"
