'use strict'

// deliverFirst: new callbacks are tried before their rows exist, and the
// consumer waits for those first attempts — but not for a participant that
// has been answering more slowly than the wait, so one slow participant does
// not hold back the next batch of everyone else's callbacks. Outcomes that
// arrive before the row is written wait with the callback until written().

const pino = require('pino')
const { createDispatcher } = require('../../src/notification/dispatcher')

const CONFIG = { CALLBACK_BACKOFF_MS: 1000, CALLBACK_MAX_BACKOFF_MS: 1000, CALLBACK_MAX_ATTEMPTS: 1, CALLBACK_CONCURRENCY: 4 }
const LONG_WAIT_MS = 60000 // a deliverFirst that waits this long fails the test by its timeout

let n = 0
function job (participant) {
  n++
  // content: what the notification's text would be (handle.js callbackOf).
  return { callbackId: `cb-${n}`, participant, transferId: `t-${n}`, endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', path: `/transfers/t-${n}`, headers: {}, body: '{}', attempts: 0, dueInMs: 0, content: ` \n{"to":"${participant}","n":${n}}` }
}

/** An HTTP client whose answers the test gives, per request, in order. */
function scriptedHttp () {
  const waiting = []
  return {
    waiting,
    send: (req) => new Promise((resolve, reject) => waiting.push({ resolve, reject, req })),
    answer: (i, statusCode) => waiting[i].resolve({ statusCode }),
    fail: (i, err) => waiting[i].reject(err),
    destroy: async () => { for (const w of waiting) w.reject(new Error('destroyed')) }
  }
}

const REGISTERED = { get: async () => ({ registered: true, value: 'http://dfsp.test/transfers/{{transferId}}' }) }

function setup ({ config = CONFIG, endpoints = REGISTERED, earlyMax = undefined } = {}) {
  const http = scriptedHttp()
  const written = { attempts: [], updates: [] }
  const deadLetters = []
  const dispatcher = createDispatcher({
    config: /** @type {any} */ (config),
    logger: pino({ level: 'silent' }),
    endpoints: /** @type {any} */ (endpoints),
    http: /** @type {any} */ (http),
    writer: /** @type {any} */ ({ attempt: (r) => written.attempts.push(r), update: (r) => written.updates.push(r) }),
    producer: { send: async (messages) => { deadLetters.push(...messages) } },
    deadLetterTopic: 'dlq',
    earlyMax
  })
  return { http, written, dispatcher, deadLetters }
}

const until = async (check) => { while (!check()) await new Promise((resolve) => setImmediate(resolve)) }

test('waits for a first attempt and describes the row it left: delivered, one attempt', async () => {
  const { http, written, dispatcher } = setup()
  const first = dispatcher.deliverFirst([job('fast')], LONG_WAIT_MS)
  await until(() => http.waiting.length === 1)
  http.answer(0, 200)
  const [outcome] = await first
  expect(outcome.state).toMatchObject({ status: 'DELIVERED', attempts: 1, lastError: null })
  expect(outcome.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200, error: null })])
  // Nothing reached the write buffer: the consumer writes it with the row.
  expect(written).toEqual({ attempts: [], updates: [] })
  dispatcher.written([outcome.job])
  expect(written).toEqual({ attempts: [], updates: [] })
  await dispatcher.stop(0)
})

test('does not wait for a participant that has been answering more slowly than the wait', async () => {
  const { http, dispatcher } = setup()
  // The slow participant's first callback: waited for (nothing known yet), for at most 30 ms.
  const [pending] = await dispatcher.deliverFirst([job('slow')], 30)
  expect(pending.state).toBeNull()
  expect(pending.attempts).toEqual([])
  dispatcher.written([pending.job])
  http.fail(0, Object.assign(new Error('no answer'), { code: 'UND_ERR_HEADERS_TIMEOUT' }))
  await until(() => dispatcher.size() === 0)

  // Its next callback, in a batch with a fast participant's: only the fast one is waited for.
  const batch = dispatcher.deliverFirst([job('slow'), job('fast')], LONG_WAIT_MS)
  await until(() => http.waiting.length === 3)
  http.answer(2, 200)
  const [slow, fast] = await batch
  expect(slow.state).toBeNull()
  expect(fast.state).toMatchObject({ status: 'DELIVERED', attempts: 1 })
  await dispatcher.stop(0)
})

