'use strict'

// Simulated participant systems: an HTTP server per DFSP that records every
// callback it receives and, as a payee, answers forwarded prepares the way a
// real DFSP would (fulfil, fulfil with RESERVED, reject, or stay silent).

const http = require('node:http')
const crypto = require('node:crypto')

/** A fresh 32-byte preimage and its condition. */
function newCondition () {
  const preimage = crypto.randomBytes(32)
  return { fulfilment: preimage.toString('base64url'), condition: crypto.createHash('sha256').update(preimage).digest('base64url') }
}

const { CONTENT_TYPE } = require('./client')
const { closeServer } = require('./http-client')

/**
 * @param {string} name
 * @param {{ api: () => string }} switchyard where to send fulfils
 */
async function startParticipant (name, switchyard) {
  /** @type {{ method: string, path: string, headers: Record<string, any>, body: any, at: number }[]} */
  const received = []
  /** transferId → what to do when the prepare arrives */
  const plans = new Map()
  /** transferId → the body this payee sent about it */
  const sentBodies = new Map()
  let status = 200
  /** @type {Set<{ match: (r: any) => boolean, resolve: (r: any) => void }>} */
  const waiters = new Set()
  /** The switch's answers to this participant's own requests, for diagnosis. */
  const answers = []

  async function respond (transferId, plan) {
    const headers = {
      'content-type': CONTENT_TYPE,
      accept: CONTENT_TYPE,
      date: new Date().toUTCString(),
      'fspiop-source': name,
      'fspiop-destination': plan.payer
    }
    // A traced DFSP continues the trace the switch sent it.
    if (plan.traceparent) headers.traceparent = plan.traceparent
    if (plan.signature) headers['fspiop-signature'] = plan.signature
    let url = `${switchyard.api()}/transfers/${transferId}`
    /** @type {Record<string, any>} */
    let body
    if (plan.action === 'reject') {
      url += '/error'
      body = { errorInformation: { errorCode: plan.errorCode || '5101', errorDescription: 'Payee rejected transfer', ...(plan.extensionList ? { extensionList: plan.extensionList } : {}) } }
    } else {
      body = { fulfilment: plan.fulfilment, completedTimestamp: new Date().toISOString(), transferState: plan.action === 'reserve' ? 'RESERVED' : 'COMMITTED' }
      if (plan.extensionList) body.extensionList = plan.extensionList
    }
    sentBodies.set(transferId, body)
    // As a DFSP does when the hub says 503 (2003: try again) or cannot be
    // reached: the same PUT again, for up to a minute.
    const deadline = Date.now() + 60000
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      let status = 0
      try {
        const res = await fetch(url, { method: 'PUT', headers: { ...headers, date: new Date().toUTCString() }, body: plan.text ? plan.text(body) : JSON.stringify(body) })
        status = res.status
        answers.push({ transferId, status, body: await res.text() })
      } catch (err) {
        answers.push({ transferId, error: /** @type {Error} */ (err).message })
      }
      if ((status !== 0 && status !== 503) || Date.now() + wait > deadline) return
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }

  const server = http.createServer((req, res) => {
    let data = ''
    req.on('data', (d) => { data += d })
    req.on('end', () => {
      // raw: the bytes as they came, for checks that a body passed on is unchanged.
      const entry = { method: req.method, path: req.url, headers: req.headers, body: data ? JSON.parse(data) : null, raw: data, at: Date.now() }
      received.push(entry)
      for (const w of [...waiters]) if (w.match(entry)) { waiters.delete(w); w.resolve(entry) }
      res.writeHead(status).end()
      if (req.method === 'POST' && req.url === '/transfers' && entry.body) {
        const plan = plans.get(entry.body.transferId)
        if (plan && plan.action !== 'ignore') {
          setImmediate(() => respond(entry.body.transferId, { payer: entry.body.payerFsp, traceparent: entry.headers.traceparent, ...plan })
            .catch((err) => answers.push({ transferId: entry.body.transferId, error: err.message })))
        }
      }
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`

  return {
    name,
    base,
    received,
    endpoints: [
      { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: `${base}/transfers` },
      { type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: `${base}/transfers/{{transferId}}` },
      { type: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', value: `${base}/transfers/{{transferId}}/error` }
    ],
    /**
     * As payee: what to do with transfer `id`; with an `extensionList` and a `signature` (FSPIOP-Signature)
     * to send. Once it has answered, `sent(id)` is the body it sent.
     * @param {string} id
     * @param {{ action: 'fulfil' | 'reserve' | 'reject' | 'ignore', fulfilment?: string, errorCode?: string,
     *   extensionList?: { extension: { key: string, value: string }[] }, signature?: string, text?: (body: any) => string }} plan
     *   text: writes the body the payee sends (JSON.stringify by default)
     */
    plan: (id, plan) => plans.set(id, plan),
    /** @param {string} id @returns {any} the body this payee sent for transfer `id`, if it has answered */
    sent: (id) => sentBodies.get(id),
    /** @param {number} code */
    answerWith: (code) => { status = code },
    /** Callbacks about one transfer. @param {string} id */
    about: (id) => received.filter((r) => r.path.includes(id) || (r.body && r.body.transferId === id)),
    /** @param {(r: typeof received[number]) => boolean} match @param {string} what */
    answers,
    waitFor: (match, what, timeoutMs = 30000) => {
      const seen = received.find(match)
      if (seen) return Promise.resolve(seen)
      // Resolved by the request handler the moment a match arrives.
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (r) => { clearTimeout(timer); resolve(r) } }
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${name} to receive ${what} (answers: ${JSON.stringify(answers)})`))
        }, timeoutMs)
        waiters.add(waiter)
      })
    },
    close: () => closeServer(server)
  }
}

module.exports = { startParticipant, newCondition }
