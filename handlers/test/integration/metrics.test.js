'use strict'

// /metrics of a handler process started the way production starts it (one
// handler, its own health port), read as Prometheus reads it: after
// notifications flow to simulated participants, the stage histograms,
// callback outcomes and consumer lag show them.

const { startProcess } = require('../../../test/support/processes')
const { testConfig, unique } = require('../../../test/support/config')
const { createTestKafka } = require('../../../test/support/kafka')
const { waitUntil } = require('../../../test/support/wait')
const { failPendingCallbacks } = require('../../../test/support/callbacks')
const { createDb } = require('../../../shared/src/db')
const { topicName } = require('../../../shared/src/kafka')
const { createTopics } = require('../../../scripts/stack/index')
const { parseExposition, valueOf } = require('../../../shared/test/support/metrics-exposition')
const { startParticipant, endpointsAt, addParticipant, notification } = require('./notification-support')

const run = unique('m')
const env = {
  HEALTH_PORT: '0',
  LOG_LEVEL: 'info',
  KAFKA_TOPIC_PREFIX: `${run}.`,
  KAFKA_CLIENT_ID: run,
  KAFKA_PARTITIONS: '2',
  KAFKA_MAX_WAIT_MS: '50',
  CALLBACK_BACKOFF_MS: '20',
  CALLBACK_MAX_BACKOFF_MS: '100',
  CALLBACK_MAX_ATTEMPTS: '2',
  METRICS_LAG_REFRESH_MS: '200'
}
const config = testConfig(env)
const topic = topicName(config, 'notification')
const groupId = `${run}-notification`

let db
let tk
let handler
let metricsUrl
const servers = []

beforeAll(async () => {
  db = createDb(config)
  tk = createTestKafka(config)
  await tk.connect()
  await createTopics(config)
  handler = startProcess('handlers/src/main.js', ['notification'], env)
  const [, healthUrl] = await handler.waitForOutput(/"health":"(http:\/\/[^"]+)"/)
  metricsUrl = healthUrl.replace(/\/health$/, '/metrics')
})

afterAll(async () => {
  if (handler) expect(await handler.stop()).toEqual({ code: 0, signal: null })
  for (const s of servers) await s.close()
  await failPendingCallbacks(db, 'participant', `${run}%`)
  await tk.close()
  await db.destroy()
})

async function scrape () {
  const res = await fetch(metricsUrl)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  return parseExposition(await res.text())
}

/** A simulated participant answering every callback with `status`. */
async function participant (suffix, status) {
  const server = await startParticipant((_req, res) => { res.statusCode = status; res.end() })
  servers.push(server)
  const name = `${run}-${suffix}`
  await addParticipant(db, name, endpointsAt(server.base))
  return name
}

test('/metrics on the health port: Prometheus text with pool gauges and process metrics', async () => {
  const m = await scrape()
  for (const state of ['used', 'free', 'pending']) expect(valueOf(m, 'switchyard_db_pool_connections', { state })).toBeGreaterThanOrEqual(0)
  expect(m.types.get('switchyard_db_pool_connections')).toBe('gauge')
  expect(valueOf(m, 'switchyard_process_cpu_user_seconds_total')).toBeGreaterThan(0)
  expect(valueOf(m, 'switchyard_process_resident_memory_bytes')).toBeGreaterThan(0)
  expect(m.types.get('switchyard_nodejs_eventloop_lag_seconds')).toBe('gauge')
  expect(m.types.get('switchyard_nodejs_gc_duration_seconds')).toBe('histogram')
  expect(valueOf(m, 'switchyard_callback_attempts_total', { outcome: 'delivered' })).toBe(0)
})

test('notifications show up as stage observations, callback outcomes and zero lag', async () => {
  const ok = await participant('ok', 200)
  const broken = await participant('broken', 500)
  const silent = `${run}-silent`
  await addParticipant(db, silent) // registered, but no callback endpoints
  await tk.send([
    notification(topic, ok), notification(topic, ok), notification(topic, ok),
    notification(topic, broken),
    notification(topic, silent)
  ])

  // Two callbacks fail after their 2 attempts: the broken one, and the silent one (an endpoint might have been registered meanwhile).
  const m = await waitUntil(async () => {
    const s = await scrape()
    return valueOf(s, 'switchyard_callbacks_failed_total') === 2 && valueOf(s, 'switchyard_callback_attempts_total', { outcome: 'delivered' }) === 3 &&
      // A chunk's stage metrics are recorded after its commit and produce, which may come after its callbacks.
      valueOf(s, 'switchyard_messages_total', { stage: 'notification' }) === 5 && s
  }, { what: 'callback and stage metrics for 5 notifications' })
  const attempts = (outcome) => valueOf(m, 'switchyard_callback_attempts_total', { outcome })
  expect([attempts('delivered'), attempts('http_error'), attempts('no_endpoint'), attempts('timeout'), attempts('network_error')]).toEqual([3, 2, 2, 0, 0])
  expect(valueOf(m, 'switchyard_callback_seconds_count', { outcome: 'delivered' })).toBe(3)
  expect(valueOf(m, 'switchyard_callback_seconds_bucket', { outcome: 'http_error', le: '+Inf' })).toBe(2)

  const stage = { stage: 'notification' }
  expect(valueOf(m, 'switchyard_messages_total', stage)).toBe(5)
  expect(valueOf(m, 'switchyard_queue_gap_seconds_count', stage)).toBe(5)
  expect(valueOf(m, 'switchyard_stage_processing_seconds_count', stage)).toBeGreaterThanOrEqual(1)
  expect(valueOf(m, 'switchyard_stage_db_seconds_count', stage)).toBe(valueOf(m, 'switchyard_stage_processing_seconds_count', stage))
  expect(valueOf(m, 'switchyard_stage_produce_seconds_count', stage)).toBeGreaterThanOrEqual(1)
  expect(valueOf(m, 'switchyard_batch_size_sum', stage)).toBe(5)
  expect(valueOf(m, 'switchyard_dead_letters_total', stage)).toBeUndefined()

  // Both partitions of the notification topic, all of it committed.
  const lag = await waitUntil(async () => {
    const rows = (await scrape()).samples.filter((s) => s.name === 'switchyard_consumer_lag' && s.labels.group === groupId)
    return rows.length === 2 && rows.every((r) => r.value === 0) && rows
  }, { what: `zero lag for ${groupId}` })
  expect(lag.map((r) => r.labels).sort((a, b) => a.partition.localeCompare(b.partition))).toEqual([
    { group: groupId, topic, partition: '0' },
    { group: groupId, topic, partition: '1' }
  ])

  // Its round trips to the broker, by client and API: the consumer fetched
  // and committed its offsets, the admin client read the lag above.
  const requests = (client, api) => valueOf(m, 'switchyard_kafka_requests_total', { client, api }) || 0
  expect(requests('notification', 'Fetch')).toBeGreaterThan(0)
  const after = await waitUntil(async () => {
    const s = await scrape()
    return valueOf(s, 'switchyard_kafka_requests_total', { client: 'notification', api: 'OffsetCommit' }) > 0 && s
  }, { what: 'the notification consumer\'s offset commits counted' })
  expect(valueOf(after, 'switchyard_kafka_requests_total', { client: 'admin', api: 'ListOffsets' })).toBeGreaterThan(0)
})
