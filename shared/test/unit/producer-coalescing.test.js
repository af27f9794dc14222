'use strict'

// sendSoon's batching: what is handed over while a produce request is in
// flight goes out together in the next one. The kafkajs producer is replaced
// by a recorder here because the subject is the scheduling, not the broker;
// the integration tests send through the real broker.

const { createProducer } = require('../../src/kafka/producer')

function recordingKafka () {
  const requests = []
  /** @type {(() => void)[]} */
  const answers = []
  const kafka = {
    producer: () => ({
      connect: async () => {},
      disconnect: async () => {},
      sendBatch: (req) => {
        requests.push(req.topicMessages.flatMap((t) => t.messages.map((m) => m.value)))
        return new Promise((resolve) => answers.push(resolve))
      }
    })
  }
  return { kafka, requests, answerNext: () => answers.shift()() }
}

const msg = (value) => ({ topic: 't', key: 'k', value, headers: {} })
const turn = () => new Promise((resolve) => setImmediate(resolve))

test('an idle producer sends right after the current turn', async () => {
  const { kafka, requests, answerNext } = recordingKafka()
  const producer = createProducer({ kafka: /** @type {any} */ (kafka) })
  const sent = producer.sendSoon([msg('a')])
  producer.sendSoon([msg('b')])
  expect(requests).toHaveLength(0)
  await turn()
  expect(requests).toEqual([['a', 'b']])
  answerNext()
  await sent
})

test('messages handed over while a request is in flight share the next request', async () => {
  const { kafka, requests, answerNext } = recordingKafka()
  const producer = createProducer({ kafka: /** @type {any} */ (kafka) })
  const first = producer.sendSoon([msg('a')])
  await turn()
  const later = []
  for (const v of ['b', 'c', 'd']) { later.push(producer.sendSoon([msg(v)])); await turn() }
  // Still one request: the broker has not answered the first.
  expect(requests).toEqual([['a']])
  let settled = false
  Promise.all(later).then(() => { settled = true })
  answerNext()
  await first
  await turn()
  expect(requests).toEqual([['a'], ['b', 'c', 'd']])
  expect(settled).toBe(false)
  answerNext()
  await Promise.all(later)
})

test('a failed request rejects its callers and the next one still goes out', async () => {
  const requests = []
  let fail = true
  const kafka = {
    producer: () => ({
      connect: async () => {},
      sendBatch: async (req) => {
        requests.push(req)
        if (fail) { fail = false; throw new Error('broker away') }
      }
    })
  }
  const producer = createProducer({ kafka: /** @type {any} */ (kafka) })
  await expect(producer.sendSoon([msg('a')])).rejects.toThrow('broker away')
  await expect(producer.sendSoon([msg('b')])).resolves.toBeUndefined()
  expect(requests).toHaveLength(2)
})

describe('spacing (API_PRODUCE_SPACING_MS)', () => {
  // The clock is the test's; setTimeout is jest's, setImmediate the real one.
  let clock = 0
  const now = () => clock
  beforeEach(() => { clock = 1000; jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }) })
  afterEach(() => jest.useRealTimers())
  const spaced = { spaced: true }

  /** Sends a request carrying one sendSoon per value and lets the broker answer it. */
  async function answered (producer, answerNext, values) {
    const sent = values.map((v) => producer.sendSoon([msg(v)], spaced))
    await turn()
    answerNext()
    await Promise.all(sent)
  }

  test('after a request that carried several callers\' messages, the next starts spacingMs after it did', async () => {
    const { kafka, requests, answerNext } = recordingKafka()
    const producer = createProducer({ kafka: /** @type {any} */ (kafka), spacingMs: 5, now })
    await answered(producer, answerNext, ['a', 'b'])
    clock += 2
    const later = producer.sendSoon([msg('c')], spaced)
    await turn()
    producer.sendSoon([msg('d')], spaced)
    await turn()
    expect(requests).toEqual([['a', 'b']])
    jest.advanceTimersByTime(2)
    await turn()
    expect(requests).toEqual([['a', 'b']])
    clock += 3
    jest.advanceTimersByTime(1)
    await turn()
    expect(requests).toEqual([['a', 'b'], ['c', 'd']])
    answerNext()
    await later
  })

  test('after one caller\'s messages, or once spacingMs has passed, the next request goes right after the turn', async () => {
    const { kafka, requests, answerNext } = recordingKafka()
    const producer = createProducer({ kafka: /** @type {any} */ (kafka), spacingMs: 5, now })
    // One caller with two messages is not coalescing.
    const first = producer.sendSoon([msg('a1'), msg('a2')], spaced)
    await turn()
    answerNext()
    await first
    const second = producer.sendSoon([msg('b')], spaced)
    await turn()
    expect(requests).toEqual([['a1', 'a2'], ['b']])
    answerNext()
    await second
    await answered(producer, answerNext, ['c', 'd'])
    clock += 5
    const fourth = producer.sendSoon([msg('e')], spaced)
    await turn()
    expect(requests).toEqual([['a1', 'a2'], ['b'], ['c', 'd'], ['e']])
    answerNext()
    await fourth
  })

  /** A producer whose message 'c' waits for the spacing after a request of 'a' and 'b'. */
  async function oneWaiting () {
    const { kafka, requests, answerNext } = recordingKafka()
    const producer = createProducer({ kafka: /** @type {any} */ (kafka), spacingMs: 5, now })
    await answered(producer, answerNext, ['a', 'b'])
    const waiting = producer.sendSoon([msg('c')], spaced)
    await turn()
    expect(requests).toHaveLength(1)
    return { producer, requests, answerNext, waiting }
  }

  test('a caller that may not wait takes what waits for the spacing with it at once', async () => {
    const { producer, requests, answerNext, waiting } = await oneWaiting()
    const urgent = producer.sendSoon([msg('d')])
    await turn()
    expect(requests).toEqual([['a', 'b'], ['c', 'd']])
    answerNext()
    await Promise.all([waiting, urgent])
  })

  test('disconnect sends what waits for its spacing at once', async () => {
    const { producer, requests, answerNext, waiting } = await oneWaiting()
    await producer.disconnect()
    expect(requests).toEqual([['a', 'b'], ['c']])
    answerNext()
    await waiting
  })

  test('without spacing a coalesced request is followed at once', async () => {
    const { kafka, requests, answerNext } = recordingKafka()
    const producer = createProducer({ kafka: /** @type {any} */ (kafka), now })
    await answered(producer, answerNext, ['a', 'b'])
    const next = producer.sendSoon([msg('c')], spaced)
    await turn()
    expect(requests).toEqual([['a', 'b'], ['c']])
    answerNext()
    await next
  })
})
