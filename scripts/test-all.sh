#!/usr/bin/env bash
# The whole test suite (`npm test`): lint and formatting, build and typecheck, unit + integration tests on the
# embedded database, integration tests again on the PostgreSQL server, then the browser tests with JavaScript on and
# off. Every step has a time limit, so a hung step fails instead of running past CI's limit. Ends with the time of
# each step, the flaky tests, and one line 'N passed, N failed' in which a step that failed outside any test (an
# unhandled error, a failing global setup, a web server that did not start, a type error, a lint error or an
# unformatted file, a time limit) counts as a failure too (scripts/test-summary.ts).
set -uo pipefail
cd "$(dirname "$0")/.."

SERVER_URL="${TEST_SERVER_URL:-postgres://postgres@127.0.0.1:5432/test}"
REPORTS=.test-reports  # not under test-results/, which Playwright empties when it starts
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
status=0

# step <name> <time limit in minutes> <report file, or -> <command…>: runs the command in its own process group
# (timeout kills the whole group) and records its exit code and duration for the summary.
step() {
  local name=$1 minutes=$2 report=$3
  shift 3
  echo
  echo "== $name (time limit: $minutes min)"
  local start=$SECONDS code
  timeout --kill-after=30 "$((minutes * 60))" "$@"
  code=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$code" "$((SECONDS - start))" "$report" >>"$REPORTS/steps.tsv"
  [ "$code" -eq 0 ] || status=1
  return "$code"
}

# Lint and formatting need no build: they run first, and whether or not the build passes
# (docs/decisions/033-lint-and-format.md).
step "lint (ESLint)" 3 - npm run lint --silent
step "formatting (Prettier)" 2 - npm run format:check --silent

# The test steps' limits (95 min together; lint, build and typecheck take a minute or two) leave room for a slow
# machine: one seen at 2.5 times the usual figures must not fail a healthy run; a hung step still fails.
if step "build" 8 - npm run build --silent >/dev/null; then
  step "typecheck" 5 - npx tsc --noEmit
  step "unit and integration tests (embedded PostgreSQL)" 30 vitest-embedded.json \
    env -u TEST_DATABASE_URL npx vitest run --reporter=default --reporter=json \
    --outputFile.json="$REPORTS/vitest-embedded.json"
  step "integration tests (PostgreSQL server)" 20 vitest-server.json \
    env TEST_DATABASE_URL="$SERVER_URL" npx vitest run --project integration --reporter=default --reporter=json \
    --outputFile.json="$REPORTS/vitest-server.json"
  step "browser tests (Chromium, JavaScript on and off)" 45 playwright.json \
    env PLAYWRIGHT_JSON_OUTPUT_NAME="$REPORTS/playwright.json" npx playwright test --reporter=list,json
fi

echo
npx tsx scripts/test-summary.ts "$REPORTS" || status=1
exit $status
