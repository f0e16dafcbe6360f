"""``handoff-lint claude-hook``: Claude Code's PreToolUse/PostToolUse hook on Write, Edit and MultiEdit.

Payloads are shaped as Claude Code sends them on stdin: the common fields (``session_id``,
``transcript_path``, ``cwd``, ``permission_mode``, ``hook_event_name``), then ``tool_name``,
``tool_input`` and ``tool_use_id``, and for PostToolUse ``tool_response``. The hook reads
``hook_event_name``, ``tool_name``, ``tool_input`` and ``cwd``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents import claude_hook
from pytest_handoff.cli import main as cli_main
from tests.agent_loop import BA, DEV, REVIEW, TEST, Project


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    return Project(tmp_path)


def payload(project: Project, event: str, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    sent: dict[str, Any] = {
        "session_id": "8a3c2f1e-5b7d-4e9a-b0c1-2d3e4f5a6b7c",
        "transcript_path": str(project.root / ".claude" / "transcript.jsonl"),
        "cwd": str(project.root),
        "permission_mode": "default",
        "hook_event_name": event,
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABCDEF",
    }
    if event == "PostToolUse":
        sent["tool_response"] = {"filePath": tool_input["file_path"], "success": True}
    return sent


def run_hook(sent: object) -> tuple[int, str, str]:
    """The hook run in-process on ``sent`` (a payload, or raw bytes): exit code, stdout, stderr."""
    raw = sent if isinstance(sent, bytes) else json.dumps(sent).encode("utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    code = claude_hook.main([], io.BytesIO(raw), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def write(project: Project, name: str, content: str, event: str = "PreToolUse") -> dict[str, Any]:
    return payload(project, event, "Write", {"file_path": str(project.path(name)), "content": content})


def denial(stdout: str) -> str:
    """The reason of a PreToolUse refusal (fails the test if the output is not one)."""
    answer = json.loads(stdout)
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    reason: str = specific["permissionDecisionReason"]
    return reason


def bad_tokens(data: Any) -> None:
    data["tokens_used"] = "about forty thousand"


# --- Write -----------------------------------------------------------------


def test_hs001_in_a_write_refuses_it_with_the_place_pointer_and_fix(project: Project) -> None:
    code, out, err = run_hook(write(project, DEV, project.changed(DEV, bad_tokens)))
    assert (code, err) == (0, "")
    reason = denial(out)
    line = project.changed(DEV, bad_tokens).splitlines().index('  "tokens_used": "about forty thousand",') + 1
    assert f"{project.relative(DEV)}:{line}:18 /tokens_used [HS001 schema-violation]" in reason
    assert 'expected integer, got string "about forty thousand"' in reason
    assert "Use instead: add the missing fields, fix types and values as the message says." in reason
    assert "was not written" in reason
    assert project.unchanged()


def test_a_clean_write_passes_silently(project: Project) -> None:
    assert run_hook(write(project, DEV, project.text(DEV))) == (0, "", "")
    assert project.unchanged()


def test_warnings_alone_do_not_refuse_a_write(project: Project) -> None:
    from pytest_handoff import check

    def vaguer(data: dict[str, Any]) -> None:
        data["acceptance_criteria"][0] += " and the page is user-friendly"

    vague = project.changed(BA, vaguer)
    assert {f.code for f in check(project.path(BA), vague, root=project.root)} >= {"NR203"}  # a warning
    assert run_hook(write(project, BA, vague)) == (0, "", "")
    assert project.unchanged()


def test_nr307_a_new_file_is_checked_in_its_chain_on_disk(project: Project) -> None:
    text = project.text(REVIEW)
    project.remove(REVIEW)
    low = text.replace('"total_tokens": 75200', '"total_tokens": 10')
    reason = denial(run_hook(write(project, REVIEW, low))[1])
    assert "[NR307 token-total]" in reason
    assert run_hook(write(project, REVIEW, text)) == (0, "", "")
    assert project.unchanged()


def test_nr301_a_write_is_refused_for_what_it_breaks_in_an_earlier_handoff(project: Project) -> None:
    dropped = project.changed(TEST, lambda d: d["property_verification"]["confirmed"].pop(0))
    reason = denial(run_hook(write(project, TEST, dropped))[1])
    assert (
        f"{project.relative(DEV)}:92:19 /properties_believed/0/property [NR301 unclassified-property]"
        in reason
    )
    assert project.unchanged()


def test_findings_already_in_other_files_do_not_refuse_a_write(project: Project) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))  # broken before the agent came
    assert run_hook(write(project, REVIEW, project.text(REVIEW))) == (0, "", "")


def test_a_long_list_of_errors_is_bounded_and_says_how_many_were_left_out(project: Project) -> None:
    reason = denial(run_hook(write(project, DEV, "{}"))[1])
    assert len(reason) <= claude_hook.MAX_REASON
    assert reason.count("\n   Use instead:") <= claude_hook.MAX_FINDINGS
    assert "more: fix these, and the rest are listed on the next try." in reason


def test_the_files_own_errors_come_before_those_it_causes_elsewhere(project: Project) -> None:
    def break_both(data: Any) -> None:
        data["property_verification"]["confirmed"].pop(0)
        data["test_summary"]["total"] = 50  # NR208: 39 + 1 + 1 is not 50

    reason = denial(run_hook(write(project, TEST, project.changed(TEST, break_both)))[1])
    assert reason.index(project.relative(TEST) + ":") < reason.index(project.relative(DEV) + ":")


def test_invalid_json_in_a_write_is_refused_with_its_place(project: Project) -> None:
    reason = denial(run_hook(write(project, DEV, '{"handoff_type": "dev_to_test",,}'))[1])
    assert f"{project.relative(DEV)}:1:" in reason
    assert "[HF" in reason


# --- Edit and MultiEdit ------------------------------------------------------


def edit(project: Project, name: str, old: str, new: str, replace_all: bool | None = None) -> dict[str, Any]:
    tool_input: dict[str, Any] = {"file_path": str(project.path(name)), "old_string": old, "new_string": new}
    if replace_all is not None:
        tool_input["replace_all"] = replace_all
    return payload(project, "PreToolUse", "Edit", tool_input)


def test_hs001_an_edit_is_applied_in_memory_and_refused(project: Project) -> None:
    reason = denial(run_hook(edit(project, DEV, '"tokens_used": 38600', '"tokens_used": "many"'))[1])
    assert "/tokens_used [HS001 schema-violation]" in reason
    assert project.unchanged()


def test_a_harmless_edit_passes(project: Project) -> None:
    assert run_hook(edit(project, DEV, '"tokens_used": 38600', '"tokens_used": 38700')) == (0, "", "")
    assert project.unchanged()


def test_replace_all_edits_every_occurrence(project: Project) -> None:
    # "high" is a confidence more than once; replacing only the first would leave a valid file.
    old, new = '"confidence": "high"', '"confidence": "certain"'
    assert project.text(DEV).count(old) > 1
    reason = denial(run_hook(edit(project, DEV, old, new, replace_all=True))[1])
    assert reason.count("[HS001 schema-violation]") == project.text(DEV).count(old)


def test_an_old_string_found_more_than_once_without_replace_all_is_left_to_the_tool(project: Project) -> None:
    assert run_hook(edit(project, DEV, '"confidence": "high"', '"confidence": "certain"')) == (0, "", "")


def test_an_old_string_not_found_is_left_to_the_tool(project: Project) -> None:
    assert run_hook(edit(project, DEV, "no such text", '"x"')) == (0, "", "")
    assert run_hook(edit(project, "07-nobody.json", "anything", "else")) == (0, "", "")


def multi_edit(project: Project, name: str, *edits: tuple[str, str]) -> dict[str, Any]:
    return payload(
        project,
        "PreToolUse",
        "MultiEdit",
        {
            "file_path": str(project.path(name)),
            "edits": [{"old_string": o, "new_string": n} for o, n in edits],
        },
    )


def test_nr307_multi_edits_apply_in_order_each_to_the_result_of_the_last(project: Project) -> None:
    # The second edit only matches what the first wrote.
    sent = multi_edit(project, REVIEW, ('"total_tokens": 75200', '"total_tokens": 7520'), ("7520,", "10,"))
    reason = denial(run_hook(sent)[1])
    assert "/total_tokens [NR307 token-total]" in reason
    fine = multi_edit(project, REVIEW, ('"total_tokens": 75200', '"total_tokens": 7520'), ("7520,", "75300,"))
    assert run_hook(fine) == (0, "", "")
    assert project.unchanged()


def test_a_multi_edit_one_of_whose_edits_fails_is_left_to_the_tool(project: Project) -> None:
    sent = multi_edit(project, DEV, ('"tokens_used": 38600', '"tokens_used": "x"'), ("not there", "y"))
    assert run_hook(sent) == (0, "", "")


def test_a_multi_edit_creating_a_new_file_is_checked(project: Project) -> None:
    text = project.text(REVIEW)
    project.remove(REVIEW)
    sent = multi_edit(project, REVIEW, ("", text), ('"total_tokens": 75200', '"total_tokens": 10'))
    assert "[NR307 token-total]" in denial(run_hook(sent)[1])
    assert project.unchanged()


# --- PostToolUse ---------------------------------------------------------------


def test_post_tool_use_blocks_with_the_reason_when_the_written_file_is_broken(project: Project) -> None:
    project.replace(DEV, project.changed(DEV, bad_tokens))  # what the Write just put there
    code, out, err = run_hook(write(project, DEV, project.text(DEV), event="PostToolUse"))
    answer = json.loads(out)
    assert (code, err, answer["decision"]) == (0, "", "block")
    assert "/tokens_used [HS001 schema-violation]" in answer["reason"]
    assert "Fix each one below in the file" in answer["reason"]
    assert project.unchanged()


def test_post_tool_use_is_silent_on_a_clean_file(project: Project) -> None:
    sent = payload(
        project,
        "PostToolUse",
        "Edit",
        {"file_path": str(project.path(DEV)), "old_string": "a", "new_string": "b"},
    )
    assert run_hook(sent) == (0, "", "")


# --- what the hook leaves alone -----------------------------------------------------


@pytest.mark.parametrize(
    "name", ["README.md", "package.json", ".neuralrelay/config.json", "src/01-setup.json"]
)
def test_a_file_no_glob_claims_is_let_through(project: Project, name: str) -> None:
    sent = payload(project, "PreToolUse", "Write", {"file_path": str(project.root / name), "content": "{"})
    assert run_hook(sent) == (0, "", "")
    assert project.unchanged()


@pytest.mark.parametrize(
    "sent",
    [
        b"",
        b"not json",
        b"\xff\xfe{",
        b"[1, 2]",
        b"[" * 100_000,
        b'{"hook_event_name": "PreToolUse"}',
        b'{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": "x"}',
        b'{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": 3}}',
        b'{"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": ""}}',
        b'{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"file_path": "/x.json", "edits": 1}}',
    ],
)
def test_a_payload_the_hook_cannot_read_is_let_through_without_a_traceback(sent: bytes) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    assert claude_hook.main([], io.BytesIO(sent), stdout, stderr) == 0
    assert (stdout.getvalue(), stderr.getvalue()) == ("", "")


def test_a_write_without_content_or_with_a_malformed_edit_is_let_through(project: Project) -> None:
    assert run_hook(payload(project, "PreToolUse", "Write", {"file_path": str(project.path(DEV))})) == (
        0,
        "",
        "",
    )
    broken_edit = {"file_path": str(project.path(DEV)), "old_string": 3, "new_string": "x"}
    assert run_hook(payload(project, "PreToolUse", "Edit", broken_edit)) == (0, "", "")
    edits = {"file_path": str(project.path(DEV)), "edits": ["not an edit"]}
    assert run_hook(payload(project, "PreToolUse", "MultiEdit", edits)) == (0, "", "")


@pytest.mark.parametrize(
    ("event", "tool"),
    [("PreToolUse", "Bash"), ("PreToolUse", "Read"), ("PostToolUse", "Read"), ("UserPromptSubmit", "Write")],
)
def test_other_tools_and_events_are_let_through(project: Project, event: str, tool: str) -> None:
    sent = payload(project, event, tool, {"file_path": str(project.path(DEV)), "content": "{}"})
    assert run_hook(sent) == (0, "", "")


def test_a_configuration_error_is_shown_to_the_user_without_refusing(project: Project) -> None:
    (project.root / "pyproject.toml").write_text("[tool.handoff]\nnot_a_setting = 1\n", encoding="utf-8")
    code, out, err = run_hook(write(project, DEV, "{}"))
    assert (code, out) == (1, "")
    assert err.startswith("handoff-lint claude-hook: ")
    assert "not_a_setting" in err
    assert "Traceback" not in err


def test_configured_globs_decide_what_the_hook_checks(project: Project) -> None:
    (project.root / "pyproject.toml").write_text(
        '[tool.handoff]\nglobs = ["handoffs/*.json"]\n', encoding="utf-8"
    )
    assert run_hook(write(project, DEV, "{}")) == (0, "", "")  # not a handoff under these globs


def test_the_hook_takes_only_fail_closed(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["claude-hook", "--strict"]) == 1
    assert "takes only --fail-closed (got --strict); it reads a Claude Code hook payload on stdin" in (
        capsys.readouterr().err
    )
    assert cli_main(["claude-hook", "--fail-closed", "--fail-closed"]) == 1


# --- when the hook itself fails -----------------------------------------------------------


@pytest.fixture
def crashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook's checks fail with an error whose message quotes a handoff."""

    def crash(*_: object, **__: object) -> None:
        raise KeyError("ghp_A1b2C3d4E5f6G7h8I9j0 from the handoff")

    monkeypatch.setattr(claude_hook, "respond", crash)


