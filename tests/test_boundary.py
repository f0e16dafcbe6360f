"""One boundary out: no text from a handoff starts a line the tool did not write, in any output.

A handoff's keys, values, record ids and file names carry line breaks, GitHub workflow commands
(``::error``, ``::add-mask::``) and the older ``##[command]`` form; every output of every entry
point is read line by line for a command the handoff smuggled in.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.cli import main
from pytest_handoff.values.boundary import GuardedStream, guarded_line, inert
from tests.conftest import SAMPLE_CHAIN, copy_chain
from tests.craik_helpers import clean_handoff
from tests.ralph_helpers import make_session
from tests.test_craik_store import as_row, build_store
from tests.yolo_helpers import PHASE, write

INJECTED = "\n::error file=evil.py,line=1::INJECTED\n\u00a0::add-mask::x\n x ##[error]INJECTED-V1\n"


def test_inert_keeps_text_on_one_line_with_its_breaks_shown() -> None:
    assert inert("a\nb\r\nc\u2028d") == "a\\x0ab\\x0d\\x0ac\\u2028d"


def test_inert_escapes_a_workflow_command_opening_a_piece_and_the_old_form_anywhere() -> None:
    assert inert("::error::x") == "\\x3a:error::x"
    assert inert("  ::warning::x") == "  \\x3a:warning::x"
    assert (
        inert("\u00a0\u3000::warning::x") == "\u00a0\u3000\\x3a:warning::x"
    )  # the runner trims Unicode spaces
    assert inert("##[error]y") == "\\x23#[error]y"
    assert inert("a ::b ##[c]") == "a ::b \\x23#[c]"  # ::b opens no line; ##[ counts anywhere
    assert inert("::error::x", opens_line=False) == "::error::x"  # placed after text of the tool's


def test_inert_leaves_plain_text_alone() -> None:
    text = "NR301 unclassified-property: P2 'cache keys' - see 02-dev-agent.json:12:5 (ok: 3/4)"
    assert inert(text) == text


def smuggled_lines(output: str) -> list[str]:
    """Lines of ``output`` that a CI runner would take for a command the handoff wrote: one that,
    after any white space, starts with ``::`` (a workflow command), or holds ``##[`` anywhere."""
    return [
        line
        for line in output.splitlines()
        if line.lstrip().startswith(("::error file=evil.py", "::add-mask::")) or "##[error]INJECTED" in line
    ]


