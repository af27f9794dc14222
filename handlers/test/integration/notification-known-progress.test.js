'use strict'

// The notification consumer reads its progress, and which of a batch's
// callbacks exist already, in a round trip of its own before it delivers
// anything — except after a batch it committed itself, whose outcome it
// knows (shared/src/kafka/known-progress.js): then the callback goes out at
// once. A (re)join of the group, a restart or a failed transaction makes it
// ask the database again. A TCP proxy in front of MariaDB
// (test/support/db-proxy.js) counts the reads.

const { testConfig, unique } = require('../../../test/support/config')
const { waitUntil } = require('../../../test/support/wait')
const { startDbProxy } = require('../../../test/support/db-proxy')
const { topicName } = require('../../../shared/src/kafka')
const { startParticipant, endpointsAt, addParticipant, notification, startNotificationHandler, openNotificationSuite, closeNotificationSuite } = require('./notification-support')

const run = unique('kp')
const settings = { KAFKA_TOPIC_PREFIX: `${run}.`, KAFKA_CLIENT_ID: run, KAFKA_PARTITIONS: '1', KAFKA_MAX_WAIT_MS: '50' }
const base = testConfig(settings)

let db
let tk
let proxy
let participant
let name
/** @type {{ stop: () => Promise<void> }[]} */
const handlers = []

beforeAll(async () => {
  ;({ db, tk } = await openNotificationSuite(base))
  proxy = await startDbProxy({ host: base.DB_HOST, port: base.DB_PORT })
  participant = await startParticipant()
  name = `${run}-payee`
  await addParticipant(db, name, endpointsAt(participant.base))
})

afterAll(async () => {
  await closeNotificationSuite(run, { handlers, participants: [participant], tk, db })
  await proxy.close()
})

/** A notification handler whose database connections go through the proxy. */
const start = async () => {
  const h = await startNotificationHandler(testConfig({ ...settings, DB_PORT: String(proxy.port) }))
  handlers.push(h)
  return h
}

/** Until the notification group has `n` members and is stable (the rebalance is over). @param {number} n */
async function groupSettled (n) {
  const admin = tk.kafka.admin()
  await admin.connect()
  try {
    await waitUntil(async () => {
      const { groups: [g] } = await admin.describeGroups([`${run}-notification`])
      return g.state === 'Stable' && g.members.length === n
    }, { what: `${n} members in the notification group` })
  } finally {
    await admin.disconnect()
  }
}
/** The progress reads that went to the database so far. */
const progressReads = () => proxy.queries().filter((sql) => sql.includes('FROM consumer_progress')).length

/** Sends one callback and waits until it is delivered and its row committed. */
async function deliverOne () {
  const msg = notification(topicName(base, 'notification'), name)
  const before = participant.received.length
  await tk.send([msg])
  await waitUntil(() => participant.received.length === before + 1, { what: 'the callback delivered' })
  await waitUntil(async () => (await db('callback').where({ transfer_id: msg.value.transferId, status: 'DELIVERED' })).length === 1, { what: 'its row committed' })
  return msg
}

test('after a batch it committed itself, the next callbacks go out without a read first; a second instance joining makes it read again', async () => {
  await start()
  await groupSettled(1)
  await deliverOne()
  const afterFirst = progressReads()
  expect(afterFirst).toBeGreaterThanOrEqual(1)

  for (let i = 0; i < 3; i++) await deliverOne()
  expect(progressReads()).toBe(afterFirst)
  // Every callback once, in order.
  expect(participant.received).toHaveLength(4)

  // The group rebalances: whichever instance owns the partition now asks the database first.
  await start()
  await groupSettled(2)
  const beforeJoinedBatch = progressReads()
  await deliverOne()
  expect(progressReads()).toBeGreaterThan(beforeJoinedBatch)
  expect(participant.received).toHaveLength(5)
}, 60000)
