'use strict'

// The participant-facing /transfers API against a real broker: what a
// participant gets back, and exactly what lands on the topics. Topics are
// this file's own (a unique prefix); ids are fresh per request.

const crypto = require('node:crypto')
const { buildApp } = require('../../src/app')
const { testConfig, unique } = require('../../../test/support/config')
const { createTestKafka } = require('../../../test/support/kafka')
const { waitUntil } = require('../../../test/support/wait')
const { createLogger } = require('../../../shared/src/logger')
const { createKafkaFromConfig, createProducer, topicName } = require('../../../shared/src/kafka')
const { createTopics } = require('../../../scripts/stack/index')
const { listen } = require('../support/http')
const { versioned, DATE, transferHeaders, prepareBody, fulfilBody, errorBody } = require('../support/transfers')
const { errorCases } = require('../support/transfer-error-cases')

const config = testConfig({ KAFKA_TOPIC_PREFIX: `${unique('api')}.`, KAFKA_PARTITIONS: '1' })
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
const resources = []
let client, prepared, fulfils
/** Ids of requests that were refused: nothing may be produced for them. */
const refusedIds = new Set()

beforeAll(async () => {
  await createTopics(config)
  const kafka = createKafkaFromConfig(config)
  const producer = createProducer({ kafka })
  await producer.connect()
  resources.push(() => producer.disconnect())
  const app = buildApp({ config, logger: createLogger(config), health: async () => ({ status: 'OK' }), producer })
  resources.push(() => app.close())
  client = await listen(app)
  const testKafka = createTestKafka(config)
  await testKafka.connect()
  resources.push(() => testKafka.close())
  prepared = await testKafka.collect(topicName(config, 'prepare'))
  fulfils = await testKafka.collect(topicName(config, 'fulfil'))
})

afterAll(async () => {
  for (const close of resources.reverse()) await close()
})

/** The message keyed by id, once it has arrived. */
const messageFor = (collector, id) =>
  waitUntil(() => collector.messages.find((m) => m.key === id), { what: `a message keyed ${id}` })
    .then(({ key, value, headers }) => ({ key, value, headers }))

test('POST /transfers: 202 with no body, and the prepare on the prepare topic with the payer\'s headers', async () => {
  const body = prepareBody({ extensionList: { extension: [{ key: 'purpose', value: 'salary' }] } })
  const headers = transferHeaders({
    'fspiop-signature': '{"signature":"abc","protectedHeader":"def"}',
    'fspiop-uri': '/transfers',
    'fspiop-http-method': 'POST',
    traceparent: TRACEPARENT,
    tracestate: 'sy=1',
    'x-not-fspiop': 'dropped'
  })
  const res = await client.request({ method: 'POST', url: '/transfers', headers, payload: body })
  expect(res.statusCode).toBe(202)
  expect(res.body).toBe('')

  const { 'x-not-fspiop': _dropped, ...forwarded } = headers
  expect(await messageFor(prepared, body.transferId)).toEqual({
    key: body.transferId,
    value: { type: 'prepare', transferId: body.transferId, headers: forwarded, payload: body },
    headers: { 'content-type': 'application/json', traceparent: TRACEPARENT, tracestate: 'sy=1' }
  })
})

test('POST /transfers accepts v1.0 and v2.0 bodies, a ULID, and an Accept listing several versions', async () => {
  const ulid = '01ARZ3NDEKTSV4RRFFQ69G5FAV'
  const cases = [
    { id: crypto.randomUUID(), contentType: versioned('1.0'), accept: `${versioned('1.0')}, ${versioned('3.0')}` },
    { id: ulid, contentType: versioned('2.0'), accept: 'application/vnd.interoperability.transfers+json' }
  ]
  for (const { id, contentType, accept } of cases) {
    const res = await client.request({
      method: 'POST', url: '/transfers', headers: transferHeaders({ 'content-type': contentType, accept }), payload: prepareBody({ transferId: id })
    })
    expect(res.statusCode).toBe(202)
    expect((await messageFor(prepared, id)).value.headers).toMatchObject({ 'content-type': contentType, accept })
  }
})

