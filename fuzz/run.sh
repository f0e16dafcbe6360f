#!/usr/bin/env bash
# Coverage-guided fuzzing of the loader and the engine with atheris, for a bounded time.
#
#   fuzz/run.sh [SECONDS] [extra libFuzzer flags...]     (default 60 seconds)
#
# Uses $FUZZ_PYTHON if set; otherwise a venv in fuzz/.venv with atheris and this project
# (editable), created on first use. Crash reproducers go to fuzz/crashes/ (gitignored), the
# corpus grows in fuzz/work/engine/, seeded with our fixture chains' handoffs. Not part of the tests.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
seconds="${1:-60}"
shift || true

python="${FUZZ_PYTHON:-$here/.venv/bin/python}"
if ! "$python" -c "import atheris, pytest_handoff" 2>/dev/null; then
    if [ -n "${FUZZ_PYTHON:-}" ]; then
        "$python" -m pip install --quiet atheris
    else
        python3 -m venv "$here/.venv"
        "$here/.venv/bin/python" -m pip install --quiet --upgrade pip
        "$here/.venv/bin/python" -m pip install --quiet atheris -e "$repo"
    fi
fi

mkdir -p "$here/crashes" "$here/work/engine"
if [ -z "$(ls -A "$here/work/engine")" ]; then
    # Seeds: every handoff of our fixture chains, named by chain so that files do not collide.
    for file in "$repo"/tests/fixtures/neuralrelay/*/*.json; do
        cp "$file" "$here/work/engine/$(basename "$(dirname "$file")")-$(basename "$file")"
    done
fi

cd "$repo"
status=0
"$python" "$here/fuzz_engine.py" \
    -max_total_time="$seconds" \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -max_len=65536 \
    -print_final_stats=1 \
    -dict="$here/json.dict" \
    -artifact_prefix="$here/crashes/" \
    "$@" \
    "$here/work/engine" || status=$?
if [ -f "$here/crashes/slowest-input.txt" ]; then
    echo "slowest input: $(cat "$here/crashes/slowest-input.txt") (fuzz/crashes/slowest-input.bin)"
fi
exit "$status"
