"""Checking one group: read its files, validate them, run its rules, mask secrets, place findings.

Every entry point (the CLI, the pytest plugin, the API, the Claude Code hook, MCP, the views)
checks groups through :func:`check_group`; they differ only in how they report the result.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_handoff.pipeline.evidence import evidence_parts
from pytest_handoff.pipeline.malformed import broken_places, judgeable, judged
from pytest_handoff.pipeline.masking import excerpt_sources, masked, masked_value, shown_path
from pytest_handoff.pipeline.registry import Registry, RuleSet
from pytest_handoff.pipeline.stamps import stamps_of
from pytest_handoff.read.files import (
    NO_OVERRIDES,
    display_path_for,
    link_out_of,
    read_file_bytes,
    read_member,
)
from pytest_handoff.rules.secrets import may_hold_secrets
from pytest_handoff.rules.selection import decision_for
from pytest_handoff.values.documents import Document
from pytest_handoff.values.findings import MAX_FINDINGS_PER_RULE, Finding, Severity, Tally
from pytest_handoff.values.groups import ExtraCheck, Group, GroupRef, GroupResult, Stamp
from pytest_handoff.values.rules import Hit, Rule, finding_of
from pytest_handoff.values.settings import Settings

if TYPE_CHECKING:
    from pytest_handoff.pipeline.cache import ResultCache
    from pytest_handoff.profiles.base import Profile

Contents = list[tuple[str, "bytes | Finding | None"]]


def check_group(
    ref: GroupRef,
    settings: Settings,
    root: Path,
    extra_checks: Sequence[ExtraCheck] = (),
    cache: ResultCache | None = None,
    overrides: Mapping[Path, bytes] = NO_OVERRIDES,
    *,
    registry: Registry,
    links: dict[str, bool] | None = None,
    summarise: bool = False,
) -> GroupResult:
    """Read, validate and check every file of one group (or take its result from ``cache``).

    ``summarise``: the result carries the group as the views show it (:attr:`GroupResult.view`),
    its secrets masked; such a result is not taken from the cache (a view needs the documents).

    ``links`` remembers which folders are symbolic links, across the groups of one run.

    Member files in ``overrides`` are checked with those contents instead of what is on disk
    (the cache key is made of the contents checked, so it holds for them too).
    """
    profile = registry.profile(ref.profile)
    members, contents = _read_group(
        ref, profile, settings, root, overrides, cached=cache is not None and not extra_checks, links=links
    )
    # Evidence depends on git and the working tree, which no cache key holds: never cached.
    key = None if settings.evidence or summarise else _cache_key(contents, cache, extra_checks)
    if key is not None and cache is not None:
        cached = cache.get(key)
        if cached is not None:
            return result_of(ref, profile, root, *cached, cache_key=key, from_cache=True)
    result = _check_contents(
        ref, profile, registry, settings, root, members, contents, extra_checks, overrides, summarise
    )
    if key is not None and cache is not None:
        result = result._replace(cache_key=key)
        cache.put(key, result.findings, result.notes, result.sources, result.stamps)
    return result


def cached_result(
    ref: GroupRef,
    settings: Settings,
    root: Path,
    cache: ResultCache,
    *,
    registry: Registry,
    links: dict[str, bool] | None = None,
) -> GroupResult | None:
    """The group's result if the cache has it (reads the files to hash them, checks nothing)."""
    profile = registry.profile(ref.profile)
    _, contents = _read_group(ref, profile, settings, root, cached=True, links=links)
    key = None if settings.evidence else _cache_key(contents, cache, ())
    cached = cache.get(key) if key is not None else None
    if cached is None:
        return None
    return result_of(ref, profile, root, *cached, cache_key=key, from_cache=True)


def result_of(
    ref: GroupRef,
    profile: Profile,
    root: Path,
    findings: tuple[Finding, ...],
    notes: tuple[str, ...],
    sources: Mapping[str, tuple[str, ...]],
    stamps: tuple[Stamp, ...] = (),
    *,
    cache_key: str | None = None,
    from_cache: bool = False,
    names: GroupNames | None = None,
) -> GroupResult:
    """A group's result from what checking it gave (here, in a worker, or in the cache).

    ``names``: how the group shows its paths and id, when already known.
    """
    shown_paths, masked_id = names or group_names(ref, [display_path_for(path, root) for path in ref.paths])
    return GroupResult(
        ref,
        findings,
        notes,
        sources,
        cache_key=cache_key,
        from_cache=from_cache,
        group_wide=profile.group_wide_codes,
        shown_paths=shown_paths,
        masked_id=masked_id,
        stamps=stamps,
    )


