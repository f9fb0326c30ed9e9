#!/bin/sh
# The container's command. `exec` makes node the process itself (PID 1 in the container), with no npm or shell in
# between: `docker stop`'s SIGTERM reaches server.ts, whose close-with-grace handler lets requests in flight
# finish, stops the jobs, closes the database and exits 0. server.ts applies pending migrations at start.
# The same command as `npm run serve` (package.json; tests/integration/container-scripts.test.ts holds them equal):
# the compiled server and its heap limit (docs/decisions/060-memory.md).
set -eu
cd "$(dirname "$0")/../.."
exec node --max-old-space-size=128 build/server.js
