'use strict'

// GET /readyz, the readiness probe's: the participant API needs Kafka only
// (a request is answered once its command is published), so MySQL away
// leaves the pod ready while /health reports it. The check is /health's own
// (shared/src/health.js), around a broker and a database that answer as told.

const { buildApp } = require('../../src/app')
const { createHealthCheck } = require('../../../shared/src/health')
const { testConfig } = require('../../../test/support/config')
const { createLogger } = require('../../../shared/src/logger')
const { listen } = require('../support/http')

const config = testConfig()

/**
 * An app whose health check asks a fake broker and database, recording
 * which of them each request asked.
 * @param {{ broker: 'OK' | 'DOWN', datastore: 'OK' | 'DOWN' }} up
 */
async function appWith (up) {
  /** @type {string[]} */
  const asked = []
  const answer = async (/** @type {'broker' | 'datastore'} */ name) => {
    asked.push(name)
    if (up[name] === 'DOWN') throw new Error(`${name} unreachable`)
  }
  const admin = { describeCluster: () => answer('broker') }
  const db = { raw: () => answer('datastore') }
  const health = createHealthCheck({ db: /** @type {any} */ (db), admin: /** @type {any} */ (admin), timeoutMs: 200 })
  const app = buildApp({ config, logger: createLogger(config), health })
  const client = await listen(app)
  /** @param {string} url */
  const get = async (url) => {
    asked.length = 0
    const res = await client.request({ url })
    return { statusCode: res.statusCode, body: res.json(), asked: [...asked] }
  }
  return { app, get }
}

test('MySQL away: /readyz is 200 and asks the broker only, while /health is 502 naming the datastore', async () => {
  const { app, get } = await appWith({ broker: 'OK', datastore: 'DOWN' })
  try {
    const ready = await get('/readyz')
    expect(ready).toEqual({
      statusCode: 200,
      body: { status: 'OK', uptime: expect.any(Number), startTime: expect.any(String), versionNumber: expect.any(String), services: [{ name: 'broker', status: 'OK' }] },
      asked: ['broker']
    })
    const health = await get('/health')
    expect([health.statusCode, health.body.status, health.body.services]).toEqual([502, 'DOWN', [{ name: 'broker', status: 'OK' }, { name: 'datastore', status: 'DOWN' }]])
    expect((await get('/livez')).statusCode).toBe(200)
  } finally {
    await app.close()
  }
})

test('Kafka away: /readyz is 503 with the broker DOWN (the participant API answers 503 2003 meanwhile)', async () => {
  const { app, get } = await appWith({ broker: 'DOWN', datastore: 'OK' })
  try {
    const ready = await get('/readyz')
    expect([ready.statusCode, ready.body.status, ready.body.services, ready.asked]).toEqual([503, 'DOWN', [{ name: 'broker', status: 'DOWN' }], ['broker']])
    expect((await get('/health')).statusCode).toBe(502)
  } finally {
    await app.close()
  }
})

test('both up: /readyz and /health are 200', async () => {
  const { app, get } = await appWith({ broker: 'OK', datastore: 'OK' })
  try {
    expect((await get('/readyz')).statusCode).toBe(200)
    const health = await get('/health')
    expect([health.statusCode, health.asked.sort()]).toEqual([200, ['broker', 'datastore']])
  } finally {
    await app.close()
  }
})
