'use strict'

// The consumer observer: what a ChunkReport becomes on /metrics.

const { Registry } = require('prom-client')
const { createStageMetrics } = require('../../src/metrics/stage-metrics')
const { parseExposition, valueOf } = require('../support/metrics-exposition')

const CHUNK = { stage: 'prepare', topic: 'p.transfer-prepare', partition: 0, size: 3, applied: 3, queueGapsMs: [2, 40, 2000], pickedUpAt: 1700000000000, dbMs: 7, produceMs: 3, totalMs: 12 }
/** @param {Partial<import('../../src/kafka/run-consumer').ChunkReport>} overrides */
const report = (overrides) => ({ ...CHUNK, ...overrides })

async function scrape (registry) {
  return parseExposition(await registry.metrics())
}

test('one chunk: its times, its size, and one queue gap per message', async () => {
  const registry = new Registry()
  createStageMetrics(registry).onChunk(report({}))
  expect(await registry.getSingleMetricAsString('switchyard_stage_db_seconds')).toContain([
    'switchyard_stage_db_seconds_bucket{le="0.005",stage="prepare"} 0',
    'switchyard_stage_db_seconds_bucket{le="0.01",stage="prepare"} 1'
  ].join('\n'))
  const m = await scrape(registry)
  expect(m.types.get('switchyard_stage_processing_seconds')).toBe('histogram')
  expect(valueOf(m, 'switchyard_stage_processing_seconds_sum', { stage: 'prepare' })).toBeCloseTo(0.012)
  expect(valueOf(m, 'switchyard_stage_processing_seconds_bucket', { stage: 'prepare', le: '0.01' })).toBe(0)
  expect(valueOf(m, 'switchyard_stage_processing_seconds_bucket', { stage: 'prepare', le: '0.025' })).toBe(1)
  expect(valueOf(m, 'switchyard_stage_produce_seconds_sum', { stage: 'prepare' })).toBeCloseTo(0.003)
  expect(valueOf(m, 'switchyard_queue_gap_seconds_count', { stage: 'prepare' })).toBe(3)
  expect(valueOf(m, 'switchyard_queue_gap_seconds_bucket', { stage: 'prepare', le: '0.1' })).toBe(2)
  expect(valueOf(m, 'switchyard_queue_gap_seconds_bucket', { stage: 'prepare', le: '3' })).toBe(3)
  expect(valueOf(m, 'switchyard_batch_size_bucket', { stage: 'prepare', le: '2' })).toBe(0)
  expect(valueOf(m, 'switchyard_batch_size_bucket', { stage: 'prepare', le: '5' })).toBe(1)
  expect(m.types.get('switchyard_messages_total')).toBe('counter')
  expect(valueOf(m, 'switchyard_messages_total', { stage: 'prepare' })).toBe(3)
})

test('stages are kept apart, and counts add up over chunks', async () => {
  const registry = new Registry()
  const observer = createStageMetrics(registry)
  observer.onChunk(report({}))
  observer.onChunk(report({ size: 500, queueGapsMs: new Array(500).fill(1) }))
  observer.onChunk(report({ stage: 'position', size: 1, queueGapsMs: [5] }))
  const m = await scrape(registry)
  expect(valueOf(m, 'switchyard_messages_total', { stage: 'prepare' })).toBe(503)
  expect(valueOf(m, 'switchyard_messages_total', { stage: 'position' })).toBe(1)
  expect(valueOf(m, 'switchyard_batch_size_count', { stage: 'prepare' })).toBe(2)
  expect(valueOf(m, 'switchyard_batch_size_bucket', { stage: 'prepare', le: '500' })).toBe(2)
  expect(valueOf(m, 'switchyard_queue_gap_seconds_count', { stage: 'prepare' })).toBe(503)
})

test('a chunk of replays only counts as processed, not as database or produce work', async () => {
  const registry = new Registry()
  createStageMetrics(registry).onChunk(report({ size: 2, applied: 0, queueGapsMs: [], dbMs: 0, produceMs: 0, totalMs: 1 }))
  const m = await scrape(registry)
  expect(valueOf(m, 'switchyard_stage_processing_seconds_count', { stage: 'prepare' })).toBe(1)
  expect(valueOf(m, 'switchyard_stage_db_seconds_count', { stage: 'prepare' })).toBeUndefined()
  expect(valueOf(m, 'switchyard_stage_produce_seconds_count', { stage: 'prepare' })).toBeUndefined()
  expect(valueOf(m, 'switchyard_messages_total', { stage: 'prepare' })).toBe(2)
})

test('a clock that steps back records zero, not a negative time', async () => {
  const registry = new Registry()
  createStageMetrics(registry).onChunk(report({ dbMs: -5, queueGapsMs: [-3] }))
  const m = await scrape(registry)
  expect(valueOf(m, 'switchyard_stage_db_seconds_sum', { stage: 'prepare' })).toBe(0)
  expect(valueOf(m, 'switchyard_queue_gap_seconds_bucket', { stage: 'prepare', le: '0.001' })).toBe(1)
})

test('dead letters are counted per stage', async () => {
  const registry = new Registry()
  const observer = createStageMetrics(registry)
  observer.onDeadLetter({ stage: 'fulfil', topic: 'f', partition: 1, offset: '9' })
  observer.onDeadLetter({ stage: 'fulfil', topic: 'f', partition: 1, offset: '10' })
  expect(valueOf(await scrape(registry), 'switchyard_dead_letters_total', { stage: 'fulfil' })).toBe(2)
})

test('records per transaction are observed once per transaction, whatever the partitions', async () => {
  const registry = new Registry()
  const observer = createStageMetrics(registry)
  observer.onTransaction({ stage: 'position', records: 40, partitions: 6 })
  observer.onTransaction({ stage: 'position', records: 1, partitions: 1 })
  const m = await scrape(registry)
  expect(valueOf(m, 'switchyard_transaction_records_count', { stage: 'position' })).toBe(2)
  expect(valueOf(m, 'switchyard_transaction_records_sum', { stage: 'position' })).toBe(41)
  expect(valueOf(m, 'switchyard_transaction_records_bucket', { stage: 'position', le: '1' })).toBe(1)
})
