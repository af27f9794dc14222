'use strict'

// GET /metrics on the participant API, and request durations labelled by
// route pattern. Built without Kafka: the requests made never publish.

const { buildApp } = require('../../src/app')
const { createMetrics } = require('../../../shared/src/metrics')
const { createDb } = require('../../../shared/src/db')
const { testConfig } = require('../../../test/support/config')
const { createLogger } = require('../../../shared/src/logger')
const { parseExposition, valueOf } = require('../../../shared/test/support/metrics-exposition')
const { listen } = require('../support/http')

const config = testConfig()
const logger = createLogger(config)
const db = createDb(config)
const metrics = createMetrics({ config, db, admin: /** @type {any} */ (null), logger })
const app = buildApp({ config, logger, health: async () => ({ status: 'OK' }), metrics })
/** @type {Awaited<ReturnType<typeof listen>>} */
let client

beforeAll(async () => { client = await listen(app) })
afterAll(async () => {
  await app.close()
  metrics.close()
  await db.destroy()
})

test('serves the registry in the Prometheus text format, requests labelled by route pattern', async () => {
  const id = 'b51ec534-ee48-4575-b6a9-ead2955b8069'
  expect((await client.request({ url: '/health' })).statusCode).toBe(200)
  // No FSPIOP headers: refused by the route's schema before anything is published.
  expect((await client.request({ url: `/transfers/${id}` })).statusCode).toBe(400)
  expect((await client.request({ url: `/nothing/${id}` })).statusCode).toBe(404)

  const res = await client.request({ url: '/metrics' })
  expect(res.statusCode).toBe(200)
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/)
  const m = parseExposition(res.body)
  expect(valueOf(m, 'switchyard_http_request_seconds_count', { method: 'GET', route: '/health', status: '200' })).toBe(1)
  expect(valueOf(m, 'switchyard_http_request_seconds_count', { method: 'GET', route: '/transfers/:id', status: '400' })).toBe(1)
  expect(valueOf(m, 'switchyard_http_request_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1)
  expect(res.body).not.toContain(id)
  expect(m.types.has('switchyard_process_cpu_user_seconds_total')).toBe(true)
})

test('the OpenAPI document lists GET /metrics with the other operational routes', async () => {
  const doc = (await client.request({ url: '/openapi.json' })).json()
  expect(doc.paths['/metrics'].get).toMatchObject({ summary: expect.stringMatching(/^Prometheus metrics/), tags: ['meta'] })
})
