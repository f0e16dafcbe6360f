"""Reading handoffs as people do: ``handoff-lint chain``, ``report``, ``show`` and ``schema export``.

Every view checks its chains with the same engine as the linter and asks each chain's profile
to summarise it (``Profile.summarise``); secrets are masked in the view as the engine masks
them in findings. Rich (and matplotlib, for ``report --plot``) are imported only here.
"""

from __future__ import annotations

COMMANDS = ("chain", "report", "show", "schema")


def run_command(name: str, argv: list[str]) -> int:
    """Run one view subcommand (``handoff-lint NAME ...``)."""
    if name == "chain":
        from pytest_handoff.views.chain import main
    elif name == "report":
        from pytest_handoff.views.report import main
    elif name == "show":
        from pytest_handoff.views.show import main
    else:
        from pytest_handoff.views.schema_export import main
    try:
        return main(argv)
    except SystemExit as exit_:  # argparse's --help (0) and usage errors (2), as the linter exits
        return 0 if exit_.code in (0, None) else 2
