# One image for every Switchyard process; the command picks which one runs
# (api-adapter by default, `node handlers/src/main.js` with HANDLERS=...,
# `node scripts/migrate.js`, `node scripts/create-topics.js`).

# Node 24, a maintained LTS line (Node 20 reached its end of life in April
# 2026). The code supports Node >= 20 (package.json engines), and the whole
# test suite passes under both. The README's figures were measured on Node 20.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
# Manifests and the lockfile only, so the dependency layer is rebuilt only when
# they change (npm ci installs exactly what the lockfile says, and refuses to
# run without it). perf/package.json is here because npm ci checks every
# workspace in the lock.
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY api-adapter/package.json api-adapter/
COPY handlers/package.json handlers/
COPY perf/package.json perf/
RUN npm ci --omit=dev --no-audit --no-fund \
 && mkdir -p shared/node_modules api-adapter/node_modules handlers/node_modules \
 && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
# A larger young generation: the handlers and the API allocate many short-lived
# objects per message, and 64 MB semi-spaces cut their CPU by ~7% at 1,000
# transfers/s. With a young generation that large, V8 starts a full GC whenever
# the old generation's headroom is smaller than it, which with a small live old
# generation is several times a second: the long-running services' commands
# (CMD below, the Helm chart, docker-compose.yml) also pass
# --initial-old-space-size=128, which Node does not accept in NODE_OPTIONS
# (docs/performance.md).
ENV NODE_OPTIONS=--max-semi-space-size=64
WORKDIR /app
# Files stay owned by root: the app runs as `node` and cannot modify its code.
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/shared/node_modules ./shared/node_modules
COPY --from=deps /app/api-adapter/node_modules ./api-adapter/node_modules
COPY --from=deps /app/handlers/node_modules ./handlers/node_modules
COPY package.json .
COPY shared/ shared/
COPY api-adapter/ api-adapter/
COPY handlers/ handlers/
COPY scripts/ scripts/
USER node
EXPOSE 3000 3001
CMD ["node", "--initial-old-space-size=128", "api-adapter/src/server.js"]
