'use strict'

const { defaultPartitioner } = require('./client')

/**
 * A producer that sends many messages per request and waits for all in-sync
 * replicas (acks=all): when send() resolves, the messages are durable.
 *
 * `sendSoon()` coalesces, the way the consumers batch: while one of its
 * produce requests is in flight, messages handed to it wait, and all of them
 * go in the next request as soon as the broker answers; each caller's promise
 * settles with its request. Under load many API requests share one produce
 * round trip instead of each paying its own (kafkajs does not coalesce
 * concurrent sends itself; a CPU profile at 1,000 transfers/s showed the API
 * sending one produce request per HTTP request). When idle it adds no
 * waiting: the flush runs right after the current turn of the event loop.
 *
 * `spacingMs` spaces the requests out while callers are coalescing anyway,
 * for the callers that allow it (`sendSoon(messages, { spaced: true })`: the
 * API's commands). When the previous request carried the messages of more
 * than one sendSoon() (callers arrive faster than the broker answers), the
 * next one starts no sooner than `spacingMs` after it did, and so carries
 * more. Each request costs a wake-up and the protocol's work on both sides
 * whatever it carries; under load fewer, fuller requests cost less CPU per
 * message. A request that followed one caller's messages never waits, so
 * neither does a lone transfer; a caller that does not allow waiting takes
 * whatever waits with it at once. 0 turns it off.
 *
 * `idempotent` makes the broker drop a retried request it had already
 * appended (kafkajs then keeps one request in flight, as sendSoon does
 * anyway). The tests' producer uses it, so their input holds each record
 * once; the switch's stages are idempotent by transfer and callback id, and
 * turning it on for them is a change still to measure at the max rate.
 *
 * @param {{ kafka: import('kafkajs').Kafka, idempotent?: boolean, spacingMs?: number, now?: () => number }} opts
 */
function createProducer ({ kafka, idempotent = false, spacingMs = 0, now = () => performance.now() }) {
  const producer = kafka.producer({
    allowAutoTopicCreation: false,
    createPartitioner: defaultPartitioner,
    // Retries inside kafkajs cover leader moves; the runner retries beyond that.
    retry: { initialRetryTime: 100, retries: 5 },
    ...(idempotent ? { idempotent: true, maxInFlightRequests: 1 } : {})
  })
  /** @type {{ messages: import('./envelope').WireMessage[], resolve: () => void, reject: (err: any) => void }[]} */
  let pending = []
  let scheduled = false
  let inFlight = false
  // Before when the next request waits, if its callers allow it: spacingMs
  // after a request that carried more than one caller's messages started.
  let spacedUntil = -Infinity
  /** @type {NodeJS.Timeout | null} */
  let spacer = null
  // Whether a caller that may not wait for the spacing has messages pending.
  let unspacedPending = false
  // Once disconnecting, nothing waits for its spacing.
  let closing = false

  /** @param {import('./envelope').WireMessage[]} messages */
  async function send (messages) {
    if (!messages.length) return
    /** @type {Map<string, { key: string, value: string, headers: Record<string, string> }[]>} */
    const byTopic = new Map()
    for (const { topic, key, value, headers } of messages) {
      if (!byTopic.has(topic)) byTopic.set(topic, [])
      byTopic.get(topic).push({ key, value, headers })
    }
    await producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([topic, msgs]) => ({ topic, messages: msgs }))
    })
  }

  function flush () {
    scheduled = false
    if (inFlight || !pending.length) return
    const mayWait = !closing && !unspacedPending
    if (spacer) {
      // Its timer still stands for what joined it, unless something may not wait.
      if (mayWait) return
      clearTimeout(spacer)
      spacer = null
    }
    const wait = mayWait ? spacedUntil - now() : 0
    if (wait > 0) {
      spacer = setTimeout(() => { spacer = null; flush() }, wait)
      return
    }
    const batch = pending
    pending = []
    unspacedPending = false
    inFlight = true
    const messages = batch.flatMap((p) => p.messages)
    spacedUntil = batch.length > 1 ? now() + spacingMs : -Infinity
    send(messages)
      .then(() => { for (const p of batch) p.resolve() }, (err) => { for (const p of batch) p.reject(err) })
      .finally(() => {
        inFlight = false
        flush()
      })
  }

  return {
    async connect () {
      await producer.connect()
    },
    send,
    /**
     * Like send(), but shares a produce request with the other messages
     * handed over in the same event-loop turn or while the previous request
     * was in flight.
     * @param {import('./envelope').WireMessage[]} messages
     * @param {{ spaced?: boolean }} [opts] spaced: may wait for the producer's spacing
     * @returns {Promise<void>}
     */
    sendSoon (messages, { spaced = false } = {}) {
      return new Promise((resolve, reject) => {
        pending.push({ messages, resolve, reject })
        if (!spaced) unspacedPending = true
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      })
    },
    async disconnect () {
      closing = true
      flush()
      await producer.disconnect()
    },
    // kafkajs's instrumentation events (metrics count the requests).
    events: producer.events,
    /** @type {import('kafkajs').Producer['on']} */
    on: (event, listener) => producer.on(event, listener)
  }
}

module.exports = { createProducer }
