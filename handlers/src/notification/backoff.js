'use strict'

// Retry delays for callbacks: exponential backoff with full jitter (the whole
// delay is random in [0, cap)), so the retries of many callbacks that failed
// together — a participant restarting — spread out instead of arriving in
// waves. See "Exponential Backoff And Jitter", AWS Architecture Blog, 2015.

/**
 * The delay before the next attempt, after `failedAttempts` failures.
 * @param {number} failedAttempts 1 after the first failure
 * @param {{ baseMs: number, maxMs: number }} limits
 * @param {() => number} [random] a number in [0, 1)
 * @returns {number} whole milliseconds, in [0, min(maxMs, baseMs * 2^(failedAttempts - 1)))
 */
function retryDelay (failedAttempts, { baseMs, maxMs }, random = Math.random) {
  const exponent = Math.max(0, failedAttempts - 1)
  // 2 ** 1100 is Infinity; min() keeps the cap exact however many attempts.
  const cap = Math.min(maxMs, baseMs * 2 ** exponent)
  return Math.floor(random() * cap)
}

module.exports = { retryDelay }
