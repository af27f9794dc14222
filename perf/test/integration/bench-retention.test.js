'use strict'

// A campaign on a kept ledger (the seeded one) first deletes the finished
// callbacks past their retention, which the switch's own sweep would
// otherwise delete in the middle of the measured runs.

const { testConfig, unique } = require('../../../test/support/config')
const { createDb } = require('../../../shared/src/db')
const { purgeDueCallbacks } = require('../../src/bench/campaign')

let db
beforeAll(() => { db = createDb(testConfig()) })
afterAll(() => db.destroy())

test('finished callbacks past the retention are deleted; pending and recent ones stay', async () => {
  const run = unique('ret')
  const row = (suffix, status, daysAgo) => ({
    callback_id: `${run}:${suffix}`,
    participant: `${run}-p`,
    transfer_id: null,
    endpoint_type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
    method: 'PUT',
    path: '/transfers/x',
    headers: '{}',
    body: '{}',
    status,
    created_at: db.raw(`NOW(3) - INTERVAL ${daysAgo} DAY`)
  })
  await db('callback').insert([row('old-delivered', 'DELIVERED', 8), row('old-failed', 'FAILED', 9), row('old-pending', 'PENDING', 8), row('recent', 'DELIVERED', 1)])
  try {
    expect(await purgeDueCallbacks(db, { CALLBACK_RETENTION_HOURS: 168 })).toBeGreaterThanOrEqual(2)
    const left = (await db('callback').where('callback_id', 'like', `${run}:%`).select('callback_id')).map((r) => r.callback_id.split(':')[1]).sort()
    expect(left).toEqual(['old-pending', 'recent'])
  } finally {
    await db('callback').where('callback_id', 'like', `${run}:%`).delete()
  }
})