@pytest.mark.usefixtures("crashing")
def test_a_failing_hook_fails_open_by_default_with_one_line_and_no_traceback(project: Project) -> None:
    code, out, err = run_hook(write(project, DEV, "{}"))
    assert (code, out) == (1, "")  # Claude Code lets the call go on and shows the user the line
    assert (
        err == "handoff-lint claude-hook: internal error: KeyError\n"
    )  # the type only: its text may quote a handoff
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.usefixtures("crashing")
def test_with_fail_closed_a_failing_hook_refuses_with_a_short_line_that_quotes_nothing(
    project: Project,
) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    raw = io.BytesIO(json.dumps(write(project, DEV, "{}")).encode("utf-8"))
    assert claude_hook.main(["--fail-closed"], raw, stdout, stderr) == 2  # Claude Code refuses the call
    assert stdout.getvalue() == ""
    assert stderr.getvalue() == (
        "handoff-lint claude-hook failed (KeyError) and runs with --fail-closed, so it refuses: "
        "tell the user the hook needs a look.\n"
    )


@pytest.mark.usefixtures("crashing")
def test_with_fail_closed_an_agent_already_kept_from_stopping_is_let_stop(project: Project) -> None:
    sent = {"hook_event_name": "Stop", "cwd": str(project.root), "stop_hook_active": True}
    stdout, stderr = io.StringIO(), io.StringIO()
    raw = io.BytesIO(json.dumps(sent).encode("utf-8"))
    assert claude_hook.main(["--fail-closed"], raw, stdout, stderr) == 1  # never a loop of refusals
    sent["stop_hook_active"] = False
    assert (
        claude_hook.main(["--fail-closed"], io.BytesIO(json.dumps(sent).encode("utf-8")), stdout, stderr) == 2
    )


