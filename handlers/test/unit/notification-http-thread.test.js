'use strict'

// The callback client on its own thread (CALLBACK_THREAD) answers as the
// in-process one does: each request its own status code or error, timeouts
// and refused connections with the codes the dispatcher classifies; close()
// lets requests in flight finish, destroy() fails them, and a thread that
// dies fails what it held and is replaced.

const http = require('node:http')
const path = require('node:path')
const { createThreadedHttpClient } = require('../../src/notification/http-thread')
const { callbackOutcome } = require('../../src/notification/deliver')

/** @type {http.Server} */
let server
let base = ''
/** @type {{ method: string, url: string, headers: http.IncomingHttpHeaders, body: string }[]} */
const received = []

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      received.push({ method: String(req.method), url: String(req.url), headers: req.headers, body })
      const url = String(req.url)
      if (url.startsWith('/silent')) return // never answers
      const status = /^\/status\/(\d{3})$/.exec(url)
      const delay = url === '/slow' ? 300 : 0
      setTimeout(() => { res.writeHead(status ? Number(status[1]) : 200); res.end() }, delay)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  base = `http://127.0.0.1:${/** @type {any} */ (server.address()).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

/** @type {ReturnType<typeof createThreadedHttpClient>[]} */
const clients = []
afterEach(async () => { await Promise.all(clients.splice(0).map((c) => c.destroy())) })
/** @param {Parameters<typeof createThreadedHttpClient>[0]} opts */
const client = (opts) => { const c = createThreadedHttpClient(opts); clients.push(c); return c }

/** @param {ReturnType<typeof createThreadedHttpClient>} via @param {string} p */
const put = (via, p, body = '{}') => via.send({ url: `${base}${p}`, method: 'PUT', headers: { 'content-type': 'application/json', 'fspiop-source': 'payee' }, body })

test('each request gets its own status code, sent as asked', async () => {
  const c = client({ timeoutMs: 30000 })
  const codes = Array.from({ length: 120 }, (_, i) => [200, 202, 400, 404, 500, 503][i % 6])
  const results = await Promise.all(codes.map((code, i) => put(c, `/status/${code}`, JSON.stringify({ i }))))
  expect(results).toEqual(codes.map((statusCode) => ({ statusCode })))
  const mine = received.filter((r) => r.body.startsWith('{"i":'))
  expect(mine).toHaveLength(120)
  expect(mine[0]).toMatchObject({ method: 'PUT', headers: { 'content-type': 'application/json', 'fspiop-source': 'payee' } })
  expect(new Set(mine.map((r) => r.body)).size).toBe(120)
})

test.each([
  ['pipelined', 'HTTP_TIMEOUT'],
  ['undici', 'UND_ERR_ABORTED']
])('no answer within the timeout rejects with CALLBACK_TIMEOUT, a timeout outcome (%s client)', async (kind, cause) => {
  const c = client({ timeoutMs: 300, kind: /** @type {'pipelined' | 'undici'} */ (kind) })
  const err = await put(c, '/silent').catch((e) => e)
  expect(err).toMatchObject({ code: 'CALLBACK_TIMEOUT', message: 'no answer within 300 ms', cause: { code: cause } })
  expect(callbackOutcome(null, err)).toBe('timeout')
})

test('a refused connection rejects with ECONNREFUSED, a network error', async () => {
  const closed = http.createServer()
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', () => resolve(undefined)))
  const port = /** @type {any} */ (closed.address()).port
  await new Promise((resolve) => closed.close(resolve))
  const c = client({ timeoutMs: 30000 })
  const err = await c.send({ url: `http://127.0.0.1:${port}/x`, method: 'PUT', headers: {}, body: '{}' }).catch((e) => e)
  expect(err).toMatchObject({ code: 'ECONNREFUSED' })
  expect(callbackOutcome(null, err)).toBe('network_error')
})

test('close() lets requests in flight finish; nothing is sent after it', async () => {
  const c = client({ timeoutMs: 30000 })
  const slow = put(c, '/slow')
  await new Promise((resolve) => setTimeout(resolve, 50))
  await c.close()
  await expect(slow).resolves.toEqual({ statusCode: 200 })
  await expect(put(c, '/status/200')).rejects.toMatchObject({ code: 'CALLBACK_THREAD_EXIT' })
})

test('destroy() fails requests in flight', async () => {
  const c = client({ timeoutMs: 30000 })
  const silent = put(c, '/silent')
  await new Promise((resolve) => setTimeout(resolve, 50))
  await c.destroy()
  await expect(silent).rejects.toMatchObject({ code: 'CALLBACK_THREAD_EXIT' })
})

test('a thread that dies fails the requests it held, and the next request gets a new one', async () => {
  const c = client({ timeoutMs: 30000, entry: path.join(__dirname, 'fixtures', 'dying-http-thread.js') })
  await expect(put(c, '/status/200')).resolves.toEqual({ statusCode: 200 })
  const held = put(c, '/silent')
  await new Promise((resolve) => setTimeout(resolve, 50))
  const err = await put(c, '/die').catch((e) => e)
  expect(err).toMatchObject({ code: 'CALLBACK_THREAD_EXIT', message: 'callback thread stopped (exit code 3)' })
  expect(callbackOutcome(null, err)).toBe('network_error')
  await expect(held).rejects.toMatchObject({ code: 'CALLBACK_THREAD_EXIT' })
  await expect(put(c, '/status/201')).resolves.toEqual({ statusCode: 201 })
})

test('a request made while its thread was dying fails with it and is never sent', async () => {
  const c = client({ timeoutMs: 30000, entry: path.join(__dirname, 'fixtures', 'dying-http-thread.js') })
  await expect(put(c, '/status/200')).resolves.toEqual({ statusCode: 200 })
  const dying = put(c, '/silent/die-soon')
  dying.catch(() => {}) // awaited below, after the thread is gone
  await new Promise((resolve) => setTimeout(resolve, 20))
  // The thread exits while this event loop is busy: the request below is
  // made before the exit is seen.
  const until = Date.now() + 400
  while (Date.now() < until) { /* busy */ }
  const late = put(c, '/status/200', '{"late":true}').catch((e) => e)
  expect(await dying.catch((e) => e)).toMatchObject({ code: 'CALLBACK_THREAD_EXIT', message: 'callback thread stopped (exit code 4)' })
  expect(await late).toMatchObject({ code: 'CALLBACK_THREAD_EXIT' })
  await expect(put(c, '/status/202')).resolves.toEqual({ statusCode: 202 })
  await new Promise((resolve) => setTimeout(resolve, 200))
  expect(received.filter((r) => r.body === '{"late":true}')).toEqual([])
})
