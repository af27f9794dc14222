'use strict'

// buildApp(deps) makes the fastify app; server.js starts it. Dependencies come
// in as arguments, so tests build the app around a real broker and database
// and use app.inject().

const fastify = require('fastify')
const { healthRoutes, healthReportSchema } = require('./routes/health')

/**
 * @typedef {object} AppDeps
 * @property {import('@switchyard/shared/config').Config} config
 * @property {import('pino').Logger} logger
 * @property {() => Promise<{ status: string }>} health
 * @property {ReturnType<typeof import('@switchyard/shared/kafka').createProducer>} [producer]
 * @property {import('knex').Knex} [db]
 */

/** @param {AppDeps} deps */
function buildApp (deps) {
  const { config, logger } = deps
  const app = fastify({
    loggerInstance: logger,
    bodyLimit: config.API_BODY_LIMIT_BYTES,
    // Participants' connections are long-lived; keep them open between bursts.
    keepAliveTimeout: 65000
  })
  app.addSchema(healthReportSchema)
  // Requests are traced, not logged one by one: routes log at warn and above.
  app.register(healthRoutes, { health: deps.health, logLevel: 'warn' })
  return app
}

module.exports = { buildApp }
