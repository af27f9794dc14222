'use strict'

// A rolling update from a participant's side: the api-adapter is told to stop
// while participants hold keep-alive connections to it. A request in flight
// is answered, and so is one sent on a pooled connection after the stop
// began — each with `Connection: close`, so the client's pool lets go —
// rather than meeting a reset; and the shutdown does not wait for idle
// connections longer than API_DRAIN_MS.

const http = require('node:http')
const pino = require('pino')
const { testConfig, unique } = require('../../../test/support/config')
const { settledWithin } = require('../../../shared/src/settled-within')
const { createLifecycle } = require('../../../shared/src/lifecycle')
const { createRuntime } = require('../../../shared/src/runtime')
const { createTopics } = require('../../../scripts/stack/index')
const { startApi } = require('../../src/server')
const { transferHeaders, prepareBody } = require('../support/transfers')

/** @param {Record<string, string>} [overrides] */
async function startApiOnly (overrides = {}) {
  const id = unique('sd')
  const config = testConfig({ KAFKA_TOPIC_PREFIX: `${id}.`, KAFKA_CLIENT_ID: id, API_PORT: '0', ADMIN_PORT: '0', ...overrides })
  await createTopics(config)
  const lifecycle = createLifecycle({ logger: pino({ level: 'silent' }), timeoutMs: config.SHUTDOWN_TIMEOUT_MS, exit: () => {} })
  const runtime = await createRuntime({ config, logger: pino({ level: 'silent' }), lifecycle })
  const { url } = await startApi(runtime)
  return { url: new URL(url), lifecycle }
}

/**
 * One request on `agent`; `body` is sent in two halves, with `between()`
 * awaited after the first.
 * @returns {Promise<{ status: number, connection: string | undefined, reusedSocket: boolean }>}
 */
function request (agent, url, { method = 'GET', path = '/health', headers = {}, body, between } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: url.hostname, port: url.port, method, path, headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, reusedSocket: req.reusedSocket }))
    })
    req.on('error', reject)
    if (body === undefined) return req.end()
    const half = Math.floor(body.length / 2)
    req.write(body.slice(0, half))
    Promise.resolve(between && between()).then(() => req.end(body.slice(half)), reject)
  })
}

// A drain and a shutdown budget far above the bounds below: a stop that waited
// for them instead of ending on its own would fail, however slow the machine.
const LONG = { API_DRAIN_MS: '60000', SHUTDOWN_TIMEOUT_MS: '300000' }

test('a request sent on a pooled connection after the stop began is answered, with Connection: close', async () => {
  const { url, lifecycle } = await startApiOnly(LONG)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    expect(await request(agent, url)).toMatchObject({ status: 200, connection: 'keep-alive' })
    const stopping = lifecycle.shutdown('rolling update')
    const second = await request(agent, url)
    expect(second).toEqual({ status: 200, connection: 'close', reusedSocket: true })
    // The client let go of its one connection, so the drain ends long before API_DRAIN_MS.
    expect(await settledWithin(stopping, 20000)).toBe(true)
  } finally {
    agent.destroy()
    await lifecycle.shutdown('test end')
  }
})

test('a prepare in flight when the stop begins is published and answered 202; the stop waits for it', async () => {
  const { url, lifecycle } = await startApiOnly(LONG)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    // The participant's connection is open (pooled) before the stop, as it would be.
    expect((await request(agent, url)).status).toBe(200)
    let stopping
    const body = JSON.stringify(prepareBody())
    const answer = await request(agent, url, {
      method: 'POST',
      path: '/transfers',
      headers: { ...transferHeaders(), 'content-length': String(Buffer.byteLength(body)) },
      body,
      between: () => { stopping = lifecycle.shutdown('rolling update') }
    })
    expect(answer).toMatchObject({ status: 202, connection: 'close' })
    expect(await settledWithin(stopping, 20000)).toBe(true)
  } finally {
    agent.destroy()
    await lifecycle.shutdown('test end')
  }
})

test('an idle connection a client keeps does not hold the stop longer than API_DRAIN_MS', async () => {
  const { url, lifecycle } = await startApiOnly({ API_DRAIN_MS: '300', SHUTDOWN_TIMEOUT_MS: '300000' })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    expect((await request(agent, url)).status).toBe(200)
    // The drain's bound, far below the budget's (a third of it closes what is left).
    expect(await settledWithin(lifecycle.shutdown('rolling update'), 20000)).toBe(true)
  } finally {
    agent.destroy()
    await lifecycle.shutdown('test end')
  }
})
