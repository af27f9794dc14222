'use strict'

// The version the hub answers a request in (its own callbacks to the sender)
// is negotiated from the request's headers and goes with the command only
// when it is not 1.1. Built without Kafka: the API publishes to a stand-in.

const crypto = require('node:crypto')
const { buildApp } = require('../../src/app')
const { testConfig } = require('../../../test/support/config')
const { createLogger } = require('../../../shared/src/logger')
const { listen } = require('../support/http')
const { versioned, transferHeaders, prepareBody, fulfilBody } = require('../support/transfers')

/** @type {any[]} */
const published = []
const config = testConfig()
const app = buildApp({
  config,
  logger: createLogger(config),
  health: async () => ({ status: 'OK' }),
  producer: /** @type {any} */ ({ sendSoon: async (/** @type {any[]} */ wires) => { published.push(...wires) } })
})
/** @type {Awaited<ReturnType<typeof listen>>} */
let client

beforeAll(async () => { client = await listen(app) })
afterAll(() => app.close())

/** @param {{ method: string, url: string, headers: Record<string, string | undefined>, payload?: unknown }} request */
async function commandOf (request) {
  published.length = 0
  const res = await client.request(request)
  expect(res.statusCode).toBeLessThan(300)
  expect(published).toHaveLength(1)
  return JSON.parse(published[0].value)
}

const id = crypto.randomUUID()
const MEDIA_TYPE = 'application/vnd.interoperability.transfers+json'

test.each([
  ['version=1.1', versioned('1.1'), undefined],
  ['version=1 (its highest minor, 1.1)', `${MEDIA_TYPE};version=1`, undefined],
  ['version=1.0', versioned('1.0'), '1.0'],
  ['version=2', `${MEDIA_TYPE};version=2`, '2.0'],
  ['no version (the highest, 2.0)', MEDIA_TYPE, '2.0'],
  ['1.0 or 9.0 (1.0, the one supported)', `${MEDIA_TYPE};version=9.0, ${versioned('1.0')}`, '1.0']
])('POST and GET with Accept %s', async (_name, accept, version) => {
  const prepare = await commandOf({ method: 'POST', url: '/transfers', headers: transferHeaders({ accept }), payload: prepareBody() })
  expect(prepare.version).toBe(version)
  const get = await commandOf({ method: 'GET', url: `/transfers/${id}`, headers: transferHeaders({ accept }) })
  expect(get.version).toBe(version)
})

test.each([
  ['no Accept: its Content-Type\'s version', versioned('1.0'), undefined, '1.0'],
  ['no Accept, Content-Type 2.0', versioned('2.0'), undefined, '2.0'],
  ['no Accept, Content-Type 1.1', versioned('1.1'), undefined, undefined],
  ['an Accept: the version negotiated from it', versioned('1.1'), `${MEDIA_TYPE};version=2`, '2.0']
])('PUT with %s', async (_name, contentType, accept, version) => {
  const headers = transferHeaders({ 'content-type': contentType, accept, 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' })
  expect((await commandOf({ method: 'PUT', url: `/transfers/${id}`, headers, payload: fulfilBody() })).version).toBe(version)
  const error = { errorInformation: { errorCode: '5101', errorDescription: 'no' } }
  expect((await commandOf({ method: 'PUT', url: `/transfers/${id}/error`, headers, payload: error })).version).toBe(version)
})
