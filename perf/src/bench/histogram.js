'use strict'

// A small HDR-style histogram: log-linear buckets over integer microseconds.
// Values below 256 µs are counted exactly; above, every power of two is split
// into 128 equal buckets, so a bucket is at most 1/128 (0.8%) of its lower
// bound wide and a reported percentile is within 0.4% of the exact sample
// (the midpoint of the bucket, clamped to the observed min and max). Constant
// memory, mergeable, no dependency.

const EXACT = 256
const SUB = 128
const MAX_US = 2 ** 31 - 1
const BUCKETS = EXACT + SUB * 24

/** @param {number} us a non-negative integer, at most MAX_US */
function bucketOf (us) {
  if (us < EXACT) return us
  const shift = 31 - Math.clz32(us) - 7 // us >>> shift is in [128, 255]
  return EXACT + (shift - 1) * SUB + ((us >>> shift) - SUB)
}

/** The [low, high) range of values in bucket i. @param {number} i */
function rangeOf (i) {
  if (i < EXACT) return [i, i + 1]
  const shift = Math.floor((i - EXACT) / SUB) + 1
  const low = ((i - EXACT) % SUB + SUB) * 2 ** shift
  return [low, low + 2 ** shift]
}

function createHistogram () {
  const counts = new Float64Array(BUCKETS)
  let count = 0
  let sum = 0
  let min = Infinity
  let max = -Infinity

  /** @param {number} ms a latency in milliseconds */
  function record (ms) {
    const us = Math.min(MAX_US, Math.max(0, Math.round(ms * 1000)))
    counts[bucketOf(us)]++
    count++
    sum += us
    if (us < min) min = us
    if (us > max) max = us
  }

  /** Nearest-rank percentile in milliseconds (p in 0..100). @param {number} p */
  function percentile (p) {
    if (!count) return null
    if (p >= 100) return max / 1000
    const rank = Math.max(1, Math.ceil((p / 100) * count))
    let seen = 0
    for (let i = 0; i < BUCKETS; i++) {
      seen += counts[i]
      if (seen >= rank) {
        const [low, high] = rangeOf(i)
        const mid = high - low === 1 ? low : (low + high) / 2
        return Math.min(max, Math.max(min, mid)) / 1000
      }
    }
    return max / 1000
  }

  /** @param {ReturnType<typeof createHistogram>} other */
  function merge (other) {
    const o = other.raw()
    for (let i = 0; i < BUCKETS; i++) counts[i] += o.counts[i]
    count += o.count
    sum += o.sum
    if (o.count) { min = Math.min(min, o.min); max = Math.max(max, o.max) }
  }

  function summary () {
    const r = (/** @type {number | null} */ v) => (v === null ? null : Math.round(v * 100) / 100)
    return {
      count,
      mean: count ? r(sum / count / 1000) : null,
      min: count ? r(min / 1000) : null,
      p50: r(percentile(50)),
      p90: r(percentile(90)),
      p95: r(percentile(95)),
      p99: r(percentile(99)),
      p999: r(percentile(99.9)),
      max: count ? r(max / 1000) : null
    }
  }

  return {
    record,
    percentile,
    merge,
    summary,
    raw: () => ({ counts, count, sum, min, max }),
    get count () { return count },
    get mean () { return count ? sum / count / 1000 : null }
  }
}

/** Exact nearest-rank percentile of a list (for tests and small samples). @param {number[]} values @param {number} p */
function exactPercentile (values, p) {
  if (!values.length) return null
  const sorted = [...values].sort((a, b) => a - b)
  if (p >= 100) return sorted[sorted.length - 1]
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]
}

module.exports = { createHistogram, exactPercentile, bucketOf, rangeOf }
