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
const { testConfig } = require('../../../test/support/config')
const { waitUntil } = require('../../../test/support/wait')
const { failPendingCallbacks } = require('../../../test/support/callbacks')
const { createTestKafka } = require('../../../test/support/kafka')
const { createDb } = require('../../../shared/src/db')
const { createTopics } = require('../../../scripts/stack/index')

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
    // Held until the answer is sent or the client gives up on it: the
    // response's 'close', or the connection's for a request pipelined behind
    // another (node:http never closes the queued response of a dead socket).
    const socket = req.socket
    const finish = () => {
      res.removeListener('close', finish)
      socket.removeListener('close', finish)
      open--
      closedAt.push(performance.now())
    }
    res.once('close', finish)
    socket.once('close', finish)
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

/**
 * The notification tests' settings: topics and client id of their own, and
 * timings generous enough that a slow or busy machine cannot reorder what
 * they observe (a callback timeout of 10 s; the dispatcher waits a third of
 * SHUTDOWN_TIMEOUT_MS for requests in flight), with short backoffs and leases.
 * @param {string} run @param {Record<string, string>} [overrides]
 */
const notificationTestConfig = (run, overrides = {}) => testConfig({
  KAFKA_TOPIC_PREFIX: `${run}.`,
  KAFKA_CLIENT_ID: run,
  KAFKA_PARTITIONS: '2',
  KAFKA_MAX_WAIT_MS: '50',
  CALLBACK_BACKOFF_MS: '20',
  CALLBACK_MAX_BACKOFF_MS: '200',
  CALLBACK_TIMEOUT_MS: '10000',
  CALLBACK_MAX_ATTEMPTS: '3',
  CALLBACK_LEASE_MS: '1000',
  SHUTDOWN_TIMEOUT_MS: '1500',
  ...overrides
})

/**
 * A test file's participants and its reads of the callback outbox.
 * @param {string} run names the participants `<run>-<suffix>`
 * @param {() => import('knex').Knex} getDb the file's database (opened in beforeAll)
 */
function notificationFixtures (run, getDb) {
  /** Every participant's server, to close after the tests. @type {Awaited<ReturnType<typeof startParticipant>>[]} */
  const participants = []
  /** A participant with its own server and the usual endpoints. @param {string} suffix @param {Parameters<typeof startParticipant>[0]} [respond] */
  async function participant (suffix, respond) {
    const server = await startParticipant(respond)
    participants.push(server)
    const name = `${run}-${suffix}`
    await addParticipant(getDb(), name, endpointsAt(server.base))
    return { name, server }
  }
  /** @param {string[]} transferIds */
  const rowsOf = (transferIds) => getDb()('callback').whereIn('transfer_id', transferIds).orderBy('transfer_id')
  /** @param {string} callbackId */
  const attemptsOf = (callbackId) => getDb()('callback_attempt').where({ callback_id: callbackId }).orderBy('attempt')
  /** For waitUntil: the rows, once every one of them is in `status`. @param {string} status @param {string[]} transferIds */
  const statusIs = (status, transferIds) => async () => {
    const rows = await rowsOf(transferIds)
    return rows.length === transferIds.length && rows.every((r) => r.status === status) && rows
  }
  return { participants, participant, rowsOf, attemptsOf, statusIs }
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

/**
 * A test file's set-up before its handler starts: the database, a connected
 * Kafka test client, and the topics.
 * @param {ReturnType<typeof notificationTestConfig>} config
 */
async function openNotificationSuite (config) {
  const db = createDb(config)
  const tk = createTestKafka(config)
  await tk.connect()
  await createTopics(config)
  return { db, tk }
}

/**
 * A test file's tear-down: its handler stopped, its participants' servers
 * closed, what it left PENDING failed (so no later handler retries it), then
 * Kafka and the database.
 * @param {string} run @param {{ handler?: { stop: () => Promise<void> }, handlers?: { stop: () => Promise<void> }[],
 *   participants: ({ close: () => Promise<void> } | undefined)[], tk: { close: () => Promise<void> }, db: import('knex').Knex }} suite
 *   `handlers` for a file that starts several; a participant not yet started is skipped
 */
async function closeNotificationSuite (run, { handler, handlers = [], participants, tk, db }) {
  for (const h of [handler, ...handlers]) if (h) await h.stop()
  for (const p of participants) if (p) await p.close()
  await failPendingCallbacks(db, 'participant', `${run}%`)
  await tk.close()
  await db.destroy()
}

/**
 * The graceful stop, as both HTTP clients must handle it: a participant hangs
 * on its first request, the handler stops while that request is in flight,
 * and a new instance delivers the callback. The hub's own shutdown cut the
 * attempt short: it counts for nothing, so even a callback on its last
 * attempt is not dead-lettered by a rollout.
 * @param {ReturnType<typeof notificationFixtures>} fixtures
 * @param {{ topic: string, send: (messages: any[]) => Promise<void>, stopHandler: () => Promise<void>, startHandler: () => Promise<void> }} suite
 * @returns {Promise<{ row: any, delivered: any }>} the callback's row after the stop, and once delivered
 */
async function stopWithRequestInFlight ({ participant, rowsOf, attemptsOf, statusIs }, { topic, send, stopHandler, startHandler }) {
  const p = await participant('restart', (_req, res, n) => { if (n > 1) { res.statusCode = 200; res.end() } }) // hangs once
  const msg = notification(topic, p.name)
  await send([msg])
  await waitUntil(() => p.server.open() === 1, { what: 'a request in flight' })
  await stopHandler()
  const [row] = await rowsOf([msg.value.transferId])
  expect(row).toMatchObject({ status: 'PENDING', attempts: 0, claim_until: null })
  expect(await attemptsOf(row.callback_id)).toEqual([])

  await startHandler()
  const [delivered] = await waitUntil(statusIs('DELIVERED', [msg.value.transferId]), { what: 'delivered by the next instance' })
  expect(delivered.attempts).toBe(1)
  expect(p.server.received).toHaveLength(2)
  return { row, delivered }
}

module.exports = {
  startParticipant,
  deadBase,
  endpointsAt,
  addParticipant,
  notification,
  notificationTestConfig,
  notificationFixtures,
  startNotificationHandler,
  openNotificationSuite,
  closeNotificationSuite,
  stopWithRequestInFlight,
  CONTENT_TYPE
}
