'use strict'

// kafkajs's per-connection request queue, as shared/src/kafka/client.js runs
// it: no timer once nothing is pending (kafkajs 2.2.4 ran one every
// millisecond for as long as a connection was open), and requests held back
// by throttling or by the in-flight limit still go out.

const { requestQueuePatched } = require('../../src/kafka/client')
const RequestQueue = require('kafkajs/src/network/requestQueue')
const { version } = require('kafkajs/package.json')

const logger = { debug () {}, info () {}, warn () {}, error () {} }
const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** @type {any[]} */
const queues = []
afterEach(() => { for (const queue of queues.splice(0)) queue.destroy() })

/** @param {object} [opts] */
function createQueue (opts = {}) {
  const queue = new RequestQueue({ maxInFlightRequests: null, requestTimeout: 30000, enforceRequestTimeout: false, clientId: 'test', broker: 'localhost:9092', logger, ...opts })
  queues.push(queue)
  let checks = 0
  const check = queue.checkPendingRequests
  queue.checkPendingRequests = function () { checks++; return check.call(this) }
  /** @type {number[]} */
  const sent = []
  let next = 0
  return {
    queue,
    checks: () => checks,
    sent,
    /** Pushes a request; it resolves with its correlation id once answered. */
    push () {
      const correlationId = next++
      const answered = new Promise((resolve, reject) => {
        queue.push({
          entry: { correlationId, apiKey: 3, apiName: 'Metadata', apiVersion: 6, resolve, reject },
          expectResponse: true,
          sendRequest: () => sent.push(correlationId)
        })
      })
      return { correlationId, answered }
    },
    /** @param {number} correlationId */
    answer (correlationId) { queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 }) }
  }
}

test('the fix is applied to the kafkajs version it was written for (re-read RequestQueue before upgrading)', () => {
  expect(version).toBe('2.2.4')
  expect(requestQueuePatched).toBe(true)
})

test('once its requests are answered, a connection checks for pending requests no more', async () => {
  const q = createQueue()
  const { correlationId, answered } = q.push()
  q.answer(correlationId)
  await answered
  const afterAnswer = q.checks()
  await sleep(50)
  // kafkajs 2.2.4 checks again every millisecond: dozens of times here.
  expect(q.checks() - afterAnswer).toBe(0)
  expect(q.queue.throttleCheckTimeoutId).toBeNull()
})

test('a request held back by the broker\'s throttle is sent when the throttle ends', async () => {
  const q = createQueue()
  q.queue.maybeThrottle(40)
  const started = Date.now()
  const { correlationId, answered } = q.push()
  expect(q.sent).toEqual([])
  while (q.sent.length === 0 && Date.now() - started < 2000) await sleep(5)
  expect(q.sent).toEqual([correlationId])
  expect(Date.now() - started).toBeGreaterThanOrEqual(35)
  q.answer(correlationId)
  await answered
})

test('requests held back by the in-flight limit go out as the ones before are answered; once all are, nothing polls', async () => {
  const q = createQueue({ maxInFlightRequests: 1 })
  const first = q.push()
  const second = q.push()
  const third = q.push()
  expect(q.sent).toEqual([first.correlationId])
  q.answer(first.correlationId)
  expect(q.sent).toEqual([first.correlationId, second.correlationId])
  q.answer(second.correlationId)
  q.answer(third.correlationId)
  await Promise.all([first.answered, second.answered, third.answered])
  expect(q.sent).toEqual([0, 1, 2])
  // The check armed while requests were pending (every 10 ms) runs once more
  // and finds nothing; then no timer is left.
  await sleep(25)
  const settled = q.checks()
  await sleep(50)
  expect(q.checks()).toBe(settled)
  expect(q.queue.throttleCheckTimeoutId).toBeNull()
})
