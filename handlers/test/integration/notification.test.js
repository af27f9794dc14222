'use strict'

// The notification handler against the real stack: notification messages on
// Kafka become callbacks that simulated participants (real HTTP servers)
// receive, with every attempt recorded in MariaDB.

const { unique } = require('../../../test/support/config')
const { waitUntil } = require('../../../test/support/wait')
const { topicName, deadLetterTopic } = require('../../../shared/src/kafka')
const { deadBase, endpointsAt, addParticipant, notification, notificationTestConfig, notificationFixtures, startNotificationHandler, openNotificationSuite, closeNotificationSuite, stopWithRequestInFlight, CONTENT_TYPE } = require('./notification-support')

const run = unique('n')
// A hung participant stays hung for the 10 s callback timeout, long after the
// others are served, after a slow answer is released, and after a stopping
// handler aborts its requests (a third of SHUTDOWN_TIMEOUT_MS).
const config = notificationTestConfig(run, {
  CALLBACK_CONCURRENCY: '2',
  // Long enough that a participant's own database query fits in it (the
  // first test), short enough to be overtaken (the second).
  CALLBACK_INLINE_WAIT_MS: '2000'
})
const topic = topicName(config, 'notification')
const groupId = `${config.KAFKA_CLIENT_ID}-notification`

let db
let tk
let dlq
let handler
const fixtures = notificationFixtures(run, () => db)
const { participants, participant, rowsOf, attemptsOf, statusIs } = fixtures
const stopHandler = async () => { await handler.stop(); handler = undefined }
const startHandler = async () => { handler = await startNotificationHandler(config) }

beforeAll(async () => {
  ;({ db, tk } = await openNotificationSuite(config))
  dlq = await tk.collect(deadLetterTopic(topic))
  await startHandler()
})

afterAll(() => closeNotificationSuite(run, { handler, participants, tk, db }))

const deadLetterFor = (transferId) => dlq.messages.find((m) => m.value.notification && m.value.notification.transferId === transferId)

