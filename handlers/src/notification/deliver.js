'use strict'

// HTTP for callbacks, with connect and answer timeouts of CALLBACK_TIMEOUT_MS
// over the whole request. Two clients (CALLBACK_HTTP_CLIENT):
// - `pipelined` (the default): the switch's own HTTP/1.1 client
//   (@switchyard/shared/http-client), which writes the callbacks due to one
//   host in one turn together, up to CALLBACK_PIPELINING per keep-alive
//   connection, in one write each. Under load the dispatcher starts a
//   notification batch's callbacks in one turn, and a write (with the
//   participant's wake-up it causes) costs more than its bytes
//   (docs/performance.md, fortieth round). One timer per client, not one per
//   request.
// - `undici`: one keep-alive undici Pool per origin, one request per
//   connection at a time, each written on its own, with one deadline per
//   request (undici rounds timeouts of a second or more to its coarse timer
//   tick, and connect + headers could otherwise add up to twice it).
// Host names are resolved once per host and cached (PERF.md: DNS lookups on
// the hot path block libuv's small thread pool); keep-alive means new
// connections — and lookups — are rare anyway. A connection failure drops
// the cached address, so a participant that moved is found again on the next
// attempt.

const dns = require('node:dns')
const { EventEmitter } = require('node:events')
const { Pool } = require('undici')
const { createPipelinedClient } = require('@switchyard/shared/http-client')

const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'HTTP_CONNECT_TIMEOUT'])
// A participant that does not answer in time, whichever of undici's timers fired first.
const TIMEOUT_ERRORS = new Set(['CALLBACK_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/**
 * A `lookup` for net.connect that resolves each host name once per `ttlMs`
 * and shares one resolution among concurrent connects.
 * @param {{ resolve?: (host: string, opts: { all: true }, cb: (err: any, addresses: { address: string, family: number }[]) => void) => void,
 *   ttlMs?: number, now?: () => number }} [opts]
 */
function createCachedLookup ({ resolve = dns.lookup, ttlMs = 300000, now = Date.now } = {}) {
  /** @type {Map<string, { at: number, addresses: { address: string, family: number }[] }>} */
  const cache = new Map()
  /** @type {Map<string, ((err: any, addresses?: { address: string, family: number }[]) => void)[]>} */
  const waiting = new Map()

  /** @param {string} hostname @param {any} options @param {Function} [callback] */
  function lookup (hostname, options, callback) {
    if (typeof options === 'function') { callback = options; options = {} }
    const opts = options || {}
    /** @param {any} err @param {{ address: string, family: number }[]} [addresses] */
    const reply = (err, addresses) => {
      if (err) return callback(err)
      const list = opts.family === 4 || opts.family === 6 ? addresses.filter((a) => a.family === opts.family) : addresses
      if (!list.length) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }))
      if (opts.all) return callback(null, list)
      callback(null, list[0].address, list[0].family)
    }
    const hit = cache.get(hostname)
    if (hit && now() - hit.at < ttlMs) return reply(null, hit.addresses)
    const queue = waiting.get(hostname)
    if (queue) return queue.push(reply)
    waiting.set(hostname, [reply])
    resolve(hostname, { all: true }, (err, addresses) => {
      const waiters = waiting.get(hostname) || []
      waiting.delete(hostname)
      if (!err) cache.set(hostname, { at: now(), addresses })
      for (const w of waiters) w(err, addresses)
    })
  }
  /** @param {string} hostname */
  lookup.forget = (hostname) => { cache.delete(hostname) }
  return lookup
}

/** @param {any} err */
function describeError (err) {
  const message = String((err && err.message) || err)
  const code = err && err.code
  return (code && !message.includes(code) ? `${code}: ${message}` : message).slice(0, 500)
}

/**
 * What one attempt came to, for metrics: the status code it got, or what it
 * threw (an EndpointError when the participant has no usable endpoint).
 * @param {number | null} statusCode
 * @param {any} [err]
 * @returns {'delivered' | 'http_error' | 'timeout' | 'network_error' | 'no_endpoint'}
 */
function callbackOutcome (statusCode, err) {
  if (err) {
    if (err.name === 'EndpointError') return 'no_endpoint'
    return TIMEOUT_ERRORS.has(err.code) ? 'timeout' : 'network_error'
  }
  return statusCode !== null && statusCode >= 200 && statusCode <= 299 ? 'delivered' : 'http_error'
}

/**
 * @typedef {{ send: (req: { url: string, method: string, headers: Record<string, string>, body: string | null }) => Promise<{ statusCode: number }>,
 *   close: () => Promise<void>, destroy: () => Promise<void> }} CallbackHttpClient
 */

