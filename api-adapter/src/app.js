'use strict'

// buildApp(deps) makes the fastify app; server.js starts it. Dependencies come
// in as arguments, so tests build the app around a real broker and database
// and call it over loopback HTTP (api-adapter/test/support/http.js says why
// not app.inject()).

const fastify = require('fastify')
const { healthRoutes, metricsRoutes, healthReportSchema } = require('./routes/health')
const { transferRoutes } = require('./routes/transfers')
const { fspiopErrors } = require('./plugins/errors')
const { traceRequests } = require('./plugins/trace-requests')
const { errorInformationResponseSchema } = require('./schemas/fspiop')
const { collectRoutes, openapiRoutes } = require('./openapi')

/**
 * @typedef {object} AppDeps
 * @property {import('@switchyard/shared/config').Config} config
 * @property {import('pino').Logger} logger
 * @property {import('./routes/health').HealthCheck} health /health's check; /readyz asks it about the broker alone
 * @property {ReturnType<typeof import('@switchyard/shared/kafka').createProducer>} [producer]
 * @property {{ scrape: () => Promise<{ contentType: string, body: string }>,
 *   http: { onResponse: import('fastify').onResponseHookHandler } }} [metrics] serves /metrics and times requests
 */

/** @param {AppDeps} deps */
function buildApp (deps) {
  const { config, logger } = deps
  const app = fastify({
    loggerInstance: logger,
    bodyLimit: config.API_BODY_LIMIT_BYTES,
    // Participants' connections are long-lived; keep them open between bursts.
    keepAliveTimeout: 65000,
    // While closing, a request on a connection still open is served (and
    // answered with Connection: close), not refused with a bare 503: the
    // producer is still open (drain.js).
    return503OnClosing: false,
    ajv: {
      // FSPIOP values are strings: a number where a string belongs is an
      // error (3101), not something to coerce; an unknown property is an
      // error (3103), not something to drop silently. `verbose` gives the
      // error formatter the failing schema's title.
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, verbose: true }
    }
  })
  // Before any route: the OpenAPI document is built from what this collects.
  const routes = collectRoutes(app)
  traceRequests(app)
  app.register(fspiopErrors, { bodyLimit: config.API_BODY_LIMIT_BYTES })
  app.addSchema(healthReportSchema)
  app.addSchema(errorInformationResponseSchema)
  // Requests are traced, not logged one by one: routes log at warn and above,
  // and never below the logger's own level (a route's logLevel replaces it).
  const { values } = logger.levels
  const logLevel = /** @type {import('fastify').LogLevel} */ (values[logger.level] > values.warn ? logger.level : 'warn')
  app.register(healthRoutes, { health: deps.health, logLevel })
  if (deps.metrics) {
    app.addHook('onResponse', deps.metrics.http.onResponse)
    app.register(metricsRoutes, { metrics: deps.metrics, logLevel })
  }
  app.register(transferRoutes, { config, producer: deps.producer, logLevel })
  app.register(openapiRoutes, { routes, logLevel })
  return app
}

module.exports = { buildApp }
