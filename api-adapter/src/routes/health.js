'use strict'

/**
 * GET /health: 200 when Kafka and the database answer, 502 otherwise (as a
 * Mojaloop hub does), with the status of each.
 * @param {import('fastify').FastifyInstance} app
 * @param {{ health: () => Promise<{ status: string }> }} opts
 */
async function healthRoutes (app, { health }) {
  app.get('/health', {
    schema: {
      summary: 'Liveness and readiness: broker and datastore connectivity',
      response: {
        '2xx': { $ref: 'HealthReport#' },
        '5xx': { $ref: 'HealthReport#' }
      }
    }
  }, async (_request, reply) => {
    const report = await health()
    return reply.code(report.status === 'OK' ? 200 : 502).send(report)
  })
  // The liveness probe's: the process answers. Kafka or MySQL away is
  // /health's business (readiness); restarting for it would only add a
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