#: How a group shows the display paths of its files that hold a secret, and its id if it holds one.
GroupNames = tuple[dict[str, str], str]
#: A result without its ref, as it travels between processes (a worker's pool, xdist's shares):
#: unpickling a ref's paths costs more than checking some rules.
ResultParts = tuple[
    tuple[Finding, ...],
    tuple[str, ...],
    dict[str, tuple[str, ...]],
    tuple[Stamp, ...],
    "str | None",
    GroupNames,
    "tuple[int, tuple[Any, ...]]",  # claims judged, session claims
]


def parts_of(result: GroupResult) -> ResultParts:
    """What :func:`from_parts` needs, besides the ref, to make ``result`` again."""
    names = (dict(result.shown_paths), result.masked_id)
    evidence = (result.claims_judged, result.session_claims)
    return (
        result.findings,
        result.notes,
        dict(result.sources),
        result.stamps,
        result.cache_key,
        names,
        evidence,
    )


def from_parts(ref: GroupRef, parts: ResultParts, registry: Registry, root: Path) -> GroupResult:
    """The result of ``ref`` that :func:`parts_of` took apart."""
    findings, notes, sources, stamps, key, names, (judged, session) = parts
    made = result_of(
        ref, registry.profile(ref.profile), root, findings, notes, sources, stamps, cache_key=key, names=names
    )
    return made._replace(claims_judged=judged, session_claims=session) if judged or session else made


def group_names(ref: GroupRef, displays: Sequence[str]) -> GroupNames:
    """The masked forms of the group's paths and id that hold a secret (one look for the whole
    group first: mostly there is none)."""
    if not may_hold_secrets("\n".join([ref.group_id, *displays])):
        return {}, ""
    shown = {display: masked for display in displays if (masked := shown_path(display)) != display}
    masked_id = shown_path(ref.group_id)
    return shown, masked_id if masked_id != ref.group_id else ""


def _read_group(
    ref: GroupRef,
    profile: Profile,
    settings: Settings,
    root: Path,
    overrides: Mapping[Path, bytes] = NO_OVERRIDES,
    *,
    cached: bool = False,
    links: dict[str, bool] | None = None,
) -> tuple[list[tuple[Path, str, bool]], Contents]:
    """Each member (path, display path, opened by the profile) and its bytes (or why not; None: opened)."""
    members = [(path, display_path_for(path, root), profile.opens_itself(path)) for path in ref.paths]
    links = {} if links is None else links
    contents: Contents = [
        (
            display,
            link_out_of(root, path, display, links)
            if opens
            else read_member(path, display, settings.max_file_size, root, overrides, links),
        )
        for path, display, opens in members
    ]
    # Files outside the group its rules consult (YOLO's message-schemas.json): part of the key.
    for path in profile.cache_inputs(ref, settings) if cached else ():
        # Read as a member is: a regular file under the size limit, never a link out of the project.
        raw = link_out_of(root, path, str(path), links) or read_file_bytes(
            path, str(path), settings.max_file_size
        )
        contents.append(
            (f"+{path}", raw if isinstance(raw, bytes) else f"<{raw.code} {raw.message}>".encode())
        )
    return members, contents


def _cache_key(
    contents: Contents, cache: ResultCache | None, extra_checks: Sequence[ExtraCheck]
) -> str | None:
    """The cache key of a group, or None when its result must not be cached."""
    if cache is None or extra_checks:
        return None
    raws = [(display, raw) for display, raw in contents if isinstance(raw, bytes)]
    # A file that could not be read, or a store the profile opens, depends on more than its bytes.
    return cache.key(raws) if len(raws) == len(contents) else None


def _secret_findings(document: Document, profile: str, settings: Settings) -> tuple[Finding, ...]:
    """HX001 findings of a document checked for nothing else (a stray file beside the handoffs; a
    handoff gets them from the chain rule)."""
    from pytest_handoff.rules.core import CORE_RULES
    from pytest_handoff.rules.secrets import check_no_secrets
    from pytest_handoff.rules.selection import severity_of

    (rule,) = [rule for rule in CORE_RULES if rule.code == "HX001"]
    severity = severity_of(rule.code, rule.severity, settings)
    alone = Group(GroupRef(profile, "", None, (document.path,)), [document])
    return tuple(finding_of(rule, hit, severity, "") for hit in check_no_secrets(alone, settings))


