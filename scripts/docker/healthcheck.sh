#!/bin/sh
# The HEALTHCHECK: exit 0 when /healthz answers 200 within 4 s (it checks the database too). The slim image has
# neither curl nor wget; node has fetch.
exec node -e '
fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`, { signal: AbortSignal.timeout(4000) }).then(
  (response) => process.exit(response.status === 200 ? 0 : 1),
  () => process.exit(1),
)'
