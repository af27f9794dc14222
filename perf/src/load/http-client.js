'use strict'

// The load's HTTP client: the switch's own pipelined client
// (@switchyard/shared/http-client), which writes what goes to one origin in
// one turn of the event loop together. The generator, the simulated
// participants and the null switch share the machine with the switch they
// measure, and each write and wake-up they save is CPU the switch gets:
// undici spent ~50 µs per request in bursts, a socket written once per burst
// 15–20 µs (docs/performance.md, thirty-ninth and fortieth rounds).
// `kind: 'undici'` sends with undici's Agent instead, to compare.
//
// A pipelined request the connection drops before its answer fails (RFC
// 9112, section 9.3.2): the generator counts it as refused, never resends it.

const { Agent } = require('undici')
const { createPipelinedClient } = require('@switchyard/shared/http-client')

/**
 * @typedef {{ send: (origin: string, method: string, path: string, headers: Record<string, string>, body: string | undefined) => Promise<{ status: number, body: string }>,
 *   destroy: () => Promise<void> }} LoadAgent
 */

/**
 * @param {{ maxSockets?: number, timeoutMs?: number, kind?: string }} [opts] maxSockets: connections per origin at most;
 *   timeoutMs: a request's whole exchange; kind: 'pipelined' (the default) or 'undici'
 * @returns {LoadAgent}
 */
function createAgent ({ maxSockets = 256, timeoutMs = 30000, kind = 'pipelined' } = {}) {
  if (kind === 'undici') {
    const agent = new Agent({ connections: maxSockets, pipelining: 1 })
    return {
      async send (origin, method, path, headers, body) {
        const res = await agent.request({ origin, method: /** @type {any} */ (method), path, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
        return { status: res.statusCode, body: await res.body.text() }
      },
      destroy: () => agent.destroy()
    }
  }
  if (kind !== 'pipelined') throw new Error(`an agent is pipelined or undici, not ${kind}`)
  const client = createPipelinedClient({ timeoutMs, connections: maxSockets })
  return {
    async send (origin, method, path, headers, body) {
      const r = await client.request({ url: origin + path, method, headers, body, readBody: true })
      return { status: r.statusCode, body: /** @type {string} */ (r.body) }
    },
    destroy: () => client.destroy()
  }
}

/**
 * Sends one request; resolves with the status code and body text, rejects
 * when the connection fails or no answer comes within the agent's timeout.
 * @param {LoadAgent} agent
 * @param {string} origin where the request goes (targetOf)
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method @param {string} path @param {Record<string, string>} headers @param {string} [body]
 * @returns {Promise<{ status: number, body: string }>}
 */
function send (agent, origin, method, path, headers, body) {
  return agent.send(origin, method, path, headers, body)
}

/** The origin of a base URL (scheme, host and port; any path dropped). @param {string} url */
function targetOf (url) {
  return new URL(url).origin
}

/**
 * Stops a server and drops its keep-alive connections, which would otherwise
 * hold close() open until they idle out.
 * @param {import('node:http').Server} server @returns {Promise<void>}
 */
function closeServer (server) {
  return new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
}

/** The Date header, rebuilt at most once per second. */
let dateCache = { second: -1, value: '' }
function httpDate () {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateCache.second) dateCache = { second, value: new Date(now).toUTCString() }
  return dateCache.value
}

module.exports = { createAgent, send, targetOf, closeServer, httpDate }
