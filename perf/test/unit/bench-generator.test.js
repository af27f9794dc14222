'use strict'

const http = require('node:http')
const crypto = require('node:crypto')
const { startSimulators } = require('../../src/load/fast-participants')
const { startNullSwitch } = require('../../src/bench/null-switch')
const { runOpenStep, runSequential } = require('../../src/bench/generator')
const { createAgent, send, targetOf } = require('../../src/load/http-client')

// The generator, the simulated participants and the null switch in one
// process, over real loopback HTTP: the whole of a transfer's exchanges as
// the bench drives them, without Kafka or a database.
describe('load generator against the null switch', () => {
  /** @type {Awaited<ReturnType<typeof startSimulators>>} */
  let sim
  /** @type {Awaited<ReturnType<typeof startNullSwitch>>} */
  let nullSwitch

  beforeAll(async () => {
    sim = await startSimulators({ prefix: 't', payers: 2, payees: 2, apiUrl: 'http://127.0.0.1:1' })
    nullSwitch = await startNullSwitch({ callbacks: sim.base })
    sim.setApi(nullSwitch.url)
  })
  afterAll(async () => {
    await nullSwitch.close()
    await sim.close()
  })

  test('sequential transfers each reach the payer as COMMITTED, with the payee fulfilling the condition', async () => {
    const r = await runSequential({ sim, apiUrl: nullSwitch.url, count: 20 })
    expect(r).toMatchObject({ count: 20, failed: 0, accepted: 20, committedCallbacks: 20 })
    expect(r.latency.count).toBe(20)
    expect(nullSwitch.stats.badFulfilments).toBe(0)
  })

  test('concurrent senders form a closed loop: never more transfers in flight than senders, every one committed', async () => {
    let inFlight = 0
    let most = 0
    // The simulators as the generator sees them, counting the transfers between expect and final callback.
    const counted = {
      ...sim,
      expect: (/** @type {string} */ id, /** @type {string} */ fulfilment) => { most = Math.max(most, ++inFlight); sim.expect(id, fulfilment) },
      onFinal: (/** @type {Function} */ fn) => sim.onFinal((/** @type {any[]} */ ...args) => { inFlight--; fn(...args) })
    }
    const r = await runSequential({ sim: counted, apiUrl: nullSwitch.url, count: 40, concurrency: 4 })
    expect(r).toMatchObject({ count: 40, failed: 0, accepted: 40, committedCallbacks: 40 })
    expect(new Set(r.ids).size).toBe(40)
    expect(most).toBe(4)
    expect(inFlight).toBe(0)
  })

  test('an open step sends on schedule and every transfer finishes committed', async () => {
    const r = await runOpenStep({ sim, apiUrl: nullSwitch.url, rate: 200, durationMs: 500 })
    expect(r.scheduled).toBe(100)
    expect(r).toMatchObject({ sent: 100, accepted: 100, refused: 0, finished: 100, unanswered: 0, committedCallbacks: 100, stoppedEarly: false })
    expect(r.samples.every((s) => s.ok && s.latency !== null && s.latency >= 0)).toBe(true)
    expect(sim.stats.fulfilsSent).toBeGreaterThanOrEqual(100)
    expect(sim.stats.fulfilErrors).toBe(0)
  })

  test('a payee that rejects makes the payer see an error, not a commit', async () => {
    const rejecting = await startSimulators({ prefix: 'x', payers: 1, payees: 1, apiUrl: nullSwitch.url, failRate: 1 })
    const other = await startNullSwitch({ callbacks: rejecting.base })
    rejecting.setApi(other.url)
    try {
      const r = await runOpenStep({ sim: rejecting, apiUrl: other.url, rate: 100, durationMs: 100 })
      expect(r.finished).toBe(r.sent)
      expect(r.committedCallbacks).toBe(0)
      expect(r.callbackErrors).toEqual({ 5101: r.sent })
    } finally {
      await other.close()
      await rejecting.close()
    }
  })
})

describe.each(['pipelined', 'undici'])('the load\'s %s http client', (kind) => {
  /** @type {http.Server} */
  let server
  /** @type {string} */
  let url
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks = []
      req.on('data', (d) => chunks.push(d))
      req.on('end', () => {
        if (req.url === '/slow') return // never answers
        const body = Buffer.concat(chunks).toString('utf8')
        res.writeHead(201, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url} ${req.headers['x-probe']} ${body}`)
      })
    })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
    url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(() => resolve(undefined)))
  })

  test('sends method, path, headers and body, and returns the status and body', async () => {
    const agent = createAgent({ maxSockets: 2, kind })
    try {
      const r = await send(agent, targetOf(`${url}/ignored?x=1`), 'PUT', '/a/b', { 'x-probe': 'p1' }, '{"k":1}')
      expect(r).toEqual({ status: 201, body: 'PUT /a/b p1 {"k":1}' })
    } finally {
      await agent.destroy()
    }
  })

  test('rejects when no answer comes in time', async () => {
    const agent = createAgent({ timeoutMs: 200, kind })
    try {
      await expect(send(agent, targetOf(url), 'GET', '/slow', {}, undefined)).rejects.toThrow(/timeout|no answer within 200 ms/i)
    } finally {
      await agent.destroy()
    }
  })

  test('rejects when nothing listens', async () => {
    const agent = createAgent({ kind })
    const port = await new Promise((resolve) => {
      const s = http.createServer().listen(0, '127.0.0.1', () => { const p = /** @type {import('node:net').AddressInfo} */ (s.address()).port; s.close(() => resolve(p)) })
    })
    try {
      await expect(send(agent, targetOf(`http://127.0.0.1:${port}`), 'GET', '/', {})).rejects.toMatchObject({ code: 'ECONNREFUSED' })
    } finally {
      await agent.destroy()
    }
  })
})

test('the null switch refuses a fulfilment that does not match the condition', async () => {
  // A payee that answers with the wrong preimage: the payer must get 3100, not a commit.
  const sim = await startSimulators({ prefix: 'w', payers: 1, payees: 1, apiUrl: 'http://127.0.0.1:1' })
  const ns = await startNullSwitch({ callbacks: sim.base })
  sim.setApi(ns.url)
  const wrong = sim.expect
  sim.expect = (id) => wrong(id, crypto.randomBytes(32).toString('base64url'))
  try {
    const r = await runOpenStep({ sim, apiUrl: ns.url, rate: 100, durationMs: 100 })
    expect(r.finished).toBe(r.sent)
    expect(r.callbackErrors).toEqual({ 3100: r.sent })
    expect(ns.stats.badFulfilments).toBe(r.sent)
  } finally {
    await ns.close()
    await sim.close()
  }
})
