'use strict'

// The one-pass produce encoding (shared/src/kafka/produce-encoding.js) against
// kafkajs's own: the same bytes for every shape of request the producer can be
// handed. The broker would reject a batch whose CRC or lengths were wrong; the
// integration tests produce through it against the real one.

const kafkajsV3 = require('kafkajs/src/protocol/requests/produce/v3/request')
const Long = require('kafkajs/src/utils/long')
const { Types } = require('kafkajs/src/protocol/message/compression')
const { version } = require('kafkajs/package.json')
const { encodeProduceRequest, useProduceEncoding } = require('../../src/kafka/produce-encoding')
const { produceEncodingPatched } = require('../../src/kafka/client')

const NOW = 1796000000123

/** kafkajs's bytes for the request, at NOW. */
async function kafkajsBytes (/** @type {any} */ request) {
  const spy = jest.spyOn(Date, 'now').mockReturnValue(NOW)
  try {
    return (await kafkajsV3(request).encode()).buffer
  } finally {
    spy.mockRestore()
  }
}

const traced = { 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }
const json = (i) => JSON.stringify({ transferId: `b51ec534-ee48-4575-b6a9-ead2955b80${String(i).padStart(2, '0')}`, amount: { amount: '100.25', currency: 'USD' } })

const cases = {
  'one message with the switch\'s headers': {
    topicData: [{ topic: 'switchyard.transfer-prepare', partitions: [{ partition: 0, messages: [{ key: 'payerfsp', value: json(1), headers: traced }] }] }]
  },
  'null and Buffer keys and values, no headers': {
    topicData: [{ topic: 't', partitions: [{ partition: 3, messages: [{ key: null, value: Buffer.from([0, 1, 2, 255]) }, { key: Buffer.from('k'), value: null, headers: {} }] }] }]
  },
  'multi-byte UTF-8 in keys, values, header names and values': {
    topicData: [{ topic: 'tópico', partitions: [{ partition: 1, messages: [{ key: 'ключ', value: '{"note":"payé 💸"}', headers: { naïve: 'ü', 'x-bytes': Buffer.from('é') } }] }] }]
  },
  'header arrays': {
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', headers: { many: ['a', 'bb', Buffer.from('ccc')], one: 'x' } }] }] }]
  },
  'multi-byte varints: 300 records, one of 20,000 bytes': {
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: i === 150 ? 'v'.repeat(20000) : json(i), headers: i % 2 ? traced : undefined })) }] }]
  },
  'timestamps given, unsorted, as numbers and strings, one missing': {
    topicData: [{ topic: 't', partitions: [{ partition: 0, messages: [{ key: 'a', value: '1', timestamp: 1796000000005 }, { key: 'b', value: '2', timestamp: '1796000000001' }, { key: 'c', value: '3' }, { key: 'd', value: '4', timestamp: 999 }] }] }]
  },
  'transactional fields and acks': {
    acks: 1,
    timeout: 5000,
    transactionalId: 'tx-é',
    producerId: Long.fromValue(123456789012),
    producerEpoch: 3,
    topicData: [{ topic: 't', partitions: [{ partition: 2, firstSequence: 17, messages: [{ key: 'a', value: json(2), headers: traced }] }] }]
  },
  'several topics and partitions, one empty': {
    topicData: [
      { topic: 'switchyard.transfer-position', partitions: [{ partition: 0, messages: [{ key: '1', value: json(3) }] }, { partition: 5, messages: [{ key: '2', value: json(4) }, { key: '3', value: json(5) }] }] },
      { topic: 'switchyard.notification', partitions: [{ partition: 1, messages: [] }] }
    ]
  }
}

describe.each(Object.entries(cases))('%s', (_name, shape) => {
  const request = { acks: -1, timeout: 30000, compression: Types.None, ...shape }

  test('is encoded byte for byte as kafkajs encodes it', async () => {
    const expected = await kafkajsBytes(request)
    const actual = encodeProduceRequest(request, NOW)
    expect(actual.length).toBe(expected.length)
    expect(actual.equals(expected)).toBe(true)
  })
})

describe('useProduceEncoding', () => {
  function patchedProduce () {
    const made = []
    const produce = {
      versions: ['3', '7'],
      protocol: ({ version: v }) => (args) => {
        const request = { ...kafkajsV3(args), apiVersion: Number(v) }
        made.push({ request, encode: request.encode })
        return { request, response: { v } }
      }
    }
    useProduceEncoding(produce)
    return { produce, made }
  }
  const request = { acks: -1, timeout: 30000, topicData: cases['one message with the switch\'s headers'].topicData }

  test.each([3, 7])('encodes version %i in one pass, keeping the request\'s version and response', async (v) => {
    const { produce } = patchedProduce()
    const { request: made, response } = produce.protocol({ version: v })(request)
    expect(made.apiVersion).toBe(v)
    expect(response).toEqual({ v })
    const spy = jest.spyOn(Date, 'now').mockReturnValue(NOW)
    try {
      const encoder = await made.encode()
      expect(encoder.buffer.equals(await kafkajsBytes(request))).toBe(true)
      expect(encoder).toBeInstanceOf(require('kafkajs/src/protocol/encoder'))
    } finally {
      spy.mockRestore()
    }
  })

  test('leaves compressed batches and other versions to kafkajs', () => {
    const { produce, made } = patchedProduce()
    produce.protocol({ version: 7 })({ ...request, compression: Types.GZIP })
    produce.protocol({ version: 2 })(request)
    produce.protocol({ version: 7 })(request)
    expect(made).toHaveLength(3)
    // kafkajs's encode kept for the first two, replaced for the third.
    expect(made.map((m) => m.request.encode === m.encode)).toEqual([true, true, false])
  })

  test('is on for the kafkajs version it was written against, and only that one', () => {
    expect(produceEncodingPatched).toBe(version === '2.2.4')
  })
})
