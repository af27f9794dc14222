'use strict'

// The notification handler when its database commit succeeds but the answer
// is lost (the connection breaks after the server committed): the consumer's
// retry finds the batch applied and so never tells the dispatcher that the
// callback rows exist. What happened to those callbacks since their first
// attempt must still reach the database, or a delivered callback stays
// PENDING, its lease lapses, and the participant gets it a second time.
// A TCP proxy in front of MariaDB (test/support/db-proxy.js) loses the answer.

const { testConfig, unique } = require('../../../test/support/config')
const { waitUntil } = require('../../../test/support/wait')
const { startDbProxy } = require('../../../test/support/db-proxy')
const { topicName, deadLetterTopic } = require('../../../shared/src/kafka')
const { startParticipant, endpointsAt, addParticipant, notification, startNotificationHandler, openNotificationSuite, closeNotificationSuite } = require('./notification-support')

const run = unique('lc')
const settings = { KAFKA_TOPIC_PREFIX: `${run}.`, KAFKA_CLIENT_ID: run, KAFKA_PARTITIONS: '1', KAFKA_MAX_WAIT_MS: '50' }
const base = testConfig(settings)

let db
let tk
let proxy
let dlq
let handler
let participant
let warmup

beforeAll(async () => {
  ;({ db, tk } = await openNotificationSuite(base))
  dlq = await tk.collect(deadLetterTopic(topicName(base, 'notification')))
  proxy = await startDbProxy({ host: base.DB_HOST, port: base.DB_PORT })
})

afterAll(async () => {
  await closeNotificationSuite(run, { handler, participants: [participant, warmup], tk, db })
  await proxy.close()
})

test('a callback whose row was committed without the consumer hearing it: its delivery is recorded, and it is not sent again', async () => {
  const config = testConfig({
    ...settings,
    DB_PORT: String(proxy.port),
    // The batch writes the callback as PENDING: its first attempt is still
    // waiting for the participant when the batch stops waiting.
    CALLBACK_INLINE_WAIT_MS: '50',
    CALLBACK_TIMEOUT_MS: '30000',
    // A lapsed lease would have another sweep deliver it again.
    CALLBACK_LEASE_MS: '2000',
    CALLBACK_BACKOFF_MS: '20',
    CALLBACK_MAX_BACKOFF_MS: '200'
  })
  /** @type {() => void} */
  let answer = () => {}
  participant = await startParticipant((_req, res, n) => {
    if (n > 1) { res.statusCode = 200; res.end(); return }
    answer = () => { res.statusCode = 200; res.end() }
  })
  const name = `${run}-payee`
  await addParticipant(db, name, endpointsAt(participant.base))
  handler = await startNotificationHandler(config)
  // A batch committed first: the consumer then knows its partition's
  // progress and skips the read before the next batch (known-progress.js);
  // the lost answer must make it ask the database again on the retry.
  warmup = await startParticipant()
  await addParticipant(db, `${run}-warmup`, endpointsAt(warmup.base))
  const first = notification(topicName(config, 'notification'), `${run}-warmup`)
  await tk.send([first])
  await waitUntil(async () => (await db('callback').where({ transfer_id: first.value.transferId, status: 'DELIVERED' })).length === 1, { what: 'a first batch committed' })

  const lost = proxy.loseAnswerTo((sql) => sql.includes('INSERT INTO callback ('))
  const msg = notification(topicName(config, 'notification'), name)
  await tk.send([msg])
  const { breakConnection } = await lost
  // The server has the batch and commits it; the handler is still waiting for its answer.
  const [row] = await waitUntil(async () => { const rows = await db('callback').where({ transfer_id: msg.value.transferId }); return rows.length && rows }, { what: 'the callback row committed' })
  expect(row).toMatchObject({ status: 'PENDING', attempts: 0 })
  // The participant answers the first attempt; then the connection breaks.
  await waitUntil(() => participant.received.length === 1, { what: 'the first attempt sent' })
  answer()
  await waitUntil(() => participant.open() === 0, { what: 'the first attempt answered' })
  breakConnection()

  const [delivered] = await waitUntil(async () => {
    const rows = await db('callback').where({ transfer_id: msg.value.transferId, status: 'DELIVERED' })
    return rows.length && rows
  }, { what: 'the callback recorded as delivered' })
  expect(delivered).toMatchObject({ attempts: 1 })
  expect(await db('callback_attempt').where({ callback_id: delivered.callback_id }).select('attempt', 'status_code'))
    .toEqual([{ attempt: 1, status_code: 200 }])
  expect(participant.received).toHaveLength(1)
  // The consumer's retry found the batch applied: nothing was dead-lettered.
  expect(dlq.messages).toEqual([])
}, 60000)
