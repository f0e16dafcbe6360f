"""The one path for data: files -> documents -> schema -> rules -> findings.

The CLI and the pytest plugin both call :func:`discover` and :func:`check_chain`;
they differ only in how they report the result.
"""

from __future__ import annotations

import _thread
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.config import Settings
from pytest_handoff.core_rules import CORE_RULES
from pytest_handoff.discovery import SKIPPED_DIRECTORIES as SKIPPED_DIRECTORIES
from pytest_handoff.discovery import ChainRef as ChainRef
from pytest_handoff.discovery import Discovery as Discovery
from pytest_handoff.discovery import chain_ref_for as chain_ref_for
from pytest_handoff.discovery import discover as discover
from pytest_handoff.discovery import iter_handoff_files as iter_handoff_files
from pytest_handoff.discovery import profile_for as profile_for
from pytest_handoff.documents import Document, display_path_for, read_file_bytes, too_large
from pytest_handoff.findings import Finding, Severity
from pytest_handoff.globs import Matcher as Matcher
from pytest_handoff.globs import matches_globs as matches_globs
from pytest_handoff.masking import SHOWN_RUN as SHOWN_RUN
from pytest_handoff.masking import secret_masker as secret_masker
from pytest_handoff.profiles import all_profiles
from pytest_handoff.rules import RULES, Hit, Rule, register_table, rules_for, table_version

if TYPE_CHECKING:
    from pytest_handoff.cache import ResultCache

# The rules every profile shares (HF, HS, HX001); a profile's own are tabled when it loads.
register_table(CORE_RULES)


class Chain:
    """A chain being checked: its documents (parsed ones) and shared analysis.

    Chain rules read documents through :meth:`valid`, which holds only
    documents that passed their schema, so rules can trust their shape.
    """

    def __init__(self, ref: ChainRef, documents: list[Document]) -> None:
        self.ref = ref
        self.documents = documents
        self.notes: list[str] = []
        self.memo: dict[str, Any] = {}
        # valid() by handoff type; a chain is made once its documents are classified and validated.
        self._valid: dict[str | None, list[Document]] = {}

    def __repr__(self) -> str:
        return f"Chain({self.ref.chain_id!r}, {len(self.documents)} documents)"

    @property
    def chain_id(self) -> str:
        return self.ref.chain_id

    def valid(self, handoff_type: str | None = None) -> list[Document]:
        """Schema-valid documents, of ``handoff_type`` when given, in sequence order."""
        found = self._valid.get(handoff_type)
        if found is None:  # rules ask for the same types over and over
            found = self._valid[handoff_type] = [
                doc
                for doc in self.documents
                if doc.schema_valid and (handoff_type is None or doc.handoff_type == handoff_type)
            ]
        return list(found)

    def document_at(self, path: Path) -> Document | None:
        """The parsed document of a member file (None when it did not parse)."""
        return next((doc for doc in self.documents if doc.path == path), None)

    def first(self, handoff_type: str) -> Document | None:
        found = self.valid(handoff_type)
        return found[0] if found else None

    def hit(self, document: Document, pointer: str, message: str, **kwargs: Any) -> Hit:
        """A hit at ``pointer`` of ``document`` (for user hooks)."""
        return Hit(document, pointer, message, **kwargs)


#: The default of ``sources``: shared, and read-only through its ``Mapping`` type.
_EMPTY: Mapping[str, tuple[str, ...]] = {}
#: The default of ``overrides``: no member file read from anywhere but disk.
_NO_OVERRIDES: Mapping[Path, bytes] = {}


