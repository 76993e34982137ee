# syntax=docker/dockerfile:1
# One image for the API, the indexer and the migration job; the command chooses the process (deploy/entries.json):
#   docker run IMAGE                         -> the API (dist/api/main.js)
#   docker run IMAGE dist/indexer/main.js    -> the indexer
#   docker run IMAGE dist/migrate.js         -> migrations, once, before the others (advisory-locked)
# Why it is built this way: docs/decisions/0062-containers-orchestration-and-configuration-reference.md.
ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: the whole workspace, compiled, then the production folder (pnpm release) ----
FROM ${NODE_IMAGE} AS build
RUN npm install --global pnpm@10.34.9
WORKDIR /src
# The lockfile alone fills pnpm's store, so a source change does not download the dependencies again.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store pnpm fetch
COPY . .
RUN --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm install --offline --frozen-lockfile
# The release installs its production dependencies from the same store (offline), so it sees the cache too.
RUN --mount=type=cache,id=pnpm-store,target=/root/.local/share/pnpm/store \
    pnpm build && pnpm release /release

# ---- runtime: the release folder only (production dependencies), tini as PID 1, a non-root user ----
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
 && apt-get install --yes --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
# Defaults every process of the image wants in a container; the deployment sets the rest, the receipt key store
# included (replicas opt in to RECEIPT_KEYS_STORE=database explicitly, decision 0056; docs/configuration.md).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/var/lib/tollgate \
    DEPLOYMENT_MANIFEST=/etc/tollgate/deployments.json
WORKDIR /app
COPY --from=build --chown=root:root /release/ /app/
# The image refuses to build when the release layout no longer has the entries the commands name.
RUN test -f dist/api/main.js && test -f dist/indexer/main.js && test -f dist/migrate.js \
 && test -d dist/console && test -d node_modules \
 && install -d -o node -g node /var/lib/tollgate /etc/tollgate
# `node` (uid 1000) comes with the Node image; the application files stay owned by root, read-only to it.
USER node
EXPOSE 3000
# Liveness of the API (/healthz). The indexer serves no HTTP: its compose service and Kubernetes pod turn this off.
HEALTHCHECK --interval=10s --timeout=3s --start-period=90s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini forwards SIGTERM to node and reaps children; node runs the entry with source-mapped stack traces.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "--enable-source-maps"]
CMD ["dist/api/main.js"]
