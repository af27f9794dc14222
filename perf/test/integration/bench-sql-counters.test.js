'use strict'

// The bench reads MariaDB's global statement counters: each one it adds up
// exists on the stack's server, and a multi-table UPDATE (the notification
// handler's outcome flush) is among the statements counted.

const { testConfig } = require('../../../test/support/config')
const { createDb } = require('../../../shared/src/db')
const { sqlCounters, sqlDelta, COUNTERS } = require('../../src/bench/accounting')

let db
beforeAll(() => { db = createDb(testConfig({ DB_POOL_MAX: '1' })) })
afterAll(() => db.destroy())

test('every counter exists, and a multi-table UPDATE is a statement', async () => {
  const before = await sqlCounters(db)
  expect(Object.keys(before).sort()).toEqual([...COUNTERS].sort())
  await db.raw("UPDATE callback c JOIN (SELECT 'no-such-callback' AS callback_id) u ON u.callback_id = c.callback_id SET c.attempts = c.attempts")
  const d = sqlDelta(before, await sqlCounters(db), 1)
  // Global counters: other tests' statements may land here too, never fewer.
  expect(d.Com_update_multi).toBeGreaterThanOrEqual(1)
  expect(d.byKind.update).toBeGreaterThanOrEqual(1)
})
