#!/usr/bin/env node
'use strict'

// npm start: the local stack (Kafka + MariaDB, migrations, topics), then the
// api-adapter and every handler in this one process. The code path is the
// same as production's one-process-per-handler deployment.

// First, so that fastify, mysql2 and undici are instrumented when they load.
const { registerTracing, shutdownTracing } = require('../shared/src/tracing')
registerTracing('all')

const stack = require('./stack/index')
const { loadConfig, childEnv } = require('../shared/src/config')
const { createLogger } = require('../shared/src/logger')
const { createLifecycle } = require('../shared/src/lifecycle')
const { createRuntime } = require('../shared/src/runtime')
const { explain } = require('../shared/src/startup-failure')
const { startApi } = require('../api-adapter/src/server')
const { startHandlers } = require('../handlers/src/main')

async function main () {
  const t0 = Date.now()
  const say = (m) => console.log(`[switchyard] ${m}`)
  const given = loadConfig()
  const { dbSocket } = await stack.up(given, { say })
  // The stack's own MariaDB: over its Unix socket unless DB_SOCKET or DB_TLS says otherwise.
  const config = dbSocket && !given.DB_SOCKET && !given.DB_TLS ? loadConfig(childEnv({ DB_SOCKET: dbSocket })) : given
  const logger = createLogger(config, { name: 'switchyard' })
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS })
  lifecycle.installSignalHandlers()
  // Registered first, so it flushes last.
  lifecycle.add('tracing', shutdownTracing)
  const runtime = await createRuntime({ config, logger, lifecycle })
  const handlers = await startHandlers(runtime, [...config.HANDLERS])
  const { url, adminUrl } = await startApi(runtime)
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  say(`FSPIOP API   ${url}   (health: ${url}/health)`)
  say(`admin API    ${adminUrl}   (participants, limits, endpoints, funds)`)
  say(`handlers     ${handlers.length ? handlers.join(', ') : 'none'}`)
  say(`Kafka        ${config.KAFKA_BROKERS.join(',')}   MySQL ${config.DB_SOCKET || `${config.DB_HOST}:${config.DB_PORT}`}/${config.DB_NAME}`)
  say(`try:         curl -s ${url}/health   — and see README.md "Your first transfer"`)
  say('stop with Ctrl-C (the stack keeps running; `npm run stack:down` stops it)')
}

main().catch((err) => {
  let reason
  try { reason = explain(err, loadConfig()) } catch {}
  console.error(`[switchyard] failed to start: ${reason || err.stack || err.message}`)
  process.exit(1)
})
