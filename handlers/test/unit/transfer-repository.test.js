'use strict'

// Transfer updates name the transfers they write, so that two stages'
// chunks changing one transfer never commit in one shared transaction.

const { createWriteBatch } = require('../../../shared/src/db/write-batch')
const { updateTransfers } = require('../../src/common/transfer-repository')

test('one UPDATE for many transfers, naming each transfer it writes', () => {
  const writes = createWriteBatch()
  updateTransfers(writes, new Map([['t-1', { state: 'COMMITTED' }], ['t-2', { state: 'ABORTED_ERROR', error_code: '5101' }]]))
  expect(writes.keys()).toEqual(new Set(['transfer:t-1', 'transfer:t-2']))
  const [statement] = writes.drain()
  expect(statement.sql).toMatch(/^UPDATE transfer SET `state` = CASE transfer_id WHEN \? THEN \? WHEN \? THEN \? ELSE `state` END, `error_code` = CASE transfer_id WHEN \? THEN \? ELSE `error_code` END/)
  expect(statement.bindings).toEqual(['t-1', 'COMMITTED', 't-2', 'ABORTED_ERROR', 't-2', '5101', 't-1', 't-2'])
  // Nothing to change, nothing written.
  updateTransfers(writes, new Map())
  expect(writes.keys()).toEqual(new Set())
})
