#!/usr/bin/env bash
# Coverage-guided fuzzing of the hooks' parsers, the evidence readers and the output boundary
# (fuzz/fuzz_surface.py), two harnesses at a time.
#
#   fuzz/run_surface.sh [SECONDS_PER_HARNESS] [HARNESS...]     (default 300 seconds, every harness)
#   FUZZ_RUNS=200000 fuzz/run_surface.sh 0 [HARNESS...]         (a number of inputs instead of a time)
#
# Harnesses: bash, transcript, claims, junit, boundary. Uses $FUZZ_PYTHON if set; otherwise the
# venv in fuzz/.venv (atheris and this project, made on first use). Each harness's working corpus
# grows in fuzz/work/<harness>/ (seeded from the kept corpus fuzz/corpus/<harness>/); after the
# run, the inputs that reach new code are merged into the kept corpus, which is committed; crash
# reproducers go to fuzz/crashes/<harness>/. FUZZ_STRICT=1 fails the defects fuzz_surface.py lists
# as known (else each is said once in fuzz/runs/<harness>.txt and let pass). Prints, per harness:
# inputs run, crashes, the slowest input's seconds, peak RSS, the final coverage (cov: edges,
# ft: features) and how many known defects it met. Not part of the tests.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
seconds="${1:-300}"
shift || true
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
    harnesses=(bash transcript claims junit boundary)
fi

# shellcheck source=fuzz/python.sh
. "$here/python.sh"

run_one() {
    local harness="$1" out="$here/runs/$1.txt" dict=() limit=(-max_total_time="$seconds") size=4096
    mkdir -p "$here/crashes/$harness" "$here/runs" "$here/work/$harness" "$here/corpus/$harness"
    case "$harness" in
        bash) dict=(-dict="$here/bash.dict") ;;
        transcript|claims) dict=(-dict="$here/json.dict") size=8192 ;;  # room for a number of 4,301 digits
        junit) dict=(-dict="$here/xml.dict") ;;
        boundary) dict=(-dict="$here/boundary.dict") ;;
    esac
    if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); fi
    rm -f "$here/runs/$harness.report"
    # Where the harness writes each input (a transcript, a report): gone after the run.
    local scratch
    scratch=$(mktemp -d)
    export FUZZ_SCRATCH="$scratch"
    (cd "$here/crashes/$harness" && FUZZ_REPORT="$here/runs/$harness.report" "$python" "$here/fuzz_surface.py" \
        "$harness" "${limit[@]}" "${dict[@]}" -max_len="$size" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$here/crashes/$harness/" "$here/work/$harness" "$here/corpus/$harness" > "$out" 2>&1) || true
    # Keep what reaches new code: merged into the committed corpus (new edges only, not new hit
    # counts, so that it stays a few dozen files).
    (cd "$here/crashes/$harness" && FUZZ_HARNESS="$harness" "$python" "$here/fuzz_surface.py" -merge=1 -use_counters=0 \
        "$here/corpus/$harness" "$here/work/$harness" > "$here/runs/$harness.merge.txt" 2>&1) || true
    rm -rf "$scratch"
    local runs rss slowest crashes cov
    # -a: the log may show an input's bytes.
    runs=$(grep -ao 'stat::number_of_executed_units: *[0-9]*' "$out" | grep -o '[0-9]*$' || echo "?")
    rss=$(grep -ao 'stat::peak_rss_mb: *[0-9]*' "$out" | grep -o '[0-9]*$' || echo "?")
    slowest=$(cut -d' ' -f2 "$here/runs/$harness.report" 2>/dev/null || echo "?")
    crashes=$(find "$here/crashes/$harness" -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l)
    cov=$(grep -ao 'cov: [0-9]* ft: [0-9]*' "$out" | tail -1 || echo "cov: ? ft: ?")
    known=$(grep -ac '^known defect' "$out" || true)
    printf '%-11s %10s inputs %3s crashes  slowest %7ss  peak RSS %5s MB  %s  known defects met: %s\n' \
        "$harness" "$runs" "$crashes" "$slowest" "$rss" "$cov" "$known"
}

export -f run_one
export here repo python seconds
printf '%s\n' "${harnesses[@]}" | xargs -P 2 -I{} bash -c 'run_one {}'
