#!/usr/bin/env bash
# The whole test suite (`npm test`): build and typecheck, unit + integration tests on the embedded database,
# integration tests again on the PostgreSQL server, then the browser tests with JavaScript on and off.
# Ends with one line 'N passed, N failed'.
set -uo pipefail
cd "$(dirname "$0")/.."

SERVER_URL="${TEST_SERVER_URL:-postgres://postgres@127.0.0.1:5432/test}"
REPORTS=.test-reports  # not under test-results/, which Playwright empties when it starts
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
status=0
step() { echo; echo "== $1"; }

step "build"
npm run build >/dev/null || exit 1

step "typecheck"
npx tsc --noEmit || status=1

step "unit and integration tests (embedded PostgreSQL)"
env -u TEST_DATABASE_URL npx vitest run --reporter=default --reporter=json --outputFile.json="$REPORTS/vitest-embedded.json" || status=1

step "integration tests (PostgreSQL server)"
TEST_DATABASE_URL="$SERVER_URL" npx vitest run --project integration --reporter=default --reporter=json \
  --outputFile.json="$REPORTS/vitest-server.json" || status=1

step "browser tests (Chromium, JavaScript on and off)"
PLAYWRIGHT_JSON_OUTPUT_NAME="$REPORTS/playwright.json" npx playwright test --reporter=list,json || status=1

echo
npx tsx scripts/test-summary.ts "$REPORTS" || status=1
exit $status
