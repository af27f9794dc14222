'use strict'

const { benchBufferPool } = require('../../src/bench/sut')

test('the bench runs MariaDB with a 4 GB buffer pool, or a larger one STACK_DB_BUFFER_POOL asks for', () => {
  expect(benchBufferPool('1G')).toBe('4G')
  expect(benchBufferPool('4096M')).toBe('4G')
  expect(benchBufferPool('12G')).toBe('12G')
  expect(benchBufferPool('8192M')).toBe('8192M')
  expect(() => benchBufferPool('lots')).toThrow('STACK_DB_BUFFER_POOL: lots is not a size like 512M or 2G')
})

test('the indexes keyed by transfer id are read in only when they fit in three quarters of the pool', () => {
  const { warmPlan } = require('../../src/bench/buffer-pool')
  const MiB = 2 ** 20
  const GiB = 2 ** 30
  // The 10 M-transfer seeded ledger's: 9.7 GiB.
  const idx = [{ table: 'transfer', index: 'PRIMARY', bytes: 5429 * MiB }, { table: 'transfer_state_change', index: 'transfer_state_change_transfer_id_index', bytes: 2854 * MiB }, { table: 'participant_position_change', index: 'participant_position_change_transfer_id_index', bytes: 1429 * MiB }]
  expect(warmPlan(idx, 4 * GiB)).toEqual({ bytes: 9712 * MiB, poolBytes: 4 * GiB, fits: false })
  expect(warmPlan(idx, 12 * GiB).fits).toBe(false)
  expect(warmPlan(idx, 13 * GiB).fits).toBe(true)
  expect(warmPlan([], GiB).fits).toBe(true)
})
