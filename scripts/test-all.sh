#!/usr/bin/env bash
# The whole test suite: build, unit + integration tests on the embedded database, integration tests again on the
# PostgreSQL server (TEST_DATABASE_URL, default: the local server), then the browser tests (JavaScript on and off).
set -euo pipefail
cd "$(dirname "$0")/.."

export TEST_SERVER_URL="${TEST_SERVER_URL:-postgres://postgres@127.0.0.1:5432/test}"

echo "== build"
npx remix vite:build >/dev/null

echo "== typecheck"
npx tsc --noEmit

echo "== unit and integration tests (embedded PostgreSQL)"
env -u TEST_DATABASE_URL npx vitest run

echo "== integration tests (PostgreSQL server at ${TEST_SERVER_URL%%\?*})"
TEST_DATABASE_URL="$TEST_SERVER_URL" npx vitest run --project integration

echo "== browser tests (Chromium, JavaScript on and off)"
npx playwright test
