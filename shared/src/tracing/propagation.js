'use strict'

// Work that must not be traced. Without a registered SDK this is a no-op.

const { context } = require('@opentelemetry/api')
const { SUPPRESS_TRACING } = require('./sync-context')

/**
 * Runs `fn` untraced: for idle polling (timeout sweeps, callback recovery),
 * whose SQL would otherwise fill traces with a root span every few hundred
 * milliseconds. What such a poll finds is traced where it is handled.
 * @template T @param {() => T} fn @returns {T}
 */
const withoutTracing = (fn) => context.with(context.active().setValue(SUPPRESS_TRACING, true), fn)

module.exports = { withoutTracing }
