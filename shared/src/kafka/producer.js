'use strict'

const { defaultPartitioner } = require('./client')

/**
 * A producer that sends many messages per request and waits for all in-sync
 * replicas (acks=all): when send() resolves, the messages are durable.
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

  return {
    async connect () {
      await producer.connect()
      connected = true
    },
    /**
     * @param {import('./envelope').WireMessage[]} messages
     */
    async send (messages) {
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
    },
    isConnected: () => connected,
    async disconnect () {
      connected = false
      await producer.disconnect()
    }
  }
}

module.exports = { createProducer }
