"""Rules every profile shares: reading a file, validating it against its schema, secrets.

The loader and the schema validator report the HF and HS rules themselves; they are tabled
here so that they can be selected, explained and listed like any other. HX001's check lives in
:mod:`pytest_handoff.rules.secrets`. Importing this module registers nothing: the engine registers
:data:`CORE_RULES` once, when it is imported.
"""

from pytest_handoff.rules.evidence.table import EVIDENCE_RULES
from pytest_handoff.rules.rows import listed, reported
from pytest_handoff.rules.secrets import check_no_secrets
from pytest_handoff.values.findings import Severity
from pytest_handoff.values.rules import Rule

CORE_RULES: tuple[Rule, ...] = (
    reported(
        "HF001",
        "invalid-encoding",
        """File is not plain UTF-8.

        **What it does**: reports a UTF-8 byte order mark, UTF-16 text, or bytes that are not valid UTF-8,
        at the first offending position.

        **Why is this bad?** JSON exchanged between systems must be UTF-8 (RFC 8259); agents and tools
        that read the handoff may reject it or silently garble its text.

        **Example**: a file saved by an editor as "UTF-8 with BOM" starts with the bytes `EF BB BF`.

        **Use instead**: save the file as UTF-8 without a BOM.
        """,
    ),
    reported(
        "HF002",
        "invalid-json",
        """File is not a single valid JSON document.

        **What it does**: reports syntax errors (with the position the parser stopped at), empty files,
        files of only whitespace, and data after the end of the document.

        **Why is this bad?** No downstream agent can read the handoff.

        **Example**: `{"status": "done",}` (a trailing comma), `{status: "done"}` (a key not quoted).

        **Use instead**: JSON as the message places it: `{"status": "done"}`; quote keys and strings
        with double quotes, no comma after the last item, no comments.
        """,
    ),
    reported(
        "HF003",
        "duplicate-key",
        """An object defines the same key twice.

        **What it does**: reports the second definition and names the position of the first.

        **Why is this bad?** JSON readers keep only one of the values (most keep the last), so half of
        what the agent wrote is silently lost, and different readers may disagree on which half.

        **Example**: `{"verdict": "approved", "verdict": "needs_rework"}`.

        **Use instead**: one key with the intended value.
        """,
    ),
    reported(
        "HF004",
        "non-finite-number",
        """A number is `NaN`, `Infinity` or `-Infinity`.

        **What it does**: reports the offending token.

        **Why is this bad?** These are not JSON; Python's reader accepts them but others reject the file.

        **Example**: `"quality_score": NaN`.

        **Use instead**: a finite number, or leave the field out where the schema allows it.
        """,
    ),
    reported(
        "HF005",
        "unclaimed-file",
        """A file named explicitly is a file no format claims.

        **What it does**: reports, once, a file given on the command line, to the API, the hook or
        MCP that no format recognises by its place, name or content, and lists the formats tried.
        The file is not read as any of them (a JSONL file is never parsed as one JSON document).

        **Why is this bad?** Checked as some format's handoff, it would get findings about a
        contract it never meant to keep; passed silently, a misplaced handoff goes unchecked.

        **Example**: `handoff-lint notes/x.json`, where `notes/` is no format's folder.

        **Use instead**: put the handoff where its format keeps them (`.neuralrelay/handoffs/<chain>/`,
        `.yolo-planning/`, `handoff/`...), or choose its format with `--profile`.
        """,
    ),
    reported(
        "HF006",
        "file-too-large",
        """File is larger than the configured size limit, or holds more lines than are read.

        **What it does**: reports a file over the size limit without reading it, and a YOLO JSONL
        file of more than 50,000 lines at the first line it does not read.

        **Why is this bad?** A handoff is a summary for another agent; a huge one is almost certainly a
        mistake (a log or a dump pasted in) and would cost time and memory to check.

        **Example**: a 50 MB `03-test-agent.json` holding raw test output.

        **Use instead**: keep the handoff short and link to artifacts by path.
        """,
    ),
    reported(
        "HF007",
        "unreadable-file",
        """File cannot be read.

        **What it does**: reports files that vanish, cannot be opened or are not regular files.

        **Why is this bad?** An unreadable handoff cannot be checked, so it must not pass silently.

        **Example**: a handoff without read permission for the CI user.

        **Use instead**: make the file readable.
        """,
    ),
    reported(
        "HS001",
        "schema-violation",
        """Document does not conform to its handoff type's JSON Schema.

        **What it does**: validates the document against the shipped draft-07 schema for its type
        (`date-time` formats really enforced) and reports each error where it is: a missing property at
        the object that lacks it, an unexpected property at its key, anything else at the value.

        **Why is this bad?** The next agent in the chain relies on the fields of the contract.

        **Example**: a `dev_to_test` handoff with two `coverage_gaps` (at least three are required).

        **Use instead**: add the missing fields, fix types and values as the message says.
        """,
        modes=("FM-1.1",),
    ),
    reported(
        "HS002",
        "unknown-handoff-type",
        """The document's handoff type is missing or unknown, so no schema can be chosen.

        **What it does**: reads the type from the `handoff_type` field (rework files by their name) and
        reports a value the profile does not know.

        **Why is this bad?** A handoff nobody can classify is not checked at all.

        **Example**: `"handoff_type": "dev-to-test"`.

        **Use instead**: `"handoff_type": "dev_to_test"`.
        """,
        modes=("FM-1.1",),
    ),
    listed("HX001", "unredacted-secret", check_no_secrets, scope="chain"),
    *EVIDENCE_RULES,
)

#: The code of whatever a project's own ``pytest_handoff_check_chain`` hook reports.
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
