'use strict'

// A participant's body that the hub passes on reaches the other participant
// byte for byte: a JWS signature (FSPIOP-Signature, forwarded with it) covers
// the exact text, spacing and escapes included. Followed from the API's
// request through every command (over Kafka's JSON) to the callback request
// the notification handler sends — without Kafka or a database: the API
// publishes to a stand-in producer, and each handler's pure part runs.

const { buildApp } = require('../../../api-adapter/src/app')
const { listen } = require('../../../api-adapter/test/support/http')
const { testConfig } = require('../../../test/support/config')
const { createLogger } = require('../../../shared/src/logger')
const { toWire, fromKafka } = require('@switchyard/shared/kafka')
const prepareHandler = require('../../src/prepare/handle')
const fulfilHandler = require('../../src/fulfil/handle')
const positionHandler = require('../../src/position/handle')
const { planPrepares } = require('../../src/prepare/plan')
const { planFulfils } = require('../../src/fulfil/plan')
const { applyPositionCommands } = require('../../src/position/calculate')
const { toJob } = require('../../src/notification/message')
const { callbackHeaders } = require('../../src/notification/url')
const { S } = require('../../src/common/states')
const {
  config, PAYER, PAYEE, PAYER_ACCOUNT, PAYEE_ACCOUNT, TRANSFER_ID, NOW, EXPIRATION, FULFILMENT, CONDITION,
  participants, preparePayload, transferRow, rows, account
} = require('./fixtures')

const CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1'
const DATE = new Date(NOW).toUTCString()
const SIGNATURE = '{"signature":"abc","protectedHeader":"xyz"}'
const U = 10000n

/** @type {any[]} the wire messages the API published */
const published = []
const apiConfig = testConfig()
const app = buildApp({
  config: apiConfig,
  logger: createLogger(apiConfig),
  health: async () => ({ status: 'OK' }),
  producer: /** @type {any} */ ({ sendSoon: async (/** @type {any[]} */ wires) => { published.push(...wires) } })
})
/** @type {Awaited<ReturnType<typeof listen>>} */
let client

beforeAll(async () => { client = await listen(app) })
afterAll(() => app.close())
beforeEach(() => { published.length = 0 })

/** A message as the next consumer reads it: through Kafka's JSON, as fromKafka makes it. */
const viaKafka = (/** @type {import('../../../shared/src/kafka/envelope').OutgoingMessage} */ message) => {
  const wire = toWire(message)
  return fromKafka(wire.topic, 0, { key: Buffer.from(wire.key), value: Buffer.from(wire.value), headers: wire.headers, offset: '7', timestamp: String(NOW) })
}

/** The request the notification handler would send for a notification message. */
const callbackRequest = (/** @type {import('../../../shared/src/kafka/envelope').OutgoingMessage} */ notification) => {
  const { job } = toJob(viaKafka(notification))
  return { to: job.participant, method: job.method, path: job.path, headers: callbackHeaders(job.headers, job), body: job.body }
}

/** @param {string} method @param {string} url @param {Record<string, string>} headers @param {string} text */
async function send (method, url, headers, text) {
  const res = await client.request({ method, url, headers: { 'content-type': CONTENT_TYPE, date: DATE, 'fspiop-signature': SIGNATURE, ...headers }, payload: text })
  expect(res.statusCode).toBe(method === 'POST' ? 202 : 200)
  expect(published).toHaveLength(1)
  return viaKafka({ ...published[0], value: JSON.parse(published[0].value) })
}

// Pretty-printed, with escapes JSON.stringify would not write ("\u00e9" for é, "\/" for /).
const prettyPrepare = String.raw`{
  "transferId": "${TRANSFER_ID}",
  "payerFsp": "${PAYER}",
  "payeeFsp": "${PAYEE}",
  "amount": { "amount": "10", "currency": "USD" },
  "ilpPacket": "${preparePayload().ilpPacket}",
  "condition": "${CONDITION}",
  "expiration": "${EXPIRATION}",
  "extensionList": { "extension": [ { "key": "caf\u00e9", "value": "http:\/\/payer.example\/note" } ] }
}`
const prettyFulfil = String.raw`{
    "fulfilment": "${FULFILMENT}",
    "completedTimestamp": "2025-03-01T12:00:10.000Z",
    "transferState": "COMMITTED",
    "extensionList": {"extension": [{"key": "r\u00e9f", "value": "a\/b"}]}
}`
const prettyError = String.raw`{ "errorInformation": { "errorCode": "5101", "errorDescription": "Refus\u00e9 \/ rejected" } }`
const compact = (/** @type {string} */ text) => JSON.stringify(JSON.parse(text))

