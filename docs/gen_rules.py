"""The rule pages of the documentation site, written from the registry's rule tables.

    python docs/gen_rules.py           # write docs/rules/CODE.md and the rules tables of the pages
    python docs/gen_rules.py --check   # write nothing; exit 1 naming each page that differs

One page per rule of the core table and of the built-in formats: its summary, code, format, default
severity and failure modes, its four-part documentation, and an example finding. The example is the
first finding of its code that ``handoff-lint --evidence`` reports on this repository's examples and test
fixtures, each copied into a temporary git repository laid out as its format keeps its files, then on
the rule examples (``tests/fixtures/rule-examples/``: a small project per rule planting its break, run
as its ``example.toml`` says, see ``docs/rule_examples.py``), printed as the text output prints it; a
page whose code none of them triggers says so. A page of ``docs/`` holding
``<!-- rules: NAME -->`` ... ``<!-- /rules -->`` gets the table of that format's rules in between
(``all``: every rule, by format). ``tests/test_docs_rules.py`` fails when a committed page differs from
what this writes, so ``mkdocs build`` needs no plugin.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
RULES = DOCS / "rules"
FIXTURES = REPO / "tests" / "fixtures"

if str(REPO) not in sys.path:  # run as a script from a checkout: the package beside it
    sys.path.insert(0, str(REPO))

from pytest_handoff.pipeline.registry import Registry, default_registry  # noqa: E402
from pytest_handoff.rules.modes import mode_label  # noqa: E402
from pytest_handoff.values.rules import Rule  # noqa: E402

if str(DOCS) not in sys.path:  # the rule examples' module beside this one
    sys.path.insert(0, str(DOCS))

from rule_examples import RuleExample, Run, no_repository_above, read_example, rule_examples  # noqa: E402

#: Where each group of rules is described, and its title: a built-in format, or the core's rules.
GROUPS: dict[str, tuple[str, str]] = {
    "core": ("Every format: reading, schemas, secrets", "formats/index.md"),
    "evidence": ("Evidence (every format, in a git repository)", "evidence.md"),
    "neuralrelay": ("NeuralRelay", "formats/neuralrelay.md"),
    "craik": ("Craik", "formats/craik.md"),
    "ralph": ("Ralph", "formats/ralph.md"),
    "yolo": ("YOLO", "formats/yolo.md"),
    "trinity": ("Trinity", "formats/trinity.md"),
    "gsd": ("GSD", "formats/gsd.md"),
    "handoff-md": ("Markdown handoffs", "formats/markdown.md"),
    "contracts": ("User-defined contracts", "formats/contracts.md"),
}
PARTS = ("What it does", "Why is this bad?", "Example", "Use instead")
_PART = re.compile(r"^\*\*(?P<name>[^*]+)\*\*(?P<tail>[^\n]*)", re.M)
_BLOCK = re.compile(r"(<!-- rules: (?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /rules -->)", re.S)
_STAMP_TIME = re.compile(r"T(\d\d)_(\d\d)_(\d\d)")


class Example(NamedTuple):
    """A finding as the text output prints it, what it was found in, and the command that prints it."""

    text: str
    source: str
    evidence: bool
    command: str = "handoff-lint"
    git: bool = True


class Source(NamedTuple):
    """Files of this repository, and how to lay them out in a project as their format keeps them."""

    folder: Path
    how: str  # said on the page: where the files were put
    lay: Callable[[Path, Path], None]  # (folder, project) -> None
    run: Run = Run()


def group_of(rule: Rule) -> str:
    """The key of ``GROUPS`` a rule is listed under."""
    if rule.profile is not None:
        return rule.profile
    return "evidence" if rule.code.startswith("EV") else "core"


def documented_rules(registry: Registry) -> dict[str, Rule]:
    """The rules with a page: the core table's and the built-in formats', by code."""
    builtin = set(registry.builtin_names())
    return {
        code: rule
        for code, rule in registry.all_rules().items()
        if (rule.profile is None or rule.profile in builtin) and registry.page_of(code)
    }


# --- example findings ------------------------------------------------------------------------------


def _copy_tree(folder: Path, project: Path) -> None:
    shutil.copytree(folder, project, dirs_exist_ok=True)


def _as_examples(folder: Path, project: Path) -> None:
    shutil.copytree(folder, project / folder.name)


def _as_neuralrelay_chain(folder: Path, project: Path) -> None:
    shutil.copytree(folder, project / ".neuralrelay" / "handoffs" / folder.name)


def _as_craik_folder(folder: Path, project: Path) -> None:
    shutil.copytree(folder, project / ".craik" / folder.name)


def _as_ralph_session(folder: Path, project: Path) -> None:
    shutil.copyfile(folder / "prd.json", project / "prd.json")
    shutil.copytree(folder / "session", project / ".claude" / "session")


def _as_trinity_workspaces(folder: Path, project: Path) -> None:
    for workspace in sorted(path for path in folder.iterdir() if path.is_dir()):
        target = project / workspace.name / "handoff"
        target.mkdir(parents=True)
        for file in sorted(workspace.iterdir()):
            shutil.copyfile(file, target / _STAMP_TIME.sub(r"T\1:\2:\3", file.name))


def _as_yolo_project(folder: Path, project: Path) -> None:
    shutil.copytree(folder, project, dirs_exist_ok=True)
    (project / "yolo-planning").rename(project / ".yolo-planning")


def _sets(folder: Path) -> list[Path]:
    return sorted(path for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []


def sources() -> list[Source]:
    """The examples, then each format's fixtures, in the order their findings are taken."""
    found = [Source(REPO / "examples", "copied as they are", _as_examples)]
    found += [
        Source(chain, "copied to `.neuralrelay/handoffs/`", _as_neuralrelay_chain)
        for chain in _sets(FIXTURES / "neuralrelay")
    ]
    found += [Source(s, "copied to `.craik/`", _as_craik_folder) for s in _sets(FIXTURES / "craik")]
    found += [
        Source(s, "copied as `prd.json` and `.claude/session/`", _as_ralph_session)
        for s in _sets(FIXTURES / "ralph")
    ]
    found += [
        Source(s, "each workspace copied to `{workspace}/handoff/`, colons restored", _as_trinity_workspaces)
        for s in _sets(FIXTURES / "trinity")
    ]
    found += [
        Source(s, "copied with `yolo-planning/` named `.yolo-planning/`", _as_yolo_project)
        for s in _sets(FIXTURES / "yolo")
    ]
    found += [Source(s, "copied as it is", _copy_tree) for s in _sets(FIXTURES / "contracts")]
    found += [as_source(example) for example in rule_examples()]
    return found


