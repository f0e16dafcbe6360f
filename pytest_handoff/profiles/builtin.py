"""The built-in profiles as the core knows them before importing any: one row each.

A row (:class:`~pytest_handoff.values.specs.ProfileSpec`) gives a format's name, the module of its
profile, its default globs, the options of its table with their parsers and defaults, its code
prefix and the folders that mark a project. The profile class reads its name, globs and
options from its row, so a format is described once. Import-free: a one-file pre-commit run
matches paths against every row and imports only the profile that owns the file.
"""

from __future__ import annotations

from pytest_handoff.values.options import Option, pairs, strings, text, whole_number
from pytest_handoff.values.specs import ProfileSpec

# --- neuralrelay ---------------------------------------------------------------------
NEURALRELAY = ProfileSpec(
    name="neuralrelay",
    module="pytest_handoff.profiles.neuralrelay.profile",
    default_globs=(".neuralrelay/handoffs/**/*.json",),
    options=(
        Option(
            "max-counterexample-length",
            whole_number,
            600,
            "NR206: the longest counterexample, in characters.",
        ),
        Option("max-rework-cycles", whole_number, 2, "NR309: the most rework cycles a chain may go through."),
        Option("agents", pairs, {}, "Agents beyond NeuralRelay's own: agent = the handoff type it writes."),
    ),
    code_prefix="NR",
    markers=(".neuralrelay",),
    # Before profiles had tables of their own, these were [tool.handoff] keys.
    legacy_keys={
        "globs": "globs",
        "max-counterexample-length": "max-counterexample-length",
        "max-rework-cycles": "max-rework-cycles",
        "agents": "agents",
    },
)


# --- trinity -------------------------------------------------------------------------
TRINITY = ProfileSpec(
    name="trinity",
    module="pytest_handoff.profiles.trinity.profile",
    # A ``handoff/`` folder, and a name with a date and a ``T`` after the sender
    # (``{agent}-YYYY-MM-DDT...``), so that other projects' ``handoff/`` folders are not taken in.
    default_globs=("**/handoff/*-*-*-*T*.json",),
    options=(
        Option(
            "workspaces",
            pairs,
            {},
            "Agent = its workspace folder, where its workspace is not named after it.",
        ),
        # Trinity's reference code reads the clock once for the name and again for the body.
        Option(
            "timestamp-tolerance-ms",
            whole_number,
            1000,
            "TR103: how far the name's time may be from the body's.",
        ),
    ),
    code_prefix="TR",
)


# --- craik ---------------------------------------------------------------------------
_CRAIK_GLOBS = (".craik/**/*.json", "**/*.craik.json", ".craik/state/craik.sqlite3")

CRAIK = ProfileSpec(
    name="craik",
    module="pytest_handoff.profiles.craik.profile",
    default_globs=_CRAIK_GLOBS,
    options=(
        Option(
            "stores",
            strings,
            (),
            "Craik stores (SQLite) to check with the project, e.g. ~/.craik/state/craik.sqlite3.",
        ),
    ),
    code_prefix="CK",
)


# --- ralph ---------------------------------------------------------------------------
_RALPH_SESSION_FILES = (
    "handoff-signal.json",
    "pending-handoff.json",
    "handoff-log.json",
    "coordinator-state.json",
)
_RALPH_GLOBS = (
    *(f".claude/session/{name}" for name in _RALPH_SESSION_FILES),
    ".claude/session/logs/*.log",
    "logs/**/*.log",
    "prd.json",  # kept only beside a session (RalphProfile.keeps)
)

RALPH = ProfileSpec(
    name="ralph",
    module="pytest_handoff.profiles.ralph.profile",
    default_globs=_RALPH_GLOBS,
    options=(),
    code_prefix="RL",
)


# --- yolo ----------------------------------------------------------------------------
_YOLO_GLOBS = (
    ".yolo-planning/**/*.jsonl",
    ".yolo-planning/**/*.json",
    ".yolo-planning/**/*-PLAN.md",
    ".yolo-planning/**/*-SUMMARY.md",
)

YOLO = ProfileSpec(
    name="yolo",
    module="pytest_handoff.profiles.yolo.profile",
    default_globs=_YOLO_GLOBS,
    options=(
        Option(
            "message-schemas",
            text,
            "config/schemas/message-schemas.json",
            "The project's message-schemas.json (from the project root), for YL200-YL205.",
        ),
    ),
    code_prefix="YL",
    markers=(".yolo-planning",),
)


# --- gsd -----------------------------------------------------------------------------
GSD = ProfileSpec(
    name="gsd",
    module="pytest_handoff.profiles.gsd.profile",
    default_globs=(".planning/**/*.md", ".planning/config.json", ".planning/HANDOFF.json"),
    options=(),
    code_prefix="GS",
    markers=(".planning",),
)


# --- markdown ------------------------------------------------------------------------
MARKDOWN = ProfileSpec(
    name="handoff-md",
    module="pytest_handoff.profiles.markdown.profile",
    default_globs=("HANDOFF.md", ".claude/handoff.md", "docs/handoffs/*.md", ".claude/handoffs/*.md"),
    options=(),
    code_prefix="MD",
    message_file="last-assistant-message.md",
)


# --- contracts -----------------------------------------------------------------------
CONTRACTS = ProfileSpec(
    name="contracts",
    module="pytest_handoff.profiles.contracts.profile",
    default_globs=(),
    options=None,  # [tool.handoff.contracts.<name>] tables, read by the profile
    code_prefix="UC",
)


#: The built-in profiles, in the order a file is offered to them: built-in formats before user
#: contracts (a contract never takes their files); the first also checks a named file that no
#: profile recognises.
BUILTIN_SPECS: tuple[ProfileSpec, ...] = (NEURALRELAY, TRINITY, CRAIK, RALPH, YOLO, GSD, MARKDOWN, CONTRACTS)
