"""Write the shipped schemas' prebuilt checks: ``pytest_handoff/validation/prebuilt/<folder>.py``.

    python scripts/prebuild_checks.py           # (re)write every module
    python scripts/prebuild_checks.py --check   # exit 1 when a committed module differs

Run it after changing a schema in ``schemas/``; ``tests/test_fastcheck.py`` fails until then
(the check is still right meanwhile: an out-of-date module is not used).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pytest_handoff.validation.prebuilt import module_name, module_source  # noqa: E402


def modules() -> dict[Path, str]:
    """Each prebuilt module's path and the text it must have."""
    written = {}
    for folder in sorted(path for path in (REPO / "schemas").iterdir() if path.is_dir()):
        relative = module_name(folder.name).replace(".", "/") + ".py"
        written[REPO / relative] = module_source(folder)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a committed module differs")
    options = parser.parse_args(argv)
    stale = []
    for path, text in modules().items():
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        stale.append(path)
        if not options.check:
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'out of date' if options.check else 'wrote'}: {path.relative_to(REPO)}")
    return 1 if options.check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
