'use strict'

const { toWire, fromKafka, traceHeaders } = require('../../src/kafka/envelope')

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'

test('a message survives the trip to the wire and back, trace context included', () => {
  const wire = toWire({ topic: 't', key: 'k1', value: { amount: '10.5' }, headers: { traceparent, skipped: undefined } })
  expect(wire).toEqual({ topic: 't', key: 'k1', value: '{"amount":"10.5"}', headers: { 'content-type': 'application/json', traceparent } })
  const incoming = fromKafka('t', 2, {
    key: Buffer.from(wire.key),
    value: Buffer.from(wire.value),
    headers: Object.fromEntries(Object.entries(wire.headers).map(([k, v]) => [k, Buffer.from(v)])),
    offset: '42',
    timestamp: '1700000000000'
  })
  expect(incoming).toEqual({
    topic: 't',
    partition: 2,
    offset: 42n,
    key: 'k1',
    value: { amount: '10.5' },
    raw: '{"amount":"10.5"}',
    headers: { 'content-type': 'application/json', traceparent },
    timestamp: 1700000000000
  })
  expect(traceHeaders(incoming)).toEqual({ traceparent })
})

test('a value that is not JSON is kept with its parse error instead of throwing', () => {
  const incoming = fromKafka('t', 0, { key: null, value: Buffer.from('{nope'), offset: '1', timestamp: '1' })
  expect(incoming.raw).toBe('{nope')
  expect(incoming.parseError).toBeInstanceOf(SyntaxError)
})

test('outgoing messages need a topic and a key', () => {
  expect(() => toWire({ topic: '', key: 'k', value: 1 })).toThrow(/without topic/)
  expect(() => toWire({ topic: 't', key: undefined, value: 1 })).toThrow(/without key/)
})
