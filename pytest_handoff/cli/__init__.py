"""``handoff-lint``: the engine on the command line and as a pre-commit hook.

The CLI only parses arguments into settings; discovery, checks and reporters
are the ones the pytest plugin uses.  Exit codes: 0 clean, 1 findings of error
severity, 2 usage or internal error (one line on stderr, never a traceback),
141 when the reader of stdout went away (``handoff-lint rules | head -1``), as a
Unix tool killed by SIGPIPE, quietly.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TextIO

from pytest_handoff.values.errors import UsageError
from pytest_handoff.values.groups import UNCLAIMED

if TYPE_CHECKING:
    from pytest_handoff.pipeline.run import Run
    from pytest_handoff.values.groups import GroupResult
    from pytest_handoff.values.settings import Settings

from pytest_handoff.reporters import REPORTERS


def _shown(error: Exception) -> str:
    """An error's message on one line, inert: it may quote the repository's data (a key, a chain id)."""
    from pytest_handoff.values.boundary import inert

    return inert(str(error), opens_line=False)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args[:1] == ["explain"]:
            status = explain(args[1:])
        elif args[:1] == ["rules"]:
            status = list_rules()
        elif args[:1] == ["claims"]:
            status = lint(args[1:], claims=True)
        elif args[:1] == ["init"]:
            from pytest_handoff.cli.init import init

            status = init(args[1:])
        elif args[:1] == ["claude-hook"]:
            from pytest_handoff.agents.claude_hook import main as claude_hook

            status = claude_hook(args[1:])
        elif args[:1] == ["mcp"]:
            from pytest_handoff.agents.mcp import main as mcp_server

            status = mcp_server(args[1:])
        elif args[:1] and args[0] in ("chain", "report", "show", "schema"):
            from pytest_handoff.cli.views import run_command

            status = run_command(args[0], args[1:])
        else:
            status = lint(args)
        sys.stdout.flush()  # here, so that a closed pipe is noticed inside the try
        return status
    except BrokenPipeError:
        _silence_stdout()
        return SIGPIPE_STATUS
    except UsageError as error:
        print(f"handoff-lint: error: {_shown(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 2
    except Exception as error:  # never a traceback for users; the message says what broke
        from pytest_handoff.values.errors import ConfigError

        if isinstance(error, ConfigError):  # a profile refusing its options when first used
            print(f"handoff-lint: error: {_shown(error)}", file=sys.stderr)
            return 2
        print(f"handoff-lint: internal error: {type(error).__name__}: {_shown(error)}", file=sys.stderr)
        return 2


def run() -> NoReturn:
    """The ``handoff-lint`` command (and ``python -m pytest_handoff``): :func:`main`, then an exit
    that skips the interpreter's teardown, once what was printed is flushed.

    Freeing every module and object one by one at exit took about 20 ms, as long as checking a
    file: the pre-commit hook pays it on every commit. Nothing is left to tear down by then (files
    are written and closed, process pools joined, inside :func:`main`). Only for the command's own
    process: a caller of :func:`main` keeps its interpreter.
    """
    try:
        status = main()
    except SystemExit as leaving:  # argparse's --help, --version and usage errors
        status = _exit_status(leaving.code)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: what could be written was
            if stream is sys.stdout and status == 0:
                status = SIGPIPE_STATUS
    os._exit(status)


def _exit_status(code: object) -> int:
    """The status ``sys.exit(code)`` gives: None is 0, a number itself, anything else is printed and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


#: What a shell reports for a process killed by SIGPIPE (128 + 13).
SIGPIPE_STATUS = 141