def _check_contents(
    ref: GroupRef,
    profile: Profile,
    registry: Registry,
    settings: Settings,
    root: Path,
    members: list[tuple[Path, str, bool]],
    contents: Contents,
    extra_checks: Sequence[ExtraCheck],
    overrides: Mapping[Path, bytes] = NO_OVERRIDES,
    summarise: bool = False,
) -> GroupResult:
    rules = registry.rules_of(profile.name)
    load_findings: list[Finding] = []
    documents: list[Document] = []
    unmade: dict[tuple[str, str], int] = {}
    for (path, display, _), (_, raw) in zip(members, contents[: len(members)], strict=True):
        if isinstance(raw, Finding):
            load_findings.append(raw)
            continue
        loaded = (
            profile.open(path, display, settings)
            if raw is None
            else profile.read(raw, path, display, settings)
        )
        load_findings.extend(loaded.findings)
        documents.extend(loaded.documents)
        for scanned in loaded.secrets_only:
            load_findings.extend(_secret_findings(scanned, profile.name, settings))
        for shown_at, code, count in loaded.unmade:
            unmade[shown_at, code] = unmade.get((shown_at, code), 0) + count

    tally = Tally()  # placing a hit reads its source: only the reported ones are placed
    findings: list[Finding] = []
    malformed: list[Document] = []  # typed documents that broke their schema
    broken: dict[str, list[str]] = {}  # where, by file
    classify_rule = rules.by_code["HS002"]
    classify_severity = decision_for(classify_rule.code, classify_rule.severity, settings)
    for document in documents:
        handoff_type, classification_hits = profile.classify(document, settings)
        _place(findings, classify_rule, classify_severity, classification_hits, tally, ref.group_id)
        document.handoff_type = handoff_type
        if handoff_type is None:
            continue
        if tally.is_full(document.display_path, SCHEMA_CODE):
            # Past the cap of schema findings in its file, only whether it is valid matters.
            document.schema_valid = profile.is_valid(document, settings)
            if not document.schema_valid:
                tally.admits(document.display_path, SCHEMA_CODE)  # its errors count as one, at least
                tally.stopped.add((document.display_path, SCHEMA_CODE))
            continue
        schema_findings = profile.validate(document, settings)
        load_findings.extend(f for f in schema_findings if tally.admits(f.path, f.code))
        document.schema_valid = not schema_findings
        if schema_findings and judgeable(document):  # its well-formed parts are judged too
            malformed.append(document)
            for in_file, pointers in broken_places(schema_findings).items():
                broken.setdefault(in_file, []).extend(pointers)

    claim_fields, claim_time = profile.claims_declared(ref, settings) if settings.evidence else ((), "")
    group = Group(ref, documents, root=root, claim_fields=claim_fields, claim_time=claim_time)
    valid = group.valid()
    lenient = None
    if malformed:  # the group as rules see it with the malformed documents in: notes and memo shared
        lenient = Group(
            ref, documents, root=root, claim_fields=claim_fields, claim_time=claim_time, admitted=malformed
        )
        lenient.notes, lenient.memo = group.notes, group.memo
    # The documents of each rule's handoff types, in order: many rules share their types.
    of_types: dict[tuple[str, ...], list[Document]] = {(): valid}
    document_rules, group_rules = registry.enabled_rules(profile.name, settings)
    for rule in document_rules:
        severity = decision_for(rule.code, rule.severity, settings)
        if severity is None:
            continue
        check, types = _check_of(rule), rule.handoff_types
        targets = of_types.get(types)
        if targets is None:
            targets = of_types[types] = [document for document in valid if document.handoff_type in types]
        for document in targets:
            if tally.is_spent(document.display_path, rule.code):
                tally.stopped.add((document.display_path, rule.code))
                continue
            _place(findings, rule, severity, check(document, settings), tally, group.group_id, stops=True)
        for document in malformed:
            applies = not types or document.handoff_type in types  # no types: every document
            if applies and not tally.is_spent(document.display_path, rule.code):
                hits = judged(partial(check, document, settings), broken)
                _place(findings, rule, severity, hits or (), tally, group.group_id, stops=True)
    for rule in group_rules:
        severity = decision_for(rule.code, rule.severity, settings)
        if severity is None:
            continue
        group_hits = None
        if lenient is not None:
            memoised = set(group.memo)
            group_hits = judged(partial(_check_of(rule), lenient, settings), broken)
            if group_hits is None:  # what it memoised with the malformed documents in is not kept
                for name in set(group.memo) - memoised:
                    del group.memo[name]
        if group_hits is None:  # no malformed document, or the rule could not judge with them
            group_hits = list(_check_of(rule)(group, settings))
        _place(findings, rule, severity, group_hits, tally, group.group_id)

    decided = (_decided(f, _default_severity(f, rules), settings) for f in load_findings)
    findings.extend(f for f in decided if f is not None)
    for key, count in tally.unmade().items():
        unmade[key] = unmade.get(key, 0) + count
    if extra_checks:  # a project's own checks: only the threshold applies to what they report
        from pytest_handoff.pipeline.user_checks import extra_finding
    for extra in extra_checks:
        made = (extra_finding(produced, settings, group) for produced in extra(group))
        findings.extend(f for f in made if f.severity >= settings.threshold)
    if settings.per_file_ignores:
        from pytest_handoff.rules.selection import ignored_in_file

        findings = [f for f in findings if not ignored_in_file(f.code, f.path, settings)]
    displays = [display for _, display, _ in members]
    shown_paths, masked_id = group_names(ref, displays)
    chain = masked_id or group.group_id
    kept = capped(
        sorted(
            f.replace(chain=chain) if f.chain == group.group_id else
            f if f.chain else f.replace(chain=chain, rule=f.rule or _rule_name(f.code, rules))
            for f in findings
        ),
        unmade=unmade,
        stopped=tally.stopped,
    )  # fmt: skip
    from pytest_handoff.rules.secrets import find_secrets, secrets_to_mask

    # Nothing of the handoffs' text is shown without a finding or a note: then nothing to mask.
    secrets = secrets_to_mask(group) if kept or group.notes else []
    # A file's name and a record's id can hold a secret too, and messages may quote them.
    names = [*displays, *(document.logical for document in documents if document.logical)]
    if shown_paths or masked_id or (len(names) > len(displays) and may_hold_secrets("\n".join(names))):
        secrets.extend(secret for name in names for _, secret in find_secrets(name))
    sources = excerpt_sources(kept, documents, members, secrets, overrides)
    shown, notes, sources = masked(kept, group.notes, sources, secrets, shown_paths)
    return GroupResult(
        ref,
        tuple(shown),
        tuple(notes),
        sources,
        group_wide=profile.group_wide_codes,
        shown_paths=shown_paths,
        masked_id=masked_id,
        # Only a failing group names its first broken handoff: a passing one needs no stamps.
        stamps=stamps_of(members, documents, profile, shown_paths)
        if any(f.severity >= Severity.ERROR for f in shown)
        else (),
        view=masked_value(group, profile.summarise(group)) if summarise else None,
        **evidence_parts(group, rules, settings, shown_paths),
    )


