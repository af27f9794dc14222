'use strict'

// A minimal keep-alive HTTP client for load: node:http with one Agent, the
// body sent in one write, the answer read and dropped. Cheaper per request
// than fetch, and the connection pool is explicit.

const http = require('node:http')

/** @param {{ maxSockets?: number }} [opts] */
function createAgent ({ maxSockets = 256 } = {}) {
  return new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' })
}

/**
 * Sends one request; resolves with the status code and body text.
 * @param {http.Agent} agent
 * @param {{ host: string, port: number }} target
 * @param {string} method @param {string} path @param {Record<string, string>} headers @param {string} [body]
 * @param {number} [timeoutMs]
 * @returns {Promise<{ status: number, body: string }>}
 */
function send (agent, target, method, path, headers, body, timeoutMs = 30000) {
  return new Promise((resolve, reject) => {
    const h = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }
    const req = http.request({ agent, host: target.host, port: target.port, method, path, headers: h, timeout: timeoutMs }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => { text += d })
      res.on('end', () => resolve({ status: res.statusCode || 0, body: text }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })
}

/** @param {string} url */
function targetOf (url) {
  const u = new URL(url)
  return { host: u.hostname, port: Number(u.port) || 80 }
}

/** The Date header, rebuilt at most once per second. */
let dateCache = { second: -1, value: '' }
function httpDate () {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateCache.second) dateCache = { second, value: new Date(now).toUTCString() }
  return dateCache.value
}

module.exports = { createAgent, send, targetOf, httpDate }
