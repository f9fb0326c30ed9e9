#!/bin/sh
# Dockerfile step 3: drop the dev dependencies. tsx stays: it is a production dependency, because server.ts and the
# commands (db:migrate, db:backup, admin…) are TypeScript run by `node --import tsx` (decision 023).
set -eu
cd "$(dirname "$0")/../.."
npm prune --omit=dev --no-audit --no-fund
# npm prune leaves the packages it keeps as they are, so the patched files stay patched; patch-package checks it
# (an applied patch is reported as such, one that is neither applied nor applicable fails the build).
node_modules/.bin/patch-package --error-on-fail