#: The code of schema findings (the core's rule table).
SCHEMA_CODE = "HS001"


def _place(
    findings: list[Finding],
    rule: Rule,
    severity: Severity | None,
    hits: Iterable[Hit],
    tally: Tally,
    group_id: str,
    *,
    stops: bool = False,
) -> None:
    """Add to ``findings`` those ``rule`` reports for ``hits``: placed while under the cap, only
    counted past it; with ``stops``, the rule stops looking at a document whose file has enough."""
    if severity is None:
        return
    for hit in hits:
        path = hit.document.display_path
        if tally.admits(path, rule.code):
            findings.append(finding_of(rule, hit, severity, group_id))
        elif stops and tally.is_spent(path, rule.code):
            tally.stopped.add((path, rule.code))
            return


def capped(
    findings: list[Finding],
    limit: int = MAX_FINDINGS_PER_RULE,
    *,
    unmade: Mapping[tuple[str, str], int] | None = None,
    stopped: Collection[tuple[str, str]] = (),
) -> list[Finding]:
    """``findings`` (sorted) with at most ``limit`` of each rule in each file, and for a rule that
    had more, one finding at the first one left out that says how many were.

    ``unmade``: how many findings of each (path, code) were only counted (see :class:`Tally`);
    ``stopped``: those whose rule stopped counting (there were more).
    """
    seen: dict[tuple[str, str], int] = dict(unmade or {})
    for finding in findings:
        key = (finding.path, finding.code)
        seen[key] = seen.get(key, 0) + 1
    if all(count <= limit for count in seen.values()):
        return findings
    kept: list[Finding] = []
    shown: dict[tuple[str, str], int] = {}
    for finding in findings:
        key = (finding.path, finding.code)
        shown[key] = shown.get(key, 0) + 1
        if shown[key] <= limit:
            kept.append(finding)
        elif shown[key] == limit + 1:
            more = seen[key] - limit
            count = f"at least {more:,}" if key in stopped else f"{more:,}"
            kept.append(
                finding.replace(
                    message=f"{count} more {finding.code} finding{'s' * (more != 1)} in this file not shown "
                    f"(at most {limit} of a rule per file are); the first is here: {finding.message}",
                    related=(),
                )
            )
    return kept


def _check_of(rule: Rule) -> Callable[[Any, Settings], Iterable[Hit]]:
    assert rule.check is not None  # the rule set holds only rules with a check in these scopes
    return rule.check


def _default_severity(finding: Finding, rules: RuleSet) -> Severity:
    rule = rules.by_code.get(finding.code)
    return rule.severity if rule is not None else finding.severity


def _decided(finding: Finding, default: Severity, settings: Settings) -> Finding | None:
    """``finding`` at the severity its code is reported with, or None when it is not reported."""
    severity = decision_for(finding.code, default, settings)
    if severity is None:
        return None
    return finding if severity == finding.severity else finding.replace(severity=severity)


def _rule_name(code: str, rules: RuleSet) -> str:
    rule = rules.by_code.get(code)
    return rule.name if rule else code
