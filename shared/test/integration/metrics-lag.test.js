'use strict'

// Consumer lag on /metrics against the real broker: the value a scrape shows,
// and how often the broker is asked (at most once per refresh interval, and
// concurrent scrapes share one request).

const { Registry } = require('prom-client')
const { createConsumerLag } = require('../../src/metrics/consumer-lag')
const { createLogger } = require('../../src/logger')
const { testConfig, unique } = require('../../../test/support/config')
const { createTestKafka } = require('../../../test/support/kafka')
const { parseExposition } = require('../support/metrics-exposition')

const config = testConfig()
const logger = createLogger(config)
const tk = createTestKafka(config)
// A scrape here waits for the broker's answer however slow the machine: the
// test asserts what a fetch returns, not how long a scrape waits for one.
const WAIT_FOR_BROKER_MS = 30000
/** @type {import('kafkajs').Admin} */
let admin

beforeAll(async () => {
  await tk.connect()
  admin = tk.kafka.admin()
  await admin.connect()
})
afterAll(async () => {
  await admin.disconnect()
  await tk.close()
})

/** The real admin client, counting the requests made through it. */
function countingAdmin () {
  const calls = { topicOffsets: 0, groupOffsets: 0 }
  const counted = /** @type {import('kafkajs').Admin} */ (/** @type {unknown} */ ({
    fetchTopicOffsets: (/** @type {string} */ topic) => { calls.topicOffsets++; return admin.fetchTopicOffsets(topic) },
    fetchOffsets: (/** @type {any} */ opts) => { calls.groupOffsets++; return admin.fetchOffsets(opts) }
  }))
  return { counted, calls }
}

/** @param {Registry} registry */
async function lagSeries (registry) {
  const { samples } = parseExposition(await registry.metrics())
  return samples.filter((s) => s.name === 'switchyard_consumer_lag').map((s) => ({ ...s.labels, lag: s.value }))
    .sort((a, b) => a.partition.localeCompare(b.partition))
}

test('shows each partition\'s lag for the watched groups, asking the broker at most once per refresh', async () => {
  const topic = unique('lag-')
  const group = unique('group-')
  await tk.createTopics([topic], 2)
  // Three records on partition 0, one on partition 1.
  const producer = tk.kafka.producer()
  await producer.connect()
  await producer.send({ topic, acks: -1, messages: [0, 0, 0, 1].map((partition) => ({ partition, value: '{}' })) })
  await producer.disconnect()
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '1' }] })

  const registry = new Registry()
  let clock = 0
  const { counted, calls } = countingAdmin()
  const lag = createConsumerLag(registry, { admin: counted, refreshMs: 5000, logger, now: () => clock, scrapeWaitMs: WAIT_FOR_BROKER_MS })
  expect(await lagSeries(registry)).toEqual([])
  expect(calls).toEqual({ topicOffsets: 0, groupOffsets: 0 })

  lag.watchGroup(group, [topic])
  const expected = [
    { group, topic, partition: '0', lag: 2 },
    // Never committed: counted from the start of the log.
    { group, topic, partition: '1', lag: 1 }
  ]
  expect(await lagSeries(registry)).toEqual(expected)
  expect(calls).toEqual({ topicOffsets: 1, groupOffsets: 1 })

  // Within the refresh interval: the cached value, even after the group moved.
  await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '3' }, { partition: 1, offset: '1' }] })
  clock = 4999
  await Promise.all([lagSeries(registry), lagSeries(registry), lagSeries(registry)])
  expect(await lagSeries(registry)).toEqual(expected)
  expect(calls).toEqual({ topicOffsets: 1, groupOffsets: 1 })

  // Once it has passed: one fresh read, however many scrapes arrive together.
  clock = 5000
  const together = await Promise.all([lagSeries(registry), lagSeries(registry), lagSeries(registry)])
  for (const series of together) expect(series).toEqual([{ group, topic, partition: '0', lag: 0 }, { group, topic, partition: '1', lag: 0 }])
  expect(calls).toEqual({ topicOffsets: 2, groupOffsets: 2 })

  lag.close()
  clock = 20000
  expect(await lagSeries(registry)).toEqual([])
  expect(calls).toEqual({ topicOffsets: 2, groupOffsets: 2 })
})

test('a broker error removes the series (no stale lag) and is not retried before the next refresh', async () => {
  const registry = new Registry()
  let clock = 0
  let fetches = 0
  const failing = /** @type {import('kafkajs').Admin} */ (/** @type {unknown} */ ({
    fetchTopicOffsets: (/** @type {string} */ topic) => { fetches++; return admin.fetchTopicOffsets(topic) },
    fetchOffsets: () => Promise.reject(new Error('broker away'))
  }))
  const topic = unique('lag-')
  await tk.createTopics([topic], 1)
  const lag = createConsumerLag(registry, { admin: failing, refreshMs: 1000, logger, now: () => clock, scrapeWaitMs: WAIT_FOR_BROKER_MS })
  lag.watchGroup(unique('group-'), [topic])
  expect(await lagSeries(registry)).toEqual([])
  expect(await lagSeries(registry)).toEqual([])
  expect(fetches).toBe(1)
  clock = 1000
  await lagSeries(registry)
  expect(fetches).toBe(2)
  lag.close()
})
