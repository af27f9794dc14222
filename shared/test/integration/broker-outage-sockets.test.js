'use strict'

// A consumer runner and its producer while the Kafka broker is away: kafkajs
// keeps trying to reach it, and its sockets must not collect listeners for as
// long as the outage lasts. kafkajs ends every disconnect with socket.unref(),
// which on a destroyed socket adds a 'connect' listener that never fires; the
// outage test (handlers) saw MaxListenersExceededWarning, 11 'connect'
// listeners on one socket, within 20 s of the broker stopping. Here the broker
// is away behind a proxy of the test's own (test/support/broker-outage.js):
// the stack's broker stays up for everyone else.

const { testConfig, unique } = require('../../../test/support/config')
const { createTestKafka } = require('../../../test/support/kafka')
const { installBrokerOutage } = require('../../../test/support/broker-outage')
const { waitUntil } = require('../../../test/support/wait')
const { createLogger } = require('../../src/logger')
const { createDb } = require('../../src/db')
const { createKafkaFromConfig, runConsumer, runnerSettings, createProducer, deadLetterTopic } = require('../../src/kafka')
const { createEchoHandler, createEffectsTable } = require('../fixtures/echo-handler')

const config = testConfig()
const logger = createLogger(config)
const [brokerHost, brokerPort] = config.KAFKA_BROKERS[0].split(':')

/** @type {any} */
let db
/** @type {ReturnType<typeof createTestKafka>} */
let tk
/** @type {(() => Promise<any>)[]} */
const closers = []
/** @type {Error[]} */
const warnings = []
/** @param {Error} w */
const onWarning = (w) => { if (w.name === 'MaxListenersExceededWarning') warnings.push(w) }

beforeAll(async () => {
  process.on('warning', onWarning)
  db = createDb(config)
  tk = createTestKafka(config)
  await tk.connect()
})

afterAll(async () => {
  for (const close of closers.reverse()) await close()
  await tk.close()
  await db.destroy()
  process.off('warning', onWarning)
})

test('while the broker is away, no socket of the runner or its producer collects listeners; when it is back, records flow again', async () => {
  const id = unique()
  const inTopic = `test.${id}.in`
  const outTopic = `test.${id}.out`
  const table = `effects_${id}`
  await tk.createTopics([inTopic, outTopic, deadLetterTopic(inTopic)], 1)
  await createEffectsTable(db, table)
  const out = await tk.collect(outTopic)

  // From here on, the runner's and its producer's connections go through the proxy.
  const outage = await installBrokerOutage({ host: brokerHost, port: Number(brokerPort) })
  closers.push(() => outage.uninstall())
  const kafka = createKafkaFromConfig(config)
  const producer = createProducer({ kafka })
  await producer.connect()
  closers.push(() => producer.disconnect())
  // The record 'held' waits in its handler until the broker is away: its
  // output then cannot be sent, and the runner retries the produce for as
  // long as the outage lasts, while kafkajs keeps the consumer in its group
  // and the runner keeps committing the offsets of the records before it.
  // (A consumer idle when the broker goes away crashes, and kafkajs builds it
  // anew: that masked the leak.)
  const echo = createEchoHandler({ table, outTopic })
  let entered = false
  let release = () => {}
  const gate = new Promise((resolve) => { release = () => resolve(undefined) })
  /** @type {typeof echo} */
  const handleBatch = async (ctx, messages) => {
    if (messages.some((m) => m.value.id === 'held')) { entered = true; await gate }
    return echo(ctx, messages)
  }
  const runner = await runConsumer({
    kafka,
    db,
    producer,
    logger,
    groupId: `group-${id}`,
    topics: [inTopic],
    handleBatch,
    // The first commit of 'a'..'c' comes once the broker is away.
    settings: { ...runnerSettings(config), offsetCommitIntervalMs: 3000 }
  })
  closers.push(() => runner.stop())
  // Should the test fail during the outage, the runner stops with the broker back.
  closers.push(async () => { release(); await outage.up() })

  await tk.send(['a', 'b', 'c'].map((k) => ({ topic: inTopic, key: k, value: { id: k } })))
  await out.waitForCount(3)
  await tk.send([{ topic: inTopic, key: 'held', value: { id: 'held' } }])
  await waitUntil(() => entered, { what: 'the held record in its handler' })

  await outage.down()
  release()
  // kafkajs tries again and again, with backoff (some seconds for a hundred
  // attempts). Between two looks, no socket has gained a listener: on the
  // socket of the consumer's fetch connection, kafkajs 2.2.4 added one per
  // attempt (five after a hundred).
  const before = outage.attempts()
  const connectListeners = () => outage.clientSockets.map((s) => s.listenerCount('connect'))
  await waitUntil(() => outage.attempts() >= before + 20, { what: 'kafkajs trying to reach the broker 20 times', timeoutMs: 60000 })
  const first = connectListeners()
  await waitUntil(() => outage.attempts() >= before + 100, { what: 'kafkajs trying to reach the broker 100 times', timeoutMs: 60000 })
  const then = connectListeners()
  expect(first.map((n, i) => then[i] - n).filter((grown) => grown > 0)).toEqual([])
  expect(warnings).toEqual([])

  await outage.up()
  await tk.send([{ topic: inTopic, key: 'after', value: { id: 'after' } }])
  await waitUntil(() => out.messages.some((m) => m.value.id === 'after'), { what: "'after' echoed", timeoutMs: 60000 })
  // Every record applied once. Its output may come twice: a batch whose
  // offsets could not be committed during the outage is redelivered, and
  // re-emits what it emitted from the stored copy (at least once).
  expect([...new Set(out.messages.map((m) => m.value.id))].sort()).toEqual(['a', 'after', 'b', 'c', 'held'])
  const applied = await db(table).select('id', 'applied').orderBy('id')
  expect(applied).toEqual(['a', 'after', 'b', 'c', 'held'].map((k) => ({ id: k, applied: 1 })))
}, 180000)
