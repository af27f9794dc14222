'use strict'

// An operator's view of the callback outbox over time: once finished
// callbacks (delivered, or failed and dead-lettered) are older than
// CALLBACK_RETENTION_HOURS, the notification handler deletes them with their
// attempts and counts them on /metrics; pending callbacks and recent ones stay.

const { testConfig, unique } = require('../../../test/support/config')
const { waitUntil } = require('../../../test/support/wait')
const { failPendingCallbacks } = require('../../../test/support/callbacks')
const { createDb } = require('../../../shared/src/db')
const { createTopics } = require('../../../scripts/stack/index')
const { createLogger } = require('../../../shared/src/logger')
const { createRepository } = require('../../src/notification/repository')
const { createRetention } = require('../../src/notification/retention')
const { startNotificationHandler, CONTENT_TYPE } = require('./notification-support')

const run = unique('ret')
const config = testConfig({ KAFKA_TOPIC_PREFIX: `${run}.`, KAFKA_CLIENT_ID: run, CALLBACK_RETENTION_HOURS: '2' })

let db
beforeAll(async () => {
  db = createDb(config)
  await createTopics(config)
})
afterAll(async () => {
  await failPendingCallbacks(db, 'participant', run)
  await db.destroy()
})

/**
 * A callback row `hoursAgo` old in `status`, with `attempts` attempt rows.
 * @param {string} suffix @param {{ status: string, hoursAgo: number, attempts?: number }} opts
 */
async function addCallback (suffix, { status, hoursAgo, attempts = 1 }) {
  const callbackId = `${run}:${suffix}`
  const at = db.raw('NOW(3) - INTERVAL ? MINUTE', [Math.round(hoursAgo * 60)])
  await db('callback').insert({
    callback_id: callbackId,
    participant: run,
    transfer_id: null,
    endpoint_type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
    method: 'PUT',
    path: `/transfers/${suffix}`,
    headers: JSON.stringify({ 'content-type': CONTENT_TYPE }),
    body: '{}',
    status,
    attempts,
    // A pending one belongs to a live replica: recovery leaves it alone.
    claimed_by: status === 'PENDING' ? 'live-replica' : null,
    claim_until: status === 'PENDING' ? db.raw('NOW(3) + INTERVAL 1 HOUR') : null,
    created_at: at,
    delivered_at: status === 'DELIVERED' ? at : null
  })
  for (let i = 1; i <= attempts; i++) {
    await db('callback_attempt').insert({ callback_id: callbackId, attempt: i, url: 'http://p/transfers', status_code: 200, duration_ms: 3, created_at: at })
  }
  return callbackId
}

const left = async () => (await db('callback').where('participant', run).orderBy('callback_id')).map((r) => r.callback_id.slice(run.length + 1))
const attemptsLeft = async () => (await db('callback_attempt').where('callback_id', 'like', `${run}:%`).orderBy('callback_id').orderBy('attempt'))
  .map((r) => `${r.callback_id.slice(run.length + 1)}#${r.attempt}`)

test('the notification handler deletes finished callbacks past their retention, with their attempts, and counts them', async () => {
  await addCallback('old-delivered', { status: 'DELIVERED', hoursAgo: 3, attempts: 2 })
  await addCallback('old-failed', { status: 'FAILED', hoursAgo: 50, attempts: 3 })
  await addCallback('old-pending', { status: 'PENDING', hoursAgo: 3, attempts: 1 })
  await addCallback('new-delivered', { status: 'DELIVERED', hoursAgo: 1, attempts: 1 })
  const handler = await startNotificationHandler(config)
  try {
    // The handler sweeps once at start, then once a minute.
    await waitUntil(async () => (await left()).length === 2, { what: 'old finished callbacks deleted' })
    expect(await left()).toEqual(['new-delivered', 'old-pending'])
    expect(await attemptsLeft()).toEqual(['new-delivered#1', 'old-pending#1'])
    const { body } = await handler.runtime.metrics.scrape()
    expect(body).toMatch(/^switchyard_callbacks_purged_total [1-9]\d*$/m)
  } finally {
    await handler.stop()
  }
})

test('a sweep goes in batches until one is not full, oldest first; 0 hours keeps everything', async () => {
  const logger = createLogger(config)
  const repository = createRepository(db, { instanceId: `${run}-sweeper`, leaseMs: 1000 })
  const ids = []
  for (let i = 0; i < 5; i++) ids.push(await addCallback(`batch-${i}`, { status: 'DELIVERED', hoursAgo: 1000 + i, attempts: 1 }))
  const counts = []
  // Far older than anything else in the test database, so only these are due.
  const retention = createRetention({ repository, logger, retentionHours: 999, batchSize: 2, pauseMs: 1, onPurged: (n) => counts.push(n) })
  expect(await retention.sweep()).toBe(5)
  expect(counts).toEqual([2, 2, 1])
  expect((await left()).filter((id) => id.startsWith('batch-'))).toEqual([])

  await addCallback('keep', { status: 'DELIVERED', hoursAgo: 5000 })
  const keepAll = createRetention({ repository, logger, retentionHours: 0 })
  expect(await keepAll.sweep()).toBe(0)
  expect(await left()).toContain('keep')
  await db('callback_attempt').where({ callback_id: `${run}:keep` }).del()
  await db('callback').where({ callback_id: `${run}:keep` }).del()
})

test('renewing leases tells which callbacks another instance holds now, or that are finished: this one lost them', async () => {
  const mine = await addCallback('lease-mine', { status: 'PENDING', hoursAgo: 0 })
  const taken = await addCallback('lease-taken', { status: 'PENDING', hoursAgo: 0 })
  const done = await addCallback('lease-done', { status: 'DELIVERED', hoursAgo: 0 })
  const me = `${run}-me`
  await db('callback').whereIn('callback_id', [mine, done]).update({ claimed_by: me })
  const repository = createRepository(db, { instanceId: me, leaseMs: 60000 })
  // A callback whose row is not written yet is not lost.
  const lost = await repository.renewLeases([mine, taken, done, `${run}:not-written-yet`])
  expect(lost.sort()).toEqual([done, taken].sort())
  const row = await db('callback').where({ callback_id: mine }).first()
  expect(row.claim_until.getTime()).toBeGreaterThan(Date.now() + 30000)
  expect(await repository.renewLeases([mine])).toEqual([])
})