def _silence_stdout() -> None:
    """Point stdout at the null device, so that flushing it at exit cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (e.g. captured)
        pass


def warn(message: str) -> None:
    """A warning on stderr, in the form of our errors; the run goes on."""
    print(f"handoff-lint: warning: {message}", file=sys.stderr)


def lint(argv: list[str], *, claims: bool = False) -> int:
    from pytest_handoff.cli.quick import quick_options

    options: Any = quick_options(argv)
    if options is None:
        from pytest_handoff.cli.options import build_parser

        try:
            options = build_parser().parse_args(argv)
        except SystemExit as exit_:
            return 0 if exit_.code in (0, None) else 2
    # Globs and chain folders are relative to the project, wherever in it we are run; named
    # paths are relative to the working directory, as typed.
    from pytest_handoff.pipeline.run import Run, find_project
    from pytest_handoff.values.errors import ConfigError

    root = find_project(Path.cwd())
    named = {Path(os.path.abspath(given)): str(given) for given in options.paths}
    deleted: list[Path] = []
    if options.staged_deletions:
        from pytest_handoff.pipeline.staged import GitError, deleted_files

        try:
            # git names them relative to the working directory
            deleted = [Path(os.path.abspath(path)) for path in deleted_files()]
        except GitError as error:
            raise UsageError(f"--staged-deletions: {error}") from None
    if options.staged_deletions and not options.paths and not deleted:
        return 0  # the commit adds, changes and removes no handoff
    overrides = {key: getattr(options, key) for key in ("select", "ignore") if getattr(options, key)}
    if options.severity:
        overrides["threshold"] = options.severity
    if options.profile:
        overrides["profile"] = options.profile
    if options.evidence:
        overrides["evidence"] = True
    if options.evidence_junit and not options.no_evidence:
        if not os.path.isfile(options.evidence_junit):
            raise UsageError(f"--evidence-junit: no such file: {options.evidence_junit}")
        overrides["evidence_junit"] = os.path.abspath(options.evidence_junit)
    if options.no_evidence:
        overrides["evidence"] = False
    if options.shard is not None:
        overrides["shard"] = options.shard
    if options.baseline is not None:
        overrides["baseline"] = os.path.abspath(options.baseline)
    if options.write_baseline is not None:
        if options.shard or options.changed_since is not None:  # a part of the run would pass for all of it
            raise UsageError("--write-baseline records the whole run: give no --shard and no --changed-since")
        overrides["baseline"] = ""  # every finding of today, the known ones too
    try:
        run = Run.in_project(root, config_file=options.config, overrides=overrides)
    except ConfigError as error:
        raise UsageError(str(error)) from None
    if options.changed_since is not None:
        if options.paths or options.staged_deletions:
            raise UsageError(
                "--changed-since chooses the files itself: give no paths and no --staged-deletions"
            )
        from pytest_handoff.cli.changes import changed_handoffs

        named, deleted = changed_handoffs(options.changed_since, run)
        if not named and not deleted:
            from pytest_handoff.values.boundary import inert

            base = inert(options.changed_since, opens_line=False)
            print(f"handoff-lint: no handoff changed since {base}", file=sys.stderr)
            return 0
    settings, registry = run.settings, run.registry
    cache = None
    if options.cache_dir is not None:
        from pytest_handoff.pipeline.cache import ResultCache

        cache = ResultCache(options.cache_dir, settings.fingerprint(), keep_notes=False)

    outputs = _parse_outputs(options.output)
    if claims:
        unjudged = run.claims_unjudged()
        if unjudged.startswith("evidence is off") and options.no_evidence:
            unjudged = "evidence is off (--no-evidence)"
        if unjudged:
            hint = "" if "git repository" in unjudged else "; give --evidence"
            raise UsageError(f"claims are judged against git, but {unjudged}{hint}")
        results = [_check_claims(run, options.paths)]
    elif options.stdin_filename is not None:
        results = [_check_stdin(options.stdin_filename, options.paths, root, settings, options.whole_chain)]
    else:
        progress = None
        if sys.stderr.isatty():  # hooks, CI and pipes pay nothing for the bar
            from pytest_handoff.views.progress import progress_bar

            progress = progress_bar(options.format or "text")
        discovery, results = run.check_paths(
            list(named),
            whole_chain=options.whole_chain,
            cache=cache,
            jobs=options.jobs,
            deleted=deleted,
            progress=progress,
        )
        if discovery.missing:
            missing = [named.get(Path(path), path) for path in discovery.missing]
            raise UsageError(f"no such file or folder: {', '.join(missing)}")
        if options.skip_unclaimed:
            results = [result for result in results if result.ref.profile != UNCLAIMED]
        for path, given in named.items():
            if path.is_dir() and not any(_holds(path, ref.paths) for ref in discovery.groups):
                globs = ", ".join(registry.all_globs(settings))
                warn(f"no handoff files in {given} (handoff files match {globs} below {root})")
    if cache is not None:
        problem = cache.flush()
        if problem:
            warn(problem)

    if options.write_baseline is not None:
        return _write_baseline(options.write_baseline, results)

    in_actions = os.environ.get("GITHUB_ACTIONS") == "true" and not options.no_ci_output
    stdout_format = options.format or "text"
    from pytest_handoff.reporters import append_step_summary, write_reports

    with ExitStack() as stack:
        streams: list[tuple[str, TextIO]] = []
        for name, target in outputs:
            try:
                streams.append((name, stack.enter_context(target.open("w", encoding="utf-8"))))
            except OSError as error:
                raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
        if in_actions:
            append_step_summary(results, root, warn, registry.rule)
        # stdout last: a reader that goes away early (| head) cannot cost the files above.
        streams.append((stdout_format, sys.stdout))
        if in_actions and stdout_format != "github":
            # The runner reads workflow commands on stderr too: JSON, SARIF and Markdown on
            # stdout stay exactly that format.
            streams.append(("github", sys.stdout if stdout_format == "text" else sys.stderr))
        write_reports(results, streams, root, registry.rule, registry.page_of, settings)
    from pytest_handoff.values.findings import Severity

    failing = Severity.WARNING if options.fail_on == "warning" else Severity.ERROR
    return 1 if any(f.severity >= failing for result in results for f in result.findings) else 0


def _write_baseline(target: Path, results: list[GroupResult]) -> int:
    from pytest_handoff.pipeline.baseline import write_baseline
    from pytest_handoff.values.wording import counted

    try:
        count = write_baseline(target, results)
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror or error}") from None
    print(
        f"handoff-lint: {target}: baseline of {counted(count, 'finding')} written",
        file=sys.stderr,
    )
    return 0


def _holds(folder: Path, paths: Sequence[Path]) -> bool:
    return any(path == folder or folder in path.parents for path in paths)


def _check_stdin(
    filename: Path, paths: list[Path], root: Path, settings: Settings, whole_chain: bool
) -> GroupResult:
    """Content on stdin checked as if it stood at ``filename`` (``-`` is the only path allowed)."""
    if [str(path) for path in paths] not in ([], ["-"]):
        raise UsageError("--stdin-filename checks stdin only: give '-' as the one path")
    from pytest_handoff.api import check_file

    # Named relative to the working directory, like every path on the command line.
    target = Path(os.path.abspath(filename))
    return check_file(target, sys.stdin.buffer.read(), root=root, settings=settings, whole_chain=whole_chain)


#: A report file larger than this is refused (bytes); of any report only its end is read.
MAX_REPORT_FILE = 64 * 1024 * 1024


def _check_claims(run: Run, paths: list[Path]) -> GroupResult:
    """An agent's report (stdin for ``-``, else one file) checked as a message: its claims of work done."""
    given = [str(path) for path in paths]
    if given in ([], ["-"]):
        raw, before, shown = *_tail(sys.stdin.buffer), "stdin"
    elif len(given) == 1:
        from pytest_handoff.read.files import read_bounded

        try:
            raw, before, shown = read_bounded(paths[0], MAX_REPORT_FILE), 0, given[0]
        except OSError as error:
            raise UsageError(f"claims: cannot read {given[0]}: {error.strerror or error}") from None
    else:
        raise UsageError("claims checks one report: give '-' (stdin) or one file")
    result = run.check_message(raw.decode("utf-8", errors="replace"), shown, lines_before=before)
    if result is None:
        raise UsageError("claims: no format reads an agent's report")
    return result


