'use strict'

// The pipelined HTTP/1.1 client (shared/src/http/client.js) against real
// servers on loopback: node:http ones like a participant's, and bare sockets
// where a test needs an answer node:http would not give (an interim answer,
// a chunked body cut anywhere, `Connection: close` mid-pipeline, garbage).

const http = require('node:http')
const net = require('node:net')
const { createPipelinedClient } = require('../../src/http/client')

/** @type {(() => Promise<void>)[]} */
let cleanups = []
afterEach(async () => {
  for (const c of cleanups.reverse()) await c()
  cleanups = []
})

/**
 * A node:http server that answers every request with its method, path and
 * body as JSON; it counts connections and the reads (data events) on them.
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, body: string) => void} [handle]
 */
async function httpServer (handle) {
  const seen = { connections: 0, reads: 0, requests: 0 }
  const server = http.createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (d) => { body += d })
    req.on('end', () => {
      seen.requests++
      if (handle) return handle(req, res, body)
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ method: req.method, url: req.url, body, source: req.headers['fspiop-source'] }))
    })
  })
  server.on('connection', (socket) => { seen.connections++; socket.on('data', () => { seen.reads++ }) })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  cleanups.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  return { url: `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}`, seen }
}

/**
 * A bare TCP server: `onRequests` hears each connection's socket and the
 * requests (heads and bodies as text) read on it so far.
 * @param {(socket: net.Socket, text: string) => void} onData
 */
async function rawServer (onData) {
  const sockets = new Set()
  let connections = 0
  const server = net.createServer((socket) => {
    connections++
    sockets.add(socket)
    let text = ''
    socket.on('data', (d) => { text += d.toString('latin1'); onData(socket, text) })
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  cleanups.push(() => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve(undefined)) }))
  return { url: `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}`, connections: () => connections }
}

/** Requests complete in `text` (each with a content-length, as the client sends). @param {string} text */
function countRequests (text) {
  return (text.match(/ HTTP\/1\.1\r\n/g) || []).length
}

/** @param {Parameters<typeof createPipelinedClient>[0]} opts */
function client (opts) {
  const c = createPipelinedClient(opts)
  cleanups.push(() => c.destroy())
  return c
}

test('a turn\'s requests to one origin go out pipelined on one connection, in one write, and each gets its own answer', async () => {
  const { url, seen } = await httpServer()
  const c = client({ timeoutMs: 5000, pipelining: 32 })
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    c.request({ url: `${url}/dfsp${i}/transfers/${i}?x=1`, method: 'PUT', headers: { 'content-type': 'application/json', 'fspiop-source': `dfsp${i}` }, body: JSON.stringify({ i, note: 'é' }), readBody: true })))
  expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200))
  answers.forEach((a, i) => expect(JSON.parse(/** @type {string} */ (a.body))).toEqual({ method: 'PUT', url: `/dfsp${i}/transfers/${i}?x=1`, body: JSON.stringify({ i, note: 'é' }), source: `dfsp${i}` }))
  expect(seen.connections).toBe(1)
  // Loopback hands the one write over in one read unless it is very large.
  expect(seen.reads).toBe(1)
  expect(c.connectionCounts()).toEqual({ [url]: 1 })
})

test('no more requests on a connection than its pipelining, and no more connections per origin than allowed', async () => {
  const { url, seen } = await httpServer()
  const c = client({ timeoutMs: 5000, pipelining: 4, connections: 2 })
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => c.request({ url: `${url}/x/${i}`, method: 'POST', body: String(i), readBody: true })))
  expect(answers.map((a) => JSON.parse(/** @type {string} */ (a.body)).body)).toEqual(Array.from({ length: 30 }, (_, i) => String(i)))
  expect(seen.connections).toBe(2)
  expect(seen.requests).toBe(30)
})

test('an idle connection is used again; a new one opens only while the others are busy', async () => {
  const { url, seen } = await httpServer()
  const c = client({ timeoutMs: 5000 })
  for (let i = 0; i < 5; i++) expect((await c.request({ url: `${url}/a`, method: 'GET' })).statusCode).toBe(200)
  expect(seen.connections).toBe(1)
})

