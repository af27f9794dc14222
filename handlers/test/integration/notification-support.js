'use strict'

// Fixtures for the notification handler's integration test: simulated
// participants (real HTTP servers on 127.0.0.1), participants and endpoints
// in the database, notification messages, and a handler process started the
// way production starts it.

const http = require('node:http')
const crypto = require('node:crypto')
const { performance } = require('node:perf_hooks')
const { createLogger } = require('../../../shared/src/logger')
const { createLifecycle } = require('../../../shared/src/lifecycle')
const { createRuntime } = require('../../../shared/src/runtime')
const { startHandlers } = require('../../src/main')

const CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1'

/**
 * A participant's callback server. `respond(req, res, n)` answers the n-th
 * request (1-based); the default answers 200. Records every request.
 */
async function startParticipant (respond = (_req, res) => { res.statusCode = 200; res.end() }) {
  const received = []
  let open = 0
  let maxOpen = 0
  const closedAt = []
  const server = http.createServer((req, res) => {
    open++
    maxOpen = Math.max(maxOpen, open)
    // 'close' fires when the answer is sent or the client gave up on it.
    res.once('close', () => { open--; closedAt.push(performance.now()) })
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => { body += chunk })
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body, at: performance.now() })
      respond(req, res, received.length)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${server.address().port}`
  return {
    base,
    received,
    closedAt,
    open: () => open,
    maxOpen: () => maxOpen,
    close: () => new Promise((resolve) => { server.close(() => resolve()); server.closeAllConnections() })
  }
}

/** A base URL on which nothing listens. */
async function deadBase () {
  const p = await startParticipant()
  await p.close()
  return p.base
}

/** The usual Mojaloop registrations for a participant at `base`. */
const endpointsAt = (base) => ({
  FSPIOP_CALLBACK_URL_TRANSFER_POST: `${base}/transfers`,
  FSPIOP_CALLBACK_URL_TRANSFER_PUT: `${base}/transfers/{{transferId}}`,
  FSPIOP_CALLBACK_URL_TRANSFER_ERROR: `${base}/transfers/{{transferId}}/error`
})

/** @param {import('knex').Knex} db @param {string} name @param {Record<string, string>} [endpoints] */
async function addParticipant (db, name, endpoints = {}) {
  const [participantId] = await db('participant').insert({ name })
  const rows = Object.entries(endpoints).map(([type, value]) => ({ participant_id: participantId, endpoint_type: type, value }))
  if (rows.length) await db('participant_endpoint').insert(rows)
}

const KINDS = {
  post: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', method: 'POST', path: () => '/transfers' },
  put: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', path: (id) => `/transfers/${id}` },
  patch: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PATCH', path: (id) => `/transfers/${id}` },
  error: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT', path: (id) => `/transfers/${id}/error` }
}

/**
 * A notification message as the other handlers produce it (docs/transfers.md).
 * @param {string} topic
 * @param {string} to
 * @param {{ kind?: keyof typeof KINDS, from?: string, transferId?: string, body?: any }} [opts]
 */
function notification (topic, to, { kind = 'put', from = 'hub', transferId = crypto.randomUUID(), body } = {}) {
  const k = KINDS[kind]
  return {
    topic,
    key: to,
    value: {
      to,
      transferId,
      endpointType: k.endpointType,
      method: k.method,
      path: k.path(transferId),
      headers: { 'fspiop-source': from, 'fspiop-destination': to, 'content-type': CONTENT_TYPE, date: new Date().toUTCString() },
      body: body ?? { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() }
    }
  }
}

/** Starts the notification handler through startHandlers(), as handlers/src/main.js does. */
async function startNotificationHandler (config) {
  const logger = createLogger(config)
  const lifecycle = createLifecycle({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS, exit: () => {} })
  const runtime = await createRuntime({ config, logger, lifecycle })
  try {
    await startHandlers(runtime, ['notification'])
  } catch (err) {
    await lifecycle.shutdown('start failed')
    throw err
  }
  return { runtime, stop: () => lifecycle.shutdown('test done') }
}

module.exports = { startParticipant, deadBase, endpointsAt, addParticipant, notification, startNotificationHandler, CONTENT_TYPE }