describe.each([
  ['pretty-printed with \\u and \\/ escapes', (/** @type {string} */ text) => text],
  ['compact', compact]
])('a body %s', (_name, form) => {
  test('the payer\'s POST /transfers reaches the payee as sent', async () => {
    const text = form(prettyPrepare)
    const record = await send('POST', '/transfers', { accept: CONTENT_TYPE, 'fspiop-source': PAYER, 'fspiop-destination': PAYEE }, text)
    const prepare = planPrepares({ config, commands: [prepareHandler.toCommand(record)], existing: new Map(), participants: participants(), nowMs: NOW })
    expect(prepare.rows[0].state).toBe(S.RECEIVED_PREPARE)
    const reserve = applyPositionCommands({
      config,
      commands: [positionHandler.toCommand(viaKafka(prepare.outgoing[0]))],
      transfers: rows(transferRow()),
      accounts: new Map([[PAYER_ACCOUNT, account(0n, 1000n * U, 1000n * U)]]),
      nowMs: NOW
    })
    expect(reserve.outgoing).toHaveLength(1)
    const callback = callbackRequest(reserve.outgoing[0])
    expect(callback).toMatchObject({ to: PAYEE, method: 'POST', path: '/transfers' })
    expect(callback.body).toBe(text)
    expect(callback.headers).toMatchObject({ 'fspiop-signature': SIGNATURE, date: DATE, 'content-length': String(Buffer.byteLength(text)) })
  })

  test('the payee\'s PUT /transfers/{id} reaches the payer as sent', async () => {
    const text = form(prettyFulfil)
    const record = await send('PUT', `/transfers/${TRANSFER_ID}`, { 'fspiop-source': PAYEE, 'fspiop-destination': PAYER }, text)
    const transfers = rows(transferRow({ state: S.RESERVED }))
    const fulfil = planFulfils({ config, commands: [fulfilHandler.toCommand(record)], transfers })
    expect(transfers.get(TRANSFER_ID).state).toBe(S.RECEIVED_FULFIL)
    const commit = applyPositionCommands({
      config,
      commands: [positionHandler.toCommand(viaKafka(fulfil.outgoing[0]))],
      transfers,
      accounts: new Map([[PAYEE_ACCOUNT, account(0n, 1000n * U, 1000n * U)]]),
      nowMs: NOW
    })
    const toPayer = commit.outgoing.map(callbackRequest).filter((c) => c.to === PAYER)
    expect(toPayer).toHaveLength(1)
    expect(toPayer[0]).toMatchObject({ method: 'PUT', path: `/transfers/${TRANSFER_ID}` })
    expect(toPayer[0].body).toBe(text)
    expect(toPayer[0].headers).toMatchObject({ 'fspiop-source': PAYEE, 'fspiop-signature': SIGNATURE, date: DATE })
  })

  test('the payee\'s PUT /transfers/{id}/error reaches the payer as sent', async () => {
    const text = form(prettyError)
    const record = await send('PUT', `/transfers/${TRANSFER_ID}/error`, { 'fspiop-source': PAYEE, 'fspiop-destination': PAYER }, text)
    const transfers = rows(transferRow({ state: S.RESERVED }))
    const error = planFulfils({ config, commands: [fulfilHandler.toCommand(record)], transfers })
    const abort = applyPositionCommands({
      config,
      commands: [positionHandler.toCommand(viaKafka(error.outgoing[0]))],
      transfers,
      accounts: new Map([[PAYER_ACCOUNT, account(10n * U, 1000n * U, 1000n * U)]]),
      nowMs: NOW
    })
    expect(abort.outgoing).toHaveLength(1)
    const callback = callbackRequest(abort.outgoing[0])
    expect(callback).toMatchObject({ to: PAYER, method: 'PUT', path: `/transfers/${TRANSFER_ID}/error` })
    expect(callback.body).toBe(text)
    expect(callback.headers).toMatchObject({ 'fspiop-source': PAYEE, 'fspiop-signature': SIGNATURE, date: DATE })
  })
})

test('a compact body costs the command nothing: no text beside the payload', async () => {
  for (const [method, url, text, source] of [
    ['POST', '/transfers', compact(prettyPrepare), PAYER],
    ['PUT', `/transfers/${TRANSFER_ID}`, compact(prettyFulfil), PAYEE],
    ['PUT', `/transfers/${TRANSFER_ID}/error`, compact(prettyError), PAYEE]
  ]) {
    published.length = 0
    const record = await send(method, url, { accept: CONTENT_TYPE, 'fspiop-source': source }, text)
    expect(Object.keys(record.value).sort()).toEqual(['headers', 'payload', 'transferId', 'type'])
  }
})

test('a body JSON would not give back carries its text beside the payload', async () => {
  const record = await send('POST', '/transfers', { accept: CONTENT_TYPE, 'fspiop-source': PAYER }, prettyPrepare)
  expect(record.value.raw).toBe(prettyPrepare)
  expect(record.value.payload).toEqual(JSON.parse(prettyPrepare))
})
