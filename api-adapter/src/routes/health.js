'use strict'

/**
 * @typedef {(options?: import('@switchyard/shared/health').HealthCheckOptions) => Promise<{ status: string }>} HealthCheck
 */

/**
 * GET /health: 200 when Kafka and the database answer, 502 otherwise (as a
 * Mojaloop hub does), with the status of each. GET /readyz: the same check of
 * Kafka alone. GET /livez: the process answers.
 * @param {import('fastify').FastifyInstance} app
 * @param {{ health: HealthCheck }} opts
 */
async function healthRoutes (app, { health }) {
  app.get('/health', {
    schema: {
      summary: 'Broker and datastore connectivity (Mojaloop\'s health report; 502 when either is down)',
      response: {
        '2xx': { $ref: 'HealthReport#' },
        '5xx': { $ref: 'HealthReport#' }
      }
    }
  }, async (_request, reply) => {
    const report = await health()
    return reply.code(report.status === 'OK' ? 200 : 502).send(report)
  })
  // The readiness probe's. Every participant request is answered once its
  // command is on Kafka; MySQL is the handlers' business, and they catch up
  // when it is back. A MySQL outage must not take every API pod out of its
  // Service, turning a delay into connection refused for participants. (The
  // admin API on this process needs MySQL, but answers its own errors.)
  // 503 rather than /health's 502: that one is Mojaloop's convention, kept
  // for its dashboards; this route is Switchyard's own, and answers what the
  // participant API answers while the broker is away (503, FSPIOP 2003:
  // unavailable, try again).
  app.get('/readyz', {
    schema: {
      summary: 'Readiness: the participant API can take requests (the broker answers; MySQL is not asked)',
      response: {
        '2xx': { $ref: 'HealthReport#' },
        '5xx': { $ref: 'HealthReport#' }
      }
    }
  }, async (_request, reply) => {
    const report = await health({ services: ['broker'] })
    return reply.code(report.status === 'OK' ? 200 : 503).send(report)
  })
  // The liveness probe's: the process answers. Kafka or MySQL away is
  // /readyz's and /health's business; restarting for it would only add a
  // crash loop to the outage, since the process reconnects by itself.
  app.get('/livez', {
    schema: {
      summary: 'Liveness: this process answers (Kafka and MySQL are not asked)',
      response: { 200: { type: 'object', properties: { status: { type: 'string', enum: ['OK'] } }, required: ['status'] } }
    }
  }, async () => ({ status: 'OK' }))
}

/**
 * GET /metrics: this process's metrics in the Prometheus text format, for
 * scrapers rather than participants.
 * @param {import('fastify').FastifyInstance} app
 * @param {{ metrics: { scrape: () => Promise<{ contentType: string, body: string }> } }} opts
 */
async function metricsRoutes (app, { metrics }) {
  // No response schema: the body is Prometheus text, not JSON.
  /** @type {Record<string, unknown>} for the OpenAPI document only */
  const schema = { summary: 'Prometheus metrics of this process (text exposition format; docs/metrics.md lists them)', tags: ['meta'] }
  app.get('/metrics', { schema }, async (_request, reply) => {
    const { contentType, body } = await metrics.scrape()
    return reply.type(contentType).send(body)
  })
}

const healthReportSchema = {
  $id: 'HealthReport',
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['OK', 'DOWN'] },
    uptime: { type: 'integer' },
    startTime: { type: 'string' },
    versionNumber: { type: 'string' },
    services: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, status: { type: 'string' } } }
    }
  }
}

module.exports = { healthRoutes, metricsRoutes, healthReportSchema }
