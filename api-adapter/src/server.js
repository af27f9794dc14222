'use strict'

// Starts the api-adapter: `node api-adapter/src/server.js`. scripts/start.js
// uses startApi() to run it in one process with every handler.

const { loadConfig } = require('@switchyard/shared/config')
const { createLogger } = require('@switchyard/shared/logger')
const { createLifecycle } = require('@switchyard/shared/lifecycle')
const { createRuntime } = require('@switchyard/shared/runtime')
const { buildApp } = require('./app')

/**
 * @param {Awaited<ReturnType<typeof createRuntime>>} runtime
 * @returns {Promise<{ url: string, app: import('fastify').FastifyInstance }>}
 */
async function startApi (runtime) {
  const { config, logger, lifecycle } = runtime
  const app = buildApp({ ...runtime, logger: logger.child({ component: 'api-adapter' }) })
  await app.listen({ host: config.API_HOST, port: config.API_PORT })
  // Added last, closed first: stop taking requests before producers close.
  lifecycle.add('api-adapter', () => app.close())
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : config.API_PORT
  return { url: `http://${config.API_HOST}:${port}`, app }
}

async function main () {
  const config = loadConfig()
  const logger = createLogger(config, { name: 'api-adapter' })
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS })
  lifecycle.installSignalHandlers()
  const runtime = await createRuntime({ config, logger, lifecycle })
  const { url } = await startApi(runtime)
  logger.info({ url }, 'api-adapter listening')
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err)
    process.exit(1)
  })
}

module.exports = { startApi }
