'use strict'

// Before a campaign the bench reads the indexes a random transfer id lands
// in into the buffer pool, when they fit: it must find exactly those indexes
// on the migrated schema, and read each of them.

const { testConfig } = require('../../../test/support/config')
const { createDb } = require('../../../shared/src/db')
const { transferIdIndexes, warmTransferIdIndexes } = require('../../src/bench/buffer-pool')

let db
const config = testConfig({ DB_POOL_MAX: '1' })
beforeAll(() => { db = createDb(config) })
afterAll(() => db.destroy())

test('the indexes keyed by transfer id are the transfer tables and the transfer-id indexes of their changes and callbacks', async () => {
  const found = await transferIdIndexes(db, config.DB_NAME)
  expect(found.map((x) => `${x.table}.${x.index}`).sort()).toEqual([
    'callback.callback_transfer_id_index',
    'funds_transfer.PRIMARY',
    'participant_position_change.participant_position_change_transfer_id_index',
    'transfer.PRIMARY',
    'transfer_state_change.transfer_state_change_transfer_id_index'
  ])
  for (const x of found) expect(x.bytes).toBeGreaterThan(0)
})

test('a ledger whose id indexes fit is read into the pool, and the report says how large they were', async () => {
  const said = []
  const out = await warmTransferIdIndexes(db, config.DB_NAME, (m) => said.push(m))
  expect(out.warmed).toBe(true)
  expect(out.bufferPoolMiB).toBeGreaterThan(out.indexesMiB)
  expect(out.diskPageReads).toBeGreaterThanOrEqual(0)
})