test('PUT /transfers/{id}: 200, and the fulfil on the fulfil topic', async () => {
  const id = crypto.randomUUID()
  const headers = transferHeaders({ accept: undefined, 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' })
  const res = await client.request({ method: 'PUT', url: `/transfers/${id}`, headers, payload: fulfilBody() })
  expect(res.statusCode).toBe(200)
  expect(res.body).toBe('')
  expect(await messageFor(fulfils, id)).toEqual({
    key: id,
    value: { type: 'fulfil', transferId: id, headers, payload: fulfilBody() },
    headers: { 'content-type': 'application/json' }
  })
})

test('PUT /transfers/{id}/error: 200, and the error on the fulfil topic', async () => {
  const id = crypto.randomUUID()
  const headers = transferHeaders({ accept: undefined, 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' })
  const payload = errorBody('5104', 'Payee rejected transaction', { extension: [{ key: 'reason', value: 'closed account' }] })
  const res = await client.request({ method: 'PUT', url: `/transfers/${id}/error`, headers, payload })
  expect(res.statusCode).toBe(200)
  expect(res.body).toBe('')
  expect(await messageFor(fulfils, id)).toEqual({
    key: id,
    value: { type: 'error', transferId: id, headers, payload },
    headers: { 'content-type': 'application/json' }
  })
})

test('GET /transfers/{id}: 202, and the get on the fulfil topic', async () => {
  const id = crypto.randomUUID()
  const headers = { 'content-type': versioned('1.1'), accept: versioned('1'), date: DATE, 'fspiop-source': 'payerfsp', traceparent: TRACEPARENT }
  const res = await client.request({ method: 'GET', url: `/transfers/${id}`, headers })
  expect(res.statusCode).toBe(202)
  expect(res.body).toBe('')
  expect(await messageFor(fulfils, id)).toEqual({
    key: id,
    value: { type: 'get', transferId: id, headers },
    headers: { 'content-type': 'application/json', traceparent: TRACEPARENT }
  })
})

test('PATCH /transfers/{id}: 501 2002, PATCH only flows hub → payee', async () => {
  const id = crypto.randomUUID()
  refusedIds.add(id)
  const res = await client.request({ method: 'PATCH', url: `/transfers/${id}`, headers: transferHeaders(), payload: fulfilBody() })
  expect(res.statusCode).toBe(501)
  expect(res.json()).toEqual(errorBody('2002', 'Not implemented - PATCH /transfers/{ID} is sent by the hub to the payee, not accepted from participants'))
})

test('HEAD /transfers/{id} does not ask for a callback: 405', async () => {
  const id = crypto.randomUUID()
  refusedIds.add(id)
  const res = await client.request({ method: 'HEAD', url: `/transfers/${id}`, headers: transferHeaders() })
  expect(res.statusCode).toBe(405)
  expect(res.headers.allow).toBe('GET, PUT, PATCH')
})

describe('refused requests get their FSPIOP error', () => {
  test.each(errorCases(config))('$name', async ({ request, ids = [], status, body, headers = {} }) => {
    for (const id of ids) refusedIds.add(id)
    const res = await client.request(request)
    expect(res.statusCode).toBe(status)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.headers).toMatchObject(headers)
    expect(res.json()).toEqual(body)
  })
})

test('a broker that does not take the message: 503 2003, and the participant may retry', async () => {
  // A real producer that was never connected: send() fails at once.
  const producer = createProducer({ kafka: createKafkaFromConfig(config) })
  const app = buildApp({ config, logger: createLogger(config), health: async () => ({ status: 'OK' }), producer })
  try {
    const down = await listen(app)
    const body = prepareBody()
    refusedIds.add(body.transferId)
    const res = await down.request({ method: 'POST', url: '/transfers', headers: transferHeaders(), payload: body })
    expect(res.statusCode).toBe(503)
    expect(res.json()).toEqual(errorBody('2003', 'Service currently unavailable - the message broker did not accept the request'))
  } finally {
    await app.close()
  }
})

test('nothing was produced for a refused request', async () => {
  // One partition per topic: once a later message has arrived, every earlier one has too.
  const last = { prepare: prepareBody(), get: crypto.randomUUID() }
  const headers = transferHeaders()
  expect((await client.request({ method: 'POST', url: '/transfers', headers, payload: last.prepare })).statusCode).toBe(202)
  expect((await client.request({ method: 'GET', url: `/transfers/${last.get}`, headers })).statusCode).toBe(202)
  await messageFor(prepared, last.prepare.transferId)
  await messageFor(fulfils, last.get)
  expect(refusedIds.size).toBeGreaterThan(20)
  const produced = [...prepared.messages, ...fulfils.messages].map((m) => m.key).filter((key) => refusedIds.has(key))
  expect(produced).toEqual([])
})