class ChainResult(NamedTuple):
    """Everything one chain produced."""

    ref: ChainRef
    findings: tuple[Finding, ...]
    notes: tuple[str, ...]
    # Source lines of the files that have findings, for excerpts.
    sources: Mapping[str, tuple[str, ...]] = _EMPTY
    # Set when the result can be cached: its key, and whether it came from the cache.
    cache_key: str | None = None
    from_cache: bool = False

    @property
    def failed(self) -> bool:
        return any(f.severity >= Severity.ERROR for f in self.findings)

    def narrowed_to(self, display_paths: Iterable[str]) -> ChainResult:
        """Only the findings that belong to ``display_paths``, named files of this chain.

        A finding belongs to a file when its place or one of its related places is in it
        (a property the test handoff left out is reported on the dev handoff, and points at
        the test handoff's classifications); a finding about the chain as a whole (a missing
        stage, a gap in the numbering) belongs to every file of the chain.
        """
        wanted = set(display_paths)
        if not wanted:
            return self._replace(findings=())
        chain_wide = self.ref.profile.chain_wide_codes
        kept = tuple(
            f
            for f in self.findings
            if f.path in wanted or f.code in chain_wide or any(place[0] in wanted for place in f.related)
        )
        return self._replace(findings=kept)


ExtraCheck = Callable[[Chain], Iterable[Hit | Finding]]


def read_member(
    path: Path,
    display_path: str,
    settings: Settings,
    root: Path,
    overrides: Mapping[Path, bytes] = _NO_OVERRIDES,
) -> bytes | Finding:
    """A member file's bytes, or the finding that says why they cannot be had.

    ``overrides`` holds contents to check instead of what is on disk (content on stdin, a
    write an agent is about to make). A symbolic link that leads out of ``root`` is not
    followed: a handoff must not be a way to read (and print) files from elsewhere on the machine.
    """
    given = overrides.get(path)
    if given is not None:
        return (
            given
            if len(given) <= settings.max_file_size
            else too_large(display_path, len(given), settings.max_file_size)
        )
    return _link_out_of(root, path, display_path) or read_file_bytes(
        path, display_path, settings.max_file_size
    )


def _link_out_of(root: Path, path: Path, display_path: str) -> Finding | None:
    """HF007 for a symbolic link that leads out of ``root`` (a file or a store alike)."""
    if os.path.islink(path) and not Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root)):
        return Finding(
            path=display_path,
            line=0,
            column=0,
            code="HF007",
            severity=Severity.ERROR,
            message="symbolic link to a file outside the repository: not followed",
        )
    return None


def check_chain(
    ref: ChainRef,
    settings: Settings,
    root: Path,
    extra_checks: Sequence[ExtraCheck] = (),
    cache: ResultCache | None = None,
    overrides: Mapping[Path, bytes] = _NO_OVERRIDES,
) -> ChainResult:
    """Read, validate and check every file of one chain (or take its result from ``cache``).

    Member files in ``overrides`` are checked with those contents instead of what is on disk
    (the cache key is made of the contents checked, so it holds for them too).
    """
    members, contents = _read_chain(
        ref, settings, root, overrides, cached=cache is not None and not extra_checks
    )
    key = _cache_key(members, contents, cache, extra_checks)
    if key is not None and cache is not None:
        cached = cache.get(key)
        if cached is not None:
            return ChainResult(ref, *cached, cache_key=key, from_cache=True)
    result = _check_contents(ref, settings, root, members, contents, extra_checks, overrides)
    if key is not None and cache is not None:
        result = result._replace(cache_key=key)
        cache.put(key, result.findings, result.notes, result.sources)
    return result


def cached_result(ref: ChainRef, settings: Settings, root: Path, cache: ResultCache) -> ChainResult | None:
    """The chain's result if the cache has it (reads the files to hash them, checks nothing)."""
    members, contents = _read_chain(ref, settings, root, cached=True)
    key = _cache_key(members, contents, cache, ())
    cached = cache.get(key) if key is not None else None
    return None if cached is None else ChainResult(ref, *cached, cache_key=key, from_cache=True)


def _read_chain(
    ref: ChainRef,
    settings: Settings,
    root: Path,
    overrides: Mapping[Path, bytes] = _NO_OVERRIDES,
    *,
    cached: bool = False,
) -> tuple[list[tuple[Path, str]], list[tuple[str, bytes | Finding | None]]]:
    """Each member's display path and bytes (or why they cannot be had; None: the profile opens it)."""
    members = [(path, display_path_for(path, root)) for path in ref.paths]
    opens = ref.profile.opens_itself
    contents: list[tuple[str, bytes | Finding | None]] = [
        (
            display,
            _link_out_of(root, path, display)
            if opens(path)
            else read_member(path, display, settings, root, overrides),
        )
        for path, display in members
    ]
    # Files outside the group its rules consult (YOLO's message-schemas.json): part of the key.
    for path in ref.profile.cache_inputs(ref, settings) if cached else ():
        try:
            contents.append((f"+{path}", path.read_bytes()))
        except OSError:
            contents.append((f"+{path}", b"<absent>"))
    return members, contents


