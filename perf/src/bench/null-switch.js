#!/usr/bin/env node
'use strict'

// A null switch: speaks just enough FSPIOP to drive the load generator and
// the simulated participants, with no Kafka and no database, so their own
// ceiling is known (PERF.md: benchmark the benchmark).
//
//   node perf/src/bench/null-switch.js --callbacks http://127.0.0.1:PORT [--mode full|direct] [--client pipelined|undici]
//
// full (default): POST /transfers → 202, forwards the prepare to the payee,
//   the payee's PUT fulfilment → 200, checks sha256(fulfilment) = condition,
//   then PUT COMMITTED to the payer and to the payee — the same HTTP traffic
//   the simulators see from the real switch.
// direct: POST /transfers → 202 and PUT COMMITTED to the payer at once.
// Callback URLs are <callbacks>/<fsp>/transfers/<id> (fast-participants.js).
// Prints {"url": …} on stdout once listening.

const http = require('node:http')
const crypto = require('node:crypto')
const { parseArgs } = require('node:util')
const { createAgent, send, targetOf, closeServer, httpDate } = require('../load/http-client')

const CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1'

/** @param {{ callbacks: string, mode?: 'full' | 'direct', port?: number, client?: string }} opts client: its HTTP client's kind (http-client.js) */
async function startNullSwitch ({ callbacks, mode = 'full', port = 0, client = 'pipelined' }) {
  const agent = createAgent({ kind: client })
  const target = targetOf(callbacks)
  /** @type {Map<string, { payer: string, payee: string, condition: string }>} */
  const inFlight = new Map()
  const stats = { prepares: 0, fulfils: 0, badFulfilments: 0, errors: 0, callbackFailures: 0 }

  /** @param {string} from @param {string} to @param {'POST' | 'PUT'} method @param {string} path @param {any} body */
  function notify (from, to, method, path, body) {
    const headers = { 'content-type': CONTENT_TYPE, date: httpDate(), 'fspiop-source': from, 'fspiop-destination': to }
    send(agent, target, method, `/${to}${path}`, headers, JSON.stringify(body)).then(
      (r) => { if (r.status >= 300) stats.callbackFailures++ },
      () => { stats.callbackFailures++ })
  }

  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (d) => chunks.push(d))
    req.on('end', () => {
      const parts = (req.url || '').split('/') // ['', 'transfers', id?, 'error'?]
      if (parts[1] !== 'transfers') { res.writeHead(404).end(); return }
      const text = Buffer.concat(chunks).toString('utf8')
      if (req.method === 'POST' && parts.length === 2) {
        const body = JSON.parse(text)
        stats.prepares++
        res.writeHead(202).end()
        const { transferId: id, payerFsp: payer, payeeFsp: payee } = body
        if (mode === 'direct') {
          notify('Hub', payer, 'PUT', `/transfers/${id}`, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() })
          return
        }
        inFlight.set(id, { payer, payee, condition: body.condition })
        notify(payer, payee, 'POST', '/transfers', body)
        return
      }
      if (req.method === 'PUT' && parts[2]) {
        res.writeHead(200).end()
        const id = parts[2]
        const t = inFlight.get(id)
        if (!t) return
        inFlight.delete(id)
        if (parts[3] === 'error') {
          stats.errors++
          notify(t.payee, t.payer, 'PUT', `/transfers/${id}/error`, JSON.parse(text))
          return
        }
        stats.fulfils++
        const body = JSON.parse(text)
        const ok = crypto.createHash('sha256').update(Buffer.from(body.fulfilment, 'base64url')).digest('base64url') === t.condition
        if (!ok) {
          stats.badFulfilments++
          notify('Hub', t.payer, 'PUT', `/transfers/${id}/error`, { errorInformation: { errorCode: '3100', errorDescription: 'Invalid fulfilment' } })
          return
        }
        const final = { fulfilment: body.fulfilment, completedTimestamp: body.completedTimestamp, transferState: 'COMMITTED' }
        notify(t.payee, t.payer, 'PUT', `/transfers/${id}`, final)
        notify('Hub', t.payee, 'PUT', `/transfers/${id}`, final)
        return
      }
      res.writeHead(404).end()
    })
  })
  server.keepAliveTimeout = 60000
  server.headersTimeout = 61000
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)))
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
  return {
    url,
    stats,
    close: async () => {
      await closeServer(server)
      await agent.destroy()
    }
  }
}

if (require.main === module) {
  const { values } = parseArgs({ options: { callbacks: { type: 'string' }, mode: { type: 'string', default: 'full' }, client: { type: 'string', default: 'pipelined' } } })
  if (!values.callbacks) { console.error('usage: null-switch.js --callbacks <url> [--mode full|direct]'); process.exit(2) }
  startNullSwitch({ callbacks: values.callbacks, mode: /** @type {'full' | 'direct'} */ (values.mode), client: values.client }).then(({ url, close }) => {
    console.log(JSON.stringify({ url }))
    process.once('SIGTERM', () => close().then(() => process.exit(0)))
  }, (err) => { console.error(err); process.exit(1) })
}

module.exports = { startNullSwitch }
