'use strict'

// One SERVER span per FSPIOP request, made here rather than by @fastify/otel:
// that instrumentation keeps the request's context active across every await
// of the request, which needs Node's async context tracking — on Node 20 a
// hook on every promise the process makes — and adds hooks of its own to
// every request. The API needs none of that: the span lives on the request,
// and the one place that continues it, publishing the command, takes it from
// there (publish.js). Its parent is the participant's `traceparent`, if it
// sent one. Health and metrics requests are not traced.

const { trace, propagation, SpanKind, SpanStatusCode, ROOT_CONTEXT } = require('@opentelemetry/api')

const UNTRACED = new Set(['/health', '/metrics'])

/** Each traced request's span, until it ends. @type {WeakMap<import('fastify').FastifyRequest, import('@opentelemetry/api').Span>} */
const spans = new WeakMap()

/**
 * The request's span, if it is traced.
 * @param {import('fastify').FastifyRequest} request
 */
const requestSpan = (request) => spans.get(request)

/**
 * @param {import('fastify').FastifyInstance} app
 */
function traceRequests (app) {
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]
    if (UNTRACED.has(path)) return
    const route = request.routeOptions.url
    /** @type {import('@opentelemetry/api').Attributes} */
    const attributes = { 'http.request.method': request.method, 'url.path': path }
    if (route) attributes['http.route'] = route
    const span = trace.getTracer('switchyard').startSpan(route ? `${request.method} ${route}` : request.method,
      { kind: SpanKind.SERVER, attributes }, propagation.extract(ROOT_CONTEXT, request.headers))
    if (span.isRecording()) spans.set(request, span)
  })
  /** @param {import('fastify').FastifyRequest} request @param {number} [statusCode] */
  const end = (request, statusCode) => {
    const span = spans.get(request)
    if (!span) return
    spans.delete(request)
    if (statusCode !== undefined) {
      span.setAttribute('http.response.status_code', statusCode)
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${statusCode}` })
    } else {
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'request aborted' })
    }
    span.end()
  }
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode))
  app.addHook('onRequestAbort', async (request) => end(request))
}

module.exports = { traceRequests, requestSpan }