def _cache_key(
    members: list[tuple[Path, str]],
    contents: list[tuple[str, bytes | Finding | None]],
    cache: ResultCache | None,
    extra_checks: Sequence[ExtraCheck],
) -> str | None:
    """The cache key of a chain, or None when its result must not be cached."""
    if cache is None or extra_checks:
        return None
    raws = [(display, raw) for display, raw in contents if isinstance(raw, bytes)]
    # A file that could not be read, or a store the profile opens, depends on more than its bytes.
    return cache.key(raws) if len(raws) == len(contents) else None


def _check_contents(
    ref: ChainRef,
    settings: Settings,
    root: Path,
    members: list[tuple[Path, str]],
    contents: list[tuple[str, bytes | Finding | None]],
    extra_checks: Sequence[ExtraCheck],
    overrides: Mapping[Path, bytes] = _NO_OVERRIDES,
) -> ChainResult:
    profile = ref.profile
    load_findings: list[Finding] = []
    documents: list[Document] = []
    for (path, display), (_, raw) in zip(members, contents[: len(members)], strict=True):
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

    hits: list[tuple[Rule, Hit]] = []
    classify_rule = RULES["HS002"]
    for document in documents:
        handoff_type, classification_hits = profile.classify(document, settings)
        hits.extend((classify_rule, hit) for hit in classification_hits)
        document.handoff_type = handoff_type
        if handoff_type is None:
            continue
        schema_findings = profile.validate(document, settings)
        load_findings.extend(schema_findings)
        # Content rules trust the schema: only schema-valid documents feed them.
        document.schema_valid = not schema_findings

    chain = Chain(ref, documents)
    document_rules, chain_rules = _enabled_rules(
        profile.name, settings.select, settings.ignore, table_version()
    )
    valid = chain.valid()
    for rule, check in document_rules:
        for document in valid:
            if not rule.handoff_types or document.handoff_type in rule.handoff_types:
                hits.extend((rule, hit) for hit in check(document, settings))
    for rule, check in chain_rules:
        hits.extend((rule, hit) for hit in check(chain, settings))

    findings = [f for f in load_findings if settings.is_enabled(f.code)]
    findings = [_with_configured_severity(f, settings) for f in findings]
    findings.extend(finding_of(rule, hit, settings, chain.chain_id) for rule, hit in hits)
    for extra in extra_checks:
        findings.extend(_extra_finding(produced, settings, chain) for produced in extra(chain))

    kept = sorted(
        (
            f if f.chain else _in_chain(f, chain.chain_id)
            for f in findings
            if f.severity >= settings.threshold
        ),
    )
    from pytest_handoff.secrets import secrets_to_mask

    secrets = secrets_to_mask(chain)
    sources = _sources(kept, documents, ref, root, secrets, overrides)
    notes = chain.notes
    if secrets:
        # Whatever rules ran: messages quote values (in part), excerpts show lines, notes quote
        # matched text, and none of them may show a secret.
        hide = secret_masker(secrets)
        kept = [
            f.replace(
                message=hide(f.message),
                pointer=hide(f.pointer),
                related=tuple((path, line, column, hide(label)) for path, line, column, label in f.related),
            )
            for f in kept
        ]
        sources = {path: tuple(hide(line) for line in lines) for path, lines in sources.items()}
        notes = [hide(note) for note in notes]
    return ChainResult(ref, tuple(kept), tuple(notes), sources)


RuleChecks = tuple[tuple[Rule, Callable[[Any, Settings], Iterable[Hit]]], ...]


