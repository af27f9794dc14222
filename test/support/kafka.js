'use strict'

// Kafka helpers for integration tests: fresh topics per test, a producer, and
// a collector that records everything arriving on a topic.

const { createKafkaFromConfig, createProducer, toWire, fromKafka } = require('../../shared/src/kafka')
const { waitUntil } = require('./wait')
const { unique } = require('./config')

/** @param {Readonly<Record<string, any>>} config */
function createTestKafka (config) {
  const kafka = createKafkaFromConfig(config)
  const admin = kafka.admin()
  // Idempotent: a produce request that the broker appended but answered too
  // late for a slow machine is retried by kafkajs, and without idempotence
  // the retry appends the records again. A test's input must hold each
  // record once (a CI run found every record of two partitions twice).
  const producer = createProducer({ kafka, idempotent: true })
  /** @type {(() => Promise<void>)[]} */
  const cleanups = []

  return {
    kafka,
    async connect () {
      await admin.connect()
      await producer.connect()
    },
    /** @param {string[]} topics @param {number} partitions */
    async createTopics (topics, partitions = 1) {
      await admin.createTopics({ waitForLeaders: true, topics: topics.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })) })
    },
    /** @param {import('../../shared/src/kafka/envelope').OutgoingMessage[]} messages */
    async send (messages) {
      await producer.send(messages.map(toWire))
    },
    /** Raw send, for values that are not JSON. @param {{ topic: string, key: string, value: string }[]} messages */
    async sendRaw (messages) {
      await producer.send(messages.map((m) => ({ ...m, headers: {} })))
    },
    /** The group's committed offset per partition of a topic. @param {string} groupId @param {string} topic */
    async committed (groupId, topic) {
      const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] })
      return entry.partitions.map((p) => Number(p.offset))
    },
    /** Starts recording a topic from the beginning. @param {string} topic */
    async collect (topic) {
      const consumer = kafka.consumer({ groupId: unique('collector-'), maxWaitTimeInMs: 50 })
      /** @type {import('../../shared/src/kafka/envelope').IncomingMessage[]} */
      const messages = []
      await consumer.connect()
      await consumer.subscribe({ topic, fromBeginning: true })
      await consumer.run({ eachMessage: async ({ topic: t, partition, message }) => { messages.push(fromKafka(t, partition, message)) } })
      cleanups.push(() => consumer.disconnect())
      return {
        messages,
        /** @param {number} n */
        waitForCount: (n, timeoutMs = 30000) => waitUntil(() => messages.length >= n, { timeoutMs, what: `${n} messages on ${topic} (have ${messages.length})` })
      }
    },
    async close () {
      for (const c of cleanups.reverse()) await c().catch(() => {})
      await producer.disconnect().catch(() => {})
      await admin.disconnect().catch(() => {})
    }
  }
}

module.exports = { createTestKafka }
