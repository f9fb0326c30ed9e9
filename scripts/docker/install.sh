#!/bin/sh
# Dockerfile step 1: every dependency, dev ones included whatever NODE_ENV says (the build needs Vite and the
# Remix compiler). npm ci runs the postinstall, patch-package, so patches/ must be here before this step.
set -eu
cd "$(dirname "$0")/../.."
npm ci --include=dev --no-audit --no-fund
