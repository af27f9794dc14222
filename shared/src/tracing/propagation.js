'use strict'

// W3C trace context in and out of Kafka headers and HTTP headers. Without a
// registered SDK every function here is a cheap no-op.

const { context, propagation, trace, createContextKey } = require('@opentelemetry/api')

// The SDK's own "suppress tracing" key (@opentelemetry/core): createContextKey
// uses Symbol.for, so this is the same key without depending on core.
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING')

/**
 * Runs `fn` untraced: for idle polling (timeout sweeps, callback recovery),
 * whose SQL would otherwise fill traces with a root span every few hundred
 * milliseconds. What such a poll finds is traced where it is handled.
 * @template T @param {() => T} fn @returns {T}
 */
const withoutTracing = (fn) => context.with(context.active().setValue(SUPPRESS_TRACING, true), fn)

/** The active context as `traceparent`/`tracestate` headers (empty when none). */
function currentTraceHeaders () {
  /** @type {Record<string, string>} */
  const carrier = {}
  propagation.inject(context.active(), carrier)
  return carrier
}

/**
 * Marks the current request's span with the transfer it is about, so the gap
 * report can join traces that a participant did not continue.
 * @param {string} transferId
 */
function tagTransfer (transferId) {
  const span = trace.getActiveSpan()
  if (span) span.setAttribute('switchyard.transfer_id', transferId)
}

module.exports = { currentTraceHeaders, tagTransfer, withoutTracing }
