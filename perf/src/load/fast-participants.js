'use strict'

// Many simulated DFSPs behind one keep-alive HTTP server, each under its own
// path (/<name>/transfers…), built for load: payees fulfil forwarded
// prepares at once (or after an injected delay, or reject a share of them),
// payers report the time their final callback arrives. Unlike participant.js
// nothing is kept per request beyond what the generator asks for.

const http = require('node:http')
const { CONTENT_TYPE } = require('./client')
const { createAgent, send, targetOf, closeServer, httpDate } = require('./http-client')

/**
 * @typedef {(transferId: string, state: string, atMs: number, errorCode?: string) => void} FinalListener
 */

/**
 * @param {{ prefix: string, payers?: number, payees?: number, apiUrl: string, delayMs?: number, failRate?: number,
 *   random?: () => number, httpClient?: string }} opts httpClient: the kind of HTTP client (http-client.js)
 */
async function startSimulators ({ prefix, payers = 8, payees = 8, apiUrl, delayMs = 0, failRate = 0, random = Math.random, httpClient = 'pipelined' }) {
  /** The HTTP client for the payees' answers and the generator's requests; closed with the simulators. */
  const agent = createAgent({ kind: httpClient })
  const api = { target: targetOf(apiUrl) }
  /** transferId → fulfilment, set by the generator for the payee. */
  const fulfilments = new Map()
  /** @type {FinalListener} */
  let listener = () => {}
  const stats = { prepares: 0, fulfilsSent: 0, fulfilErrors: 0, rejectsSent: 0, payerFinals: 0, payeeNotifications: 0, other: 0, lastFulfilError: '' }
  const payerNames = Array.from({ length: payers }, (_, i) => `${prefix}r${i}`)
  const payeeNames = Array.from({ length: payees }, (_, i) => `${prefix}e${i}`)
  const isPayer = new Set(payerNames)

  /** @param {string} payee @param {string} payer @param {string} id */
  function answerPrepare (payee, payer, id) {
    const fulfilment = fulfilments.get(id)
    fulfilments.delete(id)
    const headers = { 'content-type': CONTENT_TYPE, accept: CONTENT_TYPE, date: httpDate(), 'fspiop-source': payee, 'fspiop-destination': payer }
    const reject = !fulfilment || (failRate > 0 && random() < failRate)
    const path = reject ? `/transfers/${id}/error` : `/transfers/${id}`
    const body = reject
      ? JSON.stringify({ errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected transfer' } })
      : JSON.stringify({ fulfilment, completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' })
    if (reject) stats.rejectsSent++; else stats.fulfilsSent++
    send(agent, api.target, 'PUT', path, headers, body).then((r) => {
      if (r.status !== 200) { stats.fulfilErrors++; stats.lastFulfilError = `${r.status} ${r.body.slice(0, 300)}` }
    }, (err) => { stats.fulfilErrors++; stats.lastFulfilError = err.message })
  }

  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (d) => chunks.push(d))
    req.on('end', () => {
      const at = performance.now()
      res.writeHead(200).end()
      const parts = (req.url || '').split('/') // ['', name, 'transfers', id?, 'error'?]
      const name = parts[1]
      if (parts[2] !== 'transfers') { stats.other++; return }
      if (req.method === 'POST' && parts.length === 3) {
        stats.prepares++
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        if (delayMs > 0) setTimeout(answerPrepare, delayMs, name, body.payerFsp, body.transferId)
        else answerPrepare(name, body.payerFsp, body.transferId)
        return
      }
      if ((req.method === 'PUT' || req.method === 'PATCH') && parts[3]) {
        if (!isPayer.has(name)) { stats.payeeNotifications++; return }
        stats.payerFinals++
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}')
        if (parts[4] === 'error') listener(parts[3], 'ERROR', at, body.errorInformation && body.errorInformation.errorCode)
        else listener(parts[3], body.transferState || 'UNKNOWN', at)
        return
      }
      stats.other++
    })
  })
  server.keepAliveTimeout = 60000
  server.headersTimeout = 61000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`

  /** @param {string} name */
  const endpoints = (name) => [
    { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: `${base}/${name}/transfers` },
    { type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: `${base}/${name}/transfers/{{transferId}}` },
    { type: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', value: `${base}/${name}/transfers/{{transferId}}/error` }
  ]

  return {
    base,
    agent,
    stats,
    payers: payerNames.map((name) => ({ name, endpoints: endpoints(name) })),
    payees: payeeNames.map((name) => ({ name, endpoints: endpoints(name) })),
    /** Points fulfils at another API (the null switch, a restarted switch). @param {string} url */
    setApi: (url) => { api.target = targetOf(url) },
    /** The payee will fulfil transfer `id` with this preimage. @param {string} id @param {string} fulfilment */
    expect: (id, fulfilment) => { fulfilments.set(id, fulfilment) },
    /** @param {FinalListener} fn */
    onFinal: (fn) => { listener = fn },
    close: async () => {
      await closeServer(server)
      await agent.destroy()
    }
  }
}

module.exports = { startSimulators }