@cache
def _enabled_rules(
    profile: str, select: tuple[str, ...], ignore: tuple[str, ...], version: int
) -> tuple[RuleChecks, RuleChecks]:
    """The document and chain rules that run for ``profile`` under select/ignore, with their checks.

    ``version`` (:func:`~pytest_handoff.rules.table_version`) makes rules registered later count.
    """
    settings = Settings(select=select, ignore=ignore)
    document_rules, chain_rules = (
        tuple(
            (rule, rule.check)
            for rule in rules_for(profile, scope)
            if rule.check is not None and settings.is_enabled(rule.code)
        )
        for scope in ("document", "chain")
    )
    return document_rules, chain_rules


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _sources(
    findings: Sequence[Finding],
    documents: Sequence[Document],
    ref: ChainRef,
    root: Path,
    secrets: list[str],
    overrides: Mapping[Path, bytes] = _NO_OVERRIDES,
) -> dict[str, tuple[str, ...]]:
    """Lines of each file that has a positioned finding (decoded leniently if it did not parse).

    Secrets in a file that did not parse, or outside the documents of a file of many (HX001 sees
    only documents), are added to ``secrets``.
    """
    from pytest_handoff.secrets import find_secrets, may_hold_secrets

    wanted = {f.path for f in findings if f.line > 0}
    sources: dict[str, tuple[str, ...]] = {}
    for document in documents:
        if document.display_path in wanted and document.display_path not in sources:
            lines = sources[document.display_path] = tuple(_LINE_BREAK.split(document.source_text))
            # A file of many documents (a log, JSONL) has text outside them: HX001 never saw it.
            if document.source_text is not document.text and may_hold_secrets(document.source_text):
                secrets.extend(secret for line in lines for _, secret in find_secrets(line))
    for path in ref.paths:
        display = display_path_for(path, root)
        if display in wanted and display not in sources and not ref.profile.opens_itself(path):
            try:
                raw = overrides[path] if path in overrides else path.read_bytes()
            except OSError:
                continue
            text = raw.decode("utf-8", errors="replace")
            sources[display] = tuple(_LINE_BREAK.split(text))
            if may_hold_secrets(text):
                secrets.extend(secret for line in sources[display] for _, secret in find_secrets(line))
    return sources


def known_codes(patterns: Iterable[str] | None = None) -> list[str]:
    """Every rule code (and ``USER`` for project hooks) of the profiles ``patterns`` can name.

    Without ``patterns``, of every profile. With them, only the profiles whose code prefix a
    pattern starts with are loaded (a pre-commit run that ignores NR205 imports no other format).
    """
    from pytest_handoff.profiles import BUILTIN_SPECS, load

    wanted = (
        None if patterns is None else [p.upper() for p in patterns if not p.upper().startswith(("H", "USER"))]
    )

    def names(pattern: str, prefix: str) -> bool:
        return pattern.startswith(prefix) or prefix.startswith(pattern)

    if wanted is None or any(
        p == "ALL" or not any(names(p, s.code_prefix) for s in BUILTIN_SPECS) for p in wanted
    ):
        all_profiles()  # a plugin's code, a typo, or everything: every profile has its say
    else:
        for spec in BUILTIN_SPECS:
            if any(names(p, spec.code_prefix) for p in wanted):
                load(spec.name)
    return [*RULES, USER_RULE.code]


def _in_chain(finding: Finding, chain_id: str) -> Finding:
    return finding.replace(chain=chain_id, rule=finding.rule or _rule_name(finding.code))


def _rule_name(code: str) -> str:
    rule = RULES.get(code)
    return rule.name if rule else code


def _with_configured_severity(finding: Finding, settings: Settings) -> Finding:
    rule = RULES.get(finding.code)
    if rule is None:
        return finding
    severity = settings.severity_of(rule)
    return finding if severity == finding.severity else finding.replace(severity=severity)


USER_RULE = Rule(
    code="USER",
    name="user-invariant",
    severity=Severity.ERROR,
    scope="chain",
    profile=None,
    handoff_types=(),
    check=None,
    doc="A finding reported by a project's own `pytest_handoff_check_chain` hook.",
)


class ExtraCheckError(TypeError):
    """A project's own check produced something other than a usable hit or finding.

    Its message says what was produced, e.g. ``a str ('our bar is 8')``.
    """


