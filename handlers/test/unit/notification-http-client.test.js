'use strict'

// The callback HTTP clients' deadlines, over the whole exchange, and no
// timers left behind by answered requests — at thousands of callbacks a
// second, timers that outlive their requests fill the old generation. The
// pipelined client has one timer per client; undici's, one per request, gone
// with the exchange.

const http = require('node:http')
const asyncHooks = require('node:async_hooks')
const { createHttpClient } = require('../../src/notification/deliver')

/** @type {http.Server} */
let server
let base = ''
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/silent') return // never answers
    req.resume()
    req.on('end', () => { res.writeHead(req.url === '/missing' ? 404 : 200); res.end() })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  base = `http://127.0.0.1:${/** @type {any} */ (server.address()).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe.each([
  ['pipelined', 'HTTP_TIMEOUT'],
  ['undici', 'UND_ERR_ABORTED']
])('the %s client', (kind, cause) => {
  /** Answers must come in time however slow the machine. @type {ReturnType<typeof createHttpClient>} */
  let client
  /** For the request that never gets an answer. @type {ReturnType<typeof createHttpClient>} */
  let hasty
  beforeAll(() => {
    client = createHttpClient({ timeoutMs: 30000, kind: /** @type {'pipelined' | 'undici'} */ (kind) })
    hasty = createHttpClient({ timeoutMs: 300, kind: /** @type {'pipelined' | 'undici'} */ (kind) })
  })
  afterAll(async () => {
    await client.destroy()
    await hasty.destroy()
  })

  const put = (/** @type {string} */ path, via = client) => via.send({ url: `${base}${path}`, method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' })

  test('answers resolve with their status code, whatever it is', async () => {
    await expect(put('/ok')).resolves.toEqual({ statusCode: 200 })
    await expect(put('/missing')).resolves.toEqual({ statusCode: 404 })
  })

  test('no answer within the timeout rejects with CALLBACK_TIMEOUT', async () => {
    const started = Date.now()
    // Ended by the client's own deadline (undici's: the request aborted), not
    // left to undici's coarser headers timer.
    await expect(put('/silent', hasty)).rejects.toMatchObject({ code: 'CALLBACK_TIMEOUT', message: 'no answer within 300 ms', cause: { code: cause } })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  test('an answered request leaves none of the timers it started behind', async () => {
    await put('/ok') // the connection and undici's own timers exist before counting
    /** Timers started by send() itself (not the test server's keep-alive timers), by the stack that started them. @type {Map<number, string>} */
    const live = new Map()
    const hook = asyncHooks.createHook({
      init (id, type) {
        const stack = type === 'Timeout' ? String(new Error().stack) : ''
        if (stack.includes('notification/deliver.js') || stack.includes('http/client.js')) live.set(id, stack)
      },
      destroy (id) { live.delete(id) }
    }).enable()
    try {
      for (let i = 0; i < 20; i++) await put('/ok')
      await new Promise((resolve) => setImmediate(resolve))
    } finally {
      hook.disable()
    }
    expect([...live.values()]).toEqual([])
  })
})
