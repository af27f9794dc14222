'use strict'

// Tracing off (the default): no OpenTelemetry SDK is registered in this test,
// so the API's propagator and tracer are no-ops, as in a switch started
// without TRACING_EXPORTERS.

const { traceCallback } = require('../../src/notification/trace-callback')

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'

const job = (headers) => ({
  participant: 'payeefsp',
  transferId: 'b51ec534-ee48-4575-b6a9-ead2955b8069',
  method: 'POST',
  path: '/transfers',
  headers,
  attempts: 0
})

test('untraced, the stored trace headers (a participant\'s own) go on as they came', async () => {
  const stored = { 'fspiop-source': 'payerfsp', traceparent: TRACEPARENT, tracestate: 'dfsp=abc,other=1' }
  /** @type {Record<string, string>[]} */
  const sent = []
  const result = await traceCallback(job(stored), 'http://payee.test/transfers', async (headers) => {
    sent.push(headers)
    return { statusCode: 202 }
  })
  expect(result.statusCode).toBe(202)
  expect(sent).toEqual([{ 'fspiop-source': 'payerfsp', traceparent: TRACEPARENT, tracestate: 'dfsp=abc,other=1' }])
})

test('untraced and without trace headers, none are made up', async () => {
  /** @type {Record<string, string>[]} */
  const sent = []
  await traceCallback(job({ 'fspiop-source': 'Hub' }), 'http://payer.test/transfers', async (headers) => {
    sent.push(headers)
    return { statusCode: 200 }
  })
  expect(sent).toEqual([{ 'fspiop-source': 'Hub' }])
})

test('a failed attempt still throws', async () => {
  await expect(traceCallback(job({ traceparent: TRACEPARENT }), 'http://payee.test/transfers', async () => { throw new Error('ECONNREFUSED') }))
    .rejects.toThrow('ECONNREFUSED')
})
