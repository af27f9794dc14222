'use strict'

// An HTTP/1.1 client that writes what is sent to one origin within one turn
// of the event loop together: a turn's requests go out pipelined, as many as
// a connection may carry, in one write per connection. Under load the
// notification handler sends its callbacks and the bench's generator its
// requests in bursts, one per stage cycle or schedule tick, and each write
// (and each wake-up of the reader it causes) costs more than the bytes in it:
// undici spends ~50 µs of CPU per request in such bursts, a socket written
// once per burst 15–20 µs (docs/performance.md, thirty-ninth round). undici
// cannot do this: it writes every request on its own, pipelined or not.
//
// What pipelining asks of a client (RFC 9112, section 9.3.2):
// - Answers come in the order the requests went out, so a request that gets
//   no answer in time costs its connection, and the requests written behind
//   it fail with it (HTTP_CONNECTION_CLOSED). Their server may have acted on
//   them; whether to send them again is the caller's decision (the
//   notification dispatcher retries; the bench counts them as failed).
// - An answer that says `Connection: close` means the server will not read
//   what was written behind it (RFC 9112, section 9.6): those requests are
//   sent again on another connection, unseen by the caller.
// - A connection the server closes when idle fails what was just written to
//   it. To make that rare, a connection is not used past the idle time the
//   server announces (`Keep-Alive: timeout=N`) less a margin; and when it
//   happens anyway (a connection that had answered before closes with not a
//   byte of the next answer), the idempotent requests on it (GET, HEAD, PUT,
//   DELETE, OPTIONS) are sent once more on another connection (section
//   9.3.1), the others fail.
//
// One timer per client, not one per request (a timer per request was a
// measurable share of the callbacks' garbage: docs/performance.md, fifth and
// sixth rounds): it sweeps expired requests, connects that take too long and
// idle connections a few times per timeout. Requests on a connection are
// answered in order and all wait the same time, so only the oldest can be
// the first to expire.

const net = require('node:net')
const tls = require('node:tls')
const { performance } = require('node:perf_hooks')
const { createPerTurn } = require('../per-turn')

/** Header names the client writes itself; a caller's are left out. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade'])
const UNSAFE_VALUE = /[\r\n\0]/
const MAX_HEAD_BYTES = 64 * 1024
/** Leaves a connection alone this long before the server's announced idle timeout. */
const IDLE_MARGIN_MS = 1000
/** Methods a request of which may be sent again when its connection went stale (RFC 9110, section 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'])
/** How a kept-alive connection that the server closed meanwhile fails. */
const STALE = new Set(['ECONNRESET', 'EPIPE', 'HTTP_CONNECTION_CLOSED'])

/**
 * @typedef {{ method: string, head: string, body: string, readBody: boolean, deadline: number, resent?: boolean,
 *   resolve: (r: { statusCode: number, body?: string }) => void, reject: (err: Error) => void }} Pending
 * @typedef {{ route: Route, inFlight: Pending[], usable: (at: number) => boolean, write: (batch: Pending[]) => void,
 *   sweep: (at: number) => void, end: () => void }} Connection
 * @typedef {{ key: string, secure: boolean, host: string, port: number, hostHeader: string,
 *   queue: Pending[], conns: Set<Connection> }} Route
 */

/** @param {string} message @param {string} code @param {Error} [cause] @returns {Error & { code: string }} */
function httpError (message, code, cause) {
  return Object.assign(new Error(message, cause ? { cause } : undefined), { code })
}

/**
 * @param {{ timeoutMs: number, pipelining?: number, connections?: number, keepAliveMs?: number,
 *   lookup?: (hostname: string, options: any, callback: (...args: any[]) => void) => void,
 *   tls?: import('node:tls').ConnectionOptions, now?: () => number }} opts
 *   timeoutMs: a request's whole exchange, from the call to its answer's last byte;
 *   pipelining: requests on one connection at a time; connections: per origin at most;
 *   keepAliveMs: an idle connection is closed after this (or the server's own idle time, if shorter);
 *   lookup: net.connect's host name lookup; tls: options for https origins (CA, client certificate)
 */