def describe_value(value: object) -> str:
    """``a str ('our bar is 8')``: a value's type, and the value itself when it is short text or a number."""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    if isinstance(value, (str, bytes, int, float)):
        from pytest_handoff.excerpt import inert

        shown = repr(value)
        return f"{article} {kind} ({inert(shown if len(shown) <= 60 else shown[:57] + '...')})"
    return f"{article} {kind}"


def _extra_finding(produced: object, settings: Settings, chain: Chain) -> Finding:
    """A finding from what a project's check produced: a Finding as it is, a Hit positioned as USER."""
    if isinstance(produced, Finding):
        return produced
    if not isinstance(produced, Hit):
        raise ExtraCheckError(describe_value(produced))
    if not isinstance(produced.document, Document):
        raise ExtraCheckError(f"a Hit whose document is {describe_value(produced.document)}, not a Document")
    for field in ("pointer", "message"):
        value = getattr(produced, field)
        if not isinstance(value, str):
            raise ExtraCheckError(f"a Hit whose {field} is {describe_value(value)}, not a str")
    return finding_of(USER_RULE, produced, settings, chain.chain_id)


def finding_of(rule: Rule, hit: Hit, settings: Settings, chain_id: str) -> Finding:
    """Position a rule's hit in its document's source.

    A pointer that does not exist is shown at its nearest existing ancestor, and the message says so.
    """
    region, found = hit.document.locate(hit.pointer, hit.anchor)
    message = hit.message
    if found != hit.pointer:
        message = f"{message} ({hit.document.missing_pointer_note(hit.pointer, found)})"
    related = tuple(
        (doc.display_path, *_line_col(doc, pointer), label) for doc, pointer, label in hit.related
    )
    return Finding(
        path=hit.document.display_path,
        line=region.line,
        column=region.column,
        end_line=region.end_line,
        end_column=region.end_column,
        code=rule.code,
        severity=settings.severity_of(rule),
        message=message,
        pointer=hit.pointer,
        rule=hit.rule or rule.name,
        chain=chain_id,
        related=related,
        logical=hit.document.logical,
    )


def _line_col(document: Document, pointer: str) -> tuple[int, int]:
    region = document.region(pointer)
    return region.line, region.column


def check_paths(
    paths: Sequence[Path],
    root: Path,
    settings: Settings,
    extra_checks: Sequence[ExtraCheck] = (),
    *,
    whole_chain: bool = False,
    cache: ResultCache | None = None,
    jobs: int | None = None,
    deleted: Sequence[Path] = (),
    progress: Progress | None = None,
) -> tuple[Discovery, list[ChainResult]]:
    """Discover and check; results narrowed to named files when files were named (unless ``whole_chain``).

    ``deleted``: files the commit being checked removes (see :func:`discover`).
    """
    discovery = discover(paths, root, settings, deleted)
    focus = discovery.focus
    gone: dict[str, list[str]] = {}  # deleted files by their folder
    for given in deleted:
        shown = display_path_for(given if given.is_absolute() else root / given, root)
        gone.setdefault(shown.rpartition("/")[0], []).append(shown)
    results = []
    for ref, result in zip(
        discovery.chains,
        check_chains(discovery.chains, settings, root, extra_checks, cache, jobs, progress),
        strict=True,
    ):
        if focus is not None and not whole_chain and not _in_named_folder(ref, discovery.folders):
            named = [display_path_for(path, root) for path in ref.paths]
            if ref.directory is not None and gone:  # a deleted file of the chain is named too
                named += gone.get(display_path_for(ref.directory, root), [])
            result = result.narrowed_to(shown for shown in named if shown in focus)
        results.append(result)
    return discovery, results


def _in_named_folder(ref: ChainRef, folders: frozenset[str]) -> bool:
    """True when a named folder contains this chain (then it is reported whole).

    Looks the chain's folder and its parents up in the named folders: linear in the number
    of chains, where comparing every chain with every named path was quadratic.
    """
    if ref.directory is None or not folders:
        return False
    return any(os.path.normcase(folder) in folders for folder in (ref.directory, *ref.directory.parents))