@pytest.fixture
def hostile_project(git_project: Path) -> Path:
    """A project whose NeuralRelay key, YOLO value, Ralph item id, Craik row id and contract key carry commands."""
    chain = copy_chain(SAMPLE_CHAIN, git_project / ".neuralrelay" / "handoffs" / "20260511-091500")
    dev = json.loads((chain / "02-dev-agent.json").read_text(encoding="utf-8"))
    dev[f"x{INJECTED}"] = 1  # an unexpected key: HS001 names it in its pointer
    (chain / "02-dev-agent.json").write_text(json.dumps(dev, indent=2), encoding="utf-8")
    write(
        git_project,
        f"{PHASE}/notes.jsonl",
        [{"type": "critique_result", "phase": "05", "findings": f"1{INJECTED}"}],
    )
    session = git_project / "session"
    make_session(session, "broken")
    prd = json.loads((session / "prd.json").read_text(encoding="utf-8"))
    for item in prd.get("items", prd.get("userStories", [])):
        item["id"] = f"item{INJECTED}"
    (session / "prd.json").write_text(json.dumps(prd, indent=2), encoding="utf-8")
    handoff = clean_handoff()
    handoff["id"] = f"row{INJECTED}"
    handoff["tests_run"] = []  # CK101: a finding placed at the row
    (git_project / ".craik" / "state").mkdir(parents=True)
    build_store(git_project / ".craik" / "state" / "craik.sqlite3", [as_row("handoffs", handoff)])
    (git_project / "schema.json").write_text(
        '{"type": "object", "additionalProperties": false}', encoding="utf-8"
    )
    (git_project / "notes").mkdir()
    (git_project / "notes" / "a.yaml").write_text(f"{json.dumps('k' + INJECTED)}: 1\n", encoding="utf-8")
    (git_project / "pyproject.toml").write_text(
        '[tool.handoff.contracts.note]\nglobs = ["notes/*.yaml"]\nschema = "schema.json"\n', encoding="utf-8"
    )
    return git_project


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_no_output_format_lets_a_handoff_write_a_line_of_its_own(
    hostile_project: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    assert main(["--format", fmt]) == 1
    out = capsys.readouterr().out
    assert "INJECTED" in out or fmt == "markdown"  # the payload is shown, made harmless
    assert smuggled_lines(out) == []
    if fmt in ("json", "sarif"):
        json.loads(out)
    if fmt == "json":  # every format's payload got as far as a finding
        places = {(f["code"], f["path"]) for f in json.loads(out)["findings"]}
        assert ("CK101", ".craik/state/craik.sqlite3") in places
        assert ("HS001", "notes/a.yaml") in places
        assert any(path.endswith("prd.json") for _, path in places)
        assert any(path.endswith("notes.jsonl") for _, path in places)


def test_pytest_reports_warnings_and_traces_let_no_handoff_write_a_line(
    hostile_project: Path, pytester: pytest.Pytester
) -> None:
    for entry in hostile_project.iterdir():
        target = pytester.path / entry.name
        if entry.is_dir():
            shutil.copytree(entry, target, dirs_exist_ok=True)
    result = pytester.runpytest_subprocess("--handoffs", "-p", "no:cacheprovider", "-rA", "-W", "always")
    output = result.stdout.str() + result.stderr.str()
    assert "INJECTED" in output
    assert smuggled_lines(output) == []


@pytest.mark.parametrize("view", [["chain"], ["report"]])
def test_the_reading_views_let_no_handoff_write_a_line(
    hostile_project: Path, capsys: pytest.CaptureFixture[str], view: list[str]
) -> None:
    main([*view, "--format", "markdown"] if view == ["chain"] else view)
    out = capsys.readouterr().out
    assert out
    assert smuggled_lines(out) == []


def test_a_symbolic_link_to_a_folder_outside_the_project_is_not_followed(
    git_project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    copy_chain(SAMPLE_CHAIN, outside / "20260511-091500")
    (git_project / ".neuralrelay").mkdir()
    (git_project / ".neuralrelay" / "handoffs").symlink_to(outside, target_is_directory=True)
    named = ".neuralrelay/handoffs/20260511-091500/02-dev-agent.json"
    assert main(["--format", "json", named]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {(f["path"], f["code"]) for f in report["findings"]} == {(named, "HF007")}


@pytest.mark.skipif(sys.platform == "win32", reason="a file name with a line break")
def test_a_file_name_cannot_write_a_line_either(
    git_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = git_project / "agents" / "tester" / "handoff"
    folder.mkdir(parents=True)
    name = "developer-2026-04-02T10:00:00.000Z\n::error file=evil.py::INJECTED.json"
    (folder / name).write_text("{}", encoding="utf-8")
    main(["--format", "text", f"agents/tester/handoff/{name}"])
    assert smuggled_lines(capsys.readouterr().out) == []


def test_the_hook_lets_a_path_no_file_system_can_name_go_by_cleanly(git_project: Path) -> None:
    from pytest_handoff.agents.claude_hook import respond

    for file_path in (str(git_project / "x\ud800.json"), str(git_project / "a\x00.json")):
        payload = {
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": file_path, "content": "{}"},
            "cwd": str(git_project),
        }
        assert respond(payload) is None


def test_mcp_refuses_a_path_no_file_system_can_name(git_project: Path) -> None:
    from pytest_handoff.agents.mcp import inside

    with pytest.raises(ValueError, match="not a path this system can name"):
        inside(git_project, "a\ud800.json")


def test_guarded_line_escapes_a_command_opening_a_drawn_line_after_space_or_style_codes() -> None:
    assert guarded_line("   ::add-mask::x") == "   \\x3a:add-mask::x"
    assert guarded_line("\x1b[1m \x1b[0m::error::x") == "\x1b[1m \x1b[0m\\x3a:error::x"
    assert guarded_line("a ##[error] b") == "a \\x23#[error] b"
    assert (
        guarded_line("tests/test_a.py::test_b") == "tests/test_a.py::test_b"
    )  # :: inside a line is no command


def test_a_guarded_stream_guards_lines_however_they_are_cut_into_writes() -> None:
    out = io.StringIO()
    stream = GuardedStream(out)
    for piece in ("ok\n   :", ":add-mask::x\nlast ##", "[error]", "\n::tail"):
        stream.write(piece)
    stream.flush()
    assert out.getvalue() == "ok\n   \\x3a:add-mask::x\nlast \\x23#[error]\n\\x3a:tail"


#: Values that a wrap at any width may cut so that a workflow command opens a drawn line: every
#: other word one, and the same behind control characters (each drawn four characters wide).
WRAPPED = "::add-mask::X " * 24
CONTROLLED = "\x01\x02\x03 " * 8 + "::add-mask::X " * 12


def wrapped_everywhere(value: Any) -> Any:
    """``value`` with every string of it (but the handoff's type) made to carry :data:`WRAPPED`."""
    if isinstance(value, dict):
        return {k: v if k == "handoff_type" else wrapped_everywhere(v) for k, v in value.items()}
    if isinstance(value, list):
        return [wrapped_everywhere(item) for item in value]
    return f"{WRAPPED}{value}{CONTROLLED}" if isinstance(value, str) else value


@pytest.fixture
def wrapping_project(hostile_project: Path) -> Path:
    dev = hostile_project / ".neuralrelay" / "handoffs" / "20260511-091500" / "02-dev-agent.json"
    dev.write_text(
        json.dumps(wrapped_everywhere(json.loads(dev.read_text(encoding="utf-8"))), indent=2),
        encoding="utf-8",
    )
    return hostile_project


def opened_commands(output: str) -> list[str]:
    """Lines a CI runner would take for a command the data wrote: opening (after white space and
    style codes) with ``::add-mask`` or ``::error file=evil``, or holding ``##[error]INJECTED``."""
    opening = re.compile(r"(?:\s|\x1b\[[0-9;?]*[A-Za-z])*(::add-mask|::error file=evil)")
    return [line for line in output.splitlines() if opening.match(line) or "##[error]INJECTED" in line]


OUTPUTS = [
    *(["--format", fmt] for fmt in ("text", "json", "sarif", "github", "markdown")),
    ["show", ".neuralrelay/handoffs/20260511-091500/02-dev-agent.json"],
    ["show", "--markdown", ".neuralrelay/handoffs/20260511-091500/02-dev-agent.json"],
    *(["chain", "--format", fmt, "20260511-091500"] for fmt in ("text", "markdown", "json")),
    *(["report", "--format", fmt] for fmt in ("text", "markdown", "json")),
]


@pytest.mark.parametrize("width", [20, 80, 200])
@pytest.mark.parametrize("forced", [False, True], ids=["pipe", "forced-terminal"])
def test_no_output_at_any_width_lets_data_open_a_line_with_a_command(
    wrapping_project: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    width: int,
    forced: bool,
) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    if forced:  # as CI runners often set: rich then draws as on a terminal of COLUMNS
        monkeypatch.setenv("FORCE_COLOR", "1")
    for output in OUTPUTS:
        main(output)
        out = capsys.readouterr().out
        assert "add-mask" in out or output[0] == "report", output  # the report shows counts and ids
        assert opened_commands(out) == [], output


def test_markdown_output_mentions_no_one(wrapping_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = wrapping_project / ".neuralrelay" / "handoffs" / "20260511-091500" / "02-dev-agent.json"
    data = json.loads(dev.read_text(encoding="utf-8"))
    data["files_changed"][0]["summary"] = "reviewed by @octocat, cc @github/security"
    data["mentions-key @octocat"] = 1  # HS001: the key is shown in the finding too
    dev.write_text(json.dumps(data), encoding="utf-8")
    for output in (
        ["show", "--markdown", str(dev)],
        ["--format", "markdown"],
        ["chain", "--format", "markdown", "20260511-091500"],
    ):
        main(output)
        out = capsys.readouterr().out
        assert "octocat" in out, output
        assert re.findall(r"@\w", out) == [], output
