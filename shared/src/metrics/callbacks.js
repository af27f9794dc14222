'use strict'

// Callback delivery: one observation per attempt, made by the notification
// dispatcher at the one place where an attempt's result is known, one per
// callback that used up its attempts and was dead-lettered, and the finished
// callbacks deleted after their retention.

const { Counter, Histogram } = require('prom-client')
const { callbackSeconds } = require('./buckets')

/** What an attempt came to; see handlers/src/notification/deliver.js callbackOutcome(). */
const OUTCOMES = Object.freeze(['delivered', 'http_error', 'timeout', 'network_error', 'no_endpoint'])

/**
 * @typedef {{ attempt: (outcome: string, seconds: number) => void, failed: () => void, purged: (count: number) => void }} CallbackMetrics
 */

/**
 * @param {import('prom-client').Registry} registry
 * @param {{ timeoutMs: number }} opts CALLBACK_TIMEOUT_MS: the top bucket
 * @returns {CallbackMetrics}
 */
function createCallbackMetrics (registry, { timeoutMs }) {
  const registers = [registry]
  const attempts = new Counter({ name: 'switchyard_callback_attempts_total', help: 'Callback delivery attempts by outcome.', labelNames: ['outcome'], registers })
  const latency = new Histogram({
    name: 'switchyard_callback_seconds',
    help: 'Duration of one callback attempt, from sending the request to the participant\'s answer (or the timeout).',
    labelNames: ['outcome'],
    buckets: callbackSeconds(timeoutMs),
    registers
  })
  const failed = new Counter({ name: 'switchyard_callbacks_failed_total', help: 'Callbacks that used up their attempts (or can never be delivered) and were dead-lettered.', registers })
  const purged = new Counter({ name: 'switchyard_callbacks_purged_total', help: 'Finished callbacks deleted with their attempts after CALLBACK_RETENTION_HOURS.', registers })
  // Every outcome is exported from the start at zero, so rate() and ratios
  // work before the first failure of a kind.
  for (const outcome of OUTCOMES) {
    attempts.inc({ outcome }, 0)
    latency.zero({ outcome })
  }
  return {
    attempt (outcome, seconds) {
      attempts.inc({ outcome })
      latency.observe({ outcome }, Math.max(0, seconds))
    },
    failed () {
      failed.inc()
    },
    purged (count) {
      purged.inc(count)
    }
  }
}

/** For code that runs without a metrics registry (tests that build a dispatcher directly). @type {CallbackMetrics} */
const NO_CALLBACK_METRICS = Object.freeze({ attempt () {}, failed () {}, purged () {} })

module.exports = { createCallbackMetrics, NO_CALLBACK_METRICS }