#: Below this many chains a process pool costs more than it saves.
PARALLEL_THRESHOLD = 200

#: Told ``(all chains, None)`` before the first check, then ``(all chains, chain)`` as each is done.
Progress = Callable[[Sequence[ChainRef], "ChainRef | None"], None]


def _no_progress(refs: Sequence[ChainRef], done: ChainRef | None) -> None:
    pass


def check_chains(
    refs: Sequence[ChainRef],
    settings: Settings,
    root: Path,
    extra_checks: Sequence[ExtraCheck] = (),
    cache: ResultCache | None = None,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> list[ChainResult]:
    """Check every chain, on several processes when there are many chains and cores.

    ``jobs`` is the most processes to use (default: one per core). ``progress`` hears of each
    chain as it is done (a progress bar for large trees).

    Cached results are looked up here first, in this process: a warm run only
    reads and hashes, and only the chains that changed go to the workers. An empty
    cache is not asked (the workers hash what they check).
    """
    told = progress or _no_progress
    told(refs, None)
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers < 2 or len(refs) < PARALLEL_THRESHOLD or extra_checks:
        return [_told(check_chain(ref, settings, root, extra_checks, cache), refs, told) for ref in refs]
    import multiprocessing  # only now: it costs start-up time the common case need not pay

    if "fork" not in multiprocessing.get_all_start_methods():
        return [_told(check_chain(ref, settings, root, extra_checks, cache), refs, told) for ref in refs]
    results: list[ChainResult | None] = (
        [cached_result(ref, settings, root, cache) for ref in refs]
        if cache is not None and not cache.empty
        else [None] * len(refs)
    )
    for result in results:
        if result is not None:
            told(refs, result.ref)
    todo = [index for index, result in enumerate(results) if result is None]
    if len(todo) < PARALLEL_THRESHOLD:
        for index in todo:
            results[index] = _told(check_chain(refs[index], settings, root, (), cache), refs, told)
        return [result for result in results if result is not None]
    import gc
    from concurrent.futures import ProcessPoolExecutor
    from functools import partial

    check = partial(_check_forked, settings=settings, root=root, cache=cache)
    # The workers are forked when the tasks are submitted, and inherit the chains through the
    # initializer's arguments (never pickled with fork): tasks are indices, and results come
    # back without their ref (unpickling paths costs more than checking some rules).
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_receive_refs,
        initargs=(refs,),
    )
    with pool:
        with _FORK_LOCK:  # gc.freeze is process-wide: one forking caller at a time
            # Objects the workers inherit stay out of their garbage collections, which would
            # otherwise walk (and so copy) every inherited page. A host's own freeze is left as is.
            freeze = gc.get_freeze_count() == 0
            if freeze:
                gc.freeze()
            try:
                computed = pool.map(check, todo, chunksize=max(1, len(todo) // (workers * 8)))
            finally:
                if freeze:
                    gc.unfreeze()
        for index, (findings, notes, sources, key) in zip(todo, computed, strict=True):
            results[index] = ChainResult(refs[index], findings, notes, sources, cache_key=key)
            told(refs, refs[index])
            # The workers' copies of the cache are gone: record what they computed here.
            if cache is not None and key is not None:
                cache.put(key, findings, notes, sources)
    return [result for result in results if result is not None]


def _told(result: ChainResult, refs: Sequence[ChainRef], progress: Progress) -> ChainResult:
    progress(refs, result.ref)
    return result


_FORK_LOCK = _thread.allocate_lock()
# In a worker: the chains of the check_chains call that forked it.
_FORKED_REFS: Sequence[ChainRef] = ()


def _receive_refs(refs: Sequence[ChainRef]) -> None:
    global _FORKED_REFS
    _FORKED_REFS = refs


def _check_forked(
    index: int, *, settings: Settings, root: Path, cache: ResultCache | None
) -> tuple[tuple[Finding, ...], tuple[str, ...], dict[str, tuple[str, ...]], str | None]:
    result = check_chain(_FORKED_REFS[index], settings, root, (), cache)
    return result.findings, result.notes, dict(result.sources), result.cache_key