/**
 * @param {{ timeoutMs: number, kind?: 'pipelined' | 'undici', pipelining?: number, lookup?: ReturnType<typeof createCachedLookup> }} opts
 * @returns {CallbackHttpClient}
 */
function createHttpClient ({ timeoutMs, kind = 'pipelined', pipelining = 16, lookup = createCachedLookup() }) {
  return kind === 'undici' ? createUndiciClient({ timeoutMs, lookup }) : createOwnClient({ timeoutMs, pipelining, lookup })
}

/**
 * @param {{ timeoutMs: number, pipelining: number, lookup: ReturnType<typeof createCachedLookup> }} opts
 * @returns {CallbackHttpClient}
 */
function createOwnClient ({ timeoutMs, pipelining, lookup }) {
  // No connection limit that matters: the dispatcher bounds requests in
  // flight per participant, and several participants may share one origin.
  const client = createPipelinedClient({ timeoutMs, pipelining, connections: 1024, lookup })
  return {
    /** Resolves with the status code whatever it is; rejects on a timeout or connection error. */
    async send ({ url, method, headers, body }) {
      try {
        return await client.request({ url, method, headers, body })
      } catch (err) {
        const code = err && err.code
        if (CONNECT_ERRORS.has(code)) lookup.forget(new URL(url).hostname)
        if (code === 'HTTP_TIMEOUT' || code === 'HTTP_CONNECT_TIMEOUT') throw Object.assign(new Error(`no answer within ${timeoutMs} ms`, { cause: err }), { code: 'CALLBACK_TIMEOUT' })
        throw err
      }
    },
    close: () => client.close(),
    destroy: () => client.destroy()
  }
}

/**
 * @param {{ timeoutMs: number, lookup: ReturnType<typeof createCachedLookup> }} opts
 * @returns {CallbackHttpClient}
 */
function createUndiciClient ({ timeoutMs, lookup }) {
  /** @type {Map<string, Pool>} */
  const pools = new Map()

  /** @param {string} origin */
  function poolFor (origin) {
    let pool = pools.get(origin)
    if (!pool) {
      // No connection limit here: the dispatcher bounds requests in flight per
      // participant, and several participants may share one origin.
      pool = new Pool(origin, {
        pipelining: 1,
        connect: { timeout: timeoutMs, lookup: /** @type {any} */ (lookup) },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        keepAliveTimeout: 30000
      })
      pools.set(origin, pool)
    }
    return pool
  }

  /**
   * Sends one request; resolves with the status code whatever it is, rejects
   * on a timeout or connection error.
   * @param {{ url: string, method: string, headers: Record<string, string>, body: string | null }} req
   * @returns {Promise<{ statusCode: number }>}
   */
  async function send ({ url, method, headers, body }) {
    const target = new URL(url)
    // The whole exchange's deadline: a timer cleared as soon as it is over,
    // which aborts the request through an EventEmitter (undici takes one as
    // its signal). Not AbortSignal.timeout(), whose timer, weak reference and
    // finalizer outlive the request by the whole timeout (docs/performance.md,
    // fifth round), and not an AbortController either: with its signal
    // handed to undici, ~430 more bytes per request survived into the old
    // generation (545 against 120, and 22% fewer requests a second, in a
    // loop against a local server; sixth round).
    const deadline = new EventEmitter()
    let expired = false
    const timer = setTimeout(() => { expired = true; deadline.emit('abort') }, timeoutMs)
    try {
      const res = await poolFor(target.origin).request({
        path: target.pathname + target.search,
        method: /** @type {any} */ (method),
        headers,
        body: body === null ? undefined : body,
        signal: deadline
      })
      // Read the (ignored) answer so the connection can be reused.
      await res.body.dump()
      return { statusCode: res.statusCode }
    } catch (err) {
      if (CONNECT_ERRORS.has(err && err.code)) lookup.forget(target.hostname)
      if (expired) throw Object.assign(new Error(`no answer within ${timeoutMs} ms`, { cause: err }), { code: 'CALLBACK_TIMEOUT' })
      throw err
    } finally {
      clearTimeout(timer)
    }
  }

  /** Waits for requests in flight, then closes every connection. */
  async function close () {
    await Promise.all([...pools.values()].map((p) => p.close().catch(() => {})))
    pools.clear()
  }

  /** Aborts requests in flight (they reject) and closes every connection. */
  async function destroy () {
    await Promise.all([...pools.values()].map((p) => p.destroy().catch(() => {})))
    pools.clear()
  }

  return { send, close, destroy }
}

module.exports = { createHttpClient, createCachedLookup, describeError, callbackOutcome }