def test_with_fail_closed_a_configuration_error_still_only_tells_the_user(project: Project) -> None:
    (project.root / "pyproject.toml").write_text("[tool.handoff]\nnot_a_setting = 1\n", encoding="utf-8")
    stdout, stderr = io.StringIO(), io.StringIO()
    raw = io.BytesIO(json.dumps(write(project, DEV, "{}")).encode("utf-8"))
    # A refusal of every write would keep the agent from mending pyproject.toml.
    assert claude_hook.main(["--fail-closed"], raw, stdout, stderr) == 1
    assert "not_a_setting" in stderr.getvalue()


# --- end to end, as Claude Code runs it -------------------------------------------------


def run_command(project: Project, sent: object, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_handoff.cli", "claude-hook", *extra],
        input=json.dumps(sent),
        capture_output=True,
        text=True,
        cwd=project.root,
        check=False,
        timeout=60,
    )


def test_the_command_refuses_a_broken_write_under_claude_codes_protocol(project: Project) -> None:
    done = run_command(project, write(project, DEV, project.changed(DEV, bad_tokens)))
    assert (done.returncode, done.stderr) == (0, "")
    assert "[HS001 schema-violation]" in denial(done.stdout)
    assert project.unchanged()


# Imports the hook must not pay for (see test_cli.py); a non-handoff write imports not even the engine.
PROBE = (
    "import io, sys\n"
    "from pytest_handoff.cli import main\n"
    "out, sys.stdout = sys.stdout, io.StringIO()\n"
    "code = main(['claude-hook'])\n"
    "sys.stdout = out\n"
    "print(code, sorted(m for m in sys.argv[1].split(',') if m in sys.modules))\n"
)


