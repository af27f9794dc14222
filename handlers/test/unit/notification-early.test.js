'use strict'

// A notification handed over early (as its stage committed) and the record it
// becomes once produced and consumed must describe the same callback, and say
// so by the same content: that is how the record adopts the early attempt.

const { toWire, fromKafka } = require('@switchyard/shared/kafka')
const { earlyJobs, createHandleBatch } = require('../../src/notification/handle')

const notification = (to, state) => toWire({
  topic: 'p.notification',
  key: to,
  headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  value: { to, transferId: 't-1', endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', path: '/transfers/t-1', headers: { 'FSPIOP-Source': 'payee' }, body: { transferState: state } }
})

/** The wire message as the notification consumer reads it back. */
const consumed = (wire, offset) => fromKafka(wire.topic, 0, {
  key: Buffer.from(wire.key),
  value: Buffer.from(wire.value),
  headers: Object.fromEntries(Object.entries(wire.headers).map(([k, v]) => [k, Buffer.from(v)])),
  offset: String(offset),
  timestamp: '0'
})

/** The jobs a batch of records hands to deliverFirst. */
async function recordJobs (records) {
  let handed = []
  const dispatcher = { deliverFirst: async (jobs) => { handed = jobs; return [] }, written: () => {} }
  const handleBatch = createHandleBatch({ repository: /** @type {any} */ ({ insertCallbacks: () => {} }), dispatcher: /** @type {any} */ (dispatcher), deadLetterTopic: 'dlq', inlineWaitMs: 0 })
  await handleBatch({ writes: /** @type {any} */ ({}) }, records)
  return handed
}

test('an early callback and its record carry the same callback and the same content; another notification does not', async () => {
  const committed = notification('payer', 'COMMITTED')
  const [early] = earlyJobs([committed])
  const [record, other] = await recordJobs([consumed(committed, 7), consumed(notification('payer', 'ABORTED'), 8)])
  expect(early.content).toBe(record.content)
  expect(other.content).not.toBe(record.content)
  const { callbackId, content, ...sent } = record
  expect(early).toMatchObject(sent)
  // The trace context travels with the callback on both sides.
  expect(early.headers.traceparent).toBe(committed.headers.traceparent)
})

test('a message that is not a valid notification is left to its record', () => {
  expect(earlyJobs([{ ...notification('payer', 'COMMITTED'), value: '{not json' }, toWire({ topic: 'p.notification', key: 'x', value: { to: 'x' } })])).toEqual([])
})
