'use strict'

// The notification handler with CALLBACK_THREAD on, against the real stack:
// callbacks written by the worker thread reach participants as the in-process
// client's do, failures are retried and recorded the same way, and a graceful
// stop aborts the thread's request in flight without spending an attempt.

const { unique } = require('../../../test/support/config')
const { waitUntil } = require('../../../test/support/wait')
const { topicName } = require('../../../shared/src/kafka')
const { deadBase, endpointsAt, addParticipant, notification, notificationTestConfig, notificationFixtures, startNotificationHandler, openNotificationSuite, closeNotificationSuite, stopWithRequestInFlight, CONTENT_TYPE } = require('./notification-support')

const run = unique('nt')
const config = notificationTestConfig(run, { CALLBACK_THREAD: 'true' })
const topic = topicName(config, 'notification')

let db
let tk
let handler
const fixtures = notificationFixtures(run, () => db)
const { participants, participant, attemptsOf, statusIs } = fixtures
const stopHandler = async () => { await handler.stop(); handler = undefined }
const startHandler = async () => { handler = await startNotificationHandler(config) }

beforeAll(async () => {
  ;({ db, tk } = await openNotificationSuite(config))
  await startHandler()
})

afterAll(() => closeNotificationSuite(run, { handler, participants, tk, db }))

test('delivers many callbacks to several participants with their URLs, FSPIOP headers and bodies, each recorded once', async () => {
  const a = await participant('a')
  const b = await participant('b')
  const msgs = Array.from({ length: 40 }, (_, i) => i % 2
    ? notification(topic, a.name, { kind: 'put', from: 'payeefsp' })
    : notification(topic, b.name, { kind: 'post', from: 'payerfsp', body: { transferId: `t${i}`, amount: { amount: String(i + 1), currency: 'USD' } } }))
  await tk.send(msgs)
  await waitUntil(() => a.server.received.length === 20 && b.server.received.length === 20, { what: 'forty callbacks' })
  for (const msg of msgs) {
    const n = msg.value
    const server = n.to === a.name ? a.server : b.server
    const got = server.received.filter((r) => r.body === JSON.stringify(n.body) && r.headers['fspiop-uri'] === n.path)
    expect(got).toHaveLength(1)
    expect(got[0].method).toBe(n.method)
    expect(got[0].headers).toMatchObject({
      'fspiop-source': n.headers['fspiop-source'],
      'fspiop-destination': n.to,
      'content-type': CONTENT_TYPE,
      'fspiop-http-method': n.method
    })
  }
  const rows = await waitUntil(statusIs('DELIVERED', msgs.map((m) => m.value.transferId)), { what: 'rows DELIVERED' })
  for (const row of rows) {
    expect(row).toMatchObject({ attempts: 1, last_error: null })
    const base = row.participant === a.name ? a.server.base : b.server.base
    expect(await attemptsOf(row.callback_id)).toMatchObject([{ attempt: 1, url: base + row.path, status_code: 200, error: null }])
  }
})

test('failing answers and a refused connection are recorded per attempt, and retried until delivered or failed', async () => {
  const flaky = await participant('flaky', (_req, res, n) => { res.statusCode = n <= 2 ? 503 : 200; res.end() })
  const down = `${run}-down`
  await addParticipant(db, down, endpointsAt(await deadBase()))
  const ok = notification(topic, flaky.name)
  const lost = notification(topic, down)
  await tk.send([ok, lost])
  const [row] = await waitUntil(statusIs('DELIVERED', [ok.value.transferId]), { what: 'delivered after retries' })
  expect((await attemptsOf(row.callback_id)).map((a) => [a.attempt, a.status_code, a.error])).toEqual([
    [1, 503, `HTTP 503 from ${flaky.server.base}${ok.value.path}`],
    [2, 503, `HTTP 503 from ${flaky.server.base}${ok.value.path}`],
    [3, 200, null]
  ])
  const [failed] = await waitUntil(statusIs('FAILED', [lost.value.transferId]), { what: 'failed after every attempt' })
  const attempts = await attemptsOf(failed.callback_id)
  expect(attempts).toHaveLength(3)
  for (const a of attempts) expect(a).toMatchObject({ status_code: null, error: expect.stringContaining('ECONNREFUSED') })
})

test('graceful stop: the thread\'s request in flight is aborted without spending an attempt, and a new instance delivers it', async () => {
  await stopWithRequestInFlight(fixtures, { topic, send: (m) => tk.send(m), stopHandler, startHandler })
})