test('an outcome that arrives before written() goes to the write buffer only then', async () => {
  const { http, written, dispatcher } = setup()
  const [outcome] = await dispatcher.deliverFirst([job('late')], 10)
  expect(outcome.state).toBeNull()
  http.answer(0, 200)
  await until(() => !outcome.job.running)
  expect(written).toEqual({ attempts: [], updates: [] })
  dispatcher.written([outcome.job])
  expect(written.attempts).toEqual([expect.objectContaining({ callbackId: outcome.job.callbackId, attempt: 1, statusCode: 200 })])
  expect(written.updates).toEqual([expect.objectContaining({ callbackId: outcome.job.callbackId, status: 'DELIVERED', attempts: 1 })])
  await dispatcher.stop(0)
})

test('a retried transaction gets the same callbacks back, not a second delivery', async () => {
  const { http, dispatcher } = setup()
  const j = job('fast')
  const first = dispatcher.deliverFirst([j], LONG_WAIT_MS)
  await until(() => http.waiting.length === 1)
  http.answer(0, 200)
  await first
  const [again] = await dispatcher.deliverFirst([{ ...j }], LONG_WAIT_MS)
  expect(http.waiting).toHaveLength(1)
  expect(again.state).toMatchObject({ status: 'DELIVERED', attempts: 1 })
  await dispatcher.stop(0)
})

test('unwrittenBetween: the callbacks a consumer last took up in that window and never said were written', async () => {
  const { http, dispatcher } = setup()
  const clock = jest.spyOn(Date, 'now').mockReturnValue(1000)
  try {
    const [a] = await dispatcher.deliverFirst([job('p')], 0)
    clock.mockReturnValue(2000)
    const [b] = await dispatcher.deliverFirst([job('p')], 0)
    expect(dispatcher.unwrittenBetween(0, 1500)).toEqual([a.job])
    expect(dispatcher.unwrittenBetween(0, 2000)).toEqual([a.job, b.job])
    // A retried transaction takes it up again: its clock starts over.
    clock.mockReturnValue(3000)
    await dispatcher.deliverFirst([{ ...a.job }], 0)
    expect(dispatcher.unwrittenBetween(0, 2500)).toEqual([b.job])
    dispatcher.written([b.job])
    expect(dispatcher.unwrittenBetween(0, 3000)).toEqual([a.job])
  } finally {
    clock.mockRestore()
    for (let i = 0; i < http.waiting.length; i++) http.answer(i, 200)
    await dispatcher.stop(0)
  }
})

test('a participant without the endpoint is tried again like one that is down: an endpoint registered meanwhile gets the callback', async () => {
  let asked = 0
  // Registered between the first attempt and the second.
  const endpoints = { get: async () => ({ registered: true, value: ++asked > 1 ? 'http://dfsp.test/transfers/{{transferId}}' : null }) }
  const { http, written, dispatcher } = setup({ config: { ...CONFIG, CALLBACK_BACKOFF_MS: 1, CALLBACK_MAX_BACKOFF_MS: 1, CALLBACK_MAX_ATTEMPTS: 3 }, endpoints })
  const [first] = await dispatcher.deliverFirst([job('late')], LONG_WAIT_MS)
  const missing = 'participant late has no FSPIOP_CALLBACK_URL_TRANSFER_PUT endpoint registered'
  // Not given up: pending, to be tried again.
  expect(first.state).toMatchObject({ status: 'PENDING', attempts: 1, lastError: missing })
  expect(first.attempts).toEqual([expect.objectContaining({ attempt: 1, url: null, statusCode: null, error: missing })])
  dispatcher.written([first.job])
  await until(() => http.waiting.length === 1)
  http.answer(0, 200)
  await until(() => written.updates.some((u) => u.status === 'DELIVERED'))
  expect(written.attempts).toEqual([expect.objectContaining({ attempt: 2, url: `http://dfsp.test${first.job.path}`, statusCode: 200, error: null })])
  expect(written.updates.at(-1)).toMatchObject({ status: 'DELIVERED', attempts: 2 })
  await dispatcher.stop(0)
})