function createPipelinedClient ({ timeoutMs, pipelining = 16, connections = 64, keepAliveMs = 30000, lookup, tls: tlsOptions = {}, now = () => performance.now() }) {
  /** @type {Map<string, Route>} */
  const routes = new Map()
  /** Routes whose queues are dispatched at the end of this turn. */
  const turn = createPerTurn((/** @type {Route[]} */ queued) => { for (const route of new Set(queued)) dispatch(route) })
  let closing = false
  let drained = false
  /** @type {() => void} */
  let markDrained = () => {}
  /** What close() resolves with: every request answered (or failed) and every connection ended. */
  const drainedAll = new Promise((resolve) => { markDrained = () => resolve(undefined) })
  /** @type {NodeJS.Timeout | null} */
  let sweeper = null
  const tickMs = Math.max(5, Math.min(250, Math.floor(timeoutMs / 20)))

  /** @param {URL} url @returns {Route} */
  function routeOf (url) {
    const key = url.origin
    let route = routes.get(key)
    if (!route) {
      const secure = url.protocol === 'https:'
      if (!secure && url.protocol !== 'http:') throw httpError(`${url.protocol} is not http(s)`, 'HTTP_INVALID_URL')
      // URL keeps IPv6 literals in brackets; net.connect wants them bare.
      const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
      route = { key, secure, host, port: Number(url.port) || (secure ? 443 : 80), hostHeader: url.host, queue: [], conns: new Set() }
      routes.set(key, route)
    }
    return route
  }

  /**
   * Sends one request. Resolves with its status code (and body text, with
   * `readBody`) whatever the status; rejects when no answer came within the
   * timeout, the connection failed, or the answer could not be read.
   * @param {{ url: string | URL, method: string, headers?: Record<string, string>, body?: string | null, readBody?: boolean }} req
   * @returns {Promise<{ statusCode: number, body?: string }>}
   */
  function request ({ url, method, headers = {}, body = null, readBody = false }) {
    return new Promise((resolve, reject) => {
      if (closing) return reject(httpError('HTTP client closed', 'HTTP_CLIENT_CLOSED'))
      const target = typeof url === 'string' ? new URL(url) : url
      const route = routeOf(target)
      const text = body === null || body === undefined ? '' : body
      let head = `${method} ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${route.hostHeader}\r\n`
      for (const name in headers) {
        const value = headers[name]
        if (value === undefined || OWN_HEADERS.has(name.toLowerCase())) continue
        if (UNSAFE_VALUE.test(name) || UNSAFE_VALUE.test(value)) return reject(httpError(`header ${JSON.stringify(name)} holds a line break`, 'HTTP_INVALID_HEADER'))
        head += `${name}: ${value}\r\n`
      }
      // A body, even an empty one, is announced on methods that carry one,
      // so the server never waits for a body it cannot delimit.
      if (text || method === 'POST' || method === 'PUT' || method === 'PATCH') head += `content-length: ${Buffer.byteLength(text)}\r\n`
      head += '\r\n'
      route.queue.push({ method, head, body: text, readBody, deadline: now() + timeoutMs, resolve, reject })
      turn.push(route)
      startSweeper()
    })
  }

  /** Puts a route's queued requests on its connections, one write per connection. @param {Route} route */
  function dispatch (route) {
    while (route.queue.length) {
      /** @type {Connection | null} */
      let best = null
      const at = now()
      for (const conn of route.conns) {
        if (!conn.usable(at)) continue
        if (!best || conn.inFlight.length < best.inFlight.length) best = conn
      }
      if ((!best || best.inFlight.length > 0) && route.conns.size < connections) best = createConnection(route)
      if (!best || best.inFlight.length >= pipelining) return
      best.write(route.queue.splice(0, pipelining - best.inFlight.length))
    }
    if (closing) checkDrained()
  }

  /** @param {Route} route @returns {Connection} */
  function createConnection (route) {
    const opened = now()
    const options = { host: route.host, port: route.port, lookup: /** @type {any} */ (lookup), noDelay: true }
    const socket = route.secure
      ? tls.connect({ ...options, ...tlsOptions, servername: net.isIP(route.host) ? undefined : route.host, ALPNProtocols: ['http/1.1'] })
      : net.connect(options)
    socket.setNoDelay(true)
    /** @type {Pending[]} written, answers awaited in this order */
    const inFlight = []
    let connected = false
    let dead = false
    /** The server announced it closes after the answer being read, or after an answer that ran to the close. */
    let lastAnswer = false
    /** Answers read whole on this connection. */
    let answered = 0
    /** Whether any byte of the answer being read has arrived. */
    let heard = false
    let idleSince = opened
    let idleLimit = keepAliveMs

    // The answer being read.
    /** @type {'head' | 'body' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'to-close'} */
    let state = 'head'
    /** @type {Buffer | null} bytes not yet parsed */
    let rest = null
    let status = 0
    let remaining = 0
    /** @type {Buffer[]} */
    let bodyParts = []

    const conn = {
      route,
      inFlight,
      /** Whether a request may be written now. @param {number} at */
      usable (at) {
        if (dead || lastAnswer || inFlight.length >= pipelining) return false
        if (inFlight.length === 0 && connected && at - idleSince > idleLimit) { fail(null); return false }
        return true
      },
      /** @param {Pending[]} batch */
      write (batch) {
        let out = ''
        for (const p of batch) { out += p.head + p.body; inFlight.push(p) }
        socket.write(out)
      },
      /** Expires what has waited too long; closes the connection when idle too long. @param {number} at */
      sweep (at) {
        if (dead) return
        if (!connected && at - opened > timeoutMs) return fail(httpError(`no connection to ${route.key} within ${timeoutMs} ms`, 'HTTP_CONNECT_TIMEOUT'))
        if (inFlight.length && inFlight[0].deadline <= at) return fail(httpError(`no answer within ${timeoutMs} ms`, 'HTTP_TIMEOUT'))
        if (!inFlight.length && connected && at - idleSince > idleLimit) fail(null)
      },
      /** Ends the connection; nothing may be waiting on it any more. */
      end () { fail(null) }
    }

    socket.on('connect', () => { connected = true; idleSince = now() })
    socket.on('secureConnect', () => { connected = true; idleSince = now() })
    socket.on('data', (/** @type {Buffer} */ chunk) => {
      if (dead) return
      try {
        parse(chunk)
      } catch (err) {
        fail(httpError(`unreadable answer from ${route.key}: ${/** @type {Error} */ (err).message}`, 'HTTP_PARSE_ERROR'))
      }
    })
    socket.on('end', () => {
      if (dead) return
      if (state === 'to-close' && inFlight.length) complete()
      fail(httpError(`${route.key} closed the connection before answering`, 'HTTP_CONNECTION_CLOSED'))
    })
    socket.on('error', (err) => fail(err))
    socket.on('close', () => fail(httpError(`connection to ${route.key} closed`, 'HTTP_CONNECTION_CLOSED')))
    route.conns.add(conn)

    /**
     * Fails the request being answered with `err` and those behind it as
     * closed with it, and drops the connection. With `err` null (an idle or
     * graceful close) nothing is waiting.
     * @param {Error | null} err
     */
    function fail (err) {
      if (dead) return
      dead = true
      route.conns.delete(conn)
      socket.destroy()
      /** @type {Pending[]} */
      const waiting = []
      // A kept-alive connection the server had closed: nothing of these was
      // answered, and the idempotent ones go once more, first, elsewhere.
      const stale = err !== null && answered > 0 && !heard && STALE.has(/** @type {any} */ (err).code)
      /** @type {Pending[]} */
      const again = []
      for (const p of inFlight.splice(0)) {
        if (stale && IDEMPOTENT.has(p.method) && !p.resent) {
          p.resent = true
          again.push(p)
        } else {
          waiting.push(p)
        }
      }
      route.queue.unshift(...again)
      if (waiting.length) {
        const cause = err || httpError(`connection to ${route.key} closed`, 'HTTP_CONNECTION_CLOSED')
        waiting[0].reject(cause)
        const behind = httpError(`connection to ${route.key} closed before this request was answered (${cause.message})`, 'HTTP_CONNECTION_CLOSED', cause)
        for (let i = 1; i < waiting.length; i++) waiting[i].reject(behind)
      }
      if (route.queue.length) turn.push(route)
      if (closing) checkDrained()
    }

    /** The answer being read is complete: hand it to its request. */
    function complete () {
      const p = /** @type {Pending} */ (inFlight.shift())
      p.resolve(p.readBody ? { statusCode: status, body: Buffer.concat(bodyParts).toString('utf8') } : { statusCode: status })
      bodyParts = []
      state = 'head'
      answered++
      heard = false
      if (!inFlight.length) idleSince = now()
      if (lastAnswer) {
        // RFC 9112, section 9.6: what was written behind this answer was not
        // read; it goes again, first, on another connection.
        const unread = inFlight.splice(0)
        route.queue.unshift(...unread)
        fail(null)
      } else if (route.queue.length) {
        turn.push(route)
      } else if (closing) {
        checkDrained()
      }
    }

    /** @param {Buffer} chunk */
    function parse (chunk) {
      const buf = rest ? Buffer.concat([rest, chunk]) : chunk
      rest = null
      let pos = 0
      /** The text from `pos` to `sep`, moving `pos` past it; null until all of it has arrived. @param {string} sep @param {string} what */
      const upTo = (sep, what) => {
        const end = buf.indexOf(sep, pos, 'latin1')
        if (end < 0) {
          if (buf.length - pos > MAX_HEAD_BYTES) throw new Error(`${what} too long`)
          return null
        }
        const text = buf.toString('latin1', pos, end)
        pos = end + sep.length
        return text
      }
      // complete() may end the connection (a last answer): `dead` then stops the loop.
      while (pos < buf.length) {
        if (dead) break
        if (!inFlight.length) throw new Error('an answer to no request')
        heard = true
        const p = inFlight[0]
        if (state === 'head') {
          const head = upTo('\r\n\r\n', 'answer head')
          if (head === null) break
          const lines = head.split('\r\n')
          const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0])
          if (!m) throw new Error(`bad status line ${JSON.stringify(lines[0].slice(0, 80))}`)
          status = Number(m[2])
          let length = -1
          let chunked = false
          let keepAlive = m[1] === '1'
          for (let i = 1; i < lines.length; i++) {
            const line = lines[i]
            const colon = line.indexOf(':')
            if (colon <= 0) throw new Error('bad header line')
            const name = line.slice(0, colon).trim().toLowerCase()
            const value = line.slice(colon + 1).trim()
            if (name === 'content-length') {
              if (!/^\d+$/.test(value) || (length >= 0 && Number(value) !== length)) throw new Error('bad content-length')
              length = Number(value)
            } else if (name === 'transfer-encoding') {
              chunked = value.toLowerCase().split(',').pop()?.trim() === 'chunked'
            } else if (name === 'connection') {
              const tokens = value.toLowerCase().split(',').map((t) => t.trim())
              if (tokens.includes('close')) keepAlive = false
              else if (tokens.includes('keep-alive')) keepAlive = true
            } else if (name === 'keep-alive') {
              const t = /timeout=(\d+)/i.exec(value)
              if (t) idleLimit = Math.min(keepAliveMs, Math.max(0, Number(t[1]) * 1000 - IDLE_MARGIN_MS))
            }
          }
          if (status < 200) {
            if (status === 101) throw new Error('the server switched protocols')
            continue // 1xx: an interim answer; the final one follows
          }
          if (!keepAlive) lastAnswer = true
          if (p.method === 'HEAD' || status === 204 || status === 304) { complete(); continue }
          if (chunked) { state = 'chunk-size'; continue }
          if (length >= 0) {
            if (length === 0) { complete(); continue }
            remaining = length
            state = 'body'
            continue
          }
          lastAnswer = true
          state = 'to-close'
          continue
        }
        if (state === 'body' || state === 'chunk-data' || state === 'to-close') {
          const take = state === 'to-close' ? buf.length - pos : Math.min(remaining, buf.length - pos)
          if (p.readBody) bodyParts.push(buf.subarray(pos, pos + take))
          pos += take
          if (state === 'to-close') break
          remaining -= take
          if (remaining === 0) {
            if (state === 'body') complete()
            else state = 'chunk-end'
          }
          continue
        }
        // Chunked framing: a size line, its data and CRLF, …, a zero size, trailers, an empty line.
        const line = upTo('\r\n', 'chunk line')
        if (line === null) break
        if (state === 'chunk-end') {
          if (line !== '') throw new Error('chunk not followed by CRLF')
          state = 'chunk-size'
        } else if (state === 'chunk-size') {
          const size = line.split(';')[0].trim()
          if (!/^[0-9a-fA-F]{1,8}$/.test(size)) throw new Error('bad chunk size')
          remaining = parseInt(size, 16)
          state = remaining === 0 ? 'trailers' : 'chunk-data'
        } else if (line === '') {
          complete() // trailers: ignored up to the empty line
        }
      }
      if (pos < buf.length && !dead) rest = buf.subarray(pos)
    }

    return conn
  }

  function sweep () {
    const at = now()
    let any = false
    for (const route of routes.values()) {
      while (route.queue.length && route.queue[0].deadline <= at) {
        /** @type {Pending} */ (route.queue.shift()).reject(httpError(`no connection to ${route.key} free within ${timeoutMs} ms`, 'HTTP_TIMEOUT'))
      }
      for (const conn of route.conns) conn.sweep(at)
      if (route.queue.length || route.conns.size) any = true
    }
    if (!any) stopSweeper()
    if (closing) checkDrained()
  }

  function startSweeper () {
    if (sweeper) return
    sweeper = setInterval(sweep, tickMs)
    sweeper.unref()
  }

  function stopSweeper () {
    if (sweeper) clearInterval(sweeper)
    sweeper = null
  }

  /** Once closing and nothing is left to answer: ends every connection and resolves close(). */
  function checkDrained () {
    if (drained) return
    for (const route of routes.values()) {
      if (route.queue.length) return
      for (const conn of route.conns) { if (conn.inFlight.length) return }
    }
    drained = true
    for (const route of routes.values()) for (const conn of [...route.conns]) conn.end()
    stopSweeper()
    markDrained()
  }

  /** Takes no more requests, waits for those queued and in flight, then closes every connection. @returns {Promise<void>} */
  function close () {
    closing = true
    checkDrained()
    return drainedAll
  }

  /** Fails every request queued or in flight and closes every connection. @returns {Promise<void>} */
  async function destroy () {
    closing = true
    const err = httpError('HTTP client destroyed', 'HTTP_CLIENT_CLOSED')
    for (const route of routes.values()) {
      for (const p of route.queue.splice(0)) p.reject(err)
      for (const conn of route.conns) for (const p of conn.inFlight.splice(0)) p.reject(err)
    }
    checkDrained()
  }

  /** Connections open per origin, for tests and metrics. */
  function connectionCounts () {
    /** @type {Record<string, number>} */
    const out = {}
    for (const route of routes.values()) if (route.conns.size) out[route.key] = route.conns.size
    return out
  }

  return { request, close, destroy, connectionCounts }
}

module.exports = { createPipelinedClient }
