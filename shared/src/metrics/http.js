'use strict'

// HTTP request durations for a fastify app, through an onResponse hook. The
// route label is the route's pattern (`/transfers/:id`), never the URL, so
// transfer ids cannot multiply the series; unmatched URLs share one label.

const { Histogram } = require('prom-client')
const { WORK_SECONDS } = require('./buckets')

const UNMATCHED = 'unmatched'

/**
 * @typedef {{ method: string, routeOptions: { url?: string } }} RequestLike the part of a FastifyRequest used
 * @typedef {{ statusCode: number, elapsedTime: number }} ReplyLike the part of a FastifyReply used
 */

/** @param {import('prom-client').Registry} registry */
function createHttpMetrics (registry) {
  const duration = new Histogram({
    name: 'switchyard_http_request_seconds',
    help: 'HTTP requests by method, route pattern and status code, from arrival to the response being sent.',
    labelNames: ['method', 'route', 'status'],
    buckets: [...WORK_SECONDS],
    registers: [registry]
  })
  return {
    /**
     * A fastify onResponse hook (`app.addHook('onResponse', metrics.http.onResponse)`).
     * @param {RequestLike} request @param {ReplyLike} reply @param {() => void} done
     */
    onResponse (request, reply, done) {
      const route = (request.routeOptions && request.routeOptions.url) || UNMATCHED
      duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000)
      done()
    }
  }
}

module.exports = { createHttpMetrics }
