'use strict'

// A span's context as W3C trace headers (`traceparent`, `tracestate`): what a
// Kafka message or an HTTP request carries so that the next hop continues the
// span's trace.

const { trace, propagation, ROOT_CONTEXT } = require('@opentelemetry/api')

/**
 * Adds the span's trace headers to `carrier` and returns it.
 * @param {import('@opentelemetry/api').Span} span
 * @param {Record<string, string>} [carrier]
 * @returns {Record<string, string>}
 */
function injectSpan (span, carrier = {}) {
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier)
  return carrier
}

module.exports = { injectSpan }
