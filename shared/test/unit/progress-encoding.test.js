'use strict'

// The stored copy of what a chunk emitted must come back byte for byte: a
// replay after a crash re-sends exactly these messages.

const { encodeOutgoing, decodeOutgoing, toProgress } = require('../../src/kafka/progress')
const { toWire } = require('../../src/kafka/envelope')

const messages = [
  toWire({ topic: 'sy.notification', key: 'payeefsp', value: { to: 'payeefsp', body: { amount: { amount: '10.25', currency: 'EUR' }, note: 'quotes " and \\ and é 🚀 \u2028' } }, headers: { traceparent: '00-abc-def-01' } }),
  toWire({ topic: 'sy.transfer-position', key: '17', value: { action: 'reserve', big: 2 ** 60, small: 1e-7, list: [null, true, -0] } }),
  toWire({ topic: 'sy.dlq', key: 'k', value: 'a plain string value' }),
  toWire({ topic: 'sy.dlq', key: 'k', value: null })
]

test('messages round-trip exactly through the stored form', () => {
  expect(decodeOutgoing(encodeOutgoing(messages))).toEqual(messages)
  expect(decodeOutgoing(encodeOutgoing([]))).toEqual([])
})

test('the stored form is valid JSON and does not escape the payloads again', () => {
  const text = encodeOutgoing(messages)
  expect(() => JSON.parse(text)).not.toThrow()
  expect(text.length).toBeLessThan(JSON.stringify(messages).length)
  expect(text).toContain('"v":{"to":"payeefsp"')
})

test('rows stored in the earlier form (value as a string) still read back', () => {
  const [row] = [{ first_offset: '3', last_offset: '5', outgoing: JSON.stringify(messages) }]
  expect(toProgress([row])).toEqual({ appliedThrough: 5n, last: { firstOffset: 3n, lastOffset: 5n, outgoing: messages } })
})
