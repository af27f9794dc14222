'use strict'

// The shared transactions' observer: what each one becomes on /metrics.

const { Registry } = require('prom-client')
const { createSharedTransactionMetrics } = require('../../src/metrics/shared-transactions')
const { parseExposition, valueOf } = require('../support/metrics-exposition')

test('time open, chunks carried, rollbacks counted, and the latest lingering window', async () => {
  const registry = new Registry()
  const { onGroup } = createSharedTransactionMetrics(registry)
  onGroup({ members: 3, records: 40, rolledBack: false, ms: 4, windowMs: 2.5 })
  onGroup({ members: 1, records: 1, rolledBack: false, ms: 0.7, windowMs: 0 })
  onGroup({ members: 2, records: 9, rolledBack: true, ms: 30, windowMs: 0 })
  const m = parseExposition(await registry.metrics())
  expect(m.types.get('switchyard_shared_transaction_seconds')).toBe('histogram')
  expect(valueOf(m, 'switchyard_shared_transaction_seconds_count', {})).toBe(3)
  expect(valueOf(m, 'switchyard_shared_transaction_seconds_sum', {})).toBeCloseTo(0.0347, 9)
  expect(valueOf(m, 'switchyard_shared_transaction_seconds_bucket', { le: '0.001' })).toBe(1)
  expect(valueOf(m, 'switchyard_shared_transaction_seconds_bucket', { le: '0.005' })).toBe(2)
  expect(valueOf(m, 'switchyard_shared_transaction_chunks_sum', {})).toBe(6)
  expect(valueOf(m, 'switchyard_shared_transaction_chunks_bucket', { le: '2' })).toBe(2)
  expect(m.types.get('switchyard_shared_transaction_rollbacks_total')).toBe('counter')
  expect(valueOf(m, 'switchyard_shared_transaction_rollbacks_total', {})).toBe(1)
  // The last one that lingered, not the ones since that took no chunks after opening.
  expect(m.types.get('switchyard_shared_transaction_window_seconds')).toBe('gauge')
  expect(valueOf(m, 'switchyard_shared_transaction_window_seconds', {})).toBe(0.0025)
})
