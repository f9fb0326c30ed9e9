#!/bin/sh
# Dockerfile step 2: the Remix build (build/client, build/server) and the embedded database template
# (build/embedded-template.tar, which a first start on an empty DATA_DIR loads instead of running initdb).
set -eu
cd "$(dirname "$0")/../.."
npm run build
