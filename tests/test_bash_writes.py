"""``handoff-lint claude-hook`` after a Bash command: the handoffs it wrote, checked.

Payloads are Claude Code's PostToolUse and PostToolUseFailure payloads for ``Bash``
(:func:`tests.agent_loop.bash_payload`): the hook reads ``hook_event_name``, ``tool_name``,
``cwd``, ``tool_input.command`` and ``duration_ms`` (else ``tool_input.timeout``). The commands are
not run: each test puts on disk what its command would have written, then asks the hook.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_handoff.agents import claude_hook
from pytest_handoff.agents.bash import command_paths, ran_for
from tests.agent_loop import CHAIN_ID, DEV, REVIEW, TEST, Project, bash_payload, in_git

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    for variable in ("CLAUDE_PROJECT_DIR", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(variable, raising=False)
    return in_git(Project(tmp_path / "repo"))


@pytest.fixture
def plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project outside git (its ``.neuralrelay`` folder makes it one)."""
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    return Project(tmp_path / "plain")


def run_hook(sent: dict[str, Any], *argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = claude_hook.main(list(argv), io.BytesIO(json.dumps(sent).encode("utf-8")), stdout, stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def blocked(stdout: str) -> str:
    """The reason of a PostToolUse block (fails the test if the output is not one)."""
    answer = json.loads(stdout)
    assert answer["decision"] == "block"
    assert set(answer) == {"decision", "reason"}
    reason: str = answer["reason"]
    return reason


def bad_tokens(data: Any) -> None:
    data["tokens_used"] = "lots"


def put(project: Project, name: str, text: str) -> None:
    """What a command wrote: ``text`` at ``name`` of the chain (the new starting point)."""
    project.replace(name, text)


# --- which files a command names ---------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "writes"),
    [
        ("echo '{}' > a.json", ["a.json"]),
        ("printf x >>a.json 2>&1", ["a.json"]),
        ("make >| a.json &> b.json", ["a.json", "b.json"]),
        ("jq . in.json | tee a.json b.json > /dev/null", ["/dev/null", "a.json", "b.json"]),
        ("tee -a a.json < in.json", ["a.json"]),
        ("cp -p in.json out.json", ["out.json", "out.json/in.json"]),
        ("mv one.json two.json dest/", ["dest/", "dest/one.json", "dest/two.json"]),
        ("install -m 644 -t dest a.json", ["dest/a.json"]),
        ("dd if=in.json of=a.json", ["a.json"]),
        ("sed -i 's/x/y/' a.json", ["s/x/y/", "a.json"]),
        ("touch a.json && truncate -s 0 b.json", ["a.json", "b.json"]),
        ("FOO=1 nohup tee a.json", ["a.json"]),
        ("cat in.json 2>/dev/null; grep -c x in.json < in.json", ["/dev/null"]),
        ("python -c \"open('a.json', 'w').write('{}')\"", []),
    ],
)
def test_redirections_tee_copies_and_in_place_edits_name_the_files_a_command_writes(
    command: str, writes: list[str]
) -> None:
    assert [written for _, written in command_paths(command).writes] == writes


def test_a_here_documents_body_is_not_read_as_shell() -> None:
    command = 'cat > .neuralrelay/h/02.json <<\'EOF\'\n{"note": "it\'s > there"}\nEOF\necho done > log.json'
    assert command_paths(command).writes == (("", ".neuralrelay/h/02.json"), ("", "log.json"))


def test_paths_after_cd_are_taken_from_its_folder_until_it_cannot_be_told() -> None:
    named = command_paths("cd sub && echo > a.json; cd ../other; tee b.json; cd $HOME; echo > c.json")
    assert named.writes == (("sub", "a.json"), ("sub/../other", "b.json"), (None, "c.json"))


def test_a_command_with_unbalanced_quotes_names_only_its_path_like_words() -> None:
    named = command_paths("echo 'unbalanced > a.json")
    assert named.writes == ()
    assert "a.json" in named.mentions


def test_a_command_of_one_megabyte_word_is_not_split_but_still_names_its_path_like_words() -> None:
    found = command_paths("echo " + "a" * 1_000_000 + " > .neuralrelay/handoffs/x/04-review-agent.json")
    assert found.writes == ()
    assert ".neuralrelay/handoffs/x/04-review-agent.json" in found.mentions


def test_the_time_a_command_ran_is_its_duration_else_its_timeout_else_two_minutes(project: Project) -> None:
    sent = bash_payload(project, "ls", duration_ms=1500)
    assert ran_for(sent) == 1.5
    del sent["duration_ms"]
    assert ran_for(sent) == 120.0  # the payload's timeout: 120000 ms
    sent["tool_input"]["timeout"] = 30000
    assert ran_for(sent) == 30.0
    del sent["tool_input"]["timeout"]
    assert ran_for(sent) == 120.0
    sent["duration_ms"] = True  # not a number of milliseconds
    assert ran_for(sent) == 120.0


# --- the hook ------------------------------------------------------------------------------


def test_hs001_a_handoff_written_by_a_here_document_blocks_with_the_reason(project: Project) -> None:
    text = project.changed(DEV, bad_tokens)
    put(project, DEV, text)
    code, out, err = run_hook(bash_payload(project, f"cat > {project.relative(DEV)} <<'EOF'\n{text}EOF"))
    assert (code, err) == (0, "")
    reason = blocked(out)
    line = text.splitlines().index('  "tokens_used": "lots",') + 1
    assert reason.startswith(f"handoff-lint: after this Bash command, {project.relative(DEV)} breaks 1 ")
    assert f"{project.relative(DEV)}:{line}:18 /tokens_used [HS001 schema-violation]" in reason
    assert "Use instead: add the missing fields" in reason
    assert project.unchanged()  # nothing written, git's index included


def test_a_failed_command_reports_through_additional_context(project: Project) -> None:
    put(project, DEV, project.changed(DEV, bad_tokens))
    code, out, err = run_hook(
        bash_payload(project, f"echo '{{' > {project.relative(DEV)}; false", failed=True)
    )
    assert (code, err) == (0, "")
    answer = json.loads(out)
    assert list(answer) == ["hookSpecificOutput"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    assert "[HS001 schema-violation]" in answer["hookSpecificOutput"]["additionalContext"]


def test_a_handoff_a_script_wrote_unnamed_is_found_by_git(project: Project) -> None:
    folder = project.root / ".neuralrelay" / "handoffs" / "20261104-080000"
    folder.mkdir()
    (folder / DEV).write_text(project.changed(DEV, bad_tokens), encoding="utf-8")
    project.settle()
    reason = blocked(run_hook(bash_payload(project, "./scripts/make-handoff.sh"))[1])
    assert f".neuralrelay/handoffs/20261104-080000/{DEV}:" in reason
    assert project.unchanged()


def test_a_handoff_named_inside_python_code_is_checked_when_it_changed(plain: Project) -> None:
    put(plain, TEST, plain.changed(TEST, lambda d: d["property_verification"]["confirmed"].pop(0)))
    command = f"python -c \"import json; json.dump(data, open('{plain.relative(TEST)}', 'w'))\""
    reason = blocked(run_hook(bash_payload(plain, command))[1])
    assert "[NR301 unclassified-property]" in reason
    # Named, but changed before the command ran: not this command's write.
    assert claude_hook.respond(bash_payload(plain, command), started=time.time() + 3600) is None


def test_a_broken_handoff_the_command_did_not_change_is_not_reported(project: Project) -> None:
    put(project, DEV, project.changed(DEV, bad_tokens))  # uncommitted, but from before the command
    later = time.time() + 3600
    assert claude_hook.respond(bash_payload(project, "pytest -q"), started=later) is None
    # A file the command writes is checked whenever it was written.
    redirected = bash_payload(project, f"cat draft.json > {project.relative(DEV)}")
    assert "[HS001" in blocked(json.dumps(claude_hook.respond(redirected, started=later)))


def test_a_moved_handoff_counts_by_its_status_change_time(project: Project) -> None:
    put(project, DEV, project.changed(DEV, bad_tokens))
    old = time.time() - 86400
    os.utime(project.path(DEV), (old, old))  # as `mv` or `cp -p` keep it; the status change time is now
    assert "[HS001" in blocked(run_hook(bash_payload(project, "./rotate-handoffs.sh"))[1])


def test_without_git_only_the_files_the_command_names_are_checked(plain: Project) -> None:
    put(plain, DEV, plain.changed(DEV, bad_tokens))
    assert run_hook(bash_payload(plain, "./scripts/make-handoff.sh")) == (0, "", "")
    assert "[HS001" in blocked(run_hook(bash_payload(plain, f"cp /tmp/draft.json {plain.relative(DEV)}"))[1])


def test_a_copy_into_the_chain_folder_is_checked_there(plain: Project) -> None:
    put(plain, DEV, plain.changed(DEV, bad_tokens))
    command = f"cp drafts/{DEV} drafts/{REVIEW} .neuralrelay/handoffs/{CHAIN_ID}/"
    assert "[HS001" in blocked(run_hook(bash_payload(plain, command))[1])


@pytest.mark.parametrize("command", ["ls -la", "git status > status.txt", "cp {dev} {dev}.bak", "cat {dev}"])
def test_a_command_that_writes_no_broken_handoff_passes_silently(project: Project, command: str) -> None:
    sent = bash_payload(project, command.format(dev=project.relative(DEV)))
    assert run_hook(sent) == (0, "", "")
    put(project, TEST, project.text(TEST).replace('"total": 41', '"total":41'))  # changed, still clean
    assert run_hook(sent) == (0, "", "")


def test_paths_outside_the_project_are_never_followed(
    plain: Project, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / ".neuralrelay" / "handoffs" / CHAIN_ID
    outside.mkdir(parents=True)
    (outside / DEV).write_text("{", encoding="utf-8")
    assert run_hook(bash_payload(plain, f"echo '{{' > {outside / DEV}")) == (0, "", "")
    link = plain.path("05-elsewhere-agent.json")
    link.symlink_to(outside / DEV)
    plain.settle()
    assert run_hook(bash_payload(plain, f"echo '{{' > {plain.relative(link.name)}")) == (0, "", "")
    assert plain.unchanged()


def test_text_from_a_handoff_never_starts_a_line_and_a_secret_is_never_shown(project: Project) -> None:
    def hostile(data: Any) -> None:
        data["tokens_used"] = f"x\n::error::INJECTED\n9. {TOKEN}"

    put(project, DEV, project.changed(DEV, hostile))
    reason = blocked(run_hook(bash_payload(project, f"tee {project.relative(DEV)}"))[1])
    assert "INJECTED" in reason
    for line in reason.splitlines():
        assert re.match(r"handoff-lint: |\d\. \.neuralrelay/|   Use instead: |`handoff-lint explain", line), (
            line
        )
    assert TOKEN[4:12] not in reason


def test_several_handoffs_are_named_and_their_own_findings_come_first(project: Project) -> None:
    put(project, DEV, project.changed(DEV, bad_tokens))
    put(project, TEST, project.changed(TEST, lambda d: d["test_summary"].update(total=50)))  # NR208
    reason = blocked(run_hook(bash_payload(project, "./make-handoffs.sh"))[1])
    names = f"{project.relative(DEV)} and {project.relative(TEST)}"
    assert reason.startswith(f"handoff-lint: after this Bash command, {names} break 2 handoff contracts. ")
    assert "Fix each one below in the files:" in reason
    assert reason.index("[HS001") < reason.index("[NR208")


def test_the_command_blocks_a_bash_write_under_claude_codes_protocol(project: Project) -> None:
    put(project, DEV, project.changed(DEV, bad_tokens))
    done = subprocess.run(
        [sys.executable, "-m", "pytest_handoff.cli", "claude-hook"],
        input=json.dumps(bash_payload(project, f"jq . draft.json > {project.relative(DEV)}")),
        capture_output=True,
        text=True,
        cwd=project.root,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert "[HS001 schema-violation]" in blocked(done.stdout)


# Imports the hook must not pay for on the commands that touch no handoff (most of them).
PROBE = (
    "import io, sys\n"
    "from pytest_handoff.cli import main\n"
    "out, sys.stdout = sys.stdout, io.StringIO()\n"
    "code = main(['claude-hook'])\n"
    "printed, sys.stdout = sys.stdout.getvalue(), out\n"
    "print(code, repr(printed), sorted(m for m in sys.argv[1].split(',') if m in sys.modules))\n"
)


def test_a_command_that_touches_no_handoff_imports_no_checks(project: Project) -> None:
    from tests.probes import HEAVY_MODULES

    absent = ("pytest_handoff.pipeline.check", "pytest_handoff.values.documents", "pytest_handoff.api")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join((*HEAVY_MODULES, *absent))],
        input=json.dumps(bash_payload(project, "ls -la > listing.txt")),
        capture_output=True,
        text=True,
        cwd=project.root,
        check=True,
        timeout=60,
    )
    assert done.stdout == "0 '' []\n"


def test_the_claude_code_page_shows_the_reason_the_bash_hook_really_gives(project: Project) -> None:
    from tests.conftest import REPO

    put(project, REVIEW, project.text(REVIEW).replace('"total_tokens": 75200', '"total_tokens": 10'))
    reason = blocked(run_hook(bash_payload(project, f"jq . draft.json > {project.relative(REVIEW)}"))[1])
    assert f"```\n{reason}\n```\n" in (REPO / "docs" / "claude-code.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("command", ["mkdir -p logs && ./server > logs/app.log", "echo '{}' > prd.json"])
def test_an_applications_log_or_prd_json_without_a_ralph_session_is_no_handoff(
    project: Project, command: str
) -> None:
    (project.root / "logs").mkdir(exist_ok=True)
    (project.root / "logs" / "app.log").write_text("INFO handoff: pm: nightly rotation\n")
    (project.root / "prd.json").write_text("{}")
    assert run_hook(bash_payload(project, command)) == (0, "", "")