test('answers framed by length, by chunks cut anywhere, with no body, and after an interim 100 are each read whole', async () => {
  const chunked = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nx-trailer: 1\r\n\r\n'
  const answers = [
    'HTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nabc',
    chunked,
    'HTTP/1.1 204 No Content\r\n\r\n',
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nok'
  ]
  let sent = false
  const { url } = await rawServer((socket, text) => {
    if (sent || countRequests(text) < 4) return
    sent = true
    // Every byte on its own, so that each parser state meets a cut.
    const all = answers.join('')
    let i = 0
    const drip = () => { if (i < all.length) { socket.write(all[i++]); setImmediate(drip) } }
    drip()
  })
  const c = client({ timeoutMs: 5000 })
  const got = await Promise.all(['/a', '/b', '/c', '/d'].map((p) => c.request({ url: url + p, method: 'GET', readBody: true })))
  expect(got).toEqual([
    { statusCode: 201, body: 'abc' },
    { statusCode: 200, body: 'hello, world' },
    { statusCode: 204, body: '' },
    { statusCode: 202, body: 'ok' }
  ])
})

test('after an answer with Connection: close the requests written behind it go again on a new connection', async () => {
  /** @type {string[]} */
  const served = []
  const { url, connections } = await rawServer((socket, text) => {
    const paths = [...text.matchAll(/[A-Z]+ (\S+) HTTP\/1\.1\r\n/g)].map((m) => m[1])
    if (paths.length === 0 || /** @type {any} */ (socket).answered) return
    if (connections() === 1) {
      // Only the first is answered; the server reads nothing behind it.
      /** @type {any} */ (socket).answered = true
      served.push(paths[0])
      socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')
      return
    }
    if (countRequests(text) < 2) return
    /** @type {any} */ (socket).answered = true
    served.push(...paths)
    socket.write(paths.map(() => 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n').join(''))
  })
  const c = client({ timeoutMs: 5000 })
  const got = await Promise.all(['/1', '/2', '/3'].map((p) => c.request({ url: url + p, method: 'POST', body: '{}' })))
  expect(got.map((g) => g.statusCode)).toEqual([200, 200, 200])
  expect(served).toEqual(['/1', '/2', '/3'])
  expect(connections()).toBe(2)
})

test('a request with no answer in time fails as a timeout, those behind it as closed with it, and the next request gets a new connection', async () => {
  let first = true
  const { url, connections } = await rawServer((socket, text) => {
    if (first) { if (countRequests(text) >= 2) first = false; return } // the first connection never answers
    if (countRequests(text) === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n')
  })
  const c = client({ timeoutMs: 150 })
  const [a, b] = await Promise.allSettled([c.request({ url: `${url}/a`, method: 'GET' }), c.request({ url: `${url}/b`, method: 'GET' })])
  expect(a).toMatchObject({ status: 'rejected', reason: { code: 'HTTP_TIMEOUT' } })
  expect(b).toMatchObject({ status: 'rejected', reason: { code: 'HTTP_CONNECTION_CLOSED' } })
  expect(await c.request({ url: `${url}/c`, method: 'GET' })).toEqual({ statusCode: 200 })
  expect(connections()).toBe(2)
})

test('a refused connection fails with the socket\'s code, a connection closed mid-answer and an unreadable answer each with their own', async () => {
  const gone = await rawServer(() => {})
  const port = new URL(gone.url).port
  await cleanups.pop()?.() // closed: nothing listens on the port now
  const c = client({ timeoutMs: 5000 })
  await expect(c.request({ url: `http://127.0.0.1:${port}/x`, method: 'GET' })).rejects.toMatchObject({ code: 'ECONNREFUSED' })

  const cut = await rawServer((socket) => { socket.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc') })
  await expect(c.request({ url: `${cut.url}/x`, method: 'GET' })).rejects.toMatchObject({ code: 'HTTP_CONNECTION_CLOSED' })

  const garbage = await rawServer((socket) => { socket.write('SMTP ready\r\n\r\n') })
  await expect(c.request({ url: `${garbage.url}/x`, method: 'GET' })).rejects.toMatchObject({ code: 'HTTP_PARSE_ERROR' })
})

test('an answer without length or chunks runs to the close, and is read whole', async () => {
  const { url } = await rawServer((socket) => { socket.end('HTTP/1.1 200 OK\r\n\r\nall of it') })
  const c = client({ timeoutMs: 5000 })
  expect(await c.request({ url, method: 'GET', readBody: true })).toEqual({ statusCode: 200, body: 'all of it' })
})

test('a header value with a line break is refused before anything is sent', async () => {
  const { url, seen } = await httpServer()
  const c = client({ timeoutMs: 5000 })
  await expect(c.request({ url, method: 'PUT', headers: { 'fspiop-source': 'a\r\nx-injected: 1' }, body: '{}' })).rejects.toMatchObject({ code: 'HTTP_INVALID_HEADER' })
  expect(seen.connections).toBe(0)
})

test('the client writes Host and Content-Length itself, whatever the caller passes', async () => {
  /** @type {http.IncomingHttpHeaders} */
  let headers = {}
  const { url } = await httpServer((req, res) => { headers = req.headers; res.end() })
  const c = client({ timeoutMs: 5000 })
  await c.request({ url: `${url}/p`, method: 'POST', headers: { host: 'elsewhere', 'Content-Length': '99', 'x-a': 'b' }, body: 'ééé' })
  expect(headers).toMatchObject({ host: new URL(url).host, 'content-length': '6', 'x-a': 'b' })
})

test('a connection is not used past the idle time its server announces (less a second)', async () => {
  const { url, seen } = await httpServer((req, res) => { res.setHeader('keep-alive', 'timeout=1'); res.end() })
  const c = client({ timeoutMs: 5000 })
  await c.request({ url, method: 'GET' })
  await new Promise((resolve) => setTimeout(resolve, 20))
  await c.request({ url, method: 'GET' })
  expect(seen.connections).toBe(2)
})

test('close() waits for the answers in flight, then ends its connections; later requests are refused', async () => {
  /** @type {http.ServerResponse[]} */
  const held = []
  let closed = 0
  const { url } = await httpServer((req, res) => { held.push(res); req.socket.once('close', () => { closed++ }) })
  const c = client({ timeoutMs: 5000 })
  const inFlight = c.request({ url, method: 'GET' })
  await new Promise((resolve) => setTimeout(resolve, 50))
  const closing = c.close()
  await expect(c.request({ url, method: 'GET' })).rejects.toMatchObject({ code: 'HTTP_CLIENT_CLOSED' })
  held[0].end()
  expect(await inFlight).toEqual({ statusCode: 200 })
  await closing
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect(closed).toBe(1)
})

test('destroy() fails what is queued or in flight', async () => {
  const { url } = await rawServer(() => {})
  const c = client({ timeoutMs: 5000 })
  const p = c.request({ url, method: 'GET' })
  await new Promise((resolve) => setTimeout(resolve, 50))
  await c.destroy()
  await expect(p).rejects.toMatchObject({ code: 'HTTP_CLIENT_CLOSED' })
})

test('close() after destroy() resolves at once, and twice is as once', async () => {
  const { url } = await httpServer()
  const c = client({ timeoutMs: 5000 })
  await c.request({ url, method: 'GET' })
  await c.destroy()
  await c.close()
  await Promise.all([c.close(), c.close()])
})

test('a kept-alive connection closed before a byte of its next answer: its PUT goes once more on a new connection, its POST fails', async () => {
  // Each connection answers its first request and closes, unanswered, at the next: a server that
  // closed an idle connection as the request went out.
  const answered = new WeakSet()
  const { url, connections } = await rawServer((socket, text) => {
    const n = countRequests(text)
    if (n === 1 && !answered.has(socket)) {
      answered.add(socket)
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n')
    } else if (n >= 2) {
      socket.destroy()
    }
  })
  const c = client({ timeoutMs: 5000 })
  expect(await c.request({ url: `${url}/a`, method: 'PUT', body: '{}' })).toEqual({ statusCode: 200 })
  // Sent again on a second connection, where it is that connection's first request, and answered.
  expect(await c.request({ url: `${url}/b`, method: 'PUT', body: '{}' })).toEqual({ statusCode: 200 })
  expect(connections()).toBe(2)
  await expect(c.request({ url: `${url}/c`, method: 'POST', body: '{}' })).rejects.toMatchObject({ code: expect.stringMatching(/^(HTTP_CONNECTION_CLOSED|ECONNRESET|EPIPE)$/) })
  expect(connections()).toBe(2)
})

test('a request the server closes on before any answer, on a new connection, is not sent again', async () => {
  const { url, connections } = await rawServer((socket) => { socket.destroy() })
  const c = client({ timeoutMs: 5000 })
  await expect(c.request({ url, method: 'PUT', body: '{}' })).rejects.toMatchObject({ code: expect.stringMatching(/^(HTTP_CONNECTION_CLOSED|ECONNRESET|EPIPE)$/) })
  expect(connections()).toBe(1)
})
