'use strict'

const { retryDelay } = require('../../src/notification/backoff')

const limits = { baseMs: 250, maxMs: 30000 }

test('the cap doubles per failed attempt, starting at the base', () => {
  const justBelowOne = () => 0.999999
  expect([1, 2, 3, 4].map((n) => retryDelay(n, limits, justBelowOne))).toEqual([249, 499, 999, 1999])
})

test('full jitter: the delay is anywhere from 0 up to the cap', () => {
  expect(retryDelay(3, limits, () => 0)).toBe(0)
  expect(retryDelay(3, limits, () => 0.5)).toBe(500)
})

test('the cap never exceeds the maximum, however many attempts', () => {
  expect(retryDelay(8, limits, () => 0.999999)).toBe(29999)
  expect(retryDelay(5000, limits, () => 0.5)).toBe(15000)
})

test('attempt numbers below 1 use the base', () => {
  expect(retryDelay(0, limits, () => 0.5)).toBe(125)
})

test('with the real random source every delay is within bounds', () => {
  for (let n = 1; n <= 20; n++) {
    const d = retryDelay(n, { baseMs: 20, maxMs: 200 })
    expect(Number.isInteger(d)).toBe(true)
    expect(d).toBeGreaterThanOrEqual(0)
    expect(d).toBeLessThan(Math.min(200, 20 * 2 ** (n - 1)))
  }
})
