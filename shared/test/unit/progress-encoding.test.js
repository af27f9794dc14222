'use strict'

// The stored copy of what a chunk emitted must come back byte for byte: a
// replay after a crash re-sends exactly these messages.

const { encodeOutgoing, packOutgoing, decodeOutgoing, toProgress } = require('../../src/kafka/progress')
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

test('large stored forms are compressed, small ones stay JSON text, and both read back exactly', () => {
  const many = Array.from({ length: 40 }, (_, i) => toWire({ topic: 'sy.notification', key: `fsp${i}`, value: { to: `fsp${i}`, body: { transferId: `t-${i}`, note: 'é 🚀' } } }))
  const packed = packOutgoing(many)
  expect(packed.length).toBeLessThan(Buffer.byteLength(encodeOutgoing(many)) / 4)
  expect(decodeOutgoing(packed)).toEqual(many)
  const small = packOutgoing(messages.slice(2))
  expect(small.toString('utf8')).toBe(encodeOutgoing(messages.slice(2)))
  expect(decodeOutgoing(small)).toEqual(messages.slice(2))
  expect(decodeOutgoing(packOutgoing([]))).toEqual([])
})

test('rows stored as text before the column was binary still read back', () => {
  expect(decodeOutgoing(Buffer.from(encodeOutgoing(messages), 'utf8'))).toEqual(messages)
  expect(decodeOutgoing(encodeOutgoing(messages))).toEqual(messages)
})
