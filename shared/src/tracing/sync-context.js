'use strict'

// The context manager of every Switchyard process: each passes its trace
// context by hand. OpenTelemetry's default for Node carries the active
// context across every await with AsyncLocalStorage, which on Node 20 runs a
// hook on every promise the process creates — fastify, kafkajs, mysql2 and
// the handlers make a great many. None is needed: the consumer runner holds
// each chunk's batch span and makes it active around the one call that sends
// SQL (shared/src/db/folded-transaction.js), the callback dispatcher starts
// its spans from the stored trace headers, and the API keeps each request's
// span on the request (api-adapter/src/plugins/trace-requests.js).
//
// So the context is active only while `with` runs its function, synchronously.
// Outside that, the active context suppresses tracing: SQL that no chunk
// asked for (timeout sweeps, callback recovery, bookkeeping) makes no spans,
// with no wrapper needed around them.

const { ROOT_CONTEXT, createContextKey } = require('@opentelemetry/api')

// The SDK's own "suppress tracing" key (@opentelemetry/core): createContextKey
// uses Symbol.for, so this is the same key without depending on core.
const SUPPRESS_TRACING = createContextKey('OpenTelemetry SDK Context Key SUPPRESS_TRACING')

/** @returns {import('@opentelemetry/api').ContextManager} */
function createSyncContextManager () {
  const outside = ROOT_CONTEXT.setValue(SUPPRESS_TRACING, true)
  let current = outside
  return {
    active: () => current,
    with (ctx, fn, thisArg, ...args) {
      const previous = current
      current = ctx || outside
      try {
        return fn.call(thisArg, ...args)
      } finally {
        current = previous
      }
    },
    bind (ctx, target) {
      if (typeof target !== 'function') return target
      const manager = this
      const fn = /** @type {Function} */ (target)
      /** @this {any} @param {any[]} args */
      function bound (...args) {
        return manager.with(ctx, () => fn.apply(this, args))
      }
      return /** @type {any} */ (bound)
    },
    enable () { current = outside; return this },
    disable () { current = outside; return this }
  }
}

module.exports = { createSyncContextManager, SUPPRESS_TRACING }
