# syntax=docker/dockerfile:1
# Stampwise as one container: `docker build -t stampwise .` then
#   docker run -p 3000:3000 -v stampwise-data:/data -e SESSION_SECRET=... -e APP_URL=https://... stampwise
# Every step is a script in scripts/docker/, so tests/integration/container-scripts.test.ts runs the same steps in
# a clean copy of the project without Docker (decision 023).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Dependencies first: this layer is reused while package*.json and patches/ (applied by the postinstall) stay the same.
COPY package.json package-lock.json ./
COPY patches ./patches
COPY scripts/docker ./scripts/docker
RUN --mount=type=cache,target=/root/.npm scripts/docker/install.sh
COPY . .
RUN scripts/docker/build.sh && scripts/docker/prune.sh

FROM ${NODE_IMAGE}
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
# Owned by root: the app's user can read its code and dependencies but not change them; it writes only to /data.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
# The embedded database, its lock and sockets, generated secrets and default backups live here.
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["scripts/docker/healthcheck.sh"]
# node itself is PID 1 (start.sh execs it) and handles SIGTERM; its grace delay is 10 s, under Docker's default.
STOPSIGNAL SIGTERM
CMD ["scripts/docker/start.sh"]
