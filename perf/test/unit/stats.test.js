'use strict'

const { makeTrace, readBack, transferIdFor } = require('../fixtures/make-trace')
const { toTransfers } = require('../../src/analyze/transfers')
const { percentile, distribution, toStats } = require('../../src/analyze/stats')

const run = () => toTransfers(readBack(makeTrace().spans)).transfers

test('percentiles are exact: the nearest rank over the sorted samples', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1)
  expect([50, 95, 99, 99.9, 100].map((p) => percentile(hundred, p))).toEqual([50, 95, 99, 100, 100])
  expect([50, 95, 99].map((p) => percentile([1, 2, 3, 4], p))).toEqual([2, 4, 4])
  expect(percentile([7], 50)).toBe(7)
  expect(percentile([], 50)).toBeNull()
  expect(distribution([3, 1, 2, null, NaN, 10])).toEqual({ count: 4, p50: 2, p95: 10, p99: 10, max: 10, mean: 4 })
  expect(distribution([])).toEqual({ count: 0, p50: null, p95: null, p99: null, max: null, mean: null })
})

test('per stage: one row per label in pipeline order, with queue and work distributions', () => {
  const { stages } = toStats(run(), { top: 5 })
  expect(stages.map((s) => [s.label, s.events])).toEqual([
    ['API POST /transfers', 7], ['prepare', 7], ['position reserve', 7], ['notification', 21], ['callback POST', 7],
    ['API PUT /transfers/{id}', 7], ['fulfil', 7], ['position commit', 7], ['callback PUT', 14]
  ])
  const commit = stages.find((s) => s.label === 'position commit')
  // Four commits waited 1.5 ms in the queue, three 41.5 ms.
  expect(commit.queue).toEqual({ count: 7, p50: 1.5, p95: 41.5, p99: 41.5, max: 41.5, mean: (4 * 1.5 + 3 * 41.5) / 7 })
  expect(commit.work).toMatchObject({ p50: 2, p95: 2, p99: 2, max: 2 })
  expect(commit.gap).toMatchObject({ p50: 1, max: 41 })
  expect(stages.find((s) => s.label === 'notification').queue).toMatchObject({ p50: 1.75, max: 2 })
  expect(stages.find((s) => s.label === 'API POST /transfers').queue.count).toBe(0)
})

test('SQL per transfer per stage sums to the run\'s SQL per transfer', () => {
  const { stages, summary } = toStats(run(), { top: 5 })
  // Six transfers in batches of 3, one alone: prepare is 6 × 3/3 + 3/1 = 9 statements over 7 transfers.
  expect(stages.find((s) => s.label === 'prepare').sqlPerTransfer).toBeCloseTo(9 / 7, 12)
  expect(stages.find((s) => s.label === 'prepare').meanBatchSize).toBeCloseTo(19 / 7, 12)
  const sum = stages.reduce((n, s) => n + s.sqlPerTransfer, 0)
  expect(sum).toBeCloseTo(48 / 7, 12)
  expect(summary.sqlStatements.mean).toBeCloseTo(48 / 7, 12)
  expect(summary.sqlStatements.max).toBe(16)
})

test('run summary: transfers, how they were linked, work and total', () => {
  const { summary } = toStats(run(), { top: 5 })
  expect(summary).toMatchObject({ transfers: 7, tree: 4, joined: 3 })
  expect(summary.total).toMatchObject({ p50: 55, p95: 70, p99: 70, max: 70 })
  expect(summary.work).toMatchObject({ p50: 17.75, max: 17.75 })
  expect(summary.events).toMatchObject({ p50: 12, max: 12 })
  expect(summary.workShare).toBeCloseTo((7 * 17.75) / (3 * 30 + 3 * 70 + 55), 12)
})

test('the largest gaps name their transfer and the events they lie between', () => {
  const { largestGaps, slowest } = toStats(run(), { top: 5 })
  expect(largestGaps).toEqual([
    { transferId: transferIdFor(3), gapMs: 41, from: 'fulfil', to: 'position commit', offsetMs: 22 },
    { transferId: transferIdFor(4), gapMs: 41, from: 'fulfil', to: 'position commit', offsetMs: 22 },
    { transferId: transferIdFor(5), gapMs: 41, from: 'fulfil', to: 'position commit', offsetMs: 22 },
    { transferId: transferIdFor(6), gapMs: 30, from: 'callback POST', to: 'API PUT /transfers/{id}', offsetMs: 13.5 },
    { transferId: transferIdFor(0), gapMs: 5, from: 'callback POST', to: 'API PUT /transfers/{id}', offsetMs: 13.5 }
  ])
  expect(slowest.map((t) => t.id)).toEqual([3, 4, 5, 6, 0].map(transferIdFor))
  expect(toStats(run(), { top: 2 }).largestGaps).toHaveLength(2)
})