test('delivers callbacks to several participants: URL from the endpoint, FSPIOP headers, body', async () => {
  const a = await participant('a')
  const b = await participant('b')
  const msgs = [
    notification(topic, a.name, { kind: 'put', from: 'payeefsp' }),
    notification(topic, a.name, { kind: 'error', body: { errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected' } } }),
    notification(topic, b.name, { kind: 'post', from: 'payerfsp', body: { transferId: 'x', amount: { amount: '10', currency: 'USD' } } }),
    notification(topic, b.name, { kind: 'patch' })
  ]
  await tk.send(msgs)
  await waitUntil(() => a.server.received.length === 2 && b.server.received.length === 2, { what: 'four callbacks' })

  for (const msg of msgs) {
    const n = msg.value
    const server = n.to === a.name ? a.server : b.server
    const got = server.received.find((r) => r.headers['fspiop-uri'] === n.path && r.method === n.method)
    expect(got).toBeDefined()
    expect(got.url).toBe(n.path) // the template filled in (or, for POST, the registered URL)
    expect(got.headers).toMatchObject({
      'fspiop-source': n.headers['fspiop-source'],
      'fspiop-destination': n.to,
      'content-type': CONTENT_TYPE,
      date: n.headers.date,
      'fspiop-uri': n.path,
      'fspiop-http-method': n.method,
      'content-length': String(Buffer.byteLength(got.body))
    })
    expect(JSON.parse(got.body)).toEqual(n.body)
  }

  const ids = msgs.map((m) => m.value.transferId)
  const rows = await waitUntil(statusIs('DELIVERED', ids), { what: 'rows DELIVERED' })
  for (const row of rows) {
    // Never sent again, so nothing of what was sent is kept: it is in the Kafka record and the trace.
    expect(row).toMatchObject({ attempts: 1, last_error: null, headers: '', body: null })
    expect(row.callback_id).toMatch(new RegExp(`^${topic.replace(/\./g, '\\.')}:\\d+:\\d+@[A-Za-z0-9_-]+$`))
    expect(row.delivered_at).toBeInstanceOf(Date)
    const [attempt, ...more] = await attemptsOf(row.callback_id)
    expect(more).toEqual([])
    const base = row.participant === a.name ? a.server.base : b.server.base
    expect(attempt).toMatchObject({ attempt: 1, url: base + row.path, status_code: 200, error: null })
  }
})

test('a callback reaches the participant before its row is written, which then records that attempt', async () => {
  const rowsWhenReceived = []
  const p = await participant('first', (req, res) => {
    // While the participant is still answering, the switch has written nothing.
    db('callback').where({ transfer_id: req.url.split('/').pop() }).count({ n: '*' })
      .then(([{ n }]) => rowsWhenReceived.push(Number(n)), () => rowsWhenReceived.push('query failed'))
      .finally(() => { res.statusCode = 200; res.end() })
  })
  const msgs = [notification(topic, p.name), notification(topic, p.name)]
  await tk.send(msgs)
  const rows = await waitUntil(statusIs('DELIVERED', msgs.map((m) => m.value.transferId)), { what: 'rows DELIVERED' })
  expect(rowsWhenReceived).toEqual([0, 0])
  for (const row of rows) {
    expect(row).toMatchObject({ attempts: 1, last_error: null, claim_until: null })
    expect((await attemptsOf(row.callback_id)).map((a) => [a.attempt, a.status_code, a.error])).toEqual([[1, 200, null]])
  }
})

test('an attempt slower than CALLBACK_INLINE_WAIT_MS is stored as in flight; its outcome follows', async () => {
  let answer
  const p = await participant('slowish', (_req, res) => { answer = () => { res.statusCode = 200; res.end() } })
  const msg = notification(topic, p.name)
  await tk.send([msg])
  const [pending] = await waitUntil(statusIs('PENDING', [msg.value.transferId]), { what: 'the row written while the attempt is in flight' })
  expect(p.server.open()).toBe(1)
  expect(pending.attempts).toBe(0)
  // It may have to be sent again (by another instance): the row holds what to send.
  expect(JSON.parse(pending.body)).toEqual(msg.value.body)
  expect(JSON.parse(pending.headers)).toMatchObject(msg.value.headers)
  expect(await attemptsOf(pending.callback_id)).toEqual([])
  answer()
  const [row] = await waitUntil(statusIs('DELIVERED', [msg.value.transferId]), { what: 'delivered' })
  expect(row).toMatchObject({ attempts: 1, headers: '', body: null })
  expect((await attemptsOf(row.callback_id)).map((a) => [a.attempt, a.status_code])).toEqual([[1, 200]])
  expect(p.server.received).toHaveLength(1)
})

test('retries a failing endpoint with backoff: two 500s, then delivered on attempt 3', async () => {
  const p = await participant('flaky', (_req, res, n) => { res.statusCode = n <= 2 ? 500 : 200; res.end() })
  const msg = notification(topic, p.name)
  await tk.send([msg])
  const [row] = await waitUntil(statusIs('DELIVERED', [msg.value.transferId]), { what: 'delivered after retries' })
  expect(row.attempts).toBe(3)
  expect(p.server.received.map((r) => r.body)).toEqual(Array(3).fill(JSON.stringify(msg.value.body)))
  const attempts = await attemptsOf(row.callback_id)
  expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
    [1, 500, `HTTP 500 from ${p.server.base}${msg.value.path}`],
    [2, 500, `HTTP 500 from ${p.server.base}${msg.value.path}`],
    [3, 200, null]
  ])
})

test('a participant that is down for the whole budget: FAILED after every attempt, and dead-lettered', async () => {
  const name = `${run}-down`
  await addParticipant(db, name, endpointsAt(await deadBase()))
  const msg = notification(topic, name)
  await tk.send([msg])
  const [row] = await waitUntil(statusIs('FAILED', [msg.value.transferId]), { what: 'FAILED' })
  expect(row.attempts).toBe(3)
  expect(row.last_error).toMatch(/ECONNREFUSED/)
  expect(JSON.parse(row.body)).toEqual(msg.value.body) // what was never delivered stays readable
  const attempts = await attemptsOf(row.callback_id)
  expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3])
  for (const a of attempts) expect(a).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/) })
  const dead = await waitUntil(() => deadLetterFor(msg.value.transferId), { what: 'dead letter' })
  expect(dead.key).toBe(name)
  expect(dead.value).toMatchObject({
    callbackId: row.callback_id,
    notification: { to: name, method: 'PUT', path: msg.value.path, body: msg.value.body },
    error: { code: 'CALLBACK_FAILED', attempts: 3, message: row.last_error }
  })
})

