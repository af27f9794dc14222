'use strict'

// Histogram buckets. Each bucket is one more time series per label set, and
// Prometheus cannot re-bucket afterwards, so every set spans the range its
// measurement really covers in this system and no more, at about three steps
// per decade: enough to read a p99 within a factor of two.

/**
 * m × 10^k for every mantissa m, from `min` to `max`; `max` itself is added
 * when it is not a step (a timeout should be a bucket edge).
 * @param {number} min > 0
 * @param {number} max >= min
 * @param {number[]} [mantissas] each in [1, 10), ascending
 * @returns {number[]}
 */
function decadeBuckets (min, max, mantissas = [1, 2.5, 5]) {
  if (!(min > 0) || !(max >= min)) throw new RangeError(`bad bucket range ${min}..${max}`)
  /** @type {number[]} */
  const out = []
  for (let k = Math.floor(Math.log10(min)); ; k++) {
    for (const m of mantissas) {
      // toPrecision: 2.5 * 10 ** -4 is 0.00025000000000000006 otherwise.
      const value = Number((m * 10 ** k).toPrecision(12))
      if (value > max) {
        if (out[out.length - 1] !== max) out.push(max)
        return out
      }
      if (value >= min) out.push(value)
    }
  }
}

// Chunk work (transaction, produce with acks=all, whole chunk) and API
// requests: a healthy chunk or request takes 1–50 ms; seconds mean lock waits,
// a struggling database or broker, or retries (the runner's backoff, up to
// 10 s, is inside the chunk time). ChunkReport times are whole milliseconds
// (Date.now()), so the 0.5 ms bucket is where "0 ms" lands.
const WORK_SECONDS = Object.freeze(decadeBuckets(0.0005, 10))

// Produced → picked up. Normally the consumer's own cycle and the producer's
// batching (a fetch returns as soon as data arrives): 1–100 ms. Under a backlog, seconds to minutes,
// so a wide range at half-decade steps; beyond 5 minutes the lag gauge says more.
const QUEUE_GAP_SECONDS = Object.freeze(decadeBuckets(0.001, 300, [1, 3]))

// Records per chunk: 1 (the naive baseline, or a quiet system) up to
// KAFKA_MAX_BATCH_SIZE (500 by default), at 1-2-5 steps.
const BATCH_SIZE = Object.freeze(decadeBuckets(1, 1000, [1, 2, 5]))

/**
 * One callback request: a participant on the same network answers in
 * milliseconds; the request is abandoned at CALLBACK_TIMEOUT_MS, which is the
 * top bucket, so `+Inf` minus `le=<timeout>` counts the attempts that timed out.
 * @param {number} timeoutMs
 */
const callbackSeconds = (timeoutMs) => decadeBuckets(0.001, Math.max(0.001, timeoutMs / 1000))

module.exports = { decadeBuckets, WORK_SECONDS, QUEUE_GAP_SECONDS, BATCH_SIZE, callbackSeconds }