test('a callback whose lease another instance took over is dropped: no attempt after its wait, nothing after the one in flight', async () => {
  const { http, written, dispatcher } = setup({ config: { ...CONFIG, CALLBACK_MAX_ATTEMPTS: 5 } })
  const waiting = { ...job('p'), dueInMs: 30 }
  const inFlight = job('p')
  dispatcher.enqueue([waiting, inFlight])
  await until(() => http.waiting.length === 1)
  dispatcher.forget([waiting.callbackId, inFlight.callbackId])
  expect(dispatcher.size()).toBe(0)
  // The attempt in flight fails: no retry follows, and its outcome is not recorded here.
  http.answer(0, 503)
  await new Promise((resolve) => setTimeout(resolve, 60))
  expect(http.waiting).toHaveLength(1)
  expect(written).toEqual({ attempts: [], updates: [] })
  await dispatcher.stop(0)
})

// deliverEarly: a stage of this process has just committed a notification;
// its callback is tried before the record is consumed, and the record, when
// deliverFirst gets it, takes the attempt over instead of making another.

/** The same callback as the record that carries it will give it: a copy with the record's id. */
const asRecord = (j, callbackId) => ({ ...j, headers: { ...j.headers }, callbackId, attempts: 0 })

test('a callback tried early is adopted by its record: one request, and the row under the record\'s id', async () => {
  const { http, written, dispatcher } = setup()
  const j = job('fast')
  dispatcher.deliverEarly([{ ...j }])
  // Sent at once, before any record.
  await until(() => http.waiting.length === 1)
  expect(http.waiting[0].req).toMatchObject({ method: 'PUT', url: `http://dfsp.test${j.path}` })
  http.answer(0, 200)
  await new Promise((resolve) => setTimeout(resolve, 10))
  // Nothing written, and nothing held under a lease, until the record comes.
  expect(written).toEqual({ attempts: [], updates: [] })
  expect(dispatcher.size()).toBe(0)
  const [outcome] = await dispatcher.deliverFirst([asRecord(j, 'topic:0:7')], LONG_WAIT_MS)
  expect(http.waiting).toHaveLength(1)
  expect(outcome.job.callbackId).toBe('topic:0:7')
  expect(outcome.state).toMatchObject({ callbackId: 'topic:0:7', status: 'DELIVERED', attempts: 1 })
  expect(outcome.attempts).toEqual([expect.objectContaining({ callbackId: 'topic:0:7', attempt: 1, statusCode: 200 })])
  await dispatcher.stop(0)
})

test('the record waits for an early attempt still in flight, as for its own first attempt', async () => {
  const { http, dispatcher } = setup()
  const j = job('fast')
  dispatcher.deliverEarly([{ ...j }])
  await until(() => http.waiting.length === 1)
  const first = dispatcher.deliverFirst([asRecord(j, 'topic:1:3')], LONG_WAIT_MS)
  http.answer(0, 200)
  const [outcome] = await first
  expect(http.waiting).toHaveLength(1)
  expect(outcome.state).toMatchObject({ callbackId: 'topic:1:3', status: 'DELIVERED', attempts: 1 })
  await dispatcher.stop(0)
})

test('an early attempt that fails is not retried until its record adopts it; then it is, on its schedule', async () => {
  const { http, written, dispatcher } = setup({ config: { ...CONFIG, CALLBACK_BACKOFF_MS: 1, CALLBACK_MAX_BACKOFF_MS: 1, CALLBACK_MAX_ATTEMPTS: 3 } })
  const j = job('flaky')
  dispatcher.deliverEarly([{ ...j }])
  await until(() => http.waiting.length === 1)
  http.answer(0, 503)
  // Well past its 1 ms backoff: no second attempt before the record.
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect(http.waiting).toHaveLength(1)
  const [outcome] = await dispatcher.deliverFirst([asRecord(j, 'topic:2:9')], LONG_WAIT_MS)
  expect(outcome.state).toMatchObject({ callbackId: 'topic:2:9', status: 'PENDING', attempts: 1, lastError: expect.stringContaining('HTTP 503') })
  expect(dispatcher.heldIds()).toEqual(['topic:2:9'])
  dispatcher.written([outcome.job])
  await until(() => http.waiting.length === 2)
  http.answer(1, 200)
  await until(() => written.updates.some((u) => u.status === 'DELIVERED'))
  expect(written.attempts).toEqual([expect.objectContaining({ callbackId: 'topic:2:9', attempt: 2, statusCode: 200 })])
  expect(dispatcher.size()).toBe(0)
  await dispatcher.stop(0)
})

