'use strict'

// createMetrics() as a process gets it: its own registry with default
// metrics, pool gauges and callback counters, read as Prometheus reads them.
// The knex instance is real but never connects (pool minimum 0, no query).

const { EventEmitter } = require('node:events')
const client = require('prom-client')
const { createMetrics } = require('../../src/metrics')
const { createDb } = require('../../src/db')
const { createLogger } = require('../../src/logger')
const { testConfig } = require('../../../test/support/config')
const { parseExposition, valueOf } = require('../support/metrics-exposition')

const config = testConfig({ CALLBACK_TIMEOUT_MS: '1500' })
const logger = createLogger(config)
/** @type {import('knex').Knex} */
let db

beforeAll(() => { db = createDb(config) })
afterAll(() => db.destroy())

/** @param {ReturnType<typeof createMetrics>} metrics */
async function scrape (metrics) {
  const { contentType, body } = await metrics.scrape()
  expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/)
  return parseExposition(body)
}

test('a process\'s registry: default metrics with the switchyard_ prefix, pool gauges, callback outcomes at zero', async () => {
  const metrics = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
  const m = await scrape(metrics)
  for (const name of ['switchyard_process_cpu_user_seconds_total', 'switchyard_nodejs_eventloop_lag_seconds', 'switchyard_nodejs_heap_size_used_bytes']) {
    expect(m.types.has(name)).toBe(true)
  }
  expect(m.types.get('switchyard_nodejs_gc_duration_seconds')).toBe('histogram')
  for (const state of ['used', 'free', 'pending']) expect(valueOf(m, 'switchyard_db_pool_connections', { state })).toBe(0)
  for (const outcome of ['delivered', 'http_error', 'timeout', 'network_error', 'no_endpoint']) {
    expect(valueOf(m, 'switchyard_callback_attempts_total', { outcome })).toBe(0)
    expect(valueOf(m, 'switchyard_callback_seconds_count', { outcome })).toBe(0)
  }
  expect(valueOf(m, 'switchyard_callbacks_failed_total')).toBe(0)
  // Nothing watched yet: no lag series, and no broker request was made (admin is null).
  expect(m.types.get('switchyard_consumer_lag')).toBe('gauge')
  expect(m.samples.filter((s) => s.name === 'switchyard_consumer_lag')).toEqual([])
  metrics.close()
})

test('callback attempts by outcome, with buckets up to CALLBACK_TIMEOUT_MS', async () => {
  const metrics = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
  metrics.callbacks.attempt('delivered', 0.004)
  metrics.callbacks.attempt('delivered', 0.02)
  metrics.callbacks.attempt('timeout', 1.503)
  metrics.callbacks.failed()
  const m = await scrape(metrics)
  expect(valueOf(m, 'switchyard_callback_attempts_total', { outcome: 'delivered' })).toBe(2)
  expect(valueOf(m, 'switchyard_callback_seconds_bucket', { outcome: 'delivered', le: '0.005' })).toBe(1)
  expect(valueOf(m, 'switchyard_callback_seconds_bucket', { outcome: 'timeout', le: '1.5' })).toBe(0)
  expect(valueOf(m, 'switchyard_callback_seconds_bucket', { outcome: 'timeout', le: '+Inf' })).toBe(1)
  expect(valueOf(m, 'switchyard_callbacks_failed_total')).toBe(1)
  metrics.close()
})

test('every process has its own registry; prom-client\'s global one stays empty', async () => {
  const a = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
  const b = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
  a.callbacks.failed()
  expect(valueOf(await scrape(a), 'switchyard_callbacks_failed_total')).toBe(1)
  expect(valueOf(await scrape(b), 'switchyard_callbacks_failed_total')).toBe(0)
  expect(client.register.getMetricsAsArray()).toEqual([])
  a.close()
  b.close()
})

test('the HTTP hook labels a request with its route pattern, never the URL', async () => {
  const metrics = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
  let called = 0
  const done = () => { called++ }
  metrics.http.onResponse({ method: 'PUT', routeOptions: { url: '/transfers/:id' } }, { statusCode: 200, elapsedTime: 3.5 }, done)
  metrics.http.onResponse({ method: 'GET', routeOptions: {} }, { statusCode: 404, elapsedTime: 0.2 }, done)
  expect(called).toBe(2)
  const m = await scrape(metrics)
  expect(valueOf(m, 'switchyard_http_request_seconds_sum', { method: 'PUT', route: '/transfers/:id', status: '200' })).toBeCloseTo(0.0035)
  expect(valueOf(m, 'switchyard_http_request_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1)
  metrics.close()
})

test('a watched Kafka client\'s requests are counted by client and API', async () => {
  const metrics = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
  // kafkajs clients emit a REQUEST instrumentation event per request sent.
  const clientLike = (prefix) => {
    const emitter = new EventEmitter()
    const events = { REQUEST: `${prefix}.network.request` }
    return { events, on: (event, fn) => emitter.on(event, fn), request: (apiName) => emitter.emit(events.REQUEST, { payload: { apiName } }) }
  }
  const consumer = clientLike('consumer')
  const producer = clientLike('producer')
  metrics.watchKafka('prepare', consumer)
  metrics.watchKafka('producer', producer)
  for (const api of ['Fetch', 'Fetch', 'OffsetCommit']) consumer.request(api)
  producer.request('Produce')
  const m = await scrape(metrics)
  expect(valueOf(m, 'switchyard_kafka_requests_total', { client: 'prepare', api: 'Fetch' })).toBe(2)
  expect(valueOf(m, 'switchyard_kafka_requests_total', { client: 'prepare', api: 'OffsetCommit' })).toBe(1)
  expect(valueOf(m, 'switchyard_kafka_requests_total', { client: 'producer', api: 'Produce' })).toBe(1)
  expect(valueOf(m, 'switchyard_kafka_requests_total', { client: 'producer', api: 'Fetch' })).toBeUndefined()
  metrics.close()
})
