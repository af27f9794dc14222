'use strict'

// /metrics of the api-adapter started the way an operator starts it: request
// durations by route pattern next to the process's pool and runtime metrics.

const crypto = require('node:crypto')
const { startProcess } = require('../../../test/support/processes')
const { unique } = require('../../../test/support/config')
const { parseExposition, valueOf } = require('../../../shared/test/support/metrics-exposition')

test('GET /metrics: Prometheus text with request durations by route pattern, pool and process metrics', async () => {
  const run = unique('ma')
  const api = startProcess('api-adapter/src/server.js', [], {
    API_PORT: '0', ADMIN_PORT: '0', LOG_LEVEL: 'info', KAFKA_TOPIC_PREFIX: `${run}.`, KAFKA_CLIENT_ID: run
  })
  try {
    const [, url] = await api.waitForOutput(/"url":"(http:\/\/[^"]+)"/)
    const id = crypto.randomUUID()
    expect((await fetch(`${url}/health`)).status).toBe(200)
    // Without FSPIOP headers: refused by the route's schema, nothing published.
    expect((await fetch(`${url}/transfers/${id}`)).status).toBe(400)
    expect((await fetch(`${url}/transfers/${id}`)).status).toBe(400)
    expect((await fetch(`${url}/no/such/${id}`)).status).toBe(404)

    const res = await fetch(`${url}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    const m = parseExposition(text)
    expect(m.types.get('switchyard_http_request_seconds')).toBe('histogram')
    const count = (labels) => valueOf(m, 'switchyard_http_request_seconds_count', labels)
    expect(count({ method: 'GET', route: '/health', status: '200' })).toBe(1)
    expect(count({ method: 'GET', route: '/transfers/:id', status: '400' })).toBe(2)
    expect(count({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1)
    // Ids never become label values.
    expect(text).not.toContain(id)
    for (const state of ['used', 'free', 'pending']) expect(valueOf(m, 'switchyard_db_pool_connections', { state })).toBeGreaterThanOrEqual(0)
    expect(valueOf(m, 'switchyard_db_pool_connections', { state: 'free' }) + valueOf(m, 'switchyard_db_pool_connections', { state: 'used' })).toBeGreaterThan(0)
    expect(valueOf(m, 'switchyard_process_cpu_user_seconds_total')).toBeGreaterThan(0)
    expect(m.types.get('switchyard_nodejs_eventloop_lag_seconds')).toBe('gauge')
  } finally {
    expect(await api.stop()).toEqual({ code: 0, signal: null })
  }
})
