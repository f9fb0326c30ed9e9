#!/bin/sh
# The container's command. `exec` makes node the process itself (PID 1 in the container), with no npm or shell in
# between: `docker stop`'s SIGTERM reaches server.ts, whose close-with-grace handler lets requests in flight
# finish, stops the jobs, closes the database and exits 0. server.ts applies pending migrations at start.
set -eu
cd "$(dirname "$0")/../.."
exec node --import tsx server.ts
