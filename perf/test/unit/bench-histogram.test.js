'use strict'

const { createHistogram, exactPercentile, bucketOf, rangeOf } = require('../../src/bench/histogram')

/** A deterministic pseudo-random generator, so the test never depends on luck. */
function lcg (seed) {
  let s = seed >>> 0
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32 }
}

const PERCENTILES = [1, 10, 50, 90, 95, 99, 99.9, 100]

describe('histogram', () => {
  it('reports percentiles within 1% of the exact nearest-rank value', () => {
    const rnd = lcg(42)
    for (const make of [
      () => Math.exp(rnd() * 9) / 10, // log-uniform 0.1 ms .. 800 ms
      () => 5 + rnd() * 20, // uniform 5..25 ms
      () => (rnd() < 0.99 ? 2 + rnd() : 1500 + rnd() * 3000) // bimodal with a far tail
    ]) {
      const h = createHistogram()
      const values = Array.from({ length: 20000 }, make)
      for (const v of values) h.record(v)
      for (const p of PERCENTILES) {
        const exact = exactPercentile(values, p)
        expect(Math.abs(h.percentile(p) - exact)).toBeLessThanOrEqual(exact * 0.01 + 0.0005)
      }
    }
  })

  it('is exact below 256 µs and for min, max, count and mean', () => {
    const h = createHistogram()
    const values = [0.001, 0.05, 0.1, 0.2, 0.255, 0.1]
    for (const v of values) h.record(v)
    expect(h.percentile(50)).toBe(exactPercentile(values, 50))
    const s = h.summary()
    expect(s).toMatchObject({ count: 6, min: 0, max: 0.26 })
    expect(h.percentile(100)).toBe(0.255)
    expect(h.mean).toBeCloseTo(values.reduce((a, b) => a + b) / 6, 3)
  })

  it('has contiguous buckets no wider than 1/128 of their lower bound', () => {
    for (let i = 1; i < 3000; i++) {
      const [low, high] = rangeOf(i)
      expect(rangeOf(i - 1)[1]).toBe(low)
      expect(bucketOf(low)).toBe(i)
      expect(bucketOf(high - 1)).toBe(i)
      if (low >= 256) expect((high - low) / low).toBeLessThanOrEqual(1 / 128)
    }
  })

  it('merges and answers null when empty', () => {
    const a = createHistogram(); const b = createHistogram()
    expect(a.percentile(99)).toBeNull()
    expect(a.summary().p50).toBeNull()
    for (let i = 1; i <= 100; i++) (i % 2 ? a : b).record(i)
    a.merge(b)
    expect(a.count).toBe(100)
    expect(Math.abs(a.percentile(99) - 99)).toBeLessThanOrEqual(0.99)
    expect(a.summary().max).toBe(100)
  })
})