def as_source(example: RuleExample | Path) -> Source:
    """A rule example (or the folder of one, or of a base of some) as a source of findings."""
    if isinstance(example, Path):
        example = read_example(example)
    return Source(example.folder, example.how(), example.lay, example.run)


@contextmanager
def _working_directory(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


class Printed(NamedTuple):
    """A finding of a source, by its code, as the text output prints it."""

    code: str
    text: str


#: Each source with every finding reported on it, in the order sources are run.
Found = Sequence[tuple[Source, Sequence[Printed]]]


def findings_on(source: Source, registry: Registry | None = None) -> list[Printed]:
    """Every finding ``handoff-lint`` reports on ``source``, laid out as a project in a temporary folder."""
    from pytest_handoff.pipeline.config import build_settings
    from pytest_handoff.pipeline.run import check_paths
    from pytest_handoff.reporters.excerpt import format_finding

    registry = registry or default_registry()
    printed = []
    with tempfile.TemporaryDirectory() as temporary:
        project = Path(temporary) / "project"
        project.mkdir()
        source.lay(source.folder, project)
        source.run.prepare(project)
        with _working_directory(project), no_repository_above(Path(temporary)):
            settings = build_settings(
                project, registry, overrides=source.run.overrides(project), source="docs"
            )
            named = [project / path for path in source.run.paths]
            _, results = check_paths(named, project, settings, jobs=1, registry=registry)
        for result in results:
            for finding in result.findings:
                text = "\n".join(format_finding(finding, result.sources.get(finding.path)))
                if temporary in text:
                    raise RuntimeError(f"{finding.code}: the example names the temporary folder: {text}")
                printed.append(Printed(finding.code, text))
    return printed


def source_findings(registry: Registry | None = None) -> list[tuple[Source, Sequence[Printed]]]:
    """Every source with its findings (each source run once)."""
    registry = registry or default_registry()
    return [(source, findings_on(source, registry)) for source in sources()]


def example_findings(found: Found) -> dict[str, Example]:
    """The first finding of each code on the sources, in their order."""
    examples: dict[str, Example] = {}
    for source, printed in found:
        shown = f"`{source.folder.relative_to(REPO).as_posix()}` ({source.how})"
        for finding in printed:
            if finding.code not in examples:
                evidence = finding.code.startswith("EV")
                command = source.run.command(evidence)
                examples[finding.code] = Example(finding.text, shown, evidence, command, source.run.git)
    return examples


# --- pages -----------------------------------------------------------------------------------------


def _link(target: str, page: str) -> str:
    """``target`` (a path below docs/) as a link from ``page`` (another)."""
    return Path(os.path.relpath(DOCS / target, (DOCS / page).parent)).as_posix()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _sentence(text: str) -> str:
    """``text`` with its first letter a capital, as it starts a paragraph of its own on the page."""
    return text[:1].upper() + text[1:] if text[:1].islower() else text


def doc_parts(doc: str) -> dict[str, str]:
    """A rule's docs by part: "" for the summary before the first part, then each bold-headed part."""
    marks = list(_PART.finditer(doc))
    parts = {"": doc[: marks[0].start()].strip() if marks else doc.strip()}
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        end = following.start() if following else len(doc)
        tail = mark.group("tail").lstrip(":").strip()
        parts[mark.group("name")] = (tail + doc[mark.end() : end]).strip()
    return parts


def rule_page(rule: Rule, example: Example | None) -> str:
    """The Markdown page of one rule."""
    page = f"rules/{rule.code}.md"
    parts = doc_parts(rule.doc)
    title, where = GROUPS[group_of(rule)]
    modes = "; ".join(mode_label(mode) for mode in rule.modes) or "none (a rule about form or place)"
    lines = [
        f"# {rule.code} {rule.name}",
        "",
        parts[""],
        "",
        # The table is headed by the rule itself: an empty header row shows as a blank bar.
        f"| Rule | `{rule.code}` {rule.name} |",
        "|---|---|",
        f"| Format | [{title}]({_link(where, page)}) |",
        f"| Default severity | {rule.severity.label} |",
        f"| Failure modes ([MAST]({_link('rules/index.md', page)}#failure-modes)) | {modes} |",
        "",
    ]
    for part in PARTS:
        lines += [f"## {part}", "", _sentence(parts.get(part, "")) or "(not documented)", ""]
    lines += ["## An example finding", "", *_example_lines(rule.code, example)]
    lines += [
        "",
        f"`handoff-lint explain {rule.code}` prints this documentation; "
        f"`select`, `ignore` and `severity` take the code ([Configuration]({_link('configuration.md', page)})).",
        "",
    ]
    return "\n".join(lines)


def _example_lines(code: str, example: Example | None) -> list[str]:
    """The section's text: where the example finding was found and how it prints, or that none was."""
    if example is None:
        return [
            f"None of this repository's examples and test fixtures triggers {code}, so there is no",
            "finding of it to show here; the example above says what it reports.",
        ]
    said = f"The first {code} finding `{example.command}` reports on {example.source}"
    if example.evidence:  # the repository of the claims is the temporary one
        place = (
            "a git repository that holds nothing else" if example.git else "a folder no git repository holds"
        )
        said += f", in {place}"
    return [f"{said}, as it prints it:", *_text_block(example.text)]


def _text_block(text: str) -> list[str]:
    return ["", "```text", text, "```"]


def rules_table(rules: Sequence[Rule], page: str) -> list[str]:
    """A Markdown table of ``rules``, each code linked to its page from ``page``."""
    lines = ["| Code | Name | Default severity | Summary |", "|---|---|---|---|"]
    for rule in rules:
        code = f"[{rule.code}]({_link(f'rules/{rule.code}.md', page)})"
        lines.append(f"| {code} | {rule.name} | {rule.severity.label} | {_cell(rule.summary)} |")
    return lines


def rules_block(name: str, rules: dict[str, Rule], page: str, examples: dict[str, Example]) -> str:
    """What goes between ``<!-- rules: NAME -->`` and ``<!-- /rules -->`` on ``page``."""
    if name != "all":
        if name not in GROUPS:
            raise KeyError(
                f"{page}: <!-- rules: {name} --> names no group of rules ({', '.join(GROUPS)}, all)"
            )
        return "\n".join(rules_table([r for r in rules.values() if group_of(r) == name], page)) + "\n"
    lines = []
    for group, (title, where) in GROUPS.items():
        members = [rule for rule in rules.values() if group_of(rule) == group]
        shown = sum(1 for rule in members if rule.code in examples)
        lines += [
            f"### {title}",
            "",
            f"{len(members)} rules ([described here]({_link(where, page)})), "
            f"{shown} with an example finding.",
            "",
            *rules_table(members, page),
            "",
        ]
    return "\n".join(lines)


def pages(registry: Registry | None = None, found: Found | None = None) -> dict[Path, str]:
    """Every generated page by path: each rule's, and each page of docs/ with a rules block, filled in.

    ``found``: what :func:`source_findings` returned, when the caller has it already.
    """
    registry = registry or default_registry()
    rules = documented_rules(registry)
    examples = example_findings(source_findings(registry) if found is None else found)
    written = {RULES / f"{code}.md": rule_page(rule, examples.get(code)) for code, rule in rules.items()}
    for path in sorted(DOCS.rglob("*.md")):
        if path in written:
            continue
        text = path.read_text(encoding="utf-8")
        page = path.relative_to(DOCS).as_posix()

        def fill(match: re.Match[str], page: str = page) -> str:
            body = rules_block(match.group("name"), rules, page, examples)
            return f"{match.group(1)}{body}{match.group(4)}"

        if _BLOCK.search(text):
            written[path] = _BLOCK.sub(fill, text)
    return written


def stale_pages(written: dict[Path, str]) -> list[Path]:
    """Rule pages of docs/rules/ whose code no table has any more."""
    return [path for path in sorted(RULES.glob("*.md")) if path.name != "index.md" and path not in written]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page differs")
    args = parser.parse_args(argv)
    written = pages()
    differ = [path for path, text in written.items() if not path.is_file() or path.read_text("utf-8") != text]
    stale = stale_pages(written)
    if args.check:
        for path in [*differ, *stale]:
            print(f"{path.relative_to(REPO)}: differs from the rule tables (python docs/gen_rules.py)")
        return 1 if differ or stale else 0
    RULES.mkdir(exist_ok=True)
    for path in differ:
        path.write_text(written[path], encoding="utf-8")
    for path in stale:
        path.unlink()
    print(f"{len(differ)} pages written, {len(stale)} removed, {len(written) - len(differ)} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
