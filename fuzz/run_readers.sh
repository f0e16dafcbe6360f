#!/usr/bin/env bash
# Coverage-guided fuzzing of every reader on its own (fuzz/fuzz_readers.py), two at a time.
#
#   fuzz/run_readers.sh [SECONDS_PER_READER] [READER...]      (default 300 seconds, every reader)
#
# Uses $FUZZ_PYTHON if set; otherwise the venv in fuzz/.venv (atheris and this project, made on
# first use). Each reader's working corpus grows in fuzz/work/<reader>/ (seeded from our fixtures
# and the kept corpus); after the run, the inputs that reach new code are merged into the kept
# corpus fuzz/corpus/<reader>/, which is committed;
# crash reproducers go to fuzz/crashes/<reader>/. Prints, per reader: inputs run, crashes, the
# slowest input's seconds and the peak RSS. Not part of the tests.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
seconds="${1:-300}"
shift || true
readers=("$@")
if [ ${#readers[@]} -eq 0 ]; then
    readers=(json jsonl yaml ralph-log ralph-context craik-json craik-sqlite trinity-name config gsd handoff-md apply-patch)
fi

# shellcheck source=fuzz/python.sh
. "$here/python.sh"

seed() {  # the fixtures a reader starts from
    local reader="$1" corpus="$here/work/$1"
    mkdir -p "$corpus" "$here/corpus/$1"
    [ -n "$(ls -A "$corpus")" ] && return
    case "$reader" in
        json|craik-json) cp "$repo"/tests/fixtures/neuralrelay/*/*.json "$repo"/tests/fixtures/craik/*/*.json "$corpus"/ 2>/dev/null || true ;;
        jsonl) find "$repo/tests/fixtures/yolo" -name '*.jsonl' -exec cp {} "$corpus"/ \; ;;
        yaml) find "$repo/tests/fixtures/contracts" -name '*.yaml' -exec cp {} "$corpus"/ \; ;;
        ralph-log|ralph-context) printf 'AGENT_READY_FOR_HANDOFF\nHANDOFF:qa:eyJmcm9tIjoiZGV2ZWxvcGVyIn0=\n' > "$corpus/one.log" ;;
        craik-sqlite) "$python" - "$corpus/store.sqlite3" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE TABLE records (kind TEXT, id TEXT, schema TEXT, version TEXT, payload_json TEXT, created_at TEXT, updated_at TEXT)")
c.execute("INSERT INTO records VALUES ('handoffs', 'h1', 'craik.handoff', '0.1', '{\"id\": \"h1\"}', '', '')")
c.execute("PRAGMA user_version = 3")
c.commit()
PY
        ;;
        trinity-name) printf 'developer-2026-04-02T10:00:00.000Z.json' > "$corpus/name" ;;
        config) cp "$repo/tests/fixtures/contracts/project/pyproject.toml" "$corpus/" ;;
        handoff-md) find "$repo/tests/fixtures/rule-examples/handoff-md" -name '*.md' \
                 -exec sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12).md"' _ {} "$corpus" \;
            printf 'I created `tests/test_x.py` and fixed `src/a.py:12`. Committed as `abc1234`. All tests pass.\n' > "$corpus/message.md" ;;
        apply-patch) printf '*** Begin Patch\n*** Add File: HANDOFF.md\n+# Handoff\n*** Update File: a.md\n*** Move to: b.md\n@@\n-x\n+y\n*** Delete File: c.md\n*** End Patch\n' > "$corpus/envelope" ;;
        gsd) find "$repo/examples/gsd" "$repo/tests/fixtures/rule-examples/gsd" -name '*.md' -path '*.planning*' \
                 -exec sh -c 'cp "$1" "$2/$(echo "$1" | md5sum | cut -c1-12).md"' _ {} "$corpus" \; ;;
    esac
}

run_one() {
    local reader="$1" out="$here/runs/$1.txt"
    mkdir -p "$here/crashes/$reader" "$here/runs"
    seed "$reader"
    (cd "$here/crashes/$reader" && FUZZ_REPORT="$here/runs/$reader.report" "$python" "$here/fuzz_readers.py" "$reader" \
        -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$here/crashes/$reader/" "$here/work/$reader" "$here/corpus/$reader" > "$out" 2>&1) || true
    # Keep what reaches new code: merged into the committed corpus.
    (cd "$here/crashes/$reader" && "$python" "$here/fuzz_readers.py" "$reader" -merge=1 \
        "$here/corpus/$reader" "$here/work/$reader" > "$here/runs/$reader.merge.txt" 2>&1) || true
    local runs rss slowest crashes
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out" | grep -o '[0-9]*$' || echo "?")
    rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$out" | grep -o '[0-9]*$' || echo "?")
    slowest=$(cut -d' ' -f2 "$here/runs/$reader.report" 2>/dev/null || echo "?")
    crashes=$(find "$here/crashes/$reader" -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
    printf '%-14s %12s inputs %4s crashes  slowest %8ss  peak RSS %6s MB\n' "$reader" "$runs" "$crashes" "$slowest" "$rss"
}

export -f run_one seed
export here repo python seconds
printf '%s\n' "${readers[@]}" | xargs -P 2 -I{} bash -c 'run_one {}'
