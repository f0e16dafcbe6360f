#!/usr/bin/env bash
# The action's one step (see action.yml): install, check, write SARIF, exit as handoff-lint does
# (1 on broken contracts, 2 on a usage or configuration error). Every input is an INPUT_* variable.
set -euo pipefail

action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}"
case "${INPUT_INSTALL:-action}" in
  none) ;;
  action) python3 -m pip install --quiet --disable-pip-version-check "$action_path" ;;
  *) python3 -m pip install --quiet --disable-pip-version-check "$INPUT_INSTALL" ;;
esac

args=(--format "${INPUT_FORMAT:-github}")
if [[ -n "${INPUT_SARIF:-}" ]]; then
  args+=(--output "sarif=${INPUT_SARIF}")
fi
if [[ -n "${INPUT_PROFILE:-}" ]]; then
  args+=(--profile "$INPUT_PROFILE")
fi
# Evidence is on by default in a git repository, as in every entry point; 'false' turns it off.
if [[ "${INPUT_EVIDENCE:-true}" == "false" ]]; then
  args+=(--no-evidence)
fi
args+=(--fail-on "${INPUT_FAIL_ON:-error}")
# A pull request's gate: only what it changes against its base, each handoff in its chain. On a
# push (no base commit) everything is checked.
if [[ "${INPUT_CHANGED_ONLY:-false}" == "true" && -n "${INPUT_BASE_SHA:-}" ]]; then
  if [[ -n "${INPUT_PATHS:-}" ]]; then
    echo "handoff-lint action: 'changed-only' chooses the files itself; leave 'paths' empty" >&2
    exit 2
  fi
  args+=(--changed-since "$INPUT_BASE_SHA")
fi
# Paths: split on white space and new lines only (no globbing, no other shell expansion).
if [[ -n "${INPUT_PATHS:-}" ]]; then
  mapfile -t paths < <(printf '%s\n' "$INPUT_PATHS" | tr ' \t' '\n\n' | sed '/^$/d')
  args+=(-- "${paths[@]}")
fi

status=0
handoff-lint "${args[@]}" || status=$?
if [[ -n "${INPUT_SARIF:-}" && -f "$INPUT_SARIF" && -n "${GITHUB_OUTPUT:-}" ]]; then
  echo "sarif=$INPUT_SARIF" >> "$GITHUB_OUTPUT"
fi
exit "$status"
