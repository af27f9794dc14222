'use strict'

// The OpenAPI document lists every route the app serves, with the schemas
// the routes validate with. Built without Kafka: no route is called.

const { buildApp } = require('../../src/app')
const { testConfig } = require('../../../test/support/config')
const { createLogger } = require('../../../shared/src/logger')
const { listen } = require('../support/http')

const config = testConfig()
/** @type {import('fastify').FastifyInstance} */
let app
/** @type {Array<{ method: string, url: string }>} */
const registered = []
/** @type {any} */
let doc

beforeAll(async () => {
  app = buildApp({ config, logger: createLogger(config), health: async () => ({ status: 'OK' }) })
  // Route plugins load at ready(), so this hook sees every route they add.
  app.addHook('onRoute', ({ method, url }) => {
    for (const m of [method].flat()) if (m !== 'HEAD') registered.push({ method: m, url })
  })
  const client = await listen(app)
  const res = await client.request({ url: '/openapi.json' })
  expect(res.statusCode).toBe(200)
  doc = res.json()
})

afterAll(() => app.close())

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.keys(/** @type {object} */ (ops)).map((method) => `${method.toUpperCase()} ${path}`))

test('every registered route appears, and nothing else', () => {
  const expected = registered.map(({ method, url }) => `${method} ${url.replace(/:(\w+)/g, '{$1}')}`)
  expect(operations().sort()).toEqual(expected.sort())
  // Independently of the hook: as many operations as fastify's router has
  // methods (HEAD routes are fastify's automatic twins of GET).
  const methods = [...app.printRoutes({ commonPrefix: false }).matchAll(/\(([A-Z, ]+)\)/g)]
    .flatMap((m) => m[1].split(', ')).filter((m) => m !== 'HEAD')
  expect(operations()).toHaveLength(methods.length)
  expect(operations()).toEqual(expect.arrayContaining([
    'GET /health', 'GET /readyz', 'GET /livez', 'POST /transfers', 'PUT /transfers/{id}', 'GET /transfers/{id}', 'PATCH /transfers/{id}',
    'PUT /transfers/{id}/error', 'GET /openapi.json'
  ]))
})

test('is OpenAPI 3.0 with every $ref resolving to a component', () => {
  expect(doc).toMatchObject({ openapi: '3.0.3', info: { title: expect.any(String), version: expect.any(String) } })
  expect(Object.keys(doc.components.schemas).sort()).toEqual(['ErrorInformationResponse', 'HealthReport'])
  const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1])
  expect(refs.length).toBeGreaterThan(0)
  for (const ref of refs) expect(doc.components.schemas[ref.replace('#/components/schemas/', '')]).toBeDefined()
  expect(JSON.stringify(doc)).not.toMatch(/"\$id"|"type":"null"/)
})

test('POST /transfers documents its headers, body and answers from the route schema', () => {
  const post = doc.paths['/transfers'].post
  const headers = Object.fromEntries(post.parameters.map((/** @type {any} */ p) => [p.name, p]))
  expect(Object.values(headers).every((/** @type {any} */ p) => p.in === 'header')).toBe(true)
  expect(Object.keys(headers).filter((name) => headers[name].required).sort())
    .toEqual(['accept', 'content-type', 'date', 'fspiop-source'])
  const body = post.requestBody.content['application/vnd.interoperability.transfers+json'].schema
  expect(body.required).toEqual(['transferId', 'payeeFsp', 'payerFsp', 'amount', 'ilpPacket', 'condition', 'expiration'])
  expect(body.properties.amount.properties.amount.pattern).toBe('^([0]|([1-9][0-9]{0,17}))([.][0-9]{0,3}[1-9])?$')
  expect(post.responses).toEqual({
    202: { description: expect.stringMatching(/^Accepted/) },
    '4XX': { description: 'FSPIOP error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorInformationResponse' } } } },
    '5XX': { description: 'FSPIOP error', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorInformationResponse' } } } }
  })
})

test('path parameters are required and carry their schema', () => {
  const [id] = doc.paths['/transfers/{id}'].put.parameters
  expect(id).toMatchObject({ name: 'id', in: 'path', required: true, schema: { title: 'CorrelationId', type: 'string' } })
})