def _tail(stream: BinaryIO) -> tuple[bytes, int]:
    """The end of ``stream`` the check reads (twice what a message is read for, so a character or a
    line cut at the edge is whole), and the lines before it."""
    from pytest_handoff.pipeline.run import MAX_MESSAGE

    kept, before = b"", 0
    while chunk := stream.read(1 << 20):
        kept += chunk
        if len(kept) > 2 * MAX_MESSAGE:
            before += kept.count(b"\n", 0, len(kept) - 2 * MAX_MESSAGE)
            kept = kept[-2 * MAX_MESSAGE :]
    return kept, before


def _parse_outputs(values: list[str]) -> list[tuple[str, Path]]:
    outputs = []
    for value in values:
        name, sep, file = value.partition("=")
        if not sep or name not in REPORTERS or not file:
            raise UsageError(
                f"--output takes FORMAT=FILE with FORMAT one of {', '.join(REPORTERS)}, got {value!r}"
            )
        outputs.append((name, Path(file)))
    return outputs


def explain(codes: list[str]) -> int:
    from pytest_handoff.api import explain as rule_of
    from pytest_handoff.api import page_of

    if not codes:
        raise UsageError("explain takes a rule code, e.g. handoff-lint explain NR301")
    for code in codes:
        try:
            rule = rule_of(code)
        except KeyError:
            raise UsageError(f"unknown rule {code!r}; 'handoff-lint rules' lists them") from None
        print(f"{rule.code} {rule.name} (default severity: {rule.severity.label})\n")
        print(rule.doc)
        page = page_of(rule.code)
        if page:
            print(f"\nDocumentation: {page}")
    return 0


def list_rules() -> int:
    from pytest_handoff.api import rules

    for rule in rules():
        print(f"{rule.code:7} {rule.name:30} {rule.severity.label:8} {rule.summary}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
