'use strict'

const { decadeBuckets, WORK_SECONDS, QUEUE_GAP_SECONDS, BATCH_SIZE, callbackSeconds } = require('../../src/metrics/buckets')

test('decadeBuckets steps 1-2.5-5 per decade, with exact decimal edges', () => {
  expect(decadeBuckets(0.0005, 0.01)).toEqual([0.0005, 0.001, 0.0025, 0.005, 0.01])
  expect(decadeBuckets(0.00025, 0.0005)).toEqual([0.00025, 0.0005])
})

test('decadeBuckets ends on max, adding it when it is not a step', () => {
  expect(decadeBuckets(0.5, 1.5)).toEqual([0.5, 1, 1.5])
  expect(decadeBuckets(1, 1000, [1, 2, 5])).toEqual([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000])
  expect(decadeBuckets(0.001, 0.001)).toEqual([0.001])
})

test('decadeBuckets refuses a range it cannot cover', () => {
  expect(() => decadeBuckets(0, 1)).toThrow(RangeError)
  expect(() => decadeBuckets(2, 1)).toThrow(RangeError)
})

test('the sets cover what this system measures', () => {
  // Date.now() resolution: a "0 ms" chunk lands below 1 ms; retries can take 10 s.
  expect([WORK_SECONDS[0], WORK_SECONDS[WORK_SECONDS.length - 1]]).toEqual([0.0005, 10])
  // A backlog shows up to five minutes; beyond that the lag gauge says more.
  expect(QUEUE_GAP_SECONDS).toEqual([0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300])
  expect(BATCH_SIZE[0]).toBe(1)
  expect(BATCH_SIZE[BATCH_SIZE.length - 1]).toBe(1000)
  for (const set of [WORK_SECONDS, QUEUE_GAP_SECONDS, BATCH_SIZE]) {
    expect([...set].sort((a, b) => a - b)).toEqual([...set])
    expect(set.length).toBeLessThanOrEqual(15)
  }
})

test('callback buckets end at the callback timeout', () => {
  expect(callbackSeconds(5000).slice(-3)).toEqual([1, 2.5, 5])
  expect(callbackSeconds(1500).slice(-2)).toEqual([1, 1.5])
  expect(callbackSeconds(100)).toEqual([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1])
})