@pytest.mark.parametrize(
    ("name", "content", "absent"),
    [
        ("README.md", "# hello\n", ("pytest_handoff.pipeline.check", "pytest_handoff.values.documents")),
        (DEV, None, ()),
    ],
)
def test_the_hook_imports_nothing_heavy(
    project: Project, name: str, content: str | None, absent: tuple[str, ...]
) -> None:
    from tests.probes import HEAVY_MODULES

    target = project.root / name if name == "README.md" else project.path(name)
    sent = payload(
        project, "PreToolUse", "Write", {"file_path": str(target), "content": content or project.text(DEV)}
    )
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join((*HEAVY_MODULES, *absent))],
        input=json.dumps(sent),
        capture_output=True,
        text=True,
        cwd=project.root,
        check=True,
        timeout=60,
    )
    assert done.stdout.split(maxsplit=1) == ["0", "[]\n"]


def test_the_claude_code_page_shows_the_reason_the_hook_really_gives(project: Project) -> None:
    from tests.conftest import REPO

    def break_it(data: Any) -> None:
        data["bugs_found"][0]["counterexample"] = "see above"
        data["property_verification"]["confirmed"].pop(1)

    reason = denial(run_hook(write(project, TEST, project.changed(TEST, break_it)))[1])
    page = (REPO / "docs" / "claude-code.md").read_text(encoding="utf-8")
    assert f"```\n{reason}\n```\n" in page


