'use strict'

const { defaultPartitioner } = require('./client')

/**
 * A producer that sends many messages per request and waits for all in-sync
 * replicas (acks=all): when send() resolves, the messages are durable.
 *
 * `sendSoon()` coalesces: every message handed to it during one turn of the
 * event loop goes to the broker in one produce request, and each caller's
 * promise settles with that request. Under load an HTTP server handles many
 * requests per turn, so they share one round trip instead of queueing one
 * request each (kafkajs does not coalesce concurrent sends itself); when idle
 * it adds no waiting, since the flush runs right after the current turn.
 *
 * @param {{ kafka: import('kafkajs').Kafka, logger?: import('pino').Logger }} opts
 */
function createProducer ({ kafka }) {
  const producer = kafka.producer({
    allowAutoTopicCreation: false,
    createPartitioner: defaultPartitioner,
    // Retries inside kafkajs cover leader moves; the runner retries beyond that.
    retry: { initialRetryTime: 100, retries: 5 }
  })
  let connected = false
  /** @type {{ messages: import('./envelope').WireMessage[], resolve: () => void, reject: (err: any) => void }[]} */
  let pending = []
  let scheduled = false

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
    const batch = pending
    pending = []
    send(batch.flatMap((p) => p.messages)).then(
      () => { for (const p of batch) p.resolve() },
      (err) => { for (const p of batch) p.reject(err) })
  }

  return {
    async connect () {
      await producer.connect()
      connected = true
    },
    send,
    /**
     * Like send(), but shares a produce request with the other messages
     * handed over in the same event-loop turn.
     * @param {import('./envelope').WireMessage[]} messages
     * @returns {Promise<void>}
     */
    sendSoon (messages) {
      return new Promise((resolve, reject) => {
        pending.push({ messages, resolve, reject })
        if (!scheduled) {
          scheduled = true
          setImmediate(flush)
        }
      })
    },
    isConnected: () => connected,
    async disconnect () {
      connected = false
      await producer.disconnect()
    }
  }
}

module.exports = { createProducer }
