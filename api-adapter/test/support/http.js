'use strict'

// A real HTTP client for tests, with app.inject()'s shape of answer. Why not
// app.inject(): fastify 5.12's light-my-request requires cookie@2, which is
// ESM-only; plain node 20 loads it, jest's module runtime cannot. Why
// node:http and not fetch(): fetch adds headers of its own (Accept: */*
// among them), and the tests need to send exactly the headers they mean,
// a missing Accept included.

const http = require('node:http')

/**
 * Starts the app on a free loopback port.
 * @param {import('fastify').FastifyInstance} app
 */
async function listen (app) {
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = /** @type {import('node:net').AddressInfo} */ (app.server.address())
  return createClient(`http://127.0.0.1:${address.port}`)
}

/** @param {string} baseUrl */
function createClient (baseUrl) {
  /**
   * @param {{ method?: string, url: string, headers?: Record<string, string | undefined>, payload?: unknown }} opts
   *   payload: a string is sent as is, anything else as JSON; headers with an undefined value are not sent
   * @returns {Promise<{ statusCode: number, headers: import('node:http').IncomingHttpHeaders, body: string, json: () => any }>}
   */
  function request ({ method = 'GET', url, headers = {}, payload }) {
    const body = payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload)
    /** @type {Record<string, string>} */
    const sent = {}
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value
    if (body !== undefined) sent['content-length'] = String(Buffer.byteLength(body))
    return new Promise((resolve, reject) => {
      const req = http.request(new URL(url, baseUrl), { method, headers: sent, agent: false }, (res) => {
        const chunks = []
        res.on('data', (chunk) => chunks.push(chunk))
        res.on('error', reject)
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ statusCode: res.statusCode, headers: res.headers, body: text, json: () => JSON.parse(text) })
        })
      })
      req.on('error', reject)
      req.end(body)
    })
  }
  return { request }
}

module.exports = { listen, createClient }
