'use strict'

// A minimal keep-alive HTTP client for load: one undici Agent (a pool of
// keep-alive connections per origin), the body sent in one write, the answer
// read and dropped. undici's client costs about half the CPU per request of
// node:http's ClientRequest (26–49 against 50–78 µs for a prepare on the
// Firecracker VM), and the generator and simulators share the machine with
// the switch they measure.

const { Agent } = require('undici')

/**
 * @param {{ maxSockets?: number }} [opts] maxSockets: connections per origin at most
 */
function createAgent ({ maxSockets = 256 } = {}) {
  return new Agent({ connections: maxSockets, pipelining: 1 })
}

/**
 * Sends one request; resolves with the status code and body text, rejects
 * when the connection fails or no answer (headers, then body) comes within
 * `timeoutMs`.
 * @param {Agent} agent
 * @param {string} origin where the request goes (targetOf)
 * @param {'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} method @param {string} path @param {Record<string, string>} headers @param {string} [body]
 * @param {number} [timeoutMs]
 * @returns {Promise<{ status: number, body: string }>}
 */
async function send (agent, origin, method, path, headers, body, timeoutMs = 30000) {
  const res = await agent.request({ origin, method, path, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  return { status: res.statusCode, body: await res.body.text() }
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