test('a participant that never answers does not delay callbacks to another', async () => {
  const slow = await participant('slow', () => {}) // never answers
  const fast = await participant('fast')
  const slowMsgs = Array.from({ length: 4 }, () => notification(topic, slow.name))
  await tk.send(slowMsgs)
  // Both of the slow participant's slots are taken; two more callbacks wait in its lane.
  await waitUntil(() => slow.server.open() === 2, { what: 'slow participant holding two requests' })
  const fastMsgs = Array.from({ length: 3 }, () => notification(topic, fast.name))
  await tk.send(fastMsgs)
  await waitUntil(() => fast.server.received.length === 3, { what: 'fast callbacks' })

  // Every fast callback arrived while the slow participant's first requests were still hanging.
  expect(slow.server.received).toHaveLength(2)
  expect(slow.server.closedAt).toEqual([])
  const firstSlowTimeout = await waitUntil(() => slow.server.closedAt[0], { what: 'the slow requests to time out' })
  for (const { at } of fast.server.received) expect(at).toBeLessThan(firstSlowTimeout)
  expect(slow.server.maxOpen()).toBe(2) // CALLBACK_CONCURRENCY

  const slowIds = slowMsgs.map((m) => m.value.transferId)
  const timedOut = await waitUntil(async () => (await db('callback_attempt').whereIn('callback_id', (await rowsOf(slowIds)).map((r) => r.callback_id))
    .whereNotNull('error')).find((a) => /TIMEOUT/.test(a.error)), { what: 'a timed-out attempt' })
  expect(timedOut).toMatchObject({ status_code: null, error: 'CALLBACK_TIMEOUT: no answer within 10000 ms' })
  await waitUntil(statusIs('DELIVERED', fastMsgs.map((m) => m.value.transferId)), { what: 'fast rows DELIVERED' })
  // Close the slow server: the remaining attempts are refused and the callbacks fail.
  await slow.server.close()
  await waitUntil(statusIs('FAILED', slowIds), { what: 'slow rows FAILED', timeoutMs: 45000 })
})

test('no endpoint registered: retried with a clear error, FAILED after the budget and dead-lettered; an unknown participant at once', async () => {
  const noEndpoint = `${run}-noendpoint`
  await addParticipant(db, noEndpoint, { FSPIOP_CALLBACK_URL_TRANSFER_POST: 'http://127.0.0.1:9/transfers' })
  const unknown = `${run}-unknown`
  const msgs = [notification(topic, noEndpoint, { kind: 'put' }), notification(topic, unknown, { kind: 'error' })]
  await tk.send(msgs)
  const ids = msgs.map((m) => m.value.transferId)
  await waitUntil(statusIs('FAILED', ids), { what: 'FAILED' })
  const [first, second] = await Promise.all(ids.map(async (id) => (await rowsOf([id]))[0]))
  const missing = `participant ${noEndpoint} has no FSPIOP_CALLBACK_URL_TRANSFER_PUT endpoint registered`
  expect(first).toMatchObject({ attempts: 3, last_error: missing })
  expect(await attemptsOf(first.callback_id)).toEqual([1, 2, 3].map((attempt) => expect.objectContaining({ attempt, url: null, status_code: null, error: missing })))
  expect(second).toMatchObject({ attempts: 1, last_error: `participant ${unknown} is not registered` })
  expect(await attemptsOf(second.callback_id)).toEqual([expect.objectContaining({ attempt: 1, url: null, status_code: null, error: second.last_error })])
  await waitUntil(() => ids.every(deadLetterFor), { what: 'dead letters' })
})