def test_the_project_root_is_found_wherever_the_session_cd_to(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = write(project, DEV, project.changed(DEV, bad_tokens))
    sent["cwd"] = str(project.chain)  # the agent ran `cd` into the chain folder
    # As the CLI does: up from the session's folder to the one holding .neuralrelay.
    assert "[HS001 schema-violation]" in denial(run_hook(sent)[1])
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project.root))
    assert "[HS001 schema-violation]" in denial(run_hook(sent)[1])


def test_claude_project_dir_wins_over_the_sessions_folder(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(elsewhere))
    sent = write(project, DEV, project.changed(DEV, bad_tokens))
    # The file lies outside that project: its globs do not claim it.
    assert run_hook(sent) == (0, "", "")


def test_a_relative_file_path_is_taken_from_the_sessions_folder(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(project.root))
    sent = write(project, DEV, project.changed(DEV, bad_tokens))
    sent["cwd"] = str(project.root / ".neuralrelay")
    sent["tool_input"]["file_path"] = f"handoffs/{project.chain.name}/{DEV}"
    assert "[HS001 schema-violation]" in denial(run_hook(sent)[1])


def test_a_broken_file_can_be_repaired_one_edit_at_a_time(project: Project) -> None:
    def two_errors(data: Any) -> None:
        data["tokens_used"] = "lots"
        data["timestamp"] = "yesterday"

    project.replace(DEV, project.changed(DEV, two_errors))
    sent = edit(project, DEV, '"tokens_used": "lots"', '"tokens_used": 41000')
    assert run_hook(sent) == (0, "", "")  # the edit leaves the timestamp broken, but breaks nothing
    sent["hook_event_name"] = "PostToolUse"
    project.replace(DEV, project.text(DEV).replace('"tokens_used": "lots"', '"tokens_used": 41000'))
    code, out, _ = run_hook(sent)
    assert code == 0
    assert json.loads(out)["decision"] == "block"  # what is still broken is reported once written
    assert "/timestamp" in json.loads(out)["reason"]


def test_the_claude_code_pages_settings_register_the_hook_for_every_event_it_serves() -> None:
    from tests.conftest import REPO

    page = (REPO / "docs" / "claude-code.md").read_text(encoding="utf-8")
    section = page[page.index("# Claude Code hook\n") : page.index("## Write, Edit and MultiEdit\n")]
    block = section[section.index("```json\n") + 8 : section.index("\n```", section.index("```json\n"))]
    hooks = json.loads(block)["hooks"]
    matchers = {event: [entry.get("matcher") for entry in entries] for event, entries in hooks.items()}
    assert matchers == {
        "PreToolUse": ["Write|Edit|MultiEdit"],
        "PostToolUse": ["Write|Edit|MultiEdit|Bash"],
        "PostToolUseFailure": ["Bash"],
        "Stop": [None],
        "SubagentStop": [None],
    }
    commands = {h["command"] for entries in hooks.values() for entry in entries for h in entry["hooks"]}
    assert commands == {"handoff-lint claude-hook"}
    for event, names in matchers.items():  # every event the hook answers, and only those
        if event in claude_hook.STOP_EVENTS:
            continue
        tools = set(names[0].split("|"))
        assert tools <= claude_hook.TOOLS | {"Bash"}
        assert ("Bash" in tools) is (event in claude_hook.SHELL_EVENTS)


@pytest.mark.parametrize("event", ["PostToolUse", "Stop"])
def test_a_cwd_holding_a_nul_is_no_folder_and_no_internal_error(project: Project, event: str) -> None:
    sent = write(project, DEV, project.changed(DEV, bad_tokens), event=event)
    sent["cwd"] = str(project.root) + "\x00x"
    code, _, err = run_hook(sent)
    assert code == 0
    assert "internal error" not in err