test('an early callback that can never be delivered is dead-lettered only once its record adopts it', async () => {
  const endpoints = { get: async () => ({ registered: false, value: null }) }
  const { written, dispatcher, deadLetters } = setup({ endpoints })
  const j = job('gone')
  dispatcher.deliverEarly([{ ...j }])
  await new Promise((resolve) => setTimeout(resolve, 20))
  expect(deadLetters).toEqual([])
  const [outcome] = await dispatcher.deliverFirst([asRecord(j, 'topic:0:1')], LONG_WAIT_MS)
  dispatcher.written([outcome.job])
  await until(() => written.updates.some((u) => u.status === 'FAILED'))
  expect(deadLetters).toEqual([expect.objectContaining({ topic: 'dlq', value: expect.stringContaining('"callbackId":"topic:0:1"') })])
  expect(written.updates.at(-1)).toMatchObject({ callbackId: 'topic:0:1', status: 'FAILED' })
  await dispatcher.stop(0)
})

test('a record whose content differs is not taken for an early callback; a twin handed over early is left to its own record', async () => {
  const { http, dispatcher } = setup()
  const j = job('p')
  dispatcher.deliverEarly([{ ...j }, { ...j, headers: {} }])
  await until(() => http.waiting.length === 1)
  http.answer(0, 200)
  // Another body: a callback of its own.
  const other = { ...asRecord(j, 'topic:0:1'), body: '{"x":1}', content: `${j.content.slice(0, -1)},"body":{"x":1}}` }
  const firsts = dispatcher.deliverFirst([other, asRecord(j, 'topic:0:2'), asRecord(j, 'topic:0:3')], LONG_WAIT_MS)
  await until(() => http.waiting.length === 3)
  http.answer(1, 200)
  http.answer(2, 200)
  const [a, b, c] = await firsts
  expect(http.waiting.map((w) => w.req.body)).toEqual(['{}', '{"x":1}', '{}'])
  expect([a, b, c].map((o) => o.state && o.state.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED'])
  // The first twin adopted the early attempt; the second was delivered as its record asked.
  expect(b.attempts).toEqual([expect.objectContaining({ callbackId: 'topic:0:2', attempt: 1 })])
  await dispatcher.stop(0)
})

test('an early callback its record never reaches is forgotten after a minute; the record, if it comes later, is delivered again', async () => {
  const { http, dispatcher } = setup()
  const clock = jest.spyOn(Date, 'now').mockReturnValue(1000)
  try {
    const j = job('p')
    dispatcher.deliverEarly([{ ...j }])
    await until(() => http.waiting.length === 1)
    http.answer(0, 200)
    clock.mockReturnValue(1000 + 60001)
    // Any hand-over sweeps what has waited too long.
    dispatcher.deliverEarly([])
    const first = dispatcher.deliverFirst([asRecord(j, 'topic:0:5')], LONG_WAIT_MS)
    await until(() => http.waiting.length === 2)
    http.answer(1, 200)
    const [outcome] = await first
    expect(outcome.state).toMatchObject({ callbackId: 'topic:0:5', status: 'DELIVERED', attempts: 1 })
  } finally {
    clock.mockRestore()
    await dispatcher.stop(0)
  }
})

test('no more than earlyMax callbacks wait for their records; the rest are left to them', async () => {
  const { http, dispatcher } = setup({ earlyMax: 2 })
  const jobs = [job('p'), job('p'), job('p')]
  dispatcher.deliverEarly(jobs.map((j) => ({ ...j })))
  await until(() => http.waiting.length === 2)
  await new Promise((resolve) => setTimeout(resolve, 10))
  expect(http.waiting).toHaveLength(2)
  // The third record's callback is its own; the first two adopt theirs.
  const firsts = dispatcher.deliverFirst(jobs.map((j, i) => asRecord(j, `topic:0:${i}`)), LONG_WAIT_MS)
  await until(() => http.waiting.length === 3)
  for (let i = 0; i < 3; i++) http.answer(i, 200)
  const outcomes = await firsts
  expect(http.waiting.map((w) => w.req.url)).toEqual(jobs.map((j) => `http://dfsp.test${j.path}`))
  expect(outcomes.map((o) => o.state && o.state.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED'])
  await dispatcher.stop(0)
})