test('a malformed notification is dead-lettered with the reason and does not stop the partition', async () => {
  const p = await participant('after-bad')
  const bad = { topic, key: p.name, value: { to: p.name, method: 'GET', path: '/transfers/1', endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT' } }
  const good = notification(topic, p.name)
  await tk.send([bad, good])
  await waitUntil(() => p.server.received.length === 1, { what: 'the good callback' })
  const dead = await waitUntil(() => dlq.messages.find((m) => m.value.error && m.value.error.code === 'INVALID_NOTIFICATION' && m.key === p.name), { what: 'dead letter' })
  expect(dead.value.error.message).toMatch(/"method" must be one of POST, PUT, PATCH/)
  expect(dead.value.value).toEqual(bad.value)
})

test('recovery: pending callbacks whose lease lapsed are delivered; a live lease is respected', async () => {
  const p = await participant('recover')
  const row = (suffix, fields) => {
    const transferId = `${run}-${suffix}`
    return {
      callback_id: `${run}:recovery:${suffix}`,
      participant: p.name,
      transfer_id: transferId,
      endpoint_type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT',
      method: 'PUT',
      path: `/transfers/${transferId}`,
      headers: JSON.stringify({ 'fspiop-source': 'hub', 'fspiop-destination': p.name, 'content-type': CONTENT_TYPE }),
      body: JSON.stringify({ transferState: 'COMMITTED' }),
      status: 'PENDING',
      ...fields
    }
  }
  const past = db.raw('NOW(3) - INTERVAL 5 SECOND')
  await db('callback').insert([
    // A crashed replica's callback, one failed attempt behind it.
    row('crashed', { claimed_by: 'crashed-replica', claim_until: past, attempts: 1, last_error: 'HTTP 500', next_attempt_at: past }),
    // Due a little later: waits for its next_attempt_at.
    row('later', { claimed_by: 'crashed-replica', claim_until: past, attempts: 1, next_attempt_at: db.raw('NOW(3) + INTERVAL 700000 MICROSECOND') }),
    // Released by a replica that stopped gracefully.
    row('released', { claimed_by: 'stopped-replica', claim_until: null }),
    // Another replica is working on this one right now.
    row('leased', { claimed_by: 'live-replica', claim_until: db.raw('NOW(3) + INTERVAL 1 HOUR') })
  ])
  try {
    const ids = ['crashed', 'later', 'released'].map((s) => `${run}-${s}`)
    const rows = await waitUntil(statusIs('DELIVERED', ids), { what: 'recovered callbacks delivered' })
    expect(rows.map((r) => [r.transfer_id, r.attempts])).toEqual([[ids[0], 2], [ids[1], 2], [ids[2], 1]])
    for (const r of rows) expect(r.claimed_by).not.toMatch(/^(crashed|stopped)-replica$/)
    const later = rows[1]
    const [{ due }] = (await db.raw('SELECT next_attempt_at AS due FROM callback WHERE callback_id = ?', [later.callback_id]))[0]
    expect(later.delivered_at.getTime()).toBeGreaterThanOrEqual(due.getTime() - 5)
    expect(p.server.received.map((r) => r.url).sort()).toEqual(ids.map((id) => `/transfers/${id}`).sort())
    const [leased] = await db('callback').where({ callback_id: `${run}:recovery:leased` })
    expect(leased).toMatchObject({ status: 'PENDING', claimed_by: 'live-replica', attempts: 0 })
  } finally {
    await db('callback').where({ callback_id: `${run}:recovery:leased` }).update({ status: 'FAILED', claim_until: null })
  }
})

test('graceful stop: a request in flight is aborted without spending an attempt, its claim released, and a new instance delivers it', async () => {
  const { row, delivered } = await stopWithRequestInFlight(fixtures, { topic, send: (m) => tk.send(m), stopHandler, startHandler })
  expect(delivered.claimed_by).not.toBe(row.claimed_by)
})

test('a redelivered Kafka record does not produce a second callback', async () => {
  const p = await participant('redelivery')
  const msg = notification(topic, p.name)
  await tk.send([msg])
  await waitUntil(statusIs('DELIVERED', [msg.value.transferId]), { what: 'delivered once' })
  const totalReceived = () => participants.reduce((n, s) => n + s.received.length, 0)
  const ourRows = async () => (await db('callback').where('participant', 'like', `${run}%`)).length
  const before = { received: totalReceived(), rows: await ourRows() }
  const markers = []

  // Twice: with the runner's progress intact (it skips the records), and with
  // it deleted (the callback ids derived from the records refuse new rows).
  for (const forgetProgress of [false, true]) {
    await stopHandler()
    const admin = tk.kafka.admin()
    await admin.connect()
    try {
      const ends = await admin.fetchTopicOffsets(topic)
      await admin.resetOffsets({ groupId, topic, earliest: true })
      if (forgetProgress) await db('consumer_progress').where({ consumer_group: groupId }).del()
      await startHandler()
      await waitUntil(async () => {
        const [{ partitions }] = await admin.fetchOffsets({ groupId, topics: [topic] })
        return ends.every((e) => Number(e.high) === 0 || partitions.some((c) => c.partition === e.partition && c.offset === e.high))
      }, { what: 'every record consumed again' })
    } finally {
      await admin.disconnect()
    }
    // A barrier: a new callback to the same participant (same partition,
    // same lane) arrives after anything the replay handed to the dispatcher.
    const marker = notification(topic, p.name)
    markers.push(marker.value.transferId)
    await tk.send([marker])
    await waitUntil(statusIs('DELIVERED', markers), { what: 'the marker callback' })
    expect(p.server.received.map((r) => r.url)).toEqual([msg.value.transferId, ...markers].map((id) => `/transfers/${id}`))
    expect(totalReceived()).toBe(before.received + markers.length)
    expect(await ourRows()).toBe(before.rows + markers.length)
  }
})
