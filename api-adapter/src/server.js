'use strict'

// Starts the api-adapter: `node api-adapter/src/server.js`. scripts/start.js
// uses startApi() to run it in one process with every handler.

// First, so that fastify, mysql2 and undici are instrumented when they load.
const { registerTracing, shutdownTracing } = require('@switchyard/shared/tracing')
if (require.main === module) registerTracing('api')

const { loadConfig } = require('@switchyard/shared/config')
const { createLogger } = require('@switchyard/shared/logger')
const { createLifecycle } = require('@switchyard/shared/lifecycle')
const { createRuntime } = require('@switchyard/shared/runtime')
const { exitAfterStartupFailure } = require('@switchyard/shared/startup-failure')
const { buildApp } = require('./app')
const { buildAdminApp } = require('./admin/app')
const { createDrain } = require('./drain')

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {string} host
 * @param {number} port
 */
async function listen (app, host, port) {
  await app.listen({ host, port })
  const address = app.server.address()
  return `http://${host}:${typeof address === 'object' && address ? address.port : port}`
}

/**
 * Starts the participant API on API_PORT and the admin API on ADMIN_PORT.
 * @param {Awaited<ReturnType<typeof createRuntime>>} runtime
 * @returns {Promise<{ url: string, adminUrl: string, app: import('fastify').FastifyInstance }>}
 */
async function startApi (runtime) {
  const { config, logger, lifecycle, db } = runtime
  // A third of the shutdown budget each for draining participants'
  // connections and for the requests still in flight (drain.js).
  const third = Math.floor(config.SHUTDOWN_TIMEOUT_MS / 3)
  const admin = buildAdminApp({ config, db, logger: logger.child({ component: 'admin-api' }) })
  const adminDrain = createDrain(admin, { drainMs: 0, closeMs: third })
  const adminUrl = await listen(admin, config.ADMIN_HOST, config.ADMIN_PORT)
  lifecycle.add('admin-api', () => adminDrain.close())
  const app = buildApp({ ...runtime, logger: logger.child({ component: 'api-adapter' }) })
  const drain = createDrain(app, { drainMs: Math.min(config.API_DRAIN_MS, third), closeMs: third })
  const url = await listen(app, config.API_HOST, config.API_PORT)
  // Added last, closed first: stop taking requests before producers close.
  lifecycle.add('api-adapter', () => drain.close())
  return { url, adminUrl, app }
}

async function main () {
  const config = loadConfig()
  const logger = createLogger(config, { name: 'api-adapter' })
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS })
  lifecycle.installSignalHandlers()
  // Registered first, so it flushes last.
  lifecycle.add('tracing', shutdownTracing)
  const runtime = await createRuntime({ config, logger, lifecycle })
  const { url, adminUrl } = await startApi(runtime)
  logger.info({ url, adminUrl }, 'api-adapter listening')
}

if (require.main === module) {
  main().catch((err) => exitAfterStartupFailure(err, 'api-adapter'))
}

module.exports = { startApi }
